//! GROUP BY over a changelog, emitting Flink's changelog.
//!
//! Follows `GroupAggFunction.processElement`
//! (`flink-table-runtime/.../operators/aggregate/GroupAggFunction.java`) with
//! `generateUpdateBefore = true` (configurable) and state TTL disabled. Per
//! input row, with state = accumulators + record count per key:
//! 1. no state and a retraction (`-U`/`-D`): dropped;
//! 2. no state and `+I`/`+U`: a new group — emit `+I (key, new)`;
//! 3. otherwise remember `prev`, apply the row, then
//!    * record count 0 → emit `-D (key, prev)`, clear the state;
//!    * `new == prev` (all aggregate values equal) → emit nothing;
//!    * else emit `-U (key, prev)` (if `generate_update_before`) and `+U (key, new)`.
//!
//! The output row is the group key columns then the aggregate values
//! (`JoinedRowData(key, aggValue)`). A call with `FILTER (WHERE …)` or
//! `DISTINCT` sees its input through a per-batch mask (`call.rs`).
//!
//! # Performance
//! The key rows of a batch are encoded once into a reused [`KeyBlock`]; the
//! state map (key bytes → group slot) is probed with the borrowed bytes and
//! a key is copied only when its group is created. The accumulators are
//! column-major (one typed vector per aggregate, indexed by slot), so after
//! one probe per row resolves the batch's slots, each aggregate is updated by
//! one typed loop over the batch (its `GroupsAccumulator`) that
//! appends the values before/after each row that the changelog emits. As
//! aggregates are independent, every row sees exactly the values the
//! row-at-a-time loop above sees, and the output is that loop's changelog,
//! row for row (updates whose values did not change are then dropped). A batch whose keys are all in state allocates
//! nothing per row (numeric aggregates). Key columns of the output are taken
//! from the input batch by row index (the emitted key is the input row's key,
//! as in Flink), so stored keys never need decoding.

use std::sync::Arc;

use arrow_array::{ArrayRef, RecordBatch, RecordBatchOptions, UInt32Array};
use arrow_schema::{Field, Schema, SchemaRef};
use arrow_select::take::take;
use hashbrown::hash_map::EntryRef;

use self::accumulator::{Groups, GroupsAccumulator};
use self::call::CallMask;
use self::drive::{commit, op, outputs_of, OutBuf, Pass, Plan, Sink};
use self::output::compact;
use crate::agg::{resolve, AggKind, AggSpec, Resolved, VType};
use crate::error::{invalid_arg, Error, Result};
use crate::flink_hash::{check_parallelism, KeyGroupRange};
use crate::key_encoder::{KeyBlock, KeyPlan};
use crate::row_kind::{check_kinds_len, RowKind};
use crate::snapshot::{fnv1a, OpTag, SnapshotFormat, Writer};
use crate::state::{Accounting, ByteKeyMap, KeyProbe, ENTRY_OVERHEAD};

pub(crate) mod accumulator;
mod call;
mod count;
mod current;
pub(crate) mod drive;
mod history;
mod multiset;
pub(crate) mod output;
mod sum;

/// Options of [`GroupAggregate`].
#[derive(Clone, Debug)]
pub struct GroupAggOptions {
    /// Emit `-U` before each `+U` (Flink's `generateUpdateBefore`). Default true.
    pub generate_update_before: bool,
    /// Whether the input may retract. When true (default), MIN/MAX keep a
    /// value → count multiset and FIRST/LAST_VALUE their value history, as
    /// Flink's `*WithRetractAggFunction`s do; when false they keep only the
    /// current value (Flink's append-only functions) and a retraction is an
    /// error.
    pub retractable: bool,
    /// Flink max parallelism, for grouping snapshots by key group. Default 128.
    pub max_parallelism: i32,
    /// Retained-bytes budget; a new group that would exceed it is an error.
    pub state_budget: Option<usize>,
}

impl Default for GroupAggOptions {
    fn default() -> Self {
        GroupAggOptions { generate_update_before: true, retractable: true, max_parallelism: 128, state_budget: None }
    }
}

/// Slot id of a row whose key has no state and is not created (a retraction).
const NO_SLOT: u32 = u32::MAX;

/// A streaming GROUP BY aggregate over changelog batches.
pub struct GroupAggregate {
    input_schema: SchemaRef,
    output_schema: SchemaRef,
    key_columns: Vec<usize>,
    key_plan: KeyPlan,
    opts: GroupAggOptions,
    format: SnapshotFormat,
    /// Key bytes → slot id into `counts` and the aggregates' columns.
    map: ByteKeyMap<u32>,
    /// Record count per slot; 0 for a free slot (whose accumulators are empty).
    counts: Vec<i64>,
    aggs: Vec<Aggregate>,
    /// Free slots, reused by new groups.
    free: Vec<u32>,
    /// Bytes charged per group besides its key (estimate).
    group_fixed: usize,
    has_heap: bool,
    acct: Accounting,
    /// The part of `acct.bytes` charged for the groups themselves (key,
    /// entry overhead, `group_fixed`), without the aggregates' heap. New
    /// groups are refused by the budget against all of `acct.bytes`, so this
    /// part never exceeds the budget; heap growth of existing groups is not
    /// refused, so the whole may. `restore` checks this part, so a snapshot
    /// the operator wrote always restores under the same budget.
    group_bytes: usize,
    owned_key_probe: bool,
    // Per-batch buffers, reused.
    block: KeyBlock,
    slots: Vec<u32>,
    ops: Vec<u8>,
    changed: Vec<bool>,
    outs: Vec<OutBuf>,
    keep: Vec<bool>,
    /// Rows whose group may have no record left at the end of the batch.
    maybe_dead: Vec<u32>,
    out_kinds: Vec<RowKind>,
    out_rows: Vec<u32>,
}

impl GroupAggregate {
    /// A GROUP BY `key_columns` computing `aggs` over batches of `input_schema`.
    ///
    /// # Errors
    /// Unsupported key or aggregate input types, columns out of range, bad
    /// max parallelism.
    pub fn new(
        input_schema: SchemaRef,
        key_columns: Vec<usize>,
        aggs: Vec<AggSpec>,
        opts: GroupAggOptions,
    ) -> Result<Self> {
        check_parallelism(opts.max_parallelism, 1)?;
        let fields = input_schema.fields();
        let mut out_fields: Vec<Field> = Vec::new();
        for &k in &key_columns {
            let f = fields.get(k).ok_or_else(|| invalid_arg(format!("key column {k} out of range")))?;
            out_fields.push(f.as_ref().clone());
        }
        let key_plan = KeyPlan::new(&input_schema, &key_columns)?;
        let resolved = aggs.iter().enumerate().map(|(i, a)| resolve(a, fields, i)).collect::<Result<Vec<_>>>()?;
        out_fields.extend(resolved.iter().map(|r| r.field.clone()));
        let fingerprint = fnv1a(format!("{:?}|{key_columns:?}|{aggs:?}|{}", fields, opts.retractable).as_bytes());
        let states: Vec<Aggregate> = resolved.iter().map(|r| Aggregate::new(r, opts.retractable)).collect();
        let group_fixed = std::mem::size_of::<i64>()
            + std::mem::size_of::<u32>()
            + states.iter().map(|a| a.acc.slot_bytes()).sum::<usize>();
        Ok(GroupAggregate {
            key_plan,
            output_schema: Arc::new(Schema::new(out_fields)),
            input_schema,
            key_columns,
            has_heap: states.iter().any(|a| a.acc.has_heap() || a.mask.as_ref().is_some_and(CallMask::has_state)),
            outs: states.iter().map(|_| OutBuf::default()).collect(),
            aggs: states,
            acct: Accounting::new(opts.state_budget),
            group_bytes: 0,
            format: SnapshotFormat { tag: OpTag::GroupAgg, max_parallelism: opts.max_parallelism, fingerprint },
            opts,
            map: ByteKeyMap::default(),
            counts: Vec::new(),
            free: Vec::new(),
            group_fixed,
            owned_key_probe: false,
            block: KeyBlock::new(),
            slots: Vec::new(),
            ops: Vec::new(),
            changed: Vec::new(),
            keep: Vec::new(),
            maybe_dead: Vec::new(),
            out_kinds: Vec::new(),
            out_rows: Vec::new(),
        })
    }

    /// The schema of the emitted batches: key columns, then one column per aggregate.
    pub fn output_schema(&self) -> SchemaRef {
        self.output_schema.clone()
    }

    /// Number of groups in state.
    pub fn num_groups(&self) -> usize {
        self.map.len()
    }

    /// Retained state bytes (keys, accumulators, multisets; an estimate that
    /// includes a fixed per-entry overhead).
    pub fn size(&self) -> usize {
        self.acct.bytes
    }

    /// Processes one changelog batch and returns the emitted changelog.
    ///
    /// # Errors
    /// A batch whose schema differs from the input schema, a `row_kinds`
    /// length mismatch, a retraction when `retractable` is false, or
    /// [`Error::StateBudgetExceeded`] (rows before the failing one stay
    /// applied, and their output is lost: restore from a snapshot).
    ///
    /// # Performance
    /// Three passes over the batch: every row's group slot is resolved with
    /// one probe of borrowed key bytes; a pass over the row kinds decides
    /// each row's effect on its group's record count (new group, update,
    /// delete) and its output rows; then each aggregate runs one typed loop
    /// over the rows (its accumulator's `update_batch`) writing straight
    /// into its output column. Rows whose values did not change are dropped
    /// from the output afterwards (a no-op when COUNT(*) is among the
    /// aggregates, since every update changes it).
    pub fn process(&mut self, batch: &RecordBatch, row_kinds: &[RowKind]) -> Result<(RecordBatch, Vec<RowKind>)> {
        check_schema(&self.input_schema, batch)?;
        let n = batch.num_rows();
        check_kinds_len(row_kinds, n)?;
        // Row indices are u32; output rows (at most 2 per row) too.
        if n >= (u32::MAX / 2) as usize {
            return Err(invalid_arg("batch too large for u32 row indices"));
        }
        self.key_plan.fill(batch, &self.key_columns, &mut self.block)?;
        self.resolve_slots(row_kinds);
        self.ops.clear();
        self.ops.resize(n, op::SKIP);
        self.changed.clear();
        self.changed.resize(n, false);
        let cap = if self.opts.generate_update_before { 2 * n } else { n };
        self.out_kinds = Vec::with_capacity(cap);
        self.out_rows.clear();
        self.out_rows.reserve(cap);
        for o in &mut self.outs {
            o.start(cap);
        }
        let applied = self.apply(batch, row_kinds);
        // Groups whose count returned to 0 leave state, also after an error.
        self.sweep();
        applied?;
        self.drop_unchanged();
        self.build_output(batch)
    }

    /// Pass 1: the slot of every row. A key not in state gets a slot when an
    /// accumulate row brings it (the key is copied into state here, once); a
    /// retraction for it gets [`NO_SLOT`].
    fn resolve_slots(&mut self, row_kinds: &[RowKind]) {
        let Self { map, block, slots, counts, aggs, free, maybe_dead, owned_key_probe, .. } = self;
        slots.clear();
        maybe_dead.clear();
        let mut owned_key = Vec::new();
        for (i, &kind) in row_kinds.iter().enumerate() {
            let key = block.probe_row(i, owned_key_probe.then_some(&mut owned_key));
            // A plain lookup first: the common case (key in state) needs no entry.
            if let Some(&s) = map.get(&KeyProbe(key)) {
                slots.push(s);
                continue;
            }
            let slot = match map.entry_ref(&KeyProbe(key)) {
                EntryRef::Occupied(e) => *e.get(),
                EntryRef::Vacant(v) => {
                    if !kind.is_accumulate() {
                        NO_SLOT
                    } else {
                        let s = match free.pop() {
                            Some(s) => s,
                            None => {
                                counts.push(0);
                                for a in aggs.iter_mut() {
                                    a.push_group();
                                }
                                (counts.len() - 1) as u32
                            }
                        };
                        v.insert_with_key(Box::from(key), s);
                        maybe_dead.push(i as u32);
                        s
                    }
                }
            };
            slots.push(slot);
        }
    }

    /// Pass 2 (row order): each row's effect on its group's record count and
    /// the state accounting, then the aggregate loops over the rows decided.
    /// On an error at row `f`, rows before `f` stay applied.
    fn apply(&mut self, batch: &RecordBatch, row_kinds: &[RowKind]) -> Result<()> {
        let Self {
            block,
            slots,
            ops,
            counts,
            aggs,
            outs,
            changed,
            maybe_dead,
            acct,
            group_bytes,
            opts,
            group_fixed,
            has_heap,
            out_kinds,
            out_rows,
            ..
        } = self;
        let columns = batch.columns();
        let update_before = opts.generate_update_before;
        let mut run = |rows: std::ops::Range<usize>, ops: &[u8], acct: &mut Accounting| -> Result<()> {
            if rows.is_empty() {
                return Ok(());
            }
            let plan = Plan { slots, ops, rows, update_before, fold: false };
            for (a, o) in aggs.iter_mut().zip(outs.iter_mut()) {
                apply_delta(acct, a.update(columns, &plan, o, changed)?);
            }
            Ok(())
        };
        // The budget check of a new group must see the heap changes of the
        // rows before it (as a row-at-a-time loop would).
        let exact_budget = acct.budget.is_some() && *has_heap;
        let mut start = 0;
        // At most two output rows per input row (an error drops the output).
        let room = 2 * row_kinds.len();
        let (mut kinds_out, mut rows_out) = (Sink::new(out_kinds, room), Sink::new(out_rows, room));
        for (i, &kind) in row_kinds.iter().enumerate() {
            let accumulate = kind.is_accumulate();
            if !accumulate && !opts.retractable {
                run(start..i, ops, acct)?;
                return Err(Error::UnexpectedRowKind {
                    row: i,
                    kind: kind.to_byte(),
                    operator: "append-only GroupAggregate",
                });
            }
            let Some(c) = slots.get(i).and_then(|&s| counts.get_mut(s as usize)) else { continue };
            let code = if accumulate {
                let code = if *c == 0 {
                    let base = block.row(i).len() + ENTRY_OVERHEAD + *group_fixed;
                    if exact_budget {
                        run(start..i, ops, acct)?;
                        start = i;
                    }
                    if let Err(e) = acct.check(base) {
                        run(start..i, ops, acct)?;
                        return Err(e);
                    }
                    acct.charge(base);
                    *group_bytes += base;
                    op::NEW
                } else {
                    op::ACC
                };
                *c += 1;
                code
            } else if *c > 0 {
                *c -= 1;
                if *c == 0 {
                    let base = block.row(i).len() + ENTRY_OVERHEAD + *group_fixed;
                    acct.release(base);
                    *group_bytes = group_bytes.saturating_sub(base);
                    maybe_dead.push(i as u32);
                    op::DEL
                } else {
                    op::RET
                }
            } else {
                // GroupAggFunction: a retraction for a key without state is dropped.
                op::SKIP
            };
            // The rows GroupAggFunction emits for this row if its values
            // change (unchanged ones are dropped by `drop_unchanged`); the
            // aggregate loops append their values in the same order.
            let mut emit = |k: RowKind| {
                kinds_out.push(k);
                rows_out.push(i as u32);
            };
            match code {
                op::NEW => emit(RowKind::Insert),
                op::DEL => emit(RowKind::Delete),
                op::ACC | op::RET => {
                    if update_before {
                        emit(RowKind::UpdateBefore);
                    }
                    emit(RowKind::UpdateAfter);
                }
                _ => {}
            }
            if let Some(o) = ops.get_mut(i) {
                *o = code;
            }
        }
        let (nk, nr) = (kinds_out.written(), rows_out.written());
        commit(out_kinds, nk);
        commit(out_rows, nr);
        run(start..row_kinds.len(), ops, acct)
    }

    /// Removes the groups left without records (their accumulators are
    /// already empty) and frees their slots.
    fn sweep(&mut self) {
        for &i in &self.maybe_dead {
            let Some(&s) = self.slots.get(i as usize) else { continue };
            if self.counts.get(s as usize) == Some(&0) {
                if let Some(s) = self.map.remove(&KeyProbe(self.block.row(i as usize))) {
                    self.free.push(s);
                }
            }
        }
        self.maybe_dead.clear();
    }

    /// Pass 3: drops the output rows of updates whose aggregate values did
    /// not change (GroupAggFunction with TTL off emits nothing for them).
    fn drop_unchanged(&mut self) {
        let unchanged = |(&o, &c): (&u8, &bool)| (o == op::ACC || o == op::RET) && !c;
        if !self.ops.iter().zip(&self.changed).any(unchanged) {
            return;
        }
        let keep = &mut self.keep;
        keep.clear();
        keep.resize(self.out_kinds.len(), true);
        let update_before = self.opts.generate_update_before;
        let mut at = 0;
        for (&o, &c) in self.ops.iter().zip(&self.changed) {
            let n = outputs_of(o, update_before);
            if unchanged((&o, &c)) {
                if let Some(k) = keep.get_mut(at..at + n) {
                    k.fill(false);
                }
            }
            at += n;
        }
        compact(&mut self.out_kinds, keep);
        compact(&mut self.out_rows, keep);
        for o in &mut self.outs {
            compact(&mut o.vals, keep);
            compact(&mut o.valid, keep);
            if !o.ends.is_empty() {
                compact(&mut o.ends, keep);
            }
        }
    }

    fn build_output(&mut self, batch: &RecordBatch) -> Result<(RecordBatch, Vec<RowKind>)> {
        let indices = UInt32Array::from(std::mem::take(&mut self.out_rows));
        let mut cols: Vec<ArrayRef> = Vec::with_capacity(self.output_schema.fields().len());
        for &k in &self.key_columns {
            cols.push(take(batch.column(k).as_ref(), &indices, None)?);
        }
        let len = indices.len();
        for (a, o) in self.aggs.iter().zip(self.outs.iter_mut()) {
            cols.push(a.acc.evaluate(o, len)?);
        }
        let rb = RecordBatch::try_new_with_options(
            self.output_schema.clone(),
            cols,
            &RecordBatchOptions::new().with_row_count(Some(indices.len())),
        )?;
        // Give the index buffer's allocation back when we are its only owner.
        if let Ok(v) = indices.into_parts().1.into_inner().into_vec::<u32>() {
            self.out_rows = v;
            self.out_rows.clear();
        }
        Ok((rb, std::mem::take(&mut self.out_kinds)))
    }

    /// Benchmark-only: copy every probe key into a fresh `Vec<u8>` before
    /// probing (the owned-key behaviour the borrowed probe replaced), so the
    /// benches can compare both in one run. Not for production use.
    #[cfg(feature = "public_imp")]
    pub fn set_owned_key_probe(&mut self, on: bool) {
        self.owned_key_probe = on;
    }

    /// Serialises the groups whose key group is in `range`.
    ///
    /// # Errors
    /// None today; `Result` keeps room for fallible state backends.
    pub fn snapshot(&self, range: KeyGroupRange) -> Result<Vec<u8>> {
        Ok(self.format.write(range, self.map.iter().map(|(k, v)| (&**k, v)), |&s, w| self.write_group(s, w)))
    }

    /// One snapshot per non-empty key group of `range` (ascending), written
    /// in one pass over the state; each restores on its own with
    /// [`GroupAggregate::restore`].
    ///
    /// # Errors
    /// None today.
    pub fn snapshot_key_groups(&self, range: KeyGroupRange) -> Result<Vec<(i32, Vec<u8>)>> {
        let entries = self.map.iter().map(|(k, v)| (&**k, v));
        Ok(self.format.write_by_key_group(range, entries, |&s, w| self.write_group(s, w)))
    }

    /// The snapshot value of the group in slot `s`: its record count, then
    /// each aggregate's accumulator (and a DISTINCT call's map after it).
    fn write_group(&self, s: u32, w: &mut Writer) {
        w.i64(self.counts.get(s as usize).copied().unwrap_or(0));
        for a in &self.aggs {
            a.acc.write_state(s as usize, w);
            if let Some(m) = &a.mask {
                m.write_state(s as usize, w);
            }
        }
    }

    /// Adds the groups of `bytes` whose key group is in `range` to the state
    /// (several snapshots can be restored into one operator when scaling in).
    ///
    /// # Errors
    /// [`Error::CorruptSnapshot`] for a truncated, corrupt or foreign
    /// snapshot (the state is then unchanged), a key present twice, or the
    /// state budget.
    pub fn restore(&mut self, bytes: &[u8], range: KeyGroupRange) -> Result<()> {
        // Restored groups get fresh slots at the end; on any error the
        // columns are cut back and the map is untouched.
        let base = self.counts.len();
        let mut staged: Vec<(Box<[u8]>, u32)> = Vec::new();
        let res = self.read_groups(bytes, range, &mut staged).and_then(|()| {
            let mut keys: Vec<&[u8]> = staged.iter().map(|(k, _)| &**k).collect();
            keys.sort_unstable();
            if keys.windows(2).any(|w| w[0] == w[1]) || keys.iter().any(|k| self.map.contains_key(*k)) {
                return Err(invalid_arg("restore: a restored key is already in state"));
            }
            let groups: usize = staged.iter().map(|(k, _)| k.len() + ENTRY_OVERHEAD + self.group_fixed).sum();
            let heap: usize =
                staged.iter().map(|(_, s)| self.aggs.iter().map(|a| a.heap_size(*s as usize)).sum::<usize>()).sum();
            // The groups are checked as `process` checks them (see
            // `group_bytes`): a snapshot written under this budget restores;
            // one with more groups than the budget holds does not.
            let check = Accounting { bytes: self.group_bytes, budget: self.acct.budget };
            check.check(groups)?;
            Ok((groups, heap))
        });
        match res {
            Ok((groups, heap)) => {
                self.acct.charge(groups + heap);
                self.group_bytes += groups;
                self.map.extend(staged);
                Ok(())
            }
            Err(e) => {
                self.counts.truncate(base);
                for a in &mut self.aggs {
                    a.truncate(base);
                }
                Err(e)
            }
        }
    }

    fn read_groups(&mut self, bytes: &[u8], range: KeyGroupRange, staged: &mut Vec<(Box<[u8]>, u32)>) -> Result<()> {
        let Self { counts, aggs, format, .. } = self;
        format.read(bytes, range, |key, r| {
            let count = r.i64("record count")?;
            if count <= 0 {
                return Err(r.corrupt(format!("record count {count} of a stored group")));
            }
            let s = counts.len();
            if s >= NO_SLOT as usize {
                return Err(invalid_arg("restore: too many groups"));
            }
            counts.push(count);
            for a in aggs.iter_mut() {
                a.push_group();
                a.acc.read_state(s, r)?;
                if let Some(m) = &mut a.mask {
                    m.read_state(s, r)?;
                }
            }
            staged.push((Box::from(key), s as u32));
            Ok(())
        })
    }
}

/// The accumulator of `r`. `retractable` picks the multiset / history
/// accumulators for MIN/MAX/FIRST/LAST.
pub(crate) fn new_accumulator(r: &Resolved, retractable: bool) -> Box<dyn GroupsAccumulator> {
    match (r.kind, r.vtype) {
        // A filtered COUNT(*) counts the valid rows of its mask (`call.rs`).
        (AggKind::CountStar, _) if r.filter.is_some() => Groups::boxed(count::Count::new(AggKind::Count)),
        (AggKind::CountStar | AggKind::Count, _) => Groups::boxed(count::Count::new(r.kind)),
        (AggKind::Sum | AggKind::Sum0 | AggKind::Avg, VType::F64) => Groups::boxed(sum::SumF64::new(r.kind)),
        (AggKind::Sum | AggKind::Sum0 | AggKind::Avg, _) => Groups::boxed(sum::SumI64::new(r.kind)),
        (AggKind::Min | AggKind::Max, t) if retractable => match t {
            VType::I64 => Groups::boxed(multiset::Multiset::<i64>::new(r.kind)),
            VType::F64 => Groups::boxed(multiset::Multiset::<f64>::new(r.kind)),
            VType::Str => Groups::boxed(multiset::MultisetStr::new(r.kind)),
        },
        (_, t) if retractable => match t {
            VType::I64 => Groups::boxed(history::History::<i64>::new(r.kind)),
            VType::F64 => Groups::boxed(history::History::<f64>::new(r.kind)),
            VType::Str => Groups::boxed(history::HistoryStr::new(r.kind)),
        },
        (_, VType::I64) => Groups::boxed(current::Current::<i64>::new(r.kind)),
        (_, VType::F64) => Groups::boxed(current::Current::<f64>::new(r.kind)),
        (_, VType::Str) => Groups::boxed(current::CurrentStr::new(r.kind)),
    }
}

/// One aggregate call of the GROUP BY: its input column, its accumulators
/// and its FILTER / DISTINCT mask.
pub(crate) struct Aggregate {
    pub(crate) column: Option<usize>,
    pub(crate) acc: Box<dyn GroupsAccumulator>,
    pub(crate) mask: Option<CallMask>,
}

impl Aggregate {
    /// The call `r` (see [`new_accumulator`]).
    pub(crate) fn new(r: &Resolved, retractable: bool) -> Self {
        Aggregate { column: r.column, acc: new_accumulator(r, retractable), mask: CallMask::of(r) }
    }

    fn push_group(&mut self) {
        self.acc.push_group();
        if let Some(m) = &mut self.mask {
            m.push_group();
        }
    }

    fn truncate(&mut self, len: usize) {
        self.acc.truncate(len);
        if let Some(m) = &mut self.mask {
            m.truncate(len);
        }
    }

    fn heap_size(&self, slot: usize) -> usize {
        self.acc.heap_size(slot) + self.mask.as_ref().map_or(0, |m| m.heap_size(slot))
    }

    /// [`GroupsAccumulator::update_batch`] on this aggregate's input column of `columns`.
    pub(crate) fn update(
        &mut self,
        columns: &[ArrayRef],
        plan: &Plan<'_>,
        out: &mut OutBuf,
        changed: &mut [bool],
    ) -> Result<isize> {
        if let Some(m) = &mut self.mask {
            let (masked, delta) = m.input(columns, self.column, plan)?;
            return Ok(delta + self.acc.update_batch(Some(&masked), Pass { plan, out, changed })?);
        }
        let input = match self.column {
            Some(c) => Some(columns.get(c).ok_or_else(|| invalid_arg(format!("aggregate input column {c} missing")))?),
            None => None,
        };
        self.acc.update_batch(input, Pass { plan, out, changed })
    }
}

#[inline]
pub(crate) fn apply_delta(acct: &mut Accounting, delta: isize) {
    if delta >= 0 {
        acct.charge(delta as usize)
    } else {
        acct.release(delta.unsigned_abs())
    }
}

pub(crate) fn check_schema(expected: &Schema, batch: &RecordBatch) -> Result<()> {
    let got = batch.schema();
    if got.fields().len() != expected.fields().len()
        || got.fields().iter().zip(expected.fields().iter()).any(|(a, b)| a.data_type() != b.data_type())
    {
        return Err(invalid_arg(format!(
            "batch schema {:?} does not match the operator's input schema {:?}",
            got.fields(),
            expected.fields()
        )));
    }
    Ok(())
}
