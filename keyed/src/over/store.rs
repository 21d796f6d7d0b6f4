//! The keyed state of an OVER aggregate: partition key bytes → slot, and per
//! slot the accumulators of every aggregate (the group aggregate's, one
//! column-major vector per aggregate) and the [`KeyState`].

use std::hash::{BuildHasher, Hasher};

use arrow_array::ArrayRef;
use hashbrown::hash_table::Entry;
use hashbrown::{DefaultHashBuilder, HashTable};

use super::state::KeyState;
use crate::error::{invalid_arg, Result};
use crate::group_agg::drive::{op, OutBuf, Plan};
use crate::group_agg::{apply_delta, Aggregate};
use crate::state::{eq_key_bytes, Accounting, ENTRY_OVERHEAD};

/// Bytes charged per stored row (frame or watermark buffer) on top of its
/// arrow-row bytes: its index entry. An estimate.
pub(super) const ROW_OVERHEAD: usize = 24;

/// Partition keys, their slots and accumulators, and the state accounting.
pub(super) struct Store {
    pub(super) map: KeyTable,
    pub(super) keys: Vec<KeyState>,
    pub(super) aggs: Vec<Aggregate>,
    pub(super) free: Vec<u32>,
    /// Bytes charged per key besides its key bytes (estimate).
    pub(super) key_fixed: usize,
    pub(super) acct: Accounting,
}

impl Store {
    /// The slot of `key`, created (the key copied into state, once) when
    /// the key is new. The key is hashed once, for the probe and the insert.
    ///
    /// # Errors
    /// The state budget, for a new key; too many keys for u32 slots.
    #[inline]
    pub(super) fn slot(&mut self, key: &[u8]) -> Result<u32> {
        let hash = self.map.hash(key);
        if let Some(e) = self.map.table.find(hash, |e| e.hash == hash && eq_key_bytes(key, &e.key)) {
            return Ok(e.slot);
        }
        self.insert(hash, key)
    }

    /// A new key's slot (cold: once per key).
    #[cold]
    #[inline(never)]
    fn insert(&mut self, hash: u64, key: &[u8]) -> Result<u32> {
        let add = key.len() + ENTRY_OVERHEAD + self.key_fixed;
        self.acct.check(add)?;
        let s = match self.free.pop() {
            Some(s) => s,
            None => {
                let s = u32::try_from(self.keys.len())
                    .ok()
                    .filter(|&s| s < u32::MAX)
                    .ok_or_else(|| invalid_arg("too many partition keys for u32 slots"))?;
                self.keys.push(KeyState::default());
                for a in &mut self.aggs {
                    a.acc.push_group();
                }
                s
            }
        };
        self.acct.charge(add);
        self.map.table.insert_unique(hash, KeyEntry { hash, key: Box::from(key), slot: s }, |e| e.hash);
        Ok(s)
    }

    /// The slot of `key` if it is in state.
    #[inline]
    pub(super) fn find(&self, key: &[u8]) -> Option<u32> {
        self.map.get(key)
    }

    /// Runs every aggregate over one step's plan (`columns` are the rows the
    /// plan's accumulate/retract ops read, in plan order; clear ops come last
    /// and read nothing) and returns each aggregate's value after every plan
    /// op (before it, for a clear), as one column per aggregate.
    ///
    /// # Errors
    /// An aggregate input column of another type than at construction;
    /// string values over the i32 offset range.
    pub(super) fn run(
        &mut self,
        outs: &mut [OutBuf],
        changed: &mut Vec<bool>,
        columns: &[ArrayRef],
        slots: &[u32],
        ops: &[u8],
    ) -> Result<Vec<ArrayRef>> {
        let m = ops.len();
        changed.clear();
        changed.resize(m, false);
        // A plan of accumulations only (the unbounded proctime fold) runs
        // the drivers' running-fold loop; OVER never reads `changed`.
        let fold = ops.iter().all(|&o| o == op::ACC);
        let plan = Plan { slots, ops, rows: 0..m, update_before: false, fold };
        for (a, o) in self.aggs.iter_mut().zip(outs.iter_mut()) {
            o.start(m);
            let delta = a.update(columns, &plan, o, changed)?;
            apply_delta(&mut self.acct, delta);
        }
        self.aggs.iter().zip(outs.iter_mut()).map(|(a, o)| a.acc.evaluate(o, m)).collect()
    }

    /// Frees the slots marked in `dead` (their accumulators already cleared
    /// by a clear op): removes their keys from the map and resets their state.
    pub(super) fn free_slots(&mut self, dead: &mut [bool]) {
        let Store { map, keys, free, key_fixed, acct, .. } = self;
        map.table.retain(|e| {
            let s = e.slot;
            let gone = dead.get(s as usize).copied().unwrap_or(false);
            if gone {
                acct.release(e.key.len() + ENTRY_OVERHEAD + *key_fixed);
                if let Some(ks) = keys.get_mut(s as usize) {
                    acct.release(ks.frame.row_bytes() + ks.frame.len() * ROW_OVERHEAD);
                    ks.reset();
                }
                free.push(s);
            }
            !gone
        });
        dead.iter_mut().for_each(|d| *d = false);
    }
}

/// A partition key in state: its hash (kept, so a probe compares hashes
/// before bytes and a resize never rehashes), bytes and slot.
pub(super) struct KeyEntry {
    hash: u64,
    key: Box<[u8]>,
    slot: u32,
}

/// Partition key bytes → slot: a hashbrown table hashed with a seeded
/// foldhash over the key's 8-byte words (Flink key rows are a multiple of 8
/// bytes long; a shorter tail is hashed a byte at a time). Hashing words
/// instead of `<[u8] as Hash>` keeps the whole hash inline: foldhash's
/// byte path calls out of line for keys over 16 bytes, which every string
/// key of more than 7 bytes is.
#[derive(Default)]
pub(super) struct KeyTable {
    table: HashTable<KeyEntry>,
    hasher: DefaultHashBuilder,
}

impl KeyTable {
    /// The hash of `key`.
    #[inline(always)]
    pub(super) fn hash(&self, key: &[u8]) -> u64 {
        let mut h = self.hasher.build_hasher();
        h.write_usize(key.len());
        let (words, tail) = key.as_chunks::<8>();
        for &b in tail {
            h.write_u8(b);
        }
        for w in words {
            h.write_u64(u64::from_le_bytes(*w));
        }
        h.finish()
    }

    /// The slot of `key` if it is in the table.
    #[inline]
    pub(super) fn get(&self, key: &[u8]) -> Option<u32> {
        let hash = self.hash(key);
        self.table.find(hash, |e| e.hash == hash && eq_key_bytes(key, &e.key)).map(|e| e.slot)
    }

    /// Whether `key` is in the table.
    pub(super) fn contains_key(&self, key: &[u8]) -> bool {
        self.get(key).is_some()
    }

    /// Keys in the table.
    pub(super) fn len(&self) -> usize {
        self.table.len()
    }

    /// Every key with its slot, in no particular order.
    pub(super) fn iter(&self) -> impl Iterator<Item = (&[u8], &u32)> + '_ {
        self.table.iter().map(|e| (&*e.key, &e.slot))
    }

    /// Adds keys known not to be in the table (restore checks that first).
    pub(super) fn extend(&mut self, entries: impl IntoIterator<Item = (Box<[u8]>, u32)>) {
        for (key, slot) in entries {
            let hash = self.hash(&key);
            match self.table.entry(hash, |e| e.hash == hash && eq_key_bytes(&key, &e.key), |e| e.hash) {
                Entry::Occupied(mut o) => o.get_mut().slot = slot,
                Entry::Vacant(v) => {
                    v.insert(KeyEntry { hash, key, slot });
                }
            }
        }
    }
}
