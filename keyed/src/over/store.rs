//! The keyed state of an OVER aggregate: partition key bytes → slot, and per
//! slot the accumulators of every aggregate (the group aggregate's, one
//! column-major vector per aggregate) and the [`KeyState`].

use arrow_array::ArrayRef;
use hashbrown::hash_map::EntryRef;

use super::state::KeyState;
use crate::error::{invalid_arg, Result};
use crate::group_agg::drive::{OutBuf, Plan};
use crate::group_agg::{apply_delta, Aggregate};
use crate::state::{Accounting, ByteKeyMap, KeyProbe, ENTRY_OVERHEAD};

/// Bytes charged per stored row (frame or watermark buffer) on top of its
/// arrow-row bytes: its index entry. An estimate.
pub(super) const ROW_OVERHEAD: usize = 24;

/// Partition keys, their slots and accumulators, and the state accounting.
pub(super) struct Store {
    pub(super) map: ByteKeyMap<u32>,
    pub(super) keys: Vec<KeyState>,
    pub(super) aggs: Vec<Aggregate>,
    pub(super) free: Vec<u32>,
    /// Bytes charged per key besides its key bytes (estimate).
    pub(super) key_fixed: usize,
    pub(super) acct: Accounting,
}

impl Store {
    /// The slot of `key`, created (the key copied into state, once) when
    /// the key is new.
    ///
    /// # Errors
    /// The state budget, for a new key; too many keys for u32 slots.
    #[inline]
    pub(super) fn slot(&mut self, key: &[u8]) -> Result<u32> {
        if let Some(&s) = self.map.get(&KeyProbe(key)) {
            return Ok(s);
        }
        match self.map.entry_ref(&KeyProbe(key)) {
            EntryRef::Occupied(e) => Ok(*e.get()),
            EntryRef::Vacant(v) => {
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
                v.insert_with_key(Box::from(key), s);
                Ok(s)
            }
        }
    }

    /// The slot of `key` if it is in state.
    #[inline]
    pub(super) fn find(&self, key: &[u8]) -> Option<u32> {
        self.map.get(&KeyProbe(key)).copied()
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
        let plan = Plan { slots, ops, rows: 0..m, update_before: false };
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
        map.retain(|k, s| {
            let gone = dead.get(*s as usize).copied().unwrap_or(false);
            if gone {
                acct.release(k.len() + ENTRY_OVERHEAD + *key_fixed);
                if let Some(ks) = keys.get_mut(*s as usize) {
                    acct.release(ks.frame.row_bytes() + ks.frame.len() * ROW_OVERHEAD);
                    ks.reset();
                }
                free.push(*s);
            }
            !gone
        });
        dead.iter_mut().for_each(|d| *d = false);
    }
}
