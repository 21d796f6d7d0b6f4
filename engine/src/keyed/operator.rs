//! [`KeyedOperator`]: one keyed operator behind one type, driven by batches.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::{Array, RecordBatch, RecordBatchOptions, StructArray};
use arrow_schema::{DataType, Field, Fields, Schema, SchemaRef};
use sluice_keyed::row_kind::row_kinds_from_bytes;
use sluice_keyed::{
    ChangelogNormalize, DedupOptions, Deduplicate, GroupAggOptions, GroupAggregate, KeyGroupRange, NormalizeOptions,
    OverAggregate, RowKind, TopN, TopNOptions, WindowAggregate,
};
use sluice_transpose::FlinkType;

use crate::error::{Error, Result};
use crate::flink_type::FLINK_TYPE;
use crate::keyed::spec::{self, OperatorSpec, SpecKind};

/// The keyed operators of `sluice-keyed`.
pub enum Operator {
    /// `group_agg`: [`GroupAggregate`].
    GroupAgg(GroupAggregate),
    /// `normalize`: [`ChangelogNormalize`].
    Normalize(ChangelogNormalize),
    /// `dedup`: [`Deduplicate`].
    Dedup(Deduplicate),
    /// `topn`: [`TopN`].
    TopN(TopN),
    /// `over`: [`OverAggregate`] (boxed: its per-step buffers make it the
    /// largest operator by far).
    Over(Box<OverAggregate>),
    /// `window`: [`WindowAggregate`] (boxed, as `Over`: its state and
    /// per-batch buffers make it larger than the others).
    Window(Box<WindowAggregate>),
}

/// Runs `$body` with `$o` bound to the operator inside `$operator`, whatever
/// its kind: for the calls every keyed operator has (statically dispatched,
/// one arm per kind).
macro_rules! each_operator {
    ($operator:expr, $o:ident => $body:expr) => {
        match $operator {
            Operator::GroupAgg($o) => $body,
            Operator::Normalize($o) => $body,
            Operator::Dedup($o) => $body,
            Operator::TopN($o) => $body,
            Operator::Over($o) => $body,
            Operator::Window($o) => $body,
        }
    };
}

/// A keyed operator created from a spec string (see [`spec`]),
/// with the schemas a foreign caller needs and Flink-key-group snapshots.
///
/// This is the layer every binding calls: everything here takes and
/// returns Rust values; pointers and ownership rules live in the binding.
pub struct KeyedOperator {
    operator: Operator,
    spec: OperatorSpec,
    input_schema: SchemaRef,
    output_schema: SchemaRef,
    output_field: Field,
    appended_field: Option<Field>,
    watermark: Option<i64>,
}

impl std::fmt::Debug for KeyedOperator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KeyedOperator").field("spec", &self.spec).field("size", &self.size()).finish()
    }
}

/// The [`TopN`] of a `topn` spec.
fn topn_operator(schema: SchemaRef, spec: &OperatorSpec) -> Result<TopN> {
    let SpecKind::TopN { strategy, order, rank_start, rank_end, rank_number, row_key } = &spec.kind else {
        return Err(Error::invalid("not a topn spec"));
    };
    let mut o = TopNOptions::new(*strategy, order.clone(), *rank_end);
    o.rank_start = *rank_start;
    o.output_rank_number = *rank_number;
    o.generate_update_before = spec.update_before;
    o.max_parallelism = spec.max_parallelism;
    o.state_budget = spec.budget;
    o.row_key = row_key.clone();
    Ok(TopN::new(schema, spec.keys.clone(), o)?)
}

/// `field` with its `flink.type` set (kept when already there, derived
/// from the Arrow type otherwise).
fn with_flink_type(field: &Field) -> Result<Field> {
    let t = FlinkType::from_arrow_field(field)?;
    let mut md = field.metadata().clone();
    md.insert(FLINK_TYPE.to_string(), t.to_string());
    Ok(field.clone().with_metadata(md))
}

/// The output schema of an operator emitting `raw_out` (every field with its
/// `flink.type`) and the same as one struct field (`row`, `ROW<...> NOT
/// NULL`), the shape the C ABI exports batches in.
pub(crate) fn output_parts(raw_out: &Schema) -> Result<(SchemaRef, Field)> {
    let fields: Fields = raw_out.fields().iter().map(|f| with_flink_type(f)).collect::<Result<Vec<_>>>()?.into();
    let output_schema = Arc::new(Schema::new(fields.clone()));
    let row = Field::new("row", DataType::Struct(fields), false);
    let row_type = FlinkType::from_arrow_field(&row)?;
    Ok((output_schema, row.with_metadata(HashMap::from([(FLINK_TYPE.to_string(), row_type.to_string())]))))
}

/// `out` under `schema` (the same columns; names and `flink.type` metadata
/// from the operator's output schema).
pub(crate) fn relabel(schema: &SchemaRef, out: &RecordBatch) -> Result<RecordBatch> {
    let n = out.num_rows();
    Ok(RecordBatch::try_new_with_options(
        schema.clone(),
        out.columns().to_vec(),
        &RecordBatchOptions::new().with_row_count(Some(n)),
    )?)
}

/// The row kinds of `n` rows from Flink `RowKind` bytes (`None`: every row `+I`).
pub(crate) fn kinds_of(row_kinds: Option<&[u8]>, n: usize) -> Result<Vec<RowKind>> {
    Ok(match row_kinds {
        Some(b) => row_kinds_from_bytes(b)?,
        None => vec![RowKind::Insert; n],
    })
}

/// A struct batch from a foreign caller holds no NULL rows (a Flink row is never NULL).
pub(crate) fn check_no_null_rows(batch: &StructArray) -> Result<()> {
    if batch.null_count() > 0 {
        return Err(Error::invalid(format!("batch has {} NULL rows; a Flink row cannot be NULL", batch.null_count())));
    }
    Ok(())
}

/// `[first, last]` checked against max parallelism `m`.
pub(crate) fn checked_range(m: i32, first: i32, last: i32) -> Result<KeyGroupRange> {
    if first < 0 || first > last || last >= m {
        return Err(Error::invalid(format!(
            "key group range [{first}, {last}] is not inside [0, {}] (max_parallelism {m}) or is empty",
            m - 1
        )));
    }
    Ok(KeyGroupRange::new(first, last))
}

/// Spreads sparse `(key group, blob)` pairs over one slot per key group of
/// `range` (empty blobs for key groups without state).
pub(crate) fn dense_blobs(range: KeyGroupRange, sparse: Vec<(i32, Vec<u8>)>) -> Result<Vec<Vec<u8>>> {
    if range.start > range.end || range.start < 0 {
        return Err(Error::invalid(format!("key group range [{}, {}] is empty", range.start, range.end)));
    }
    let n = (range.end - range.start) as usize + 1;
    let mut out: Vec<Vec<u8>> = vec![Vec::new(); n];
    for (kg, blob) in sparse {
        if let Some(slot) = usize::try_from(kg - range.start).ok().and_then(|i| out.get_mut(i)) {
            *slot = blob;
        }
    }
    Ok(out)
}

impl KeyedOperator {
    /// Parses `spec` against `input_schema` and builds the operator.
    ///
    /// # Errors
    /// [`Error::Spec`] for a bad spec (the message names the offending
    /// text); the operator's own refusals ([`Error::Keyed`], e.g. an
    /// unsupported key or aggregate type).
    pub fn new(input_schema: SchemaRef, spec: &str) -> Result<Self> {
        let parsed = spec::parse(spec, &input_schema)?;
        Self::from_spec(input_schema, parsed)
    }

    /// Builds the operator of an already parsed spec.
    ///
    /// # Errors
    /// As [`KeyedOperator::new`].
    pub fn from_spec(input_schema: SchemaRef, spec: OperatorSpec) -> Result<Self> {
        let s = input_schema.clone();
        let keys = spec.keys.clone();
        let operator = match &spec.kind {
            SpecKind::GroupAgg { aggs, retractable } => Operator::GroupAgg(GroupAggregate::new(
                s,
                keys,
                aggs.clone(),
                GroupAggOptions {
                    generate_update_before: spec.update_before,
                    retractable: *retractable,
                    max_parallelism: spec.max_parallelism,
                    state_budget: spec.budget,
                },
            )?),
            SpecKind::Normalize { drop_equal_update_after } => Operator::Normalize(ChangelogNormalize::new(
                s,
                keys,
                NormalizeOptions {
                    generate_update_before: spec.update_before,
                    max_parallelism: spec.max_parallelism,
                    state_budget: spec.budget,
                    drop_equal_update_after: *drop_equal_update_after,
                },
            )?),
            SpecKind::Dedup { keep, order, insert, backend } => {
                let mut o = DedupOptions::new(*keep, *order);
                o.backend = *backend;
                o.generate_update_before = spec.update_before;
                o.generate_insert = *insert;
                o.max_parallelism = spec.max_parallelism;
                o.state_budget = spec.budget;
                Operator::Dedup(Deduplicate::new(s, keys, o)?)
            }
            SpecKind::TopN { .. } => Operator::TopN(topn_operator(s, &spec)?),
            SpecKind::Over(o) => Operator::Over(Box::new(crate::keyed::spec::over::over_operator(s, &spec, o)?)),
            SpecKind::Window { .. } => {
                Operator::Window(Box::new(crate::keyed::spec::window::window_operator(s, &spec)?))
            }
        };
        let raw_out = match &operator {
            Operator::GroupAgg(g) => g.output_schema(),
            Operator::TopN(t) => t.output_schema(),
            Operator::Over(o) => o.output_schema(),
            Operator::Window(w) => w.output_schema(),
            Operator::Normalize(_) | Operator::Dedup(_) => input_schema.clone(),
        };
        let (output_schema, output_field) = output_parts(&raw_out)?;
        let mut op = KeyedOperator {
            operator,
            spec,
            input_schema,
            output_schema,
            output_field,
            appended_field: None,
            watermark: None,
        };
        // The appended columns (`appended_shape`, in `appended`) as one struct field.
        if let Some(shape) = op.appended_shape() {
            let n = op.output_schema.fields().len();
            op.appended_field =
                Some(output_parts(&op.output_schema.project(&(shape.first..n).collect::<Vec<_>>())?)?.1);
        }
        Ok(op)
    }

    /// The parsed spec.
    pub fn spec(&self) -> &OperatorSpec {
        &self.spec
    }

    /// The operator itself.
    pub fn operator(&self) -> &Operator {
        &self.operator
    }

    /// The schema every pushed batch must have (field types are compared;
    /// names and metadata are not).
    pub fn input_schema(&self) -> &SchemaRef {
        &self.input_schema
    }

    /// The schema of emitted batches; every field carries `flink.type`.
    /// `group_agg`: key columns then one column per aggregate; `normalize`
    /// and `dedup`: the input schema; `topn`: the input schema, plus
    /// `rank_number` (Int64) with `rank_number=true`; `over`: the input
    /// schema, then one column per aggregate.
    pub fn output_schema(&self) -> &SchemaRef {
        &self.output_schema
    }

    /// The output as one struct field (`row`, `ROW<...> NOT NULL`), the
    /// shape the C ABI exports batches in.
    pub fn output_field(&self) -> &Field {
        &self.output_field
    }

    /// The [appended columns](Self::appended_shape) as one struct field
    /// (`row`, as [`Self::output_field`]), the shape
    /// [`Self::push_appended_struct`] results are exported in; `None` without
    /// an appended shape.
    pub fn appended_field(&self) -> Option<&Field> {
        self.appended_field.as_ref()
    }

    /// Flink max parallelism (number of key groups) of this operator.
    pub fn max_parallelism(&self) -> i32 {
        self.spec.max_parallelism
    }

    /// Retained state bytes (the quantity the `budget=` option bounds).
    pub fn size(&self) -> usize {
        each_operator!(&self.operator, o => o.size())
    }

    /// Keys (groups) in state.
    pub fn num_keys(&self) -> usize {
        match &self.operator {
            Operator::GroupAgg(o) => o.num_groups(),
            Operator::Normalize(o) => o.num_keys(),
            Operator::Dedup(o) => o.num_keys(),
            Operator::TopN(o) => o.num_partitions(),
            Operator::Over(o) => o.num_keys(),
            Operator::Window(o) => o.num_keys(),
        }
    }

    /// Processes one changelog batch and returns the emitted changelog
    /// (batch of [`Self::output_schema`], one row kind per row).
    ///
    /// # Errors
    /// A batch whose column types differ from the input schema, a
    /// `row_kinds` length mismatch, a row kind the operator refuses (`dedup`
    /// takes `+I` only; `group_agg retractable=false` no retractions), the
    /// state budget. After an error mid-batch, the rows before the failing
    /// one stay applied and their output is lost: restore from a snapshot.
    /// The budget error is `sluice_keyed::Error::StateBudgetExceeded`.
    pub fn push(&mut self, batch: &RecordBatch, row_kinds: &[RowKind]) -> Result<(RecordBatch, Vec<RowKind>)> {
        let (out, kinds) = match &mut self.operator {
            Operator::GroupAgg(o) => o.process(batch, row_kinds)?,
            Operator::Normalize(o) => o.process(batch, row_kinds)?,
            Operator::Dedup(o) => o.process(batch, row_kinds)?,
            Operator::TopN(o) => o.process(batch, row_kinds)?,
            Operator::Over(o) => o.process(batch, row_kinds)?,
            // Windows emit on the watermark only.
            Operator::Window(o) => {
                o.process(batch, row_kinds)?;
                (RecordBatch::new_empty(o.output_schema()), Vec::new())
            }
        };
        Ok((relabel(&self.output_schema, &out)?, kinds))
    }

    /// [`Self::push`] with Flink `RowKind` bytes (`+I` 0, `-U` 1, `+U` 2,
    /// `-D` 3); `None` means every row is `+I`.
    ///
    /// # Errors
    /// A byte outside 0..=3, then as [`Self::push`].
    pub fn push_bytes(&mut self, batch: &RecordBatch, row_kinds: Option<&[u8]>) -> Result<(RecordBatch, Vec<RowKind>)> {
        self.push(batch, &kinds_of(row_kinds, batch.num_rows())?)
    }

    /// [`Self::push_bytes`] for a batch arriving as one struct array (how
    /// the C Data Interface and Arrow Java hand over rows).
    ///
    /// # Errors
    /// A struct array with NULL rows (a Flink row is never NULL), then as
    /// [`Self::push_bytes`].
    pub fn push_struct(
        &mut self,
        batch: &StructArray,
        row_kinds: Option<&[u8]>,
    ) -> Result<(RecordBatch, Vec<RowKind>)> {
        check_no_null_rows(batch)?;
        self.push_bytes(&RecordBatch::from(batch.clone()), row_kinds)
    }

    /// Advances the event-time watermark to `watermark` (epoch millis) and
    /// returns what that emits. A rowtime `over` emits the buffered rows
    /// whose event-time timers fire ([`OverAggregate::advance_watermark`]);
    /// a `window` operator fires the windows whose end − 1 the watermark
    /// reached (`+I` rows). The others emit an empty batch: with state TTL
    /// off, Flink's `GroupAggFunction`, the
    /// proctime deduplications / `ChangelogNormalize`, the (non
    /// mini-batch) `RowTimeDeduplicateFunction` and the three Top-N
    /// functions all emit while processing
    /// each row and register no event-time timers, so a watermark fires
    /// nothing. The call exists so that bindings drive every operator the
    /// same way; an older watermark than the current one is ignored, as a
    /// Flink operator's watermark never goes back.
    ///
    /// # Errors
    /// `over`: a stored row that does not decode. A `window` operator's (see
    /// `WindowAggregate::advance_watermark`). Otherwise none.
    pub fn advance_watermark(&mut self, watermark: i64) -> Result<(RecordBatch, Vec<RowKind>)> {
        self.watermark = Some(self.watermark.map_or(watermark, |w| w.max(watermark)));
        if let Operator::Over(o) = &mut self.operator {
            let (out, kinds) = o.advance_watermark(watermark)?;
            return Ok((relabel(&self.output_schema, &out)?, kinds));
        }
        if let Operator::Window(o) = &mut self.operator {
            let out = o.advance_watermark(watermark)?;
            return Ok((relabel(&self.output_schema, &out)?, vec![RowKind::Insert; out.num_rows()]));
        }
        Ok((RecordBatch::new_empty(self.output_schema.clone()), Vec::new()))
    }

    /// Advances the processing-time clock to `now` (epoch millis) and
    /// returns what that emits: a proctime `over` with `frame=range
    /// preceding=N` emits the buffered rows whose processing-time timers fire
    /// ([`OverAggregate::advance_processing_time`]); every other operator
    /// ignores processing time and emits nothing. Processing time is given,
    /// never read from a clock: a binding passes its runtime's processing
    /// time here (and [`Self::push_at`]) and calls this again when a timer
    /// it registered at a push's time + 1 fires.
    ///
    /// # Errors
    /// `over`: a stored row that does not decode. Otherwise none.
    pub fn advance_processing_time(&mut self, now: i64) -> Result<(RecordBatch, Vec<RowKind>)> {
        if let Operator::Over(o) = &mut self.operator {
            let (out, kinds) = o.advance_processing_time(now)?;
            return Ok((relabel(&self.output_schema, &out)?, kinds));
        }
        Ok((RecordBatch::new_empty(self.output_schema.clone()), Vec::new()))
    }

    /// [`Self::advance_processing_time`] to `now`, then [`Self::push`] at
    /// that time: the rows the clock move fires, or the rows the batch
    /// emits (at most one of the two is non-empty). A proctime
    /// `frame=range` `over` buffers the batch stamped with `now` (a plain
    /// [`Self::push`] stamps it with the last time given, and is an error
    /// before any).
    ///
    /// # Errors
    /// As [`Self::push`] and [`Self::advance_processing_time`].
    pub fn push_at(
        &mut self,
        batch: &RecordBatch,
        row_kinds: &[RowKind],
        now: i64,
    ) -> Result<(RecordBatch, Vec<RowKind>)> {
        if let Operator::Over(o) = &mut self.operator {
            let (out, kinds) = o.process_at(batch, row_kinds, now)?;
            return Ok((relabel(&self.output_schema, &out)?, kinds));
        }
        self.push(batch, row_kinds)
    }

    /// Whether [`KeyedOperator::advance_processing_time`] can emit rows
    /// (a proctime `over` with `frame=range preceding=N`): a binding then
    /// stamps every push with its processing time and registers a timer at
    /// that time + 1.
    pub fn fires_on_processing_time(&self) -> bool {
        matches!(&self.operator, Operator::Over(o) if o.fires_on_processing_time())
    }

    /// Whether [`KeyedOperator::advance_watermark`] can emit rows: a rowtime
    /// `over` and a `window` operator fire on the watermark; every other
    /// operator emits while processing rows, so a binding may skip the call.
    pub fn fires_on_watermark(&self) -> bool {
        match &self.operator {
            Operator::Over(o) => matches!(o.options().time, sluice_keyed::over::OverTime::RowTime { .. }),
            Operator::Window(_) => true,
            _ => false,
        }
    }

    /// The highest watermark seen, if any.
    pub fn current_watermark(&self) -> Option<i64> {
        self.watermark
    }

    /// The key-group range `[first, last]`, checked against this
    /// operator's max parallelism.
    ///
    /// # Errors
    /// [`Error::Invalid`] unless `0 <= first <= last < max_parallelism`.
    pub fn key_group_range(&self, first: i32, last: i32) -> Result<KeyGroupRange> {
        checked_range(self.spec.max_parallelism, first, last)
    }

    /// Serialises the state whose key group is in `range` into one blob.
    ///
    /// # Errors
    /// None today.
    pub fn snapshot(&self, range: KeyGroupRange) -> Result<Vec<u8>> {
        Ok(each_operator!(&self.operator, o => o.snapshot(range)?))
    }

    /// One blob per key group of `range`, in order (`result[i]` is key group
    /// `range.start + i`), computed in one pass over the state: what Flink's
    /// raw keyed state writes, one stream per key group. A key group
    /// without state gets an empty blob (zero bytes), which
    /// [`Self::restore`] skips.
    ///
    /// # Errors
    /// An empty range (`start > end`).
    pub fn snapshot_key_groups(&self, range: KeyGroupRange) -> Result<Vec<Vec<u8>>> {
        if range.start > range.end || range.start < 0 {
            return dense_blobs(range, Vec::new());
        }
        let sparse = each_operator!(&self.operator, o => o.snapshot_key_groups(range)?);
        dense_blobs(range, sparse)
    }

    /// Adds the state of every blob (from [`Self::snapshot`] or
    /// [`Self::snapshot_key_groups`], possibly of several operators when
    /// scaling in) whose key group is in `range`. Empty blobs are skipped.
    ///
    /// # Errors
    /// The keyed crate's errors: `CorruptSnapshot` for a corrupt, truncated
    /// or foreign blob (another operator kind, schema, key, aggregate list
    /// or max parallelism), `InvalidArgument` for a key already in state,
    /// `StateBudgetExceeded` for the state budget; wrapped in
    /// [`Error::Restore`] naming the blob when there are several. Each blob
    /// is restored all or nothing; the blobs before a failing one stay
    /// restored (a failed restore means the job restarts anyway: drop the
    /// operator).
    pub fn restore(&mut self, blobs: &[&[u8]], range: KeyGroupRange) -> Result<()> {
        for (i, blob) in blobs.iter().enumerate().filter(|(_, b)| !b.is_empty()) {
            let r = each_operator!(&mut self.operator, o => o.restore(blob, range));
            r.map_err(|e| if blobs.len() > 1 { Error::Restore { blob: i, source: e } } else { Error::Keyed(e) })?;
        }
        Ok(())
    }
}
