//! One-shot digests of a whole byte string, on the stack.
//!
//! Each kernel row is hashed in one call: the full blocks are fed to the
//! RustCrypto compression functions straight from the input (no copy), and
//! only the tail plus the Merkle–Damgård padding (RFC 1321 §3.1–3.2,
//! FIPS 180-4 §5.1) is assembled in a stack block. This skips the streaming
//! hasher's buffer bookkeeping, which is a visible share of the cost for the
//! short strings typical of SQL columns. SHA-1 and SHA-256 use SHA-NI at run
//! time where the CPU has it (RustCrypto's own detection).
//!
//! The initial hash values are the published constants of RFC 1321 §3.3 and
//! FIPS 180-4 §5.3.

/// MD5 initial state (RFC 1321 §3.3, as little-endian words).
const MD5_IV: [u32; 4] = [0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476];
/// SHA-1 initial state (FIPS 180-4 §5.3.1).
const SHA1_IV: [u32; 5] = [0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476, 0xc3d2_e1f0];
/// SHA-224 initial state (FIPS 180-4 §5.3.2).
pub(crate) const SHA224_IV: [u32; 8] =
    [0xc105_9ed8, 0x367c_d507, 0x3070_dd17, 0xf70e_5939, 0xffc0_0b31, 0x6858_1511, 0x64f9_8fa7, 0xbefa_4fa4];
/// SHA-256 initial state (FIPS 180-4 §5.3.3).
pub(crate) const SHA256_IV: [u32; 8] =
    [0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19];
/// SHA-384 initial state (FIPS 180-4 §5.3.4).
pub(crate) const SHA384_IV: [u64; 8] = [
    0xcbbb_9d5d_c105_9ed8,
    0x629a_292a_367c_d507,
    0x9159_015a_3070_dd17,
    0x152f_ecd8_f70e_5939,
    0x6733_2667_ffc0_0b31,
    0x8eb4_4a87_6858_1511,
    0xdb0c_2e0d_64f9_8fa7,
    0x47b5_481d_befa_4fa4,
];
/// SHA-512 initial state (FIPS 180-4 §5.3.5).
pub(crate) const SHA512_IV: [u64; 8] = [
    0x6a09_e667_f3bc_c908,
    0xbb67_ae85_84ca_a73b,
    0x3c6e_f372_fe94_f82b,
    0xa54f_f53a_5f1d_36f1,
    0x510e_527f_ade6_82d1,
    0x9b05_688c_2b3e_6c1f,
    0x1f83_d9ab_fb41_bd6b,
    0x5be0_cd19_137e_2179,
];

/// The largest digest (SHA-512), in bytes.
pub(crate) const MAX_DIGEST: usize = 64;

/// Hashes a 64-byte-block message: full blocks straight from `data`, then the
/// tail and padding from one or two stack blocks. `BE` selects the length
/// encoding (big-endian for SHA, little-endian for MD5).
#[inline(always)]
fn md64<S, const BE: bool>(state: &mut S, data: &[u8], compress: impl Fn(&mut S, &[[u8; 64]])) {
    let (blocks, rest) = data.as_chunks::<64>();
    if !blocks.is_empty() {
        compress(state, blocks);
    }
    let mut tail = [[0u8; 64]; 2];
    let flat = tail.as_flattened_mut();
    flat[..rest.len()].copy_from_slice(rest);
    flat[rest.len()] = 0x80;
    let n = if rest.len() < 56 { 1 } else { 2 };
    let bits = (data.len() as u64).wrapping_mul(8);
    let len_bytes = if BE { bits.to_be_bytes() } else { bits.to_le_bytes() };
    flat[n * 64 - 8..n * 64].copy_from_slice(&len_bytes);
    compress(state, &tail[..n]);
}

/// The same for SHA-384/512's 128-byte blocks and 128-bit length.
#[inline(always)]
fn md128(state: &mut [u64; 8], data: &[u8]) {
    let (blocks, rest) = data.as_chunks::<128>();
    if !blocks.is_empty() {
        sha2::block_api::compress512(state, blocks);
    }
    let mut tail = [[0u8; 128]; 2];
    let flat = tail.as_flattened_mut();
    flat[..rest.len()].copy_from_slice(rest);
    flat[rest.len()] = 0x80;
    let n = if rest.len() < 112 { 1 } else { 2 };
    let bits = (data.len() as u128).wrapping_mul(8);
    flat[n * 128 - 16..n * 128].copy_from_slice(&bits.to_be_bytes());
    sha2::block_api::compress512(state, &tail[..n]);
}

/// MD5 of `data` (RFC 1321).
#[inline]
pub(crate) fn md5(data: &[u8]) -> [u8; 16] {
    let mut s = MD5_IV;
    md64::<_, false>(&mut s, data, md5::block_api::compress);
    let mut out = [0u8; 16];
    for (o, w) in out.chunks_exact_mut(4).zip(s) {
        o.copy_from_slice(&w.to_le_bytes());
    }
    out
}

/// A SHA-1/SHA-2 digest of 64-byte blocks: `data` hashed from `iv` with
/// `compress`, then the first `B` bytes of the state, big-endian.
#[inline(always)]
fn sha_md64<const N: usize, const B: usize>(
    iv: [u32; N],
    data: &[u8],
    compress: impl Fn(&mut [u32; N], &[[u8; 64]]),
) -> [u8; B] {
    let mut s = iv;
    md64::<_, true>(&mut s, data, compress);
    be32(&s)
}

/// A SHA-2 digest of 128-byte blocks: the first `B` bytes of the state,
/// big-endian.
#[inline(always)]
fn sha_md128<const B: usize>(iv: [u64; 8], data: &[u8]) -> [u8; B] {
    let mut s = iv;
    md128(&mut s, data);
    be64(&s)
}

/// SHA-1 of `data` (FIPS 180-4).
#[inline]
pub(crate) fn sha1(data: &[u8]) -> [u8; 20] {
    sha_md64(SHA1_IV, data, sha1::block_api::compress)
}

/// The first `B` bytes of a digest of `M` (SHA-224 and SHA-384 keep a
/// prefix of their whole state).
#[inline(always)]
fn prefix<const M: usize, const B: usize>(full: [u8; M]) -> [u8; B] {
    let mut out = [0u8; B];
    out.copy_from_slice(&full[..B]);
    out
}

/// SHA-224 of `data`.
#[inline]
pub(crate) fn sha224(data: &[u8]) -> [u8; 28] {
    prefix::<32, 28>(sha_md64(SHA224_IV, data, sha2::block_api::compress256))
}

/// SHA-256 of `data`.
#[inline]
pub(crate) fn sha256(data: &[u8]) -> [u8; 32] {
    sha_md64(SHA256_IV, data, sha2::block_api::compress256)
}

/// SHA-384 of `data`.
#[inline]
pub(crate) fn sha384(data: &[u8]) -> [u8; 48] {
    prefix::<64, 48>(sha_md128(SHA384_IV, data))
}

/// SHA-512 of `data`.
#[inline]
pub(crate) fn sha512(data: &[u8]) -> [u8; 64] {
    sha_md128(SHA512_IV, data)
}

#[inline(always)]
fn be32<const N: usize, const B: usize>(s: &[u32; N]) -> [u8; B] {
    let mut out = [0u8; B];
    for (o, w) in out.chunks_exact_mut(4).zip(s) {
        o.copy_from_slice(&w.to_be_bytes());
    }
    out
}

#[inline(always)]
fn be64<const B: usize>(s: &[u64; 8]) -> [u8; B] {
    let mut out = [0u8; B];
    for (o, w) in out.chunks_exact_mut(8).zip(s) {
        o.copy_from_slice(&w.to_be_bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use sha2::Digest;

    /// Every length around the padding boundaries of both block sizes,
    /// against the streaming RustCrypto hashers.
    #[test]
    fn padding_boundaries_match_streaming_hashers() {
        let data: Vec<u8> = (0..600u32).map(|i| (i * 31 + 7) as u8).collect();
        for len in 0..data.len() {
            let d = &data[..len];
            assert_eq!(md5(d)[..], md5::Md5::digest(d)[..], "md5 len {len}");
            assert_eq!(sha1(d)[..], sha1::Sha1::digest(d)[..], "sha1 len {len}");
            assert_eq!(sha224(d)[..], sha2::Sha224::digest(d)[..], "sha224 len {len}");
            assert_eq!(sha256(d)[..], sha2::Sha256::digest(d)[..], "sha256 len {len}");
            assert_eq!(sha384(d)[..], sha2::Sha384::digest(d)[..], "sha384 len {len}");
            assert_eq!(sha512(d)[..], sha2::Sha512::digest(d)[..], "sha512 len {len}");
        }
    }
}
