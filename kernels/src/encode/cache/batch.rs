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
//! The loop is compiled once per vector width (SSE2, AVX2, AVX-512BW) and
//! picked per batch.

use arrow_array::OffsetSizeTrait;

use super::hit::{HitOps, Portable};
use super::run::Run;
use super::{CachedEncoder, MAX_CACHED_UNITS, MAX_CONSECUTIVE_MISSES};
use crate::arch::{EncodeFn, Level};
use crate::encode::sink::Sink;
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

/// [`rows_with`] at 32 bytes per vector.
///
/// # Safety
///
/// The CPU has AVX2; otherwise as [`rows_with`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn rows_avx2<O: OffsetSizeTrait>(
    run: &mut Run,
    f: EncodeFn,
    sink: &mut Sink<'_>,
    out_offsets: &mut Vec<O>,
) -> Result<usize> {
    // SAFETY: AVX2 is this function's feature; the rest is forwarded.
    unsafe { rows_with::<super::hit::Simd<core::arch::x86_64::__m256i>, O>(run, f, sink, out_offsets) }
}

/// [`rows_with`] at 64 bytes per vector.
///
/// # Safety
///
/// The CPU has AVX-512F and AVX-512BW; otherwise as [`rows_with`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw")]
#[allow(clippy::incompatible_msrv)]
unsafe fn rows_avx512<O: OffsetSizeTrait>(
    run: &mut Run,
    f: EncodeFn,
    sink: &mut Sink<'_>,
    out_offsets: &mut Vec<O>,
) -> Result<usize> {
    // SAFETY: AVX-512F/BW are this function's features; the rest is
    // forwarded.
    unsafe { rows_with::<super::hit::Simd<core::arch::x86_64::__m512i>, O>(run, f, sink, out_offsets) }
}

/// The row loop. NULL rows push their offset and touch nothing else.
///
/// The loop state (write position, values base, offsets cursor, the cached
/// value, counters) lives in locals so that it stays in registers: a
/// counter kept in memory puts a store-to-load round trip on every row.
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
    let (units, offsets, nulls) = (sink.units, sink.offsets, sink.nulls);
    let rows = offsets.len().saturating_sub(1);
    debug_assert!(out_offsets.len() == 1 && out_offsets.capacity() > rows);
    let bits = nulls.map(|n| n.inner());
    let base = units.as_ptr();
    let offs = out_offsets.as_mut_ptr();
    let mut o = sink.o;
    let mut vbase = sink.values.as_mut_ptr();
    let mut room_ok = sink.room_is_ok();
    let capacity = sink.capacity();
    let mut r = 0;
    let mut bypassed = false;
    let Run { mut hits, mut misses, mut ineligible, mut consecutive, .. } = *run;
    let (mut prev_units, mut prev_len, mut prev_bytes, mut prev_bytes_len, mut in_batch) =
        (run.prev_units, run.prev_len, run.prev_bytes, run.prev_bytes_len, run.in_batch);
    while r < rows {
        // A streak of hits: valid rows equal to the cached value, with room.
        // No call in this loop, so its state stays in registers; any other
        // row (and the first row of a streak) goes through the general step
        // below.
        let streak_start = r;
        // Whether the streak ended on a compared, unequal row.
        let mut known_miss = false;
        while r < rows {
            // SAFETY: `r < rows`, the validity's length; `r + 1 <
            // offsets.len()`; checked offsets lie within `units`.
            unsafe {
                if bits.is_some_and(|b| !b.value_unchecked(r)) {
                    break;
                }
                let s = *offsets.get_unchecked(r) as usize;
                let len = *offsets.get_unchecked(r + 1) as usize - s;
                if len != prev_len || (!room_ok && o + 3 * len > capacity) {
                    break;
                }
                // A length match makes both ranges `len` units long and
                // readable; a hit's bytes are this row's exact encoding,
                // which the room check (or the exact sizing) made room for,
                // and lie elsewhere (earlier in the values, or in the
                // encoder's own buffer).
                if !H::eq(base.add(s).cast(), prev_units.cast(), 2 * len) {
                    known_miss = true;
                    break;
                }
                H::copy(vbase.add(o), prev_bytes, prev_bytes_len);
            }
            o += prev_bytes_len;
            r += 1;
            // SAFETY: `r <= rows < capacity`.
            unsafe { offs.add(r).write(O::usize_as(o)) };
        }
        if r > streak_start {
            hits += (r - streak_start) as u64;
            consecutive = 0;
            if r == rows {
                break;
            }
        }
        // SAFETY: `r < rows`, the validity's length (checked).
        if bits.is_none_or(|b| unsafe { b.value_unchecked(r) }) {
            // SAFETY: `r + 1 < offsets.len()`; checked offsets lie within
            // `units` and do not decrease.
            let (s, e) = unsafe { (*offsets.get_unchecked(r) as usize, *offsets.get_unchecked(r + 1) as usize) };
            let len = e - s;
            if !room_ok && o + 3 * len > capacity {
                sink.o = o;
                let res = sink.room(r, len);
                // The partial offsets are valid even on error.
                // SAFETY: `offs[..=r]` are written.
                unsafe { out_offsets.set_len(r + 1) };
                res?;
                let moved = sink.values.as_mut_ptr();
                if in_batch && moved != vbase {
                    // The values moved: follow the cached bytes.
                    // SAFETY: `prev_bytes` pointed into the old allocation
                    // at an offset below `o`, which the move preserved.
                    prev_bytes = unsafe { moved.offset(prev_bytes.offset_from(vbase)) };
                }
                vbase = moved;
                room_ok = sink.room_is_ok();
            }
            // SAFETY: `s..e` is within `units`; the spare capacity from `o`
            // holds this row's worst case (or its exact bytes) plus slack.
            let (src, dst) = unsafe { (base.add(s), vbase.add(o)) };
            if len <= MAX_CACHED_UNITS {
                // SAFETY: a length match makes both unit ranges `len` long
                // and readable (`prev_units` is valid per the contract); a
                // hit's bytes are this row's exact encoding, which fits at
                // `dst`, and lie elsewhere (earlier in the values, or in the
                // encoder's own buffer).
                unsafe {
                    if !known_miss && len == prev_len && H::eq(src.cast(), prev_units.cast(), 2 * len) {
                        H::copy(dst, prev_bytes, prev_bytes_len);
                        o += prev_bytes_len;
                        hits += 1;
                        consecutive = 0;
                    } else {
                        let n = f(src, len, dst);
                        o += n;
                        if n == len {
                            // Narrowed (ASCII): encoding it again costs less
                            // than a hit, so it is neither a miss nor cached.
                            ineligible += 1;
                        } else {
                            misses += 1;
                            consecutive += 1;
                            prev_units = src;
                            prev_len = len;
                            prev_bytes = dst;
                            prev_bytes_len = n;
                            in_batch = true;
                            if consecutive >= MAX_CONSECUTIVE_MISSES {
                                // Distinct text: stop looking; the caller
                                // encodes the rest plainly.
                                bypassed = true;
                            }
                        }
                    }
                }
            } else {
                ineligible += 1;
                // SAFETY: as above.
                o += unsafe { f(src, len, dst) };
            }
        }
        r += 1;
        // `o <= total <= limit <= O::MAX_OFFSET`: exact conversion.
        // SAFETY: `r <= rows < capacity`.
        unsafe { offs.add(r).write(O::usize_as(o)) };
        if bypassed {
            break;
        }
    }
    // SAFETY: `offs[..=r]` are written.
    unsafe { out_offsets.set_len(r + 1) };
    sink.o = o;
    *run = Run {
        hits,
        misses,
        ineligible,
        consecutive,
        bypassed,
        prev_units,
        prev_len,
        prev_bytes,
        prev_bytes_len,
        in_batch,
    };
    Ok(r)
}
