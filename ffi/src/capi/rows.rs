//! `sluice_rows_to_arrow` / `sluice_arrow_to_rows`: Flink `BinaryRowData`
//! rows ⇄ an Arrow struct array, through `sluice-transpose`.
//!
//! Rows travel back to back in one byte buffer with `n_rows + 1` offsets;
//! RowKind is one byte per row (Flink's `RowKind#toByteValue`: +I 0, -U 1,
//! +U 2, -D 3).

use std::collections::HashMap;
use std::slice;
use std::sync::Arc;

use arrow_array::ffi::{FFI_ArrowArray, FFI_ArrowSchema};
use arrow_array::{Array, ArrayRef, RecordBatch, RecordBatchOptions, StructArray};
use arrow_schema::{DataType, Field, Schema};
use sluice_engine::flink_type::FLINK_TYPE;
use sluice_transpose::{FlinkType, NullLayout, RowConverter, RowKind, Rows};

use crate::capi::args::read_offsets;
use crate::capi::arrow_c::{import_copied_rows, read_field, take_array, OutSlot};
use crate::capi::buffer::sluice_buffer;
use crate::capi::error::{FfiError, FfiResult};

/// Largest valid RowKind byte (`-D`).
const MAX_ROW_KIND: i8 = 3;

/// Checks that `field` is a struct (the row's fields).
pub(crate) fn require_struct(field: &Field, what: &str) -> FfiResult<()> {
    match field.data_type() {
        DataType::Struct(_) => Ok(()),
        other => {
            Err(FfiError::unsupported_type(format!("{what} must describe a struct (the row's fields), got {other}")))
        }
    }
}

/// The row converter for a struct `schema` (a walk over the fields: the
/// one-shot entry points build one per call, a `sluice_row_converter`
/// handle once).
pub(crate) fn converter(schema: &Field) -> FfiResult<RowConverter> {
    let DataType::Struct(fields) = schema.data_type() else {
        return Err(FfiError::unsupported_type(format!("schema must describe a struct, got {}", schema.data_type())));
    };
    Ok(RowConverter::new(Arc::new(Schema::new(fields.clone())))?)
}

/// The struct field of the batches `conv` decodes: every child carries
/// `flink.type`, the struct itself `ROW<...> NOT NULL`.
pub(crate) fn row_field(conv: &RowConverter) -> FfiResult<Field> {
    let fields = conv.schema().fields().clone();
    let row_type = FlinkType::from_arrow_field(&Field::new("row", DataType::Struct(fields.clone()), false))?;
    Ok(Field::new("row", DataType::Struct(fields), false)
        .with_metadata(HashMap::from([(FLINK_TYPE.to_string(), row_type.to_string())])))
}

/// The struct array `batch` as a `RecordBatch` (it must have no NULL rows).
pub(crate) fn record_batch(batch: &ArrayRef) -> FfiResult<RecordBatch> {
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

/// Decodes `n_rows` Flink `BinaryRowData` rows into a struct array.
///
/// `schema` (borrowed) is a struct schema naming the row's fields, with
/// `flink.type` on fields where the Arrow type alone is ambiguous (the
/// mapping of the transpose crate). `out_row_kinds` receives `n_rows`
/// RowKind bytes.
///
/// # Safety
/// `data` holds `offsets[n_rows]` bytes, `offsets` `n_rows + 1` entries,
/// `out_row_kinds` `n_rows` bytes; the rest as in the header.
#[no_mangle]
pub unsafe extern "C" fn sluice_rows_to_arrow(
    data: *const u8,
    offsets: *const i64,
    n_rows: i64,
    schema: *const FFI_ArrowSchema,
    out: *mut FFI_ArrowArray,
    out_schema: *mut FFI_ArrowSchema,
    out_row_kinds: *mut i8,
) -> i32 {
    // SAFETY: the caller's contract, checked as far as possible inside.
    ffi_boundary!("sluice_rows_to_arrow", unsafe {
        let field = read_field(schema, "schema")?;
        require_struct(&field, "schema")?;
        let slot = OutSlot::new(out, out_schema)?;
        let conv = converter(&field)?;
        let out_field = row_field(&conv)?;
        decode_rows(&conv, &out_field, data, offsets, n_rows, slot, out_row_kinds)
    })
}

/// The body of `sluice_rows_to_arrow` once the converter exists.
///
/// # Safety
/// As [`sluice_rows_to_arrow`].
pub(crate) unsafe fn decode_rows(
    conv: &RowConverter,
    out_field: &Field,
    data: *const u8,
    offsets: *const i64,
    n_rows: i64,
    slot: OutSlot,
    out_row_kinds: *mut i8,
) -> FfiResult<()> {
    // SAFETY: forwarded contract.
    let offs = unsafe { read_offsets(offsets, n_rows) }?;
    let n = offs.len() - 1;
    if n > 0 {
        check_not_null!(out_row_kinds, "out_row_kinds");
    }
    let total = usize::try_from(offs[n]).map_err(|_| FfiError::invalid("offsets[n_rows] does not fit usize"))?;
    let bytes: &[u8] = if total == 0 {
        &[]
    } else {
        check_not_null!(data, "data");
        // SAFETY: non-NULL, `offsets[n_rows]` readable bytes per the contract.
        unsafe { slice::from_raw_parts(data, total) }
    };
    // SAFETY: non-NULL when n > 0, `n` writable bytes per the contract.
    let kinds: &mut [i8] = if n == 0 { &mut [] } else { unsafe { slice::from_raw_parts_mut(out_row_kinds, n) } };
    let mut rk = vec![RowKind::Insert; kinds.len()];
    let batch = conv.rows_to_batch_into(bytes, offs, &mut rk)?;
    for (k, r) in kinds.iter_mut().zip(&rk) {
        *k = r.to_byte() as i8;
    }
    let array = StructArray::try_new(batch.schema().fields().clone(), batch.columns().to_vec(), None)?;
    // SAFETY: forwarded contract.
    unsafe { slot.write(&array, out_field, &[]) }
}

/// Encodes a struct array into Flink `BinaryRowData` rows.
///
/// `batch` is moved in; `row_kinds` is NULL (all `+I`) or `n_rows` RowKind
/// bytes; `out_data` receives the rows back to back, `out_offsets`
/// `n_rows + 1` `int64_t` offsets. Free both with `sluice_buffer_free`. On
/// error neither is written.
///
/// # Safety
/// As in the header.
#[no_mangle]
pub unsafe extern "C" fn sluice_arrow_to_rows(
    batch: *mut FFI_ArrowArray,
    schema: *const FFI_ArrowSchema,
    row_kinds: *const i8,
    out_data: *mut sluice_buffer,
    out_offsets: *mut sluice_buffer,
) -> i32 {
    // SAFETY: the caller's contract, checked as far as possible inside.
    ffi_boundary!("sluice_arrow_to_rows", unsafe {
        let array = take_array(batch, "batch")?;
        let field = read_field(schema, "schema")?;
        require_struct(&field, "schema")?;
        check_not_null!(out_data, "out_data");
        check_not_null!(out_offsets, "out_offsets");
        let conv = converter(&field)?;
        encode_rows(&conv, array, &field, row_kinds, out_data, out_offsets, &mut Rows::default())
    })
}

/// The body of `sluice_arrow_to_rows` once the batch is taken, the outputs
/// checked non-NULL and the converter built; `rows` is scratch space.
///
/// # Safety
/// As [`sluice_arrow_to_rows`].
pub(crate) unsafe fn encode_rows(
    conv: &RowConverter,
    array: FFI_ArrowArray,
    field: &Field,
    row_kinds: *const i8,
    out_data: *mut sluice_buffer,
    out_offsets: *mut sluice_buffer,
    rows: &mut Rows,
) -> FfiResult<()> {
    // The batch's strings are copied whole into the rows: not re-checked
    // (see `capi::validate`).
    // SAFETY: forwarded contract.
    let values = unsafe { import_copied_rows(array, field.data_type(), "batch") }?;
    let n = values.len();
    let kinds: Option<&[i8]> = if row_kinds.is_null() || n == 0 {
        None
    } else {
        // SAFETY: non-NULL, `n` readable bytes per the contract.
        Some(unsafe { slice::from_raw_parts(row_kinds, n) })
    };
    if let Some((i, k)) = kinds.and_then(|k| k.iter().enumerate().find(|(_, k)| !(0..=MAX_ROW_KIND).contains(*k))) {
        return Err(FfiError::invalid(format!(
            "row_kinds[{i}] = {k} is not a Flink RowKind byte (0 +I, 1 -U, 2 +U, 3 -D)"
        )));
    }
    let rb = record_batch(&values)?;
    // Checked just above: every byte is 0..=3.
    let kinds: Option<Vec<RowKind>> =
        kinds.map(|k| k.iter().map(|b| RowKind::from_byte(*b as u8).unwrap_or_default()).collect());
    conv.batch_to_rows_into(&rb, kinds.as_deref(), NullLayout::Serializer, rows)?;
    // Handed over, not copied (`capi::buffer`): the next call on a handle
    // encodes into fresh vectors, which mimalloc serves from the blocks the
    // caller freed.
    let data = sluice_buffer::take_bytes(&mut rows.data)?;
    let offsets = sluice_buffer::from_i64_vec(std::mem::take(&mut rows.offsets));
    // SAFETY: both non-NULL (checked by the callers) and writable.
    unsafe {
        std::ptr::write_unaligned(out_data, data);
        std::ptr::write_unaligned(out_offsets, offsets);
    }
    Ok(())
}
