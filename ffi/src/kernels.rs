//! The one place where the C entry points call into `sluice-kernels`,
//! `sluice-transpose` and `sluice-keyed`. A function whose kernel has not
//! landed in this build returns `SLUICE_ERR_NOT_AVAILABLE` here, so the
//! symbol, its argument checks and its ownership rules exist regardless.

use std::sync::Arc;

use std::collections::HashMap;

use arrow_array::{Array, ArrayRef, Datum, RecordBatch, RecordBatchOptions, StringArray, StructArray};
use arrow_buffer::NullBuffer;
use arrow_schema::{DataType, Field, Schema};
use sluice_kernels::{concat as k_concat, digest, encode, search};
use sluice_transpose::{FlinkType, NullLayout, RowConverter, RowKind, Rows};

use crate::flink_type::FLINK_TYPE;

use crate::args::Arg;
use crate::error::{FfiError, FfiResult};

/// `MD5`.
pub fn md5(input: &Arg) -> FfiResult<ArrayRef> {
    Ok(digest::md5(input)?)
}

/// `SHA1`.
pub fn sha1(input: &Arg) -> FfiResult<ArrayRef> {
    Ok(digest::sha1(input)?)
}

/// `SHA2`.
pub fn sha2(input: &Arg, width: &Arg) -> FfiResult<ArrayRef> {
    Ok(digest::sha2(input, width)?)
}

/// UTF-16 → UTF-8.
pub fn utf16_to_utf8(units: &[u16], offsets: &[i64], nulls: Option<&NullBuffer>) -> FfiResult<StringArray> {
    Ok(encode::utf16_to_utf8(units, offsets, nulls)?)
}

fn datums<'a>(args: &'a [&'a Arg]) -> Vec<&'a dyn Datum> {
    args.iter().map(|a| *a as &dyn Datum).collect()
}

/// `CONCAT`.
pub fn concat(args: &[&Arg]) -> FfiResult<ArrayRef> {
    Ok(Arc::new(k_concat::concat(&datums(args))?))
}

/// `CONCAT_WS`.
pub fn concat_ws(sep: &Arg, args: &[&Arg]) -> FfiResult<ArrayRef> {
    Ok(Arc::new(k_concat::concat_ws(sep, &datums(args))?))
}

/// `POSITION`.
pub fn position(needle: &Arg, haystack: &Arg) -> FfiResult<ArrayRef> {
    Ok(Arc::new(search::position(needle, haystack)?))
}

/// `LOCATE`.
pub fn locate(needle: &Arg, haystack: &Arg, from: Option<&Arg>) -> FfiResult<ArrayRef> {
    Ok(Arc::new(search::locate(needle, haystack, from.map(|f| f as &dyn Datum))?))
}

/// `LIKE`; `escape` is the ESCAPE clause's string, valid or not (an invalid
/// one fails as Flink fails it: `search::like_with_escape`).
pub fn like(s: &Arg, pattern: &Arg, escape: Option<&str>) -> FfiResult<ArrayRef> {
    Ok(Arc::new(search::like_with_escape(s, pattern, escape)?))
}

/// `REPLACE`.
pub fn replace(s: &Arg, search_for: &Arg, replacement: &Arg) -> FfiResult<ArrayRef> {
    Ok(Arc::new(search::replace(s, search_for, replacement)?))
}

/// `SPLIT_INDEX`.
pub fn split_index(s: &Arg, sep: &Arg, index: &Arg) -> FfiResult<ArrayRef> {
    Ok(Arc::new(search::split_index(s, sep, index)?))
}

/// The row converter for a struct `schema` (a walk over the fields: the
/// one-shot entry points build one per call, a `sluice_row_converter`
/// handle once).
pub fn converter(schema: &Field) -> FfiResult<RowConverter> {
    let DataType::Struct(fields) = schema.data_type() else {
        return Err(FfiError::unsupported_type(format!("schema must describe a struct, got {}", schema.data_type())));
    };
    RowConverter::new(Arc::new(Schema::new(fields.clone()))).map_err(FfiError::from)
}

/// The struct field of the batches `conv` decodes: every child carries
/// `flink.type`, the struct itself `ROW<...> NOT NULL`.
pub fn row_field(conv: &RowConverter) -> FfiResult<Field> {
    let fields = conv.schema().fields().clone();
    let row_type = FlinkType::from_arrow_field(&Field::new("row", DataType::Struct(fields.clone()), false))?;
    Ok(Field::new("row", DataType::Struct(fields), false)
        .with_metadata(HashMap::from([(FLINK_TYPE.to_string(), row_type.to_string())])))
}

/// Rows → struct array (+ RowKind bytes written into `kinds`); the
/// output's field is [`row_field`].
pub fn rows_to_arrow_with(conv: &RowConverter, data: &[u8], offsets: &[i64], kinds: &mut [i8]) -> FfiResult<ArrayRef> {
    let mut rk = vec![RowKind::Insert; kinds.len()];
    let batch = conv.rows_to_batch_into(data, offsets, &mut rk)?;
    for (k, r) in kinds.iter_mut().zip(&rk) {
        *k = r.to_byte() as i8;
    }
    let fields = batch.schema().fields().clone();
    Ok(Arc::new(StructArray::try_new(fields, batch.columns().to_vec(), None)?))
}

/// The struct array `batch` as a `RecordBatch` (it must have no NULL rows).
fn record_batch(batch: &ArrayRef) -> FfiResult<RecordBatch> {
    let Some(s) = batch.as_any().downcast_ref::<StructArray>() else {
        return Err(FfiError::unsupported_type(format!("batch must be a struct array, got {}", batch.data_type())));
    };
    if s.null_count() > 0 {
        return Err(FfiError::invalid(format!(
            "batch has {} NULL rows; a Flink row cannot be NULL (mark NULL fields instead)",
            s.null_count()
        )));
    }
    Ok(RecordBatch::try_new_with_options(
        Arc::new(Schema::new(s.fields().clone())),
        s.columns().to_vec(),
        &RecordBatchOptions::new().with_row_count(Some(s.len())),
    )?)
}

/// Struct array → rows (bytes, `n + 1` offsets) into `rows` (its buffers
/// are reused), with the NULL layout of Flink's
/// `RowDataSerializer.toBinaryRow` (rows on the wire and in state).
pub fn arrow_to_rows_into(
    conv: &RowConverter,
    batch: &ArrayRef,
    kinds: Option<&[i8]>,
    rows: &mut Rows,
) -> FfiResult<()> {
    let rb = record_batch(batch)?;
    // Validated by the caller: every byte is 0..=3.
    let kinds: Option<Vec<RowKind>> =
        kinds.map(|k| k.iter().map(|b| RowKind::from_byte(*b as u8).unwrap_or_default()).collect());
    conv.batch_to_rows_into(&rb, kinds.as_deref(), NullLayout::Serializer, rows)?;
    Ok(())
}

/// Key groups and channels per row (`sluice_keyed::key_groups`: the
/// BinaryRowData key projected from `key_columns`, hashed and assigned as
/// Flink's `KeyGroupRangeAssignment`).
pub fn key_groups(
    batch: &ArrayRef,
    schema: &Field,
    key_columns: &[i32],
    max_parallelism: i32,
    parallelism: i32,
    out_key_groups: &mut [i32],
    out_channels: &mut [i32],
) -> FfiResult<()> {
    let rb = record_batch(batch)?;
    let _ = schema;
    // Checked non-negative and in range by the caller.
    let keys: Vec<usize> = key_columns.iter().map(|k| *k as usize).collect();
    sluice_keyed::key_groups(&rb, &keys, max_parallelism, parallelism, out_key_groups, out_channels)?;
    Ok(())
}
