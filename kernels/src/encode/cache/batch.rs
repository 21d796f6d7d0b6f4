//! The batch loop of the repeated-value cache.
//!
//! Within one batch the previous eligible value is compared where it
//! already is: its UTF-16 units in the input and its UTF-8 bytes in the
//! output being built, both just touched and hot in L1. A miss therefore
//! costs one encode and no copy into the cache; a hit is a vector compare
//! and a vector copy inlined into the row loop. Only when the batch is done
//! does [`CachedEncoder::commit`] copy the last cached value into the
//! encoder's owned buffers, so nothing retains a view of the input or the
//! output past the call (and an error leaves the cache untouched).
//!
//! Rows the cache cannot serve (ASCII and other narrowed values, values
//! over [`MAX_CACHED_UNITS`], other lengths than the cached value's) run
//! the plain batch loop itself, which hands back only at a possible hit or
//! a miss, at the cost of one compare per row (the miss test). After
//! [`QUIET_ROWS`] rows without a hit or a miss the next [`PLAIN_ROWS`] run
//! that loop with plain encoding's arguments (no test at all), so a column
//! the cache cannot help costs what plain encoding costs; and the bypass
//! after eight misses hands distinct text to that loop for good.
//!
//! The hit path is compiled once per vector width (SSE2, AVX2, AVX-512BW)
//! and picked per batch.

use arrow_array::OffsetSizeTrait;

use super::hit::{HitOps, Portable};
use super::run::Run;
use super::{CachedEncoder, MAX_CACHED_UNITS, MAX_CONSECUTIVE_MISSES, PLAIN_ROWS, QUIET_ROWS};
use crate::arch::{EncodeFn, Level};
use crate::encode::sink::{Sink, Stop};
use crate::error::Result;

/// Encodes rows from 0 until the batch ends or the cache gets bypassed;
/// returns the number of rows done (their offsets pushed) and the run.
///
/// # Errors
///
/// As the batch: an output past the offset limit.
pub(in crate::encode) fn rows<O: OffsetSizeTrait>(
    c: &CachedEncoder,
    level: Option<Level>,
    f: EncodeFn,
    sink: &mut Sink<'_>,
    out_offsets: &mut Vec<O>,
) -> Result<(usize, Run)> {
    let mut run = c.start_run();
    let level = level.map_or_else(Level::detected, |l| l.min(Level::detected()));
    // SAFETY: each width's loop runs only on a CPU with its features (the
    // level is clamped to the detected one); `f`
    // comes from the dispatch or from `Level::encoder`, as `rows_with`
    // requires.
    let done = unsafe {
        match level {
            #[cfg(target_arch = "x86_64")]
            Level::Avx512 => rows_avx512(&mut run, f, sink, out_offsets),
            #[cfg(target_arch = "x86_64")]
            Level::Avx2 => rows_avx2(&mut run, f, sink, out_offsets),
            #[cfg(target_arch = "x86_64")]
            Level::Sse2 => {
                rows_with::<super::hit::Simd<core::arch::x86_64::__m128i>, O>(&mut run, f, sink, out_offsets)
            }
            _ => rows_with::<Portable, O>(&mut run, f, sink, out_offsets),
        }
    }?;
    Ok((done, run))
}

/// Defines `$name`, [`rows_with`] compiled with `$features` for the vector
/// `$v`: one instance per vector width, each inlining the hit path.
macro_rules! rows_with_features {
    ($(#[$attr:meta])* $name:ident, $features:literal, $v:ty) => {
        $(#[$attr])*
        ///
        /// # Safety
        ///
        #[doc = concat!("The CPU has ", $features, "; otherwise as [`rows_with`].")]
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = $features)]
        unsafe fn $name<O: OffsetSizeTrait>(
            run: &mut Run,
            f: EncodeFn,
            sink: &mut Sink<'_>,
            out_offsets: &mut Vec<O>,
        ) -> Result<usize> {
            // SAFETY: the features are this function's; the rest is
            // forwarded.
            unsafe { rows_with::<super::hit::Simd<$v>, O>(run, f, sink, out_offsets) }
        }
    };
}

rows_with_features!(
    /// [`rows_with`] at 32 bytes per vector.
    rows_avx2,
    "avx2",
    core::arch::x86_64::__m256i
);
rows_with_features!(
    /// [`rows_with`] at 64 bytes per vector.
    #[allow(clippy::incompatible_msrv)]
    rows_avx512,
    "avx512f,avx512bw",
    core::arch::x86_64::__m512i
);

/// The row loop. NULL rows push their offset and touch nothing else.
///
/// Rows that cannot hit (NULL, another length than the cached value's,
/// narrowed, over [`MAX_CACHED_UNITS`]) run the plain batch loop
/// ([`Sink::encode_rows`], the same machine code), which stops only at cache events: a
/// row as long as the cached value, or a miss. So a column the cache cannot
/// help (ASCII, long values) costs plain encoding plus a compare per row
/// for [`QUIET_ROWS`] rows, then plain encoding itself for [`PLAIN_ROWS`]
/// rows, and the cache's own state stays out of that loop. A row that may
/// hit is compared; a hit starts a streak of hits, a loop without calls
/// whose state lives in locals (registers).
///
/// # Safety
///
/// - The CPU has the target features of `H`.
/// - `f` is an encoder the CPU can run (see `EncodeFn`).
/// - `run` came from [`CachedEncoder::start_run`] on an encoder not changed
///   since, so that its `prev_*` pointers are valid.
/// - `sink` holds checked offsets and validity (`check_offsets`);
///   `out_offsets` holds the first offset only and has capacity for all.
#[inline(always)]
unsafe fn rows_with<H: HitOps, O: OffsetSizeTrait>(
    run: &mut Run,
    f: EncodeFn,
    sink: &mut Sink<'_>,
    out_offsets: &mut Vec<O>,
) -> Result<usize> {
    let (base, offsets) = (sink.units.as_ptr(), sink.offsets);
    let rows = offsets.len().saturating_sub(1);
    debug_assert!(out_offsets.len() == 1 && out_offsets.capacity() > rows);
    let Run {
        mut hits, mut misses, mut consecutive, mut prev_units, mut prev_len, prev_bytes, mut prev_bytes_len, ..
    } = *run;
    // Where the cached bytes are once they come from this batch: an offset
    // into the values, which may move when they grow.
    let mut prev_at: Option<usize> = None;
    let mut bypassed = false;
    let mut r = 0;
    // The first row after the last hit or miss: `QUIET_ROWS` rows from it
    // without one start a plain stretch.
    let mut quiet_from = 0;
    while r < rows {
        let end = (quiet_from + QUIET_ROWS).min(rows);
        // SAFETY: forwarded contract; `out_offsets` holds rows `..r`.
        let (next, stop) = unsafe { sink.encode_rows::<O>(f, out_offsets, r, end, prev_len, MAX_CACHED_UNITS) }?;
        r = next;
        let miss = match stop {
            Stop::End if r < rows => {
                // A quiet stretch: the next rows run the plain loop with
                // plain arguments (no hit or miss test), then look again.
                let plain_end = (r + PLAIN_ROWS).min(rows);
                // SAFETY: as above.
                r = unsafe { sink.encode_rows::<O>(f, out_offsets, r, plain_end, usize::MAX, 0) }?.0;
                quiet_from = r;
                continue;
            }
            Stop::End => break,
            Stop::Miss { s, len, at, n } => Some((s, len, at, n)),
            Stop::Candidate => {
                // Row `r` is valid and as long as the cached value.
                // SAFETY: `r + 1 < offsets.len()`; checked offsets lie
                // within `units`.
                let s = unsafe { *offsets.get_unchecked(r) } as usize;
                let len = prev_len;
                sink.room(r, len)?;
                let vbase = sink.values.as_mut_ptr();
                // SAFETY: `prev_at` is below `o`, within the values.
                let cached = prev_at.map_or(prev_bytes, |at| unsafe { vbase.add(at).cast_const() });
                // SAFETY: equal lengths make both unit ranges `len` long and
                // readable (`prev_units` points into `units` or the
                // encoder's own buffer).
                if unsafe { H::eq(base.add(s).cast(), prev_units.cast(), 2 * len) } {
                    // SAFETY: `out_offsets` holds rows `..r`; the cached
                    // bytes are readable and this row's exact encoding.
                    let (end, known_miss) =
                        unsafe { streak::<H, O>(sink, out_offsets, r, (prev_units, len), (cached, prev_bytes_len)) };
                    hits += (end - r) as u64;
                    consecutive = 0;
                    r = end;
                    quiet_from = r;
                    if !known_miss {
                        continue;
                    }
                }
                // Row `r` was compared and differs: encode it.
                // SAFETY: `r + 1 < offsets.len()`.
                let s = unsafe { *offsets.get_unchecked(r) } as usize;
                // SAFETY: `s..s + len` is row `r` within `units`; `f` as
                // the contract says.
                let (at, n) = unsafe { sink.encode_row(f, out_offsets, r, base.add(s), len) }?;
                r += 1;
                // Narrowed (ASCII): neither a miss nor cached.
                (n != len).then_some((s, len, at, n))
            }
        };
        if let Some((s, len, at, n)) = miss {
            quiet_from = r;
            misses += 1;
            consecutive += 1;
            // SAFETY: `s` is within `units`.
            prev_units = unsafe { base.add(s) };
            prev_len = len;
            prev_at = Some(at);
            prev_bytes_len = n;
            if consecutive >= MAX_CONSECUTIVE_MISSES {
                // Distinct text: stop looking; the caller encodes the rest
                // plainly.
                bypassed = true;
                break;
            }
        }
    }
    let ineligible = sink.valid_rows(0, r) as u64 - hits - misses;
    *run = Run {
        hits,
        misses,
        ineligible,
        consecutive,
        bypassed,
        prev_units,
        prev_len,
        // SAFETY: `at` is below `o`, within the values.
        prev_bytes: prev_at.map_or(prev_bytes, |at| unsafe { sink.values.as_ptr().add(at) }),
        prev_bytes_len,
        in_batch: prev_at.is_some(),
    };
    Ok(r)
}

/// A streak of hits from row `r` (compared equal, with room): copies the
/// cached bytes while the next rows are valid, as long, equal and fit
/// without growing. Returns the row it stopped at and whether that row was
/// compared and differs.
///
/// # Safety
///
/// - The CPU has the target features of `H`.
/// - As [`rows_with`] for `sink`; `out_offsets` holds rows `..r`; row `r`
///   is valid, equal to the cached value and has room.
/// - `prev` are the cached value's units (`len` of them, readable) and
///   `cached` its UTF-8 bytes (readable, outside the values from `o` on).
#[inline(always)]
unsafe fn streak<H: HitOps, O: OffsetSizeTrait>(
    sink: &mut Sink<'_>,
    out_offsets: &mut Vec<O>,
    mut r: usize,
    (prev, len): (*const u16, usize),
    (cached, n): (*const u8, usize),
) -> (usize, bool) {
    let (offsets, bits) = (sink.offsets, sink.nulls.map(|b| b.inner()));
    let rows = offsets.len().saturating_sub(1);
    let base = sink.units.as_ptr();
    let offs = out_offsets.as_mut_ptr();
    let vbase = sink.values.as_mut_ptr();
    let (room_ok, capacity) = (sink.room_is_ok(), sink.capacity());
    let mut o = sink.o;
    let mut known_miss = false;
    // SAFETY: the caller's contract for row `r`; `r + 1 <= rows <
    // capacity` of `out_offsets`.
    unsafe {
        H::copy(vbase.add(o), cached, n);
        o += n;
        r += 1;
        offs.add(r).write(O::usize_as(o));
    }
    // No call in this loop, so its state stays in registers.
    while r < rows {
        // SAFETY: `r < rows`, the validity's length; `r + 1 <
        // offsets.len()`; checked offsets lie within `units`. A length
        // match makes both unit ranges `len` long and readable; a hit's
        // bytes are this row's exact encoding, which the room check (or the
        // exact sizing) made room for, and lie elsewhere (earlier in the
        // values, or in the encoder's own buffer).
        unsafe {
            if bits.is_some_and(|b| !b.value_unchecked(r)) {
                break;
            }
            let s = *offsets.get_unchecked(r) as usize;
            if *offsets.get_unchecked(r + 1) as usize - s != len || (!room_ok && o + 3 * len > capacity) {
                break;
            }
            if !H::eq(base.add(s).cast(), prev.cast(), 2 * len) {
                known_miss = true;
                break;
            }
            H::copy(vbase.add(o), cached, n);
            o += n;
            r += 1;
            offs.add(r).write(O::usize_as(o));
        }
    }
    // SAFETY: `offs[..=r]` are written.
    unsafe { out_offsets.set_len(r + 1) };
    sink.o = o;
    (r, known_miss)
}
