//! Lowercase hex encoding straight into a caller's buffer.
//!
//! Flink renders digests with `EncodingUtils.hex` (`TC/utils/EncodingUtils.java`,
//! `HEX_CHARS = "0123456789abcdef"`): two lowercase characters per byte, high
//! nibble first. [`encode_lower`] produces exactly that.
//!
//! # Performance
//!
//! On `x86_64` the encoder converts 16 input bytes per step with SSE2 (part of
//! the `x86_64` baseline, so no runtime detection is needed): the two nibbles
//! are split, interleaved with `punpck{l,h}bw` and mapped to ASCII with one
//! compare and two adds. The remaining `len % 16` bytes, and every byte on
//! other architectures, go through a 512-byte table of character pairs. A
//! 32-byte SHA-256 digest becomes 64 hex bytes in two SIMD steps.

use crate::error::{invalid_arg, Result};

/// `PAIRS[b]` is the two lowercase hex characters of byte `b`.
static PAIRS: [[u8; 2]; 256] = {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut t = [[0u8; 2]; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = [HEX[i >> 4], HEX[i & 15]];
        i += 1;
    }
    t
};

/// Writes the lowercase hex of `src` into the first `2 * src.len()` bytes of
/// `dst`.
///
/// # Errors
///
/// [`Error::InvalidArgument`](crate::Error::InvalidArgument) if `dst` is
/// shorter than `2 * src.len()`.
///
/// # Examples
///
/// ```
/// let mut out = [0u8; 6];
/// sluice_kernels::hex::encode_lower(&[0x00, 0xab, 0xff], &mut out).unwrap();
/// assert_eq!(&out, b"00abff");
/// ```
pub fn encode_lower(src: &[u8], dst: &mut [u8]) -> Result<()> {
    let needed = src.len().checked_mul(2).ok_or_else(|| invalid_arg("hex input too long"))?;
    if dst.len() < needed {
        return Err(invalid_arg(format!("hex output buffer holds {} bytes, {needed} needed", dst.len())));
    }
    // SAFETY: `src` is readable for `src.len()` bytes and `dst` writable for
    // `2 * src.len()` bytes (checked above); the two are distinct borrows.
    unsafe { encode_lower_raw(src.as_ptr(), src.len(), dst.as_mut_ptr()) };
    Ok(())
}

/// Raw form of [`encode_lower`], used by the digest kernels to write into the
/// spare capacity of an output values buffer.
///
/// # Safety
///
/// - `src` must be valid for reads of `len` bytes;
/// - `dst` must be valid for writes of `2 * len` bytes;
/// - the two ranges must not overlap.
#[inline(always)]
pub unsafe fn encode_lower_raw(src: *const u8, len: usize, dst: *mut u8) {
    let mut done = 0;
    #[cfg(target_arch = "x86_64")]
    {
        while done + 16 <= len {
            // SAFETY: `done + 16 <= len`, so 16 bytes are readable at `src +
            // done` and 32 writable at `dst + 2 * done` (caller contract).
            unsafe { sse2::hex16(src.add(done), dst.add(2 * done)) };
            done += 16;
        }
    }
    // SAFETY: `done <= len`; the rest of both ranges is in bounds by the
    // caller's contract.
    unsafe { encode_table_raw(src.add(done), len - done, dst.add(2 * done)) };
}

/// The scalar pair-table encoder alone (no SIMD), for benchmarks and as a
/// test oracle of the SIMD path.
///
/// # Errors
///
/// As [`encode_lower`].
#[cfg(feature = "public_imp")]
pub fn encode_lower_table(src: &[u8], dst: &mut [u8]) -> Result<()> {
    if dst.len() / 2 < src.len() {
        return Err(invalid_arg("hex output buffer too small"));
    }
    // SAFETY: lengths checked above.
    unsafe { encode_table_raw(src.as_ptr(), src.len(), dst.as_mut_ptr()) };
    Ok(())
}

/// # Safety
///
/// As [`encode_lower_raw`].
#[inline(always)]
unsafe fn encode_table_raw(src: *const u8, len: usize, dst: *mut u8) {
    for i in 0..len {
        // SAFETY: `i < len`: in bounds of both ranges by the caller contract;
        // `PAIRS` has an entry for every byte value.
        unsafe {
            let pair = PAIRS[*src.add(i) as usize];
            dst.add(2 * i).cast::<[u8; 2]>().write_unaligned(pair);
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod sse2 {
    use core::arch::x86_64::*;

    /// Hex of 16 bytes at `src` into 32 bytes at `dst`.
    ///
    /// # Safety
    ///
    /// `src` readable for 16 bytes, `dst` writable for 32 bytes. SSE2 is part
    /// of the `x86_64` baseline, so no CPU feature is required.
    #[inline(always)]
    pub(super) unsafe fn hex16(src: *const u8, dst: *mut u8) {
        // SAFETY: unaligned load/store of 16-byte vectors within the ranges
        // the caller guarantees; the arithmetic intrinsics need only SSE2.
        unsafe {
            let v = _mm_loadu_si128(src.cast::<__m128i>());
            let nib = _mm_set1_epi8(0x0f);
            let hi = _mm_and_si128(_mm_srli_epi16::<4>(v), nib);
            let lo = _mm_and_si128(v, nib);
            let a = ascii(_mm_unpacklo_epi8(hi, lo));
            let b = ascii(_mm_unpackhi_epi8(hi, lo));
            _mm_storeu_si128(dst.cast::<__m128i>(), a);
            _mm_storeu_si128(dst.add(16).cast::<__m128i>(), b);
        }
    }

    /// Nibbles 0..=15 → `'0'..='9'`, `'a'..='f'`.
    #[inline(always)]
    fn ascii(n: __m128i) -> __m128i {
        // SAFETY: register-only SSE2 intrinsics; SSE2 is always enabled on
        // x86_64.
        unsafe {
            let letter = _mm_cmpgt_epi8(n, _mm_set1_epi8(9));
            // 'a' - '0' - 10 = 39
            let adj = _mm_and_si128(letter, _mm_set1_epi8(39));
            _mm_add_epi8(_mm_add_epi8(n, _mm_set1_epi8(b'0' as i8)), adj)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive(src: &[u8]) -> Vec<u8> {
        src.iter().flat_map(|b| format!("{b:02x}").into_bytes()).collect()
    }

    #[test]
    fn all_lengths_and_bytes() {
        let data: Vec<u8> = (0..=255u8).chain((0..=255u8).rev()).collect();
        for start in 0..17 {
            for len in 0..(data.len() - start).min(80) {
                let src = &data[start..start + len];
                let mut out = vec![0u8; 2 * len];
                encode_lower(src, &mut out).unwrap();
                assert_eq!(out, naive(src), "start {start} len {len}");
                let mut out2 = vec![0u8; 2 * len];
                encode_lower_table(src, &mut out2).unwrap();
                assert_eq!(out2, out);
            }
        }
    }

    #[test]
    fn short_buffer_is_an_error() {
        let mut out = [0u8; 3];
        assert!(encode_lower(&[1, 2], &mut out).is_err());
    }
}
