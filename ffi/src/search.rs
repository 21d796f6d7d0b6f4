//! POSITION / LOCATE, LIKE, REPLACE, SPLIT_INDEX over
//! `sluice_kernels::search`, in the style of the other entry points: every
//! argument an Arrow array (length 1 = scalar, or N), moved in; the result
//! moved out.
//!
//! | C function | Flink | output (`flink.type`) |
//! | --- | --- | --- |
//! | `sluice_position(needle, haystack)` | `POSITION(needle IN haystack)` | `Int32` (`INT`) |
//! | `sluice_locate(needle, haystack, from?)` | `LOCATE(needle, haystack[, from])` | `Int32` (`INT`) |
//! | `sluice_like(str, pattern, escape?)` | `str LIKE pattern [ESCAPE escape]` | `Boolean` (`BOOLEAN`) |
//! | `sluice_replace(str, search, replacement)` | `REPLACE(str, search, replacement)` | `Utf8` (`VARCHAR(2147483647)`) |
//! | `sluice_split_index(str, sep, index)` | `SPLIT_INDEX(str, sep, index)`, `sep` a string or an `Int32` character code | `Utf8` (`VARCHAR(2147483647)`, always nullable) |
//!
//! A length-1 `pattern` behaves as Flink's literal pattern (the byte-level
//! quick path where Flink takes it).

use std::ffi::{c_char, CStr};

use arrow_array::ffi::{FFI_ArrowArray, FFI_ArrowSchema};
use arrow_array::{Array, ArrayRef};

use crate::args::{broadcast, take_args, Arg, Kind, Spec};
use crate::arrow_c::OutSlot;
use crate::error::{FfiError, FfiResult};
use crate::flink_type::{is_nullable, output_field, STRING};
use crate::kernels;

/// Output description of one search function.
struct Output {
    name: &'static str,
    flink: &'static str,
    always_nullable: bool,
}

/// # Safety
/// Pointers are NULL or valid, per the header.
unsafe fn run(
    function: &str,
    specs: &[Spec],
    out: *mut FFI_ArrowArray,
    out_schema: *mut FFI_ArrowSchema,
    output: Output,
    kernel: impl FnOnce(&[Option<Arg>]) -> FfiResult<ArrayRef>,
) -> FfiResult<()> {
    // SAFETY: forwarded contract.
    let mut args = unsafe { take_args(specs) }?;
    let slot = OutSlot::new(out, out_schema)?;
    let mut present: Vec<&mut Arg> = args.iter_mut().flatten().collect();
    broadcast(function, &mut present)?;
    let result = kernel(&args)?;
    let nullable =
        output.always_nullable || args.iter().flatten().any(|a| is_nullable(&a.field)) || result.null_count() > 0;
    let field = output_field(output.name, result.data_type().clone(), output.flink, nullable);
    let inputs: Vec<&dyn Array> = args.iter().flatten().map(|a| a.array.as_ref()).collect();
    // SAFETY: forwarded contract.
    unsafe { slot.write(result.as_ref(), &field, &inputs) }
}

fn required(args: &[Option<Arg>], i: usize) -> FfiResult<&Arg> {
    args.get(i).and_then(Option::as_ref).ok_or_else(|| FfiError::invalid(format!("argument {i} is missing")))
}

fn spec(array: *mut FFI_ArrowArray, schema: *const FFI_ArrowSchema, name: &'static str, kind: Kind) -> Spec {
    Spec { array, schema, name, kind, optional: false }
}

/// `POSITION(needle IN haystack)`: 1-based character position of the first
/// occurrence, 0 if absent, 1 for an empty needle; NULL if any is NULL.
///
/// # Safety
/// Pointers are NULL or valid, per the header.
#[no_mangle]
pub unsafe extern "C" fn sluice_position(
    needle: *mut FFI_ArrowArray,
    needle_schema: *const FFI_ArrowSchema,
    haystack: *mut FFI_ArrowArray,
    haystack_schema: *const FFI_ArrowSchema,
    out: *mut FFI_ArrowArray,
    out_schema: *mut FFI_ArrowSchema,
) -> i32 {
    let specs = [
        spec(needle, needle_schema, "needle", Kind::String),
        spec(haystack, haystack_schema, "haystack", Kind::String),
    ];
    let output = Output { name: "position", flink: "INT", always_nullable: false };
    // SAFETY: the caller's contract, checked as far as possible inside.
    ffi_boundary!("sluice_position", unsafe {
        run("POSITION", &specs, out, out_schema, output, |a| kernels::position(required(a, 0)?, required(a, 1)?))
    })
}

/// `LOCATE(needle, haystack[, from])`; `from` (`Int32`) may be NULL for the
/// two-argument form.
///
/// # Safety
/// Pointers are NULL or valid, per the header.
#[no_mangle]
pub unsafe extern "C" fn sluice_locate(
    needle: *mut FFI_ArrowArray,
    needle_schema: *const FFI_ArrowSchema,
    haystack: *mut FFI_ArrowArray,
    haystack_schema: *const FFI_ArrowSchema,
    from: *mut FFI_ArrowArray,
    from_schema: *const FFI_ArrowSchema,
    out: *mut FFI_ArrowArray,
    out_schema: *mut FFI_ArrowSchema,
) -> i32 {
    let specs = [
        spec(needle, needle_schema, "needle", Kind::String),
        spec(haystack, haystack_schema, "haystack", Kind::String),
        Spec { optional: true, ..spec(from, from_schema, "from", Kind::Int) },
    ];
    let output = Output { name: "locate", flink: "INT", always_nullable: false };
    // SAFETY: the caller's contract, checked as far as possible inside.
    ffi_boundary!("sluice_locate", unsafe {
        run("LOCATE", &specs, out, out_schema, output, |a| {
            kernels::locate(required(a, 0)?, required(a, 1)?, a.get(2).and_then(Option::as_ref))
        })
    })
}

/// `str LIKE pattern [ESCAPE escape]`; `escape` is NULL (no ESCAPE clause:
/// no escape character) or the ESCAPE string, NUL-terminated UTF-8. A
/// length-1 `pattern` is Flink's literal pattern. An escape that is not one
/// UTF-16 unit (`""`, `"ab"`, a supplementary character) is Flink's
/// `Invalid escape character '<escape>'` (`SLUICE_ERR_FLINK`): for a
/// literal pattern the whole call fails (as Flink fails at code
/// generation); for a column pattern rows with a NULL `str` or `pattern`
/// are NULL and the call fails only if another row exists.
///
/// # Safety
/// Pointers are NULL or valid, per the header.
#[no_mangle]
pub unsafe extern "C" fn sluice_like(
    str: *mut FFI_ArrowArray,
    str_schema: *const FFI_ArrowSchema,
    pattern: *mut FFI_ArrowArray,
    pattern_schema: *const FFI_ArrowSchema,
    escape: *const c_char,
    out: *mut FFI_ArrowArray,
    out_schema: *mut FFI_ArrowSchema,
) -> i32 {
    let specs = [spec(str, str_schema, "str", Kind::String), spec(pattern, pattern_schema, "pattern", Kind::String)];
    let output = Output { name: "like", flink: "BOOLEAN", always_nullable: false };
    // SAFETY: the caller's contract, checked as far as possible inside.
    ffi_boundary!("sluice_like", unsafe {
        run("LIKE", &specs, out, out_schema, output, |a| {
            let esc = escape_str(escape)?;
            kernels::like(required(a, 0)?, required(a, 1)?, esc)
        })
    })
}

/// # Safety
/// `escape` is NULL or a NUL-terminated string that outlives `'a`.
unsafe fn escape_str<'a>(escape: *const c_char) -> FfiResult<Option<&'a str>> {
    if escape.is_null() {
        return Ok(None);
    }
    // SAFETY: non-NULL, NUL-terminated per the contract.
    let bytes = unsafe { CStr::from_ptr(escape) }.to_bytes();
    let s = std::str::from_utf8(bytes).map_err(|_| {
        FfiError::new(crate::error::sluice_status::SLUICE_ERR_INVALID_UTF8, "escape is not valid UTF-8")
    })?;
    Ok(Some(s))
}

/// `REPLACE(str, search, replacement)` (Java `String.replace` semantics).
///
/// # Safety
/// Pointers are NULL or valid, per the header.
#[no_mangle]
pub unsafe extern "C" fn sluice_replace(
    str: *mut FFI_ArrowArray,
    str_schema: *const FFI_ArrowSchema,
    search: *mut FFI_ArrowArray,
    search_schema: *const FFI_ArrowSchema,
    replacement: *mut FFI_ArrowArray,
    replacement_schema: *const FFI_ArrowSchema,
    out: *mut FFI_ArrowArray,
    out_schema: *mut FFI_ArrowSchema,
) -> i32 {
    let specs = [
        spec(str, str_schema, "str", Kind::String),
        spec(search, search_schema, "search", Kind::String),
        spec(replacement, replacement_schema, "replacement", Kind::String),
    ];
    let output = Output { name: "replace", flink: STRING, always_nullable: false };
    // SAFETY: the caller's contract, checked as far as possible inside.
    ffi_boundary!("sluice_replace", unsafe {
        run("REPLACE", &specs, out, out_schema, output, |a| {
            kernels::replace(required(a, 0)?, required(a, 1)?, required(a, 2)?)
        })
    })
}

/// `SPLIT_INDEX(str, sep, index)`; `sep` a string, or an `Int32` character
/// code (Flink's `SPLIT_INDEX(str, INT, INT)`: a code outside 1..=255 gives
/// NULL, else the string splits on that one character U+0001..U+00FF);
/// `index` `Int32`. NULL when out of range.
///
/// # Safety
/// Pointers are NULL or valid, per the header.
#[no_mangle]
pub unsafe extern "C" fn sluice_split_index(
    str: *mut FFI_ArrowArray,
    str_schema: *const FFI_ArrowSchema,
    sep: *mut FFI_ArrowArray,
    sep_schema: *const FFI_ArrowSchema,
    index: *mut FFI_ArrowArray,
    index_schema: *const FFI_ArrowSchema,
    out: *mut FFI_ArrowArray,
    out_schema: *mut FFI_ArrowSchema,
) -> i32 {
    let specs = [
        spec(str, str_schema, "str", Kind::String),
        spec(sep, sep_schema, "sep", Kind::StringOrInt),
        spec(index, index_schema, "index", Kind::Int),
    ];
    let output = Output { name: "split_index", flink: STRING, always_nullable: true };
    // SAFETY: the caller's contract, checked as far as possible inside.
    ffi_boundary!("sluice_split_index", unsafe {
        run("SPLIT_INDEX", &specs, out, out_schema, output, |a| {
            kernels::split_index(required(a, 0)?, required(a, 1)?, required(a, 2)?)
        })
    })
}

#[cfg(test)]
#[path = "search_tests.rs"]
mod tests;
