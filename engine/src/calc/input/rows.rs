//! The Calc over Flink rows in heap segments: entry transpose (only the
//! fields the expressions read), projection, exit transpose.

use sluice_transpose::{RowAddress, RowKind, Rows};

use crate::calc::CalcProgram;
use crate::error::Result;

impl CalcProgram {
    /// Rows in (in heap segments, as `io.sluice.jni.RowBatch` hands them
    /// over) → projected rows out, RowKinds preserved (with filters, one
    /// entry per input row, a dropped row empty: [`crate::calc::filter`]).
    ///
    /// # Errors
    /// Malformed rows, kernel errors.
    pub fn process_segments(&mut self, segments: &[&[u8]], rows: &[RowAddress], out: &mut Rows) -> Result<()> {
        self.kinds.clear();
        self.kinds.resize(rows.len(), RowKind::Insert);
        // Only the columns the expressions read are decoded (a wide row's
        // other strings are never copied); the rest are placeholders.
        let batch = self.input.rows_to_batch_segments_projected(segments, rows, &mut self.kinds, &self.needed)?;
        self.project_into(&batch, &[], out)
    }
}
