//! The updating join over Flink rows: rows of either input in, changelog
//! rows out.
//!
//! One [`JoinRowOperator`] per Flink join subtask: a [`JoinOperator`]
//! between one entry transpose per input (the subtask's `BinaryRowData`
//! rows, in heap segments, to an Arrow batch plus RowKinds) and an exit
//! transpose (the joined changelog back to `BinaryRowData` bytes, RowKind in
//! each row's header byte), as [`crate::keyed::KeyedRowOperator`] does for
//! the one-input operators. Scratch is kept across batches.
//!
//! Key groups are Flink's for the `BinaryRowData` projection of each side's
//! join key columns (what the planner's `BinaryRowDataKeySelector` over
//! `JoinSpec.getLeftKeys()` / `getRightKeys()` builds), so a subtask's
//! snapshot per key group is what its raw keyed state stream of that key
//! group holds.

use sluice_keyed::RowKind;
use sluice_transpose::{FlinkType, NullLayout, RowAddress, RowConverter, Rows};

use crate::error::Result;
use crate::keyed::join::JoinOperator;
use crate::keyed::rows::key_groups_of;

/// A [`JoinOperator`] with its two entry transposes and its exit transpose.
#[derive(Debug)]
pub struct JoinRowOperator {
    join: JoinOperator,
    left: RowConverter,
    right: RowConverter,
    exit: RowConverter,
    kinds: Vec<RowKind>,
}

/// The field names and Flink types of one input.
#[derive(Debug, Clone, Copy)]
pub struct RowSchema<'a> {
    /// Field names (the spec may name columns by them).
    pub names: &'a [&'a str],
    /// Flink types, one per name.
    pub types: &'a [FlinkType],
}

impl JoinRowOperator {
    /// The join of `spec` (grammar in [`crate::keyed::join`]) over left and
    /// right rows of the given field names and Flink types.
    ///
    /// # Errors
    /// A type the transpose cannot carry, then as [`JoinOperator::new`].
    pub fn new(left: RowSchema<'_>, right: RowSchema<'_>, spec: &str) -> Result<Self> {
        let left = RowConverter::from_flink_types(left.names, left.types)?;
        let right = RowConverter::from_flink_types(right.names, right.types)?;
        let join = JoinOperator::new(left.schema().clone(), right.schema().clone(), spec)?;
        let exit = RowConverter::new(join.output_schema().clone())?;
        Ok(JoinRowOperator { join, left, right, exit, kinds: Vec::new() })
    }

    /// The join (schemas, options, state size, snapshots).
    pub fn join(&self) -> &JoinOperator {
        &self.join
    }

    /// The join, mutably (restore).
    pub fn join_mut(&mut self) -> &mut JoinOperator {
        &mut self.join
    }

    /// The Flink types of the emitted rows: the left fields then the right
    /// fields (a side that can be NULL-padded with every field nullable).
    pub fn output_types(&self) -> impl Iterator<Item = &FlinkType> {
        self.exit.flink_types()
    }

    /// Pushes one changelog batch of rows of one input (`left`: Flink's
    /// `processElement1`, else `processElement2`; RowKinds from the row
    /// headers) and writes the emitted changelog rows into `out`.
    ///
    /// # Errors
    /// Malformed rows, then as [`JoinOperator::push`].
    pub fn process_segments(
        &mut self,
        left: bool,
        segments: &[&[u8]],
        rows: &[RowAddress],
        out: &mut Rows,
    ) -> Result<()> {
        self.kinds.clear();
        self.kinds.resize(rows.len(), RowKind::Insert);
        let entry = if left { &self.left } else { &self.right };
        let input = entry.rows_to_batch_segments_into(segments, rows, &mut self.kinds)?;
        let (emitted, kinds) = self.join.push(left, &input, &self.kinds)?;
        self.exit.batch_to_rows_into(&emitted, Some(&kinds), NullLayout::Serializer, out)?;
        Ok(())
    }

    /// The Flink key group of each row's join key (rows of the `left` input,
    /// else the right), as the join's state and snapshots use it; the state
    /// is unchanged.
    ///
    /// # Errors
    /// Malformed rows.
    pub fn key_groups_segments(&mut self, left: bool, segments: &[&[u8]], rows: &[RowAddress]) -> Result<Vec<i32>> {
        let (entry, side) =
            if left { (&self.left, &self.join.options().left) } else { (&self.right, &self.join.options().right) };
        let m = self.join.max_parallelism();
        key_groups_of(entry, segments, rows, &mut self.kinds, &side.key_columns, m)
    }
}
