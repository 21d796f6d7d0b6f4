//! `sluice_md5`, `sluice_sha1`, `sluice_sha2` over `sluice_kernels::digest`.
//!
//! Output: `Utf8`, lowercase hex, typed by the engine's function table
//! (`sluice_engine::function`), nullable iff an input is.

use arrow_array::ffi::{FFI_ArrowArray, FFI_ArrowSchema};
use arrow_array::Array;
use sluice_engine::function::{self, Func};

use crate::capi::args::{datums, take_args, write_output, Kind, Spec};
use crate::capi::arrow_c::OutSlot;
use crate::capi::error::{FfiError, FfiResult};

/// A digest of `in` and, for SHA2, its `widths`: imports both, checks the
/// widths' length (1 or the input's), calls `func`, exports the result.
///
/// # Safety
/// As the entry points.
unsafe fn digest(
    func: Func,
    specs: &[Spec],
    out: *mut FFI_ArrowArray,
    out_schema: *mut FFI_ArrowSchema,
) -> FfiResult<()> {
    // SAFETY: forwarded contract.
    let mut args: Vec<_> = unsafe { take_args(specs) }?.into_iter().flatten().collect();
    let slot = OutSlot::new(out, out_schema)?;
    if let [input, width] = args.as_mut_slice() {
        if width.array.len() != 1 && width.array.len() != input.array.len() {
            return Err(FfiError::invalid(format!(
                "widths has {} rows; it must have 1 (one width for all rows) or as many as in ({})",
                width.array.len(),
                input.array.len()
            )));
        }
        width.scalar = width.array.len() == 1;
    }
    let result = function::call(func, &datums(&args), None)?;
    // SAFETY: forwarded contract.
    unsafe { write_output(slot, func, &result, &args.iter().collect::<Vec<_>>()) }
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
        digest(Func::Md5, &[Spec::new(r#in, in_schema, "in", Kind::StringOrBinary)], out, out_schema)
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
        digest(Func::Sha1, &[Spec::new(r#in, in_schema, "in", Kind::StringOrBinary)], out, out_schema)
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
    let specs = [
        Spec::new(r#in, in_schema, "in", Kind::StringOrBinary),
        Spec::new(widths, widths_schema, "widths", Kind::IntOrNull),
    ];
    // SAFETY: the caller's contract, checked as far as possible inside.
    ffi_boundary!("sluice_sha2", unsafe { digest(Func::Sha2, &specs, out, out_schema) })
}
