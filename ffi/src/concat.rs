//! `sluice_concat`, `sluice_concat_ws` over `sluice_kernels::concat`.
//!
//! Flink semantics (`BinaryStringDataUtil.concat` / `concatWs`): CONCAT is
//! NULL if any argument is; CONCAT_WS is NULL only for a NULL separator and
//! skips NULL arguments with their separator. Both work on bytes. Output:
//! `Utf8`, `flink.type` `VARCHAR(2147483647)` (Flink's `STRING`).

use std::ptr;

use arrow_array::ffi::{FFI_ArrowArray, FFI_ArrowSchema};
use arrow_array::Array;

use crate::args::{broadcast, Arg};
use crate::arrow_c::{import_copied_strings, read_field, take_array, OutSlot};
use crate::error::{FfiError, FfiResult};
use crate::flink_type::{is_nullable, output_field, string_input_type, STRING};
use crate::kernels;

/// Takes `n` input arrays from `ins` and imports them with their schemas.
/// Every non-NULL array is taken (and so released once) even when another
/// one, or a schema, is bad.
///
/// # Safety
/// `ins` / `schemas` are NULL or point to `n` pointers each, per the header.
unsafe fn take_string_args(
    n: i32,
    ins: *mut *mut FFI_ArrowArray,
    schemas: *mut *const FFI_ArrowSchema,
) -> FfiResult<Vec<Arg>> {
    if n < 0 {
        return Err(FfiError::invalid(format!("n is negative ({n})")));
    }
    let n = n as usize;
    if n > 0 {
        check_not_null!(ins, "ins");
    }
    let mut taken = Vec::with_capacity(n);
    let mut first_err = None;
    for i in 0..n {
        // SAFETY: `ins` holds `n` pointers per the caller's contract.
        let p = unsafe { ptr::read_unaligned(ins.add(i)) };
        // SAFETY: forwarded contract.
        match unsafe { take_array(p, &format!("ins[{i}]")) } {
            Ok(a) => taken.push(a),
            Err(e) => {
                first_err.get_or_insert(e);
            }
        }
    }
    if let Some(e) = first_err {
        return Err(e);
    }
    if n > 0 {
        check_not_null!(schemas, "in_schemas");
    }
    let mut args = Vec::with_capacity(n);
    for (i, array) in taken.into_iter().enumerate() {
        // SAFETY: `schemas` holds `n` pointers per the caller's contract.
        let s = unsafe { ptr::read_unaligned(schemas.add(i)) };
        // SAFETY: forwarded contract.
        let field = unsafe { read_field(s, &format!("in_schemas[{i}]")) }?;
        let what = format!("ins[{i}]");
        let dt = string_input_type(&field, &what, false)?;
        // SAFETY: forwarded contract.
        let values = unsafe { import_copied_strings(array, field.data_type(), &dt, &what) }?;
        args.push(Arg::array(values, field));
    }
    Ok(args)
}

/// `CONCAT(ins[0], …, ins[n-1])`.
///
/// Each input: `Utf8`, `LargeUtf8` or `Utf8View` (or binary with a
/// character-string `flink.type`), length 1 (a scalar) or N; all moved in.
///
/// # Safety
/// Pointers are NULL or valid, per the header.
#[no_mangle]
pub unsafe extern "C" fn sluice_concat(
    n: i32,
    ins: *mut *mut FFI_ArrowArray,
    in_schemas: *mut *const FFI_ArrowSchema,
    out: *mut FFI_ArrowArray,
    out_schema: *mut FFI_ArrowSchema,
) -> i32 {
    // SAFETY: the caller's contract, checked as far as possible inside.
    ffi_boundary!("sluice_concat", unsafe {
        let mut args = take_string_args(n, ins, in_schemas)?;
        let slot = OutSlot::new(out, out_schema)?;
        if args.is_empty() {
            return Err(FfiError::invalid("CONCAT needs at least one argument (n = 0)"));
        }
        let mut refs: Vec<&mut Arg> = args.iter_mut().collect();
        broadcast("CONCAT", &mut refs)?;
        let refs: Vec<&Arg> = args.iter().collect();
        let result = kernels::concat(&refs)?;
        let nullable = args.iter().any(|a| is_nullable(&a.field)) || result.null_count() > 0;
        let field = output_field("concat", result.data_type().clone(), STRING, nullable);
        let inputs: Vec<&dyn Array> = args.iter().map(|a| a.array.as_ref()).collect();
        slot.write(result.as_ref(), &field, &inputs)
    })
}

/// `CONCAT_WS(sep, ins[0], …, ins[n-1])`; `n` may be 0 (the result is
/// `''`, or NULL where `sep` is NULL).
///
/// # Safety
/// Pointers are NULL or valid, per the header.
#[no_mangle]
pub unsafe extern "C" fn sluice_concat_ws(
    sep: *mut FFI_ArrowArray,
    sep_schema: *const FFI_ArrowSchema,
    n: i32,
    ins: *mut *mut FFI_ArrowArray,
    in_schemas: *mut *const FFI_ArrowSchema,
    out: *mut FFI_ArrowArray,
    out_schema: *mut FFI_ArrowSchema,
) -> i32 {
    // SAFETY: the caller's contract, checked as far as possible inside.
    ffi_boundary!("sluice_concat_ws", unsafe {
        // Take every array before reporting any error.
        let sep_taken = take_array(sep, "sep");
        let args = take_string_args(n, ins, in_schemas);
        let sep_array = sep_taken?;
        let mut args = args?;
        let sep_field = read_field(sep_schema, "sep_schema")?;
        let dt = string_input_type(&sep_field, "sep", false)?;
        let mut sep = Arg::array(import_copied_strings(sep_array, sep_field.data_type(), &dt, "sep")?, sep_field);
        let slot = OutSlot::new(out, out_schema)?;
        let mut refs: Vec<&mut Arg> = std::iter::once(&mut sep).chain(args.iter_mut()).collect();
        broadcast("CONCAT_WS", &mut refs)?;
        let refs: Vec<&Arg> = args.iter().collect();
        let result = kernels::concat_ws(&sep, &refs)?;
        // Flink types CONCAT_WS with `TO_NULLABLE`: nullable iff any operand is.
        let nullable = is_nullable(&sep.field) || args.iter().any(|a| is_nullable(&a.field)) || result.null_count() > 0;
        let field = output_field("concat_ws", result.data_type().clone(), STRING, nullable);
        let inputs: Vec<&dyn Array> = args.iter().map(|a| a.array.as_ref()).collect();
        slot.write(result.as_ref(), &field, &inputs)
    })
}
