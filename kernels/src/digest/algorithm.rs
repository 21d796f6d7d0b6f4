//! [`DigestAlgorithm`]: the digests Flink exposes, their sizes and names.

use std::fmt;
use std::str::FromStr;

use crate::error::{invalid_arg, Error, Result};

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
