//! The updating (regular) join: Flink's `StreamingJoinOperator`.
//!
//! An unbounded two-input equi-join, INNER / LEFT / RIGHT / FULL OUTER, with
//! an optional non-equi condition ([`CondTerm`]), over insert-only or
//! changelog inputs on either side. It reproduces the changelog of
//! `flink-table-runtime/.../join/stream/StreamingJoinOperator.java`
//! (`processElement`) row by row, with state TTL off and without mini-batch:
//!
//! * an inner input side forwards its RowKind on a join with an inner other
//!   side (`+I`/`+U` on accumulate, `-U`/`-D` on retract);
//! * an outer side (or an inner side joined to an outer one) emits `+I` and
//!   `-D` only, never `-U`/`+U` — Flink's FLINK-17337 simplification;
//! * the null padding of an outer record is retracted with `-D[null+other]`
//!   when its first match arrives and re-emitted as `+I[null+other]` when its
//!   last match leaves, driven by the record's `numOfAssociations`
//!   (`OuterJoinRecordStateViews.java`), which also counts a record that
//!   replaced an earlier one by its unique key as a new association, as both
//!   supported Flink lines do;
//! * a record whose join key has a NULL in a field compared with `=` (not
//!   `IS NOT DISTINCT FROM`) matches nothing but is stored
//!   (`JoinConditionWithNullFilters`, [`JoinOptions::filter_null_keys`]).
//!
//! Within one input row the two lines differ in order only ([`JoinLine`]):
//! Flink 1.20 collects the matches first (`AssociatedRecords.of`) and emits
//! every padding retraction before every joined row; Flink 2.x walks the
//! matches lazily and emits each match's rows together.
//!
//! # State
//! Each side keeps one of the three `JoinRecordStateView`s ([`ViewKind`],
//! chosen like Flink's `JoinInputSideSpec` from [`JoinSide::unique_key`]);
//! see `state` for the two byte-keyed levels. State keys are the join key's
//! Flink `BinaryRowData` bytes, so snapshots group by Flink key group.
//!
//! # Memory
//! A probe borrows the batch's key and row bytes. Emitted stored rows are
//! copied into one `bumpalo` arena owned by the operator and reset per batch
//! (so a `-D` of a record removed by the same row stays readable), and all
//! emitted rows of a batch are decoded in one `convert_rows` call per side.

mod cond;
mod process;
mod snap;
mod state;

use std::sync::Arc;

use arrow_array::{new_null_array, ArrayRef, RecordBatch, RecordBatchOptions};
use arrow_schema::{Field, Schema, SchemaRef};

pub use cond::{CmpOp, CondTerm};
pub use state::ViewKind;

use crate::error::{invalid_arg, Result};
use crate::flink_hash::check_parallelism;
use crate::key_encoder::{KeyBlock, KeyPlan};
use crate::payload::PayloadCodec;
use crate::row_kind::RowKind;
use crate::snapshot::{fnv1a, OpTag, SnapshotFormat};
use crate::state::Accounting;
use cond::Condition;
use state::SideState;

/// INNER, LEFT, RIGHT or FULL OUTER.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum JoinType {
    /// Neither side is padded.
    Inner,
    /// Left rows without a match are emitted padded with NULLs.
    Left,
    /// Right rows without a match are emitted padded with NULLs.
    Right,
    /// Both.
    Full,
}

impl JoinType {
    /// Whether the left side is outer (LEFT, FULL).
    pub fn left_is_outer(self) -> bool {
        matches!(self, JoinType::Left | JoinType::Full)
    }
    /// Whether the right side is outer (RIGHT, FULL).
    pub fn right_is_outer(self) -> bool {
        matches!(self, JoinType::Right | JoinType::Full)
    }
}

/// Which Flink line's order of rows within one input row to reproduce.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum JoinLine {
    /// Flink 1.20: all `-D[null+other]` before all joined rows (accumulate),
    /// all joined retractions before all `+I[null+other]` (retract).
    Flink1,
    /// Flink 2.x: per match, its padding change next to its joined row.
    #[default]
    Flink2,
}

/// One input of the join.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct JoinSide {
    /// Join key columns, pairwise of the same type as the other side's.
    pub key_columns: Vec<usize>,
    /// A unique key of the side, if the planner knows one (Flink's
    /// `JoinInputSideSpec`): contained in the join key → one record per join
    /// key; otherwise records are identified by it.
    pub unique_key: Option<Vec<usize>>,
}

impl JoinSide {
    /// The state view this side keeps (`JoinInputSideSpec.joinKeyContainsUniqueKey` / `hasUniqueKey`).
    pub fn view_kind(&self) -> ViewKind {
        match &self.unique_key {
            Some(uk) if uk.iter().all(|c| self.key_columns.contains(c)) => ViewKind::JoinKeyContainsUniqueKey,
            Some(_) => ViewKind::InputSideHasUniqueKey,
            None => ViewKind::InputSideHasNoUniqueKey,
        }
    }
}

/// Options of [`StreamingJoin`].
#[derive(Clone, Debug)]
pub struct JoinOptions {
    /// INNER / LEFT / RIGHT / FULL.
    pub join_type: JoinType,
    /// The left input.
    pub left: JoinSide,
    /// The right input.
    pub right: JoinSide,
    /// Per join key field: true for `=` (a NULL never matches), false for
    /// `IS NOT DISTINCT FROM` (NULL matches NULL). Empty means all true.
    pub filter_null_keys: Vec<bool>,
    /// The non-equi condition, a conjunction (empty: none).
    pub condition: Vec<CondTerm>,
    /// Order of rows within one input row.
    pub line: JoinLine,
    /// Whether an accumulating record that replaces a stored one (same
    /// unique key, or the one record of a join key) still adds an association
    /// to each match on an outer other side. True is what Flink 1.20.4 and
    /// 2.3.0 do (`old + 1` for every match); false is FLINK-40681's change on
    /// Flink's main branch (`StreamingJoinOperator.isAdditionalMatch`), where
    /// only a record new to state counts. Default true.
    pub replaced_record_adds_association: bool,
    /// Flink max parallelism, for grouping snapshots by key group. Default 128.
    pub max_parallelism: i32,
    /// Retained-bytes budget over both sides; an insert that would exceed it is an error.
    pub state_budget: Option<usize>,
}

impl JoinOptions {
    /// An equi-join on `left_keys = right_keys` without unique keys.
    pub fn new(join_type: JoinType, left_keys: Vec<usize>, right_keys: Vec<usize>) -> Self {
        JoinOptions {
            join_type,
            left: JoinSide { key_columns: left_keys, unique_key: None },
            right: JoinSide { key_columns: right_keys, unique_key: None },
            filter_null_keys: Vec::new(),
            condition: Vec::new(),
            line: JoinLine::default(),
            replaced_record_adds_association: true,
            max_parallelism: 128,
            state_budget: None,
        }
    }
}

/// The per-batch encodings of one input: join keys, rows, unique keys.
pub(crate) struct SideBatch {
    schema: SchemaRef,
    key_columns: Vec<usize>,
    key_plan: KeyPlan,
    keys: KeyBlock,
    codec: PayloadCodec,
    uk: Option<(Vec<usize>, KeyPlan, KeyBlock)>,
    /// The encoded all-NULL row that pads this side.
    null_row: Box<[u8]>,
}

impl SideBatch {
    fn new(schema: SchemaRef, side: &JoinSide) -> Result<Self> {
        let key_plan = KeyPlan::new(&schema, &side.key_columns)?;
        let mut codec = PayloadCodec::new(schema.clone())?;
        let nulls: Vec<ArrayRef> = schema.fields().iter().map(|f| new_null_array(f.data_type(), 1)).collect();
        let null_batch = RecordBatch::try_new_with_options(
            schema.clone(),
            nulls,
            &RecordBatchOptions::new().with_row_count(Some(1)),
        )
        .or_else(|_| {
            // A non-nullable field refuses a NULL column; pad with a
            // nullable copy of the schema (the output marks it nullable).
            let relaxed = Arc::new(Schema::new(
                schema.fields().iter().map(|f| f.as_ref().clone().with_nullable(true)).collect::<Vec<Field>>(),
            ));
            let nulls = relaxed.fields().iter().map(|f| new_null_array(f.data_type(), 1)).collect();
            RecordBatch::try_new_with_options(relaxed, nulls, &RecordBatchOptions::new().with_row_count(Some(1)))
        })?;
        codec.encode(&null_batch)?;
        let null_row = Box::from(codec.row(0));
        let uk = match (&side.unique_key, side.view_kind()) {
            (Some(cols), ViewKind::InputSideHasUniqueKey) => {
                Some((cols.clone(), KeyPlan::new(&schema, cols)?, KeyBlock::new()))
            }
            _ => None,
        };
        Ok(SideBatch {
            key_plan,
            keys: KeyBlock::new(),
            codec,
            uk,
            null_row,
            key_columns: side.key_columns.clone(),
            schema,
        })
    }

    fn encode(&mut self, batch: &RecordBatch) -> Result<()> {
        crate::group_agg::check_schema(&self.schema, batch)?;
        self.key_plan.fill(batch, &self.key_columns, &mut self.keys)?;
        self.codec.encode(batch)?;
        if let Some((cols, plan, block)) = &mut self.uk {
            plan.fill(batch, cols, block)?;
        }
        Ok(())
    }

    #[inline]
    fn uk(&self, i: usize) -> &[u8] {
        match &self.uk {
            Some((_, _, b)) => b.row(i),
            None => &[],
        }
    }
}

/// The updating join over two inputs (see the module docs).
pub struct StreamingJoin {
    opts: JoinOptions,
    out_schema: SchemaRef,
    left: SideBatch,
    right: SideBatch,
    left_state: SideState,
    right_state: SideState,
    cond: Condition,
    /// Bit positions in the key row's null bits of the fields compared with `=`.
    null_filtered: Vec<usize>,
    acct: Accounting,
    format: SnapshotFormat,
    arena: bumpalo::Bump,
    /// Reused per-row scratch: the row's packed condition bytes.
    packed: Vec<u8>,
    owned_rows: bool,
}

impl StreamingJoin {
    /// A join of batches of `left` and `right`.
    ///
    /// # Errors
    /// Key lists of different lengths or types, an unsupported key type, a
    /// unique key or condition column out of range, a condition over
    /// unsupported types, a bad max parallelism.
    pub fn new(left: SchemaRef, right: SchemaRef, opts: JoinOptions) -> Result<Self> {
        check_parallelism(opts.max_parallelism, 1)?;
        let (lk, rk) = (&opts.left.key_columns, &opts.right.key_columns);
        if lk.len() != rk.len() {
            return Err(invalid_arg(format!("{} left join keys but {} right join keys", lk.len(), rk.len())));
        }
        for (&l, &r) in lk.iter().zip(rk) {
            let (lt, rt) = match (left.fields().get(l), right.fields().get(r)) {
                (Some(a), Some(b)) => (a.data_type(), b.data_type()),
                _ => return Err(invalid_arg(format!("join key pair ({l}, {r}) out of range"))),
            };
            if lt != rt {
                return Err(invalid_arg(format!(
                    "join key types differ: left column {l} is {lt}, right column {r} is {rt}"
                )));
            }
        }
        for uk in [&opts.left.unique_key, &opts.right.unique_key].into_iter().flatten() {
            if uk.is_empty() {
                return Err(invalid_arg("an empty unique key"));
            }
        }
        if !opts.filter_null_keys.is_empty() && opts.filter_null_keys.len() != lk.len() {
            return Err(invalid_arg(format!(
                "{} filter_null_keys for {} join keys",
                opts.filter_null_keys.len(),
                lk.len()
            )));
        }
        let null_filtered =
            (0..lk.len()).filter(|&i| opts.filter_null_keys.get(i).copied().unwrap_or(true)).map(|i| i + 8).collect();
        let cond = Condition::new(&left, &right, &opts.condition)?;
        let out_schema = output_schema(&left, &right, opts.join_type);
        let fingerprint = fnv1a(
            format!(
                "join|{:?}|{:?}|{:?}|{:?}|{:?}|{:?}|{:?}",
                left.fields(),
                right.fields(),
                opts.join_type,
                opts.left,
                opts.right,
                opts.filter_null_keys,
                opts.condition
            )
            .as_bytes(),
        );
        Ok(StreamingJoin {
            left: SideBatch::new(left, &opts.left)?,
            right: SideBatch::new(right, &opts.right)?,
            left_state: SideState::new(opts.left.view_kind()),
            right_state: SideState::new(opts.right.view_kind()),
            cond,
            null_filtered,
            acct: Accounting::new(opts.state_budget),
            format: SnapshotFormat { tag: OpTag::Join, max_parallelism: opts.max_parallelism, fingerprint },
            out_schema,
            opts,
            arena: bumpalo::Bump::new(),
            packed: Vec::new(),
            owned_rows: false,
        })
    }

    /// The output schema: left fields then right fields; a side that can be
    /// padded has every field nullable.
    pub fn output_schema(&self) -> SchemaRef {
        self.out_schema.clone()
    }

    /// Join keys in the left and right state.
    pub fn num_keys(&self) -> (usize, usize) {
        (self.left_state.map.len(), self.right_state.map.len())
    }

    /// Retained state bytes of both sides (keys, rows, per-entry estimate).
    pub fn size(&self) -> usize {
        self.acct.bytes
    }

    /// Processes a batch of the left input (Flink's `processElement1`).
    ///
    /// # Errors
    /// Schema or length mismatch, `Error::StateBudgetExceeded` (rows before
    /// the failing one were applied; its output is lost with the error).
    pub fn process_left(&mut self, batch: &RecordBatch, kinds: &[RowKind]) -> Result<(RecordBatch, Vec<RowKind>)> {
        self.process(true, batch, kinds)
    }

    /// Processes a batch of the right input (Flink's `processElement2`).
    ///
    /// # Errors
    /// As [`process_left`](Self::process_left).
    pub fn process_right(&mut self, batch: &RecordBatch, kinds: &[RowKind]) -> Result<(RecordBatch, Vec<RowKind>)> {
        self.process(false, batch, kinds)
    }

    /// Benchmark-only: copy every input row's key and row bytes into owned
    /// boxes before probing (two owned copies per row, the behaviour the
    /// borrowed probes replaced), so a bench can compare both in one run.
    #[cfg(feature = "public_imp")]
    pub fn set_owned_rows(&mut self, on: bool) {
        self.owned_rows = on;
    }
}

fn output_schema(left: &Schema, right: &Schema, t: JoinType) -> SchemaRef {
    let side = |s: &Schema, padded: bool| -> Vec<Field> {
        s.fields().iter().map(|f| f.as_ref().clone().with_nullable(f.is_nullable() || padded)).collect()
    };
    let mut fields = side(left, t.right_is_outer());
    fields.extend(side(right, t.left_is_outer()));
    Arc::new(Schema::new(fields))
}
