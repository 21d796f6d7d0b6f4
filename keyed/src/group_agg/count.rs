//! `COUNT(*)` / `COUNT(x)`: a count per group (BIGINT, never NULL;
//! Flink's `Count1AggFunction` / `CountAggFunction`).

use arrow_array::{Array, ArrayRef};

use super::accumulator::{eq_i, expect_tag, sign, Accumulator};
use super::drive::{drive_with, Every, Held, Pass, Valid};
use crate::agg::{AggKind, VType};
use crate::error::Result;
use crate::snapshot::{Reader, Writer};

/// Counts per group: of rows (`COUNT(*)`) or of non-NULL values (`COUNT(x)`).
pub(crate) struct Count {
    /// `COUNT(x)`: only non-NULL values count.
    non_null: bool,
}

impl Count {
    pub(crate) fn new(kind: AggKind) -> Self {
        Count { non_null: kind == AggKind::Count }
    }
}

impl Accumulator for Count {
    type State = i64;

    fn empty(&self) -> i64 {
        0
    }

    fn output_type(&self) -> VType {
        VType::I64
    }

    fn update_batch(&self, st: &mut [i64], input: Option<&ArrayRef>, pass: Pass<'_, '_>) -> Result<isize> {
        let apply = |c: &mut i64, x: bool, acc: bool| {
            if x {
                *c += sign(acc);
            }
            0
        };
        let value = |c: &i64| Some(*c as u64);
        let clear = |c: &mut i64| {
            *c = 0;
            0
        };
        Ok(match input.filter(|_| self.non_null) {
            None => drive_with(Held::new(st), pass, Every, apply, value, eq_i, clear),
            Some(a) => drive_with(Held::new(st), pass, Valid(a.nulls()), apply, value, eq_i, clear),
        })
    }

    fn write(&self, s: &i64, w: &mut Writer) {
        w.u8(0);
        w.i64(*s)
    }

    fn read(&self, r: &mut Reader<'_>) -> Result<i64> {
        expect_tag(r, 0)?;
        r.i64("count")
    }
}
