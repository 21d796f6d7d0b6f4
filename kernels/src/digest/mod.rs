//! MD5, SHA-1 and SHA-2 of string or binary rows, as lowercase hex.
//!
//! Flink's `MD5(s)`, `SHA1(s)`, `SHA224(s)` … `SHA512(s)` and `SHA2(s, w)`
//! hash the UTF-8 bytes of the string as stored (invalid bytes are hashed
//! raw) and render the digest with `EncodingUtils.hex`, lowercase:
//! `BinaryStringDataUtil.hash(str, md)` = `EncodingUtils.hex(md.digest(str.toBytes()))`
//! (`TR/data/binary/BinaryStringDataUtil.java`, `TC/utils/EncodingUtils.java`).
//! A NULL input gives NULL. See [`sha2`] for the width rules.
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

mod column;
pub(crate) mod oneshot;
mod width;

use std::fmt;
use std::str::FromStr;

use arrow_array::{Array, ArrayRef, Datum, StringArray};

use crate::error::{invalid_arg, Error, Result};
use oneshot::{Md5, Sha1, Sha224, Sha256, Sha384, Sha512};

/// A digest Flink exposes as a SQL function.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DigestAlgorithm {
    /// `MD5(s)`: 16 bytes, 32 hex characters.
    Md5,
    /// `SHA1(s)`: 20 bytes, 40 hex characters.
    Sha1,
    /// `SHA224(s)`, `SHA2(s, 224)`: 28 bytes, 56 hex characters.
    Sha224,
    /// `SHA256(s)`, `SHA2(s, 256)`: 32 bytes, 64 hex characters.
    Sha256,
    /// `SHA384(s)`, `SHA2(s, 384)`: 48 bytes, 96 hex characters.
    Sha384,
    /// `SHA512(s)`, `SHA2(s, 512)`: 64 bytes, 128 hex characters.
    Sha512,
}

impl DigestAlgorithm {
    /// Every algorithm, in declaration order.
    pub const ALL: [DigestAlgorithm; 6] = [
        DigestAlgorithm::Md5,
        DigestAlgorithm::Sha1,
        DigestAlgorithm::Sha224,
        DigestAlgorithm::Sha256,
        DigestAlgorithm::Sha384,
        DigestAlgorithm::Sha512,
    ];

    /// Digest length in bytes.
    pub const fn digest_len(self) -> usize {
        match self {
            DigestAlgorithm::Md5 => 16,
            DigestAlgorithm::Sha1 => 20,
            DigestAlgorithm::Sha224 => 28,
            DigestAlgorithm::Sha256 => 32,
            DigestAlgorithm::Sha384 => 48,
            DigestAlgorithm::Sha512 => 64,
        }
    }

    /// Length of the hex output in bytes (twice [`digest_len`](Self::digest_len)).
    pub const fn hex_len(self) -> usize {
        2 * self.digest_len()
    }

    /// The SQL function name, lowercase (`md5`, `sha1`, `sha224`, …).
    pub const fn name(self) -> &'static str {
        match self {
            DigestAlgorithm::Md5 => "md5",
            DigestAlgorithm::Sha1 => "sha1",
            DigestAlgorithm::Sha224 => "sha224",
            DigestAlgorithm::Sha256 => "sha256",
            DigestAlgorithm::Sha384 => "sha384",
            DigestAlgorithm::Sha512 => "sha512",
        }
    }
}

impl fmt::Display for DigestAlgorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for DigestAlgorithm {
    type Err = Error;

    /// Parses a SQL function name or JDK algorithm name, ignoring ASCII case
    /// and `-`: `md5`, `sha1` / `sha` / `SHA-1`, `sha224` / `SHA-224`, ….
    fn from_str(name: &str) -> Result<Self> {
        let mut buf = [0u8; 8];
        let mut n = 0;
        for b in name.bytes().filter(|&b| b != b'-') {
            if n == buf.len() {
                n = usize::MAX;
                break;
            }
            buf[n] = b.to_ascii_lowercase();
            n += 1;
        }
        let key = buf.get(..n).unwrap_or(&[]);
        Ok(match key {
            b"md5" => DigestAlgorithm::Md5,
            b"sha" | b"sha1" => DigestAlgorithm::Sha1,
            b"sha224" => DigestAlgorithm::Sha224,
            b"sha256" => DigestAlgorithm::Sha256,
            b"sha384" => DigestAlgorithm::Sha384,
            b"sha512" => DigestAlgorithm::Sha512,
            _ => {
                return Err(invalid_arg(format!(
                    "unknown digest algorithm {name:?}; expected one of md5, sha1, sha224, sha256, sha384, sha512"
                )))
            }
        })
    }
}

/// Lowercase hex digest of every row of `input`.
///
/// `input` may be `Utf8`, `LargeUtf8`, `Utf8View`, `Binary`, `LargeBinary` or
/// `BinaryView`; the bytes are hashed as stored. NULL rows give NULL. The
/// output always has offset 0 and the input's (sliced) NULL mask.
///
/// # Errors
///
/// [`Error::InvalidArgument`] for any other input type;
/// [`Error::OffsetOverflow`] if the hex of all non-NULL rows would exceed
/// `i32::MAX` bytes.
///
/// # Performance
///
/// Two allocations per call (offsets, values), none per row; see the
/// [module docs](self).
pub fn digest_hex(input: &dyn Array, alg: DigestAlgorithm) -> Result<StringArray> {
    crate::with_byte_column!(input, true, |col| match alg {
        DigestAlgorithm::Md5 => column::hex_column::<_, Md5>(col),
        DigestAlgorithm::Sha1 => column::hex_column::<_, Sha1>(col),
        DigestAlgorithm::Sha224 => column::hex_column::<_, Sha224>(col),
        DigestAlgorithm::Sha256 => column::hex_column::<_, Sha256>(col),
        DigestAlgorithm::Sha384 => column::hex_column::<_, Sha384>(col),
        DigestAlgorithm::Sha512 => column::hex_column::<_, Sha512>(col),
    })
}

/// The digest of one byte string into `out`, returning its length: the
/// one-shot routine the kernels use, without hex or buffers (for benchmarks
/// that isolate the hex-and-buffer cost).
#[doc(hidden)]
#[inline]
pub fn digest_raw(alg: DigestAlgorithm, data: &[u8], out: &mut [u8; 64]) -> usize {
    oneshot::digest_into(alg, data, out)
}

fn unary(input: &dyn Datum, alg: DigestAlgorithm) -> Result<ArrayRef> {
    let (array, _scalar) = width::datum(input, alg.name())?;
    digest_hex(array, alg).map(column::arc)
}

/// `MD5(s)`. A scalar input (a one-row [`Datum`]) gives a one-row result.
///
/// # Errors
///
/// As [`digest_hex`]; also a scalar datum that does not have exactly one row.
pub fn md5(input: &dyn Datum) -> Result<ArrayRef> {
    unary(input, DigestAlgorithm::Md5)
}

/// `SHA1(s)`; see [`md5`].
///
/// # Errors
///
/// As [`md5`].
pub fn sha1(input: &dyn Datum) -> Result<ArrayRef> {
    unary(input, DigestAlgorithm::Sha1)
}

/// `SHA224(s)`; see [`md5`].
///
/// # Errors
///
/// As [`md5`].
pub fn sha224(input: &dyn Datum) -> Result<ArrayRef> {
    unary(input, DigestAlgorithm::Sha224)
}

/// `SHA256(s)`; see [`md5`].
///
/// # Errors
///
/// As [`md5`].
pub fn sha256(input: &dyn Datum) -> Result<ArrayRef> {
    unary(input, DigestAlgorithm::Sha256)
}

/// `SHA384(s)`; see [`md5`].
///
/// # Errors
///
/// As [`md5`].
pub fn sha384(input: &dyn Datum) -> Result<ArrayRef> {
    unary(input, DigestAlgorithm::Sha384)
}

/// `SHA512(s)`; see [`md5`].
///
/// # Errors
///
/// As [`md5`].
pub fn sha512(input: &dyn Datum) -> Result<ArrayRef> {
    unary(input, DigestAlgorithm::Sha512)
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
/// The Flink errors above; [`Error::InvalidArgument`] for a wrong input or
/// width type, mismatched lengths or a scalar datum that is not one row;
/// [`Error::OffsetOverflow`] past `i32::MAX` output bytes.
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
