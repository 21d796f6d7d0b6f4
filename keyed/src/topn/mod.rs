//! Top-N (`ROW_NUMBER() OVER (PARTITION BY … ORDER BY …)` filtered to a
//! constant rank range): Flink's `Rank` node.
//!
//! Flink's planner picks one of three ranking functions
//! (`RankProcessStrategy.analyzeRankProcessStrategies`, `StreamExecRank`),
//! all in `flink-table-runtime/.../operators/rank/`; [`TopNStrategy`] names
//! the one to reproduce, and the changelog is that function's, row for row:
//!
//! | strategy | Flink function | input | state |
//! | --- | --- | --- | --- |
//! | [`AppendOnly`](TopNStrategy::AppendOnly) | `AppendOnlyTopNFunction` | `+I` only | the top N rows (plus the ties of the N-th sort key with rank numbers) |
//! | [`Retract`](TopNStrategy::Retract) | `RetractableTopNFunction` | `+I`/`-U`/`+U`/`-D` | every row of the partition |
//! | [`FastTop1`](TopNStrategy::FastTop1) | `FastTop1Function` (append-only or update-fast input, rank range 1..1) | `+I`/`+U` | the best row |
//! | [`Update`](TopNStrategy::Update) | `UpdatableTopNFunction` (update-fast input: unique key, monotone sort key) | `+I`/`+U` | the top N rows by row key (see `update`) |
//!
//! Emission follows `AbstractTopNFunction`: with rank numbers in the output,
//! or with a rank start above 1 (`hasOffset`), every rank whose row changes
//! is re-emitted as `-U old`/`+U new` (rank column included when asked),
//! a rank that becomes occupied is `+I`, one that empties `-D`, and only
//! ranks inside `[rank_start, rank_end]` are emitted. Without rank numbers
//! and without offset, only membership changes: `-D` the row leaving the top
//! N, `+I` the row entering. `-U` rows are dropped when update-before is off
//! (`generateUpdateBefore`).
//!
//! Flink's `AbstractTopNFunction` rejects `RANK()` and `DENSE_RANK()` on a
//! streaming table ("RANK() on streaming table is not supported currently")
//! on both the 1.20 and the 2.x lines, so only ROW_NUMBER exists here; a
//! variable rank end (`rn <= column`) is not supported either.
//!
//! Deviations, for changelogs Flink's own upstream operators never produce:
//! a retraction of a row that is not in state is ignored (Flink's lenient
//! mode logs and decrements its sort key count); an `AppendOnly` operator
//! refuses every row kind but `+I`, a `FastTop1` or `Update` refuses
//! `-U`/`-D` (Flink's functions would treat them as inserts / upserts).
//!
//! # Memory
//! Partitions are keyed by the partition key's Flink `BinaryRowData` bytes,
//! borrowed from the batch's [`KeyBlock`] for the probe and copied only when
//! a partition is created. Sort keys are memcomparable arrow-row bytes of
//! the ORDER BY columns ([`SortColumn`]: ASC/DESC, NULLS FIRST/LAST),
//! encoded once per batch into a reused block; a row is an `Arc<[u8]>` of
//! its arrow-row bytes, so a `-U` of a shifted rank shares the stored row.
//! A row that cannot enter the top N (append-only, Top-1) is compared by
//! borrowed bytes and allocates nothing. The emission list of a batch lives
//! in one `bumpalo` arena that is reset at the start of every batch.

mod cost;
mod rank;
#[cfg(feature = "public_imp")]
mod scalar_ranker;
mod snap;
mod sort_key;
mod update;

use std::sync::Arc;

use arrow_array::{ArrayRef, Int64Array, RecordBatch, RecordBatchOptions};
use arrow_row::{RowConverter, Rows, SortField};
use arrow_schema::{DataType, Field, Schema, SchemaRef, SortOptions};
use bumpalo::collections::Vec as BumpVec;
use bumpalo::Bump;
use hashbrown::hash_map::EntryRef;

use crate::error::{invalid_arg, Error, Result};
use crate::flink_hash::check_parallelism;
use crate::group_agg::check_schema;
use crate::key_encoder::{KeyBlock, KeyPlan};
use crate::payload::PayloadCodec;
use crate::row_kind::{check_kinds_len, RowKind};
use crate::snapshot::{fnv1a, OpTag, SnapshotFormat};
use crate::state::{Accounting, ByteKeyMap, KeyProbe, ENTRY_OVERHEAD};

use cost::{BUCKET_OVERHEAD, ROW_OVERHEAD};
use rank::{Out, Partition, Top1};
use update::{Ranked, Upsert};

/// Which of Flink's ranking functions to reproduce.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TopNStrategy {
    /// `AppendOnlyTopNFunction` (`AppendFastStrategy`): insert-only input.
    AppendOnly,
    /// `RetractableTopNFunction` (`RetractStrategy`): any changelog.
    Retract,
    /// `FastTop1Function`: rank range 1..1 over an insert-only or
    /// update-fast input.
    FastTop1,
    /// `UpdatableTopNFunction` (`UpdateFastStrategy` with a rank end above
    /// 1): `+I`/`+U` upserts by a unique key ([`TopNOptions::row_key`])
    /// whose sort key only moves towards the top.
    Update,
}

/// One ORDER BY column.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SortColumn {
    /// Column index in the input schema.
    pub column: usize,
    /// `DESC`.
    pub descending: bool,
    /// `NULLS FIRST`.
    pub nulls_first: bool,
}

impl SortColumn {
    /// `ASC` with Flink's default null order for it (`NULLS FIRST`: Flink
    /// sorts NULL as the smallest value, `FlinkPlannerImpl`'s default
    /// `NullCollation.LOW`).
    pub fn asc(column: usize) -> Self {
        SortColumn { column, descending: false, nulls_first: true }
    }

    /// `DESC` with Flink's default null order for it (`NULLS LAST`).
    pub fn desc(column: usize) -> Self {
        SortColumn { column, descending: true, nulls_first: false }
    }
}

/// Options of [`TopN`].
#[derive(Clone, Debug)]
pub struct TopNOptions {
    /// The Flink function to reproduce.
    pub strategy: TopNStrategy,
    /// ORDER BY columns, most significant first (at least one).
    pub order: Vec<SortColumn>,
    /// First emitted rank (1-based; `rn BETWEEN a AND b` gives `a`). Default 1.
    pub rank_start: u64,
    /// Last emitted rank (`rn <= N` gives `N`).
    pub rank_end: u64,
    /// Append the rank number (BIGINT NOT NULL) as the last output column.
    pub output_rank_number: bool,
    /// Emit `-U` rows (`generateUpdateBefore`). Default true.
    pub generate_update_before: bool,
    /// Flink max parallelism, for grouping snapshots by key group. Default 128.
    pub max_parallelism: i32,
    /// Retained-bytes budget; an insert that would exceed it is an error.
    pub state_budget: Option<usize>,
    /// The unique key columns (Flink's `UpdateFastStrategy.primaryKeys`,
    /// the row key of `UpdatableTopNFunction`): the `Update` strategy only,
    /// empty for the others.
    pub row_key: Vec<usize>,
}

impl TopNOptions {
    /// Top-`n` (`rn <= n`) without rank column, update-before on.
    pub fn new(strategy: TopNStrategy, order: Vec<SortColumn>, n: u64) -> Self {
        TopNOptions {
            strategy,
            order,
            rank_start: 1,
            rank_end: n,
            output_rank_number: false,
            generate_update_before: true,
            max_parallelism: 128,
            state_budget: None,
            row_key: Vec::new(),
        }
    }
}

/// A streaming Top-N (see the module docs).
pub struct TopN {
    schema: SchemaRef,
    output_schema: SchemaRef,
    partition_columns: Vec<usize>,
    key_plan: KeyPlan,
    opts: TopNOptions,
    format: SnapshotFormat,
    sort_conv: RowConverter,
    sort_rows: Rows,
    parts: ByteKeyMap<Partition>,
    /// The partitions of the `Update` strategy.
    ranked: ByteKeyMap<Ranked>,
    /// The row key encoder of the `Update` strategy, and its block (boxed:
    /// the other strategies carry none).
    row_key_plan: Option<Box<KeyPlan>>,
    row_block: Box<KeyBlock>,
    block: KeyBlock,
    codec: PayloadCodec,
    arena: Bump,
    /// Rows emitted by the last batch: the next batch's emission list is
    /// reserved at that size, so it rarely grows (a growing list in the
    /// arena copies itself and leaves its old buffers behind until reset).
    emit_hint: usize,
    acct: Accounting,
    owned_key_probe: bool,
    /// Benchmark-only scalar-keyed retracting ranker (`set_scalar_ranker`).
    #[cfg(feature = "public_imp")]
    scalar: Option<Box<scalar_ranker::ScalarRanker>>,
}

impl TopN {
    /// A Top-N over batches of `schema`, partitioned by `partition_columns`
    /// (empty: one global partition, as Flink keys a Top-N without
    /// PARTITION BY by the empty row).
    ///
    /// # Errors
    /// No ORDER BY column, a column out of range, a rank range that is empty
    /// or starts below 1, `FastTop1` with a range other than 1..1, an
    /// unsupported partition key or sort key type, bad max parallelism.
    pub fn new(schema: SchemaRef, partition_columns: Vec<usize>, opts: TopNOptions) -> Result<Self> {
        check_parallelism(opts.max_parallelism, 1)?;
        if opts.order.is_empty() {
            return Err(invalid_arg("Top-N needs at least one ORDER BY column"));
        }
        if opts.rank_start < 1 || opts.rank_end < opts.rank_start {
            return Err(invalid_arg(format!(
                "rank range [{}, {}] is empty or starts below 1",
                opts.rank_start, opts.rank_end
            )));
        }
        if opts.strategy == TopNStrategy::FastTop1 && (opts.rank_start, opts.rank_end) != (1, 1) {
            return Err(invalid_arg("the FastTop1 strategy needs the rank range 1..1"));
        }
        let row_key_plan = match opts.strategy {
            TopNStrategy::Update => Some(Box::new(KeyPlan::new(&schema, &opts.row_key)?)),
            _ if !opts.row_key.is_empty() => return Err(invalid_arg("a row key is for the Update strategy only")),
            _ => None,
        };
        let key_plan = KeyPlan::new(&schema, &partition_columns)?;
        let mut fields = Vec::with_capacity(opts.order.len());
        for s in &opts.order {
            let f = schema
                .fields()
                .get(s.column)
                .ok_or_else(|| invalid_arg(format!("ORDER BY column {} out of range", s.column)))?;
            let options = SortOptions { descending: s.descending, nulls_first: s.nulls_first };
            fields.push(SortField::new_with_options(f.data_type().clone(), options));
        }
        let sort_conv = RowConverter::new(fields).map_err(|_| {
            let c = opts.order[0].column;
            Error::UnsupportedType { column: c, data_type: schema.field(c).data_type().clone(), role: "a sort key" }
        })?;
        let sort_rows = sort_conv.empty_rows(0, 0);
        let mut out_fields: Vec<Field> = schema.fields().iter().map(|f| f.as_ref().clone()).collect();
        if opts.output_rank_number {
            out_fields.push(Field::new("rank_number", DataType::Int64, false));
        }
        let fingerprint = fnv1a(
            format!(
                "topn|{:?}|{partition_columns:?}|{:?}|{:?}|{}|{}|{}|{:?}",
                schema.fields(),
                opts.strategy,
                opts.order,
                opts.rank_start,
                opts.rank_end,
                opts.output_rank_number,
                opts.row_key
            )
            .as_bytes(),
        );
        Ok(TopN {
            output_schema: Arc::new(Schema::new(out_fields)),
            codec: PayloadCodec::new(schema.clone())?,
            schema,
            partition_columns,
            key_plan,
            acct: Accounting::new(opts.state_budget),
            format: SnapshotFormat { tag: OpTag::TopN, max_parallelism: opts.max_parallelism, fingerprint },
            opts,
            sort_conv,
            sort_rows,
            parts: ByteKeyMap::default(),
            ranked: ByteKeyMap::default(),
            row_key_plan,
            row_block: Box::default(),
            block: KeyBlock::new(),
            arena: Bump::new(),
            emit_hint: 0,
            owned_key_probe: false,
            #[cfg(feature = "public_imp")]
            scalar: None,
        })
    }

    /// The schema of emitted batches: the input's, plus `rank_number`
    /// (Int64, not null) when the options ask for it.
    pub fn output_schema(&self) -> SchemaRef {
        self.output_schema.clone()
    }

    /// The options.
    pub fn options(&self) -> &TopNOptions {
        &self.opts
    }

    /// Partitions in state.
    pub fn num_partitions(&self) -> usize {
        self.parts.len() + self.ranked.len() + self.scalar_counts().0
    }

    /// Rows in state over all partitions.
    pub fn num_rows(&self) -> usize {
        let rows =
            self.parts.values().map(|p| p.rows).sum::<usize>() + self.ranked.values().map(|p| p.rows).sum::<usize>();
        rows + self.scalar_counts().1
    }

    /// Retained state bytes (keys, stored rows, per-entry overhead estimates).
    pub fn size(&self) -> usize {
        self.acct.bytes
    }

    /// Benchmark-only: copy every probe key (partition and sort key) into a
    /// fresh `Vec<u8>` per row and emit deep copies of stored rows (the
    /// owned-key, cloned-row behaviour the borrowed probes and `Arc` rows
    /// replaced), so the benches can compare both in one run.
    #[cfg(feature = "public_imp")]
    pub fn set_owned_key_probe(&mut self, on: bool) {
        self.owned_key_probe = on;
    }

    /// Benchmark- and test-only: run a retracting Top-N through the
    /// scalar-keyed ranker of `topn/scalar_ranker.rs` (a `Vec` of owned
    /// scalars as partition and sort key per row, a scalar comparator,
    /// deep-cloned before/after top-N snapshots: the before-state the
    /// byte-keyed ranker replaced), so the benches can compare both in one
    /// run. Snapshots are refused while it is on; no state budget.
    ///
    /// # Errors
    /// Another strategy than `Retract`, or rows already in state.
    #[cfg(feature = "public_imp")]
    pub fn set_scalar_ranker(&mut self, on: bool) -> Result<()> {
        if self.opts.strategy != TopNStrategy::Retract || self.num_rows() != 0 {
            return Err(invalid_arg("the scalar ranker is for a retracting Top-N without state"));
        }
        self.scalar = on.then(Box::default);
        Ok(())
    }

    /// Partitions and rows of the benchmark-only scalar ranker.
    #[cfg(feature = "public_imp")]
    fn scalar_counts(&self) -> (usize, usize) {
        self.scalar.as_ref().map_or((0, 0), |s| (s.num_partitions(), s.num_rows()))
    }

    #[cfg(not(feature = "public_imp"))]
    fn scalar_counts(&self) -> (usize, usize) {
        (0, 0)
    }

    /// Refuses snapshots while the benchmark-only scalar ranker holds the
    /// state (it has no snapshot format).
    fn check_snapshot_state(&self) -> Result<()> {
        #[cfg(feature = "public_imp")]
        if self.scalar.is_some() {
            return Err(invalid_arg("the benchmark-only scalar ranker has no snapshots"));
        }
        Ok(())
    }

    fn uses_row_number_algorithm(&self) -> bool {
        self.opts.output_rank_number || self.opts.rank_start > 1
    }

    /// Processes one changelog batch and returns the emitted changelog.
    ///
    /// # Errors
    /// Schema or length mismatch, a row kind the strategy refuses
    /// ([`Error::UnexpectedRowKind`]), [`Error::StateBudgetExceeded`] (rows
    /// before the failing one stay applied, their output is lost).
    pub fn process(&mut self, batch: &RecordBatch, row_kinds: &[RowKind]) -> Result<(RecordBatch, Vec<RowKind>)> {
        check_schema(&self.schema, batch)?;
        check_kinds_len(row_kinds, batch.num_rows())?;
        let refused = |k: &RowKind| match self.opts.strategy {
            TopNStrategy::AppendOnly => *k != RowKind::Insert,
            TopNStrategy::FastTop1 | TopNStrategy::Update => !matches!(k, RowKind::Insert | RowKind::UpdateAfter),
            TopNStrategy::Retract => false,
        };
        if let Some(row) = row_kinds.iter().position(refused) {
            return Err(Error::UnexpectedRowKind { row, kind: row_kinds[row].to_byte(), operator: "TopN" });
        }
        #[cfg(feature = "public_imp")]
        if self.scalar.is_some() {
            return self.process_scalar(batch, row_kinds);
        }
        self.key_plan.fill(batch, &self.partition_columns, &mut self.block)?;
        if let Some(plan) = &self.row_key_plan {
            plan.fill(batch, &self.opts.row_key, &mut self.row_block)?;
        }
        self.sort_rows.clear();
        let sort_cols: Vec<ArrayRef> = self.opts.order.iter().map(|s| batch.column(s.column).clone()).collect();
        self.sort_conv.append(&mut self.sort_rows, &sort_cols)?;
        self.codec.encode(batch)?;
        self.arena.reset();
        let ranked_algo = self.uses_row_number_algorithm();
        let Self {
            parts,
            ranked,
            block,
            row_block,
            codec,
            arena,
            acct,
            opts,
            sort_rows,
            owned_key_probe,
            emit_hint,
            ..
        } = self;
        let mut emits = BumpVec::with_capacity_in(*emit_hint, &*arena);
        let mut out = Out {
            emits: &mut emits,
            start: opts.rank_start,
            end: opts.rank_end,
            update_before: opts.generate_update_before,
            deep_copy: *owned_key_probe,
        };
        let (mut owned_key, mut owned_sort): (Vec<u8>, Vec<u8>);
        for (i, &kind) in row_kinds.iter().enumerate() {
            let (key, sort) = if *owned_key_probe {
                owned_key = block.row(i).to_vec();
                owned_sort = sort_rows.row(i).data().to_vec();
                (&owned_key[..], &owned_sort[..])
            } else {
                (block.row(i), sort_rows.row(i).data())
            };
            let row = Row {
                key,
                sort,
                payload: codec.row(i),
                accumulate: matches!(kind, RowKind::Insert | RowKind::UpdateAfter),
            };
            if opts.strategy == TopNStrategy::Update {
                let row = Upsert { key: row.key, sort: row.sort, row_key: row_block.row(i), payload: row.payload };
                update::apply(ranked, acct, opts.rank_end, ranked_algo, &row, &mut out)?;
            } else {
                apply(parts, acct, opts, ranked_algo, &row, &mut out)?;
            }
        }
        let kinds: Vec<RowKind> = emits.iter().map(|e| e.kind).collect();
        *emit_hint = kinds.len();
        let out = Self::output_of(
            codec,
            &self.output_schema,
            opts.output_rank_number,
            emits.iter().map(|e| &*e.row),
            kinds,
            emits.iter().map(|e| e.rank),
        );
        drop(emits);
        out
    }

    /// The output batch of the emitted `rows` (decoded in one call), their
    /// `kinds` and, with the rank column, their `ranks`.
    fn output_of<'r>(
        codec: &PayloadCodec,
        schema: &SchemaRef,
        rank_number: bool,
        rows: impl Iterator<Item = &'r [u8]>,
        kinds: Vec<RowKind>,
        ranks: impl Iterator<Item = u64>,
    ) -> Result<(RecordBatch, Vec<RowKind>)> {
        let mut cols = codec.decode(rows)?;
        if rank_number {
            cols.push(Arc::new(Int64Array::from_iter_values(ranks.map(|r| r as i64))));
        }
        let n = kinds.len();
        let options = RecordBatchOptions::new().with_row_count(Some(n));
        Ok((RecordBatch::try_new_with_options(schema.clone(), cols, &options)?, kinds))
    }
}

/// One input row, borrowed from the batch's blocks.
struct Row<'a> {
    key: &'a [u8],
    sort: &'a [u8],
    payload: &'a [u8],
    accumulate: bool,
}

/// Applies one row to its partition and emits what the strategy's Flink
/// function emits for it.
fn apply(
    parts: &mut ByteKeyMap<Partition>,
    acct: &mut Accounting,
    opts: &TopNOptions,
    ranked_algo: bool,
    row: &Row<'_>,
    out: &mut Out<'_, '_>,
) -> Result<()> {
    let part = match parts.entry_ref(&KeyProbe(row.key)) {
        EntryRef::Occupied(e) => e.into_mut(),
        // A retraction for a partition without state changes nothing.
        EntryRef::Vacant(_) if !row.accumulate => return Ok(()),
        EntryRef::Vacant(v) => {
            let add = row.key.len() + ENTRY_OVERHEAD;
            acct.check(add + row_cost(row))?;
            acct.charge(add);
            v.insert_with_key(Box::from(row.key), Partition::default())
        }
    };
    match opts.strategy {
        TopNStrategy::AppendOnly => {
            if !part.accepts(row.sort, opts.rank_end) {
                return Ok(());
            }
            let (new, own) = store(part, acct, row)?;
            let freed = if ranked_algo {
                rank::emit_insert_ranked(part, row.sort, own, &new, out);
                part.trim_past(opts.rank_end)
            } else {
                rank::emit_append_plain(part, &new, out)
            };
            acct.release(freed);
        }
        TopNStrategy::FastTop1 => match rank::top1_decide(part, row.sort) {
            Top1::Ignored => {}
            decision => {
                acct.check(row_cost(row))?;
                let new: rank::StoredRow = Arc::from(row.payload);
                rank::emit_top1(part, &new, opts.output_rank_number, out);
                if decision == Top1::Replaces {
                    while let Some((_, freed)) = part.pop_last() {
                        acct.release(freed);
                    }
                }
                let add = part.push(row.sort, new) + row.payload.len() + ROW_OVERHEAD;
                acct.charge(add);
            }
        },
        TopNStrategy::Retract if row.accumulate => {
            let (new, own) = store(part, acct, row)?;
            if ranked_algo {
                rank::emit_insert_ranked(part, row.sort, own, &new, out);
            } else {
                rank::emit_insert_plain(part, row.sort, own, &new, out);
            }
        }
        // `update::apply` runs the Update strategy's rows.
        TopNStrategy::Update => {}
        TopNStrategy::Retract => {
            let Some((idx, removed, freed)) = part.take(row.sort, row.payload) else { return Ok(()) };
            if ranked_algo {
                rank::emit_retract_ranked(part, row.sort, idx, &removed, out);
            } else {
                rank::emit_retract_plain(part, row.sort, idx, &removed, out);
            }
            acct.release(freed);
            if part.rows == 0 {
                if let Some((k, _)) = parts.remove_entry(row.key) {
                    acct.release(k.len() + ENTRY_OVERHEAD);
                }
            }
        }
    }
    Ok(())
}

/// The most a stored row can add to state (payload, a new bucket's key).
fn row_cost(row: &Row<'_>) -> usize {
    row.payload.len() + ROW_OVERHEAD + row.sort.len() + BUCKET_OVERHEAD
}

/// Copies the row into state (the one copy of an accepted row). Returns it
/// and its 1-based position in its sort key's bucket.
fn store(part: &mut Partition, acct: &mut Accounting, row: &Row<'_>) -> Result<(rank::StoredRow, usize)> {
    acct.check(row_cost(row))?;
    let new: rank::StoredRow = Arc::from(row.payload);
    let (add, own) = part.push_counted(row.sort, new.clone());
    acct.charge(add + row.payload.len() + ROW_OVERHEAD);
    Ok((new, own))
}
