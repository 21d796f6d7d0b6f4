//! Multi-buffer SHA-1 (FIPS 180-4): one message per 32-bit lane.
// Only the x86-64 kernels instantiate the vector bodies.
#![cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]

use super::sched::State;
use crate::arch::lanes::V32;

/// FIPS 180-4 §5.3.1 (unused words zero).
pub(super) const IV: [u32; 8] = [0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0, 0, 0, 0];

/// Single-stream SHA-1 compression of whole blocks into the first 5 words.
pub(super) fn compress_lane(st: &mut [u32; 8], blocks: &[[u8; 64]]) {
    let mut s = [st[0], st[1], st[2], st[3], st[4]];
    sha1::block_api::compress(&mut s, blocks);
    st[..5].copy_from_slice(&s);
}

/// One SHA-1 block through every lane of `V`.
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
        let mut w = V::load_block::<true>(blocks);
        let mut s = [V::splat(0); 5];
        for (v, row) in s.iter_mut().zip(st.iter()) {
            *v = V::load(row.as_ptr());
        }
        let [mut a, mut b, mut c, mut d, mut e] = s;
        // One round, unrolled with constant indices: the new `a` is built
        // in `e` and `b` rotated in place; the next round takes the names
        // rotated by one.
        macro_rules! round {
            ($a:ident, $b:ident, $c:ident, $d:ident, $e:ident, $t:expr, $f:ident, $k:expr) => {{
                let j = $t & 15;
                if $t >= 16 {
                    let x = V::xor3(w[(j + 13) & 15], w[(j + 8) & 15], w[(j + 2) & 15]);
                    w[j] = x.xor(w[j]).rotl(1);
                }
                $e = $e.add($a.rotl(5)).add(V::$f($b, $c, $d)).add(V::splat($k).add(w[j]));
                $b = $b.rotl(30);
            }};
        }
        macro_rules! five {
            ($t:expr, $f:ident, $k:expr) => {
                round!(a, b, c, d, e, $t, $f, $k);
                round!(e, a, b, c, d, $t + 1, $f, $k);
                round!(d, e, a, b, c, $t + 2, $f, $k);
                round!(c, d, e, a, b, $t + 3, $f, $k);
                round!(b, c, d, e, a, $t + 4, $f, $k);
            };
        }
        macro_rules! twenty {
            ($t:expr, $f:ident, $k:expr) => {
                five!($t, $f, $k);
                five!($t + 5, $f, $k);
                five!($t + 10, $f, $k);
                five!($t + 15, $f, $k);
            };
        }
        twenty!(0, ch, 0x5a827999);
        twenty!(20, xor3, 0x6ed9eba1);
        twenty!(40, maj, 0x8f1bbcdc);
        twenty!(60, xor3, 0xca62c1d6);
        for (i, v) in [a, b, c, d, e].into_iter().enumerate() {
            v.add(s[i]).store(st[i].as_mut_ptr());
        }
    }
}

// 16 lanes of AVX-512, 8 of AVX2.
lane_kernels!(u32, V16x32, V8x32);
