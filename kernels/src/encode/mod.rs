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
//! surrogates to the portable encoder. A single value shorter than 16 units
//! ([`encode_utf16_into`]) skips the dispatch; a batch resolves the dispatch
//! once and sends every row through it.
//!
//! A batch sizes its values buffer optimistically at one byte per input unit
//! (exact for ASCII, no length pass). The first row that might not fit (its
//! 3-bytes-per-unit worst case would pass the capacity) triggers one exact
//! length pass over the remaining rows and one reallocation to the exact
//! total, so a batch reallocates at most once. The offsets are sized once;
//! nothing is allocated per row. (The benches and fuzz targets also run the
//! other strategies of the hidden `Sizing` hook: an exact pass first, or 3
//! bytes per unit and a shrink.)

mod batch;
mod cache;
mod cache_batch;
mod hit;

use crate::arch::{self, all::encode as scalar, EncodeFn};

pub use batch::{utf16_to_large_utf8, utf16_to_utf8, utf16_to_utf8_cached};
pub use cache::{CachedEncoder, EncodeCacheStats, MAX_CACHED_UNITS, MAX_CONSECUTIVE_MISSES};

/// Values shorter than this many code units are encoded by the portable
/// encoder without loading the dispatched function pointer.
const SHORT_INPUT: usize = 16;

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

/// Encodes with `kernel` (`None`: short-input path, then the dispatch).
///
/// # Safety
///
/// - `src` valid for reads of `len` units, `dst` valid for writes of
///   `3 * len + WRITE_SLACK` bytes (or the exact length plus slack).
/// - `kernel`, if given, comes from [`Level::encoder`] (so the CPU has its
///   features).
#[inline(always)]
pub(crate) unsafe fn run(kernel: Option<EncodeFn>, src: *const u16, len: usize, dst: *mut u8) -> usize {
    // SAFETY: forwarded caller contract; the dispatched pointer only names
    // implementations the CPU supports.
    unsafe {
        match kernel {
            Some(f) => f(src, len, dst),
            None if len < SHORT_INPUT => scalar::encode(src, len, dst),
            None => arch::encode_fn()(src, len, dst),
        }
    }
}

/// Bytes of spare capacity an append of `len` units needs.
#[inline(always)]
pub(crate) fn append_capacity(len: usize) -> usize {
    // A `[u16]` holds at most isize::MAX / 2 units, so this cannot overflow.
    3 * len + scalar::WRITE_SLACK
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

/// A SIMD level of the encoder, for forcing the dispatch in tests, benches
/// and fuzzing. Not part of the stable API.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Level {
    /// The portable encoder (SWAR ASCII, branch-free 2-/3-byte).
    Scalar,
    /// SSE2, 16 units per step.
    Sse2,
    /// AVX2, 32 units per step.
    Avx2,
    /// AVX-512F/BW/VBMI2 + BMI2: 64 ASCII units per step, 16 mixed units
    /// per step (byte compress), masked tails.
    Avx512,
}

impl Level {
    /// Every level, slowest first.
    pub const ALL: [Level; 4] = [Level::Scalar, Level::Sse2, Level::Avx2, Level::Avx512];

    /// Whether this build and CPU can run the level.
    pub fn is_available(self) -> bool {
        self.encoder().is_some()
    }

    /// The level the dispatch picks on this CPU.
    pub fn detected() -> Level {
        Level::ALL.into_iter().rev().find(|l| l.is_available()).unwrap_or(Level::Scalar)
    }

    /// The level's encoder, if this build and CPU can run it.
    pub(crate) fn encoder(self) -> Option<EncodeFn> {
        match self {
            Level::Scalar => Some(scalar::encode),
            #[cfg(target_arch = "x86_64")]
            Level::Sse2 => Some(arch::x86_64::encode::encode_sse2),
            #[cfg(target_arch = "x86_64")]
            Level::Avx2 => arch::x86_64::has_avx2().then_some(arch::x86_64::encode::encode_avx2 as EncodeFn),
            #[cfg(target_arch = "x86_64")]
            Level::Avx512 => arch::x86_64::has_avx512().then_some(arch::x86_64::encode::encode_avx512 as EncodeFn),
            #[cfg(not(target_arch = "x86_64"))]
            _ => None,
        }
    }
}

/// Entry points with the dispatch forced to one [`Level`] and the batch
/// sizing strategy chosen, for tests, benches and fuzzing. Not part of the
/// stable API. Each returns `Error::InvalidArgument` when the level is not
/// available on this build/CPU.
#[doc(hidden)]
pub mod forced {
    use arrow_array::{LargeStringArray, StringArray};
    use arrow_buffer::NullBuffer;

    pub use super::batch::{check_output_len, Sizing};
    use super::{batch, CachedEncoder, Level};
    use crate::arch::EncodeFn;
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
