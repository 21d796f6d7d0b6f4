//! MD5, SHA-1 and SHA-2 of string or binary rows, as lowercase hex.
//!
//! Flink's `MD5(s)`, `SHA1(s)`, `SHA224(s)` … `SHA512(s)` and `SHA2(s, w)`
//! hash the UTF-8 bytes of the string as stored (invalid bytes are hashed
//! raw) and render the digest with `EncodingUtils.hex`, lowercase:
//! `BinaryStringDataUtil.hash(str, md)` = `EncodingUtils.hex(md.digest(str.toBytes()))`
//! (`TR/data/binary/BinaryStringDataUtil.java`, `TC/utils/EncodingUtils.java`).
//! A NULL input gives NULL. See [`sha2`](fn@sha2) for the width rules.
//!
//! # Performance
//!
//! One batch makes two allocations: the offsets and exactly
//! `2 × digest length × non-NULL rows` value bytes. Where the CPU has AVX2 or
//! AVX-512 and the batch has a few rows, the rows are hashed many at once,
//! one per vector lane ([`crate::multibuffer`]; where single-stream SHA-NI is
//! faster it is kept); otherwise each row's digest is computed on the stack
//! by a one-shot padding routine over RustCrypto's compression functions
//! (SHA-NI for SHA-1/SHA-256 where present). Either way its hex is written
//! by [`crate::hex`] straight into the values buffer. Nothing is allocated
//! per row.
//!
//! ```
//! use arrow_array::{Array, StringArray};
//! use sluice_kernels::digest::{digest_hex, DigestAlgorithm};
//!
//! let input = StringArray::from(vec![Some("abc"), None]);
//! let out = digest_hex(&input, DigestAlgorithm::Md5).unwrap();
//! assert_eq!(out.value(0), "900150983cd24fb0d6963f7d28e17f72");
//! assert!(out.is_null(1));
//! ```

mod algorithm;
mod column;
mod hasher;
pub(crate) mod oneshot;
mod width;

use arrow_array::{ArrayRef, Datum};

use crate::error::Result;
pub use algorithm::DigestAlgorithm;
pub use column::digest_hex;

/// The digest of one byte string into `out`, returning its length: the
/// one-shot routine the kernels use, without hex or buffers (for benchmarks
/// that isolate the hex-and-buffer cost).
#[cfg(feature = "public_imp")]
#[inline]
pub fn digest_raw(alg: DigestAlgorithm, data: &[u8], out: &mut [u8; 64]) -> usize {
    hasher::digest_into(alg, data, out)
}

fn unary(input: &dyn Datum, alg: DigestAlgorithm) -> Result<ArrayRef> {
    let (array, _scalar) = width::datum(input, alg.name())?;
    digest_hex(array, alg).map(column::arc)
}

/// The one-argument SQL functions, each [`digest_hex`] of one algorithm
/// over a [`Datum`].
macro_rules! unary_fns {
    ($($(#[$doc:meta])* $name:ident => $alg:ident;)*) => {$(
        $(#[$doc])*
        pub fn $name(input: &dyn Datum) -> Result<ArrayRef> {
            unary(input, DigestAlgorithm::$alg)
        }
    )*};
}

unary_fns! {
    /// `MD5(s)`. A scalar input (a one-row [`Datum`]) gives a one-row result.
    ///
    /// # Errors
    ///
    /// As [`digest_hex`]; also a scalar datum that does not have exactly one row.
    md5 => Md5;
    /// `SHA1(s)`; see [`md5`](fn@md5).
    ///
    /// # Errors
    ///
    /// As [`md5`](fn@md5).
    sha1 => Sha1;
    /// `SHA224(s)`; see [`md5`](fn@md5).
    ///
    /// # Errors
    ///
    /// As [`md5`](fn@md5).
    sha224 => Sha224;
    /// `SHA256(s)`; see [`md5`](fn@md5).
    ///
    /// # Errors
    ///
    /// As [`md5`](fn@md5).
    sha256 => Sha256;
    /// `SHA384(s)`; see [`md5`](fn@md5).
    ///
    /// # Errors
    ///
    /// As [`md5`](fn@md5).
    sha384 => Sha384;
    /// `SHA512(s)`; see [`md5`](fn@md5).
    ///
    /// # Errors
    ///
    /// As [`md5`](fn@md5).
    sha512 => Sha512;
}

/// `SHA2(s, width)` with Flink's rules for the width.
///
/// - **`width` a scalar** (Flink: a literal): NULL → every row NULL;
///   224/256/384/512 → that SHA-2; anything else →
///   `Error::Flink("Unsupported algorithm.")`, even for zero rows or an
///   all-NULL input (Flink fails at operator start-up,
///   `CodeGeneratorContext.addReusableSha2MessageDigest`).
/// - **`width` an `Int32` array** (Flink: a column, one width per row, the
///   same length as `input`; a scalar `input` is broadcast): a NULL width or a
///   NULL input gives NULL (whatever the width); width 1 gives SHA-1 (the
///   JDK resolves `"SHA-" + 1`); 224/256/384/512 that SHA-2; any other width
///   meeting a non-NULL input fails with
///   `Error::Flink("SHA-<w> MessageDigest not available")`, e.g.
///   `SHA--1 MessageDigest not available` (`BinaryStringDataUtil.hash`).
///
/// `width` may also be of type `Null` (all NULL). Rows of different widths
/// share one offsets and one values allocation.
///
/// # Errors
///
/// The Flink errors above; [`Error::InvalidArgument`](crate::Error::InvalidArgument) for a wrong input or
/// width type, mismatched lengths or a scalar datum that is not one row;
/// [`Error::OffsetOverflow`](crate::Error::OffsetOverflow) past `i32::MAX` output bytes.
///
/// ```
/// use arrow_array::{Int32Array, Scalar, StringArray, cast::AsArray};
/// let s = StringArray::from(vec!["abc"]);
/// let out = sluice_kernels::digest::sha2(&s, &Scalar::new(Int32Array::from(vec![256]))).unwrap();
/// assert_eq!(
///     out.as_string::<i32>().value(0),
///     "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
/// );
/// let err = sluice_kernels::digest::sha2(&s, &Scalar::new(Int32Array::from(vec![160]))).unwrap_err();
/// assert_eq!(err.to_string(), "Unsupported algorithm.");
/// ```
pub fn sha2(input: &dyn Datum, width: &dyn Datum) -> Result<ArrayRef> {
    width::sha2(input, width).map(column::arc)
}
