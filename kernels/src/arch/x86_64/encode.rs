//! SIMD UTF-16 → UTF-8 encoding for x86_64: an ASCII fast path that narrows
//! whole blocks of code units at a time, with the portable encoder
//! (`arch::all::encode`) taking over for any block that holds a non-ASCII
//! unit, after which the SIMD loop resumes at the next block.
//!
//! One generic loop over [`Vector`] serves SSE2 (16 units a step), AVX2 (32)
//! and AVX-512BW (64); each level is a `#[target_feature]` entry point with
//! the signature of [`EncodeFn`](crate::arch::EncodeFn). A row's last partial
//! block is finished by one overlapping block when it is ASCII.

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

/// AVX-512 level: 64 ASCII units per step; any other 16 units (or the
/// last 1..16 of a row) are encoded by [`encode16_avx512`] without leaving
/// SIMD unless they hold a surrogate.
///
/// # Safety
///
/// - The CPU supports AVX-512F, AVX-512BW, AVX-512VBMI2 and BMI2.
/// - Bounds as for [`encode_sse2`].
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi2,bmi2")]
#[allow(clippy::incompatible_msrv)] // AVX-512 intrinsics: Rust >= 1.89
pub(crate) unsafe fn encode_avx512(src: *const u16, len: usize, dst: *mut u8) -> usize {
    let mut i = 0;
    let mut o = 0;
    while i + 64 <= len {
        // SAFETY: units i..i + 64 are in bounds; an ASCII block writes 64
        // bytes for 64 units, within the caller's bound; `encode_run_avx512`
        // gets the caller's bounds from unit i.
        unsafe {
            let a = <__m512i as Vector>::load_unaligned(src.add(i).cast());
            let b = <__m512i as Vector>::load_unaligned(src.add(i + 32).cast());
            if !a.or(b).any_u16_above_ascii() {
                <__m512i as Vector>::narrow_u16(a, b).store_unaligned(dst.add(o));
                i += 64;
                o += 64;
            } else {
                (i, o) = encode_run_avx512(src, len, i, i + 64, dst, o);
            }
        }
    }
    // Fewer than 64 units left: 16-unit SSE-width ASCII blocks (measured
    // faster than masked AVX-512 forms for short rows on Zen 4), an
    // overlapping final ASCII block, and the 16-unit mixed path for any
    // block that is not ASCII.
    while i + 16 <= len {
        // SAFETY: units i..i + 16 are in bounds; an ASCII block writes 16
        // bytes; `encode_run_avx512` gets the caller's bounds from unit i.
        unsafe {
            let a = <__m128i as Vector>::load_unaligned(src.add(i).cast());
            let b = <__m128i as Vector>::load_unaligned(src.add(i + 8).cast());
            if !a.or(b).any_u16_above_ascii() {
                <__m128i as Vector>::narrow_u16(a, b).store_unaligned(dst.add(o));
                i += 16;
                o += 16;
            } else {
                (i, o) = encode_run_avx512(src, len, i, i + 16, dst, o);
            }
        }
    }
    if i < len {
        if len >= 16 {
            let start = len - 16;
            let back = i - start;
            // SAFETY: as in `encode_tail`: units start..len are in bounds,
            // and if they are all ASCII the bytes of units start..i are the
            // `back` bytes before `o`, so the store ends at the row's end.
            unsafe {
                let a = <__m128i as Vector>::load_unaligned(src.add(start).cast());
                let b = <__m128i as Vector>::load_unaligned(src.add(start + 8).cast());
                if !a.or(b).any_u16_above_ascii() {
                    <__m128i as Vector>::narrow_u16(a, b).store_unaligned(dst.add(o - back));
                    return o - back + 16;
                }
            }
        }
        // SAFETY: the caller's bounds, from unit i.
        (i, o) = unsafe { encode_run_avx512(src, len, i, len, dst, o) };
    }
    debug_assert!(i >= len);
    o
}

/// Encodes units `i..stop` (or one past `stop`, to finish a surrogate pair)
/// 16 at a time with [`encode16_avx512`], handing blocks that hold a
/// surrogate to the portable encoder; returns the new `(i, o)`.
///
/// # Safety
///
/// As for [`encode_avx512`], with `i <= stop <= len` and `dst + o` valid for
/// `3 * (len - i) + WRITE_SLACK` bytes.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi2,bmi2")]
unsafe fn encode_run_avx512(
    src: *const u16,
    len: usize,
    mut i: usize,
    stop: usize,
    dst: *mut u8,
    mut o: usize,
) -> (usize, usize) {
    while i < stop {
        let n = (stop - i).min(16);
        // SAFETY: units i..i + n are in bounds; `dst + o` has room for
        // 3 bytes per remaining unit (plus slack), which covers these n.
        match unsafe { encode16_avx512(src.add(i), n, dst.add(o)) } {
            Some(written) => {
                i += n;
                o += written;
            }
            // A surrogate: the portable encoder pairs it (possibly with the
            // first unit past these n) or writes '?'.
            // SAFETY: the caller's bounds, from unit i.
            None => (i, o) = unsafe { scalar::encode_range(src, len, i, i + n, dst, o) },
        }
    }
    (i, o)
}

/// Encodes `n <= 16` units that contain no surrogate: widens them to 32-bit
/// lanes, builds each lane's 1-, 2- or 3-byte UTF-8 form in place, and packs
/// the valid bytes together with one byte compress (VBMI2); the byte mask
/// comes from the per-lane length masks spread by `pdep`. Returns `None`
/// (having written nothing) if a surrogate is present.
///
/// # Safety
///
/// - The CPU supports AVX-512F, AVX-512BW, AVX-512VBMI2 and BMI2.
/// - `src` is valid for reads of `n` units (masked-off lanes are not read)
///   and `dst` for writes of `3 * n` bytes; `n <= 16`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi2,bmi2")]
#[allow(clippy::incompatible_msrv)] // AVX-512 intrinsics: Rust >= 1.89
unsafe fn encode16_avx512(src: *const u16, n: usize, dst: *mut u8) -> Option<usize> {
    debug_assert!(n <= 16);
    let lanes: __mmask16 = ((1u32 << n) - 1) as __mmask16;
    // SAFETY: the load mask covers only units 0..n (in bounds).
    let v = unsafe { _mm512_maskz_loadu_epi16(lanes as __mmask32, src.cast()) };
    if _mm512_test_epi16_mask(v, _mm512_set1_epi16(0xFF80u16 as i16)) == 0 {
        // All ASCII: narrow in a register, one masked byte store.
        let bytes = _mm512_castsi256_si512(_mm512_cvtepi16_epi8(v));
        // SAFETY: stores exactly n bytes (n <= 3 * n, the caller's bound).
        unsafe { _mm512_mask_storeu_epi8(dst.cast(), (1u64 << n) - 1, bytes) };
        return Some(n);
    }
    let c = _mm512_cvtepu16_epi32(_mm512_castsi512_si256(v));
    let sur = _mm512_cmpeq_epi32_mask(_mm512_and_si512(c, _mm512_set1_epi32(0xF800)), _mm512_set1_epi32(0xD800));
    if sur & lanes != 0 {
        return None;
    }
    let m2 = _mm512_cmpge_epu32_mask(c, _mm512_set1_epi32(0x80));
    let m3 = _mm512_cmpge_epu32_mask(c, _mm512_set1_epi32(0x800));
    let low6 = _mm512_set1_epi32(0x3F);
    let cont = _mm512_set1_epi32(0x80);
    // 2 bytes: 110xxxxx 10xxxxxx (little-endian in the lane).
    let w2 = _mm512_or_si512(
        _mm512_or_si512(_mm512_set1_epi32(0xC0), _mm512_srli_epi32::<6>(c)),
        _mm512_slli_epi32::<8>(_mm512_or_si512(cont, _mm512_and_si512(c, low6))),
    );
    // 3 bytes: 1110xxxx 10xxxxxx 10xxxxxx.
    let w3 = _mm512_or_si512(
        _mm512_or_si512(_mm512_set1_epi32(0xE0), _mm512_srli_epi32::<12>(c)),
        _mm512_or_si512(
            _mm512_slli_epi32::<8>(_mm512_or_si512(cont, _mm512_and_si512(_mm512_srli_epi32::<6>(c), low6))),
            _mm512_slli_epi32::<16>(_mm512_or_si512(cont, _mm512_and_si512(c, low6))),
        ),
    );
    let w = _mm512_mask_mov_epi32(_mm512_mask_mov_epi32(c, m2, w2), m3, w3);
    // Byte 4j of the output mask is set for every real lane, 4j+1 for 2- and
    // 3-byte lanes, 4j+2 for 3-byte lanes.
    let real = lanes as u64;
    let bytes = _pdep_u64(real, 0x1111_1111_1111_1111)
        | _pdep_u64((m2 & lanes) as u64, 0x2222_2222_2222_2222)
        | _pdep_u64((m3 & lanes) as u64, 0x4444_4444_4444_4444);
    let packed = _mm512_maskz_compress_epi8(bytes, w);
    let written = bytes.count_ones() as usize;
    // SAFETY: `written <= 3 * n` bytes, within the caller's bound; the store
    // mask covers exactly those bytes (written <= 48 < 64).
    unsafe { _mm512_mask_storeu_epi8(dst.cast(), (1u64 << written) - 1, packed) };
    Some(written)
}
