//! The VarChar writer's repeated-value encode cache.
//!
//! Streaming operators often emit the same string in consecutive rows (a
//! changing row re-emitting its key, a table function repeating a field).
//! [`CachedEncoder`] remembers the previous short value's UTF-16 units and
//! its UTF-8 encoding (owned copies, never a view into an input or output
//! buffer); an equal consecutive value copies those bytes instead of
//! encoding again. The bytes are still copied into each output cell: cells
//! are never shared.
//!
//! The policy bounds both retained memory and wasted lookups on distinct
//! text, and never caches a value a hit would make slower:
//! - values above [`MAX_CACHED_UNITS`] UTF-16 units are not eligible: they
//!   are encoded plainly and neither read nor change the cache;
//! - values whose UTF-8 is as long as their UTF-16 (ASCII; an unpaired
//!   surrogate is one `?` byte) are not eligible either: narrowing 16–64
//!   units per instruction costs less than a hit, which reads the value
//!   *and* the cached one and then copies. They are encoded, then neither
//!   counted as misses nor cached (the cached value stays), so a column of
//!   ASCII runs costs what plain encoding costs;
//! - after [`MAX_CONSECUTIVE_MISSES`] consecutive eligible misses the
//!   encoder frees its cached value and bypasses the lookup for the rest of
//!   its lifetime; a hit resets the consecutive-miss counter;
//! - NULL rows (in the batch form) do not touch the cache;
//! - in the batch form, after [`QUIET_ROWS`] rows without a hit or a miss
//!   the next [`PLAIN_ROWS`] rows are encoded plainly (counted ineligible),
//!   so that a column the cache cannot help runs plain encoding's loop
//!   with nothing added.

pub(super) mod batch;
mod hit;
mod run;

use crate::arch::EncodeFn;

use super::sink::{append_capacity, run};
use hit::HitOps;
use run::Run;

/// The hit path of the per-value form: SSE2 is the x86_64 baseline.
#[cfg(target_arch = "x86_64")]
type RowHit = hit::Simd<core::arch::x86_64::__m128i>;
#[cfg(not(target_arch = "x86_64"))]
type RowHit = hit::Portable;

/// Values with more UTF-16 code units than this are not eligible for the
/// cache.
pub const MAX_CACHED_UNITS: usize = 1024;

/// After this many consecutive eligible misses the cache is released and
/// bypassed for good.
pub const MAX_CONSECUTIVE_MISSES: u32 = 8;

/// In the batch form, this many consecutive rows without a hit or a miss
/// (NULL, narrowed, or over [`MAX_CACHED_UNITS`]) make a quiet stretch...
pub const QUIET_ROWS: usize = 64;

/// ... after which this many rows are encoded plainly, without the hit and
/// miss tests (their values count as ineligible); then the cache looks
/// again. On a column the cache cannot help those tests are all it costs
/// (one compare per row: 2–3 % of an ASCII row), so a quiet column pays them
/// on 64 rows in 1,088; a column where the cache pays has a hit or a miss
/// at least every 64 rows and never enters a plain stretch.
pub const PLAIN_ROWS: usize = 1024;

/// Counters of a [`CachedEncoder`].
///
/// Every non-NULL value it encoded is counted exactly once:
/// `hits + misses + ineligible + bypassed_rows`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EncodeCacheStats {
    /// Values served from the cached encoding.
    pub hits: u64,
    /// Eligible values looked up and not found (encoded, then cached).
    pub misses: u64,
    /// Whether the cache has been released and is bypassed for good.
    pub bypassed: bool,
    /// Values encoded after the cache was bypassed (of any length).
    pub bypassed_rows: u64,
    /// Values encoded plainly before the bypass because they are not
    /// eligible: longer than [`MAX_CACHED_UNITS`], or narrowed (UTF-8 as
    /// long as their UTF-16: ASCII, with `?` for unpaired surrogates), or
    /// in a batch's plain stretch after [`QUIET_ROWS`] quiet rows.
    pub ineligible: u64,
}

/// A UTF-16 → UTF-8 encoder with a one-entry repeated-value cache (the
/// VarChar writer's cache).
///
/// It keeps the previous value's UTF-16 units and UTF-8 bytes as owned
/// copies (never a view into an input or output buffer); an equal
/// consecutive value copies those bytes into the output instead of being
/// encoded (cells are never shared). Policy:
/// - values above [`MAX_CACHED_UNITS`] UTF-16 units are not eligible: they
///   are encoded plainly and neither read nor change the cache;
/// - narrowed values (UTF-8 as long as the UTF-16: ASCII) are encoded,
///   then neither counted as misses nor cached: re-narrowing them is
///   cheaper than any hit;
/// - after [`MAX_CONSECUTIVE_MISSES`] consecutive eligible misses the cache
///   frees its buffers and is bypassed for the rest of its lifetime; a hit
///   resets the consecutive-miss counter;
/// - NULL rows (in [`utf16_to_utf8_cached`](super::utf16_to_utf8_cached))
///   do not touch it;
/// - in that batch form, [`QUIET_ROWS`] rows without a hit or a miss are
///   followed by [`PLAIN_ROWS`] rows encoded plainly (counted ineligible).
///
/// # Performance
///
/// A hit is an inline vector comparison of the units plus an inline vector
/// copy of the cached bytes. In the batch form the previous value is
/// compared where it already is (input and output, hot in cache), so a miss
/// costs no more than a plain encode; the owned copy is refreshed once per
/// batch. See the `encode_cache` bench and `sluice demo`.
///
/// ```
/// use sluice_kernels::encode::CachedEncoder;
/// let mut enc = CachedEncoder::new();
/// let mut out = Vec::new();
/// let v: Vec<u16> = "zürich".encode_utf16().collect();
/// enc.encode_into(&v, &mut out);
/// enc.encode_into(&v, &mut out);
/// assert_eq!(out, "zürichzürich".as_bytes());
/// assert_eq!((enc.stats().hits, enc.stats().misses), (1, 1));
/// ```
#[derive(Debug, Default)]
pub struct CachedEncoder {
    /// UTF-16 units of the cached value (owned copy).
    prev_units: Vec<u16>,
    /// Its UTF-8 encoding (owned copy).
    prev_utf8: Vec<u8>,
    /// Whether `prev_*` hold a value.
    has_prev: bool,
    consecutive_misses: u32,
    stats: EncodeCacheStats,
}

impl CachedEncoder {
    /// An empty cache. Allocates nothing until the first miss.
    pub fn new() -> Self {
        Self::default()
    }

    /// The counters so far.
    pub fn stats(&self) -> EncodeCacheStats {
        self.stats
    }

    /// Whether the cache has been released for good.
    #[inline]
    pub(crate) fn is_bypassed(&self) -> bool {
        self.stats.bypassed
    }

    /// Counts rows a batch encoded plainly because the cache was bypassed.
    pub(crate) fn add_bypassed_rows(&mut self, rows: u64) {
        self.stats.bypassed_rows += rows;
    }

    /// Heap bytes the cache currently retains (0 once bypassed). For tests
    /// (feature `public_imp`).
    #[cfg(feature = "public_imp")]
    pub fn retained_bytes(&self) -> usize {
        self.prev_units.capacity() * 2 + self.prev_utf8.capacity()
    }

    /// Appends the UTF-8 encoding of `units` to `out` (same bytes as
    /// [`encode_utf16_into`](super::encode_utf16_into)), through the cache.
    ///
    /// # Performance
    ///
    /// A hit compares the units with the cached ones and copies the cached
    /// bytes; it allocates nothing beyond growing `out` if `out` lacks room.
    pub fn encode_into(&mut self, units: &[u16], out: &mut Vec<u8>) {
        self.append_with(None, units, out)
    }

    pub(crate) fn append_with(&mut self, kernel: Option<EncodeFn>, units: &[u16], out: &mut Vec<u8>) {
        out.reserve(append_capacity(units.len()));
        let start = out.len();
        // SAFETY: `reserve` left `append_capacity(len)` bytes of spare
        // capacity from `start`, which is what `encode_row` may write; it
        // returns the number of bytes it initialised.
        unsafe {
            let written = self.encode_row(kernel, units, out.as_mut_ptr().add(start));
            out.set_len(start + written);
        }
    }

    /// Encodes one non-NULL value to `dst` through the cache and returns the
    /// bytes written.
    ///
    /// # Safety
    ///
    /// - `dst` is valid for writes of `append_capacity(units.len())` bytes
    ///   (or the exact length plus `WRITE_SLACK`) and does not overlap the
    ///   cache's own buffers (it cannot: those are private).
    /// - `kernel`, if given, comes from `Level::encoder`.
    #[inline]
    pub(crate) unsafe fn encode_row(&mut self, kernel: Option<EncodeFn>, units: &[u16], dst: *mut u8) -> usize {
        let stats = &mut self.stats;
        if stats.bypassed {
            stats.bypassed_rows += 1;
            // SAFETY: caller's contract.
            return unsafe { run(kernel, units.as_ptr(), units.len(), dst) };
        }
        if units.len() > MAX_CACHED_UNITS {
            stats.ineligible += 1;
            // SAFETY: caller's contract.
            return unsafe { run(kernel, units.as_ptr(), units.len(), dst) };
        }
        let len = units.len();
        if self.has_prev
            && self.prev_units.len() == len
            // SAFETY: equal lengths make both ranges `len` units (`2 * len`
            // bytes) long and readable; `prev_units` is private, so no overlap.
            && unsafe { RowHit::eq(units.as_ptr().cast(), self.prev_units.as_ptr().cast(), 2 * len) }
        {
            stats.hits += 1;
            self.consecutive_misses = 0;
            let n = self.prev_utf8.len();
            // SAFETY: `n` is the exact encoding length of `units` (equal to
            // the previous value), within the caller's bound at `dst`; and
            // `prev_utf8` is private, so no overlap.
            unsafe { RowHit::copy(dst, self.prev_utf8.as_ptr(), n) };
            return n;
        }
        // SAFETY: caller's contract.
        let n = unsafe { run(kernel, units.as_ptr(), units.len(), dst) };
        if n == len {
            // Narrowed (ASCII): encoding it again costs less than a hit.
            stats.ineligible += 1;
            return n;
        }
        stats.misses += 1;
        self.consecutive_misses += 1;
        if self.consecutive_misses >= MAX_CONSECUTIVE_MISSES {
            // Distinct text: release the buffers and stop looking.
            stats.bypassed = true;
            self.has_prev = false;
            self.prev_units = Vec::new();
            self.prev_utf8 = Vec::new();
        } else {
            // Owned copies; `clear` + `extend` keeps the capacity, so once the
            // buffers have grown, misses no longer allocate either.
            self.prev_units.clear();
            self.prev_units.extend_from_slice(units);
            self.prev_utf8.clear();
            // SAFETY: the encoder initialised `dst[..n]`.
            self.prev_utf8.extend_from_slice(unsafe { core::slice::from_raw_parts(dst, n) });
            self.has_prev = true;
        }
        n
    }

    /// The state a batch starts from: the owned cached value, if any.
    pub(super) fn start_run(&self) -> Run {
        let (prev_len, prev_bytes_len) =
            if self.has_prev { (self.prev_units.len(), self.prev_utf8.len()) } else { (usize::MAX, 0) };
        Run {
            hits: 0,
            misses: 0,
            ineligible: 0,
            consecutive: self.consecutive_misses,
            bypassed: false,
            prev_units: self.prev_units.as_ptr(),
            prev_len,
            prev_bytes: self.prev_utf8.as_ptr(),
            prev_bytes_len,
            in_batch: false,
        }
    }

    /// Writes a finished batch's run back: counters, the bypass, and an
    /// owned copy of the last cached value if it came from the batch.
    ///
    /// # Safety
    ///
    /// Unless `run.bypassed`, `run.prev_*` are valid for reads of their
    /// lengths (they point into the batch's input and output, or into this
    /// encoder's buffers, unchanged since [`start_run`](Self::start_run)).
    pub(super) unsafe fn commit(&mut self, run: Run) {
        self.stats.hits += run.hits;
        self.stats.misses += run.misses;
        self.stats.ineligible += run.ineligible;
        self.consecutive_misses = run.consecutive;
        if run.bypassed {
            self.stats.bypassed = true;
            self.has_prev = false;
            self.prev_units = Vec::new();
            self.prev_utf8 = Vec::new();
        } else if run.in_batch {
            // Owned copies; `clear` + `extend` keeps the capacity, so once the
            // buffers have grown, batches no longer allocate here either.
            // SAFETY: the caller's contract.
            let (u, b) = unsafe {
                (
                    core::slice::from_raw_parts(run.prev_units, run.prev_len),
                    core::slice::from_raw_parts(run.prev_bytes, run.prev_bytes_len),
                )
            };
            self.prev_units.clear();
            self.prev_units.extend_from_slice(u);
            self.prev_utf8.clear();
            self.prev_utf8.extend_from_slice(b);
            self.has_prev = true;
        }
    }
}
