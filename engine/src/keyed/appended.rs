//! Appended-columns output, for a caller that keeps its own input rows.
//!
//! Some keyed operators emit, for every pushed row and at once, exactly that
//! row followed by a few computed columns, and nothing else (today: the
//! proctime ROWS / RANGE UNBOUNDED PRECEDING `over`, Flink's
//! `ProcTimeUnboundedPrecedingFunction`, whose output is
//! `JoinedRowData(input, aggValue)`). A binding that still holds the input
//! rows need not have them decoded in full nor rebuilt on the way out: it
//! decodes only the columns the operator reads ([`AppendedShape::read`]),
//! pushes with [`KeyedOperator::push_appended`], gets back only the appended
//! columns, one row per input row in input order, and joins them to its own
//! rows. The unread columns may then hold anything of their type (the
//! projected entry transpose's placeholders): the operator's state holds
//! accumulators only, so nothing of them is kept or snapshotted, and a
//! snapshot taken in this mode restores into a full-output operator and back.

use arrow_array::{RecordBatch, StructArray};
use sluice_keyed::RowKind;

use crate::error::{Error, Result};
use crate::keyed::operator::{check_no_null_rows, kinds_of, KeyedOperator, Operator};
use crate::keyed::spec::SpecKind;

/// The shape of an operator's appended-columns output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AppendedShape {
    /// Per input column, whether the operator reads it (partition keys,
    /// aggregate arguments and filters); the others may be placeholders.
    pub read: Vec<bool>,
    /// The first appended output column (the input's column count).
    pub first: usize,
}

impl KeyedOperator {
    /// The appended-columns shape, when every [`push`](Self::push) emits
    /// each input row at once, in input order, as `+I`, followed by the
    /// operator's columns, nothing else ever fires (on a watermark or
    /// processing time) and the state keeps none of the input columns:
    /// today a proctime `over` with `preceding=unbounded`. `None` otherwise.
    pub fn appended_shape(&self) -> Option<AppendedShape> {
        let (Operator::Over(o), SpecKind::Over(spec)) = (self.operator(), &self.spec().kind) else {
            return None;
        };
        if !o.appends_at_once() {
            return None;
        }
        let first = self.input_schema().fields().len();
        let mut read = vec![false; first];
        let columns = spec.aggs.iter().flat_map(|a| a.column.into_iter().chain(a.filter));
        for c in self.spec().keys.iter().copied().chain(columns) {
            if let Some(r) = read.get_mut(c) {
                *r = true;
            }
        }
        Some(AppendedShape { read, first })
    }

    /// [`Self::push`] for an operator with an [appended
    /// shape](Self::appended_shape), returning only the appended columns:
    /// row `i` of the result belongs to input row `i`, and every output row
    /// is `+I`. The columns [`AppendedShape::read`] marks unread may hold any
    /// values of their type.
    ///
    /// # Errors
    /// [`Error::Invalid`] for an operator without an appended shape, or
    /// (a broken invariant) one whose push did not emit one `+I` row per
    /// input row; then as [`Self::push`].
    pub fn push_appended(&mut self, batch: &RecordBatch, row_kinds: &[RowKind]) -> Result<RecordBatch> {
        let Some(shape) = self.appended_shape() else {
            return Err(Error::invalid(format!(
                "{:?} does not emit its input rows with appended columns",
                self.spec()
            )));
        };
        let (out, kinds) = self.push(batch, row_kinds)?;
        if out.num_rows() != batch.num_rows() || kinds.iter().any(|k| *k != RowKind::Insert) {
            return Err(Error::invalid(format!(
                "appended output: {} rows pushed, {} emitted (expected one +I row per input row)",
                batch.num_rows(),
                out.num_rows()
            )));
        }
        Ok(out.project(&(shape.first..out.num_columns()).collect::<Vec<_>>())?)
    }

    /// [`Self::push_appended`] for a batch arriving as one struct array
    /// with Flink `RowKind` bytes (`None`: every row `+I`), as
    /// [`Self::push_struct`]; the result comes with its row kinds (all `+I`)
    /// so that bindings export it as they export [`Self::push_struct`]'s,
    /// under [`Self::appended_field`].
    ///
    /// # Errors
    /// A struct array with NULL rows, a byte outside 0..=3, then as
    /// [`Self::push_appended`].
    pub fn push_appended_struct(
        &mut self,
        batch: &StructArray,
        row_kinds: Option<&[u8]>,
    ) -> Result<(RecordBatch, Vec<RowKind>)> {
        check_no_null_rows(batch)?;
        let batch = RecordBatch::from(batch.clone());
        let out = self.push_appended(&batch, &kinds_of(row_kinds, batch.num_rows())?)?;
        let n = out.num_rows();
        Ok((out, vec![RowKind::Insert; n]))
    }
}
