//! Window aggregation: Flink's window TVF aggregate (`WindowAggregate` over
//! `TUMBLE`, `HOP` and `CUMULATE` on a rowtime column), slicing design.
//!
//! Follows `WindowAggOperator` (`flink-table-runtime/.../operators/window/
//! tvf/common/WindowAggOperator.java`, `SlicingWindowOperator` on older
//! lines) with its slicing processors
//! (`.../aggregate/window/processors/AbstractSliceWindowAggProcessor`,
//! `SliceUnsharedWindowAggProcessor` for TUMBLE, `SliceSharedWindowAggProcessor`
//! for HOP and CUMULATE), the slice assigners ([`assign`], `SliceAssigners`)
//! and the combiner that folds buffered rows into slice state (`AggCombiner`):
//! * A row goes to the slice of its rowtime ([`WindowSpec`]); rows are folded
//!   into per `(group key, slice end)` accumulators, each slice once; a window
//!   is merged from its slices when it fires. A row whose slice already fired
//!   but whose last window did not (HOP, CUMULATE) goes to the slice state a
//!   firing window still merges (`sliceStateMergeTarget`) and registers the
//!   first unfired window; a row whose last window fired is late and dropped
//!   ([`WindowAggregate::late_rows_dropped`], Flink's `numLateRecordsDropped`).
//! * Timers: one per key and window end, registered when a slice first gets
//!   rows (at the slice end) and, after a HOP / CUMULATE window fired, for
//!   the next window (`nextTriggerWindow`: HOP only after a non-empty window,
//!   CUMULATE up to the largest window). A window ending at `end` fires when
//!   the watermark reaches `end - 1` (`TimeWindowUtil.isWindowFired`).
//! * An empty window (no rows folded: Flink's `COUNT(*)` index, which the
//!   planner adds for HOP) is not emitted. Output rows are `+I`: the group key
//!   columns, the aggregates, then `window_start`, `window_end` and
//!   `window_time` (`window_end - 1`; left out when
//!   [`WindowAggOptions::window_time`] is false), all `TIMESTAMP(3) NOT NULL`.
//! * Emission order: windows by ascending end; among the keys of one window
//!   end Flink's order is its timer queue's and not defined (its own tests
//!   compare sorted output), here it is key-id order. Compare as a multiset
//!   per window end.
//! * Input is insert-only (a window aggregate over an updating input is
//!   planned by Flink as a group aggregate): `-U`, `+U` and `-D` are refused.
//!   Proctime windows, time-zone shifted (`TIMESTAMP_LTZ`) windows,
//!   FIRST_VALUE / LAST_VALUE and the two-phase (local/global) window
//!   aggregate are not supported here.
//!
//! # Performance
//! One probe per row resolves its slot (a row with the same key bytes and
//! slice as the one before reuses its slot without probing); then every
//! run of consecutive rows with one slot is folded straight from the
//! column's values (`&values[run]`, no `take`); MIN/MAX of strings
//! compares borrowed bytes and copies only the run's winner when it beats
//! the stored value. A batch whose keys and slices are in state allocates
//! per batch, not per row.

mod acc;
pub mod assign;
mod fire;
mod snap;
mod state;

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{Int64Type, TimestampMillisecondType};
use arrow_array::{Array, ArrayRef, RecordBatch, UInt32Array};
use arrow_schema::{DataType, Field, Schema, SchemaRef, TimeUnit};
use arrow_select::take::take;

use self::acc::{new_acc, Col, WinAcc};
use self::assign::is_fired;
pub use self::assign::{WindowKind, WindowSpec};
use self::state::WindowState;
use crate::agg::{refuse_filter_distinct, resolve, AggSpec};
use crate::error::{invalid_arg, Error, Result};
use crate::flink_hash::check_parallelism;
use crate::group_agg::check_schema;
use crate::group_agg::drive::OutBuf;
use crate::key_encoder::{KeyBlock, KeyPlan};
use crate::payload::PayloadCodec;
use crate::row_kind::{check_kinds_len, RowKind};
use crate::snapshot::{fnv1a, OpTag, SnapshotFormat};
use crate::state::eq_key_bytes;

/// Slot of a dropped (late) row.
const NO_SLOT: u32 = u32::MAX;

/// Options of [`WindowAggregate`].
#[derive(Clone, Debug)]
pub struct WindowAggOptions {
    /// The window TVF.
    pub window: WindowSpec,
    /// The rowtime column (`TIMESTAMP(3)`: Arrow `Timestamp(Millisecond)`
    /// without time zone, or Int64 epoch milliseconds; never NULL).
    pub rowtime: usize,
    /// Flink max parallelism, for grouping snapshots by key group. Default 128.
    pub max_parallelism: i32,
    /// Retained-bytes budget; a new key, slice or timer that would exceed it is an error.
    pub state_budget: Option<usize>,
    /// Emit the `window_time` column (Flink's plan carries it only when the
    /// query reads it: `namedWindowProperties` of the node). Default true.
    pub window_time: bool,
}

impl WindowAggOptions {
    /// `window` over rowtime column `rowtime`, default max parallelism, no budget.
    pub fn new(window: WindowSpec, rowtime: usize) -> Self {
        WindowAggOptions { window, rowtime, max_parallelism: 128, state_budget: None, window_time: true }
    }
}

/// A window TVF aggregate (see the module docs).
pub struct WindowAggregate {
    input_schema: SchemaRef,
    output_schema: SchemaRef,
    key_columns: Vec<usize>,
    key_plan: KeyPlan,
    opts: WindowAggOptions,
    format: SnapshotFormat,
    agg_columns: Vec<Option<usize>>,
    accs: Vec<Box<dyn WinAcc>>,
    /// arrow-row codec of the key columns (`None` without key columns).
    codec: Option<PayloadCodec>,
    state: WindowState,
    /// Current watermark (Flink's `currentProgress`, `Long.MIN_VALUE` before the first).
    watermark: i64,
    /// Whether a restore set the watermark (several restores take the minimum).
    restored_watermark: bool,
    late_dropped: u64,
    take_variant: bool,
    // Per-batch buffers, reused.
    block: KeyBlock,
    row_slots: Vec<u32>,
    outs: Vec<OutBuf>,
    out_keys: Vec<u32>,
    out_ends: Vec<i64>,
}

impl WindowAggregate {
    /// A window aggregate grouping by `key_columns` (may be empty) and
    /// computing `aggs` over batches of `input_schema`.
    ///
    /// # Errors
    /// Bad window sizes (Flink's messages), a rowtime column out of range or
    /// of another type, unsupported key or aggregate types, FIRST_VALUE /
    /// LAST_VALUE, bad max parallelism.
    pub fn new(
        input_schema: SchemaRef,
        key_columns: Vec<usize>,
        aggs: Vec<AggSpec>,
        opts: WindowAggOptions,
    ) -> Result<Self> {
        check_parallelism(opts.max_parallelism, 1)?;
        opts.window.validate()?;
        let fields = input_schema.fields();
        let rt = fields
            .get(opts.rowtime)
            .ok_or_else(|| invalid_arg(format!("rowtime column {} out of range", opts.rowtime)))?;
        if !matches!(rt.data_type(), DataType::Int64 | DataType::Timestamp(TimeUnit::Millisecond, None)) {
            return Err(Error::UnsupportedType {
                column: opts.rowtime,
                data_type: rt.data_type().clone(),
                role: "a rowtime (Int64 or Timestamp(Millisecond) without time zone)",
            });
        }
        let key_plan = KeyPlan::new(&input_schema, &key_columns)?;
        let mut out_fields: Vec<Field> = key_columns.iter().map(|&k| fields[k].as_ref().clone()).collect();
        refuse_filter_distinct(&aggs, "window")?;
        let resolved = aggs.iter().enumerate().map(|(i, a)| resolve(a, fields, i)).collect::<Result<Vec<_>>>()?;
        let mut accs = resolved.iter().map(new_acc).collect::<Result<Vec<_>>>()?;
        out_fields.extend(resolved.iter().map(|r| r.field.clone()));
        let ts = DataType::Timestamp(TimeUnit::Millisecond, None);
        let props: &[&str] = if opts.window_time {
            &["window_start", "window_end", "window_time"]
        } else {
            &["window_start", "window_end"]
        };
        for name in props {
            out_fields.push(Field::new(*name, ts.clone(), false));
        }
        let codec = if key_columns.is_empty() {
            None
        } else {
            let key_fields: Vec<Field> = key_columns.iter().map(|&k| fields[k].as_ref().clone()).collect();
            Some(PayloadCodec::new(Arc::new(Schema::new(key_fields)))?)
        };
        let fingerprint = fnv1a(
            format!("window|{:?}|{key_columns:?}|{aggs:?}|{}|{:?}", fields, opts.rowtime, opts.window).as_bytes(),
        );
        let slot_bytes = accs.iter().map(|a| a.slot_bytes()).sum();
        let state = WindowState::new(opts.state_budget, slot_bytes, &mut accs);
        Ok(WindowAggregate {
            output_schema: Arc::new(Schema::new(out_fields)),
            input_schema,
            key_columns,
            key_plan,
            format: SnapshotFormat { tag: OpTag::Window, max_parallelism: opts.max_parallelism, fingerprint },
            opts,
            agg_columns: resolved.iter().map(|r| r.column).collect(),
            outs: accs.iter().map(|_| OutBuf::default()).collect(),
            accs,
            codec,
            state,
            watermark: i64::MIN,
            restored_watermark: false,
            late_dropped: 0,
            take_variant: false,
            block: KeyBlock::new(),
            row_slots: Vec::new(),
            out_keys: Vec::new(),
            out_ends: Vec::new(),
        })
    }

    /// The schema of emitted batches: key columns, one column per aggregate,
    /// `window_start`, `window_end`, `window_time`.
    pub fn output_schema(&self) -> SchemaRef {
        self.output_schema.clone()
    }

    /// The options.
    pub fn options(&self) -> &WindowAggOptions {
        &self.opts
    }

    /// Group keys in state.
    pub fn num_keys(&self) -> usize {
        self.state.num_keys()
    }

    /// `(key, slice)` accumulators in state.
    pub fn num_slices(&self) -> usize {
        self.state.slices.len()
    }

    /// Pending window timers.
    pub fn num_timers(&self) -> usize {
        self.state.timers.len()
    }

    /// Retained state bytes (an estimate with fixed per-entry overheads).
    pub fn size(&self) -> usize {
        self.state.acct.bytes
    }

    /// The current watermark (`i64::MIN` before the first).
    pub fn watermark(&self) -> i64 {
        self.watermark
    }

    /// Rows dropped as late so far (Flink's `numLateRecordsDropped`).
    pub fn late_rows_dropped(&self) -> u64 {
        self.late_dropped
    }

    /// Benchmark-only: fold each `(key, slice)` group of a batch from
    /// `take`-n copies of its rows (the behaviour the contiguous-range fold
    /// replaced), and make MIN/MAX of strings copy every candidate string.
    #[cfg(feature = "public_imp")]
    pub fn set_take_variant(&mut self, take: bool, copy_every_string: bool) {
        self.take_variant = take;
        for a in &mut self.accs {
            a.set_copy_every_string(copy_every_string);
        }
    }

    /// Folds one insert-only batch into the slices; emits nothing (windows
    /// fire in [`WindowAggregate::advance_watermark`]).
    ///
    /// # Errors
    /// A schema or `row_kinds` length mismatch, a row kind other than `+I`,
    /// a NULL rowtime (Flink: "RowTime field should not be null"), the state
    /// budget (rows before the failing one stay applied).
    pub fn process(&mut self, batch: &RecordBatch, row_kinds: &[RowKind]) -> Result<()> {
        check_schema(&self.input_schema, batch)?;
        let n = batch.num_rows();
        check_kinds_len(row_kinds, n)?;
        if n >= NO_SLOT as usize {
            return Err(invalid_arg("batch too large for u32 row indices"));
        }
        if let Some(row) = row_kinds.iter().position(|k| *k != RowKind::Insert) {
            return Err(Error::UnexpectedRowKind {
                row,
                kind: row_kinds[row].to_byte(),
                operator: "WindowAggregate (insert-only input)",
            });
        }
        let rt = batch.column(self.opts.rowtime);
        if let Some(row) = rt.nulls().and_then(|nl| (0..n).find(|&i| nl.is_null(i))) {
            return Err(invalid_arg(format!(
                "row {row}: RowTime field should not be null, please convert it to a non-null long value."
            )));
        }
        self.key_plan.fill(batch, &self.key_columns, &mut self.block)?;
        let times: &[i64] = match rt.data_type() {
            DataType::Int64 => rt.as_primitive::<Int64Type>().values(),
            _ => rt.as_primitive::<TimestampMillisecondType>().values(),
        };
        let resolved = self.resolve_slots(batch, times);
        // Rows resolved before an error are folded (they are applied).
        let folded = self.fold(batch);
        resolved.and(folded)
    }

    /// Pass 1: every row's slot (or [`NO_SLOT`] for a late row), creating
    /// keys, slices and timers as Flink's `processElement` and combiner do.
    fn resolve_slots(&mut self, batch: &RecordBatch, times: &[i64]) -> Result<()> {
        let Self { state, accs, block, row_slots, codec, opts, watermark, late_dropped, key_columns, .. } = self;
        let (win, wm) = (opts.window, *watermark);
        row_slots.clear();
        let mut encoded = false;
        // (row, key id, target slice, slot) of the previous row kept.
        let mut prev: Option<(usize, u32, i64, u32)> = None;
        for (i, &t) in times.iter().enumerate() {
            let slice = win.slice_end(t);
            let late = is_fired(slice, wm);
            if late && is_fired(win.last_window_end(slice), wm) {
                *late_dropped += 1;
                row_slots.push(NO_SLOT);
                continue;
            }
            let target = if late { win.merge_target(slice) } else { slice };
            let kb = block.row(i);
            let key = match prev {
                Some((p, k, ..)) if eq_key_bytes(block.row(p), kb) => k,
                _ => match state.find_key(kb) {
                    Some(k) => k,
                    None => {
                        if let (Some(c), false) = (codec.as_mut(), encoded) {
                            c.encode(&batch.project(key_columns)?)?;
                            encoded = true;
                        }
                        state
                            .key_id(kb, || codec.as_ref().map_or_else(|| Box::from(&[][..]), |c| Box::from(c.row(i))))?
                    }
                },
            };
            let slot = match prev {
                Some((_, k, pt, ps)) if k == key && pt == target => ps,
                _ => {
                    let (s, created) = state.slot(key, target, accs)?;
                    if created && !late {
                        state.register(slice, key);
                    }
                    s
                }
            };
            if late {
                // The first window of the slice that has not fired yet.
                let mut w = slice;
                while is_fired(w, wm) {
                    w = w.wrapping_add(win.interval());
                }
                state.register(w, key);
            }
            row_slots.push(slot);
            prev = Some((i, key, target, slot));
        }
        Ok(())
    }

    /// Pass 2: folds the resolved rows into their slots, a run of rows with
    /// one slot at a time (or, in the bench's take variant, a `take` of each
    /// slot's rows).
    fn fold(&mut self, batch: &RecordBatch) -> Result<()> {
        let inputs: Vec<Option<&ArrayRef>> = self.agg_columns.iter().map(|c| c.map(|c| batch.column(c))).collect();
        if self.take_variant {
            return self.fold_taken(&inputs);
        }
        let cols = inputs.iter().map(|a| Col::of(*a)).collect::<Result<Vec<_>>>()?;
        let Self { state, accs, row_slots, .. } = self;
        let mut heap = 0;
        let mut start = 0;
        while let Some(&s) = row_slots.get(start) {
            let end = start + row_slots[start..].iter().take_while(|&&x| x == s).count();
            if s != NO_SLOT {
                if let Some(c) = state.counts.get_mut(s as usize) {
                    *c += (end - start) as i64;
                }
                for (a, col) in accs.iter_mut().zip(&cols) {
                    heap += a.fold(s as usize, col, start..end);
                }
            }
            start = end;
        }
        state.acct.charge(heap);
        Ok(())
    }

    /// The bench's `take` variant of [`Self::fold`]: rows grouped by slot,
    /// each group's values copied out with `take`, then folded.
    fn fold_taken(&mut self, inputs: &[Option<&ArrayRef>]) -> Result<()> {
        let Self { state, accs, row_slots, .. } = self;
        let mut order: Vec<u32> = (0..row_slots.len() as u32).filter(|&i| row_slots[i as usize] != NO_SLOT).collect();
        order.sort_by_key(|&i| row_slots[i as usize]);
        let mut heap = 0;
        for group in order.chunk_by(|&a, &b| row_slots[a as usize] == row_slots[b as usize]) {
            let s = row_slots[group[0] as usize];
            let idx = UInt32Array::from(group.to_vec());
            if let Some(c) = state.counts.get_mut(s as usize) {
                *c += group.len() as i64;
            }
            for (a, input) in accs.iter_mut().zip(inputs) {
                let taken = input.map(|col| take(col.as_ref(), &idx, None)).transpose()?;
                heap += a.fold(s as usize, &Col::of(taken.as_ref())?, 0..group.len());
            }
        }
        state.acct.charge(heap);
        Ok(())
    }
}
