//! The native WHERE of a [`CalcProgram`]: filter first, project the rows
//! that pass.
//!
//! Some output columns can be marked as filters ([`CalcProgram::with_filters`],
//! BOOLEAN expressions such as `a LIKE '%x%'`, the conjuncts of a WHERE). A
//! batch then runs as Flink's generated Calc runs a row: the filter
//! expressions are evaluated over every row, a row is kept only when every
//! filter is TRUE (FALSE and NULL drop it), and the other expressions are
//! evaluated only over the kept rows, so a projection never runs (nor fails,
//! e.g. SHA2 with a bad per-row width) on a row the WHERE removes. Only the
//! kept rows are written by the exit transpose.
//!
//! The output keeps one entry per input row, so a caller can match output to
//! input rows (timestamps, held watermarks) without another array: a
//! dropped row is an empty row (`offsets[i] == offsets[i + 1]`; a written
//! `BinaryRowData` is never empty, its header alone is 8 bytes). The filter
//! columns stay in the written rows (TRUE there).
//!
//! Columns that arrived as UTF-16 ([`super::input::utf16`]) are borrowed
//! Java values the evaluator reads beside the batch, so with them every
//! expression runs over every row and the result is filtered afterwards
//! (the same rows come out; only the saving is lost).

use std::sync::Arc;

use arrow_array::{Array, ArrayRef, BooleanArray, RecordBatch, RecordBatchOptions};
use arrow_buffer::BooleanBuffer;
use arrow_select::filter::{filter, filter_record_batch};
use sluice_transpose::lazy_strings::Utf16Column;
use sluice_transpose::{NullLayout, Rows, TypeKind};

use super::eval;
use super::CalcProgram;
use crate::error::{Error, Result};

impl CalcProgram {
    /// Marks output columns `filters` as the WHERE: each must be a BOOLEAN
    /// expression; a row is output only if all of them are TRUE, and the
    /// other columns are computed only for such rows (module docs).
    ///
    /// # Errors
    /// As [`Self::set_filters`].
    pub fn with_filters(mut self, filters: &[usize]) -> Result<Self> {
        self.set_filters(filters)?;
        Ok(self)
    }

    /// As [`Self::with_filters`], in place (an empty list: no WHERE).
    ///
    /// # Errors
    /// [`Error::Bind`] for a column out of range, listed twice, or not
    /// BOOLEAN; the program is then unchanged.
    pub fn set_filters(&mut self, filters: &[usize]) -> Result<()> {
        let mut seen = vec![false; self.exprs.len()];
        for &f in filters {
            let (Some(t), Some(s)) = (self.out_types.get(f), seen.get_mut(f)) else {
                return Err(Error::bind(format!("filter column {f} of {} output columns", self.exprs.len())));
            };
            if *s {
                return Err(Error::bind(format!("filter column {f} listed twice")));
            }
            if t.kind != TypeKind::Boolean {
                return Err(Error::bind(format!("filter column {f} is {t}, not BOOLEAN")));
            }
            *s = true;
        }
        self.filters = filters.to_vec();
        Ok(())
    }

    /// The output columns that filter ([`Self::with_filters`]).
    pub fn filters(&self) -> &[usize] {
        &self.filters
    }

    /// Evaluates the program over `batch` (RowKinds in `self.kinds`) and
    /// writes the output rows to `out`, filtering first when the program
    /// has filters (module docs): every input path ends here.
    ///
    /// # Errors
    /// Kernel errors, exit transpose errors.
    pub(crate) fn project_into(
        &mut self,
        batch: &RecordBatch,
        utf16: &[Utf16Column<'_>],
        out: &mut Rows,
    ) -> Result<()> {
        if self.filters.is_empty() {
            let projected = self.eval_with_utf16(batch, utf16)?;
            self.output.batch_to_rows_into(&projected, Some(&self.kinds), NullLayout::Serializer, out)?;
            return Ok(());
        }
        let n = batch.num_rows();
        let mut tests = Vec::with_capacity(self.filters.len());
        let mut keep = BooleanBuffer::new_set(n);
        for &f in &self.filters {
            let b = self.exprs.get(f).ok_or_else(|| Error::invalid(format!("filter column {f} missing")))?;
            let v = eval::eval(b, batch, utf16)?.array;
            let bools = v
                .as_any()
                .downcast_ref::<BooleanArray>()
                .filter(|a| a.len() == n)
                .ok_or_else(|| Error::invalid(format!("filter column {f} is not {n} BOOLEAN values")))?;
            keep = &keep & bools.values();
            if let Some(valid) = bools.nulls() {
                keep = &keep & valid.inner();
            }
            tests.push(v);
        }
        let mask = BooleanArray::new(keep, None);
        let kept = mask.true_count();
        self.kept_kinds.clear();
        self.kept_kinds.extend(self.kinds.iter().zip(mask.values().iter()).filter(|(_, k)| *k).map(|(r, _)| *r));
        let projected = if kept == 0 {
            None
        } else if !utf16.is_empty() {
            Some(filter_record_batch(&self.eval_with_utf16(batch, utf16)?, &mask)?)
        } else {
            Some(self.eval_kept(&filter_record_batch(batch, &mask)?, &tests, &mask)?)
        };
        match projected {
            Some(p) => self.output.batch_to_rows_into(&p, Some(&self.kept_kinds), NullLayout::Serializer, out)?,
            None => {
                out.data.clear();
                out.offsets.clear();
                out.offsets.push(0);
            }
        }
        spread(out, &mask)
    }

    /// The output over the kept rows `kept`: the filter columns from their
    /// values over every row (`tests`, in filter order), the rest evaluated.
    fn eval_kept(&self, kept: &RecordBatch, tests: &[ArrayRef], mask: &BooleanArray) -> Result<RecordBatch> {
        let m = kept.num_rows();
        let mut columns: Vec<ArrayRef> = Vec::with_capacity(self.exprs.len());
        for (i, b) in self.exprs.iter().enumerate() {
            let a = match self.filters.iter().position(|&f| f == i).and_then(|k| tests.get(k)) {
                Some(t) => filter(t.as_ref(), mask)?,
                None => eval::eval(b, kept, &[])?.array,
            };
            if a.len() != m {
                return Err(Error::invalid(format!("output column {i} has {} values for {m} rows", a.len())));
            }
            columns.push(a);
        }
        let schema = Arc::clone(self.output.schema());
        Ok(RecordBatch::try_new_with_options(schema, columns, &RecordBatchOptions::new().with_row_count(Some(m)))?)
    }
}

/// Spreads `out`'s offsets of the kept rows over every input row: a dropped
/// row becomes an empty row, so `out` has one row per entry of `mask`.
fn spread(out: &mut Rows, mask: &BooleanArray) -> Result<()> {
    let kept = out.num_rows();
    if kept != mask.true_count() {
        return Err(Error::invalid(format!("{kept} rows written for {} kept", mask.true_count())));
    }
    let n = mask.len();
    out.offsets.resize(n + 1, 0);
    // Backwards, in place: kept row k's end moves from k + 1 to its input
    // position + 1, and never below where it was read from.
    let mut k = kept;
    for i in (0..n).rev() {
        // k ≤ i + 1 throughout (at most i + 1 kept rows among the first
        // i + 1), so offsets[k] is still the kept rows' offset.
        let end = out.offsets[k];
        out.offsets[i + 1] = end;
        if mask.value(i) {
            k -= 1;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
