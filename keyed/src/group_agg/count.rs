//! `COUNT(*)` / `COUNT(x)`: a count per group (BIGINT, never NULL;
//! Flink's `Count1AggFunction` / `CountAggFunction`).

use arrow_array::{Array, ArrayRef};

use super::accumulator::{elem_size, eq_i, expect_tag, sign, slot_mut, GroupsAccumulator};
use super::drive::{drive, Every, OutBuf, Plan, Valid};
use crate::agg::{AggKind, VType};
use crate::error::Result;
use crate::snapshot::{Reader, Writer};

/// Counts per group: of rows (`COUNT(*)`) or of non-NULL values (`COUNT(x)`).
pub(crate) struct Count {
    counts: Vec<i64>,
    /// `COUNT(x)`: only non-NULL values count.
    non_null: bool,
}

impl Count {
    pub(crate) fn new(kind: AggKind) -> Self {
        Count { counts: Vec::new(), non_null: kind == AggKind::Count }
    }
}

impl GroupsAccumulator for Count {
    fn push_group(&mut self) {
        self.counts.push(0);
    }

    fn truncate(&mut self, len: usize) {
        self.counts.truncate(len);
    }

    fn update_batch(
        &mut self,
        input: Option<&ArrayRef>,
        plan: &Plan<'_>,
        out: &mut OutBuf,
        changed: &mut [bool],
    ) -> Result<isize> {
        let st = &mut self.counts[..];
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
            None => drive(st, plan, out, changed, Every, apply, value, eq_i, clear),
            Some(a) => drive(st, plan, out, changed, Valid(a.nulls()), apply, value, eq_i, clear),
        })
    }

    fn output_type(&self) -> VType {
        VType::I64
    }

    fn write_state(&self, slot: usize, w: &mut Writer) {
        w.u8(0);
        w.i64(self.counts.get(slot).copied().unwrap_or(0))
    }

    fn read_state(&mut self, slot: usize, r: &mut Reader<'_>) -> Result<()> {
        expect_tag(r, 0)?;
        let n = r.i64("count")?;
        *slot_mut(&mut self.counts, slot)? = n;
        Ok(())
    }

    fn slot_bytes(&self) -> usize {
        elem_size(&self.counts)
    }
}
