//! The window aggregate's state: group keys, slice slots and timers.
//!
//! * Keys: a hash table of key ids, hashed and compared by the key's Flink
//!   `BinaryRowData` bytes, which live once, in the key's [`KeyInfo`] (a
//!   probe hashes the batch's borrowed bytes; a key is copied when it first
//!   enters state). Next to them the key columns' arrow-row bytes, decoded
//!   for the emitted rows.
//! * Slices: `(key id, slice end)` → slot; slot `s` indexes every
//!   aggregate's state vector and `counts` (the rows folded into it, which
//!   decide whether a window is empty, as Flink's `COUNT(*)` index does).
//!   Slot 0 is the scratch accumulator HOP merges a window into.
//! * Timers: `(window end, key id)` in an ordered set, fired in that order
//!   (Flink's timer service keeps one timer per key and window,
//!   `SlicingWindowTimerServiceImpl`).
//!
//! A key leaves state when it has neither slices nor timers (`live`).

use std::collections::BTreeSet;
use std::hash::BuildHasher;

use hashbrown::hash_table::Entry;
use hashbrown::{DefaultHashBuilder, HashMap, HashTable};

use super::acc::WinAcc;
use crate::error::Result;
use crate::state::{eq_key_bytes, Accounting, ENTRY_OVERHEAD};

/// Bytes charged per slice on top of its accumulators (map slot, count).
pub(crate) const SLICE_OVERHEAD: usize = ENTRY_OVERHEAD + 16 + 8;
/// Bytes charged per timer (B-tree slot share).
pub(crate) const TIMER_BYTES: usize = 24;
/// Bytes charged per key besides its bytes (table slot, info record).
pub(crate) const KEY_OVERHEAD: usize = ENTRY_OVERHEAD + 48;

/// One group key in state.
pub(crate) struct KeyInfo {
    /// Flink `BinaryRowData` bytes (the state key; snapshots group by its key group).
    pub(crate) flink: Box<[u8]>,
    /// arrow-row bytes of the key columns (decoded for output).
    pub(crate) row: Box<[u8]>,
    /// Slices plus timers of this key; 0 means the key can leave state.
    pub(crate) live: u32,
}

/// Keys, slices, accumulators and timers (see the module docs).
#[derive(Default)]
pub(crate) struct WindowState {
    hasher: DefaultHashBuilder,
    table: HashTable<u32>,
    pub(crate) keys: Vec<Option<KeyInfo>>,
    free_keys: Vec<u32>,
    pub(crate) slices: HashMap<(u32, i64), u32>,
    pub(crate) counts: Vec<i64>,
    free_slots: Vec<u32>,
    pub(crate) timers: BTreeSet<(i64, u32)>,
    pub(crate) acct: Accounting,
    /// Bytes of one slot over every aggregate.
    pub(crate) slot_bytes: usize,
}

impl WindowState {
    pub(crate) fn new(budget: Option<usize>, slot_bytes: usize, accs: &mut [Box<dyn WinAcc>]) -> Self {
        let mut s = WindowState { acct: Accounting::new(budget), slot_bytes, ..Default::default() };
        // Slot 0: the scratch accumulator.
        s.counts.push(0);
        for a in accs.iter_mut() {
            a.push_slot();
        }
        s
    }

    /// The id of key `flink`, if in state (borrowed probe, no allocation).
    #[inline]
    pub(crate) fn find_key(&self, flink: &[u8]) -> Option<u32> {
        let h = self.hasher.hash_one(flink);
        let keys = &self.keys;
        self.table
            .find(h, |&id| {
                keys.get(id as usize).and_then(Option::as_ref).is_some_and(|k| eq_key_bytes(&k.flink, flink))
            })
            .copied()
    }

    /// The id of key `flink`, created (both byte forms copied) when new.
    ///
    /// # Errors
    /// The state budget.
    pub(crate) fn key_id(&mut self, flink: &[u8], row: impl FnOnce() -> Box<[u8]>) -> Result<u32> {
        let h = self.hasher.hash_one(flink);
        let Self { table, keys, hasher, free_keys, acct, .. } = self;
        let eq =
            |&id: &u32| keys.get(id as usize).and_then(Option::as_ref).is_some_and(|k| eq_key_bytes(&k.flink, flink));
        let rehash =
            |&id: &u32| keys.get(id as usize).and_then(Option::as_ref).map_or(0, |k| hasher.hash_one(&*k.flink));
        match table.entry(h, eq, rehash) {
            Entry::Occupied(e) => Ok(*e.get()),
            Entry::Vacant(v) => {
                let row = row();
                let cost = flink.len() + row.len() + KEY_OVERHEAD;
                acct.admit(cost)?;
                let info = KeyInfo { flink: Box::from(flink), row, live: 0 };
                let id = match free_keys.pop() {
                    Some(id) => {
                        if let Some(k) = keys.get_mut(id as usize) {
                            *k = Some(info);
                        }
                        id
                    }
                    None => {
                        keys.push(Some(info));
                        (keys.len() - 1) as u32
                    }
                };
                v.insert(id);
                Ok(id)
            }
        }
    }

    /// Adds a restored key (its bytes already owned); the caller checked it is new.
    pub(crate) fn insert_key(&mut self, info: KeyInfo) -> u32 {
        let h = self.hasher.hash_one(&*info.flink);
        let id = match self.free_keys.pop() {
            Some(id) => {
                if let Some(k) = self.keys.get_mut(id as usize) {
                    *k = Some(info);
                }
                id
            }
            None => {
                self.keys.push(Some(info));
                (self.keys.len() - 1) as u32
            }
        };
        let keys = &self.keys;
        let hasher = &self.hasher;
        self.table.insert_unique(h, id, |&i| {
            keys.get(i as usize).and_then(Option::as_ref).map_or(0, |k| hasher.hash_one(&*k.flink))
        });
        id
    }

    fn live(&mut self, key: u32, up: bool) {
        if let Some(Some(k)) = self.keys.get_mut(key as usize) {
            k.live = if up { k.live + 1 } else { k.live.saturating_sub(1) };
        }
    }

    /// Whether key `key` has neither slices nor timers.
    pub(crate) fn is_dead(&self, key: u32) -> bool {
        self.keys.get(key as usize).and_then(Option::as_ref).is_some_and(|k| k.live == 0)
    }

    /// Removes key `key` from state.
    pub(crate) fn remove_key(&mut self, key: u32) {
        let Some(Some(info)) = self.keys.get_mut(key as usize).map(Option::take) else { return };
        let h = self.hasher.hash_one(&*info.flink);
        if let Ok(e) = self.table.find_entry(h, |&id| id == key) {
            e.remove();
        }
        self.acct.release(info.flink.len() + info.row.len() + KEY_OVERHEAD);
        self.free_keys.push(key);
    }

    /// The slot of `(key, slice_end)`, created empty when new.
    ///
    /// # Errors
    /// The state budget.
    pub(crate) fn slot(&mut self, key: u32, slice_end: i64, accs: &mut [Box<dyn WinAcc>]) -> Result<(u32, bool)> {
        if let Some(&s) = self.slices.get(&(key, slice_end)) {
            return Ok((s, false));
        }
        self.acct.admit(SLICE_OVERHEAD + self.slot_bytes)?;
        let s = self.new_slot(accs);
        self.slices.insert((key, slice_end), s);
        self.live(key, true);
        Ok((s, true))
    }

    /// A free (empty) slot.
    pub(crate) fn new_slot(&mut self, accs: &mut [Box<dyn WinAcc>]) -> u32 {
        match self.free_slots.pop() {
            Some(s) => s,
            None => {
                self.counts.push(0);
                for a in accs.iter_mut() {
                    a.push_slot();
                }
                (self.counts.len() - 1) as u32
            }
        }
    }

    /// Clears slice `(key, slice_end)` and frees its slot.
    pub(crate) fn expire(&mut self, key: u32, slice_end: i64, accs: &mut [Box<dyn WinAcc>]) {
        let Some(s) = self.slices.remove(&(key, slice_end)) else { return };
        self.clear_slot(s, accs);
        self.free_slots.push(s);
        self.acct.release(SLICE_OVERHEAD + self.slot_bytes);
        self.live(key, false);
    }

    /// Empties slot `s` (its heap leaves the accounting).
    pub(crate) fn clear_slot(&mut self, s: u32, accs: &mut [Box<dyn WinAcc>]) {
        let freed: usize = accs.iter_mut().map(|a| a.clear(s as usize)).sum();
        self.acct.release(freed);
        if let Some(c) = self.counts.get_mut(s as usize) {
            *c = 0;
        }
    }

    /// Registers the timer of window `end` for `key` (once per key and window).
    pub(crate) fn register(&mut self, end: i64, key: u32) {
        if self.timers.insert((end, key)) {
            self.acct.charge(TIMER_BYTES);
            self.live(key, true);
        }
    }

    /// Pops the earliest timer if `fires(end)`.
    pub(crate) fn pop_timer(&mut self, fires: impl Fn(i64) -> bool) -> Option<(i64, u32)> {
        let &(end, key) = self.timers.first()?;
        if !fires(end) {
            return None;
        }
        self.timers.pop_first();
        self.acct.release(TIMER_BYTES);
        self.live(key, false);
        Some((end, key))
    }

    /// Number of keys in state.
    pub(crate) fn num_keys(&self) -> usize {
        self.table.len()
    }
}
