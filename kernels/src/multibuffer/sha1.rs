//! Multi-buffer SHA-1 (FIPS 180-4): one message per 32-bit lane.

use super::sched::{Algo, State};
use super::simd::V32;

/// SHA-1, for the scheduler.
pub(crate) struct Sha1;

impl Algo for Sha1 {
    type W = u32;
    type Out = [u8; 20];
    const BLOCK: usize = 64;
    const LEN_BYTES: usize = 8;
    const LEN_BE: bool = true;
    const IV: [u32; 8] = [0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0, 0, 0, 0];
    #[inline(always)]
    fn out(st: &State<u32>, lane: usize) -> [u8; 20] {
        let mut out = [0u8; 20];
        for (o, s) in out.chunks_exact_mut(4).zip(st) {
            o.copy_from_slice(&s[lane].to_be_bytes());
        }
        out
    }
    #[inline]
    fn single(bytes: &[u8]) -> [u8; 20] {
        crate::digest::oneshot::sha1(bytes)
    }
    #[inline]
    fn compress_scalar(st: &mut [u32; 8], blocks: &[u8]) {
        let mut s = [st[0], st[1], st[2], st[3], st[4]];
        sha1::block_api::compress(&mut s, blocks.as_chunks::<64>().0);
        st[..5].copy_from_slice(&s);
    }
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
        macro_rules! rounds {
            ($from:expr, $k:expr, |$x:ident, $y:ident, $z:ident| $f:expr) => {
                for t in $from..$from + 20 {
                    let j = t & 15;
                    if t >= 16 {
                        let x = V::xor3(w[(j + 13) & 15], w[(j + 8) & 15], w[(j + 2) & 15]);
                        w[j] = x.xor(w[j]).rotl(1);
                    }
                    let ($x, $y, $z) = (b, c, d);
                    let tmp = a.rotl(5).add($f).add(e).add(V::splat($k).add(w[j]));
                    e = d;
                    d = c;
                    c = b.rotl(30);
                    b = a;
                    a = tmp;
                }
            };
        }
        rounds!(0, 0x5a827999, |x, y, z| V::ch(x, y, z));
        rounds!(20, 0x6ed9eba1, |x, y, z| V::xor3(x, y, z));
        rounds!(40, 0x8f1bbcdc, |x, y, z| V::maj(x, y, z));
        rounds!(60, 0xca62c1d6, |x, y, z| V::xor3(x, y, z));
        for (i, v) in [a, b, c, d, e].into_iter().enumerate() {
            v.add(s[i]).store(st[i].as_mut_ptr());
        }
    }
}

/// 16 lanes of AVX-512.
///
/// # Safety
///
/// The CPU has AVX-512F and AVX-512BW; `blocks[..16]` each address 64
/// readable bytes.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw")]
pub(crate) unsafe fn compress_avx512(st: &mut State<u32>, blocks: &[*const u8; 16]) {
    // SAFETY: this function's contract; features enabled above.
    unsafe { compress_body::<super::simd::avx512::V16x32>(st, blocks) }
}

/// 8 lanes of AVX2.
///
/// # Safety
///
/// The CPU has AVX2; `blocks[..8]` each address 64 readable bytes.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn compress_avx2(st: &mut State<u32>, blocks: &[*const u8; 16]) {
    // SAFETY: this function's contract; features enabled above.
    unsafe { compress_body::<super::simd::avx2::V8x32>(st, blocks) }
}
