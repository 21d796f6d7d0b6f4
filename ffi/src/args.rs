//! Kernel arguments built from imported arrays: array-or-scalar
//! ([`arrow_array::Datum`]) with the C ABI's broadcasting rule.
//!
//! A C caller passes every argument as an array. Length 1 means a scalar
//! (one value for every row) unless every argument has length 1; otherwise
//! all arguments of length ≠ 1 must share one length N, the output length.

use arrow_array::ffi::{FFI_ArrowArray, FFI_ArrowSchema};
use arrow_array::{Array, ArrayRef, Datum};
use arrow_schema::{DataType, Field};

use crate::arrow_c::{import, read_field, take_array, take_optional_array};
use crate::error::{FfiError, FfiResult};
use sluice_engine::flink_type::{int_input_type, string_input_type};

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
    /// `Int32`.
    Int,
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

/// Takes every array of `specs` first (so each non-NULL one is released
/// exactly once whatever fails), then reads schemas and imports.
///
/// # Safety
/// Each pointer is NULL or a valid C Data Interface struct, per the header.
pub unsafe fn take_args(specs: &[Spec]) -> FfiResult<Vec<Option<Arg>>> {
    let mut taken = Vec::with_capacity(specs.len());
    let mut first_err = None;
    for s in specs {
        let r = if s.optional {
            // SAFETY: forwarded contract.
            unsafe { take_optional_array(s.array, s.name) }
        } else {
            // SAFETY: forwarded contract.
            unsafe { take_array(s.array, s.name) }.map(Some)
        };
        match r {
            Ok(a) => taken.push(a),
            Err(e) => {
                taken.push(None);
                first_err.get_or_insert(e);
            }
        }
    }
    if let Some(e) = first_err {
        return Err(e);
    }
    let mut args = Vec::with_capacity(specs.len());
    for (s, array) in specs.iter().zip(taken) {
        let Some(array) = array else {
            args.push(None);
            continue;
        };
        let schema_name = format!("{}_schema", s.name);
        // SAFETY: forwarded contract.
        let field = unsafe { read_field(s.schema, &schema_name) }?;
        let dt = match s.kind {
            Kind::String => string_input_type(&field, s.name, false)?,
            Kind::Int => int_input_type(&field, s.name)?,
            Kind::StringOrInt => match field.data_type() {
                DataType::Int32 => int_input_type(&field, s.name)?,
                _ => string_input_type(&field, s.name, false)?,
            },
        };
        // SAFETY: forwarded contract.
        let values = unsafe { import(array, &dt, s.name) }?;
        args.push(Some(Arg::array(values, field)));
    }
    Ok(args)
}
