//! The one way every entry point imports its C arguments, and the one
//! validator of `n + 1` offsets.
//!
//! A C caller passes every argument as an array. Length 1 means a scalar
//! (one value for every row) unless every argument has length 1; otherwise
//! all arguments of length ≠ 1 must share one length N, the output length
//! ([`broadcast`]).
//!
//! [`take_args`] (a fixed list of arguments) and [`take_arg_list`] (`n`
//! arrays behind two pointer arrays) first take every array (so each
//! non-NULL one is released exactly once whatever fails), then read each
//! schema, check its type against the argument's [`Kind`] and import it.

use std::ptr;
use std::slice;

use arrow_array::ffi::{FFI_ArrowArray, FFI_ArrowSchema};
use arrow_array::{Array, ArrayRef, Datum};
use arrow_schema::{DataType, Field};
use sluice_engine::flink_type::{int_input_type, is_nullable, string_input_type};
use sluice_engine::function::Func;

use crate::capi::arrow_c::{
    import, import_bytes, import_copied_strings, read_field, take_array, take_optional_array, OutSlot,
};
use crate::capi::error::{FfiError, FfiResult};

/// One imported argument: its values, its schema field and whether the
/// kernel sees it as a scalar.
#[derive(Debug)]
pub struct Arg {
    /// The values.
    pub array: ArrayRef,
    /// The argument's field (name, nullability, `flink.type`).
    pub field: Field,
    /// Whether the kernel gets it as a scalar.
    pub scalar: bool,
}

impl Datum for Arg {
    fn get(&self) -> (&dyn Array, bool) {
        (self.array.as_ref(), self.scalar)
    }
}

impl Arg {
    /// An argument that is an array (not broadcast).
    pub fn array(array: ArrayRef, field: Field) -> Self {
        Arg { array, field, scalar: false }
    }
}

/// `args` as the kernels' arguments.
pub fn datums<'a>(args: impl IntoIterator<Item = &'a Arg>) -> Vec<&'a dyn Datum> {
    args.into_iter().map(|a| a as &dyn Datum).collect()
}

/// Applies the broadcasting rule to `args` (marks length-1 arguments as
/// scalars when the output has another length) and returns the output
/// length.
///
/// # Errors
/// `SLUICE_ERR_INVALID_ARGUMENT` naming two arguments of different lengths
/// (neither of them 1).
pub fn broadcast(function: &str, args: &mut [&mut Arg]) -> FfiResult<usize> {
    let mut n: Option<(usize, usize)> = None; // (length, index of first arg with it)
    for (i, a) in args.iter().enumerate() {
        let len = a.array.len();
        if len == 1 {
            continue;
        }
        match n {
            None => n = Some((len, i)),
            Some((m, j)) if m != len => {
                return Err(FfiError::invalid(format!(
                    "{function}: argument {j} has {m} rows and argument {i} has {len}; each argument must have 1 row (a scalar) or the same number of rows"
                )))
            }
            Some(_) => {}
        }
    }
    let out_len = n.map_or(1, |(len, _)| len);
    for a in args.iter_mut() {
        a.scalar = out_len != 1 && a.array.len() == 1;
    }
    Ok(out_len)
}

/// What an argument must be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `Utf8`, `LargeUtf8`, `Utf8View` (binary read as string when its
    /// `flink.type` says so).
    String,
    /// A string, or one of the binary layouts, imported as bytes without a
    /// UTF-8 check (the digests hash bytes and write hex; see
    /// [`validate`](crate::capi::validate)).
    StringOrBinary,
    /// A string a search kernel reads as bytes (POSITION, LOCATE, LIKE,
    /// REPLACE, SPLIT_INDEX): imported as its binary twin without a UTF-8
    /// check; the kernels are memory-safe on any bytes and validate their
    /// output rows where the output is `Utf8` (see
    /// [`validate`](crate::capi::validate)).
    SearchedString,
    /// A string whose values a kernel copies whole into a string output
    /// (CONCAT, CONCAT_WS): a declared `Utf8` type is taken at its word
    /// ([`import_copied_strings`]).
    CopiedString,
    /// `Int32`.
    Int,
    /// `Int32`, or `Null` (SHA2's all-NULL width).
    IntOrNull,
    /// Either (SPLIT_INDEX's separator: a string or a character code).
    StringOrInt,
}

/// One C argument: array + schema pointers.
pub struct Spec {
    /// The moved-in array (NULL allowed only if `optional`).
    pub array: *mut FFI_ArrowArray,
    /// Its borrowed schema.
    pub schema: *const FFI_ArrowSchema,
    /// Argument name used in messages (the C parameter name).
    pub name: &'static str,
    /// Accepted types.
    pub kind: Kind,
    /// Whether a NULL `array` means "absent".
    pub optional: bool,
}

impl Spec {
    /// A required argument named `name` (its schema `<name>_schema`).
    pub fn new(array: *mut FFI_ArrowArray, schema: *const FFI_ArrowSchema, name: &'static str, kind: Kind) -> Self {
        Spec { array, schema, name, kind, optional: false }
    }

    /// The same argument, optional (a NULL array means absent).
    pub fn optional(self) -> Self {
        Spec { optional: true, ..self }
    }
}

/// The name of an argument's schema in messages, formatted only when a
/// message is (names cost a `format!` and an allocation each otherwise, on
/// every call).
#[derive(Clone, Copy)]
pub enum SchemaName<'a> {
    /// `<name>_schema` of a [`Spec`] argument.
    Of(&'a str),
    /// `in_schemas[i]` of an argument list.
    Listed(usize),
}

impl std::fmt::Display for SchemaName<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SchemaName::Of(name) => write!(f, "{name}_schema"),
            SchemaName::Listed(i) => write!(f, "in_schemas[{i}]"),
        }
    }
}

/// `ins[i]`, the name of argument `i` of a list: static for the first
/// [`LISTED`].len() (no `format!` per call), formatted beyond.
fn listed_name(i: usize) -> std::borrow::Cow<'static, str> {
    match LISTED.get(i) {
        Some(name) => std::borrow::Cow::Borrowed(name),
        None => std::borrow::Cow::Owned(format!("ins[{i}]")),
    }
}

const LISTED: [&str; 8] = ["ins[0]", "ins[1]", "ins[2]", "ins[3]", "ins[4]", "ins[5]", "ins[6]", "ins[7]"];

/// Takes every array of `arrays` (`(pointer, name, optional)`) before
/// reporting the first error, so that each non-NULL one is released once.
///
/// # Safety
/// Each pointer is NULL or a valid C Data Interface struct, per the header.
unsafe fn take_all<'n>(
    arrays: impl Iterator<Item = (*mut FFI_ArrowArray, &'n str, bool)>,
) -> FfiResult<Vec<Option<FFI_ArrowArray>>> {
    let mut taken = Vec::with_capacity(arrays.size_hint().0);
    let mut first_err = None;
    for (array, name, optional) in arrays {
        let r = if optional {
            // SAFETY: forwarded contract.
            unsafe { take_optional_array(array, name) }
        } else {
            // SAFETY: forwarded contract.
            unsafe { take_array(array, name) }.map(Some)
        };
        match r {
            Ok(a) => taken.push(a),
            Err(e) => {
                taken.push(None);
                first_err.get_or_insert(e);
            }
        }
    }
    match first_err {
        Some(e) => Err(e),
        None => Ok(taken),
    }
}

/// Reads `schema`, checks its type against `kind` and imports `array`.
///
/// # Safety
/// As [`take_args`].
pub unsafe fn import_arg(
    array: FFI_ArrowArray,
    schema: *const FFI_ArrowSchema,
    name: &str,
    schema_name: SchemaName<'_>,
    kind: Kind,
) -> FfiResult<Arg> {
    // SAFETY: forwarded contract.
    let field = unsafe { read_field(schema, schema_name) }?;
    let dt = match kind {
        Kind::String => string_input_type(&field, name, false)?,
        Kind::StringOrBinary | Kind::SearchedString => {
            let dt = string_input_type(&field, name, kind == Kind::StringOrBinary)?;
            // SAFETY: forwarded contract.
            return Ok(Arg::array(unsafe { import_bytes(array, &dt, name) }?, field));
        }
        Kind::CopiedString => {
            let dt = string_input_type(&field, name, false)?;
            // SAFETY: forwarded contract.
            let values = unsafe { import_copied_strings(array, field.data_type(), &dt, name) }?;
            return Ok(Arg::array(values, field));
        }
        Kind::Int => int_input_type(&field, name)?,
        Kind::IntOrNull => match field.data_type() {
            DataType::Null => DataType::Null,
            _ => int_input_type(&field, name)?,
        },
        Kind::StringOrInt => match field.data_type() {
            DataType::Int32 => int_input_type(&field, name)?,
            _ => string_input_type(&field, name, false)?,
        },
    };
    // SAFETY: forwarded contract.
    let values = unsafe { import(array, &dt, name) }?;
    Ok(Arg::array(values, field))
}

/// Takes every array of `specs` first, then reads schemas and imports;
/// an absent optional argument is `None`.
///
/// # Safety
/// Each pointer is NULL or a valid C Data Interface struct, per the header.
pub unsafe fn take_args(specs: &[Spec]) -> FfiResult<Vec<Option<Arg>>> {
    // SAFETY: forwarded contract.
    let taken = unsafe { take_all(specs.iter().map(|s| (s.array, s.name, s.optional))) }?;
    let mut args = Vec::with_capacity(specs.len());
    for (s, array) in specs.iter().zip(taken) {
        args.push(match array {
            // SAFETY: forwarded contract.
            Some(array) => Some(unsafe { import_arg(array, s.schema, s.name, SchemaName::Of(s.name), s.kind) }?),
            None => None,
        });
    }
    Ok(args)
}

/// Takes the `n` arrays `ins[0..n]` (named `ins[i]`) and imports them with
/// the schemas `in_schemas[0..n]`, each of `kind`. Every non-NULL array is
/// taken (and so released once) even when another one, or a schema, is bad.
///
/// # Safety
/// `ins` / `schemas` are NULL or point to `n` pointers each, per the header.
pub unsafe fn take_arg_list(
    n: i32,
    ins: *mut *mut FFI_ArrowArray,
    schemas: *mut *const FFI_ArrowSchema,
    kind: Kind,
) -> FfiResult<Vec<Arg>> {
    if n < 0 {
        return Err(FfiError::invalid(format!("n is negative ({n})")));
    }
    let n = n as usize;
    if n > 0 {
        check_not_null!(ins, "ins");
    }
    let names: Vec<_> = (0..n).map(listed_name).collect();
    // SAFETY: `ins` holds `n` pointers per the caller's contract.
    let pointers = (0..n).map(|i| unsafe { ptr::read_unaligned(ins.add(i)) });
    // SAFETY: forwarded contract.
    let taken = unsafe { take_all(pointers.zip(&names).map(|(p, name)| (p, name.as_ref(), false))) }?;
    if n > 0 {
        check_not_null!(schemas, "in_schemas");
    }
    let mut args = Vec::with_capacity(n);
    for (i, (array, name)) in taken.into_iter().zip(&names).enumerate() {
        let Some(array) = array else { continue };
        // SAFETY: `schemas` holds `n` pointers per the caller's contract.
        let schema = unsafe { ptr::read_unaligned(schemas.add(i)) };
        // SAFETY: forwarded contract.
        args.push(unsafe { import_arg(array, schema, name, SchemaName::Listed(i), kind) }?);
    }
    Ok(args)
}

/// Reads and checks `n_rows + 1` non-negative, non-decreasing offsets.
///
/// # Errors
/// `SLUICE_ERR_NULL_POINTER` for a NULL `offsets`,
/// `SLUICE_ERR_INVALID_ARGUMENT` for a negative or too large `n_rows`,
/// misaligned offsets, a negative first offset or decreasing offsets.
///
/// # Safety
/// `offsets` is NULL or holds `n_rows + 1` entries that stay valid and
/// unmodified for `'a`.
pub unsafe fn read_offsets<'a>(offsets: *const i64, n_rows: i64) -> FfiResult<&'a [i64]> {
    // SAFETY: forwarded contract.
    let offs = unsafe { read_offsets_unordered(offsets, n_rows) }?;
    if !sluice_kernels::validate::offsets_ordered(offs) {
        let i = offs.windows(2).position(|w| w[1] < w[0]).unwrap_or(0);
        return Err(FfiError::invalid(format!(
            "offsets decrease at row {i}: offsets[{i}] = {}, offsets[{}] = {}",
            offs[i],
            i + 1,
            offs[i + 1]
        )));
    }
    Ok(offs)
}

/// [`read_offsets`] without the order check, for a callee that checks the
/// order itself before reading anything by the offsets (the UTF-16 kernel's
/// `check_offsets`: one pass per call instead of two).
///
/// # Errors
/// As [`read_offsets`], except decreasing offsets.
///
/// # Safety
/// As [`read_offsets`].
pub unsafe fn read_offsets_unordered<'a>(offsets: *const i64, n_rows: i64) -> FfiResult<&'a [i64]> {
    check_not_null!(offsets, "offsets");
    if n_rows < 0 {
        return Err(FfiError::invalid(format!("n_rows is negative ({n_rows})")));
    }
    if !offsets.is_aligned() {
        return Err(FfiError::invalid("offsets is not aligned to 8 bytes"));
    }
    // An `offsets` slice of n_rows + 1 entries must fit in isize::MAX bytes.
    let n = usize::try_from(n_rows)
        .ok()
        .filter(|n| *n < isize::MAX as usize / 8)
        .ok_or_else(|| FfiError::invalid(format!("n_rows ({n_rows}) is too large")))?;
    // SAFETY: non-NULL, aligned, `n + 1` entries per the contract.
    let offs = unsafe { slice::from_raw_parts(offsets, n + 1) };
    if offs[0] < 0 {
        return Err(FfiError::invalid(format!("offsets[0] is negative ({})", offs[0])));
    }
    Ok(offs)
}

/// Exports the `result` of `func` over `args` into `slot`, typed with the
/// function table's output type: nullable iff an argument is (by its
/// `flink.type`, else its Arrow field), the result holds a NULL, or the
/// function always is.
///
/// # Safety
/// As [`OutSlot::write`].
pub unsafe fn write_output(slot: OutSlot, func: Func, result: &ArrayRef, args: &[&Arg]) -> FfiResult<()> {
    let nullable = args.iter().any(|a| is_nullable(&a.field)) || result.null_count() > 0;
    let field = func.output_field(result.data_type().clone(), nullable);
    let inputs: Vec<&dyn Array> = args.iter().map(|a| a.array.as_ref()).collect();
    // SAFETY: forwarded contract.
    unsafe { slot.write(result.as_ref(), &field, &inputs) }
}

#[cfg(test)]
mod tests {
    use super::{listed_name, SchemaName};

    /// The lazily formatted names read as the per-call `format!`s they
    /// replace did, inside and beyond the static table.
    #[test]
    fn argument_names_match_the_formatted_ones() {
        for i in [0usize, 1, 7, 8, 12] {
            assert_eq!(listed_name(i), format!("ins[{i}]"));
            assert_eq!(SchemaName::Listed(i).to_string(), format!("in_schemas[{i}]"));
        }
        assert_eq!(SchemaName::Of("needle").to_string(), "needle_schema");
    }
}
