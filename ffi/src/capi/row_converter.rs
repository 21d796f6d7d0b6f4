//! `sluice_row_converter_*`: a row converter built once from a schema and
//! reused by every `rows_to_arrow` / `arrow_to_rows` call on it.
//!
//! The one-shot `sluice_rows_to_arrow` / `sluice_arrow_to_rows` build a
//! [`RowConverter`] (a walk over the schema's fields, parsing `flink.type`)
//! and the output field on every call; a handle does that once. A handle
//! is used by one thread at a time (it may move between threads).

use arrow_array::ffi::{FFI_ArrowArray, FFI_ArrowSchema};
use arrow_schema::Field;
use sluice_transpose::{RowConverter, Rows};

use crate::capi::arrow_c::{read_field, take_array, OutSlot};
use crate::capi::buffer::sluice_buffer;
use crate::capi::error::FfiResult;
use crate::capi::handle::{give, live};
use crate::capi::rows::{converter, decode_rows, encode_rows, require_struct, row_field};

/// A Flink `BinaryRowData` ⇄ Arrow struct converter for one schema.
/// Opaque: create with [`sluice_row_converter_create`], release with
/// [`sluice_row_converter_free`].
pub struct sluice_row_converter {
    conv: RowConverter,
    /// The schema given at creation (what `arrow_to_rows` imports batches as).
    input: Field,
    /// The field of decoded batches (`flink.type` everywhere).
    output: Field,
    /// Encoder scratch, reused across calls.
    rows: Rows,
}

/// # Safety
/// `c` is NULL or a live handle, used by no other thread during the call.
unsafe fn handle<'a>(c: *mut sluice_row_converter) -> FfiResult<&'a mut sluice_row_converter> {
    // SAFETY: forwarded contract.
    unsafe { live(c, "sluice_row_converter") }
}

/// Builds a converter for `schema` (borrowed): a struct schema naming the
/// row's fields, as for `sluice_rows_to_arrow`. On success `*out` receives
/// the handle; on error it is not written.
///
/// # Safety
/// As in the header.
#[no_mangle]
pub unsafe extern "C" fn sluice_row_converter_create(
    schema: *const FFI_ArrowSchema,
    out: *mut *mut sluice_row_converter,
) -> i32 {
    // SAFETY: the caller's contract, checked as far as possible inside.
    ffi_boundary!("sluice_row_converter_create", unsafe {
        check_not_null!(out, "out");
        let input = read_field(schema, "schema")?;
        require_struct(&input, "schema")?;
        let conv = converter(&input)?;
        let output = row_field(&conv)?;
        give(out, sluice_row_converter { conv, input, output, rows: Rows::default() });
        Ok(())
    })
}

/// Frees a converter. NULL is a no-op.
///
/// # Safety
/// `c` is NULL or a live handle from `sluice_row_converter_create`; it is
/// invalid afterwards.
#[no_mangle]
pub unsafe extern "C" fn sluice_row_converter_free(c: *mut sluice_row_converter) {
    // SAFETY: forwarded contract.
    unsafe { crate::capi::handle::free(c) }
}

/// `sluice_rows_to_arrow` with the converter's schema: decodes `n_rows`
/// rows (`data`, `n_rows + 1` `offsets`) into a struct array, RowKind bytes
/// into `out_row_kinds` (`n_rows` bytes).
///
/// # Safety
/// As `sluice_rows_to_arrow`.
#[no_mangle]
pub unsafe extern "C" fn sluice_row_converter_rows_to_arrow(
    c: *mut sluice_row_converter,
    data: *const u8,
    offsets: *const i64,
    n_rows: i64,
    out: *mut FFI_ArrowArray,
    out_schema: *mut FFI_ArrowSchema,
    out_row_kinds: *mut i8,
) -> i32 {
    // SAFETY: the caller's contract, checked as far as possible inside.
    ffi_boundary!("sluice_row_converter_rows_to_arrow", unsafe {
        let c = handle(c)?;
        let slot = OutSlot::new(out, out_schema)?;
        decode_rows(&c.conv, &c.output, data, offsets, n_rows, slot, out_row_kinds)
    })
}

/// `sluice_arrow_to_rows` with the converter's schema: `batch` (moved in)
/// is a struct array of that schema; `row_kinds` NULL (all `+I`) or one
/// byte per row; `out_data` / `out_offsets` as there.
///
/// # Safety
/// As `sluice_arrow_to_rows`.
#[no_mangle]
pub unsafe extern "C" fn sluice_row_converter_arrow_to_rows(
    c: *mut sluice_row_converter,
    batch: *mut FFI_ArrowArray,
    row_kinds: *const i8,
    out_data: *mut sluice_buffer,
    out_offsets: *mut sluice_buffer,
) -> i32 {
    // SAFETY: the caller's contract, checked as far as possible inside.
    ffi_boundary!("sluice_row_converter_arrow_to_rows", unsafe {
        let array = take_array(batch, "batch")?;
        let c = handle(c)?;
        check_not_null!(out_data, "out_data");
        check_not_null!(out_offsets, "out_offsets");
        encode_rows(&c.conv, array, &c.input, row_kinds, out_data, out_offsets, &mut c.rows)
    })
}
