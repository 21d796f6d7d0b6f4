//! Multi-buffer SHA-256 and SHA-224 (FIPS 180-4): one message per 32-bit
//! lane.
// Only the x86-64 kernels instantiate the vector bodies.
#![cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]

use super::sched::State;
use crate::arch::lanes::V32;

/// Fractional parts of the cube roots of the first 64 primes.
const K: [u32; 64] = [
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
    0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
    0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
    0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
    0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
    0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
    0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
    0xc67178f2,
];

/// One SHA-256 block through every lane of `V`.
///
/// # Safety
///
/// The caller is compiled with `V`'s target features and runs on a CPU
/// with them; `blocks[..the vector's lanes]` each address 64 readable bytes.
#[inline(always)]
unsafe fn compress_body<V: V32>(st: &mut State<u32>, blocks: &[*const u8; 16]) {
    // SAFETY: forwarded from this function's contract; `st` rows hold 16
    // words, at least `the vector's lanes`.
    unsafe {
        macro_rules! rotr {
            ($x:expr, $n:literal) => {
                $x.rotl(32 - $n)
            };
        }
        sha2_rounds!(
            V,
            st,
            V::load_block::<true>(blocks),
            K,
            sigma0 = (7, 18, 3),
            sigma1 = (17, 19, 10),
            big_sigma0 = (2, 13, 22),
            big_sigma1 = (6, 11, 25),
            rounds = [0, 8, 16, 24, 32, 40, 48, 56]
        );
    }
}

// 16 lanes of AVX-512, 8 of AVX2.
lane_kernels!(u32, V16x32, V8x32);
