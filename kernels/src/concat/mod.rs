//! `CONCAT` and `CONCAT_WS` with Flink's NULL rules, building only the final
//! buffers.
//!
//! Flink semantics (`TR/data/binary/BinaryStringDataUtil.java` `concat` /
//! `concatWs`, called from `PS/codegen/calls/StringCallGen.scala`; confirmed on
//! real Flink 2.2.1 and 1.20.5, docs/flink-semantics.md §6.2 and §11):
//!
//! - `CONCAT(a, b, …)`: **any NULL argument gives NULL**; otherwise the UTF-8
//!   bytes are concatenated as stored (no decoding).
//! - `CONCAT_WS(sep, a, b, …)`: a NULL separator gives NULL; NULL arguments
//!   are **skipped together with their separator**; empty strings are kept;
//!   no non-NULL argument gives `''`, not NULL.
//!
//! Every argument is a [`Datum`]: an array or a one-row scalar, in any mix,
//! of type `Utf8`, `LargeUtf8` or `Utf8View`. If every argument is a scalar
//! the result has one row. [`concat`](fn@concat) and [`concat_ws`] build `Utf8`;
//! [`concat_large`] and [`concat_ws_large`] build `LargeUtf8`.
//!
//! ```
//! use arrow_array::{Scalar, StringArray};
//! use sluice_kernels::concat::{concat, concat_ws};
//!
//! let a = StringArray::from(vec![Some("a"), None, Some("c")]);
//! let b = StringArray::from(vec![Some("x"), Some("y"), Some("")]);
//! let out = concat(&[&a, &b]).unwrap();
//! assert_eq!(out.iter().collect::<Vec<_>>(), [Some("ax"), None, Some("c")]);
//!
//! let sep = Scalar::new(StringArray::from(vec![","]));
//! let out = concat_ws(&sep, &[&a, &b]).unwrap();
//! assert_eq!(out.iter().collect::<Vec<_>>(), [Some("a,x"), Some("y"), Some("c,")]);
//! ```
//!
//! # Performance
//!
//! The output size is known before any byte is copied: for `Utf8` and
//! `LargeUtf8` inputs it is the difference of the first and last offsets
//! (no pass over the rows), for `Utf8View` one pass over the view lengths.
//! Values and offsets are then allocated once and filled in a single row
//! pass that reads each input once and writes the output strictly front to
//! back: strings of up to 16 bytes are moved with one 16-byte unaligned
//! copy, up to 512 bytes with whole 32-byte chunks (the values buffer carries
//! 64 bytes of slack, so bytes written past a string's end are overwritten by
//! the next one), longer ones with `memcpy`. When every argument is a `Utf8`
//! column or a scalar, a scalar is read as a stride-0 column and the row
//! loop (unrolled for 2–4 arguments) has no per-argument branch. A NULL
//! row keeps the preceding offset and consumes no value bytes.
//!
//! With NULL rows the values capacity is the size of all rows (an upper
//! bound; the NULL rows' bytes stay unused) so that no extra pass is needed;
//! without NULL rows it is exact. The CONCAT row loop then has no branch on
//! validity either: every row is copied and the write position advances by
//! `len × valid`, so the next row overwrites a NULL row's bytes (a
//! mispredicted branch per NULL row cost more than the copy, at 16 and at
//! 256 bytes per value).

use arrow_array::cast::AsArray;
use arrow_array::{Array, Datum, GenericStringArray, LargeStringArray, OffsetSizeTrait, StringArray};
use arrow_buffer::{Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow_schema::DataType;

use crate::error::{invalid_arg, Error, Result};

mod fill;

#[cfg(feature = "public_imp")]
pub use fill::NullFill;
#[cfg(not(feature = "public_imp"))]
use fill::NullFill;
use fill::{dispatch_concat, dispatch_concat_ws, RowSrc, SLACK};

/// `CONCAT(args…)` into `Utf8`.
///
/// # Errors
///
/// [`Error::InvalidArgument`] if there is no argument, an argument is not
/// `Utf8`/`LargeUtf8`/`Utf8View`, a scalar datum is not one row or array
/// lengths differ; [`Error::OffsetOverflow`] if the result would exceed
/// `i32::MAX` bytes (use [`concat_large`]).
pub fn concat(args: &[&dyn Datum]) -> Result<StringArray> {
    concat_impl::<i32>(args, NullFill::Auto)
}

/// `CONCAT(args…)` into `LargeUtf8`.
///
/// # Errors
///
/// As [`concat`](fn@concat), except for the `i32` limit.
pub fn concat_large(args: &[&dyn Datum]) -> Result<LargeStringArray> {
    concat_impl::<i64>(args, NullFill::Auto)
}

/// `CONCAT_WS(sep, args…)` into `Utf8`. `sep` may be a scalar or an array.
/// With no `args` every row with a non-NULL separator is `''`.
///
/// # Errors
///
/// As [`concat`](fn@concat) (zero `args` is allowed).
pub fn concat_ws(sep: &dyn Datum, args: &[&dyn Datum]) -> Result<StringArray> {
    concat_ws_impl::<i32>(sep, args)
}

/// `CONCAT_WS(sep, args…)` into `LargeUtf8`.
///
/// # Errors
///
/// As [`concat_ws`], except for the `i32` limit.
pub fn concat_ws_large(sep: &dyn Datum, args: &[&dyn Datum]) -> Result<LargeStringArray> {
    concat_ws_impl::<i64>(sep, args)
}

/// Where one argument's bytes come from.
#[derive(Clone, Copy)]
enum Src<'a> {
    /// A non-NULL scalar, broadcast. `avail` counts the readable bytes from
    /// the start (the scalar sits in a padded arena).
    Scalar { ptr: *const u8, len: usize, avail: usize },
    /// `Utf8`: the array's own (sliced) offsets, `n + 1` of them.
    Off32 { offsets: &'a [i32], values: &'a [u8] },
    /// `LargeUtf8`.
    Off64 { offsets: &'a [i64], values: &'a [u8] },
    /// `Utf8View`: `n` views and the data buffers.
    View { views: &'a [u128], buffers: &'a [Buffer] },
}

impl Src<'_> {
    /// Row `i`: start pointer, length, readable bytes from the start.
    ///
    /// # Safety
    ///
    /// `i` must be below the number of rows of an array source (any `i` for
    /// a scalar), and the array must satisfy Arrow's layout invariants
    /// (offsets within the values, views pointing into their buffers).
    #[inline(always)]
    unsafe fn row(&self, i: usize) -> (*const u8, usize, usize) {
        match *self {
            Src::Scalar { ptr, len, avail } => (ptr, len, avail),
            Src::Off32 { offsets, values } => {
                // SAFETY: `i + 1 < offsets.len()` (caller); Arrow guarantees
                // `0 <= start <= end <= values.len()`.
                unsafe {
                    let s = *offsets.get_unchecked(i) as usize;
                    let e = *offsets.get_unchecked(i + 1) as usize;
                    (values.as_ptr().add(s), e - s, values.len() - s)
                }
            }
            Src::Off64 { offsets, values } => {
                // SAFETY: as for `Off32`.
                unsafe {
                    let s = *offsets.get_unchecked(i) as usize;
                    let e = *offsets.get_unchecked(i + 1) as usize;
                    (values.as_ptr().add(s), e - s, values.len() - s)
                }
            }
            Src::View { views, buffers } => {
                // SAFETY: `i < views.len()` (caller); a view of length <= 12
                // holds its bytes inline after the 4-byte length, otherwise
                // it names a buffer and an offset that Arrow guarantees
                // valid for `len` bytes.
                unsafe {
                    let v = *views.get_unchecked(i);
                    let len = v as u32 as usize;
                    if len <= 12 {
                        let p = views.as_ptr().add(i).cast::<u8>().add(4);
                        (p, len, (views.len() - i) * 16 - 4)
                    } else {
                        let b = buffers.get_unchecked((v >> 64) as u32 as usize);
                        let off = (v >> 96) as u32 as usize;
                        (b.as_ptr().add(off), len, b.len() - off)
                    }
                }
            }
        }
    }

    /// Total value bytes of rows `0..n` (for a scalar: `n` copies).
    fn total(&self, n: usize) -> usize {
        match *self {
            Src::Scalar { len, .. } => len.saturating_mul(n),
            Src::Off32 { offsets, .. } => span(offsets),
            Src::Off64 { offsets, .. } => span(offsets),
            Src::View { views, .. } => views.iter().map(|v| *v as u32 as usize).sum(),
        }
    }
}

impl RowSrc for Src<'_> {
    #[inline(always)]
    unsafe fn row(&self, i: usize) -> (*const u8, usize, usize) {
        // SAFETY: forwarded contract.
        unsafe { Src::row(self, i) }
    }

    unsafe fn fast_rows(&self, n: usize) -> usize {
        match *self {
            Src::Scalar { avail, .. } => fast_if(avail, n),
            // SAFETY: an array source has at least `n + 1` offsets (caller).
            Src::Off32 { offsets, values } => unsafe { fast_prefix(offsets.get_unchecked(..n), values.len()) },
            // SAFETY: as for `Off32`.
            Src::Off64 { offsets, values } => unsafe { fast_prefix(offsets.get_unchecked(..n), values.len()) },
            // Views point anywhere in their buffers: no prefix is known.
            Src::View { .. } => 0,
        }
    }
}

/// `n` if a scalar with `avail` readable bytes can always be block-read.
fn fast_if(avail: usize, n: usize) -> usize {
    if avail >= fill::FAST_READ {
        n
    } else {
        0
    }
}

/// The rows whose start lies at least `FAST_READ` bytes before the end of
/// `values_len`: a prefix, as Arrow offsets never decrease.
fn fast_prefix<O: arrow_buffer::ArrowNativeType>(starts: &[O], values_len: usize) -> usize {
    match values_len.checked_sub(fill::FAST_READ) {
        Some(last) => starts.partition_point(|s| s.as_usize() <= last),
        None => 0,
    }
}

/// The branch-free form of a `Utf8` column or a scalar, used when every
/// argument is one of those (the common case): a scalar is a column whose
/// offsets `[0, len]` are read with stride 0.
#[derive(Clone, Copy)]
struct Flat {
    offsets: *const i32,
    stride: usize,
    values: *const u8,
    values_len: usize,
}

impl RowSrc for Flat {
    #[inline(always)]
    unsafe fn row(&self, i: usize) -> (*const u8, usize, usize) {
        // SAFETY: `offsets` has `n + 1` entries for a column (`i < n`) or 2
        // for a scalar (stride 0); the offsets lie within `values_len`.
        unsafe {
            let o = self.offsets.add(i * self.stride);
            let s = *o as usize;
            let e = *o.add(1) as usize;
            (self.values.add(s), e - s, self.values_len - s)
        }
    }

    unsafe fn fast_rows(&self, n: usize) -> usize {
        if self.stride == 0 {
            return fast_if(self.values_len, n);
        }
        // SAFETY: a column has `n + 1` offsets (caller).
        unsafe { fast_prefix(std::slice::from_raw_parts(self.offsets, n), self.values_len) }
    }
}

/// A [`Flat`] column (stride 1).
#[derive(Clone, Copy)]
struct Col {
    offsets: *const i32,
    values: *const u8,
    values_len: usize,
}

impl RowSrc for Col {
    #[inline(always)]
    unsafe fn row(&self, i: usize) -> (*const u8, usize, usize) {
        // SAFETY: `offsets` has `n + 1` entries and `i < n`; the offsets lie
        // within `values_len`.
        unsafe {
            let s = *self.offsets.add(i) as usize;
            let e = *self.offsets.add(i + 1) as usize;
            (self.values.add(s), e - s, self.values_len - s)
        }
    }

    unsafe fn fast_rows(&self, n: usize) -> usize {
        // SAFETY: `n + 1` offsets (caller).
        unsafe { fast_prefix(std::slice::from_raw_parts(self.offsets, n), self.values_len) }
    }
}

/// The flat form of `pieces`, if all are `Utf8` columns or scalars that fit
/// `i32` offsets. `scalar_offsets` must have capacity for one entry per
/// piece (it is filled here and must outlive the result).
fn flatten(pieces: &[Piece<'_>], scalar_offsets: &mut Vec<[i32; 2]>) -> Option<Vec<Flat>> {
    debug_assert!(scalar_offsets.capacity() >= pieces.len() && scalar_offsets.is_empty());
    let mut out = Vec::with_capacity(pieces.len());
    for p in pieces {
        out.push(match p.src {
            Src::Off32 { offsets, values } => {
                Flat { offsets: offsets.as_ptr(), stride: 1, values: values.as_ptr(), values_len: values.len() }
            }
            Src::Scalar { ptr, len, avail } if len <= i32::MAX as usize => {
                // The capacity was reserved up front, so this push never
                // reallocates and earlier pointers stay valid.
                if scalar_offsets.len() == scalar_offsets.capacity() {
                    return None;
                }
                scalar_offsets.push([0, len as i32]);
                let o = scalar_offsets.last()?;
                Flat { offsets: o.as_ptr(), stride: 0, values: ptr, values_len: avail }
            }
            _ => return None,
        });
    }
    Some(out)
}

fn span<O: arrow_buffer::ArrowNativeType>(offsets: &[O]) -> usize {
    match (offsets.first(), offsets.last()) {
        (Some(f), Some(l)) => l.as_usize() - f.as_usize(),
        _ => 0,
    }
}

/// One argument after classification.
struct Piece<'a> {
    src: Src<'a>,
    nulls: Option<&'a NullBuffer>,
}

/// A classified argument list.
struct Args<'a> {
    /// Non-NULL arguments in order (NULL scalars are left out).
    pieces: Vec<Piece<'a>>,
    /// Whether a NULL scalar was left out.
    null_scalar: bool,
    /// Row count: the arrays' common length, or 1 if all are scalars.
    rows: usize,
}

/// Classifies `datums`, copying non-NULL scalars into `arena` (one
/// allocation, padded so short copies may read whole vectors).
fn classify<'a>(datums: &[&'a dyn Datum], arena: &'a mut Vec<u8>) -> Result<Args<'a>> {
    let mut rows: Option<usize> = None;
    let mut null_scalar = false;
    // First pass: types, lengths, scalar bytes into the arena.
    let mut scalar_at: Vec<Option<(usize, usize)>> = Vec::with_capacity(datums.len());
    let mut arena_len = 0;
    for (k, d) in datums.iter().enumerate() {
        let (a, is_scalar) = d.get();
        if !matches!(a.data_type(), DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View) {
            return Err(invalid_arg(format!(
                "argument {k}: expected Utf8, LargeUtf8 or Utf8View, got {}",
                a.data_type()
            )));
        }
        if is_scalar {
            if a.len() != 1 {
                return Err(invalid_arg(format!("argument {k}: a scalar must have 1 row, got {}", a.len())));
            }
            if a.is_null(0) {
                null_scalar = true;
                scalar_at.push(None);
            } else {
                let len = scalar_bytes(a).len();
                scalar_at.push(Some((arena_len, len)));
                arena_len += len + SLACK;
            }
        } else {
            match rows {
                None => rows = Some(a.len()),
                Some(n) if n != a.len() => {
                    return Err(invalid_arg(format!(
                        "argument {k} has {} rows, an earlier array argument has {n}",
                        a.len()
                    )))
                }
                _ => {}
            }
            scalar_at.push(None);
        }
    }
    arena.clear();
    arena.reserve_exact(arena_len);
    for (d, at) in datums.iter().zip(&scalar_at) {
        if at.is_some() {
            arena.extend_from_slice(scalar_bytes(d.get().0));
            arena.extend_from_slice(&[0u8; SLACK]);
        }
    }
    let arena: &'a [u8] = arena;

    let mut pieces = Vec::with_capacity(datums.len());
    for (d, at) in datums.iter().zip(scalar_at) {
        let (a, is_scalar) = d.get();
        if is_scalar {
            if let Some((start, len)) = at {
                let s = &arena[start..start + len + SLACK];
                pieces.push(Piece { src: Src::Scalar { ptr: s.as_ptr(), len, avail: s.len() }, nulls: None });
            }
            continue;
        }
        let src = match a.data_type() {
            DataType::Utf8 => {
                let s = a.as_string::<i32>();
                Src::Off32 { offsets: s.value_offsets(), values: s.value_data() }
            }
            DataType::LargeUtf8 => {
                let s = a.as_string::<i64>();
                Src::Off64 { offsets: s.value_offsets(), values: s.value_data() }
            }
            _ => {
                let s = a.as_string_view();
                Src::View { views: s.views(), buffers: s.data_buffers() }
            }
        };
        pieces.push(Piece { src, nulls: a.nulls().filter(|nb| nb.null_count() > 0) });
    }
    Ok(Args { pieces, null_scalar, rows: rows.unwrap_or(1) })
}

/// The bytes of row 0 of a string array of any layout.
fn scalar_bytes(a: &dyn Array) -> &[u8] {
    match a.data_type() {
        DataType::Utf8 => a.as_string::<i32>().value(0).as_bytes(),
        DataType::LargeUtf8 => a.as_string::<i64>().value(0).as_bytes(),
        _ => a.as_string_view().value(0).as_bytes(),
    }
}

/// Checks `total` against the output offset type.
fn check_total<O: OffsetSizeTrait>(total: usize) -> Result<()> {
    if total > O::MAX_OFFSET {
        Err(Error::OffsetOverflow { needed: total, limit: O::MAX_OFFSET })
    } else {
        Ok(())
    }
}

/// Output buffers being filled front to back.
struct Out<O> {
    offsets: Vec<O>,
    values: Vec<u8>,
}

impl<O: OffsetSizeTrait> Out<O> {
    /// Allocates `rows + 1` offsets (plus `OFFSETS_SLACK`) and `capacity + SLACK`
    /// value bytes.
    /// `exact`: every value byte will be written (no NULL rows), so a
    /// large values buffer is pre-faulted (see `crate::prefault`); otherwise
    /// it is only offered huge pages.
    fn new(rows: usize, capacity: usize, exact: bool) -> Self {
        let mut out = Out {
            offsets: Vec::with_capacity(rows + 1 + fill::OFFSETS_SLACK),
            values: Vec::with_capacity(capacity + SLACK),
        };
        crate::prefault::prefault_spare(&mut out.offsets);
        if exact {
            crate::prefault::prefault_spare(&mut out.values);
        } else {
            crate::prefault::huge_spare(&mut out.values);
        }
        out
    }

    /// # Safety
    ///
    /// The caller wrote exactly `rows + 1` offsets (the first 0, non-decreasing,
    /// the last `len`) through the raw pointer, and initialised `len` value
    /// bytes, `len` at most the capacity requested in [`Out::new`]. The values
    /// are UTF-8 (whole UTF-8 strings concatenated).
    unsafe fn finish(mut self, rows: usize, len: usize, nulls: Option<NullBuffer>) -> GenericStringArray<O> {
        // SAFETY: per the contract above.
        unsafe {
            self.offsets.set_len(rows + 1);
            self.values.set_len(len);
            let out = GenericStringArray::<O>::new_unchecked(
                OffsetBuffer::new_unchecked(ScalarBuffer::from(self.offsets)),
                Buffer::from_vec(self.values),
                nulls,
            );
            #[cfg(debug_assertions)]
            out.to_data().validate_full().expect("concat produced an invalid array");
            out
        }
    }
}

fn concat_impl<O: OffsetSizeTrait>(datums: &[&dyn Datum], null_fill: NullFill) -> Result<GenericStringArray<O>> {
    if datums.is_empty() {
        return Err(invalid_arg("CONCAT needs at least one argument"));
    }
    let mut arena = Vec::new();
    let args = classify(datums, &mut arena)?;
    let n = args.rows;
    if args.null_scalar {
        return Ok(GenericStringArray::new_null(n));
    }
    let nulls = NullBuffer::union_many(args.pieces.iter().map(|p| p.nulls));
    let mut total = 0usize;
    for p in &args.pieces {
        total = total.saturating_add(p.src.total(n));
    }
    // With NULL rows, `total` is an upper bound of what is written; only the
    // written size must fit the offsets.
    let capacity =
        if nulls.is_some() && total > O::MAX_OFFSET { exact_total(&args.pieces, n, nulls.as_ref()) } else { total };
    check_total::<O>(capacity)?;

    let mut out = Out::<O>::new(n, capacity, nulls.is_none());
    let base = out.values.as_mut_ptr();
    let offs = out.offsets.as_mut_ptr();
    let mut scalar_offsets = Vec::with_capacity(args.pieces.len());
    let fill = nulls.as_ref().map(|nb| (nb, null_fill.resolve(capacity == total, n, total)));
    // SAFETY: `offs` has room for `n + 1 + OFFSETS_SLACK` offsets; every array source has `n`
    // rows; the values buffer holds `capacity + SLACK` bytes and `capacity`
    // bounds the bytes of the rows written (all rows, or the valid ones);
    // `resolve` picks `BranchFree` only when `capacity` is all rows' total.
    let pos = unsafe {
        match flatten(&args.pieces, &mut scalar_offsets) {
            // Columns only (no scalar): one register fewer per argument,
            // which keeps the three- and four-argument loops out of spills.
            Some(flat) if flat.iter().all(|f| f.stride == 1) => {
                let cols: Vec<Col> = flat
                    .iter()
                    .map(|f| Col { offsets: f.offsets, values: f.values, values_len: f.values_len })
                    .collect();
                dispatch_concat(&cols, n, fill, base, offs)
            }
            Some(flat) => dispatch_concat(&flat, n, fill, base, offs),
            None => {
                let srcs: Vec<Src<'_>> = args.pieces.iter().map(|p| p.src).collect();
                dispatch_concat(&srcs, n, fill, base, offs)
            }
        }
    };
    debug_assert!(pos <= capacity);
    // SAFETY: the fill wrote `n + 1` offsets ending at `pos` and `pos` bytes.
    Ok(unsafe { out.finish(n, pos, nulls) })
}

/// Bytes of the non-NULL CONCAT rows (only needed near the offset limit).
fn exact_total(pieces: &[Piece<'_>], n: usize, nulls: Option<&NullBuffer>) -> usize {
    let mut total = 0usize;
    for i in 0..n {
        if nulls.is_none_or(|nb| nb.is_valid(i)) {
            for p in pieces {
                // SAFETY: `i < n`, the row count of every array source.
                total = total.saturating_add(unsafe { p.src.row(i) }.1);
            }
        }
    }
    total
}

fn concat_ws_impl<O: OffsetSizeTrait>(sep: &dyn Datum, datums: &[&dyn Datum]) -> Result<GenericStringArray<O>> {
    let mut sep_arena = Vec::new();
    let sep_args = classify(&[sep], &mut sep_arena)?;
    let mut arena = Vec::new();
    let args = classify(datums, &mut arena)?;
    let sep_is_array = !sep.get().1;
    // Row count: the separator's if it is an array, the arguments' otherwise.
    let n = match (sep_is_array, datums.iter().any(|d| !d.get().1)) {
        (true, true) if sep_args.rows != args.rows => {
            return Err(invalid_arg(format!("separator has {} rows, the arguments {}", sep_args.rows, args.rows)))
        }
        (true, _) => sep_args.rows,
        (false, _) => args.rows,
    };
    let Some(sep_piece) = sep_args.pieces.first() else {
        // NULL scalar separator: every row NULL.
        return Ok(GenericStringArray::new_null(n));
    };
    let nulls = sep_piece.nulls.cloned();
    let pieces = &args.pieces[..];
    let k = pieces.len();

    // Upper bound: every argument plus `k - 1` separators on every row.
    let mut total = sep_piece.src.total(n).saturating_mul(k.saturating_sub(1));
    for p in pieces {
        total = total.saturating_add(p.src.total(n));
    }
    let any_arg_nulls = pieces.iter().any(|p| p.nulls.is_some());
    let capacity = if (nulls.is_some() || any_arg_nulls) && total > O::MAX_OFFSET {
        exact_total_ws(&sep_piece.src, pieces, n, nulls.as_ref())
    } else {
        total
    };
    check_total::<O>(capacity)?;

    let all_fit = capacity == total;
    let mut out = Out::<O>::new(n, capacity, nulls.is_none() && !any_arg_nulls);
    let base = out.values.as_mut_ptr();
    let offs = out.offsets.as_mut_ptr();
    let arg_nulls: Vec<Option<&NullBuffer>> = pieces.iter().map(|p| p.nulls).collect();
    let mut all = Vec::with_capacity(pieces.len() + 1);
    all.push(Piece { src: sep_piece.src, nulls: None });
    all.extend(pieces.iter().map(|p| Piece { src: p.src, nulls: p.nulls }));
    let mut scalar_offsets = Vec::with_capacity(all.len());
    // SAFETY: as in `concat_impl`; `capacity` counts the non-NULL arguments
    // and the separators between them on every written row, and with
    // `all_fit` every argument and `k - 1` separators on every row.
    let pos = unsafe {
        match flatten(&all, &mut scalar_offsets) {
            Some(flat) => dispatch_concat_ws(&flat, &arg_nulls, any_arg_nulls, all_fit, n, nulls.as_ref(), base, offs),
            None => {
                let srcs: Vec<Src<'_>> = all.iter().map(|p| p.src).collect();
                dispatch_concat_ws(&srcs, &arg_nulls, any_arg_nulls, all_fit, n, nulls.as_ref(), base, offs)
            }
        }
    };
    debug_assert!(pos <= capacity);
    // SAFETY: the fill wrote `n + 1` offsets ending at `pos` and `pos` bytes.
    Ok(unsafe { out.finish(n, pos, nulls) })
}

/// Bytes of the CONCAT_WS output (only needed near the offset limit).
fn exact_total_ws(sep: &Src<'_>, pieces: &[Piece<'_>], n: usize, nulls: Option<&NullBuffer>) -> usize {
    let mut total = 0usize;
    for i in 0..n {
        if nulls.is_none_or(|nb| nb.is_valid(i)) {
            let mut count = 0usize;
            for p in pieces {
                if p.nulls.is_none_or(|nb| nb.is_valid(i)) {
                    // SAFETY: `i < n`, the row count of every array source.
                    total = total.saturating_add(unsafe { p.src.row(i) }.1);
                    count += 1;
                }
            }
            // SAFETY: as above.
            let slen = unsafe { sep.row(i) }.1;
            total = total.saturating_add(slen.saturating_mul(count.saturating_sub(1)));
        }
    }
    total
}

/// The check every kernel here applies to its output size before allocating:
/// `total` value bytes against the `Utf8` (or, with `large`, `LargeUtf8`)
/// offset limit.
///
/// # Errors
///
/// [`Error::OffsetOverflow`] naming `total` and the limit.
#[cfg(feature = "public_imp")]
pub fn check_capacity(total: usize, large: bool) -> Result<()> {
    if large {
        check_total::<i64>(total)
    } else {
        check_total::<i32>(total)
    }
}

/// [`concat`](fn@concat) and [`concat_large`] with the NULL-row strategy forced, for
/// tests, benches and fuzzing. Not part of the stable API.
#[cfg(feature = "public_imp")]
pub mod forced {
    use arrow_array::{Datum, LargeStringArray, StringArray};

    use super::{concat_impl, NullFill};
    use crate::error::Result;

    /// [`concat`](super::concat) filling NULL rows with `fill`.
    pub fn concat(args: &[&dyn Datum], fill: NullFill) -> Result<StringArray> {
        concat_impl::<i32>(args, fill)
    }

    /// [`concat_large`](super::concat_large) filling NULL rows with `fill`.
    pub fn concat_large(args: &[&dyn Datum], fill: NullFill) -> Result<LargeStringArray> {
        concat_impl::<i64>(args, fill)
    }
}
