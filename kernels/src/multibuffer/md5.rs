//! Multi-buffer MD5 (RFC 1321): one message per 32-bit lane.
// Only the x86-64 kernels instantiate the vector bodies.
#![cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]

use super::sched::State;
use crate::arch::lanes::V32;

/// RFC 1321 §3.3, as little-endian words (unused words zero).
pub(super) const IV: [u32; 8] = [0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0, 0, 0, 0];

/// Single-stream MD5 compression of whole blocks into the first 4 words.
pub(super) fn compress_lane(st: &mut [u32; 8], blocks: &[[u8; 64]]) {
    let mut s = [st[0], st[1], st[2], st[3]];
    md5::block_api::compress(&mut s, blocks);
    st[..4].copy_from_slice(&s);
}

/// The sine-derived additive constants, `floor(|sin(i + 1)| * 2^32)`.
const K: [u32; 64] = [
    0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501, 0x698098d8,
    0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821, 0xf61e2562, 0xc040b340,
    0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8, 0x21e1cde6, 0xc33707d6, 0xf4d50d87,
    0x455a14ed, 0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a, 0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c,
    0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70, 0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05, 0xd9d4d039,
    0xe6db99e5, 0x1fa27cf8, 0xc4ac5665, 0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92,
    0xffeff47d, 0x85845dd1, 0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb,
    0xeb86d391,
];

/// One MD5 block through every lane of `V`.
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
        let m = V::load_block::<false>(blocks);
        let (a0, b0, c0, d0) =
            (V::load(st[0].as_ptr()), V::load(st[1].as_ptr()), V::load(st[2].as_ptr()), V::load(st[3].as_ptr()));
        let (mut a, mut b, mut c, mut d) = (a0, b0, c0, d0);
        // a = b + ((a + f + K[i] + M[g]) <<< s)
        macro_rules! step {
            ($a:ident, $b:ident, $f:expr, $i:expr, $g:expr, $s:expr) => {
                $a = $b.add($f.add($a).add(V::splat(K[$i]).add(m[$g])).rotl($s));
            };
        }
        for i in (0..16).step_by(4) {
            step!(a, b, V::ch(b, c, d), i, i, 7);
            step!(d, a, V::ch(a, b, c), i + 1, i + 1, 12);
            step!(c, d, V::ch(d, a, b), i + 2, i + 2, 17);
            step!(b, c, V::ch(c, d, a), i + 3, i + 3, 22);
        }
        // G(x, y, z) = (x & z) | (y & !z) = ch(z, x, y)
        for i in (16..32).step_by(4) {
            step!(a, b, V::ch(d, b, c), i, (5 * i + 1) % 16, 5);
            step!(d, a, V::ch(c, a, b), i + 1, (5 * i + 6) % 16, 9);
            step!(c, d, V::ch(b, d, a), i + 2, (5 * i + 11) % 16, 14);
            step!(b, c, V::ch(a, c, d), i + 3, (5 * i + 16) % 16, 20);
        }
        for i in (32..48).step_by(4) {
            step!(a, b, V::xor3(b, c, d), i, (3 * i + 5) % 16, 4);
            step!(d, a, V::xor3(a, b, c), i + 1, (3 * i + 8) % 16, 11);
            step!(c, d, V::xor3(d, a, b), i + 2, (3 * i + 11) % 16, 16);
            step!(b, c, V::xor3(c, d, a), i + 3, (3 * i + 14) % 16, 23);
        }
        for i in (48..64).step_by(4) {
            step!(a, b, V::md5_i(b, c, d), i, (7 * i) % 16, 6);
            step!(d, a, V::md5_i(a, b, c), i + 1, (7 * i + 7) % 16, 10);
            step!(c, d, V::md5_i(d, a, b), i + 2, (7 * i + 14) % 16, 15);
            step!(b, c, V::md5_i(c, d, a), i + 3, (7 * i + 21) % 16, 21);
        }
        a.add(a0).store(st[0].as_mut_ptr());
        b.add(b0).store(st[1].as_mut_ptr());
        c.add(c0).store(st[2].as_mut_ptr());
        d.add(d0).store(st[3].as_mut_ptr());
    }
}

// 16 lanes of AVX-512, 8 of AVX2.
lane_kernels!(u32, V16x32, V8x32);
