//! A small vector abstraction over x86's 128-, 256- and 512-bit integer
//! registers, in the style of memchr's `src/vector.rs`.
//!
//! The one job it serves today is the ASCII fast path of the UTF-16 → UTF-8
//! encoder: load UTF-16 code units, ask "is every unit below 0x80?", and if
//! so narrow two registers of `u16` lanes into one register of `u8` lanes.
//! The generic loop that uses it lives in `arch::x86_64::encode`; each ISA
//! only supplies these few operations.
//!
//! The impls are `#[inline(always)]` and carry no `#[target_feature]`: they
//! are meant to be inlined into a function that enables the feature (as in
//! memchr), so the trait methods are `unsafe` and their safety contract is
//! the trait-level one below.

/// Vector operations needed by the UTF-16 narrowing loops.
///
/// # Safety
///
/// Every method is implemented with vendor intrinsics. Callers must only call
/// them from a function compiled with the target features the implementing
/// type needs (`sse2` for `__m128i`, `avx2` for `__m256i`, `avx512f` +
/// `avx512bw` for `__m512i`) and only on a CPU that supports them. Pointer
/// arguments carry their own requirements, stated per method.
#[allow(dead_code)] // not every method is used on every target
pub(crate) trait Vector: Copy {
    /// Size of the register in bytes. A narrowing step consumes `BYTES`
    /// UTF-16 code units (two registers) and produces `BYTES` bytes.
    const BYTES: usize;

    /// Loads `BYTES` bytes from `data`, which need not be aligned.
    ///
    /// # Safety
    ///
    /// `data` must be valid for reads of `BYTES` bytes.
    unsafe fn load_unaligned(data: *const u8) -> Self;

    /// Stores the register to `data`, which need not be aligned.
    ///
    /// # Safety
    ///
    /// `data` must be valid for writes of `BYTES` bytes.
    unsafe fn store_unaligned(self, data: *mut u8);

    /// Bitwise OR.
    unsafe fn or(self, other: Self) -> Self;

    /// Bitwise XOR.
    unsafe fn xor(self, other: Self) -> Self;

    /// Whether every bit is zero.
    unsafe fn is_zero(self) -> bool;

    /// Whether any `u16` lane is `>= 0x80`, i.e. not ASCII.
    unsafe fn any_u16_above_ascii(self) -> bool;

    /// Narrows two registers of `u16` lanes, each below 0x100, into one
    /// register of `u8` lanes: `lo`'s lanes first, then `hi`'s, order kept.
    unsafe fn narrow_u16(lo: Self, hi: Self) -> Self;
}

/// The [`Vector`] methods that are one intrinsic each on every ISA (load,
/// store, OR, XOR), for the impl of `$v` with `$bytes`-byte registers.
#[cfg(target_arch = "x86_64")]
macro_rules! one_intrinsic_ops {
    ($v:ty, $bytes:literal, $load:ident, $store:ident, $or:ident, $xor:ident) => {
        const BYTES: usize = $bytes;

        #[inline(always)]
        unsafe fn load_unaligned(data: *const u8) -> $v {
            // SAFETY: the caller guarantees `BYTES` readable bytes and the
            // ISA.
            unsafe { $load(data.cast()) }
        }

        #[inline(always)]
        unsafe fn store_unaligned(self, data: *mut u8) {
            // SAFETY: the caller guarantees `BYTES` writable bytes and the
            // ISA.
            unsafe { $store(data.cast(), self) }
        }

        #[inline(always)]
        unsafe fn or(self, other: $v) -> $v {
            // SAFETY: the ISA is supplied by the caller.
            unsafe { $or(self, other) }
        }

        #[inline(always)]
        unsafe fn xor(self, other: $v) -> $v {
            // SAFETY: the ISA is supplied by the caller.
            unsafe { $xor(self, other) }
        }
    };
}

#[cfg(target_arch = "x86_64")]
mod x86_64 {
    use core::arch::x86_64::*;

    use super::Vector;

    impl Vector for __m128i {
        one_intrinsic_ops!(__m128i, 16, _mm_loadu_si128, _mm_storeu_si128, _mm_or_si128, _mm_xor_si128);

        #[inline(always)]
        unsafe fn is_zero(self) -> bool {
            // SAFETY: SSE2 is supplied by the caller.
            unsafe { _mm_movemask_epi8(_mm_cmpeq_epi8(self, _mm_setzero_si128())) == 0xFFFF }
        }

        #[inline(always)]
        unsafe fn any_u16_above_ascii(self) -> bool {
            // Saturating add of 0x7F80 sets bit 15 exactly in lanes >= 0x80;
            // movemask then sees it as the top bit of each lane's high byte.
            // SAFETY: SSE2 is supplied by the caller.
            unsafe {
                let t = _mm_adds_epu16(self, _mm_set1_epi16(0x7F80));
                (_mm_movemask_epi8(t) & 0xAAAA) != 0
            }
        }

        #[inline(always)]
        unsafe fn narrow_u16(lo: __m128i, hi: __m128i) -> __m128i {
            // Lanes are < 0x100, so unsigned saturation is exact.
            // SAFETY: SSE2 is supplied by the caller.
            unsafe { _mm_packus_epi16(lo, hi) }
        }
    }

    impl Vector for __m256i {
        one_intrinsic_ops!(__m256i, 32, _mm256_loadu_si256, _mm256_storeu_si256, _mm256_or_si256, _mm256_xor_si256);

        #[inline(always)]
        unsafe fn is_zero(self) -> bool {
            // SAFETY: AVX (implied by AVX2) is supplied by the caller.
            unsafe { _mm256_testz_si256(self, self) != 0 }
        }

        #[inline(always)]
        unsafe fn any_u16_above_ascii(self) -> bool {
            // SAFETY: AVX2 is supplied by the caller.
            unsafe {
                let t = _mm256_adds_epu16(self, _mm256_set1_epi16(0x7F80));
                (_mm256_movemask_epi8(t) as u32 & 0xAAAA_AAAA) != 0
            }
        }

        #[inline(always)]
        unsafe fn narrow_u16(lo: __m256i, hi: __m256i) -> __m256i {
            // packus works per 128-bit lane, giving quadwords
            // lo0 hi0 lo1 hi1; the permute restores lo0 lo1 hi0 hi1.
            // SAFETY: AVX2 is supplied by the caller.
            unsafe {
                let p = _mm256_packus_epi16(lo, hi);
                _mm256_permute4x64_epi64::<0b11_01_10_00>(p)
            }
        }
    }

    // AVX-512 intrinsics are stable since Rust 1.89; the workspace declares
    // 1.88 (see the encode report: rust-version should be raised to 1.89).
    #[allow(clippy::incompatible_msrv)]
    impl Vector for __m512i {
        one_intrinsic_ops!(__m512i, 64, _mm512_loadu_si512, _mm512_storeu_si512, _mm512_or_si512, _mm512_xor_si512);

        #[inline(always)]
        unsafe fn is_zero(self) -> bool {
            // SAFETY: AVX-512BW is supplied by the caller.
            unsafe { _mm512_test_epi8_mask(self, self) == 0 }
        }

        #[inline(always)]
        unsafe fn any_u16_above_ascii(self) -> bool {
            // SAFETY: AVX-512BW is supplied by the caller.
            unsafe { _mm512_test_epi16_mask(self, _mm512_set1_epi16(0xFF80u16 as i16)) != 0 }
        }

        #[inline(always)]
        unsafe fn narrow_u16(lo: __m512i, hi: __m512i) -> __m512i {
            // packus per 128-bit lane gives quadwords lo0 hi0 lo1 hi1 lo2 hi2
            // lo3 hi3; gather the lo quadwords first, then the hi ones.
            // SAFETY: AVX-512F/BW are supplied by the caller.
            unsafe {
                let p = _mm512_packus_epi16(lo, hi);
                let idx = _mm512_set_epi64(7, 5, 3, 1, 6, 4, 2, 0);
                _mm512_permutexvar_epi64(idx, p)
            }
        }
    }
}
