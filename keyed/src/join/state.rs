//! One side's join state: join key → the records of that key.
//!
//! Flink keeps the records of a join key in one of three
//! `JoinRecordStateView`s, chosen by the side's `JoinInputSideSpec`
//! (`flink-table-runtime/.../join/stream/state/JoinRecordStateViews.java`,
//! outer sides `OuterJoinRecordStateViews.java`, which add a
//! `numOfAssociations` per record):
//!
//! | view | Flink state | add | retract |
//! | --- | --- | --- | --- |
//! | [`ViewKind::JoinKeyContainsUniqueKey`] | `ValueState<record>` | replace | clear (whatever the row) |
//! | [`ViewKind::InputSideHasUniqueKey`] | `MapState<uk, record>` | put by unique key | remove by unique key |
//! | [`ViewKind::InputSideHasNoUniqueKey`] | `MapState<record, count>` | count + 1 | count − 1, remove at 0; absent → nothing |
//!
//! Both levels key by borrowed bytes: the first level is a [`ByteKeyMap`]
//! probed with the batch's join-key bytes, the second a [`Bucket`] whose
//! records are found by their unique-key bytes or by their whole row bytes,
//! linearly while the bucket is small and through a hash index of positions
//! once it holds more than [`INDEX_FROM`] records. A probe that finds its
//! record allocates nothing; a record's bytes are copied when it first enters
//! state (a replaced record of the same length is overwritten in place).
//!
//! Records of a key are kept in arrival order of their first insert; a removal
//! moves the last record into the hole (`swap_remove`). That order is the
//! order matches are emitted in. Flink's is the state backend's map iteration
//! order, which SQL leaves undefined; the reference model in the tests keeps
//! the same discipline, so changelogs compare exactly.

use std::hash::BuildHasher;

use hashbrown::hash_map::EntryRef;
use hashbrown::{DefaultHashBuilder, HashTable};

use crate::state::{Accounting, ByteKeyMap, KeyProbe, ENTRY_OVERHEAD};

/// Records per bucket up to which lookups scan instead of hashing.
pub(crate) const INDEX_FROM: usize = 8;

/// Which `JoinRecordStateView` a side keeps (Flink's `JoinInputSideSpec`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ViewKind {
    /// The join key contains a unique key of the side: at most one record
    /// per join key.
    JoinKeyContainsUniqueKey,
    /// The side has a unique key not contained in the join key: records of a
    /// join key are identified by their unique key.
    InputSideHasUniqueKey,
    /// No unique key: records are counted by their whole row.
    InputSideHasNoUniqueKey,
}

/// One stored record.
#[derive(Debug)]
pub(crate) struct Entry {
    /// The record's arrow-row bytes (RowKind erased, as Flink erases it).
    pub(crate) row: Box<[u8]>,
    /// Unique-key bytes ([`ViewKind::InputSideHasUniqueKey`] only).
    pub(crate) uk: Box<[u8]>,
    /// The record's non-equi condition columns (`cond::SideCond::pack`).
    pub(crate) cond: Box<[u8]>,
    /// Appear times ([`ViewKind::InputSideHasNoUniqueKey`]), else 1.
    pub(crate) count: u32,
    /// `numOfAssociations` on an outer side, −1 on an inner side.
    pub(crate) assoc: i32,
}

impl Entry {
    fn bytes(&self) -> usize {
        self.row.len() + self.uk.len() + self.cond.len() + ENTRY_OVERHEAD
    }
}

/// The records of one join key.
#[derive(Default, Debug)]
pub(crate) struct Bucket {
    pub(crate) entries: Vec<Entry>,
    /// Positions in `entries`, hashed by identity bytes; empty while the
    /// bucket holds at most [`INDEX_FROM`] records.
    index: HashTable<u32>,
}

/// The bytes that identify a record within its bucket.
#[inline]
fn ident(kind: ViewKind, e: &Entry) -> &[u8] {
    match kind {
        ViewKind::InputSideHasUniqueKey => &e.uk,
        _ => &e.row,
    }
}

/// Copies `src` into `dst`, reusing its allocation when the length matches.
#[inline]
fn overwrite(dst: &mut Box<[u8]>, src: &[u8]) {
    if dst.len() == src.len() {
        dst.copy_from_slice(src);
    } else {
        *dst = Box::from(src);
    }
}

impl Bucket {
    fn find(&self, kind: ViewKind, hasher: &DefaultHashBuilder, id: &[u8]) -> Option<usize> {
        if self.index.is_empty() {
            return self.entries.iter().position(|e| ident(kind, e) == id);
        }
        let entries = &self.entries;
        self.index.find(hasher.hash_one(id), |&j| ident(kind, &entries[j as usize]) == id).map(|&j| j as usize)
    }

    fn push(&mut self, kind: ViewKind, hasher: &DefaultHashBuilder, e: Entry) {
        self.entries.push(e);
        let n = self.entries.len();
        // Once built, the index stays (a bucket that shrinks back to
        // INDEX_FROM records or fewer keeps it): every later record must
        // enter it, or `find` misses that record.
        if n <= INDEX_FROM && self.index.is_empty() {
            return;
        }
        let entries = &self.entries;
        let rehash = |&j: &u32| hasher.hash_one(ident(kind, &entries[j as usize]));
        if self.index.is_empty() {
            for j in 0..n as u32 {
                self.index.insert_unique(rehash(&j), j, rehash);
            }
        } else {
            let j = (n - 1) as u32;
            self.index.insert_unique(rehash(&j), j, rehash);
        }
    }

    fn remove(&mut self, kind: ViewKind, hasher: &DefaultHashBuilder, at: usize) -> Entry {
        let last = self.entries.len() - 1;
        if !self.index.is_empty() {
            let h = hasher.hash_one(ident(kind, &self.entries[at]));
            if let Ok(slot) = self.index.find_entry(h, |&j| j as usize == at) {
                slot.remove();
            }
            if at != last {
                let h = hasher.hash_one(ident(kind, &self.entries[last]));
                if let Some(j) = self.index.find_mut(h, |&j| j as usize == last) {
                    *j = at as u32;
                }
            }
        }
        self.entries.swap_remove(at)
    }

    /// Builds the index of a restored bucket; false when two records have
    /// the same identity (a snapshot no operator writes).
    pub(crate) fn reindex(&mut self, kind: ViewKind, hasher: &DefaultHashBuilder) -> bool {
        let entries = std::mem::take(&mut self.entries);
        self.index.clear();
        for e in entries {
            if kind == ViewKind::JoinKeyContainsUniqueKey && !self.entries.is_empty() {
                return false;
            }
            if self.find(kind, hasher, ident(kind, &e)).is_some() {
                return false;
            }
            self.push(kind, hasher, e);
        }
        true
    }
}

/// The borrowed bytes of one input record.
#[derive(Clone, Copy)]
pub(crate) struct Rec<'a> {
    pub(crate) key: &'a [u8],
    pub(crate) row: &'a [u8],
    pub(crate) uk: &'a [u8],
    pub(crate) cond: &'a [u8],
}

impl Rec<'_> {
    /// The most bytes adding this record can charge (a new key and entry).
    pub(crate) fn worst_case_bytes(&self) -> usize {
        self.key.len() + self.row.len() + self.uk.len() + self.cond.len() + 2 * ENTRY_OVERHEAD
    }
}

/// One side's state.
pub(crate) struct SideState {
    pub(crate) map: ByteKeyMap<Bucket>,
    pub(crate) kind: ViewKind,
    pub(crate) hasher: DefaultHashBuilder,
}

impl SideState {
    pub(crate) fn new(kind: ViewKind) -> Self {
        SideState { map: ByteKeyMap::default(), kind, hasher: DefaultHashBuilder::default() }
    }

    /// The bucket of `key`, if any (a borrowed probe).
    #[inline]
    pub(crate) fn bucket(&self, key: &[u8]) -> Option<&Bucket> {
        self.map.get(&KeyProbe(key))
    }

    /// Whether adding `r` would replace or count up a stored record
    /// (`JoinRecordStateView.hasRecord` of FLINK-40681).
    pub(crate) fn has_record(&self, r: Rec<'_>) -> bool {
        let Some(b) = self.bucket(r.key) else { return false };
        match self.kind {
            ViewKind::JoinKeyContainsUniqueKey => !b.entries.is_empty(),
            ViewKind::InputSideHasUniqueKey => b.find(self.kind, &self.hasher, r.uk).is_some(),
            ViewKind::InputSideHasNoUniqueKey => b.find(self.kind, &self.hasher, r.row).is_some(),
        }
    }

    /// `addRecord(record, numOfAssociations)`. The caller has checked the
    /// budget for [`Rec::worst_case_bytes`].
    pub(crate) fn add(&mut self, r: Rec<'_>, assoc: i32, acct: &mut Accounting) {
        let (kind, hasher) = (self.kind, &self.hasher);
        let bucket = match self.map.entry_ref(&KeyProbe(r.key)) {
            EntryRef::Occupied(o) => o.into_mut(),
            EntryRef::Vacant(v) => {
                acct.charge(r.key.len() + ENTRY_OVERHEAD);
                v.insert_with_key(Box::from(r.key), Bucket::default())
            }
        };
        let found = match kind {
            ViewKind::JoinKeyContainsUniqueKey => (!bucket.entries.is_empty()).then_some(0),
            ViewKind::InputSideHasUniqueKey => bucket.find(kind, hasher, r.uk),
            ViewKind::InputSideHasNoUniqueKey => bucket.find(kind, hasher, r.row),
        };
        match found {
            Some(at) => {
                let e = &mut bucket.entries[at];
                acct.release(e.bytes());
                if kind == ViewKind::InputSideHasNoUniqueKey {
                    e.count += 1;
                } else {
                    overwrite(&mut e.row, r.row);
                    overwrite(&mut e.uk, r.uk);
                    overwrite(&mut e.cond, r.cond);
                }
                e.assoc = assoc;
                acct.charge(e.bytes());
            }
            None => {
                let e = Entry { row: r.row.into(), uk: r.uk.into(), cond: r.cond.into(), count: 1, assoc };
                acct.charge(e.bytes());
                bucket.push(kind, hasher, e);
            }
        }
    }

    /// `retractRecord(record)`; a key left without records leaves the map.
    pub(crate) fn retract(&mut self, r: Rec<'_>, acct: &mut Accounting) {
        let (kind, hasher) = (self.kind, &self.hasher);
        let Some(bucket) = self.map.get_mut(&KeyProbe(r.key)) else { return };
        let found = match kind {
            ViewKind::JoinKeyContainsUniqueKey => (!bucket.entries.is_empty()).then_some(0),
            ViewKind::InputSideHasUniqueKey => bucket.find(kind, hasher, r.uk),
            ViewKind::InputSideHasNoUniqueKey => bucket.find(kind, hasher, r.row),
        };
        let Some(at) = found else { return };
        if bucket.entries[at].count > 1 {
            bucket.entries[at].count -= 1;
        } else {
            let e = bucket.remove(kind, hasher, at);
            acct.release(e.bytes());
        }
        if bucket.entries.is_empty() {
            if let Some((k, _)) = self.map.remove_entry(&KeyProbe(r.key)) {
                acct.release(k.len() + ENTRY_OVERHEAD);
            }
        }
    }

    /// Retained bytes of a restored bucket under `key`.
    pub(crate) fn bucket_bytes(key: &[u8], b: &Bucket) -> usize {
        key.len() + ENTRY_OVERHEAD + b.entries.iter().map(Entry::bytes).sum::<usize>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(row: u8) -> Entry {
        Entry { row: Box::from([row]), uk: Box::from([]), cond: Box::from([]), count: 1, assoc: -1 }
    }

    /// A bucket that grew past INDEX_FROM (so it has an index) and shrank
    /// back below it still finds the records added after the shrink.
    #[test]
    fn a_shrunk_indexed_bucket_finds_records_added_later() {
        let (kind, hasher) = (ViewKind::InputSideHasNoUniqueKey, DefaultHashBuilder::default());
        let mut b = Bucket::default();
        for row in 0..=INDEX_FROM as u8 {
            b.push(kind, &hasher, entry(row));
        }
        assert!(!b.index.is_empty());
        while b.entries.len() > 2 {
            let at = b.find(kind, &hasher, &[b.entries.len() as u8 - 1]).unwrap();
            b.remove(kind, &hasher, at);
        }
        b.push(kind, &hasher, entry(200));
        assert_eq!(b.find(kind, &hasher, &[200]), Some(2));
        for row in [0, 1] {
            assert_eq!(b.find(kind, &hasher, &[row]), Some(row as usize));
        }
        assert!(b.reindex(kind, &hasher));
    }
}
