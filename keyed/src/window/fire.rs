//! Firing windows on the watermark (`WindowAggOperator.processWatermark` →
//! `onEventTime` → the processors' `fireWindow` then `clearWindow`), and
//! the emitted batch.

use std::sync::Arc;

use arrow_array::{ArrayRef, RecordBatch, RecordBatchOptions, TimestampMillisecondArray};

use super::assign::{is_fired, WindowKind};
use super::WindowAggregate;
use crate::error::Result;
use crate::group_agg::output::finish_column;

/// The scratch slot HOP merges a window into.
const SCRATCH: u32 = 0;

impl WindowAggregate {
    /// Advances the watermark to `watermark` and fires, in window-end order,
    /// every window whose end − 1 it reached; returns their rows (`+I`).
    /// A watermark not above the current one fires nothing (Flink's
    /// watermark never goes back).
    ///
    /// # Errors
    /// The state budget (a CUMULATE window creating its running total),
    /// string results over the i32 offset range, a stored key that does not
    /// decode (state restored from a damaged snapshot).
    pub fn advance_watermark(&mut self, watermark: i64) -> Result<RecordBatch> {
        self.out_keys.clear();
        self.out_ends.clear();
        for o in &mut self.outs {
            o.start(0);
        }
        if watermark <= self.watermark {
            return self.build_output();
        }
        self.watermark = watermark;
        let mut dead: Vec<u32> = Vec::new();
        let win = self.opts.window;
        while let Some((end, key)) = self.state.pop_timer(|e| is_fired(e, watermark)) {
            self.fire(key, end)?;
            for s in win.expired(end).into_iter().flatten() {
                self.state.expire(key, s, &mut self.accs);
            }
            if self.state.is_dead(key) {
                dead.push(key);
            }
        }
        let out = self.build_output();
        // Keys leave state only after their rows were decoded.
        for k in dead {
            if self.state.is_dead(k) {
                self.state.remove_key(k);
            }
        }
        out
    }

    /// `fireWindow` of the window ending at `end` for key `key`.
    fn fire(&mut self, key: u32, end: i64) -> Result<()> {
        let win = self.opts.window;
        let Self { state, accs, .. } = self;
        if win.is_single_slice() {
            if let Some(&s) = state.slices.get(&(key, end)) {
                self.emit(key, s, end);
            }
            return Ok(());
        }
        match win.kind {
            // Fired above: a tumbling window is a single slice.
            WindowKind::Tumble { .. } => {}
            WindowKind::Hop { slide, .. } => {
                // A fresh accumulator merges the window's slices, newest first
                // (`HoppingSlicesIterable`); its heap is not state.
                accs.iter_mut().for_each(|a| {
                    a.clear(SCRATCH as usize);
                });
                state.counts[SCRATCH as usize] = 0;
                for j in 0..win.slices_per_window() {
                    let slice = end.wrapping_sub(j.wrapping_mul(slide));
                    if let Some(&s) = state.slices.get(&(key, slice)) {
                        accs.iter_mut().for_each(|a| {
                            a.merge(SCRATCH as usize, s as usize);
                        });
                        state.counts[SCRATCH as usize] += state.counts[s as usize];
                    }
                }
                let empty = state.counts[SCRATCH as usize] == 0;
                if let Some(next) = win.next_trigger(end, empty) {
                    state.register(next, key);
                }
                self.emit(key, SCRATCH, end);
            }
            WindowKind::Cumulate { .. } => {
                // The window's first slice holds the running total: this
                // step's slice is merged into it (`CumulativeSliceAssigner.mergeSlices`).
                let first = win.first_slice_end(end);
                let total = match (end != first).then(|| state.slices.get(&(key, end)).copied()).flatten() {
                    Some(src) => {
                        let (dst, _) = state.slot(key, first, accs)?;
                        let added: usize = accs.iter_mut().map(|a| a.merge(dst as usize, src as usize)).sum();
                        state.acct.charge(added);
                        state.counts[dst as usize] += state.counts[src as usize];
                        Some(dst)
                    }
                    None => state.slices.get(&(key, first)).copied(),
                };
                if let Some(next) = win.next_trigger(end, false) {
                    state.register(next, key);
                }
                if let Some(t) = total {
                    self.emit(key, t, end);
                }
            }
        }
        Ok(())
    }

    /// Appends the row of window `end` from slot `slot` unless it is empty.
    fn emit(&mut self, key: u32, slot: u32, end: i64) {
        if self.state.counts.get(slot as usize).is_none_or(|&c| c == 0) {
            return;
        }
        self.out_keys.push(key);
        self.out_ends.push(end);
        for (a, o) in self.accs.iter().zip(self.outs.iter_mut()) {
            a.emit(slot as usize, o);
        }
    }

    fn build_output(&mut self) -> Result<RecordBatch> {
        let n = self.out_keys.len();
        let mut cols: Vec<ArrayRef> = Vec::with_capacity(self.output_schema.fields().len());
        if let Some(codec) = &self.codec {
            let keys = &self.state.keys;
            let rows = self
                .out_keys
                .iter()
                .map(|&k| keys.get(k as usize).and_then(Option::as_ref).map_or(&[][..], |k| &k.row));
            cols.extend(codec.decode(rows)?);
        }
        for (a, o) in self.accs.iter().zip(self.outs.iter_mut()) {
            cols.push(finish_column(o, n, a.vtype())?);
        }
        let win = self.opts.window;
        let ends = &self.out_ends;
        cols.push(Arc::new(TimestampMillisecondArray::from_iter_values(ends.iter().map(|&e| win.window_start(e)))));
        cols.push(Arc::new(TimestampMillisecondArray::from_iter_values(ends.iter().copied())));
        if self.opts.window_time {
            cols.push(Arc::new(TimestampMillisecondArray::from_iter_values(ends.iter().map(|&e| e.wrapping_sub(1)))));
        }
        Ok(RecordBatch::try_new_with_options(
            self.output_schema.clone(),
            cols,
            &RecordBatchOptions::new().with_row_count(Some(n)),
        )?)
    }
}
