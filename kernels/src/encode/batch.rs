//! Batch form: one UTF-16 buffer + offsets + validity → an Arrow string array.

use arrow_array::{GenericStringArray, LargeStringArray, OffsetSizeTrait, StringArray};
use arrow_buffer::{Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};

use super::cache::{self, CachedEncoder};
use super::sink::{check_limit, exact_len, Sink};
use crate::arch::{all::encode as scalar, EncodeFn, Level};
use crate::error::{invalid_arg, Result};

/// How a batch sizes its values buffer. Not part of the stable API.
// Only the default is chosen without `public_imp` (the others are forced).
#[cfg_attr(not(feature = "public_imp"), allow(dead_code))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Sizing {
    /// One byte per input unit (exact for ASCII, no length pass); if a row
    /// might not fit, one exact length pass over the remaining rows and one
    /// reallocation to the exact total.
    #[default]
    Optimistic,
    /// An exact [`utf8_len`](super::utf8_len) pass over all rows first.
    Exact,
    /// 3 bytes per input unit, then an in-place shrink to the bytes used.
    UpperBound,
}

/// Encodes a batch of UTF-16 values to a [`StringArray`].
///
/// # Arguments
///
/// - `units`: the UTF-16 code units of all values.
/// - `offsets`: `n + 1` indices into `units` (code units, not bytes): row
///   `i` is `units[offsets[i]..offsets[i + 1]]`. Must start at or above 0,
///   never decrease and end within `units.len()`. An empty slice is an
///   empty batch.
/// - `nulls`: validity of the `n` rows, or `None` if all are valid. A NULL
///   row produces no bytes (its output offset repeats) whatever its units;
///   the output carries the same validity.
///
/// Each row is encoded independently with the rules of the
/// [module docs](super).
///
/// ```
/// use sluice_kernels::encode::utf16_to_utf8;
/// let units: Vec<u16> = "ab\u{e9}".encode_utf16().chain([0xDC00]).collect();
/// let arr = utf16_to_utf8(&units, &[0, 2, 2, 4], None).unwrap();
/// assert_eq!(arr.value(0), "ab");
/// assert_eq!(arr.value(1), "");
/// assert_eq!(arr.value(2), "\u{e9}?");
/// ```
///
/// # Errors
///
/// - [`Error::InvalidArgument`](crate::Error::InvalidArgument) for offsets that are negative, decreasing or
///   past `units.len()` (naming the row), or a validity of the wrong length.
/// - [`Error::OffsetOverflow`](crate::Error::OffsetOverflow) if the output would exceed `i32::MAX` bytes
///   (use [`utf16_to_large_utf8`]).
///
/// ```
/// use sluice_kernels::{encode::utf16_to_utf8, Error};
/// let err = utf16_to_utf8(&[0x61, 0x62], &[0, 2, 1], None).unwrap_err();
/// assert!(matches!(err, Error::InvalidArgument(_)));
/// ```
///
/// # Performance
///
/// The offsets buffer is allocated once at `n + 1`; the values buffer once at
/// one byte per input unit (exact for ASCII). If a row might not fit, the
/// exact length of the remaining rows is computed in one pass and the buffer
/// grows once to the exact total (see the [module docs](super)). The output
/// is not re-validated as UTF-8. No per-row allocation.
pub fn utf16_to_utf8(units: &[u16], offsets: &[i64], nulls: Option<&NullBuffer>) -> Result<StringArray> {
    encode_batch(None, Sizing::default(), i32::MAX as usize, units, offsets, nulls, None)
}

/// [`utf16_to_utf8`] with 64-bit output offsets ([`LargeStringArray`]).
///
/// # Errors
///
/// As [`utf16_to_utf8`], except that the output cannot overflow its offsets.
pub fn utf16_to_large_utf8(units: &[u16], offsets: &[i64], nulls: Option<&NullBuffer>) -> Result<LargeStringArray> {
    encode_batch(None, Sizing::default(), i64::MAX as usize, units, offsets, nulls, None)
}

/// [`utf16_to_utf8`] through a [`CachedEncoder`]: an eligible value equal to
/// the previous one copies the cached bytes instead of being encoded. The
/// cache lives across batches (it is the writer's state). NULL rows do not
/// touch it.
///
/// # Errors
///
/// As [`utf16_to_utf8`]; on error the cache is untouched.
pub fn utf16_to_utf8_cached(
    units: &[u16],
    offsets: &[i64],
    nulls: Option<&NullBuffer>,
    cache: &mut CachedEncoder,
) -> Result<StringArray> {
    encode_batch(None, Sizing::default(), i32::MAX as usize, units, offsets, nulls, Some((cache, None)))
}

/// Checks that `needed` value bytes fit offsets of type `O`.
///
/// # Errors
///
/// [`Error::OffsetOverflow`](crate::Error::OffsetOverflow) naming `needed` and the limit.
#[cfg(any(test, feature = "public_imp"))]
pub fn check_output_len<O: OffsetSizeTrait>(needed: usize) -> Result<()> {
    check_limit(needed, O::MAX_OFFSET)
}

/// Validates the offsets and validity; returns the number of rows.
fn check_offsets(units_len: usize, offsets: &[i64], nulls: Option<&NullBuffer>) -> Result<usize> {
    let rows = offsets.len().saturating_sub(1);
    if let Some(n) = nulls {
        if n.len() != rows {
            return Err(invalid_arg(format!("validity has {} entries but the offsets describe {rows} rows", n.len())));
        }
    }
    let Some(&first) = offsets.first() else { return Ok(0) };
    if first < 0 {
        return Err(invalid_arg(format!("offset of row 0 is negative: {first}")));
    }
    // One branch-free pass; the row is looked for only when it fails.
    if !crate::validate::offsets_ordered(offsets) {
        if let Some((row, w)) = offsets.windows(2).enumerate().find(|(_, w)| w[1] < w[0]) {
            return Err(invalid_arg(format!("offsets decrease at row {row}: start {} > end {}", w[0], w[1])));
        }
    }
    let last = offsets[rows];
    if last as u64 > units_len as u64 {
        return Err(invalid_arg(format!(
            "offset {last} of row {} is past the end of the {units_len} UTF-16 units",
            rows.saturating_sub(1)
        )));
    }
    Ok(rows)
}

/// The batch kernel behind every public batch entry point. With a cache,
/// `level` picks the vector width of its hit path (`None`: this CPU's best).
#[allow(clippy::too_many_arguments)]
pub(crate) fn encode_batch<O: OffsetSizeTrait>(
    kernel: Option<EncodeFn>,
    sizing: Sizing,
    limit: usize,
    units: &[u16],
    offsets: &[i64],
    nulls: Option<&NullBuffer>,
    cache: Option<(&mut CachedEncoder, Option<Level>)>,
) -> Result<GenericStringArray<O>> {
    let limit = limit.min(O::MAX_OFFSET);
    let rows = check_offsets(units.len(), offsets, nulls)?;
    let nulls = nulls.filter(|n| n.null_count() > 0);
    // After `check_offsets`, every `offsets[i] as usize` is a valid index.
    let span = match (offsets.first(), offsets.last()) {
        (Some(&a), Some(&b)) => (b - a) as usize,
        _ => 0,
    };
    let (capacity, capacity_ok) = match sizing {
        Sizing::UpperBound if span.saturating_mul(3) <= limit => (span * 3, true),
        // Every non-NULL unit yields at least one byte, so a span within the
        // limit is the only case where the optimistic guess can be right.
        Sizing::Optimistic if span <= limit => (span, false),
        _ => {
            let exact = exact_len(units, offsets, nulls, 0);
            check_limit(exact, limit)?;
            (exact, true)
        }
    };

    let mut sink = Sink {
        values: Vec::with_capacity(capacity + scalar::WRITE_SLACK),
        o: 0,
        capacity,
        capacity_ok,
        limit,
        units,
        offsets,
        nulls,
    };
    let mut out_offsets: Vec<O> = Vec::with_capacity(rows + 1);
    out_offsets.push(O::usize_as(0));
    // Resolve the dispatch once per batch. (Short rows go through it too:
    // inlining the portable encoder into this loop measured slower, and
    // every level handles short rows itself.)
    let f = kernel.unwrap_or_else(crate::arch::encode_fn);
    // The cache's own loop runs until the batch ends or the cache is
    // bypassed; its state is written back only once the batch succeeded.
    let (cache, pending, first_plain) = match cache {
        Some((c, level)) if !c.is_bypassed() => {
            let (done, run) = cache::batch::rows(c, level, f, &mut sink, &mut out_offsets)?;
            (Some(c), Some(run), done)
        }
        Some((c, _)) => (Some(c), None, 0),
        None => (None, None, 0),
    };
    // SAFETY: `f` comes from the dispatch or from `Level::encoder`; the
    // offsets and validity are checked; `out_offsets` holds rows
    // `..first_plain` and has capacity for all.
    unsafe { sink.encode_rows::<O>(f, &mut out_offsets, first_plain, rows, usize::MAX, 0) }?;
    if let Some(c) = cache {
        if let Some(run) = pending {
            // SAFETY: the run's pointers into `units` and into the values
            // are still valid: the plain loop only ran (and may have moved
            // the values) if the run ended in a bypass, which reads neither.
            unsafe { c.commit(run) };
        }
        // The plain loop only ran while the cache was bypassed.
        c.add_bypassed_rows(sink.valid_rows(first_plain, rows) as u64);
    }
    let Sink { mut values, o, .. } = sink;
    // SAFETY: the encoders initialised exactly `values[..o]`.
    unsafe { values.set_len(o) };
    if values.capacity() - o > 64 {
        // Give back the over-allocation (in place: no copy on glibc/jemalloc).
        values.shrink_to_fit();
    }
    // SAFETY: offsets start at 0, never decrease and end at `values.len()`
    // (pushed from the running byte count); every row's bytes are the
    // encoder's output, which is well-formed UTF-8 by construction (ASCII
    // narrowed from units < 0x80, 2-/3-byte sequences of non-surrogate BMP
    // units, 4-byte sequences of valid pairs, '?' for unpaired surrogates)
    // or a copy of such output (cache hits), so `try_new` would not fail;
    // the validity has `rows` entries (checked).
    let array = unsafe {
        GenericStringArray::<O>::new_unchecked(
            OffsetBuffer::new_unchecked(ScalarBuffer::from(out_offsets)),
            Buffer::from_vec(values),
            nulls.cloned(),
        )
    };
    Ok(array)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;

    #[test]
    fn limit_checker() {
        assert!(check_output_len::<i32>(i32::MAX as usize).is_ok());
        assert!(matches!(
            check_output_len::<i32>(i32::MAX as usize + 1),
            Err(Error::OffsetOverflow { needed, limit }) if needed == i32::MAX as usize + 1 && limit == i32::MAX as usize
        ));
        assert!(check_output_len::<i64>(i32::MAX as usize + 1).is_ok());
    }

    #[test]
    fn large_alias() {
        let a: LargeStringArray = utf16_to_large_utf8(&[0x41], &[0, 1], None).unwrap();
        assert_eq!(a.value(0), "A");
    }
}
