//! The accumulators of the window aggregate: one state per slice slot,
//! folded from contiguous row ranges of a batch and merged slice into
//! window at fire time.
//!
//! The window aggregate uses the planner's insert-only aggregate functions
//! (`flink-table-planner/.../functions/aggfunctions/`: `CountAggFunction`,
//! `Count1AggFunction`, `SumAggFunction`, `Sum0AggFunction`,
//! `AvgAggFunction`, `MinAggFunction`, `MaxAggFunction`), whose
//! `accumulateExpressions` and `mergeExpressions` this module follows:
//! * COUNT / COUNT(*): counts, merged by addition.
//! * SUM: NULL until the first non-NULL value, which becomes the sum (so
//!   SUM(-0.0) is -0.0); merge adds a non-NULL slice sum into the window's.
//!   `$SUM0` and AVG start at 0; AVG is `sum / count` (BIGINT: Java long
//!   division), NULL over no values. BIGINT sums wrap like Java `long`.
//! * MIN / MAX: a value replaces the current one when it compares strictly
//!   less / greater (`lessThan` / `greaterThan`: Java `<` / `>` on BIGINT and
//!   DOUBLE, so NaN never replaces a value and a first NaN stays;
//!   `BinaryStringData.compareTo`, unsigned bytes, on strings); merge applies
//!   the same rule slice by slice.
//!
//! Folds run in row order and merges in Flink's slice order, so DOUBLE sums
//! round exactly as Flink's do. The group aggregate's accumulators
//! (`group_agg/`) are driven by its changelog plan (every row's value before
//! and after) and keep retractable state, so they do not fit here; what both
//! share is the aggregate resolution ([`crate::agg`]) and the output
//! buffers ([`OutBuf`], `finish_column`).
//!
//! Snapshot tags (per slice, per aggregate, then the fields little-endian):
//! `0` COUNT (i64); `1` BIGINT SUM/AVG (sum i64, count i64); `2` DOUBLE
//! SUM/AVG (flag u8, sum f64, count i64); `3` / `4` / `5` MIN/MAX of BIGINT /
//! DOUBLE / VARCHAR (flag u8, value).

use std::ops::Range;

mod col;
mod minmax;
mod win_acc;

pub(crate) use self::col::Col;
use self::minmax::{MinMax, MinMaxStr};
pub(crate) use self::win_acc::WinAcc;
use self::win_acc::{expect_tag, push_num};
use crate::agg::{AggKind, Resolved, VType};
use crate::error::{invalid_arg, Result};
use crate::group_agg::drive::OutBuf;
use crate::snapshot::{Reader, Writer};

/// The accumulator of resolved aggregate `r`.
///
/// # Errors
/// FIRST_VALUE / LAST_VALUE, which the window aggregate does not support.
pub(crate) fn new_acc(r: &Resolved) -> Result<Box<dyn WinAcc>> {
    Ok(match (r.kind, r.vtype) {
        (AggKind::CountStar | AggKind::Count, _) => Box::new(Count { states: Vec::new() }),
        (AggKind::Sum | AggKind::Sum0 | AggKind::Avg, VType::I64) => {
            Box::new(SumI { kind: r.kind, states: Vec::new() })
        }
        (AggKind::Sum | AggKind::Sum0 | AggKind::Avg, _) => Box::new(SumF { kind: r.kind, states: Vec::new() }),
        (AggKind::Min | AggKind::Max, VType::I64) => {
            Box::new(MinMax::<i64> { min: r.kind == AggKind::Min, states: Vec::new() })
        }
        (AggKind::Min | AggKind::Max, VType::F64) => {
            Box::new(MinMax::<f64> { min: r.kind == AggKind::Min, states: Vec::new() })
        }
        (AggKind::Min | AggKind::Max, VType::Str) => {
            Box::new(MinMaxStr { min: r.kind == AggKind::Min, states: Vec::new(), copy_every: false })
        }
        (kind, _) => {
            return Err(invalid_arg(format!("{kind:?} is not supported by the window aggregate")));
        }
    })
}

/// COUNT(*) / COUNT(x): the resolution decides whether the column is
/// given (COUNT(x) counts its non-NULL rows).
struct Count {
    states: Vec<i64>,
}

impl WinAcc for Count {
    fn push_slot(&mut self) {
        self.states.push(0);
    }
    fn truncate(&mut self, len: usize) {
        self.states.truncate(len);
    }
    fn clear(&mut self, slot: usize) -> usize {
        if let Some(s) = self.states.get_mut(slot) {
            *s = 0;
        }
        0
    }
    fn fold(&mut self, slot: usize, col: &Col<'_>, rows: Range<usize>) -> usize {
        let n = match col {
            Col::Rows | Col::I64(_, None) | Col::F64(_, None) => rows.len(),
            _ => rows.filter(|&i| col.valid(i)).count(),
        };
        if let Some(s) = self.states.get_mut(slot) {
            *s = s.wrapping_add(n as i64);
        }
        0
    }
    fn merge(&mut self, dst: usize, src: usize) -> usize {
        let v = self.states.get(src).copied().unwrap_or(0);
        if let Some(d) = self.states.get_mut(dst) {
            *d = d.wrapping_add(v);
        }
        0
    }
    fn emit(&self, slot: usize, out: &mut OutBuf) {
        push_num(out, Some(self.states.get(slot).copied().unwrap_or(0) as u64));
    }
    fn vtype(&self) -> VType {
        VType::I64
    }
    fn write(&self, slot: usize, w: &mut Writer) {
        w.u8(0);
        w.i64(self.states.get(slot).copied().unwrap_or(0));
    }
    fn read(&mut self, slot: usize, r: &mut Reader<'_>) -> Result<usize> {
        expect_tag(r, 0)?;
        let v = r.i64("count")?;
        *self.states.get_mut(slot).ok_or_else(|| invalid_arg("restore: slot missing"))? = v;
        Ok(0)
    }
    fn slot_bytes(&self) -> usize {
        8
    }
}

/// BIGINT SUM / $SUM0 / AVG: the sum and the number of non-NULL values.
struct SumI {
    kind: AggKind,
    states: Vec<(i64, i64)>,
}

impl WinAcc for SumI {
    fn push_slot(&mut self) {
        self.states.push((0, 0));
    }
    fn truncate(&mut self, len: usize) {
        self.states.truncate(len);
    }
    fn clear(&mut self, slot: usize) -> usize {
        if let Some(s) = self.states.get_mut(slot) {
            *s = (0, 0);
        }
        0
    }
    fn fold(&mut self, slot: usize, col: &Col<'_>, rows: Range<usize>) -> usize {
        let Col::I64(vals, nulls) = col else { return 0 };
        let Some(s) = self.states.get_mut(slot) else { return 0 };
        let Some(vs) = vals.get(rows.clone()) else { return 0 };
        match nulls {
            None => {
                s.0 = vs.iter().fold(s.0, |a, &v| a.wrapping_add(v));
                s.1 += vs.len() as i64;
            }
            Some(n) => {
                for (i, &v) in rows.zip(vs) {
                    if n.is_valid(i) {
                        s.0 = s.0.wrapping_add(v);
                        s.1 += 1;
                    }
                }
            }
        }
        0
    }
    fn merge(&mut self, dst: usize, src: usize) -> usize {
        let v = self.states.get(src).copied().unwrap_or((0, 0));
        if let Some(d) = self.states.get_mut(dst) {
            *d = (d.0.wrapping_add(v.0), d.1 + v.1);
        }
        0
    }
    fn emit(&self, slot: usize, out: &mut OutBuf) {
        let (sum, n) = self.states.get(slot).copied().unwrap_or((0, 0));
        let v = match self.kind {
            AggKind::Sum0 => Some(sum),
            AggKind::Avg => (n != 0).then(|| sum.wrapping_div(n)),
            _ => (n != 0).then_some(sum),
        };
        push_num(out, v.map(|v| v as u64));
    }
    fn vtype(&self) -> VType {
        VType::I64
    }
    fn write(&self, slot: usize, w: &mut Writer) {
        let (sum, n) = self.states.get(slot).copied().unwrap_or((0, 0));
        w.u8(1);
        w.i64(sum);
        w.i64(n);
    }
    fn read(&mut self, slot: usize, r: &mut Reader<'_>) -> Result<usize> {
        expect_tag(r, 1)?;
        let v = (r.i64("sum")?, r.i64("count")?);
        *self.states.get_mut(slot).ok_or_else(|| invalid_arg("restore: slot missing"))? = v;
        Ok(0)
    }
    fn slot_bytes(&self) -> usize {
        16
    }
}

/// DOUBLE SUM / $SUM0 / AVG: the sum (NULL before the first value for SUM)
/// and the number of non-NULL values.
struct SumF {
    kind: AggKind,
    states: Vec<(Option<f64>, i64)>,
}

impl SumF {
    fn empty(&self) -> (Option<f64>, i64) {
        (matches!(self.kind, AggKind::Avg | AggKind::Sum0).then_some(0.0), 0)
    }
}

impl WinAcc for SumF {
    fn push_slot(&mut self) {
        let e = self.empty();
        self.states.push(e);
    }
    fn truncate(&mut self, len: usize) {
        self.states.truncate(len);
    }
    fn clear(&mut self, slot: usize) -> usize {
        let e = self.empty();
        if let Some(s) = self.states.get_mut(slot) {
            *s = e;
        }
        0
    }
    fn fold(&mut self, slot: usize, col: &Col<'_>, rows: Range<usize>) -> usize {
        let Col::F64(vals, nulls) = col else { return 0 };
        let Some(s) = self.states.get_mut(slot) else { return 0 };
        let Some(vs) = vals.get(rows.clone()) else { return 0 };
        let mut add = |v: f64| {
            s.0 = Some(match s.0 {
                None => v,
                Some(t) => t + v,
            });
            s.1 += 1;
        };
        match nulls {
            None => vs.iter().for_each(|&v| add(v)),
            Some(n) => rows.zip(vs).filter(|(i, _)| n.is_valid(*i)).for_each(|(_, &v)| add(v)),
        }
        0
    }
    fn merge(&mut self, dst: usize, src: usize) -> usize {
        let Some(&(v, c)) = self.states.get(src) else { return 0 };
        if let Some(d) = self.states.get_mut(dst) {
            d.0 = match (d.0, v) {
                (x, None) => x,
                (None, y) => y,
                (Some(a), Some(b)) => Some(a + b),
            };
            d.1 += c;
        }
        0
    }
    fn emit(&self, slot: usize, out: &mut OutBuf) {
        let (sum, n) = self.states.get(slot).copied().unwrap_or((None, 0));
        let v = match self.kind {
            AggKind::Sum0 => Some(sum.unwrap_or(0.0)),
            AggKind::Avg => (n != 0).then(|| sum.unwrap_or(0.0) / n as f64),
            _ => sum.filter(|_| n != 0),
        };
        push_num(out, v.map(f64::to_bits));
    }
    fn vtype(&self) -> VType {
        VType::F64
    }
    fn write(&self, slot: usize, w: &mut Writer) {
        let (sum, n) = self.states.get(slot).copied().unwrap_or((None, 0));
        w.u8(2);
        w.u8(sum.is_some() as u8);
        w.f64(sum.unwrap_or(0.0));
        w.i64(n);
    }
    fn read(&mut self, slot: usize, r: &mut Reader<'_>) -> Result<usize> {
        expect_tag(r, 2)?;
        let some = r.u8("flag")? != 0;
        let sum = r.f64("sum")?;
        let v = (some.then_some(sum), r.i64("count")?);
        *self.states.get_mut(slot).ok_or_else(|| invalid_arg("restore: slot missing"))? = v;
        Ok(0)
    }
    fn slot_bytes(&self) -> usize {
        24
    }
}
