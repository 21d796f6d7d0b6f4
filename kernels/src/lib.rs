//! Flink-exact, SIMD-minded string kernels over Arrow arrays.
//!
//! `sluice-kernels` is the compute core of sluice, a native engine for
//! Apache Flink's hot paths. Every kernel takes and returns arrow-rs arrays,
//! produces byte-for-byte what Flink SQL produces for the same call, sizes its
//! output buffers once per batch and allocates nothing per row.
//!
//! | module | what |
//! | --- | --- |
//! | [`encode`] | Java UTF-16 → UTF-8 exactly as Flink's `BinaryStringData` encodes, with a SIMD ASCII path and a repeated-value cache |
//! | [`digest`] | MD5, SHA-1, SHA-2 straight to lowercase hex in one values buffer |
//! | [`multibuffer`] | MD5, SHA-1, SHA-2 of many rows at once, one row per SIMD lane (AVX-512 / AVX2), behind `digest` |
//! | [`concat`](mod@concat) | CONCAT / CONCAT_WS with Flink's NULL rules, building only the final buffers |
//! | [`search`] | POSITION / LOCATE / INSTR, LIKE, REPLACE, SPLIT_INDEX |
//! | [`validate`] | UTF-8 validation of bytes from outside (simdutf8) naming the bad row |
//!
//! Flink's behaviour is the specification; each kernel's docs cite the Flink
//! source it follows.

#[cfg(feature = "public_imp")]
pub mod alloc_count;
mod arch;
pub mod concat;
pub mod digest;
pub mod encode;
mod error;
pub mod hex;
#[doc(hidden)]
pub mod input;
pub mod multibuffer;
mod prefault;
pub mod search;
pub mod validate;
mod vector;

pub use error::{Error, Result};

/// The instruction-set level the encoder, the encode cache and the
/// multi-buffer digests dispatch on, for forcing one in tests and benches
/// (feature `public_imp`; not part of the stable API).
#[cfg(feature = "public_imp")]
pub use arch::Level;

#[doc(hidden)]
pub mod __private {
    pub use arrow_array;
    pub use arrow_schema;
}
