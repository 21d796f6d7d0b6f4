//! The digest algorithms as zero-sized types over the one-shot routines
//! ([`super::oneshot`]) and the multi-buffer lanes ([`crate::multibuffer`]),
//! so that the per-row loops are monomorphised per algorithm.

use super::algorithm::DigestAlgorithm;
use super::oneshot::{md5, sha1, sha224, sha256, sha384, sha512, MAX_DIGEST};
use crate::multibuffer::Family;

/// A digest algorithm as a zero-sized type.
pub(crate) trait OneShot {
    /// Hex characters per digest.
    const HEX_LEN: usize;
    /// Hashes `data` and writes the lowercase hex of the digest to `dst`.
    ///
    /// # Safety
    ///
    /// `dst` must be valid for writes of `HEX_LEN` bytes.
    unsafe fn hash_hex(data: &[u8], dst: *mut u8);
    /// Whether [`hash_many`](Self::hash_many) beats one-shot hashing for a
    /// batch of `rows` non-NULL rows on this CPU.
    fn prefer_many(rows: usize) -> bool;
    /// Hashes the non-NULL rows among `0..n` in vector lanes
    /// ([`crate::multibuffer`]): `emit(i, digest)` once per non-NULL row, in
    /// completion order.
    fn hash_many<'a>(n: usize, rows: impl Fn(usize) -> Option<&'a [u8]>, emit: impl FnMut(usize, &[u8]));
}

macro_rules! one_shot {
    ($ty:ident, $f:ident, $len:expr, $many:ident, $family:ident) => {
        pub(crate) struct $ty;
        impl OneShot for $ty {
            const HEX_LEN: usize = 2 * $len;
            #[inline(always)]
            unsafe fn hash_hex(data: &[u8], dst: *mut u8) {
                let d = $f(data);
                // SAFETY: `d` is a stack array of `$len` bytes; `dst` is
                // writable for `2 * $len` bytes by the caller contract.
                unsafe { crate::hex::encode_lower_raw(d.as_ptr(), d.len(), dst) };
            }
            #[inline]
            fn prefer_many(rows: usize) -> bool {
                crate::multibuffer::prefer_many(Family::$family, rows)
            }
            #[inline]
            fn hash_many<'a>(n: usize, rows: impl Fn(usize) -> Option<&'a [u8]>, mut emit: impl FnMut(usize, &[u8])) {
                crate::multibuffer::$many(n, rows, |i, d| emit(i, d))
            }
        }
    };
}
one_shot!(Md5, md5, 16, md5_many, Md5);
one_shot!(Sha1, sha1, 20, sha1_many, Sha1);
one_shot!(Sha224, sha224, 28, sha224_many, Sha256);
one_shot!(Sha256, sha256, 32, sha256_many, Sha256);
one_shot!(Sha384, sha384, 48, sha384_many, Sha512);
one_shot!(Sha512, sha512, 64, sha512_many, Sha512);

/// Digest bytes into `out` (at least [`MAX_DIGEST`] long); returns the digest
/// length. The per-row dispatch used where rows mix algorithms.
#[inline]
pub(crate) fn digest_into(alg: DigestAlgorithm, data: &[u8], out: &mut [u8; MAX_DIGEST]) -> usize {
    fn put<const N: usize>(out: &mut [u8; MAX_DIGEST], d: [u8; N]) -> usize {
        out[..N].copy_from_slice(&d);
        N
    }
    match alg {
        DigestAlgorithm::Md5 => put(out, md5(data)),
        DigestAlgorithm::Sha1 => put(out, sha1(data)),
        DigestAlgorithm::Sha224 => put(out, sha224(data)),
        DigestAlgorithm::Sha256 => put(out, sha256(data)),
        DigestAlgorithm::Sha384 => put(out, sha384(data)),
        DigestAlgorithm::Sha512 => put(out, sha512(data)),
    }
}
