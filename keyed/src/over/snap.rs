//! Snapshots of [`OverAggregate`]: one entry per partition key, grouped by
//! Flink key group (the shared format of [`crate::snapshot`]).
//!
//! An entry's value is, little-endian:
//! `last trigger i64 | timer (flag u8, i64) | cleanup ts (flag u8, i64) |
//! cleanup timers (u32 n, n × i64) | every aggregate's accumulator (the
//! group aggregate's format) | frame rows (u32 n, n × (ts i64, row bytes)) |
//! buffered rows (u32 n, n × (ts i64, row bytes))`, rows as `length u32 |
//! arrow-row bytes`, oldest first. Every row is checked to decode with the
//! operator's schema before it is kept, so foreign bytes are an error and
//! never a panic. The watermark is not part of keyed state (a restored
//! Flink operator starts at `Long.MIN_VALUE` too); the timers are.

use std::cmp::Reverse;

use super::state::KeyState;
use super::store::ROW_OVERHEAD;
use super::OverAggregate;
use crate::error::{invalid_arg, Result};
use crate::flink_hash::KeyGroupRange;
use crate::payload::PayloadCodec;
use crate::snapshot::{Reader, Writer};
use crate::state::ENTRY_OVERHEAD;

fn write_opt(w: &mut Writer, v: Option<i64>) {
    w.u8(v.is_some() as u8);
    w.i64(v.unwrap_or(0));
}

fn read_opt(r: &mut Reader<'_>, what: &str) -> Result<Option<i64>> {
    let flag = r.u8(what)?;
    let v = r.i64(what)?;
    match flag {
        0 => Ok(None),
        1 => Ok(Some(v)),
        f => Err(r.corrupt(format!("{what} flag {f}"))),
    }
}

impl OverAggregate {
    /// Serialises the keys whose key group is in `range`.
    ///
    /// # Errors
    /// None today.
    pub fn snapshot(&self, range: KeyGroupRange) -> Result<Vec<u8>> {
        let by_slot = self.pending_by_slot();
        let entries = self.store.map.iter();
        Ok(self.format.write(range, entries, |&s, w| self.write_key(s, &by_slot, w)))
    }

    /// One snapshot per non-empty key group of `range` (ascending), written
    /// in one pass over the state; each restores on its own.
    ///
    /// # Errors
    /// None today.
    pub fn snapshot_key_groups(&self, range: KeyGroupRange) -> Result<Vec<(i32, Vec<u8>)>> {
        let by_slot = self.pending_by_slot();
        let entries = self.store.map.iter();
        Ok(self.format.write_by_key_group(range, entries, |&s, w| self.write_key(s, &by_slot, w)))
    }

    /// `(slot, buffer index)` of every buffered row, by slot then arrival.
    fn pending_by_slot(&self) -> Vec<(u32, u32)> {
        let mut v: Vec<(u32, u32)> = self.pending.rows.iter().enumerate().map(|(i, r)| (r.slot, i as u32)).collect();
        v.sort_unstable();
        v
    }

    fn write_key(&self, s: u32, by_slot: &[(u32, u32)], w: &mut Writer) {
        let empty = KeyState::default();
        let ks = self.store.keys.get(s as usize).unwrap_or(&empty);
        w.i64(ks.last_trigger);
        write_opt(w, ks.timer.get());
        write_opt(w, ks.cleanup_ts.get());
        w.u32(ks.cleanup_timers.len() as u32);
        for &t in &ks.cleanup_timers {
            w.i64(t);
        }
        for a in &self.store.aggs {
            a.acc.write_state(s as usize, w);
        }
        w.u32(ks.frame.len() as u32);
        for (ts, row) in ks.frame.iter() {
            w.i64(ts);
            w.bytes(row);
        }
        let lo = by_slot.partition_point(|&(x, _)| x < s);
        let hi = by_slot.partition_point(|&(x, _)| x <= s);
        w.u32((hi - lo) as u32);
        for &(_, i) in &by_slot[lo..hi] {
            if let Some(r) = self.pending.rows.get(i as usize) {
                w.i64(r.ts);
                w.bytes(self.pending.bytes_of(r));
            }
        }
    }

    /// Adds the keys of `bytes` in `range` to the state, all or nothing.
    ///
    /// # Errors
    /// [`Error::CorruptSnapshot`](crate::Error::CorruptSnapshot) for damaged,
    /// truncated or foreign bytes (another operator, schema, key, aggregate
    /// list, time or frame); a key already in state; the state budget.
    pub fn restore(&mut self, bytes: &[u8], range: KeyGroupRange) -> Result<()> {
        let base = self.store.keys.len();
        let mut staged: Vec<(Box<[u8]>, u32)> = Vec::new();
        // Buffered rows: (slot, ts, start, len) into `staged_bytes`.
        let mut staged_rows: Vec<(u32, i64, usize, usize)> = Vec::new();
        let mut staged_bytes: Vec<u8> = Vec::new();
        let res = self.read_keys(bytes, range, &mut staged, &mut staged_rows, &mut staged_bytes).and_then(|rows| {
            let mut keys: Vec<&[u8]> = staged.iter().map(|(k, _)| &**k).collect();
            keys.sort_unstable();
            if keys.windows(2).any(|w| w[0] == w[1]) || keys.iter().any(|k| self.store.map.contains_key(k)) {
                return Err(invalid_arg("restore: a restored key is already in state"));
            }
            let heap: usize = staged
                .iter()
                .map(|(_, s)| self.store.aggs.iter().map(|a| a.acc.heap_size(*s as usize)).sum::<usize>())
                .sum();
            let fixed: usize = staged.iter().map(|(k, _)| k.len() + ENTRY_OVERHEAD + self.store.key_fixed).sum();
            let add = fixed + heap + rows;
            self.store.acct.check(add)?;
            Ok(add)
        });
        match res {
            Ok(add) => {
                self.store.acct.charge(add);
                for &(slot, ts, start, len) in &staged_rows {
                    self.pending.push(slot, ts, staged_bytes.get(start..start + len).unwrap_or(&[]));
                }
                for (_, s) in &staged {
                    if let Some(ks) = self.store.keys.get(*s as usize) {
                        for &t in &ks.cleanup_timers {
                            self.cleanup_heap.push(Reverse((t, *s, ks.generation)));
                        }
                    }
                }
                self.store.map.extend(staged);
                Ok(())
            }
            Err(e) => {
                self.store.keys.truncate(base);
                for a in &mut self.store.aggs {
                    a.acc.truncate(base);
                }
                Err(e)
            }
        }
    }

    /// Reads the entries into fresh slots from `keys.len()` on; returns the
    /// bytes the restored rows charge.
    fn read_keys(
        &mut self,
        bytes: &[u8],
        range: KeyGroupRange,
        staged: &mut Vec<(Box<[u8]>, u32)>,
        staged_rows: &mut Vec<(u32, i64, usize, usize)>,
        staged_bytes: &mut Vec<u8>,
    ) -> Result<usize> {
        let Self { store, format, codec, .. } = self;
        let mut charged = 0;
        format.read(bytes, range, |key, r| {
            let s = store.keys.len();
            if s >= u32::MAX as usize {
                return Err(invalid_arg("restore: too many keys"));
            }
            let mut ks = KeyState {
                last_trigger: r.i64("last trigger")?,
                timer: read_opt(r, "timer")?.into(),
                cleanup_ts: read_opt(r, "cleanup timestamp")?.into(),
                ..KeyState::default()
            };
            let n = r.count("cleanup timer count", 8)?;
            for _ in 0..n {
                ks.cleanup_timers.push_back(r.i64("cleanup timer")?);
            }
            store.keys.push(ks);
            for a in store.aggs.iter_mut() {
                a.acc.push_group();
                a.acc.read_state(s, r)?;
            }
            let n = r.count("frame row count", 12)?;
            for _ in 0..n {
                let (ts, row) = read_timed_row(r, codec, ["frame row timestamp", "frame row"])?;
                charged += row.len() + ROW_OVERHEAD;
                if let Some(ks) = store.keys.get_mut(s) {
                    ks.frame.push(ts, row);
                }
            }
            let n = r.count("buffered row count", 12)?;
            for _ in 0..n {
                let (ts, row) = read_timed_row(r, codec, ["buffered row timestamp", "buffered row"])?;
                charged += row.len() + ROW_OVERHEAD;
                staged_rows.push((s as u32, ts, staged_bytes.len(), row.len()));
                staged_bytes.extend_from_slice(row);
            }
            if let Some(ks) = store.keys.get_mut(s) {
                ks.pending = n as u32;
            }
            staged.push((Box::from(key), s as u32));
            Ok(())
        })?;
        Ok(charged)
    }
}

/// One stored `(timestamp, row)` of a key's frame or buffer, the row
/// checked against the input schema; `labels` name the two in errors.
fn read_timed_row<'b>(r: &mut Reader<'b>, codec: &PayloadCodec, labels: [&str; 2]) -> Result<(i64, &'b [u8])> {
    let ts = r.i64(labels[0])?;
    let at = r.pos();
    let row = r.bytes(labels[1])?;
    codec.validate(row, at)?;
    Ok((ts, row))
}
