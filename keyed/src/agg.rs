//! Aggregate functions: specs and their resolution against the input schema.
//! Their accumulators (column-major, one state per group slot, behind the
//! `GroupsAccumulator` trait) live in `group_agg/`.
//!
//! Semantics follow Flink's built-in functions
//! (`flink-table-planner/.../functions/aggfunctions/*` and
//! `flink-table-runtime/.../functions/aggregate/*`):
//! * `COUNT(*)` counts rows, `COUNT(col)` non-NULL values; both BIGINT, never NULL.
//! * `SUM` keeps a sum and a count of non-NULL values and is NULL when that
//!   count is 0 (`SumWithRetractAggFunction`); BIGINT sums wrap like Java `long`.
//! * `$SUM0` (the planner's SUM that is 0 over no values, `Sum0AggFunction`,
//!   e.g. from reducing `AVG` into `$SUM0 / COUNT`) keeps the same sum and is
//!   never NULL: 0 (BIGINT) or 0.0 (DOUBLE, the sum starting at 0.0).
//! * `AVG` of BIGINT is BIGINT `sum / count` (Java long division), of DOUBLE
//!   is DOUBLE; NULL when no non-NULL value (`AvgAggFunction`).
//! * `MIN`/`MAX` ignore NULLs; the retractable form keeps a value → count
//!   multiset (`MinWithRetractAggFunction` / `MaxWithRetractAggFunction`'s
//!   `MapView<T, Long>`). Strings compare as unsigned UTF-8 bytes
//!   (`BinaryStringData.compareTo`); doubles as `Double.compareTo` (NaN
//!   greatest, -0.0 < 0.0).
//! * `FIRST_VALUE`/`LAST_VALUE` ignore NULLs. The retractable form
//!   (`FirstLastValueWithRetractAggFunctionBase`) orders values by arrival;
//!   a retraction removes the earliest arrival of an equal value, and the
//!   result is the earliest (FIRST) or latest (LAST) remaining value.
//!
//! A call of a GROUP BY may also carry `FILTER (WHERE f)` (a BOOLEAN
//! column: the row contributes only where `f` is true; NULL and false are
//! excluded) and `DISTINCT` (the call sees each distinct argument value once
//! per group); `group_agg/call.rs` puts both in front of the accumulator.

use arrow_schema::{DataType, Field};

use crate::error::{Error, Result};

/// Which aggregate function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AggKind {
    /// `COUNT(*)`
    CountStar,
    /// `COUNT(col)`
    Count,
    /// `SUM(col)`
    Sum,
    /// `$SUM0(col)`: SUM, 0 instead of NULL over no values
    Sum0,
    /// `MIN(col)`
    Min,
    /// `MAX(col)`
    Max,
    /// `AVG(col)`
    Avg,
    /// `FIRST_VALUE(col)`
    FirstValue,
    /// `LAST_VALUE(col)`
    LastValue,
}

/// One aggregate call of a GROUP BY.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct AggSpec {
    /// The function.
    pub kind: AggKind,
    /// Input column (`None` only for `COUNT(*)`).
    pub column: Option<usize>,
    /// Output field name (defaults to e.g. `sum_2`).
    pub name: Option<String>,
    /// `FILTER (WHERE f)`: a BOOLEAN input column; only rows where it is
    /// true contribute (NULL and false do not). GROUP BY only.
    pub filter: Option<usize>,
    /// `DISTINCT`: each distinct input value counts once per group (not
    /// for `COUNT(*)`). GROUP BY only.
    pub distinct: bool,
}

/// The derived format, with `filter` / `distinct` only when set: operators
/// fingerprint their snapshots with this text, so a spec without them keeps
/// the fingerprint it had before they existed (its savepoints restore).
impl std::fmt::Debug for AggSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut d = f.debug_struct("AggSpec");
        d.field("kind", &self.kind).field("column", &self.column).field("name", &self.name);
        if let Some(c) = self.filter {
            d.field("filter", &c);
        }
        if self.distinct {
            d.field("distinct", &true);
        }
        d.finish()
    }
}

/// The constructors of the calls over one input column: `$name(col)` is
/// the call of kind `$kind` on `col`.
macro_rules! column_calls {
    ($($(#[$doc:meta])* $name:ident => $kind:ident;)*) => {$(
        $(#[$doc])*
        pub fn $name(col: usize) -> Self {
            Self::of(AggKind::$kind, Some(col))
        }
    )*};
}

impl AggSpec {
    fn of(kind: AggKind, column: Option<usize>) -> Self {
        AggSpec { kind, column, name: None, filter: None, distinct: false }
    }
    /// `COUNT(*)`
    pub fn count_star() -> Self {
        Self::of(AggKind::CountStar, None)
    }
    column_calls! {
        /// `COUNT(col)`
        count => Count;
        /// `SUM(col)`
        sum => Sum;
        /// `$SUM0(col)`
        sum0 => Sum0;
        /// `MIN(col)`
        min => Min;
        /// `MAX(col)`
        max => Max;
        /// `AVG(col)`
        avg => Avg;
        /// `FIRST_VALUE(col)`
        first_value => FirstValue;
        /// `LAST_VALUE(col)`
        last_value => LastValue;
    }
    /// Sets the output field name.
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }
    /// `… FILTER (WHERE column)`: only rows where the BOOLEAN `column` is true contribute.
    pub fn with_filter(mut self, column: usize) -> Self {
        self.filter = Some(column);
        self
    }
    /// `DISTINCT`: each distinct value of the input column contributes once per group.
    pub fn with_distinct(mut self) -> Self {
        self.distinct = true;
        self
    }
}

/// Refuses FILTER / DISTINCT calls for an operator that has neither (window, OVER).
pub(crate) fn refuse_filter_distinct(aggs: &[AggSpec], operator: &str) -> Result<()> {
    match aggs.iter().find(|a| a.filter.is_some() || a.distinct) {
        Some(a) => Err(Error::InvalidArgument(format!(
            "{operator} aggregates take no FILTER or DISTINCT (only the GROUP BY has them): {a:?}"
        ))),
        None => Ok(()),
    }
}

/// Value domain of an aggregate's input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum VType {
    I64,
    F64,
    Str,
}

/// A resolved aggregate: spec + input type + output type.
#[derive(Clone, Debug)]
pub(crate) struct Resolved {
    pub(crate) kind: AggKind,
    pub(crate) column: Option<usize>,
    pub(crate) vtype: VType,
    pub(crate) field: Field,
    /// `FILTER (WHERE …)` column (BOOLEAN, checked).
    pub(crate) filter: Option<usize>,
    /// `DISTINCT` (never for `COUNT(*)`).
    pub(crate) distinct: bool,
}

pub(crate) fn resolve(spec: &AggSpec, fields: &[arrow_schema::FieldRef], idx: usize) -> Result<Resolved> {
    let name = spec.name.clone().unwrap_or_else(|| {
        let f = format!("{:?}", spec.kind).to_lowercase();
        match spec.column {
            Some(c) => format!("{f}_{c}"),
            None => format!("{f}_{idx}"),
        }
    });
    if let Some(fc) = spec.filter {
        let f = fields.get(fc).ok_or_else(|| Error::InvalidArgument(format!("filter column {fc} out of range")))?;
        if f.data_type() != &DataType::Boolean {
            return Err(Error::UnsupportedType {
                column: fc,
                data_type: f.data_type().clone(),
                role: "a FILTER column (BOOLEAN)",
            });
        }
    }
    let (filter, distinct) = (spec.filter, spec.distinct);
    if spec.kind == AggKind::CountStar {
        if distinct {
            return Err(Error::InvalidArgument("COUNT(DISTINCT *) has no column to be distinct on".into()));
        }
        return Ok(Resolved {
            kind: spec.kind,
            column: None,
            vtype: VType::I64,
            field: Field::new(name, DataType::Int64, false),
            filter,
            distinct,
        });
    }
    let c = spec.column.ok_or_else(|| Error::InvalidArgument(format!("{:?} needs an input column", spec.kind)))?;
    let f = fields.get(c).ok_or_else(|| Error::InvalidArgument(format!("aggregate input column {c} out of range")))?;
    let vtype = match f.data_type() {
        DataType::Int64 => VType::I64,
        DataType::Float64 => VType::F64,
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => VType::Str,
        other => {
            return Err(Error::UnsupportedType { column: c, data_type: other.clone(), role: "an aggregate input" })
        }
    };
    let out = match spec.kind {
        AggKind::Count => VType::I64,
        AggKind::Sum | AggKind::Sum0 | AggKind::Avg if vtype == VType::Str => {
            return Err(Error::UnsupportedType { column: c, data_type: f.data_type().clone(), role: "a SUM/AVG input" })
        }
        _ => vtype,
    };
    let dt = match out {
        VType::I64 => DataType::Int64,
        VType::F64 => DataType::Float64,
        VType::Str => DataType::Utf8,
    };
    Ok(Resolved {
        kind: spec.kind,
        column: Some(c),
        vtype,
        field: Field::new(name, dt, !matches!(spec.kind, AggKind::Count | AggKind::Sum0)),
        filter,
        distinct,
    })
}

// ---------------------------------------------------------------------------
// Ordered doubles (Double.compareTo)
// ---------------------------------------------------------------------------

/// `f64` ordered like Java's `Double.compareTo`: NaN (all payloads) greatest
/// and equal to itself, -0.0 < 0.0.
#[derive(Clone, Copy, Debug)]
pub(crate) struct OrdF64(pub(crate) f64);

impl OrdF64 {
    fn canon(self) -> f64 {
        if self.0.is_nan() {
            f64::NAN
        } else {
            self.0
        }
    }
}
impl PartialEq for OrdF64 {
    fn eq(&self, o: &Self) -> bool {
        self.canon().to_bits() == o.canon().to_bits()
    }
}
impl Eq for OrdF64 {}
impl PartialOrd for OrdF64 {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for OrdF64 {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        self.canon().total_cmp(&o.canon())
    }
}
