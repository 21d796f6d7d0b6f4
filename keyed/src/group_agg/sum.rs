//! `SUM`, `$SUM0` and `AVG` of BIGINT and DOUBLE: a sum and the number of
//! non-NULL values per group (`SumWithRetractAggFunction`,
//! `Sum0AggFunction`, `AvgAggFunction`; semantics in [`crate::agg`]).

use arrow_array::ArrayRef;

use super::accumulator::{elem_size, eq_f, eq_i, expect_tag, required, sign, slot_mut, GroupsAccumulator, Num};
use super::drive::{drive, OutBuf, Plan};
use crate::agg::{AggKind, VType};
use crate::error::Result;
use crate::snapshot::{Reader, Writer};

/// An integer SUM/AVG accumulator: the sum and the number of non-NULL values.
#[derive(Clone, Copy, Debug, Default)]
struct SumI {
    sum: i64,
    n: i64,
}

/// A double SUM/AVG accumulator. `sum` starts NULL for SUM (the first value
/// becomes the sum, so SUM(-0.0) is -0.0) and 0.0 for AVG and `$SUM0`.
#[derive(Clone, Copy, Debug)]
struct SumF {
    sum: Option<f64>,
    n: i64,
}

/// `SUM` / `$SUM0` / `AVG` of BIGINT (sums wrap like Java `long`).
pub(crate) struct SumI64 {
    sums: Vec<SumI>,
    kind: AggKind,
}

impl SumI64 {
    pub(crate) fn new(kind: AggKind) -> Self {
        SumI64 { sums: Vec::new(), kind }
    }
}

impl GroupsAccumulator for SumI64 {
    fn push_group(&mut self) {
        self.sums.push(SumI::default());
    }

    fn truncate(&mut self, len: usize) {
        self.sums.truncate(len);
    }

    fn update_batch(
        &mut self,
        input: Option<&ArrayRef>,
        plan: &Plan<'_>,
        out: &mut OutBuf,
        changed: &mut [bool],
    ) -> Result<isize> {
        let (kind, st) = (self.kind, &mut self.sums[..]);
        let inp = i64::input(required(input, kind)?)?;
        let apply = |s: &mut SumI, x: Option<i64>, acc: bool| {
            if let Some(v) = x {
                s.sum = if acc { s.sum.wrapping_add(v) } else { s.sum.wrapping_sub(v) };
                s.n += sign(acc);
            }
            0
        };
        let clear = |s: &mut SumI| {
            *s = SumI::default();
            0
        };
        Ok(if kind == AggKind::Avg {
            // Java long division.
            let value = |s: &SumI| (s.n != 0).then(|| s.sum.wrapping_div(s.n) as u64);
            drive(st, plan, out, changed, inp, apply, value, eq_i, clear)
        } else if kind == AggKind::Sum0 {
            // `$SUM0`: never NULL (Sum0AggFunction).
            let value = |s: &SumI| Some(s.sum as u64);
            drive(st, plan, out, changed, inp, apply, value, eq_i, clear)
        } else {
            let value = |s: &SumI| (s.n != 0).then_some(s.sum as u64);
            drive(st, plan, out, changed, inp, apply, value, eq_i, clear)
        })
    }

    fn output_type(&self) -> VType {
        VType::I64
    }

    fn write_state(&self, slot: usize, w: &mut Writer) {
        let a = self.sums.get(slot).copied().unwrap_or_default();
        w.u8(1);
        w.i64(a.sum);
        w.i64(a.n)
    }

    fn read_state(&mut self, slot: usize, r: &mut Reader<'_>) -> Result<()> {
        expect_tag(r, 1)?;
        let a = SumI { sum: r.i64("sum")?, n: r.i64("count")? };
        *slot_mut(&mut self.sums, slot)? = a;
        Ok(())
    }

    fn slot_bytes(&self) -> usize {
        elem_size(&self.sums)
    }
}

/// `SUM` / `$SUM0` / `AVG` of DOUBLE.
pub(crate) struct SumF64 {
    sums: Vec<SumF>,
    kind: AggKind,
}

impl SumF64 {
    pub(crate) fn new(kind: AggKind) -> Self {
        SumF64 { sums: Vec::new(), kind }
    }

    /// The empty accumulator of this aggregate.
    fn empty(&self) -> SumF {
        SumF { sum: matches!(self.kind, AggKind::Avg | AggKind::Sum0).then_some(0.0), n: 0 }
    }
}

impl GroupsAccumulator for SumF64 {
    fn push_group(&mut self) {
        let e = self.empty();
        self.sums.push(e);
    }

    fn truncate(&mut self, len: usize) {
        self.sums.truncate(len);
    }

    fn update_batch(
        &mut self,
        input: Option<&ArrayRef>,
        plan: &Plan<'_>,
        out: &mut OutBuf,
        changed: &mut [bool],
    ) -> Result<isize> {
        let (kind, empty) = (self.kind, self.empty());
        let st = &mut self.sums[..];
        let inp = f64::input(required(input, kind)?)?;
        let apply = |s: &mut SumF, x: Option<f64>, acc: bool| {
            if let Some(v) = x {
                // plus(sum, v) / minus(sum, v), a NULL sum taken as v / 0 - v.
                s.sum = Some(match (s.sum, acc) {
                    (None, true) => v,
                    (None, false) => 0.0 - v,
                    (Some(t), true) => t + v,
                    (Some(t), false) => t - v,
                });
                s.n += sign(acc);
            }
            0
        };
        let clear = move |s: &mut SumF| {
            *s = empty;
            0
        };
        Ok(if kind == AggKind::Avg {
            let value = |s: &SumF| if s.n == 0 { None } else { s.sum.map(|t| (t / s.n as f64).to_bits()) };
            drive(st, plan, out, changed, inp, apply, value, eq_f, clear)
        } else if kind == AggKind::Sum0 {
            let value = |s: &SumF| Some(s.sum.unwrap_or(0.0).to_bits());
            drive(st, plan, out, changed, inp, apply, value, eq_f, clear)
        } else {
            let value = |s: &SumF| if s.n == 0 { None } else { s.sum.map(f64::to_bits) };
            drive(st, plan, out, changed, inp, apply, value, eq_f, clear)
        })
    }

    fn output_type(&self) -> VType {
        VType::F64
    }

    fn write_state(&self, slot: usize, w: &mut Writer) {
        let a = self.sums.get(slot).copied().unwrap_or(self.empty());
        w.u8(2);
        w.u8(a.sum.is_some() as u8);
        w.f64(a.sum.unwrap_or(0.0));
        w.i64(a.n)
    }

    fn read_state(&mut self, slot: usize, r: &mut Reader<'_>) -> Result<()> {
        expect_tag(r, 2)?;
        let some = r.u8("flag")? != 0;
        let sum = r.f64("sum")?;
        let a = SumF { sum: some.then_some(sum), n: r.i64("count")? };
        *slot_mut(&mut self.sums, slot)? = a;
        Ok(())
    }

    fn slot_bytes(&self) -> usize {
        elem_size(&self.sums)
    }
}
