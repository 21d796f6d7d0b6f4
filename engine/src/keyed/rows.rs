//! A keyed operator over Flink rows: rows in, changelog rows out.
//!
//! One [`KeyedRowOperator`] per Flink operator subtask: a [`KeyedOperator`]
//! between an entry transpose (the subtask's `BinaryRowData` rows, in heap
//! segments, to an Arrow batch plus RowKinds) and an exit transpose (the
//! emitted changelog back to `BinaryRowData` bytes, RowKind in each row's
//! header byte). Scratch (row kinds, decoded batch buffers) is kept across
//! batches.
//!
//! [`KeyedRowOperator::append_only`] switches an operator with an
//! [appended shape](crate::keyed::AppendedShape) to emitting only its
//! appended columns (the caller keeps the input rows and joins them): the
//! entry transpose then decodes only the columns the operator reads.
//!
//! Key groups are Flink's for the `BinaryRowData` projection of the key
//! columns (what the SQL planner's `BinaryRowDataKeySelector` builds), so a
//! subtask's snapshot per key group is exactly what its raw keyed state
//! stream of that key group holds.

use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::{DataType, Schema};
use sluice_keyed::RowKind;
use sluice_transpose::{FlinkType, NullLayout, RowAddress, RowConverter, Rows};

use crate::error::{Error, Result};
use crate::keyed::operator::KeyedOperator;

/// A [`KeyedOperator`] with its entry and exit transposes.
#[derive(Debug)]
pub struct KeyedRowOperator {
    operator: KeyedOperator,
    entry: RowConverter,
    exit: RowConverter,
    kinds: Vec<RowKind>,
    appended: Option<AppendedOnly>,
}

/// The appended-columns mode: which input columns to decode, and the exit
/// transpose of the appended columns alone.
#[derive(Debug)]
struct AppendedOnly {
    read: Vec<bool>,
    exit: RowConverter,
}

impl KeyedRowOperator {
    /// The operator of `spec` (grammar in [`crate::keyed::spec`]) over input
    /// rows of the given field names and Flink types.
    ///
    /// # Errors
    /// A type the transpose cannot carry, then as [`KeyedOperator::new`].
    pub fn new(names: &[&str], types: &[FlinkType], spec: &str) -> Result<Self> {
        let entry = RowConverter::from_flink_types(names, types)?;
        let operator = KeyedOperator::new(entry.schema().clone(), spec)?;
        let exit = RowConverter::new(operator.output_schema().clone())?;
        Ok(KeyedRowOperator { operator, entry, exit, kinds: Vec::new(), appended: None })
    }

    /// Switches to appended-columns output if the operator has an
    /// [appended shape](KeyedOperator::appended_shape): from then on
    /// [`Self::process_segments`] decodes only the columns the operator reads
    /// and writes, per input row and in input order, one `+I` row of the
    /// appended columns only ([`Self::appended_types`]); the caller joins
    /// them to the input rows it kept. The state is the same in both modes.
    ///
    /// # Returns
    /// Whether the operator now emits appended columns only (`false`: it has
    /// no appended shape and is unchanged).
    ///
    /// # Errors
    /// An appended type the exit transpose cannot carry.
    pub fn append_only(&mut self) -> Result<bool> {
        let (Some(shape), Some(field)) = (self.operator.appended_shape(), self.operator.appended_field()) else {
            return Ok(false);
        };
        let DataType::Struct(fields) = field.data_type() else {
            return Err(Error::invalid("the appended columns' field is not a struct"));
        };
        let exit = RowConverter::new(Arc::new(Schema::new(fields.clone())))?;
        self.appended = Some(AppendedOnly { read: shape.read, exit });
        Ok(true)
    }

    /// The Flink types of the rows [`Self::process_segments`] writes in
    /// appended-columns mode ([`Self::append_only`]), `None` outside it.
    pub fn appended_types(&self) -> Option<impl Iterator<Item = &FlinkType>> {
        self.appended.as_ref().map(|a| a.exit.flink_types())
    }

    /// The operator (schemas, spec, state size, snapshots).
    pub fn operator(&self) -> &KeyedOperator {
        &self.operator
    }

    /// The operator, mutably (restore).
    pub fn operator_mut(&mut self) -> &mut KeyedOperator {
        &mut self.operator
    }

    /// The Flink types of the emitted rows (`group_agg`: keys then one per
    /// aggregate; otherwise the input's).
    pub fn output_types(&self) -> impl Iterator<Item = &FlinkType> {
        self.exit.flink_types()
    }

    /// Pushes one changelog batch of rows (RowKinds from the row headers)
    /// and writes the emitted changelog rows into `out`.
    ///
    /// # Errors
    /// Malformed rows, then as [`KeyedOperator::push`].
    pub fn process_segments(&mut self, segments: &[&[u8]], rows: &[RowAddress], out: &mut Rows) -> Result<()> {
        self.kinds.clear();
        self.kinds.resize(rows.len(), RowKind::Insert);
        if let Some(a) = &self.appended {
            let input = self.entry.rows_to_batch_segments_projected(segments, rows, &mut self.kinds, &a.read)?;
            let appended = self.operator.push_appended(&input, &self.kinds)?;
            a.exit.batch_to_rows_into(&appended, None, NullLayout::Serializer, out)?;
            return Ok(());
        }
        let input = self.entry.rows_to_batch_segments_into(segments, rows, &mut self.kinds)?;
        let (emitted, kinds) = self.operator.push(&input, &self.kinds)?;
        self.exit.batch_to_rows_into(&emitted, Some(&kinds), NullLayout::Serializer, out)?;
        Ok(())
    }

    /// The exit transpose of what a watermark or processing time fires: in
    /// appended-columns mode nothing may fire (an appended shape has no
    /// timers), so a non-empty result is an error rather than rows without
    /// their input.
    fn write_fired(&self, emitted: &RecordBatch, kinds: &[RowKind], out: &mut Rows) -> Result<()> {
        if self.appended.is_some() && emitted.num_rows() > 0 {
            return Err(Error::invalid("an operator in appended-columns mode fired rows on a timer"));
        }
        self.exit.batch_to_rows_into(emitted, Some(kinds), NullLayout::Serializer, out)?;
        Ok(())
    }

    /// Advances the event-time watermark (epoch millis) and writes the rows
    /// it fires into `out` ([`KeyedOperator::advance_watermark`]; none for an
    /// operator that does not [fire on watermarks](KeyedOperator::fires_on_watermark)).
    ///
    /// # Errors
    /// As [`KeyedOperator::advance_watermark`].
    pub fn advance_watermark(&mut self, watermark: i64, out: &mut Rows) -> Result<()> {
        let (emitted, kinds) = self.operator.advance_watermark(watermark)?;
        self.write_fired(&emitted, &kinds, out)
    }

    /// Advances the processing-time clock (epoch millis) and writes the rows
    /// it fires into `out` ([`KeyedOperator::advance_processing_time`]; none
    /// for an operator that does not [fire on processing
    /// time](KeyedOperator::fires_on_processing_time)). Pushed rows are
    /// stamped with the last time given.
    ///
    /// # Errors
    /// As [`KeyedOperator::advance_processing_time`].
    pub fn advance_processing_time(&mut self, now: i64, out: &mut Rows) -> Result<()> {
        let (emitted, kinds) = self.operator.advance_processing_time(now)?;
        self.write_fired(&emitted, &kinds, out)
    }

    /// The Flink key group of each row's key, as the operator's state and
    /// snapshots use it; the state is unchanged.
    ///
    /// # Errors
    /// Malformed rows.
    pub fn key_groups_segments(&mut self, segments: &[&[u8]], rows: &[RowAddress]) -> Result<Vec<i32>> {
        let m = self.operator.max_parallelism();
        key_groups_of(&self.entry, segments, rows, &mut self.kinds, &self.operator.spec().keys, m)
    }
}

/// The Flink key group of each row's `keys` columns, the rows decoded by
/// `entry` (`kinds`: reused scratch).
///
/// # Errors
/// Malformed rows.
pub(crate) fn key_groups_of(
    entry: &RowConverter,
    segments: &[&[u8]],
    rows: &[RowAddress],
    kinds: &mut Vec<RowKind>,
    keys: &[usize],
    max_parallelism: i32,
) -> Result<Vec<i32>> {
    kinds.clear();
    kinds.resize(rows.len(), RowKind::Insert);
    let input = entry.rows_to_batch_segments_into(segments, rows, kinds)?;
    let n = input.num_rows();
    let mut groups = vec![0i32; n];
    let mut channels = vec![0i32; n];
    sluice_keyed::key_groups(&input, keys, max_parallelism, 1, &mut groups, &mut channels)?;
    Ok(groups)
}
