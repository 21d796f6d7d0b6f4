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
//! (`JoinedRowData(key, aggValue)`).
//!
//! # Performance
//! The key rows of a batch are encoded once into a reused [`KeyBlock`]; the
//! state map is probed with the borrowed bytes and a key is copied only when
//! its group is created. A batch whose keys are all in state allocates
//! nothing per row (numeric aggregates). Key columns of the output are taken
//! from the input batch by row index (the emitted key is the input row's key,
//! as in Flink), so stored keys never need decoding.

use std::sync::Arc;

use arrow_array::{ArrayRef, RecordBatch, RecordBatchOptions, UInt32Array};
use arrow_schema::{Field, Schema, SchemaRef};
use arrow_select::take::take;
use hashbrown::hash_map::EntryRef;

use crate::agg::{finish_columns, resolve, Acc, AggSpec, InCol, Resolved, Slot, VType};
use crate::error::{invalid_arg, Error, Result};
use crate::flink_hash::{check_parallelism, KeyGroupRange};
use crate::key_encoder::{KeyBlock, KeyPlan};
use crate::row_kind::{check_kinds_len, RowKind};
use crate::snapshot::{fnv1a, read_snapshot, write_snapshot, write_snapshots_by_key_group, OpTag, Writer};
use crate::state::{Accounting, ByteKeyMap, KeyProbe, ENTRY_OVERHEAD};

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

struct Group {
    count: i64,
    accs: Box<[Acc]>,
}

/// A streaming GROUP BY aggregate over changelog batches.
pub struct GroupAggregate {
    input_schema: SchemaRef,
    output_schema: SchemaRef,
    key_columns: Vec<usize>,
    key_plan: KeyPlan,
    aggs: Vec<Resolved>,
    opts: GroupAggOptions,
    fingerprint: u64,
    map: ByteKeyMap<Group>,
    block: KeyBlock,
    /// Emitted aggregate values, row-major (`aggs.len()` per output row).
    out: Vec<Slot>,
    /// String values of `out`.
    arena: Vec<u8>,
    prev: Box<[Slot]>,
    cur: Box<[Slot]>,
    types: Box<[VType]>,
    out_kinds: Vec<RowKind>,
    out_rows: Vec<u32>,
    acct: Accounting,
    empty_accs: Box<[Acc]>,
    owned_key_probe: bool,
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
        let empty_accs: Box<[Acc]> = resolved.iter().map(|r| Acc::new(r, opts.retractable)).collect();
        Ok(GroupAggregate {
            key_plan,
            output_schema: Arc::new(Schema::new(out_fields)),
            out: Vec::new(),
            arena: Vec::new(),
            prev: vec![Slot::NULL; resolved.len()].into(),
            cur: vec![Slot::NULL; resolved.len()].into(),
            types: resolved.iter().map(|r| r.out).collect(),
            input_schema,
            key_columns,
            aggs: resolved,
            acct: Accounting::new(opts.state_budget),
            opts,
            fingerprint,
            map: ByteKeyMap::default(),
            block: KeyBlock::new(),
            out_kinds: Vec::new(),
            out_rows: Vec::new(),
            empty_accs,
            owned_key_probe: false,
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
    pub fn process(&mut self, batch: &RecordBatch, row_kinds: &[RowKind]) -> Result<(RecordBatch, Vec<RowKind>)> {
        check_schema(&self.input_schema, batch)?;
        let n = batch.num_rows();
        check_kinds_len(row_kinds, n)?;
        if n > u32::MAX as usize {
            return Err(invalid_arg("batch too large for u32 row indices"));
        }
        self.key_plan.fill(batch, &self.key_columns, &mut self.block)?;
        let inputs = self.aggs.iter().map(|r| InCol::new(r, batch.columns())).collect::<Result<Vec<_>>>()?;

        let Self { map, block, out, arena, prev, cur, types, out_kinds, out_rows, aggs, opts, acct, empty_accs, owned_key_probe, .. } = self;
        let owned_key_probe = *owned_key_probe;
        let mut owned_key: Vec<u8>;
        let k = aggs.len();
        // A previous batch that failed mid-way may have left rows behind.
        out.clear();
        arena.clear();
        out.reserve(2 * n * k);
        out_kinds.clear();
        out_rows.clear();
        out_kinds.reserve(2 * n);
        out_rows.reserve(2 * n);
        let gen_ub = opts.generate_update_before;

        for (i, &kind) in row_kinds.iter().enumerate() {
            let accumulate = kind.is_accumulate();
            if !accumulate && !opts.retractable {
                return Err(Error::UnexpectedRowKind { row: i, kind: kind.to_byte(), operator: "append-only GroupAggregate" });
            }
            let key = if owned_key_probe {
                owned_key = block.row(i).to_vec();
                &owned_key[..]
            } else {
                block.row(i)
            };
            match map.entry_ref(&KeyProbe(key)) {
                EntryRef::Occupied(mut e) => {
                    let g = e.get_mut();
                    let base = arena.len();
                    for ((slot, acc), r) in prev.iter_mut().zip(g.accs.iter()).zip(aggs.iter()) {
                        *slot = acc.value(r, arena);
                    }
                    let mut delta = 0isize;
                    for ((acc, r), input) in g.accs.iter_mut().zip(aggs.iter()).zip(inputs.iter()) {
                        delta += acc.update(r, input, i, accumulate);
                    }
                    g.count += if accumulate { 1 } else { -1 };
                    apply_delta(acct, delta);
                    if g.count != 0 {
                        for ((slot, acc), r) in cur.iter_mut().zip(g.accs.iter()).zip(aggs.iter()) {
                            *slot = acc.value(r, arena);
                        }
                        let same = prev.iter().zip(cur.iter()).zip(types.iter()).all(|((a, b), t)| a.same(*b, *t, arena));
                        if same {
                            // GroupAggFunction: equal values and TTL off → nothing.
                            arena.truncate(base);
                            continue;
                        }
                        if gen_ub {
                            out.extend_from_slice(prev);
                            out_kinds.push(RowKind::UpdateBefore);
                            out_rows.push(i as u32);
                        }
                        out.extend_from_slice(cur);
                        out_kinds.push(RowKind::UpdateAfter);
                        out_rows.push(i as u32);
                    } else {
                        out.extend_from_slice(prev);
                        out_kinds.push(RowKind::Delete);
                        out_rows.push(i as u32);
                        let freed = key.len() + ENTRY_OVERHEAD + group_size(&e.get().accs);
                        e.remove();
                        acct.release(freed);
                    }
                }
                EntryRef::Vacant(v) => {
                    if !accumulate {
                        // GroupAggFunction: retraction for a key without state is dropped.
                        continue;
                    }
                    let base_size = key.len() + ENTRY_OVERHEAD + group_size(empty_accs);
                    acct.check(base_size)?;
                    let mut accs = empty_accs.clone();
                    let mut delta = 0isize;
                    for ((acc, r), input) in accs.iter_mut().zip(aggs.iter()).zip(inputs.iter()) {
                        delta += acc.update(r, input, i, true);
                    }
                    for ((slot, acc), r) in cur.iter_mut().zip(accs.iter()).zip(aggs.iter()) {
                        *slot = acc.value(r, arena);
                    }
                    out.extend_from_slice(cur);
                    out_kinds.push(RowKind::Insert);
                    out_rows.push(i as u32);
                    acct.charge(base_size);
                    apply_delta(acct, delta);
                    v.insert_with_key(Box::from(key), Group { count: 1, accs });
                }
            }
        }
        self.build_output(batch)
    }

    fn build_output(&mut self, batch: &RecordBatch) -> Result<(RecordBatch, Vec<RowKind>)> {
        let indices = UInt32Array::from(std::mem::take(&mut self.out_rows));
        let mut cols: Vec<ArrayRef> = Vec::with_capacity(self.output_schema.fields().len());
        for &k in &self.key_columns {
            cols.push(take(batch.column(k).as_ref(), &indices, None)?);
        }
        cols.extend(finish_columns(&self.out, &self.types, &self.arena)?);
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
    #[doc(hidden)]
    pub fn set_owned_key_probe(&mut self, on: bool) {
        self.owned_key_probe = on;
    }

    /// Serialises the groups whose key group is in `range`.
    ///
    /// # Errors
    /// None today; `Result` keeps room for fallible state backends.
    pub fn snapshot(&self, range: KeyGroupRange) -> Result<Vec<u8>> {
        Ok(write_snapshot(
            OpTag::GroupAgg,
            self.opts.max_parallelism,
            self.fingerprint,
            range,
            self.map.iter().map(|(k, v)| (&**k, v)),
            write_group,
        ))
    }

    /// One snapshot per non-empty key group of `range` (ascending), written
    /// in one pass over the state; each restores on its own with
    /// [`GroupAggregate::restore`].
    ///
    /// # Errors
    /// None today.
    pub fn snapshot_key_groups(&self, range: KeyGroupRange) -> Result<Vec<(i32, Vec<u8>)>> {
        Ok(write_snapshots_by_key_group(
            OpTag::GroupAgg,
            self.opts.max_parallelism,
            self.fingerprint,
            range,
            self.map.iter().map(|(k, v)| (&**k, v)),
            write_group,
        ))
    }

    /// Adds the groups of `bytes` whose key group is in `range` to the state
    /// (several snapshots can be restored into one operator when scaling in).
    ///
    /// # Errors
    /// [`Error::CorruptSnapshot`] for a truncated, corrupt or foreign
    /// snapshot (the state is then unchanged), a key present twice, or the
    /// state budget.
    pub fn restore(&mut self, bytes: &[u8], range: KeyGroupRange) -> Result<()> {
        let mut staged: Vec<(Box<[u8]>, Group)> = Vec::new();
        let empty = &self.empty_accs;
        read_snapshot(bytes, OpTag::GroupAgg, self.opts.max_parallelism, self.fingerprint, range, |key, r| {
            let count = r.i64("record count")?;
            if count <= 0 {
                return Err(r.corrupt(format!("record count {count} of a stored group")));
            }
            let accs = empty.iter().map(|e| Acc::read(r, e)).collect::<Result<Box<[Acc]>>>()?;
            staged.push((Box::from(key), Group { count, accs }));
            Ok(())
        })?;
        let mut add = 0usize;
        for (k, g) in &staged {
            if self.map.contains_key(k) {
                return Err(invalid_arg("restore: a restored key is already in state"));
            }
            add += k.len() + ENTRY_OVERHEAD + group_size(&g.accs);
        }
        self.acct.check(add)?;
        self.acct.charge(add);
        self.map.extend(staged);
        Ok(())
    }
}

fn write_group(g: &Group, w: &mut Writer) {
    w.i64(g.count);
    for a in g.accs.iter() {
        a.write(w);
    }
}

fn group_size(accs: &[Acc]) -> usize {
    std::mem::size_of::<Group>() + std::mem::size_of_val(accs) + accs.iter().map(Acc::heap_size).sum::<usize>()
}

#[inline]
fn apply_delta(acct: &mut Accounting, delta: isize) {
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
