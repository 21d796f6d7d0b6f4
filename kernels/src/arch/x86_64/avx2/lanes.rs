//! 8 × 32-bit and 4 × 64-bit lanes in `__m256i` (AVX2) for the multi-buffer
//! digests.

use core::arch::x86_64::*;

use crate::arch::lanes::{Lanes, V32, V64};

/// 8 lanes of 32 bits.
#[derive(Clone, Copy)]
pub(crate) struct V8x32(__m256i);
/// 4 lanes of 64 bits.
#[derive(Clone, Copy)]
pub(crate) struct V4x64(__m256i);

const BSWAP32: [u8; 32] =
    [3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12, 3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12];
const BSWAP64: [u8; 32] =
    [7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8];

// SAFETY: every method is only called under the trait contract (AVX2
// enabled and present).
unsafe impl Lanes for V8x32 {
    type Word = u32;
    #[inline(always)]
    unsafe fn load(p: *const u32) -> Self {
        // SAFETY: caller passes 32 readable bytes; AVX per contract.
        unsafe { V8x32(_mm256_loadu_si256(p.cast())) }
    }
    #[inline(always)]
    unsafe fn store(self, p: *mut u32) {
        // SAFETY: caller passes 32 writable bytes; AVX per contract.
        unsafe { _mm256_storeu_si256(p.cast(), self.0) }
    }
    #[inline(always)]
    unsafe fn splat(x: u32) -> Self {
        // SAFETY: AVX per contract.
        unsafe { V8x32(_mm256_set1_epi32(x as i32)) }
    }
    #[inline(always)]
    unsafe fn add(self, b: Self) -> Self {
        // SAFETY: AVX2 per contract.
        unsafe { V8x32(_mm256_add_epi32(self.0, b.0)) }
    }
    #[inline(always)]
    unsafe fn xor(self, b: Self) -> Self {
        // SAFETY: AVX2 per contract.
        unsafe { V8x32(_mm256_xor_si256(self.0, b.0)) }
    }
    #[inline(always)]
    unsafe fn and(self, b: Self) -> Self {
        // SAFETY: AVX2 per contract.
        unsafe { V8x32(_mm256_and_si256(self.0, b.0)) }
    }
    #[inline(always)]
    unsafe fn or(self, b: Self) -> Self {
        // SAFETY: AVX2 per contract.
        unsafe { V8x32(_mm256_or_si256(self.0, b.0)) }
    }
    #[inline(always)]
    unsafe fn andnot(self, b: Self) -> Self {
        // SAFETY: AVX2 per contract.
        unsafe { V8x32(_mm256_andnot_si256(self.0, b.0)) }
    }
    #[inline(always)]
    unsafe fn shr(self, n: u32) -> Self {
        // SAFETY: AVX2 per contract; constant count folds to vpsrld imm.
        unsafe { V8x32(_mm256_srl_epi32(self.0, _mm_cvtsi32_si128(n as i32))) }
    }
}

// SAFETY: every method is only called under the trait contract (AVX2
// enabled and present).
unsafe impl V32 for V8x32 {
    #[inline(always)]
    unsafe fn rotl(self, n: u32) -> Self {
        // SAFETY: AVX2 per contract.
        unsafe { self.shl(n).or(self.shr(32 - n)) }
    }
    #[inline(always)]
    unsafe fn shl(self, n: u32) -> Self {
        // SAFETY: AVX2 per contract.
        unsafe { V8x32(_mm256_sll_epi32(self.0, _mm_cvtsi32_si128(n as i32))) }
    }
    #[inline(always)]
    unsafe fn load_block<const BE: bool>(blocks: &[*const u8; 16]) -> [Self; 16] {
        // SAFETY: each of the first 8 pointers addresses 64 readable
        // bytes (caller); AVX2 per contract.
        unsafe {
            let swap = _mm256_loadu_si256(BSWAP32.as_ptr().cast());
            let mut out = [V8x32(_mm256_setzero_si256()); 16];
            for half in 0..2 {
                let mut r = [_mm256_setzero_si256(); 8];
                for (l, r) in r.iter_mut().enumerate() {
                    let v = _mm256_loadu_si256(blocks[l].add(32 * half).cast());
                    *r = if BE { _mm256_shuffle_epi8(v, swap) } else { v };
                }
                // u[4g + j], 128-bit half k: word 4k + j of rows 4g..4g+4.
                let mut u = [_mm256_setzero_si256(); 8];
                for g in 0..2 {
                    let t0 = _mm256_unpacklo_epi32(r[4 * g], r[4 * g + 1]);
                    let t1 = _mm256_unpackhi_epi32(r[4 * g], r[4 * g + 1]);
                    let t2 = _mm256_unpacklo_epi32(r[4 * g + 2], r[4 * g + 3]);
                    let t3 = _mm256_unpackhi_epi32(r[4 * g + 2], r[4 * g + 3]);
                    u[4 * g] = _mm256_unpacklo_epi64(t0, t2);
                    u[4 * g + 1] = _mm256_unpackhi_epi64(t0, t2);
                    u[4 * g + 2] = _mm256_unpacklo_epi64(t1, t3);
                    u[4 * g + 3] = _mm256_unpackhi_epi64(t1, t3);
                }
                for j in 0..4 {
                    out[8 * half + j] = V8x32(_mm256_permute2x128_si256::<0x20>(u[j], u[4 + j]));
                    out[8 * half + 4 + j] = V8x32(_mm256_permute2x128_si256::<0x31>(u[j], u[4 + j]));
                }
            }
            out
        }
    }
}

// SAFETY: as for V8x32.
unsafe impl Lanes for V4x64 {
    type Word = u64;
    #[inline(always)]
    unsafe fn load(p: *const u64) -> Self {
        // SAFETY: caller passes 32 readable bytes; AVX per contract.
        unsafe { V4x64(_mm256_loadu_si256(p.cast())) }
    }
    #[inline(always)]
    unsafe fn store(self, p: *mut u64) {
        // SAFETY: caller passes 32 writable bytes; AVX per contract.
        unsafe { _mm256_storeu_si256(p.cast(), self.0) }
    }
    #[inline(always)]
    unsafe fn splat(x: u64) -> Self {
        // SAFETY: AVX per contract.
        unsafe { V4x64(_mm256_set1_epi64x(x as i64)) }
    }
    #[inline(always)]
    unsafe fn add(self, b: Self) -> Self {
        // SAFETY: AVX2 per contract.
        unsafe { V4x64(_mm256_add_epi64(self.0, b.0)) }
    }
    #[inline(always)]
    unsafe fn xor(self, b: Self) -> Self {
        // SAFETY: AVX2 per contract.
        unsafe { V4x64(_mm256_xor_si256(self.0, b.0)) }
    }
    #[inline(always)]
    unsafe fn and(self, b: Self) -> Self {
        // SAFETY: AVX2 per contract.
        unsafe { V4x64(_mm256_and_si256(self.0, b.0)) }
    }
    #[inline(always)]
    unsafe fn or(self, b: Self) -> Self {
        // SAFETY: AVX2 per contract.
        unsafe { V4x64(_mm256_or_si256(self.0, b.0)) }
    }
    #[inline(always)]
    unsafe fn andnot(self, b: Self) -> Self {
        // SAFETY: AVX2 per contract.
        unsafe { V4x64(_mm256_andnot_si256(self.0, b.0)) }
    }
    #[inline(always)]
    unsafe fn shr(self, n: u32) -> Self {
        // SAFETY: AVX2 per contract.
        unsafe { V4x64(_mm256_srl_epi64(self.0, _mm_cvtsi32_si128(n as i32))) }
    }
}

// SAFETY: as for V8x32.
unsafe impl V64 for V4x64 {
    #[inline(always)]
    unsafe fn rotr(self, n: u32) -> Self {
        // SAFETY: AVX2 per contract.
        unsafe {
            let r = _mm256_srl_epi64(self.0, _mm_cvtsi32_si128(n as i32));
            let l = _mm256_sll_epi64(self.0, _mm_cvtsi32_si128(64 - n as i32));
            V4x64(_mm256_or_si256(r, l))
        }
    }
    #[inline(always)]
    unsafe fn load_block_be(blocks: &[*const u8; 16]) -> [Self; 16] {
        // SAFETY: each of the first 4 pointers addresses 128 readable
        // bytes (caller); AVX2 per contract.
        unsafe {
            let swap = _mm256_loadu_si256(BSWAP64.as_ptr().cast());
            let mut out = [V4x64(_mm256_setzero_si256()); 16];
            for q in 0..4 {
                let mut r = [_mm256_setzero_si256(); 4];
                for (l, r) in r.iter_mut().enumerate() {
                    let v = _mm256_loadu_si256(blocks[l].add(32 * q).cast());
                    *r = _mm256_shuffle_epi8(v, swap);
                }
                let t0 = _mm256_unpacklo_epi64(r[0], r[1]);
                let t1 = _mm256_unpackhi_epi64(r[0], r[1]);
                let t2 = _mm256_unpacklo_epi64(r[2], r[3]);
                let t3 = _mm256_unpackhi_epi64(r[2], r[3]);
                out[4 * q] = V4x64(_mm256_permute2x128_si256::<0x20>(t0, t2));
                out[4 * q + 1] = V4x64(_mm256_permute2x128_si256::<0x20>(t1, t3));
                out[4 * q + 2] = V4x64(_mm256_permute2x128_si256::<0x31>(t0, t2));
                out[4 * q + 3] = V4x64(_mm256_permute2x128_si256::<0x31>(t1, t3));
            }
            out
        }
    }
}
