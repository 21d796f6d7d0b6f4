//! The steps of an [`OverAggregate`]: a proctime batch, a rowtime batch
//! (buffering), a watermark (firing timers).
//!
//! Every emitting step builds one plan: the rows to accumulate or retract,
//! in the order the Flink function applies them, with their key slots and
//! ops (`op::ACC`, `op::RET`, `op::DEL` to clear a key's accumulators, the
//! clears last), and per output row the plan row it shows and the plan row
//! whose aggregate value it carries (itself for ROWS, the last row of its
//! timestamp for RANGE). The accumulators then run once over the plan
//! ([`Store::run`](super::store::Store::run)), each in its own typed loop.

use std::cmp::Reverse;

use arrow_array::cast::AsArray;
use arrow_array::types::{Int64Type, TimestampMillisecondType};
use arrow_array::{Array, ArrayRef, RecordBatch, RecordBatchOptions, UInt32Array};
use arrow_schema::DataType;
use arrow_select::take::take;
use bumpalo::collections::Vec as BumpVec;
use bumpalo::Bump;

use super::state::{KeyState, OptTs};
use super::store::ROW_OVERHEAD;
use super::{Mode, OverAggregate};
use crate::error::{invalid_arg, Result};
use crate::group_agg::drive::op;
use crate::row_kind::RowKind;
use crate::state::Accounting;

impl OverAggregate {
    /// `ProcTimeUnboundedPrecedingFunction.processElement` for every row:
    /// accumulate, emit the row with the values after it. The accumulators
    /// read the batch's own columns, which are also the output's.
    pub(super) fn proc_unbounded(&mut self, batch: &RecordBatch) -> Result<(RecordBatch, Vec<RowKind>)> {
        let n = batch.num_rows();
        #[cfg(feature = "public_imp")]
        if self.scalar_probe.is_some() {
            self.scalar_slots(batch)?;
            return self.fold_slots(batch);
        }
        let Self { store, block, slots, owned_key_probe, .. } = self;
        slots.clear();
        let mut owned = Vec::new();
        for i in 0..n {
            let key = block.probe_row(i, owned_key_probe.then_some(&mut owned));
            slots.push(store.slot(key)?);
        }
        self.fold_slots(batch)
    }

    /// The running fold of a proctime batch whose key slots are in
    /// `self.slots`: accumulate every row, emit it with the values after it.
    fn fold_slots(&mut self, batch: &RecordBatch) -> Result<(RecordBatch, Vec<RowKind>)> {
        let (n, ops) = (batch.num_rows(), &mut self.ops);
        ops.clear();
        ops.resize(n, op::ACC);
        let values = self.store.run(&mut self.outs, &mut self.changed, batch.columns(), &self.slots, &self.ops)?;
        self.output(batch.columns().to_vec(), values, n)
    }

    /// `ProcTimeRowsBoundedPrecedingFunction.processElement` for every row:
    /// once the key's frame holds `p` rows, retract the oldest; accumulate the
    /// row, keep it in the frame, emit it with the values after it.
    pub(super) fn proc_rows(&mut self, batch: &RecordBatch, p: u64) -> Result<(RecordBatch, Vec<RowKind>)> {
        let n = batch.num_rows();
        self.codec.encode(batch)?;
        self.arena.reset();
        let Self { store, block, slots, ops, out_vals, owned_key_probe, codec, arena, .. } = self;
        let mut rows: BumpVec<'_, &[u8]> = BumpVec::with_capacity_in(2 * n, arena);
        slots.clear();
        ops.clear();
        out_vals.clear();
        let mut owned = Vec::new();
        for i in 0..n {
            let key = block.probe_row(i, owned_key_probe.then_some(&mut owned));
            let slot = store.slot(key)?;
            let row = codec.row(i);
            store.acct.admit(row.len() + ROW_OVERHEAD)?;
            let ks = key_mut(&mut store.keys, slot)?;
            if ks.frame.len() as u64 >= p {
                if let Some(old) = ks.frame.pop_front() {
                    plan_retract(ks.frame.bytes_of(old), slot, arena, &mut rows, slots, ops, &mut store.acct);
                }
            }
            let ks = key_mut(&mut store.keys, slot)?;
            ks.frame.push(0, row);
            out_vals.push(rows.len() as u32);
            rows.push(row);
            slots.push(slot);
            ops.push(op::ACC);
        }
        let columns = codec.decode(rows.iter().copied())?;
        drop(rows);
        let values = self.store.run(&mut self.outs, &mut self.changed, &columns, &self.slots, &self.ops)?;
        let values = gather(values, &self.out_vals)?;
        self.output(batch.columns().to_vec(), values, n)
    }

    /// Rowtime `processElement` for every row: drop it if late, else buffer
    /// it until the watermark and register the function's timers. Proctime
    /// RANGE (`ProcTimeRangeBoundedPrecedingFunction.processElement`): buffer
    /// every row stamped with the processing time, register the cleanup timer
    /// (its processing timer, at stamp + 1, is implied by the stamp).
    pub(super) fn buffer(&mut self, batch: &RecordBatch) -> Result<()> {
        let times: &[i64] = match self.opts.time {
            super::OverTime::RowTime { column } => {
                let col = batch.column(column);
                if col.null_count() > 0 {
                    return Err(invalid_arg(format!(
                        "rowtime column {column} has NULLs (a rowtime attribute is NOT NULL)"
                    )));
                }
                match col.data_type() {
                    DataType::Timestamp(..) => col.as_primitive::<TimestampMillisecondType>().values(),
                    _ => col.as_primitive::<Int64Type>().values(),
                }
            }
            // Every row carries the one stamp.
            super::OverTime::ProcTime => &[],
        };
        self.codec.encode(batch)?;
        let Self { store, block, codec, pending, cleanup_heap, owned_key_probe, mode, watermark, late, .. } = self;
        let (wm, stamp) = (*watermark, self.proc_time);
        let mut owned = Vec::new();
        for i in 0..batch.num_rows() {
            let ts = times.get(i).copied().unwrap_or(stamp);
            let key = block.probe_row(i, owned_key_probe.then_some(&mut owned));
            let known = store.find(key);
            let is_late = match mode {
                Mode::RowUnbounded { .. } => ts <= wm,
                // Processing time: no row is late.
                Mode::ProcRange(_) => false,
                _ => ts <= known.and_then(|s| store.keys.get(s as usize)).map_or(0, |k| k.last_trigger),
            };
            if is_late {
                *late += 1;
                continue;
            }
            let slot = match known {
                Some(s) => s,
                None => store.slot(key)?,
            };
            let row = codec.row(i);
            store.acct.admit(row.len() + ROW_OVERHEAD)?;
            let ks = key_mut(&mut store.keys, slot)?;
            match *mode {
                Mode::RowUnbounded { .. } => {
                    // Flink: "default watermark is Long.Min, avoid overflow we use zero".
                    let trigger = if wm < 0 { 0 } else { wm.wrapping_add(1) };
                    ks.timer = OptTs::some(ks.timer.get().map_or(trigger, |t| t.min(trigger)));
                }
                // Both functions' `registerCleanupTimer` (proctime calls it for
                // the first row of a stamp; for the others it is a no-op).
                Mode::RowRange(x) | Mode::ProcRange(x) => {
                    let min_cleanup = ts.wrapping_add(x).wrapping_add(1);
                    if ks.cleanup_ts.get().is_none_or(|c| c < min_cleanup) {
                        // Java's `(long) (precedingOffset * 1.5)`.
                        let max_cleanup = ts.wrapping_add((x as f64 * 1.5) as i64).wrapping_add(1);
                        ks.cleanup_ts = OptTs::some(max_cleanup);
                        ks.cleanup_timers.push_back(max_cleanup);
                        cleanup_heap.push(Reverse((max_cleanup, slot, ks.generation)));
                    }
                }
                _ => {}
            }
            ks.pending += 1;
            pending.push(slot, ts, row);
        }
        Ok(())
    }

    /// The `onTimer` calls of every key whose timers fire at `watermark`
    /// (rowtime: the watermark; proctime RANGE: the processing time), as
    /// one step.
    pub(super) fn fire(&mut self, watermark: i64) -> Result<(RecordBatch, Vec<RowKind>)> {
        self.select_ready(watermark);
        self.arena.reset();
        let Self { store, pending, ready, arena, slots, ops, out_rows, out_vals, mode, codec, .. } = self;
        slots.clear();
        ops.clear();
        out_rows.clear();
        out_vals.clear();
        let mut rows: BumpVec<'_, &[u8]> = BumpVec::with_capacity_in(ready.len(), arena);
        let mut g = 0;
        while g < ready.len() {
            let first = pending.rows[ready[g] as usize];
            let (ts, slot) = (first.ts, first.slot);
            let mut end = g + 1;
            while end < ready.len() && {
                let r = &pending.rows[ready[end] as usize];
                (r.ts, r.slot) == (ts, slot)
            } {
                end += 1;
            }
            let ks = key_mut(&mut store.keys, slot)?;
            ks.pending = ks.pending.saturating_sub((end - g) as u32);
            let range = matches!(*mode, Mode::RowUnbounded { range: true } | Mode::RowRange(_) | Mode::ProcRange(_));
            if let Mode::RowRange(x) | Mode::ProcRange(x) = *mode {
                // Retract every row more than x older than the firing time
                // (proctime: `onTimer(ts + 1)` retracts stamps below `ts - x`).
                while let Some(old) = ks.frame.front().filter(|f| ts.wrapping_sub(f.ts) > x) {
                    ks.frame.pop_front();
                    plan_retract(ks.frame.bytes_of(old), slot, arena, &mut rows, slots, ops, &mut store.acct);
                }
            }
            let ks = key_mut(&mut store.keys, slot)?;
            let group_start = rows.len();
            for &idx in &ready[g..end] {
                let r = &pending.rows[idx as usize];
                let bytes = pending.bytes_of(r);
                match *mode {
                    Mode::RowRows(p) => {
                        if ks.frame.len() as u64 >= p {
                            if let Some(old) = ks.frame.pop_front() {
                                let bytes = ks.frame.bytes_of(old);
                                plan_retract(bytes, slot, arena, &mut rows, slots, ops, &mut store.acct);
                            }
                        }
                        ks.frame.push(ts, bytes);
                    }
                    Mode::RowRange(_) | Mode::ProcRange(_) => ks.frame.push(ts, bytes),
                    // The unbounded fold keeps no rows.
                    _ => store.acct.release(old_len(bytes)),
                }
                out_rows.push(rows.len() as u32);
                rows.push(bytes);
                slots.push(slot);
                ops.push(op::ACC);
            }
            let last = (rows.len() - 1) as u32;
            for k in group_start..rows.len() {
                if ops.get(k) == Some(&op::ACC) {
                    out_vals.push(if range { last } else { k as u32 });
                }
            }
            if !matches!(*mode, Mode::RowUnbounded { .. }) {
                ks.last_trigger = ts;
            }
            g = end;
        }
        let columns = codec.decode(rows.iter().copied())?;
        drop(rows);
        self.after_fire(watermark);
        let n = self.out_rows.len();
        let values = self.store.run(&mut self.outs, &mut self.changed, &columns, &self.slots, &self.ops)?;
        let values = gather(values, &self.out_vals)?;
        let inputs = if self.out_rows.len() == columns.first().map_or(0, |c| c.len()) {
            columns
        } else {
            gather(columns, &self.out_rows)?
        };
        let out = self.output(inputs, values, n);
        if self.dead.iter().any(|d| *d) {
            self.store.free_slots(&mut self.dead);
        }
        out
    }

    /// Marks the buffered rows whose timers fire at `watermark` and lists
    /// them in firing order: by timestamp, key slot, then arrival. Proctime
    /// RANGE: a row stamped `t` fires at `t + 1`, unless its key's cleanup
    /// timer is that same timer (`x = 0`): Flink's `onTimer` then clears the
    /// key's state first, so the row is dropped unemitted (marked, not listed).
    fn select_ready(&mut self, watermark: i64) {
        let Self { store, pending, ready, taken, mode, .. } = self;
        ready.clear();
        taken.clear();
        for (i, r) in pending.rows.iter().enumerate() {
            let ks = store.keys.get(r.slot as usize);
            let (due, fires) = match mode {
                // The key's timer (at most watermark + 1 of an earlier watermark) fires.
                Mode::RowUnbounded { .. } => {
                    let due = r.ts <= watermark && ks.and_then(|k| k.timer.get()).is_some_and(|t| t <= watermark);
                    (due, due)
                }
                Mode::ProcRange(_) => {
                    let timer = r.ts.saturating_add(1);
                    let due = timer <= watermark;
                    (due, due && ks.and_then(|k| k.cleanup_ts.get()).is_none_or(|c| c > timer))
                }
                // The row's own timer, at its timestamp.
                _ => (r.ts <= watermark, r.ts <= watermark),
            };
            taken.push(due);
            if fires {
                ready.push(i as u32);
            } else if due {
                if let Some(k) = store.keys.get_mut(r.slot as usize) {
                    k.pending = k.pending.saturating_sub(1);
                }
                store.acct.release(old_len(pending.bytes_of(r)));
            }
        }
        let rows = &pending.rows;
        ready.sort_unstable_by_key(|&i| (rows[i as usize].ts, rows[i as usize].slot, i));
    }

    /// After the rows fired: drop them from the buffer; re-register the
    /// unbounded timers of keys with rows left; fire the cleanup timers
    /// (RANGE bounded) up to `watermark`, appending a clear op for every key
    /// whose state they drop.
    fn after_fire(&mut self, watermark: i64) {
        let Self { store, pending, taken, cleanup_heap, slots, ops, dead, mode, .. } = self;
        let mut i = 0;
        pending.retain(|_| {
            let keep = !taken.get(i).copied().unwrap_or(false);
            i += 1;
            keep
        });
        if let Mode::RowUnbounded { .. } = mode {
            for ks in &mut store.keys {
                if ks.timer.get().is_some_and(|t| t <= watermark) {
                    ks.timer = (ks.pending > 0).then(|| watermark.wrapping_add(1)).into();
                }
            }
        }
        while let Some(&Reverse((t, slot, generation))) = cleanup_heap.peek() {
            if t > watermark {
                break;
            }
            cleanup_heap.pop();
            let Some(ks) = store.keys.get_mut(slot as usize) else { continue };
            if ks.generation != generation {
                continue;
            }
            ks.cleanup_timers.pop_front();
            ks.last_trigger = ks.last_trigger.max(t);
            if ks.cleanup_ts.get() == Some(t) {
                // `RowTimeRangeBoundedPrecedingFunction.onTimer`: the state is cleared.
                slots.push(slot);
                ops.push(op::DEL);
                dead.resize(store.keys.len(), false);
                if let Some(d) = dead.get_mut(slot as usize) {
                    *d = true;
                }
            }
        }
    }

    /// The output batch: input columns then aggregate values, all `+I`.
    pub(super) fn output(
        &self,
        mut cols: Vec<ArrayRef>,
        values: Vec<ArrayRef>,
        n: usize,
    ) -> Result<(RecordBatch, Vec<RowKind>)> {
        cols.extend(values);
        let batch = RecordBatch::try_new_with_options(
            self.output_schema.clone(),
            cols,
            &RecordBatchOptions::new().with_row_count(Some(n)),
        )?;
        Ok((batch, vec![RowKind::Insert; n]))
    }
}

/// The key state of `slot` (slots come from [`Store::slot`](super::store::Store::slot)).
#[inline]
fn key_mut(keys: &mut [KeyState], slot: u32) -> Result<&mut KeyState> {
    keys.get_mut(slot as usize).ok_or_else(|| invalid_arg("OVER state: slot out of range"))
}

/// Bytes charged for a stored row of `bytes`.
/// Plans the retraction of `old`, the bytes of a row just taken off key
/// `slot`'s frame: a copy in the step's `arena` (the frame reuses their
/// storage), a RET op, and its bytes released from the state budget.
#[inline(always)]
fn plan_retract<'a>(
    old: &[u8],
    slot: u32,
    arena: &'a Bump,
    rows: &mut BumpVec<'_, &'a [u8]>,
    slots: &mut Vec<u32>,
    ops: &mut Vec<u8>,
    acct: &mut Accounting,
) {
    rows.push(arena.alloc_slice_copy(old));
    slots.push(slot);
    ops.push(op::RET);
    acct.release(old_len(old));
}

fn old_len(bytes: &[u8]) -> usize {
    bytes.len() + ROW_OVERHEAD
}

/// `cols` at `indices` (one `take` per column).
fn gather(cols: Vec<ArrayRef>, indices: &[u32]) -> Result<Vec<ArrayRef>> {
    let idx = UInt32Array::from(indices.to_vec());
    cols.iter().map(|c| Ok(take(c.as_ref(), &idx, None)?)).collect()
}
