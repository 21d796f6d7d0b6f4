//! The Calc's column handover: input columns as Java arrays, borrowed.
//!
//! Instead of rows, Java (`io.sluice.jni.ColumnBatch`) hands over each
//! column the program reads as plain arrays filled straight from the rows'
//! segments: for a string column one `byte[]` of values back to back, an
//! `int[]` of `n + 1` offsets and a `byte[]` of NULL flags; for a
//! fixed-width column a primitive array of values and the NULL flags. The
//! JNI layer pins those arrays for the duration of one call and
//! [`CalcProgram::process_columns`] wraps them as Arrow buffers **without
//! copying** ([`Buffer::from_custom_allocation`] with an owner that frees
//! nothing), so each string byte is copied once in all: from the row into
//! the Java values array. Strings are validated as UTF-8 with simdutf8, as
//! the row path does (an invalid value fails the batch with the same
//! `InvalidUtf8` error naming row and field).
//!
//! Every borrowed buffer is dropped before `process_columns` returns; the
//! owner's reference count proves it (a leftover reference is reported as
//! an internal error rather than silently outliving the pin).

use std::ptr::NonNull;
use std::sync::Arc;

use arrow_array::types::{
    Date32Type, Float32Type, Float64Type, Int16Type, Int32Type, Int64Type, Int8Type, TimestampMillisecondType,
};
use arrow_array::{
    make_array, new_null_array, ArrayRef, ArrowPrimitiveType, BinaryArray, BooleanArray, PrimitiveArray, RecordBatch,
    RecordBatchOptions, StringArray,
};
use arrow_buffer::{BooleanBuffer, Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow_data::ArrayData;
use arrow_schema::{DataType, Field, TimeUnit};
use sluice_transpose::{RowKind, Rows};

use crate::calc::CalcProgram;
use crate::error::{Error, Result};

/// Declares [`ColumnKind`] from one row per kind: its code (shared with
/// `io.sluice.jni.ColumnBatch`: keep both in step), the Arrow type it
/// carries, the Java values array (JNI signature) and its element size, so
/// that what a kind is stands in one place.
macro_rules! column_kinds {
    ($($(#[$doc:meta])* $kind:ident = $code:literal: $dt:pat in $java:literal of $size:literal bytes;)*) => {
        /// How a column travels from Java: the codes are shared with
        /// `io.sluice.jni.ColumnBatch` (keep both in step).
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum ColumnKind {
            $($(#[$doc])* $kind = $code,)*
        }

        impl ColumnKind {
            /// The kind carrying an Arrow type, if any.
            pub fn for_type(dt: &DataType) -> Option<Self> {
                match dt {
                    $($dt => Some(ColumnKind::$kind),)*
                    _ => None,
                }
            }

            /// The kind of a code (`kind as i32`), if any.
            pub fn from_code(code: i32) -> Option<Self> {
                [$(ColumnKind::$kind),*].into_iter().find(|k| *k as i32 == code)
            }

            /// Bytes per element of the Java array holding the values.
            pub fn element_size(self) -> usize {
                match self {
                    $(ColumnKind::$kind => $size,)*
                }
            }

            /// The JNI signature of the values array (`[B`, `[I`, ...).
            pub fn java_array(self) -> &'static str {
                match self {
                    $(ColumnKind::$kind => $java,)*
                }
            }
        }
    };
}

column_kinds! {
    /// CHAR / VARCHAR: `byte[]` UTF-8 values + `int[]` offsets.
    Utf8 = 0: DataType::Utf8 in "[B" of 1 bytes;
    /// VARBINARY: `byte[]` values + `int[]` offsets.
    Binary = 1: DataType::Binary in "[B" of 1 bytes;
    /// BOOLEAN: `byte[]`, 0 = false.
    Boolean = 2: DataType::Boolean in "[B" of 1 bytes;
    /// TINYINT: `byte[]`.
    Int8 = 3: DataType::Int8 in "[B" of 1 bytes;
    /// SMALLINT: `short[]`.
    Int16 = 4: DataType::Int16 in "[S" of 2 bytes;
    /// INT: `int[]`.
    Int32 = 5: DataType::Int32 in "[I" of 4 bytes;
    /// BIGINT: `long[]`.
    Int64 = 6: DataType::Int64 in "[J" of 8 bytes;
    /// FLOAT: `float[]`.
    Float32 = 7: DataType::Float32 in "[F" of 4 bytes;
    /// DOUBLE: `double[]`.
    Float64 = 8: DataType::Float64 in "[D" of 8 bytes;
    /// DATE (days since the epoch): `int[]`.
    Date32 = 9: DataType::Date32 in "[I" of 4 bytes;
    /// TIMESTAMP(p) / TIMESTAMP_LTZ(p) with p in 1..=3 (epoch milliseconds,
    /// Flink's compact form): `long[]`.
    TimestampMs = 10: DataType::Timestamp(TimeUnit::Millisecond, None) in "[J" of 8 bytes;
}

/// `ColumnKind` code for a column the program does not read.
pub const NOT_NEEDED: i32 = -1;
/// `ColumnKind` code for a column the column handover cannot carry.
pub const UNSUPPORTED: i32 = -2;

impl ColumnKind {
    /// Whether values come with offsets.
    pub fn has_offsets(self) -> bool {
        matches!(self, ColumnKind::Utf8 | ColumnKind::Binary)
    }
}

/// One input column as Java hands it over, borrowed for one call.
#[derive(Clone, Copy, Debug)]
pub struct ColumnSlices<'a> {
    /// Index of the input field.
    pub field: usize,
    /// How the values are laid out.
    pub kind: ColumnKind,
    /// The values array's bytes (for fixed-width kinds, aligned to the
    /// element size or copied).
    pub values: &'a [u8],
    /// `n + 1` offsets into `values` (string kinds; empty otherwise).
    pub offsets: &'a [i32],
    /// One byte per row, non-zero = NULL.
    pub nulls: &'a [u8],
}

/// The owner of borrowed buffers: frees nothing.
#[derive(Debug)]
struct Borrowed;

/// A buffer over `bytes` that does not own them.
///
/// # Safety
/// The buffer (and every clone or slice of it) must be dropped before
/// `bytes` is released; callers prove it with `owner`'s strong count.
unsafe fn borrow(bytes: &[u8], owner: &Arc<Borrowed>) -> Buffer {
    let ptr = NonNull::from(bytes).cast::<u8>();
    // SAFETY: `ptr` points to `bytes.len()` readable bytes; the caller keeps
    // them alive (pinned) and unmodified while the buffer lives, and the
    // owner never frees them.
    unsafe { Buffer::from_custom_allocation(ptr, bytes.len(), Arc::clone(owner) as _) }
}

/// The validity for the first `n` NULL flags, `None` when none is set.
fn null_buffer(flags: &[u8], n: usize) -> Result<Option<NullBuffer>> {
    let flags = flags.get(..n).ok_or_else(|| Error::invalid(format!("{} NULL flags for {n} rows", flags.len())))?;
    if flags.iter().all(|&f| f == 0) {
        return Ok(None);
    }
    Ok(Some(NullBuffer::new(BooleanBuffer::collect_bool(n, |i| flags.get(i).is_some_and(|&f| f == 0)))))
}

/// A primitive array over the first `n` values, borrowed when aligned.
///
/// # Safety
/// As [`borrow`].
unsafe fn primitive<T: ArrowPrimitiveType>(
    values: &[u8],
    n: usize,
    nulls: Option<NullBuffer>,
    owner: &Arc<Borrowed>,
) -> Result<ArrayRef> {
    let size = std::mem::size_of::<T::Native>();
    let bytes = n
        .checked_mul(size)
        .and_then(|b| values.get(..b))
        .ok_or_else(|| Error::invalid(format!("{} value bytes for {n} rows of {size} bytes", values.len())))?;
    let buffer = if bytes.as_ptr().align_offset(std::mem::align_of::<T::Native>()) == 0 {
        // SAFETY: forwarded to the caller.
        unsafe { borrow(bytes, owner) }
    } else {
        Buffer::from_slice_ref(bytes)
    };
    let values = ScalarBuffer::<T::Native>::new(buffer, 0, n);
    Ok(Arc::new(PrimitiveArray::<T>::try_new(values, nulls)?))
}

/// Checks `offsets` (already cut to `n + 1`) against `len` value bytes.
fn check_offsets(offsets: &[i32], len: usize, field: &str) -> Result<()> {
    let bad = |m: String| Error::invalid(format!("column {field}: {m}"));
    let first = offsets.first().copied().unwrap_or(0);
    if first < 0 {
        return Err(bad(format!("first offset {first} is negative")));
    }
    if let Some(i) = offsets.windows(2).position(|w| w.first() > w.get(1)) {
        return Err(bad(format!("offsets decrease at row {i}")));
    }
    let last = offsets.last().copied().unwrap_or(0) as usize;
    if last > len {
        return Err(bad(format!("last offset {last} lies beyond the {len} value bytes")));
    }
    Ok(())
}

/// Validates the values of a string column as UTF-8, value by value in
/// effect: the whole region at once, plus a char-boundary test at each
/// value start (the row path's chunked check).
fn check_utf8(values: &[u8], offsets: &[i32], field: &str) -> Result<()> {
    let start = offsets.first().copied().unwrap_or(0) as usize;
    let end = offsets.last().copied().unwrap_or(0) as usize;
    // Only the values' bytes: Java's arrays are reused, so what follows
    // `end` is stale data from an earlier batch.
    let values = values.get(..end).unwrap_or(&[]);
    let region = values.get(start..).unwrap_or(&[]);
    let interior = offsets.get(1..offsets.len().saturating_sub(1)).unwrap_or(&[]);
    let ok = simdutf8::basic::from_utf8(region).is_ok()
        && interior.iter().all(|&o| values.get(o as usize).is_none_or(|&b| (b as i8) >= -0x40));
    if ok {
        return Ok(());
    }
    let row = offsets
        .windows(2)
        .position(|w| {
            let (s, e) = (w.first().copied().unwrap_or(0) as usize, w.get(1).copied().unwrap_or(0) as usize);
            values.get(s..e).is_none_or(|b| simdutf8::basic::from_utf8(b).is_err())
        })
        .unwrap_or(0);
    Err(sluice_transpose::Error::InvalidUtf8 { row, field: field.to_string() }.into())
}

/// One column as an Arrow array of `field`'s type over `n` rows.
///
/// # Safety
/// As [`borrow`].
unsafe fn column_array(col: &ColumnSlices<'_>, field: &Field, n: usize, owner: &Arc<Borrowed>) -> Result<ArrayRef> {
    let name = field.name();
    let nulls = null_buffer(col.nulls, n)?;
    if nulls.is_some() && !field.is_nullable() {
        let row = col.nulls.iter().position(|&f| f != 0).unwrap_or(0);
        return Err(sluice_transpose::Error::NullInNonNullable { row, field: name.clone() }.into());
    }
    match col.kind {
        ColumnKind::Utf8 | ColumnKind::Binary => {
            let offsets = col
                .offsets
                .get(..=n)
                .ok_or_else(|| Error::invalid(format!("column {name}: {} offsets for {n} rows", col.offsets.len())))?;
            check_offsets(offsets, col.values.len(), name)?;
            if col.kind == ColumnKind::Utf8 {
                check_utf8(col.values, offsets, name)?;
            }
            // SAFETY: `offsets` is a slice of i32, hence aligned.
            let offs = unsafe { borrow(as_bytes(offsets), owner) };
            // SAFETY: checked above: non-negative, non-decreasing, in bounds.
            let offs = unsafe { OffsetBuffer::new_unchecked(ScalarBuffer::<i32>::new(offs, 0, n + 1)) };
            // SAFETY: as above.
            let values = unsafe { borrow(col.values, owner) };
            if col.kind == ColumnKind::Utf8 {
                // SAFETY: offsets checked; every value checked to be UTF-8.
                Ok(Arc::new(unsafe { StringArray::new_unchecked(offs, values, nulls) }))
            } else {
                Ok(Arc::new(BinaryArray::try_new(offs, values, nulls)?))
            }
        }
        ColumnKind::Boolean => {
            let v = col.values.get(..n).ok_or_else(|| Error::invalid(format!("column {name}: too few values")))?;
            let bits = BooleanBuffer::collect_bool(n, |i| v.get(i).is_some_and(|&b| b != 0));
            Ok(Arc::new(BooleanArray::new(bits, nulls)))
        }
        // SAFETY: forwarded to the caller.
        fixed => unsafe {
            match fixed {
                ColumnKind::Int8 => primitive::<Int8Type>(col.values, n, nulls, owner),
                ColumnKind::Int16 => primitive::<Int16Type>(col.values, n, nulls, owner),
                ColumnKind::Int32 => primitive::<Int32Type>(col.values, n, nulls, owner),
                ColumnKind::Int64 => primitive::<Int64Type>(col.values, n, nulls, owner),
                ColumnKind::Float32 => primitive::<Float32Type>(col.values, n, nulls, owner),
                ColumnKind::Float64 => primitive::<Float64Type>(col.values, n, nulls, owner),
                ColumnKind::TimestampMs => primitive::<TimestampMillisecondType>(col.values, n, nulls, owner),
                _ => primitive::<Date32Type>(col.values, n, nulls, owner),
            }
        },
    }
}

/// `v`'s bytes.
fn as_bytes(v: &[i32]) -> &[u8] {
    // SAFETY: any initialised i32 is 4 initialised bytes; u8 has alignment 1;
    // the lifetime is carried over.
    unsafe { std::slice::from_raw_parts(v.as_ptr().cast::<u8>(), std::mem::size_of_val(v)) }
}

/// The placeholder for a column the program does not read: all NULL when
/// nullable, zeros / empty values otherwise (as the projected row decode);
/// `None` for nested types.
fn placeholder(field: &Field, n: usize) -> Option<ArrayRef> {
    match field.data_type() {
        DataType::Struct(_) | DataType::List(_) | DataType::LargeList(_) | DataType::Map(_, _) => None,
        dt if field.is_nullable() => Some(new_null_array(dt, n)),
        dt => ArrayData::new_null(dt, n).into_builder().nulls(None).build().ok().map(make_array),
    }
}

impl CalcProgram {
    /// Per input field, what the column handover expects: a
    /// [`ColumnKind`] code for a field the program reads and the handover
    /// carries, [`NOT_NEEDED`] for a field it does not read, and
    /// [`UNSUPPORTED`] for a read field of another type (or an unread
    /// nested one): then the caller uses the row path.
    pub fn column_kinds(&self) -> Vec<i32> {
        self.input
            .schema()
            .fields()
            .iter()
            .zip(&self.needed)
            .map(|(f, &needed)| match (needed, ColumnKind::for_type(f.data_type())) {
                (true, Some(k)) => k as i32,
                (true, None) => UNSUPPORTED,
                (false, _) if placeholder(f, 0).is_some() => NOT_NEEDED,
                (false, _) => UNSUPPORTED,
            })
            .collect()
    }

    /// Columns in (one per field the program reads, as [`Self::column_kinds`]
    /// says, borrowed without copying) → projected rows out, with `kinds`
    /// (one RowKind byte per row).
    ///
    /// # Errors
    /// A missing, repeated or mistyped column, malformed offsets, invalid
    /// UTF-8, a NULL in a NOT NULL field, a bad RowKind byte, kernel errors.
    pub fn process_columns(
        &mut self,
        columns: &[ColumnSlices<'_>],
        kinds: &[u8],
        n: usize,
        out: &mut Rows,
    ) -> Result<()> {
        let kinds = kinds.get(..n).ok_or_else(|| Error::invalid(format!("{} row kinds for {n} rows", kinds.len())))?;
        self.kinds.clear();
        for (row, &b) in kinds.iter().enumerate() {
            let k = RowKind::from_byte(b).ok_or_else(|| Error::invalid(format!("row {row}: RowKind byte {b}")))?;
            self.kinds.push(k);
        }
        let schema = std::sync::Arc::clone(self.input.schema());
        let mut arrays: Vec<Option<ArrayRef>> = vec![None; schema.fields().len()];
        let owner = Arc::new(Borrowed);
        let result = (|| -> Result<()> {
            for col in columns {
                let (Some(field), Some(slot)) = (schema.fields().get(col.field), arrays.get_mut(col.field)) else {
                    return Err(Error::invalid(format!("column for field {} of {}", col.field, schema.fields().len())));
                };
                if ColumnKind::for_type(field.data_type()) != Some(col.kind) {
                    return Err(Error::invalid(format!(
                        "field {}: {:?} values for {}",
                        field.name(),
                        col.kind,
                        field.data_type()
                    )));
                }
                if slot.is_some() {
                    return Err(Error::invalid(format!("field {} given twice", field.name())));
                }
                // SAFETY: every array built here lives in `arrays`, `batch`
                // or `projected`, all dropped at the end of this closure;
                // the owner's count is checked below.
                *slot = Some(unsafe { column_array(col, field, n, &owner) }?);
            }
            let mut cols = Vec::with_capacity(arrays.len());
            for ((field, slot), &needed) in schema.fields().iter().zip(arrays.iter_mut()).zip(&self.needed) {
                let a = match slot.take() {
                    Some(a) => a,
                    None if needed => {
                        return Err(Error::invalid(format!("field {} is read but was not given", field.name())))
                    }
                    None => placeholder(field, n).ok_or_else(|| {
                        Error::invalid(format!("field {}: no placeholder for {}", field.name(), field.data_type()))
                    })?,
                };
                cols.push(a);
            }
            let batch = RecordBatch::try_new_with_options(
                Arc::clone(&schema),
                cols,
                &RecordBatchOptions::new().with_row_count(Some(n)),
            )?;
            self.project_into(&batch, &[], out)
        })();
        drop(arrays);
        if Arc::strong_count(&owner) != 1 {
            return Err(Error::invalid("internal error: a borrowed Java array outlived the native call"));
        }
        result
    }
}

#[cfg(test)]
mod tests;
