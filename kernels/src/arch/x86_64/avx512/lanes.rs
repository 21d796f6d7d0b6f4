//! 16 × 32-bit and 8 × 64-bit lanes in `__m512i` (AVX-512F + BW) for the
//! multi-buffer digests.
// The AVX-512 intrinsics are stable since Rust 1.89 (the workspace MSRV).

use core::arch::x86_64::*;

use crate::arch::lanes::{Lanes, V32, V64};

/// 16 lanes of 32 bits.
#[derive(Clone, Copy)]
pub(crate) struct V16x32(__m512i);
/// 8 lanes of 64 bits.
#[derive(Clone, Copy)]
pub(crate) struct V8x64(__m512i);

/// Byte shuffle that swaps the bytes of every 32-bit word.
const BSWAP32: [u8; 16] = [3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12];
/// Byte shuffle that swaps the bytes of every 64-bit word.
const BSWAP64: [u8; 16] = [7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8];

/// Transposes four vectors of four 128-bit chunks each:
/// returns `out[k] = [a.k, b.k, c.k, d.k]`.
#[inline(always)]
unsafe fn transpose_chunks(a: __m512i, b: __m512i, c: __m512i, d: __m512i) -> [__m512i; 4] {
    // SAFETY: AVX-512F is enabled in the caller (trait contract).
    unsafe {
        let v0 = _mm512_shuffle_i32x4::<0x44>(a, b); // a0 a1 b0 b1
        let v1 = _mm512_shuffle_i32x4::<0xEE>(a, b); // a2 a3 b2 b3
        let v2 = _mm512_shuffle_i32x4::<0x44>(c, d);
        let v3 = _mm512_shuffle_i32x4::<0xEE>(c, d);
        [
            _mm512_shuffle_i32x4::<0x88>(v0, v2),
            _mm512_shuffle_i32x4::<0xDD>(v0, v2),
            _mm512_shuffle_i32x4::<0x88>(v1, v3),
            _mm512_shuffle_i32x4::<0xDD>(v1, v3),
        ]
    }
}

// SAFETY: every method is only called under the trait contract (AVX-512F
// and AVX-512BW enabled and present).
unsafe impl Lanes for V16x32 {
    type Word = u32;
    #[inline(always)]
    unsafe fn load(p: *const u32) -> Self {
        // SAFETY: caller passes 64 readable bytes; AVX-512F per contract.
        unsafe { V16x32(_mm512_loadu_si512(p.cast())) }
    }
    #[inline(always)]
    unsafe fn store(self, p: *mut u32) {
        // SAFETY: caller passes 64 writable bytes; AVX-512F per contract.
        unsafe { _mm512_storeu_si512(p.cast(), self.0) }
    }
    #[inline(always)]
    unsafe fn splat(x: u32) -> Self {
        // SAFETY: AVX-512F per contract.
        unsafe { V16x32(_mm512_set1_epi32(x as i32)) }
    }
    #[inline(always)]
    unsafe fn add(self, b: Self) -> Self {
        // SAFETY: AVX-512F per contract.
        unsafe { V16x32(_mm512_add_epi32(self.0, b.0)) }
    }
    #[inline(always)]
    unsafe fn xor(self, b: Self) -> Self {
        // SAFETY: AVX-512F per contract.
        unsafe { V16x32(_mm512_xor_si512(self.0, b.0)) }
    }
    #[inline(always)]
    unsafe fn and(self, b: Self) -> Self {
        // SAFETY: AVX-512F per contract.
        unsafe { V16x32(_mm512_and_si512(self.0, b.0)) }
    }
    #[inline(always)]
    unsafe fn or(self, b: Self) -> Self {
        // SAFETY: AVX-512F per contract.
        unsafe { V16x32(_mm512_or_si512(self.0, b.0)) }
    }
    #[inline(always)]
    unsafe fn andnot(self, b: Self) -> Self {
        // SAFETY: AVX-512F per contract.
        unsafe { V16x32(_mm512_andnot_si512(self.0, b.0)) }
    }
    #[inline(always)]
    unsafe fn shr(self, n: u32) -> Self {
        // SAFETY: AVX-512F per contract.
        unsafe { V16x32(_mm512_srlv_epi32(self.0, _mm512_set1_epi32(n as i32))) }
    }
    #[inline(always)]
    unsafe fn ch(x: Self, y: Self, z: Self) -> Self {
        // SAFETY: AVX-512F per contract. 0xCA = x ? y : z.
        unsafe { V16x32(_mm512_ternarylogic_epi32::<0xCA>(x.0, y.0, z.0)) }
    }
    #[inline(always)]
    unsafe fn maj(x: Self, y: Self, z: Self) -> Self {
        // SAFETY: AVX-512F per contract. 0xE8 = majority.
        unsafe { V16x32(_mm512_ternarylogic_epi32::<0xE8>(x.0, y.0, z.0)) }
    }
    #[inline(always)]
    unsafe fn xor3(x: Self, y: Self, z: Self) -> Self {
        // SAFETY: AVX-512F per contract. 0x96 = x ^ y ^ z.
        unsafe { V16x32(_mm512_ternarylogic_epi32::<0x96>(x.0, y.0, z.0)) }
    }
}

// SAFETY: every method is only called under the trait contract (AVX-512F
// and AVX-512BW enabled and present).
unsafe impl V32 for V16x32 {
    #[inline(always)]
    unsafe fn rotl(self, n: u32) -> Self {
        // SAFETY: AVX-512F per contract. With `n` constant LLVM emits
        // the immediate form (vprold).
        unsafe { V16x32(_mm512_rolv_epi32(self.0, _mm512_set1_epi32(n as i32))) }
    }
    #[inline(always)]
    unsafe fn shl(self, n: u32) -> Self {
        // SAFETY: AVX-512F per contract.
        unsafe { V16x32(_mm512_sllv_epi32(self.0, _mm512_set1_epi32(n as i32))) }
    }
    #[inline(always)]
    unsafe fn md5_i(x: Self, y: Self, z: Self) -> Self {
        // SAFETY: AVX-512F per contract. 0x39 = y ^ (x | !z).
        unsafe { V16x32(_mm512_ternarylogic_epi32::<0x39>(x.0, y.0, z.0)) }
    }
    #[inline(always)]
    unsafe fn load_block<const BE: bool>(blocks: &[*const u8; 16]) -> [Self; 16] {
        // SAFETY: each of the 16 pointers addresses 64 readable bytes
        // (caller); AVX-512F/BW per contract.
        unsafe {
            let mut r = [_mm512_setzero_si512(); 16];
            let swap = _mm512_broadcast_i32x4(_mm_loadu_si128(BSWAP32.as_ptr().cast()));
            for (l, r) in r.iter_mut().enumerate() {
                let v = _mm512_loadu_si512(blocks[l].cast());
                *r = if BE { _mm512_shuffle_epi8(v, swap) } else { v };
            }
            // 32-bit, then 64-bit interleaves: u[4g + j] holds, in its
            // 128-bit chunk k, word 4k + j of rows 4g..4g+4.
            let mut u = [_mm512_setzero_si512(); 16];
            for g in 0..4 {
                let t0 = _mm512_unpacklo_epi32(r[4 * g], r[4 * g + 1]);
                let t1 = _mm512_unpackhi_epi32(r[4 * g], r[4 * g + 1]);
                let t2 = _mm512_unpacklo_epi32(r[4 * g + 2], r[4 * g + 3]);
                let t3 = _mm512_unpackhi_epi32(r[4 * g + 2], r[4 * g + 3]);
                u[4 * g] = _mm512_unpacklo_epi64(t0, t2);
                u[4 * g + 1] = _mm512_unpackhi_epi64(t0, t2);
                u[4 * g + 2] = _mm512_unpacklo_epi64(t1, t3);
                u[4 * g + 3] = _mm512_unpackhi_epi64(t1, t3);
            }
            let mut out = [V16x32(_mm512_setzero_si512()); 16];
            for j in 0..4 {
                let o = transpose_chunks(u[j], u[4 + j], u[8 + j], u[12 + j]);
                for (k, v) in o.into_iter().enumerate() {
                    out[4 * k + j] = V16x32(v);
                }
            }
            out
        }
    }
}

// SAFETY: as for V16x32.
unsafe impl Lanes for V8x64 {
    type Word = u64;
    #[inline(always)]
    unsafe fn load(p: *const u64) -> Self {
        // SAFETY: caller passes 64 readable bytes; AVX-512F per contract.
        unsafe { V8x64(_mm512_loadu_si512(p.cast())) }
    }
    #[inline(always)]
    unsafe fn store(self, p: *mut u64) {
        // SAFETY: caller passes 64 writable bytes; AVX-512F per contract.
        unsafe { _mm512_storeu_si512(p.cast(), self.0) }
    }
    #[inline(always)]
    unsafe fn splat(x: u64) -> Self {
        // SAFETY: AVX-512F per contract.
        unsafe { V8x64(_mm512_set1_epi64(x as i64)) }
    }
    #[inline(always)]
    unsafe fn add(self, b: Self) -> Self {
        // SAFETY: AVX-512F per contract.
        unsafe { V8x64(_mm512_add_epi64(self.0, b.0)) }
    }
    #[inline(always)]
    unsafe fn xor(self, b: Self) -> Self {
        // SAFETY: AVX-512F per contract.
        unsafe { V8x64(_mm512_xor_si512(self.0, b.0)) }
    }
    #[inline(always)]
    unsafe fn and(self, b: Self) -> Self {
        // SAFETY: AVX-512F per contract.
        unsafe { V8x64(_mm512_and_si512(self.0, b.0)) }
    }
    #[inline(always)]
    unsafe fn or(self, b: Self) -> Self {
        // SAFETY: AVX-512F per contract.
        unsafe { V8x64(_mm512_or_si512(self.0, b.0)) }
    }
    #[inline(always)]
    unsafe fn andnot(self, b: Self) -> Self {
        // SAFETY: AVX-512F per contract.
        unsafe { V8x64(_mm512_andnot_si512(self.0, b.0)) }
    }
    #[inline(always)]
    unsafe fn shr(self, n: u32) -> Self {
        // SAFETY: AVX-512F per contract.
        unsafe { V8x64(_mm512_srlv_epi64(self.0, _mm512_set1_epi64(n as i64))) }
    }
    #[inline(always)]
    unsafe fn ch(x: Self, y: Self, z: Self) -> Self {
        // SAFETY: AVX-512F per contract.
        unsafe { V8x64(_mm512_ternarylogic_epi64::<0xCA>(x.0, y.0, z.0)) }
    }
    #[inline(always)]
    unsafe fn maj(x: Self, y: Self, z: Self) -> Self {
        // SAFETY: AVX-512F per contract.
        unsafe { V8x64(_mm512_ternarylogic_epi64::<0xE8>(x.0, y.0, z.0)) }
    }
    #[inline(always)]
    unsafe fn xor3(x: Self, y: Self, z: Self) -> Self {
        // SAFETY: AVX-512F per contract.
        unsafe { V8x64(_mm512_ternarylogic_epi64::<0x96>(x.0, y.0, z.0)) }
    }
}

// SAFETY: as for V16x32.
unsafe impl V64 for V8x64 {
    #[inline(always)]
    unsafe fn rotr(self, n: u32) -> Self {
        // SAFETY: AVX-512F per contract (vprorq after inlining).
        unsafe { V8x64(_mm512_rorv_epi64(self.0, _mm512_set1_epi64(n as i64))) }
    }
    #[inline(always)]
    unsafe fn load_block_be(blocks: &[*const u8; 16]) -> [Self; 16] {
        // SAFETY: each of the first 8 pointers addresses 128 readable
        // bytes (caller); AVX-512F/BW per contract.
        unsafe {
            let swap = _mm512_broadcast_i32x4(_mm_loadu_si128(BSWAP64.as_ptr().cast()));
            let mut out = [V8x64(_mm512_setzero_si512()); 16];
            for half in 0..2 {
                let mut r = [_mm512_setzero_si512(); 8];
                for (l, r) in r.iter_mut().enumerate() {
                    let v = _mm512_loadu_si512(blocks[l].add(64 * half).cast());
                    *r = _mm512_shuffle_epi8(v, swap);
                }
                // t[2p + j] chunk k: word 2k + j of rows 2p, 2p + 1.
                let mut t = [_mm512_setzero_si512(); 8];
                for p in 0..4 {
                    t[2 * p] = _mm512_unpacklo_epi64(r[2 * p], r[2 * p + 1]);
                    t[2 * p + 1] = _mm512_unpackhi_epi64(r[2 * p], r[2 * p + 1]);
                }
                for j in 0..2 {
                    let o = transpose_chunks(t[j], t[2 + j], t[4 + j], t[6 + j]);
                    for (k, v) in o.into_iter().enumerate() {
                        out[8 * half + 2 * k + j] = V8x64(v);
                    }
                }
            }
            out
        }
    }
}
