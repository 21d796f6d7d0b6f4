//! Java UTF-16 → UTF-8, byte for byte as Flink encodes `StringData`.
//!
//! Flink turns a Java `String` into bytes with
//! `StringUtf8Utils.encodeUTF8` (`flink-table-common`,
//! `org.apache.flink.table.data.binary.StringUtf8Utils`), which documents
//! that it "must have the same result with JDK's String.getBytes" and hands
//! every ill-formed string to the JDK. The rule this module implements is
//! therefore the JDK's:
//!
//! - well-formed code points are standard UTF-8; U+0000 is `00` (not the
//!   modified-UTF-8 `C0 80`); a valid surrogate pair is one 4-byte sequence;
//! - **each unpaired surrogate code unit becomes `?` (0x3F)** — a lone high,
//!   a lone low, both halves of a reversed pair (`\uDC00\uD800` → `3F 3F`).
//!   This is not U+FFFD, so `String::from_utf16_lossy` is *not* equivalent.
//!
//! Rows are encoded independently: a high surrogate ending one row and a low
//! surrogate starting the next are two `?` (as Flink's CONCAT shows).
//!
//! # Entry points
//!
//! | function | what |
//! | --- | --- |
//! | [`utf8_len`] | exact UTF-8 length of one value |
//! | [`encode_utf16_into`] | append one value to a `Vec<u8>` |
//! | [`utf16_to_utf8`] / [`utf16_to_large_utf8`] | a batch (units + offsets + validity) to a `StringArray` / `LargeStringArray` |
//! | [`CachedEncoder`] / [`utf16_to_utf8_cached`] | the VarChar writer's one-entry repeated-value cache |
//!
//! # Performance
//!
//! ASCII is narrowed 16 (SSE2), 32 (AVX2) or 64 (AVX-512BW) code units per
//! step; the best level is picked once at run time and cached as a function
//! pointer. On SSE2/AVX2 a block that holds a non-ASCII unit is encoded by
//! the portable encoder (branch-free for 2-/3-byte characters), then SIMD
//! resumes at the next block; the AVX-512 level (with VBMI2) also encodes
//! 1-/2-/3-byte mixes 16 units at a time, leaving only blocks with
//! surrogates to the portable encoder. Values shorter than 16 units skip the
//! dispatch altogether.
//!
//! A batch allocates its offsets once and its values buffer at one byte per
//! input unit, which is exact for ASCII and needs no length pass. When a row
//! might not fit (non-ASCII text), the remaining rows' exact UTF-8 length is
//! computed once and the buffer grows once to the exact total; an unused
//! tail of more than 64 bytes is given back with one in-place shrink. No
//! per-row allocation.
//! (Tests, benches and fuzz targets also run the other strategies of the
//! `Sizing` hook behind the `public_imp` feature: an exact pass first, or 3
//! bytes per unit and a shrink.)

mod batch;
mod cache;
mod sink;

use crate::arch::{all::encode as scalar, EncodeFn};
use sink::{append_capacity, run};

pub use batch::{utf16_to_large_utf8, utf16_to_utf8, utf16_to_utf8_cached};
pub use cache::{CachedEncoder, EncodeCacheStats, MAX_CACHED_UNITS, MAX_CONSECUTIVE_MISSES, PLAIN_ROWS, QUIET_ROWS};

/// Exact number of bytes the UTF-8 encoding of `units` has (see the
/// [module docs](self) for the rules).
///
/// ```
/// use sluice_kernels::encode::utf8_len;
/// let units: Vec<u16> = "héllo €".encode_utf16().collect();
/// assert_eq!(utf8_len(&units), "héllo €".len());
/// assert_eq!(utf8_len(&[0xD800, 0x41]), 2); // "?A"
/// ```
pub fn utf8_len(units: &[u16]) -> usize {
    scalar::utf8_len(units)
}

/// Appends the UTF-8 encoding of `units` to `out`, exactly as Flink's
/// `BinaryStringData.fromString(s).toBytes()` (= JDK `s.getBytes(UTF_8)`).
///
/// ```
/// use sluice_kernels::encode::encode_utf16_into;
/// let mut out = Vec::new();
/// encode_utf16_into(&[0x61, 0xD800, 0x62], &mut out); // "a\uD800b"
/// assert_eq!(out, b"a?b");
/// ```
///
/// # Performance
///
/// Reserves `3 * units.len()` bytes of spare capacity (plus 2 bytes of
/// scratch) before writing, so a caller appending many values to one `Vec`
/// should size it up front to avoid reallocation.
pub fn encode_utf16_into(units: &[u16], out: &mut Vec<u8>) {
    append_with(None, units, out)
}

#[inline]
fn append_with(kernel: Option<EncodeFn>, units: &[u16], out: &mut Vec<u8>) {
    out.reserve(append_capacity(units.len()));
    let start = out.len();
    // SAFETY: `reserve` made `3 * len + WRITE_SLACK` bytes of spare capacity
    // available from `start`; the encoder writes at most that (and returns
    // the count of bytes it initialised, all of them before any slack).
    unsafe {
        let written = run(kernel, units.as_ptr(), units.len(), out.as_mut_ptr().add(start));
        out.set_len(start + written);
    }
}

/// Entry points with the dispatch forced to one `Level` and the batch
/// sizing strategy chosen, for tests, benches and fuzzing. Not part of the
/// stable API. Each returns `Error::InvalidArgument` when the level is not
/// available on this build/CPU.
#[cfg(feature = "public_imp")]
pub mod forced {
    use arrow_array::{LargeStringArray, StringArray};
    use arrow_buffer::NullBuffer;

    pub use super::batch::{check_output_len, Sizing};
    use super::{batch, CachedEncoder};
    use crate::arch::{EncodeFn, Level};
    use crate::error::{invalid_arg, Result};

    fn kernel(level: Level) -> Result<EncodeFn> {
        level.encoder().ok_or_else(|| invalid_arg(format!("encoder level {level:?} is not available on this CPU")))
    }

    /// [`encode_utf16_into`](super::encode_utf16_into) at `level`.
    pub fn encode_utf16_into(level: Level, units: &[u16], out: &mut Vec<u8>) -> Result<()> {
        super::append_with(Some(kernel(level)?), units, out);
        Ok(())
    }

    /// [`utf16_to_utf8`](super::utf16_to_utf8) at `level` with `sizing`
    /// and an offset limit of `limit` bytes (at most `i32::MAX`; lower to
    /// exercise the overflow path without gigabytes of input).
    pub fn utf16_to_utf8(
        level: Level,
        sizing: Sizing,
        limit: usize,
        units: &[u16],
        offsets: &[i64],
        nulls: Option<&NullBuffer>,
    ) -> Result<StringArray> {
        batch::encode_batch(Some(kernel(level)?), sizing, limit, units, offsets, nulls, None)
    }

    /// [`utf16_to_large_utf8`](super::utf16_to_large_utf8) at `level`.
    pub fn utf16_to_large_utf8(
        level: Level,
        sizing: Sizing,
        units: &[u16],
        offsets: &[i64],
        nulls: Option<&NullBuffer>,
    ) -> Result<LargeStringArray> {
        batch::encode_batch(Some(kernel(level)?), sizing, i64::MAX as usize, units, offsets, nulls, None)
    }

    /// [`utf16_to_utf8_cached`](super::utf16_to_utf8_cached) at `level`:
    /// the encoder and the vector width of the cache's hit path.
    pub fn utf16_to_utf8_cached(
        level: Level,
        units: &[u16],
        offsets: &[i64],
        nulls: Option<&NullBuffer>,
        cache: &mut CachedEncoder,
    ) -> Result<StringArray> {
        let k = kernel(level)?;
        batch::encode_batch(
            Some(k),
            Sizing::default(),
            i32::MAX as usize,
            units,
            offsets,
            nulls,
            Some((cache, Some(level))),
        )
    }

    /// [`CachedEncoder::encode_into`] at `level`.
    pub fn cached_encode_into(level: Level, cache: &mut CachedEncoder, units: &[u16], out: &mut Vec<u8>) -> Result<()> {
        let k = kernel(level)?;
        cache.append_with(Some(k), units, out);
        Ok(())
    }
}
