//! `SUM`, `$SUM0` and `AVG` of BIGINT and DOUBLE: a sum and the number of
//! non-NULL values per group (`SumWithRetractAggFunction`,
//! `Sum0AggFunction`, `AvgAggFunction`; semantics in [`crate::agg`]).

use arrow_array::ArrayRef;

use super::accumulator::{eq_f, eq_i, expect_tag, required, sign, Accumulator, Num};
use super::drive::{drive_with, Held, Pass};
use crate::agg::{AggKind, VType};
use crate::error::Result;
use crate::snapshot::{Reader, Writer};

/// An integer SUM/AVG accumulator: the sum and the number of non-NULL values.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct SumI {
    sum: i64,
    n: i64,
}

/// A double SUM/AVG accumulator. `sum` starts NULL for SUM (the first value
/// becomes the sum, so SUM(-0.0) is -0.0) and 0.0 for AVG and `$SUM0`.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct SumF {
    sum: Option<f64>,
    n: i64,
}

/// `SUM` / `$SUM0` / `AVG` of BIGINT (sums wrap like Java `long`).
pub(crate) struct SumI64 {
    kind: AggKind,
}

impl SumI64 {
    pub(crate) fn new(kind: AggKind) -> Self {
        SumI64 { kind }
    }
}

impl Accumulator for SumI64 {
    type State = SumI;

    fn empty(&self) -> SumI {
        SumI::default()
    }

    fn output_type(&self) -> VType {
        VType::I64
    }

    fn update_batch(&self, st: &mut [SumI], input: Option<&ArrayRef>, pass: Pass<'_, '_>) -> Result<isize> {
        let kind = self.kind;
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
            drive_with(Held::new(st), pass, inp, apply, value, eq_i, clear)
        } else if kind == AggKind::Sum0 {
            // `$SUM0`: never NULL (Sum0AggFunction).
            let value = |s: &SumI| Some(s.sum as u64);
            drive_with(Held::new(st), pass, inp, apply, value, eq_i, clear)
        } else {
            let value = |s: &SumI| (s.n != 0).then_some(s.sum as u64);
            drive_with(Held::new(st), pass, inp, apply, value, eq_i, clear)
        })
    }

    fn write(&self, a: &SumI, w: &mut Writer) {
        w.u8(1);
        w.i64(a.sum);
        w.i64(a.n)
    }

    fn read(&self, r: &mut Reader<'_>) -> Result<SumI> {
        expect_tag(r, 1)?;
        Ok(SumI { sum: r.i64("sum")?, n: r.i64("count")? })
    }
}

/// `SUM` / `$SUM0` / `AVG` of DOUBLE.
pub(crate) struct SumF64 {
    kind: AggKind,
}

impl SumF64 {
    pub(crate) fn new(kind: AggKind) -> Self {
        SumF64 { kind }
    }
}

impl Accumulator for SumF64 {
    type State = SumF;

    fn empty(&self) -> SumF {
        SumF { sum: matches!(self.kind, AggKind::Avg | AggKind::Sum0).then_some(0.0), n: 0 }
    }

    fn output_type(&self) -> VType {
        VType::F64
    }

    fn update_batch(&self, st: &mut [SumF], input: Option<&ArrayRef>, pass: Pass<'_, '_>) -> Result<isize> {
        let (kind, empty) = (self.kind, self.empty());
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
            drive_with(Held::new(st), pass, inp, apply, value, eq_f, clear)
        } else if kind == AggKind::Sum0 {
            let value = |s: &SumF| Some(s.sum.unwrap_or(0.0).to_bits());
            drive_with(Held::new(st), pass, inp, apply, value, eq_f, clear)
        } else {
            let value = |s: &SumF| if s.n == 0 { None } else { s.sum.map(f64::to_bits) };
            drive_with(Held::new(st), pass, inp, apply, value, eq_f, clear)
        })
    }

    fn write(&self, a: &SumF, w: &mut Writer) {
        w.u8(2);
        w.u8(a.sum.is_some() as u8);
        w.f64(a.sum.unwrap_or(0.0));
        w.i64(a.n)
    }

    fn read(&self, r: &mut Reader<'_>) -> Result<SumF> {
        expect_tag(r, 2)?;
        let some = r.u8("flag")? != 0;
        let sum = r.f64("sum")?;
        Ok(SumF { sum: some.then_some(sum), n: r.i64("count")? })
    }
}
