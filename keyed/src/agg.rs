//! Aggregate functions: specs, per-group accumulators, and the typed
//! input/output columns the GROUP BY operator reads and writes per batch.
//!
//! Semantics follow Flink's built-in functions
//! (`flink-table-planner/.../functions/aggfunctions/*` and
//! `flink-table-runtime/.../functions/aggregate/*`):
//! * `COUNT(*)` counts rows, `COUNT(col)` non-NULL values; both BIGINT, never NULL.
//! * `SUM` keeps a sum and a count of non-NULL values and is NULL when that
//!   count is 0 (`SumWithRetractAggFunction`); BIGINT sums wrap like Java `long`.
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

use std::collections::{BTreeMap, VecDeque};

use arrow_array::cast::AsArray;
use arrow_array::types::{Float64Type, Int64Type};
use arrow_array::{Array, ArrayRef, Float64Array, Int64Array, LargeStringArray, StringArray, StringViewArray};
use arrow_buffer::{NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow_schema::{DataType, Field};

use crate::error::{Error, Result};
use crate::snapshot::{Reader, Writer};

/// Which aggregate function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AggKind {
    /// `COUNT(*)`
    CountStar,
    /// `COUNT(col)`
    Count,
    /// `SUM(col)`
    Sum,
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
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct AggSpec {
    /// The function.
    pub kind: AggKind,
    /// Input column (`None` only for `COUNT(*)`).
    pub column: Option<usize>,
    /// Output field name (defaults to e.g. `sum_2`).
    pub name: Option<String>,
}

impl AggSpec {
    fn of(kind: AggKind, column: Option<usize>) -> Self {
        AggSpec { kind, column, name: None }
    }
    /// `COUNT(*)`
    pub fn count_star() -> Self {
        Self::of(AggKind::CountStar, None)
    }
    /// `COUNT(col)`
    pub fn count(col: usize) -> Self {
        Self::of(AggKind::Count, Some(col))
    }
    /// `SUM(col)`
    pub fn sum(col: usize) -> Self {
        Self::of(AggKind::Sum, Some(col))
    }
    /// `MIN(col)`
    pub fn min(col: usize) -> Self {
        Self::of(AggKind::Min, Some(col))
    }
    /// `MAX(col)`
    pub fn max(col: usize) -> Self {
        Self::of(AggKind::Max, Some(col))
    }
    /// `AVG(col)`
    pub fn avg(col: usize) -> Self {
        Self::of(AggKind::Avg, Some(col))
    }
    /// `FIRST_VALUE(col)`
    pub fn first_value(col: usize) -> Self {
        Self::of(AggKind::FirstValue, Some(col))
    }
    /// `LAST_VALUE(col)`
    pub fn last_value(col: usize) -> Self {
        Self::of(AggKind::LastValue, Some(col))
    }
    /// Sets the output field name.
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
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
    pub(crate) out: VType,
    pub(crate) field: Field,
}

pub(crate) fn resolve(spec: &AggSpec, fields: &[arrow_schema::FieldRef], idx: usize) -> Result<Resolved> {
    let name = spec.name.clone().unwrap_or_else(|| {
        let f = format!("{:?}", spec.kind).to_lowercase();
        match spec.column {
            Some(c) => format!("{f}_{c}"),
            None => format!("{f}_{idx}"),
        }
    });
    if spec.kind == AggKind::CountStar {
        return Ok(Resolved {
            kind: spec.kind,
            column: None,
            vtype: VType::I64,
            out: VType::I64,
            field: Field::new(name, DataType::Int64, false),
        });
    }
    let c = spec
        .column
        .ok_or_else(|| Error::InvalidArgument(format!("{:?} needs an input column", spec.kind)))?;
    let f = fields
        .get(c)
        .ok_or_else(|| Error::InvalidArgument(format!("aggregate input column {c} out of range")))?;
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
        AggKind::Sum | AggKind::Avg if vtype == VType::Str => {
            return Err(Error::UnsupportedType {
                column: c,
                data_type: f.data_type().clone(),
                role: "a SUM/AVG input",
            })
        }
        _ => vtype,
    };
    let dt = match out {
        VType::I64 => DataType::Int64,
        VType::F64 => DataType::Float64,
        VType::Str => DataType::Utf8,
    };
    Ok(Resolved { kind: spec.kind, column: Some(c), vtype, out, field: Field::new(name, dt, spec.kind != AggKind::Count) })
}

// ---------------------------------------------------------------------------
// Input columns
// ---------------------------------------------------------------------------

/// An aggregate's input column for one batch, downcast once.
pub(crate) enum InCol<'a> {
    None,
    I64(&'a [i64], Option<&'a NullBuffer>),
    F64(&'a [f64], Option<&'a NullBuffer>),
    Utf8(&'a StringArray),
    Large(&'a LargeStringArray),
    View(&'a StringViewArray),
}

impl<'a> InCol<'a> {
    pub(crate) fn new(r: &Resolved, columns: &'a [ArrayRef]) -> Result<Self> {
        let Some(c) = r.column else { return Ok(InCol::None) };
        let a = columns.get(c).ok_or_else(|| Error::InvalidArgument(format!("column {c} missing")))?;
        Ok(match a.data_type() {
            DataType::Int64 => InCol::I64(a.as_primitive::<Int64Type>().values(), a.nulls()),
            DataType::Float64 => InCol::F64(a.as_primitive::<Float64Type>().values(), a.nulls()),
            DataType::Utf8 => InCol::Utf8(a.as_string::<i32>()),
            DataType::LargeUtf8 => InCol::Large(a.as_string::<i64>()),
            DataType::Utf8View => InCol::View(a.as_string_view()),
            other => {
                return Err(Error::UnsupportedType { column: c, data_type: other.clone(), role: "an aggregate input" })
            }
        })
    }

    #[inline(always)]
    fn is_null(&self, i: usize) -> bool {
        match self {
            InCol::None => false,
            InCol::I64(_, n) | InCol::F64(_, n) => n.is_some_and(|n| n.is_null(i)),
            InCol::Utf8(a) => a.is_null(i),
            InCol::Large(a) => a.is_null(i),
            InCol::View(a) => a.is_null(i),
        }
    }

    #[inline(always)]
    fn i64(&self, i: usize) -> Option<i64> {
        match self {
            InCol::I64(v, n) if !n.is_some_and(|n| n.is_null(i)) => v.get(i).copied(),
            _ => None,
        }
    }

    #[inline(always)]
    fn f64(&self, i: usize) -> Option<f64> {
        match self {
            InCol::F64(v, n) if !n.is_some_and(|n| n.is_null(i)) => v.get(i).copied(),
            _ => None,
        }
    }

    #[inline(always)]
    fn str(&self, i: usize) -> Option<&'a [u8]> {
        match self {
            InCol::Utf8(a) if a.is_valid(i) => Some(a.value(i).as_bytes()),
            InCol::Large(a) if a.is_valid(i) => Some(a.value(i).as_bytes()),
            InCol::View(a) if a.is_valid(i) => Some(a.value(i).as_bytes()),
            _ => None,
        }
    }
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

// ---------------------------------------------------------------------------
// Accumulators
// ---------------------------------------------------------------------------

/// A stored value of FIRST_VALUE/LAST_VALUE history.
#[derive(Clone, Debug)]
pub(crate) enum Val {
    I(i64),
    F(f64),
    S(Box<[u8]>),
}

#[derive(Clone, Debug)]
pub(crate) enum Acc {
    Count(i64),
    SumI { sum: i64, n: i64 },
    /// `sum` starts NULL for SUM (`SumWithRetractAggFunction`: first value
    /// becomes the sum, so SUM(-0.0) is -0.0) and 0 for AVG (`AvgAggFunction`).
    SumF { sum: Option<f64>, n: i64 },
    // Append-only MIN/MAX/FIRST/LAST: just the current value.
    CurI(Option<i64>),
    CurF(Option<f64>),
    CurS(Option<Box<[u8]>>),
    // Retractable MIN/MAX: value → count.
    SetI(BTreeMap<i64, u64>),
    SetF(BTreeMap<OrdF64, u64>),
    SetS(BTreeMap<Box<[u8]>, u64>),
    // Retractable FIRST/LAST: non-NULL values in arrival order.
    Hist(VecDeque<Val>),
}

/// Heap bytes charged per stored multiset / history entry (node share).
const ENTRY: usize = 32;

impl Acc {
    pub(crate) fn new(r: &Resolved, retractable: bool) -> Acc {
        match (r.kind, r.vtype) {
            (AggKind::CountStar | AggKind::Count, _) => Acc::Count(0),
            (AggKind::Sum, VType::F64) => Acc::SumF { sum: None, n: 0 },
            (AggKind::Avg, VType::F64) => Acc::SumF { sum: Some(0.0), n: 0 },
            (AggKind::Sum | AggKind::Avg, _) => Acc::SumI { sum: 0, n: 0 },
            (AggKind::Min | AggKind::Max, t) if retractable => match t {
                VType::I64 => Acc::SetI(BTreeMap::new()),
                VType::F64 => Acc::SetF(BTreeMap::new()),
                VType::Str => Acc::SetS(BTreeMap::new()),
            },
            (AggKind::FirstValue | AggKind::LastValue, _) if retractable => Acc::Hist(VecDeque::new()),
            (_, VType::I64) => Acc::CurI(None),
            (_, VType::F64) => Acc::CurF(None),
            (_, VType::Str) => Acc::CurS(None),
        }
    }

    /// Applies row `i` (accumulate or retract). Returns the change in heap bytes.
    #[inline(always)]
    pub(crate) fn update(&mut self, r: &Resolved, input: &InCol<'_>, i: usize, acc: bool) -> isize {
        let sign: i64 = if acc { 1 } else { -1 };
        match self {
            Acc::Count(c) => {
                if r.kind == AggKind::CountStar || !input.is_null(i) {
                    *c += sign;
                }
                0
            }
            Acc::SumI { sum, n } => {
                if let Some(v) = input.i64(i) {
                    *sum = if acc { sum.wrapping_add(v) } else { sum.wrapping_sub(v) };
                    *n += sign;
                }
                0
            }
            Acc::SumF { sum, n } => {
                if let Some(v) = input.f64(i) {
                    // plus(sum, v) / minus(sum, v), with a NULL sum taken as v / 0 - v.
                    *sum = Some(match (*sum, acc) {
                        (None, true) => v,
                        (None, false) => 0.0 - v,
                        (Some(s), true) => s + v,
                        (Some(s), false) => s - v,
                    });
                    *n += sign;
                }
                0
            }
            Acc::CurI(cur) => {
                if let Some(v) = input.i64(i) {
                    *cur = Some(match (*cur, r.kind) {
                        (None, _) => v,
                        (Some(c), AggKind::Min) => c.min(v),
                        (Some(c), AggKind::Max) => c.max(v),
                        (Some(c), AggKind::FirstValue) => c,
                        (Some(_), _) => v,
                    });
                }
                0
            }
            Acc::CurF(cur) => {
                if let Some(v) = input.f64(i) {
                    *cur = Some(match (*cur, r.kind) {
                        (None, _) => v,
                        (Some(c), AggKind::Min) => if OrdF64(v) < OrdF64(c) { v } else { c },
                        (Some(c), AggKind::Max) => if OrdF64(v) > OrdF64(c) { v } else { c },
                        (Some(c), AggKind::FirstValue) => c,
                        (Some(_), _) => v,
                    });
                }
                0
            }
            Acc::CurS(cur) => {
                let Some(v) = input.str(i) else { return 0 };
                let replace = match (cur.as_deref(), r.kind) {
                    (None, _) => true,
                    (Some(c), AggKind::Min) => v < c,
                    (Some(c), AggKind::Max) => v > c,
                    (Some(_), AggKind::FirstValue) => false,
                    (Some(c), _) => v != c,
                };
                if replace {
                    let old = cur.as_ref().map_or(0, |c| c.len());
                    *cur = Some(Box::from(v));
                    v.len() as isize - old as isize
                } else {
                    0
                }
            }
            Acc::SetI(m) => input.i64(i).map_or(0, |v| multiset(m, v, acc, 0)),
            Acc::SetF(m) => input.f64(i).map_or(0, |v| multiset(m, OrdF64(v), acc, 0)),
            Acc::SetS(m) => {
                let Some(v) = input.str(i) else { return 0 };
                if let Some(c) = m.get_mut(v) {
                    if acc {
                        *c += 1;
                        return 0;
                    }
                    *c -= 1;
                    if *c == 0 {
                        m.remove(v);
                        return -((v.len() + ENTRY) as isize);
                    }
                    0
                } else if acc {
                    m.insert(Box::from(v), 1);
                    (v.len() + ENTRY) as isize
                } else {
                    0
                }
            }
            Acc::Hist(h) => {
                let v = match r.vtype {
                    VType::I64 => input.i64(i).map(Val::I),
                    VType::F64 => input.f64(i).map(Val::F),
                    VType::Str => {
                        // Retractions compare borrowed; only a stored value is copied.
                        let Some(s) = input.str(i) else { return 0 };
                        if !acc {
                            return hist_remove(h, |x| matches!(x, Val::S(b) if **b == *s), s.len());
                        }
                        Some(Val::S(Box::from(s)))
                    }
                };
                let Some(v) = v else { return 0 };
                if acc {
                    let extra = if let Val::S(b) = &v { b.len() } else { 0 };
                    h.push_back(v);
                    (extra + ENTRY) as isize
                } else {
                    match v {
                        Val::I(x) => hist_remove(h, |y| matches!(y, Val::I(z) if *z == x), 0),
                        Val::F(x) => hist_remove(h, |y| matches!(y, Val::F(z) if OrdF64(*z) == OrdF64(x)), 0),
                        Val::S(_) => 0,
                    }
                }
            }
        }
    }

    /// The current aggregate value as a [`Slot`]; string values are copied
    /// to the end of `arena` (a per-batch buffer, reused).
    #[inline(always)]
    pub(crate) fn value(&self, r: &Resolved, arena: &mut Vec<u8>) -> Slot {
        match self {
            Acc::Count(c) => Slot::int(Some(*c)),
            Acc::SumI { sum, n } => Slot::int(match (n, r.kind) {
                (0, _) => None,
                (n, AggKind::Avg) => Some(sum.wrapping_div(*n)),
                _ => Some(*sum),
            }),
            Acc::SumF { sum, n } => Slot::float(match (n, r.kind) {
                (0, _) => None,
                (n, AggKind::Avg) => sum.map(|s| s / *n as f64),
                _ => *sum,
            }),
            Acc::CurI(v) => Slot::int(*v),
            Acc::CurF(v) => Slot::float(*v),
            Acc::CurS(v) => Slot::string(v.as_deref(), arena),
            Acc::SetI(m) => Slot::int(pick(m, r.kind).copied()),
            Acc::SetF(m) => Slot::float(pick(m, r.kind).map(|v| v.0)),
            Acc::SetS(m) => Slot::string(pick(m, r.kind).map(|v| &**v), arena),
            Acc::Hist(h) => {
                let v = if r.kind == AggKind::FirstValue { h.front() } else { h.back() };
                match v {
                    Some(Val::I(x)) => Slot::int(Some(*x)),
                    Some(Val::F(x)) => Slot::float(Some(*x)),
                    Some(Val::S(x)) => Slot::string(Some(x), arena),
                    None => Slot::NULL,
                }
            }
        }
    }

    /// Heap bytes retained by this accumulator (estimate).
    pub(crate) fn heap_size(&self) -> usize {
        match self {
            Acc::CurS(Some(s)) => s.len(),
            Acc::SetI(m) => m.len() * ENTRY,
            Acc::SetF(m) => m.len() * ENTRY,
            Acc::SetS(m) => m.keys().map(|k| k.len() + ENTRY).sum(),
            Acc::Hist(h) => h.iter().map(|v| ENTRY + if let Val::S(s) = v { s.len() } else { 0 }).sum(),
            _ => 0,
        }
    }

    pub(crate) fn write(&self, w: &mut Writer) {
        match self {
            Acc::Count(c) => {
                w.u8(0);
                w.i64(*c)
            }
            Acc::SumI { sum, n } => {
                w.u8(1);
                w.i64(*sum);
                w.i64(*n)
            }
            Acc::SumF { sum, n } => {
                w.u8(2);
                w.u8(sum.is_some() as u8);
                w.f64(sum.unwrap_or(0.0));
                w.i64(*n)
            }
            Acc::CurI(v) => {
                w.u8(3);
                w.u8(v.is_some() as u8);
                w.i64(v.unwrap_or(0))
            }
            Acc::CurF(v) => {
                w.u8(4);
                w.u8(v.is_some() as u8);
                w.f64(v.unwrap_or(0.0))
            }
            Acc::CurS(v) => {
                w.u8(5);
                w.u8(v.is_some() as u8);
                w.bytes(v.as_deref().unwrap_or(&[]))
            }
            Acc::SetI(m) => {
                w.u8(6);
                w.u32(m.len() as u32);
                for (k, c) in m {
                    w.i64(*k);
                    w.u64(*c);
                }
            }
            Acc::SetF(m) => {
                w.u8(7);
                w.u32(m.len() as u32);
                for (k, c) in m {
                    w.f64(k.0);
                    w.u64(*c);
                }
            }
            Acc::SetS(m) => {
                w.u8(8);
                w.u32(m.len() as u32);
                for (k, c) in m {
                    w.bytes(k);
                    w.u64(*c);
                }
            }
            Acc::Hist(h) => {
                w.u8(9);
                w.u32(h.len() as u32);
                for v in h {
                    match v {
                        Val::I(x) => {
                            w.u8(0);
                            w.i64(*x)
                        }
                        Val::F(x) => {
                            w.u8(1);
                            w.f64(*x)
                        }
                        Val::S(s) => {
                            w.u8(2);
                            w.bytes(s)
                        }
                    }
                }
            }
        }
    }

    /// Reads an accumulator and checks it is the shape `expected` has.
    pub(crate) fn read(r: &mut Reader<'_>, expected: &Acc) -> Result<Acc> {
        let tag = r.u8("accumulator tag")?;
        let acc = match tag {
            0 => Acc::Count(r.i64("count")?),
            1 => Acc::SumI { sum: r.i64("sum")?, n: r.i64("count")? },
            2 => {
                let some = r.u8("flag")? != 0;
                let sum = r.f64("sum")?;
                Acc::SumF { sum: some.then_some(sum), n: r.i64("count")? }
            }
            3 => {
                let some = r.u8("flag")? != 0;
                let v = r.i64("value")?;
                Acc::CurI(some.then_some(v))
            }
            4 => {
                let some = r.u8("flag")? != 0;
                let v = r.f64("value")?;
                Acc::CurF(some.then_some(v))
            }
            5 => {
                let some = r.u8("flag")? != 0;
                let v = r.bytes("value")?;
                Acc::CurS(some.then(|| Box::from(v)))
            }
            6 => {
                let n = r.count("multiset size", 16)?;
                let mut m = BTreeMap::new();
                for _ in 0..n {
                    m.insert(r.i64("value")?, r.u64("count")?);
                }
                Acc::SetI(m)
            }
            7 => {
                let n = r.count("multiset size", 16)?;
                let mut m = BTreeMap::new();
                for _ in 0..n {
                    m.insert(OrdF64(r.f64("value")?), r.u64("count")?);
                }
                Acc::SetF(m)
            }
            8 => {
                let n = r.count("multiset size", 12)?;
                let mut m = BTreeMap::new();
                for _ in 0..n {
                    let k: Box<[u8]> = Box::from(r.bytes("value")?);
                    m.insert(k, r.u64("count")?);
                }
                Acc::SetS(m)
            }
            9 => {
                let n = r.count("history size", 5)?;
                let mut h = VecDeque::with_capacity(n);
                for _ in 0..n {
                    h.push_back(match r.u8("value tag")? {
                        0 => Val::I(r.i64("value")?),
                        1 => Val::F(r.f64("value")?),
                        2 => Val::S(Box::from(r.bytes("value")?)),
                        t => return Err(r.corrupt(format!("unknown value tag {t}"))),
                    });
                }
                Acc::Hist(h)
            }
            t => return Err(r.corrupt(format!("unknown accumulator tag {t}"))),
        };
        if std::mem::discriminant(&acc) != std::mem::discriminant(expected) {
            return Err(r.corrupt("accumulator kind does not match the operator's aggregate"));
        }
        Ok(acc)
    }
}

fn multiset<K: Ord>(m: &mut BTreeMap<K, u64>, v: K, acc: bool, extra: usize) -> isize {
    if acc {
        let c = m.entry(v).or_insert(0);
        *c += 1;
        if *c == 1 {
            (ENTRY + extra) as isize
        } else {
            0
        }
    } else if let Some(c) = m.get_mut(&v) {
        *c -= 1;
        if *c == 0 {
            m.remove(&v);
            return -((ENTRY + extra) as isize);
        }
        0
    } else {
        0
    }
}

fn pick<K>(m: &BTreeMap<K, u64>, kind: AggKind) -> Option<&K> {
    if kind == AggKind::Min {
        m.keys().next()
    } else {
        m.keys().next_back()
    }
}

fn hist_remove(h: &mut VecDeque<Val>, eq: impl Fn(&Val) -> bool, extra: usize) -> isize {
    match h.iter().position(eq) {
        Some(p) => {
            h.remove(p);
            -((ENTRY + extra) as isize)
        }
        None => 0,
    }
}

// ---------------------------------------------------------------------------
// Output columns
// ---------------------------------------------------------------------------

/// One aggregate value of an output row: raw bits of an i64/f64, or a
/// string's `(start, len)` in the batch's string arena.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Slot {
    a: u64,
    b: u32,
    valid: bool,
}

impl Slot {
    pub(crate) const NULL: Slot = Slot { a: 0, b: 0, valid: false };

    #[inline(always)]
    fn int(v: Option<i64>) -> Slot {
        match v {
            Some(x) => Slot { a: x as u64, b: 0, valid: true },
            None => Slot::NULL,
        }
    }
    #[inline(always)]
    fn float(v: Option<f64>) -> Slot {
        match v {
            Some(x) => Slot { a: x.to_bits(), b: 0, valid: true },
            None => Slot::NULL,
        }
    }
    #[inline(always)]
    fn string(v: Option<&[u8]>, arena: &mut Vec<u8>) -> Slot {
        match v {
            Some(s) => {
                let a = arena.len() as u64;
                arena.extend_from_slice(s);
                Slot { a, b: s.len() as u32, valid: true }
            }
            None => Slot::NULL,
        }
    }

    /// Flink's generated record equaliser on one field: NULL equals NULL,
    /// BIGINT by value, DOUBLE with `==` (NaN never equal, -0.0 == 0.0),
    /// strings by bytes.
    #[inline(always)]
    pub(crate) fn same(self, o: Slot, t: VType, arena: &[u8]) -> bool {
        if self.valid != o.valid {
            return false;
        }
        if !self.valid {
            return true;
        }
        match t {
            VType::I64 => self.a == o.a,
            #[allow(clippy::float_cmp)]
            VType::F64 => f64::from_bits(self.a) == f64::from_bits(o.a),
            VType::Str => self.b == o.b && str_of(self, arena) == str_of(o, arena),
        }
    }
}

#[inline(always)]
fn str_of(s: Slot, arena: &[u8]) -> &[u8] {
    let start = s.a as usize;
    arena.get(start..start + s.b as usize).unwrap_or(&[])
}

/// Builds the output columns from row-major slots (`types.len()` per row),
/// one pass over the rows.
pub(crate) fn finish_columns(rows: &[Slot], types: &[VType], arena: &[u8]) -> Result<Vec<ArrayRef>> {
    let k = types.len();
    if k == 0 {
        return Ok(Vec::new());
    }
    let n = rows.len() / k;
    let mut vals: Vec<Vec<u64>> = (0..k).map(|_| Vec::with_capacity(n)).collect();
    let mut valid: Vec<Vec<bool>> = (0..k).map(|_| Vec::with_capacity(n)).collect();
    for row in rows.chunks_exact(k) {
        for ((s, v), b) in row.iter().zip(vals.iter_mut()).zip(valid.iter_mut()) {
            v.push(s.a);
            b.push(s.valid);
        }
    }
    let mut out = Vec::with_capacity(k);
    for (j, (t, (v, b))) in types.iter().zip(vals.into_iter().zip(valid)).enumerate() {
        let nulls = if b.iter().all(|&x| x) { None } else { Some(NullBuffer::from(b)) };
        out.push(match t {
            VType::I64 => {
                let v: Vec<i64> = v.into_iter().map(|x| x as i64).collect();
                std::sync::Arc::new(Int64Array::new(ScalarBuffer::from(v), nulls)) as ArrayRef
            }
            VType::F64 => {
                let v: Vec<f64> = v.into_iter().map(f64::from_bits).collect();
                std::sync::Arc::new(Float64Array::new(ScalarBuffer::from(v), nulls))
            }
            VType::Str => string_column(rows, k, j, arena, nulls)?,
        });
    }
    Ok(out)
}

fn string_column(rows: &[Slot], k: usize, j: usize, arena: &[u8], nulls: Option<NullBuffer>) -> Result<ArrayRef> {
    let col = || rows.chunks_exact(k).filter_map(move |r| r.get(j).copied());
    let total: usize = col().map(|s| if s.valid { s.b as usize } else { 0 }).sum();
    if total > i32::MAX as usize {
        return Err(Error::OffsetOverflow { needed: total, limit: i32::MAX as usize });
    }
    let mut offsets = Vec::with_capacity(rows.len() / k + 1);
    offsets.push(0i32);
    let mut data = Vec::with_capacity(total);
    for s in col() {
        if s.valid {
            data.extend_from_slice(str_of(s, arena));
        }
        offsets.push(data.len() as i32);
    }
    Ok(std::sync::Arc::new(StringArray::try_new(
        OffsetBuffer::new(ScalarBuffer::from(offsets)),
        arrow_buffer::Buffer::from_vec(data),
        nulls,
    )?))
}
