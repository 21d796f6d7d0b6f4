//! SIMD UTF-16 → UTF-8 encoding for x86_64: an ASCII fast path that narrows
//! whole blocks of code units at a time, with the portable encoder
//! (`arch::all::encode`) taking over for any block that holds a non-ASCII
//! unit, after which the SIMD loop resumes at the next block.
//!
//! One generic loop over [`Vector`] serves SSE2 (16 units a step), AVX2 (32)
//! and AVX-512BW (64); each level is a `#[target_feature]` entry point with
//! the signature of [`EncodeFn`](super::EncodeFn).

use core::arch::x86_64::*;

use crate::arch::all::encode as scalar;
use crate::vector::Vector;

/// Encodes whole `V::BYTES`-unit blocks from unit `i` / byte `o` while a
/// whole block remains; returns the new `(i, o)`.
///
/// # Safety
///
/// - The caller enables the target features `V` needs (see [`Vector`]).
/// - `src` is valid for reads of `len` units, `i <= len`, and `dst + o` is
///   valid for writes of `3 * (len - i) + WRITE_SLACK` bytes.
#[inline(always)]
unsafe fn encode_blocks<V: Vector>(
    src: *const u16,
    len: usize,
    mut i: usize,
    dst: *mut u8,
    mut o: usize,
) -> (usize, usize) {
    let step = V::BYTES;
    let half = step / 2;
    while i + step <= len {
        // SAFETY: units i..i + step are in bounds (2 * half units = BYTES * 2
        // bytes over two loads); an ASCII block writes exactly `step` bytes,
        // within the 3-bytes-per-unit bound; the scalar range gets the
        // caller's bound for the rest of the row.
        unsafe {
            let a = V::load_unaligned(src.add(i).cast());
            let b = V::load_unaligned(src.add(i + half).cast());
            if !a.or(b).any_u16_above_ascii() {
                V::narrow_u16(a, b).store_unaligned(dst.add(o));
                i += step;
                o += step;
            } else {
                (i, o) = scalar::encode_range(src, len, i, i + step, dst, o);
            }
        }
    }
    (i, o)
}

/// Finishes a row of at least `V::BYTES` units whose remaining units
/// `i..len` are fewer than a block: if the last `V::BYTES` units are all
/// ASCII, one overlapping block rewrites the bytes of the already encoded
/// units among them (each of which, being ASCII, produced exactly one byte)
/// and adds the rest; otherwise the scalar encoder finishes the row.
///
/// # Safety
///
/// As for [`encode_blocks`], plus `len >= V::BYTES` and `len - i < V::BYTES`,
/// with `o` the bytes written for units `0..i`.
#[inline(always)]
unsafe fn encode_tail<V: Vector>(src: *const u16, len: usize, i: usize, dst: *mut u8, o: usize) -> usize {
    if i >= len {
        return o;
    }
    debug_assert!(len >= V::BYTES && len - i < V::BYTES);
    let start = len - V::BYTES;
    let back = i - start; // units start..i are already encoded
    // SAFETY: units start..len are in bounds. If they are all ASCII, the
    // bytes of units start..i are the `back` bytes before `o` (so `o - back`
    // does not underflow) and the store ends at the row's true end, within
    // the bound. Otherwise the scalar range gets the caller's bound.
    unsafe {
        let a = V::load_unaligned(src.add(start).cast());
        let b = V::load_unaligned(src.add(start + V::BYTES / 2).cast());
        if !a.or(b).any_u16_above_ascii() {
            V::narrow_u16(a, b).store_unaligned(dst.add(o - back));
            return o - back + V::BYTES;
        }
        scalar::encode_range(src, len, i, len, dst, o).1
    }
}

/// SSE2 level: 16 units per step.
///
/// # Safety
///
/// - The CPU supports SSE2 (always true on x86_64).
/// - `src` is valid for reads of `len` units and `dst` for writes of
///   `3 * len + WRITE_SLACK` bytes (or the exact UTF-8 length + slack).
#[target_feature(enable = "sse2")]
pub(crate) unsafe fn encode_sse2(src: *const u16, len: usize, dst: *mut u8) -> usize {
    // SAFETY: SSE2 is enabled here; the bounds are the caller's.
    unsafe {
        let (i, o) = encode_blocks::<__m128i>(src, len, 0, dst, 0);
        if len >= 16 {
            encode_tail::<__m128i>(src, len, i, dst, o)
        } else {
            scalar::encode_range(src, len, i, len, dst, o).1
        }
    }
}

/// AVX2 level: 32 units per step, then a 16-unit SSE step for short rows.
///
/// # Safety
///
/// - The CPU supports AVX2.
/// - Bounds as for [`encode_sse2`].
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn encode_avx2(src: *const u16, len: usize, dst: *mut u8) -> usize {
    // SAFETY: AVX2 (which implies SSE2) is enabled here; the bounds are the
    // caller's.
    unsafe {
        if len >= 32 {
            let (i, o) = encode_blocks::<__m256i>(src, len, 0, dst, 0);
            encode_tail::<__m256i>(src, len, i, dst, o)
        } else if len >= 16 {
            let (i, o) = encode_blocks::<__m128i>(src, len, 0, dst, 0);
            encode_tail::<__m128i>(src, len, i, dst, o)
        } else {
            scalar::encode_range(src, len, 0, len, dst, 0).1
        }
    }
}

/// AVX-512BW level: 64 units per step, then masked 32-unit steps (masked
/// load, masked narrowing store) for the rest of the row, so rows of any
/// length end without a scalar tail.
///
/// # Safety
///
/// - The CPU supports AVX-512F and AVX-512BW.
/// - Bounds as for [`encode_sse2`].
#[target_feature(enable = "avx512f,avx512bw")]
pub(crate) unsafe fn encode_avx512(src: *const u16, len: usize, dst: *mut u8) -> usize {
    // SAFETY: AVX-512F/BW are enabled here; the bounds are the caller's.
    let (mut i, mut o) = unsafe { encode_blocks::<__m512i>(src, len, 0, dst, 0) };
    let non_ascii = _mm512_set1_epi16(0xFF80u16 as i16);
    while i < len {
        let r = (len - i).min(32);
        let m: __mmask32 = if r == 32 { u32::MAX } else { (1u32 << r) - 1 };
        // SAFETY: the mask covers only units i..i + r, which are in bounds
        // (masked-off lanes are neither read nor faulted on); an ASCII chunk
        // stores exactly r bytes under the same mask; otherwise the scalar
        // range gets the caller's bound.
        unsafe {
            let v = _mm512_maskz_loadu_epi16(m, src.add(i).cast());
            if _mm512_test_epi16_mask(v, non_ascii) == 0 {
                _mm512_mask_cvtepi16_storeu_epi8(dst.add(o).cast(), m, v);
                i += r;
                o += r;
            } else {
                (i, o) = scalar::encode_range(src, len, i, i + r, dst, o);
            }
        }
    }
    o
}
