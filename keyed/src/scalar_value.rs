//! Benchmark-only (`public_imp`): owned scalar values, the representation
//! the keyed loops used before they worked on borrowed arrow-row / Flink key
//! bytes (a `Vec<ScalarValue>` built per input row). The benches' "owned
//! scalar" variants of OVER (`over/scalar_probe.rs`) and the retracting
//! Top-N (`topn/scalar_ranker.rs`) build their keys from these, so they can
//! print the seed's before-state beside the borrowed operators in one run.

use std::cmp::Ordering;

use arrow_array::cast::AsArray;
use arrow_array::types::{Int16Type, Int32Type, Int64Type, Int8Type};
use arrow_array::{Array, ArrayRef};
use arrow_schema::DataType;

use crate::error::{invalid_arg, Result};

/// One value, owned. The derived order compares values of one type (the
/// callers never compare across types; NULL is ordered by [`SortValue`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Scalar {
    Null,
    Int(i64),
    Str(String),
}

/// Row `i` of `col` as a scalar (integer and string columns: the types
/// the benches and the tests use).
///
/// # Errors
/// Any other column type.
pub(crate) fn scalar(col: &ArrayRef, i: usize) -> Result<Scalar> {
    if col.is_null(i) {
        return Ok(Scalar::Null);
    }
    Ok(match col.data_type() {
        DataType::Utf8 => Scalar::Str(col.as_string::<i32>().value(i).to_owned()),
        DataType::LargeUtf8 => Scalar::Str(col.as_string::<i64>().value(i).to_owned()),
        DataType::Int64 => Scalar::Int(col.as_primitive::<Int64Type>().value(i)),
        DataType::Int32 => Scalar::Int(col.as_primitive::<Int32Type>().value(i).into()),
        DataType::Int16 => Scalar::Int(col.as_primitive::<Int16Type>().value(i).into()),
        DataType::Int8 => Scalar::Int(col.as_primitive::<Int8Type>().value(i).into()),
        other => return Err(invalid_arg(format!("the scalar variants do not handle {other}"))),
    })
}

/// One ORDER BY value with its column's direction, so that a `Vec` of them
/// orders lexicographically as Flink's generated sort-key comparator does:
/// NULL before or after every value by `nulls_first` (whatever the
/// direction), values ascending or, `descending`, reversed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SortValue {
    pub(crate) value: Scalar,
    pub(crate) descending: bool,
    pub(crate) nulls_first: bool,
}

impl Ord for SortValue {
    fn cmp(&self, other: &Self) -> Ordering {
        let nulls = |first: bool| if self.nulls_first == first { Ordering::Less } else { Ordering::Greater };
        match (&self.value, &other.value) {
            (Scalar::Null, Scalar::Null) => Ordering::Equal,
            (Scalar::Null, _) => nulls(true),
            (_, Scalar::Null) => nulls(false),
            (a, b) if self.descending => b.cmp(a),
            (a, b) => a.cmp(b),
        }
    }
}

impl PartialOrd for SortValue {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
