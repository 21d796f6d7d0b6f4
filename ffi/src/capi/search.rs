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

use sluice_engine::function::{self, Func};

use crate::capi::args::{broadcast, datums, take_args, write_output, Arg, Kind, Spec};
use crate::capi::arrow_c::OutSlot;
use crate::capi::error::{sluice_status, FfiError, FfiResult};

/// Imports `specs`, broadcasts them, calls `func` (with LIKE's `escape`,
/// read after the imports) and exports the result.
///
/// # Safety
/// Pointers are NULL or valid, per the header.
unsafe fn run<'e>(
    func: Func,
    specs: &[Spec],
    out: *mut FFI_ArrowArray,
    out_schema: *mut FFI_ArrowSchema,
    escape: impl FnOnce() -> FfiResult<Option<&'e str>>,
) -> FfiResult<()> {
    // SAFETY: forwarded contract.
    let mut args = unsafe { take_args(specs) }?;
    let slot = OutSlot::new(out, out_schema)?;
    let mut present: Vec<&mut Arg> = args.iter_mut().flatten().collect();
    broadcast(func.name(), &mut present)?;
    let escape = escape()?;
    let result = function::call(func, &datums(args.iter().flatten()), escape)?;
    // SAFETY: forwarded contract.
    unsafe { write_output(slot, func, &result, &args.iter().flatten().collect::<Vec<_>>()) }
}

/// No escape character (every function but LIKE).
fn no_escape() -> FfiResult<Option<&'static str>> {
    Ok(None)
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
        Spec::new(needle, needle_schema, "needle", Kind::SearchedString),
        Spec::new(haystack, haystack_schema, "haystack", Kind::SearchedString),
    ];
    // SAFETY: the caller's contract, checked as far as possible inside.
    ffi_boundary!("sluice_position", unsafe { run(Func::Position, &specs, out, out_schema, no_escape) })
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
        Spec::new(needle, needle_schema, "needle", Kind::SearchedString),
        Spec::new(haystack, haystack_schema, "haystack", Kind::SearchedString),
        Spec::new(from, from_schema, "from", Kind::Int).optional(),
    ];
    // SAFETY: the caller's contract, checked as far as possible inside.
    ffi_boundary!("sluice_locate", unsafe { run(Func::Locate, &specs, out, out_schema, no_escape) })
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
    let specs = [
        Spec::new(str, str_schema, "str", Kind::SearchedString),
        Spec::new(pattern, pattern_schema, "pattern", Kind::SearchedString),
    ];
    // SAFETY: the caller's contract, checked as far as possible inside.
    ffi_boundary!("sluice_like", unsafe { run(Func::Like, &specs, out, out_schema, || escape_str(escape)) })
}

/// # Safety
/// `escape` is NULL or a NUL-terminated string that outlives `'a`.
unsafe fn escape_str<'a>(escape: *const c_char) -> FfiResult<Option<&'a str>> {
    if escape.is_null() {
        return Ok(None);
    }
    // SAFETY: non-NULL, NUL-terminated per the contract.
    let bytes = unsafe { CStr::from_ptr(escape) }.to_bytes();
    let s = std::str::from_utf8(bytes)
        .map_err(|_| FfiError::new(sluice_status::SLUICE_ERR_INVALID_UTF8, "escape is not valid UTF-8"))?;
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
        Spec::new(str, str_schema, "str", Kind::SearchedString),
        Spec::new(search, search_schema, "search", Kind::SearchedString),
        Spec::new(replacement, replacement_schema, "replacement", Kind::SearchedString),
    ];
    // SAFETY: the caller's contract, checked as far as possible inside.
    ffi_boundary!("sluice_replace", unsafe { run(Func::Replace, &specs, out, out_schema, no_escape) })
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
        Spec::new(str, str_schema, "str", Kind::SearchedString),
        Spec::new(sep, sep_schema, "sep", Kind::StringOrInt),
        Spec::new(index, index_schema, "index", Kind::Int),
    ];
    // SAFETY: the caller's contract, checked as far as possible inside.
    ffi_boundary!("sluice_split_index", unsafe { run(Func::SplitIndex, &specs, out, out_schema, no_escape) })
}
