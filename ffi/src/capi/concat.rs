//! `sluice_concat`, `sluice_concat_ws` over `sluice_kernels::concat`.
//!
//! Flink semantics (`BinaryStringDataUtil.concat` / `concatWs`): CONCAT is
//! NULL if any argument is; CONCAT_WS is NULL only for a NULL separator and
//! skips NULL arguments with their separator. Both work on bytes. Output:
//! `Utf8`, typed by the engine's function table (`sluice_engine::function`).

use arrow_array::ffi::{FFI_ArrowArray, FFI_ArrowSchema};
use sluice_engine::function::{self, Func};

use crate::capi::args::{broadcast, datums, import_arg, take_arg_list, write_output, Arg, Kind, SchemaName};
use crate::capi::arrow_c::{take_array, OutSlot};
use crate::capi::error::FfiError;

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
        let mut args = take_arg_list(n, ins, in_schemas, Kind::CopiedString)?;
        let slot = OutSlot::new(out, out_schema)?;
        if args.is_empty() {
            return Err(FfiError::invalid("CONCAT needs at least one argument (n = 0)"));
        }
        let mut refs: Vec<&mut Arg> = args.iter_mut().collect();
        broadcast("CONCAT", &mut refs)?;
        let result = function::call(Func::Concat, &datums(&args), None)?;
        write_output(slot, Func::Concat, &result, &args.iter().collect::<Vec<_>>())
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
        let args = take_arg_list(n, ins, in_schemas, Kind::CopiedString);
        let sep_array = sep_taken?;
        let args = args?;
        let sep = import_arg(sep_array, sep_schema, "sep", SchemaName::Of("sep"), Kind::CopiedString)?;
        let slot = OutSlot::new(out, out_schema)?;
        let mut all: Vec<Arg> = std::iter::once(sep).chain(args).collect();
        let mut refs: Vec<&mut Arg> = all.iter_mut().collect();
        broadcast("CONCAT_WS", &mut refs)?;
        let result = function::call(Func::ConcatWs, &datums(&all), None)?;
        // Flink types CONCAT_WS with `TO_NULLABLE`: nullable iff any operand is.
        write_output(slot, Func::ConcatWs, &result, &all.iter().collect::<Vec<_>>())
    })
}
