//! `sluice_md5`, `sluice_sha1`, `sluice_sha2` over `sluice_kernels::digest`.
//!
//! Output: `Utf8`, lowercase hex, `flink.type` `CHAR(32)` (MD5), `CHAR(40)`
//! (SHA1) or `VARCHAR(128)` (SHA2) as in Flink's `FlinkSqlOperatorTable`,
//! nullable iff an input is.

use arrow_array::ffi::{FFI_ArrowArray, FFI_ArrowSchema};
use arrow_array::{Array, ArrayRef};
use arrow_schema::DataType;

use crate::args::Arg;
use crate::arrow_c::{import, import_bytes, read_field, take_array, OutSlot};
use crate::error::{FfiError, FfiResult};
use crate::flink_type::{int_input_type, is_nullable, output_field, string_input_type};
use crate::kernels;

/// Imports the string argument `in` (taking ownership first) as bytes: a
/// digest reads bytes and writes hex, so its input's UTF-8 is not checked
/// (see `crate::validate`).
///
/// # Safety
/// C Data Interface pointers as documented on the entry points.
pub(crate) unsafe fn string_arg(
    array: *mut FFI_ArrowArray,
    schema: *const FFI_ArrowSchema,
    what: &str,
    schema_what: &str,
    allow_binary: bool,
) -> FfiResult<Arg> {
    // SAFETY: forwarded contract; the array is owned from here on.
    let array = unsafe { take_array(array, what) }?;
    // SAFETY: forwarded contract.
    let field = unsafe { read_field(schema, schema_what) }?;
    let dt = string_input_type(&field, what, allow_binary)?;
    // SAFETY: forwarded contract.
    let values = unsafe { import_bytes(array, &dt, what) }?;
    Ok(Arg::array(values, field))
}

/// # Safety
/// As the entry points.
unsafe fn unary_digest(
    name: &str,
    flink_type: &str,
    kernel: fn(&Arg) -> FfiResult<ArrayRef>,
    input: *mut FFI_ArrowArray,
    in_schema: *const FFI_ArrowSchema,
    out: *mut FFI_ArrowArray,
    out_schema: *mut FFI_ArrowSchema,
) -> FfiResult<()> {
    // SAFETY: forwarded contract.
    let arg = unsafe { string_arg(input, in_schema, "in", "in_schema", true) }?;
    let slot = OutSlot::new(out, out_schema)?;
    let result = kernel(&arg)?;
    let nullable = is_nullable(&arg.field) || result.null_count() > 0;
    let field = output_field(name, result.data_type().clone(), flink_type, nullable);
    // SAFETY: forwarded contract.
    unsafe { slot.write(result.as_ref(), &field, &[arg.array.as_ref()]) }
}

/// `MD5(in)`: lowercase hex of the MD5 of each value's bytes; NULL → NULL.
///
/// `in`: `Utf8`, `LargeUtf8`, `Utf8View` (or a binary layout), moved in.
/// Output: `Utf8`, `flink.type` `CHAR(32)`.
///
/// # Safety
/// Pointers are NULL or valid C Data Interface structs (see the header).
#[no_mangle]
pub unsafe extern "C" fn sluice_md5(
    r#in: *mut FFI_ArrowArray,
    in_schema: *const FFI_ArrowSchema,
    out: *mut FFI_ArrowArray,
    out_schema: *mut FFI_ArrowSchema,
) -> i32 {
    // SAFETY: the caller's contract, checked as far as possible inside.
    ffi_boundary!("sluice_md5", unsafe {
        unary_digest("md5", "CHAR(32)", kernels::md5, r#in, in_schema, out, out_schema)
    })
}

/// `SHA1(in)`; as [`sluice_md5`] with `flink.type` `CHAR(40)`.
///
/// # Safety
/// As [`sluice_md5`].
#[no_mangle]
pub unsafe extern "C" fn sluice_sha1(
    r#in: *mut FFI_ArrowArray,
    in_schema: *const FFI_ArrowSchema,
    out: *mut FFI_ArrowArray,
    out_schema: *mut FFI_ArrowSchema,
) -> i32 {
    // SAFETY: the caller's contract, checked as far as possible inside.
    ffi_boundary!("sluice_sha1", unsafe {
        unary_digest("sha1", "CHAR(40)", kernels::sha1, r#in, in_schema, out, out_schema)
    })
}

/// `SHA2(in, width)` with Flink's width rules.
///
/// `widths`: `Int32` (or `Null`), moved in; length 1 behaves as Flink's
/// literal width (an invalid one fails the call, even with no rows), the
/// input's length as Flink's width column (an invalid width fails only
/// when it meets a non-NULL input; width 1 gives SHA-1). Output: `Utf8`,
/// `flink.type` `VARCHAR(128)`.
///
/// # Safety
/// As [`sluice_md5`].
#[no_mangle]
pub unsafe extern "C" fn sluice_sha2(
    r#in: *mut FFI_ArrowArray,
    in_schema: *const FFI_ArrowSchema,
    widths: *mut FFI_ArrowArray,
    widths_schema: *const FFI_ArrowSchema,
    out: *mut FFI_ArrowArray,
    out_schema: *mut FFI_ArrowSchema,
) -> i32 {
    // SAFETY: the caller's contract, checked as far as possible inside.
    ffi_boundary!("sluice_sha2", unsafe { sha2(r#in, in_schema, widths, widths_schema, out, out_schema) })
}

/// # Safety
/// As [`sluice_sha2`].
unsafe fn sha2(
    input: *mut FFI_ArrowArray,
    in_schema: *const FFI_ArrowSchema,
    widths: *mut FFI_ArrowArray,
    widths_schema: *const FFI_ArrowSchema,
    out: *mut FFI_ArrowArray,
    out_schema: *mut FFI_ArrowSchema,
) -> FfiResult<()> {
    // Take both arrays before anything can fail, so both are released once.
    // SAFETY: forwarded contract.
    let in_taken = unsafe { take_array(input, "in") };
    // SAFETY: forwarded contract.
    let widths_taken = unsafe { take_array(widths, "widths") };
    let (in_array, widths_array) = (in_taken?, widths_taken?);

    // SAFETY: forwarded contract.
    let in_field = unsafe { read_field(in_schema, "in_schema") }?;
    // SAFETY: forwarded contract.
    let w_field = unsafe { read_field(widths_schema, "widths_schema") }?;
    let slot = OutSlot::new(out, out_schema)?;

    let in_dt = string_input_type(&in_field, "in", true)?;
    let w_dt = match w_field.data_type() {
        DataType::Null => DataType::Null,
        _ => int_input_type(&w_field, "widths")?,
    };
    // SAFETY: forwarded contract.
    let values = unsafe { import_bytes(in_array, &in_dt, "in") }?;
    // SAFETY: forwarded contract.
    let w = unsafe { import(widths_array, &w_dt, "widths") }?;
    if w.len() != 1 && w.len() != values.len() {
        return Err(FfiError::invalid(format!(
            "widths has {} rows; it must have 1 (one width for all rows) or as many as in ({})",
            w.len(),
            values.len()
        )));
    }
    let input = Arg::array(values, in_field);
    let width = Arg { scalar: w.len() == 1, array: w, field: w_field };
    let result = kernels::sha2(&input, &width)?;
    let nullable = is_nullable(&input.field) || is_nullable(&width.field) || result.null_count() > 0;
    let field = output_field("sha2", result.data_type().clone(), "VARCHAR(128)", nullable);
    // SAFETY: forwarded contract.
    unsafe { slot.write(result.as_ref(), &field, &[input.array.as_ref(), width.array.as_ref()]) }
}
