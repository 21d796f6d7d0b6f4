//! Snapshots of [`WindowAggregate`]: one entry per group key, grouped by
//! Flink key group (the shared format of [`crate::snapshot`]).
//!
//! An entry's value: `key row (bytes) | watermark i64 | slice count u32 |
//! per slice (end i64, row count i64, one state per aggregate) | timer
//! count u32 | per timer (window end i64)`, slices and timers ascending.
//!
//! The watermark is operator state in Flink (`WindowAggOperator` keeps it in
//! a union list state and a restore takes the minimum over every subtask);
//! here every key's entry carries the watermark of the operator that wrote
//! it and a restore takes the minimum over the entries it reads (the same
//! value whenever every writing subtask held keys; a binding that keeps the
//! watermark as operator state passes it to [`WindowAggregate::restore_watermark`]
//! as well). It decides which rows
//! are late after a restore, as in Flink; the restored timers fire on the
//! next watermark above it.

use super::state::{KeyInfo, KEY_OVERHEAD, SLICE_OVERHEAD, TIMER_BYTES};
use super::WindowAggregate;
use crate::error::{invalid_arg, Result};
use crate::flink_hash::KeyGroupRange;
use crate::snapshot::Writer;

/// A key read from a snapshot, before it enters state.
struct Staged {
    flink: Box<[u8]>,
    row: Box<[u8]>,
    /// `(slice end, slot)`; the slots are fresh, at the end of the vectors.
    slices: Vec<(i64, u32)>,
    timers: Vec<i64>,
}

/// Per key id: its slices `(end, slot)` and timers, ascending.
type PerKey = Vec<(Vec<(i64, u32)>, Vec<i64>)>;

impl WindowAggregate {
    fn per_key(&self) -> PerKey {
        let mut per: PerKey = vec![(Vec::new(), Vec::new()); self.state.keys.len()];
        for (&(k, end), &s) in &self.state.slices {
            if let Some(p) = per.get_mut(k as usize) {
                p.0.push((end, s));
            }
        }
        for &(end, k) in &self.state.timers {
            if let Some(p) = per.get_mut(k as usize) {
                p.1.push(end);
            }
        }
        for p in &mut per {
            p.0.sort_unstable();
        }
        per
    }

    fn write_key(&self, per: &PerKey, id: usize, w: &mut Writer) {
        let row = self.state.keys.get(id).and_then(Option::as_ref).map_or(&[][..], |k| &k.row);
        w.bytes(row);
        w.i64(self.watermark);
        let (slices, timers) = per.get(id).map_or((&[][..], &[][..]), |p| (&p.0[..], &p.1[..]));
        w.u32(slices.len() as u32);
        for &(end, s) in slices {
            w.i64(end);
            w.i64(self.state.counts.get(s as usize).copied().unwrap_or(0));
            for a in &self.accs {
                a.write(s as usize, w);
            }
        }
        w.u32(timers.len() as u32);
        for &t in timers {
            w.i64(t);
        }
    }

    /// Serialises the keys whose key group is in `range`.
    ///
    /// # Errors
    /// None today.
    pub fn snapshot(&self, range: KeyGroupRange) -> Result<Vec<u8>> {
        let per = self.per_key();
        let ids: Vec<usize> = (0..self.state.keys.len()).collect();
        let entries = self.state.keys.iter().zip(&ids).filter_map(|(k, id)| k.as_ref().map(|k| (&*k.flink, id)));
        Ok(self.format.write(range, entries, |&id, w| self.write_key(&per, id, w)))
    }

    /// One snapshot per non-empty key group of `range` (ascending), each
    /// restorable on its own.
    ///
    /// # Errors
    /// None today.
    pub fn snapshot_key_groups(&self, range: KeyGroupRange) -> Result<Vec<(i32, Vec<u8>)>> {
        let per = self.per_key();
        let ids: Vec<usize> = (0..self.state.keys.len()).collect();
        let entries = self.state.keys.iter().zip(&ids).filter_map(|(k, id)| k.as_ref().map(|k| (&*k.flink, id)));
        Ok(self.format.write_by_key_group(range, entries, |&id, w| self.write_key(&per, id, w)))
    }

    /// Adds the keys of `bytes` whose key group is in `range`, all or nothing.
    ///
    /// # Errors
    /// [`Error::CorruptSnapshot`](crate::Error::CorruptSnapshot) for damaged, truncated or foreign bytes; a
    /// key already in state; the state budget.
    pub fn restore(&mut self, bytes: &[u8], range: KeyGroupRange) -> Result<()> {
        let base = self.state.counts.len();
        let mut staged: Vec<Staged> = Vec::new();
        let mut wm: Option<i64> = None;
        let res = self.read_keys(bytes, range, &mut staged, &mut wm).and_then(|heap| self.check_staged(&staged, heap));
        let cost = match res {
            Ok(c) => c,
            Err(e) => {
                self.state.counts.truncate(base);
                for a in &mut self.accs {
                    a.truncate(base);
                }
                return Err(e);
            }
        };
        self.state.acct.charge(cost);
        for s in staged {
            let live = (s.slices.len() + s.timers.len()) as u32;
            let id = self.state.insert_key(KeyInfo { flink: s.flink, row: s.row, live });
            for (end, slot) in s.slices {
                self.state.slices.insert((id, end), slot);
            }
            for t in s.timers {
                self.state.timers.insert((t, id));
            }
        }
        if let Some(m) = wm {
            self.restore_watermark(m);
        }
        Ok(())
    }

    /// Sets the watermark a restore starts from: the first call sets it,
    /// later ones (several subtasks' state, scaling in) take the minimum, as
    /// `WindowAggOperator.initializeState` does over its union list state.
    /// [`Self::restore`] calls it with the watermark its entries carry; a
    /// binding that keeps the watermark as operator state (every subtask's,
    /// also of subtasks without keys) calls it with each.
    pub fn restore_watermark(&mut self, watermark: i64) {
        self.watermark = if self.restored_watermark { self.watermark.min(watermark) } else { watermark };
        self.restored_watermark = true;
    }

    /// Reads the entries into `staged` (slots appended to the state
    /// vectors); returns the accumulators' heap bytes.
    fn read_keys(
        &mut self,
        bytes: &[u8],
        range: KeyGroupRange,
        staged: &mut Vec<Staged>,
        wm: &mut Option<i64>,
    ) -> Result<usize> {
        let Self { state, accs, format, codec, .. } = self;
        let mut heap = 0;
        format.read(bytes, range, |key, r| {
            let at = r.pos();
            let row = r.bytes("key row")?;
            match codec {
                Some(c) => c.validate(row, at)?,
                None if !row.is_empty() => return Err(r.corrupt("a key row for an operator without key columns")),
                None => {}
            }
            let w = r.i64("watermark")?;
            *wm = Some(wm.map_or(w, |x| x.min(w)));
            let n = r.count("slice count", 16)?;
            let mut slices = Vec::with_capacity(n);
            for _ in 0..n {
                let end = r.i64("slice end")?;
                let count = r.i64("row count")?;
                if count < 0 || slices.last().is_some_and(|&(e, _)| e >= end) {
                    return Err(r.corrupt("slice out of order or with a negative row count"));
                }
                let s = state.counts.len() as u32;
                state.counts.push(count);
                for a in accs.iter_mut() {
                    a.push_slot();
                    heap += a.read(s as usize, r)?;
                }
                slices.push((end, s));
            }
            let t = r.count("timer count", 8)?;
            let timers = (0..t).map(|_| r.i64("timer")).collect::<Result<Vec<_>>>()?;
            if n + t == 0 {
                return Err(r.corrupt("a key without slices or timers"));
            }
            staged.push(Staged { flink: Box::from(key), row: Box::from(row), slices, timers });
            Ok(())
        })?;
        Ok(heap)
    }

    /// Checks the staged keys are new and fit the budget; returns their cost.
    fn check_staged(&self, staged: &[Staged], heap: usize) -> Result<usize> {
        let mut keys: Vec<&[u8]> = staged.iter().map(|s| &*s.flink).collect();
        keys.sort_unstable();
        if keys.windows(2).any(|w| w[0] == w[1]) || keys.iter().any(|k| self.state.find_key(k).is_some()) {
            return Err(invalid_arg("restore: a restored key is already in state"));
        }
        let slot = SLICE_OVERHEAD + self.state.slot_bytes;
        let cost: usize = staged
            .iter()
            .map(|s| s.flink.len() + s.row.len() + KEY_OVERHEAD + s.slices.len() * slot + s.timers.len() * TIMER_BYTES)
            .sum::<usize>()
            + heap;
        self.state.acct.check(cost)?;
        Ok(cost)
    }
}
