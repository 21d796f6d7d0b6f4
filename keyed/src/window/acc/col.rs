//! [`Col`]: one aggregate's input column of a batch, as the accumulators'
//! folds read it.

use arrow_array::cast::AsArray;
use arrow_array::types::{Float64Type, Int64Type};
use arrow_array::{Array, ArrayRef, LargeStringArray, StringArray, StringViewArray};
use arrow_buffer::NullBuffer;
use arrow_schema::DataType;

use crate::error::{invalid_arg, Result};

/// One aggregate's input column of a batch, typed once per batch.
pub(crate) enum Col<'a> {
    /// `COUNT(*)`: no column.
    Rows,
    I64(&'a [i64], Option<&'a NullBuffer>),
    F64(&'a [f64], Option<&'a NullBuffer>),
    Utf8(&'a StringArray),
    Large(&'a LargeStringArray),
    View(&'a StringViewArray),
}

impl<'a> Col<'a> {
    /// The typed view of `a` (`None` for `COUNT(*)`).
    ///
    /// # Errors
    /// A column of a type the aggregate was not resolved for.
    pub(crate) fn of(a: Option<&'a ArrayRef>) -> Result<Col<'a>> {
        let Some(a) = a else { return Ok(Col::Rows) };
        Ok(match a.data_type() {
            DataType::Int64 => {
                let p = a.as_primitive::<Int64Type>();
                Col::I64(p.values(), p.nulls())
            }
            DataType::Float64 => {
                let p = a.as_primitive::<Float64Type>();
                Col::F64(p.values(), p.nulls())
            }
            DataType::Utf8 => Col::Utf8(a.as_string::<i32>()),
            DataType::LargeUtf8 => Col::Large(a.as_string::<i64>()),
            DataType::Utf8View => Col::View(a.as_string_view()),
            other => return Err(invalid_arg(format!("aggregate input of type {other} is not supported"))),
        })
    }

    /// Whether row `i` is non-NULL.
    #[inline]
    pub(crate) fn valid(&self, i: usize) -> bool {
        match self {
            Col::Rows => true,
            Col::I64(_, n) | Col::F64(_, n) => n.is_none_or(|n| n.is_valid(i)),
            Col::Utf8(a) => a.is_valid(i),
            Col::Large(a) => a.is_valid(i),
            Col::View(a) => a.is_valid(i),
        }
    }

    /// The bytes of string row `i` (empty for other columns).
    #[inline]
    pub(crate) fn bytes(&self, i: usize) -> &'a [u8] {
        match self {
            Col::Utf8(a) => a.value(i).as_bytes(),
            Col::Large(a) => a.value(i).as_bytes(),
            Col::View(a) => a.value(i).as_bytes(),
            _ => &[],
        }
    }
}
