//! The [`Update`](super::TopNStrategy::Update) ranker: Flink's
//! `UpdatableTopNFunction` (`flink-table-runtime/.../operators/rank/`, the
//! same algorithm on the 1.20 and the 2.x lines), which `StreamExecRank`
//! runs for `RankProcessStrategy.UpdateFastStrategy` with a rank end above 1.
//!
//! The planner picks it when the input is an update stream (`+I`/`+U` only:
//! it asks its input for `ONLY_UPDATE_AFTER`) with an upsert key that
//! contains the partition key, and every ORDER BY field moves towards the
//! top only (an ascending field that never increases, a descending one that
//! never decreases: `ORDER BY cnt DESC` over a `COUNT(*)`). Each row key is
//! then an upsert: a key already in the buffer replaces its row, a new key
//! enters like an append-only row.
//!
//! # State
//! Flink keeps per partition a `TopNBuffer` (sort key → the row keys of that
//! sort key, in insertion order) and `rowKeyMap` (row key → row and its
//! position within its sort key), only for the rows of the top N (on the
//! with-row-number path: every sort key whose first row ranks N + 1 or
//! better, whole). A [`Ranked`] partition is the same:
//! `buckets` maps memcomparable sort-key bytes to slots (row key bytes and
//! the `Arc`-shared row), `index` maps row-key bytes to the sort key of the
//! row's bucket. Flink's LRU cache of heap partitions over `dataState`
//! (loaded on a partition's first row, flushed on eviction and checkpoint)
//! is a state-backend concern with no counterpart: all state is on the heap,
//! and a snapshot writes each partition's rows in rank order (which is what
//! Flink's stored inner ranks rebuild).
//!
//! # Deliberate differences
//! Flink's `processElement` ignores the row kind, so a `-U`/`-D` would be
//! taken as an upsert of its row; the planner never feeds it one, and the
//! operator refuses them ([`Error::UnexpectedRowKind`](crate::Error)).
//! A sort key that moves away from the top breaks the planner's guarantee;
//! Flink's `lenient` mode (always on) logs it and repositions the row inside
//! its buffer, and so does this ranker, changelog included
//! (`emitRecordsWithRowNumberIgnoreStateError`).

use std::collections::BTreeMap;
use std::ops::Bound;
use std::sync::Arc;

use hashbrown::hash_map::EntryRef;

use super::rank::{shift_ranks, Out, StoredRow};
use crate::error::{invalid_arg, Result};
use crate::row_kind::RowKind;
use crate::state::{eq_key_bytes, Accounting, ByteKeyMap, KeyProbe, ENTRY_OVERHEAD};

/// Bytes charged per stored row on top of its payload and keys (the `Arc`
/// header, the slot, the index entry's control byte and slack). An
/// estimate, as the other rankers' `ROW_OVERHEAD`.
const ROW_OVERHEAD: usize = 24;
/// Bytes charged per sort key bucket on top of its key bytes (B-tree slot,
/// the bucket `Vec` header). An estimate.
const BUCKET_OVERHEAD: usize = 48;

/// One input row of the `Update` ranker, borrowed from the batch's blocks:
/// partition key, sort key, row key and payload bytes.
pub(crate) struct Upsert<'a> {
    pub(crate) key: &'a [u8],
    pub(crate) sort: &'a [u8],
    pub(crate) row_key: &'a [u8],
    pub(crate) payload: &'a [u8],
}

/// One row of a [`Ranked`] partition: its row key and its row.
#[derive(Debug)]
pub(crate) struct Slot {
    pub(crate) key: Box<[u8]>,
    pub(crate) row: StoredRow,
}

/// One partition of the `Update` ranker (see the module docs).
#[derive(Default, Debug)]
pub(crate) struct Ranked {
    /// Sort key → its rows in insertion order (Flink's `TopNBuffer`).
    pub(crate) buckets: BTreeMap<Box<[u8]>, Vec<Slot>>,
    /// Row key → the sort key of its bucket (Flink's `rowKeyMap`).
    index: ByteKeyMap<Box<[u8]>>,
    /// Rows over all buckets.
    pub(crate) rows: usize,
}

/// Bytes a stored row retains besides its bucket: the payload, the row key
/// twice (slot and index), the index's copy of the sort key.
fn slot_bytes(payload: usize, key: usize, sort: usize) -> usize {
    payload + ROW_OVERHEAD + 2 * key + sort + ENTRY_OVERHEAD
}

impl Ranked {
    /// Whether row key `key` has a row in the partition.
    pub(crate) fn contains(&self, key: &[u8]) -> bool {
        self.index.contains_key(&KeyProbe(key))
    }

    /// `TopNBuffer.checkSortKeyInBufferRange`: a new row enters when the
    /// buffer holds fewer than `end` rows or its sort key sorts strictly
    /// before the buffer's worst one.
    fn accepts(&self, sort: &[u8], end: u64) -> bool {
        match self.buckets.last_key_value() {
            None => true,
            Some((worst, _)) => sort < &**worst || (self.rows as u64) < end,
        }
    }

    /// Rows in the buckets strictly before `sort`.
    fn rows_before(&self, sort: &[u8]) -> u64 {
        let before = self.buckets.range::<[u8], _>((Bound::Unbounded, Bound::Excluded(sort)));
        before.map(|(_, b)| b.len() as u64).sum()
    }

    /// Position of row key `key` in `sort`'s bucket.
    fn position(&self, sort: &[u8], key: &[u8]) -> Option<usize> {
        self.buckets.get(sort)?.iter().position(|s| eq_key_bytes(&s.key, key))
    }

    /// The rows after position `skip` of `sort`'s bucket, then every row of
    /// the later buckets, in rank order.
    fn rows_after<'a>(&'a self, sort: &[u8], skip: usize) -> impl Iterator<Item = &'a StoredRow> + 'a {
        let own = self.buckets.get(sort).map_or(&[][..], |b| b.get(skip..).unwrap_or(&[]));
        let later = self.buckets.range::<[u8], _>((Bound::Excluded(sort), Bound::Unbounded)).flat_map(|(_, b)| b);
        own.iter().chain(later).map(|s| &s.row)
    }

    /// `TopNBuffer.put`: appends `slot` to `sort`'s bucket. Returns the
    /// bytes of a new bucket (0 when the sort key had one).
    fn put(&mut self, sort: &[u8], slot: Slot) -> usize {
        self.rows += 1;
        if let Some(b) = self.buckets.get_mut(sort) {
            b.push(slot);
            return 0;
        }
        self.buckets.insert(Box::from(sort), vec![slot]);
        sort.len() + BUCKET_OVERHEAD
    }

    /// `TopNBuffer.remove(sortKey, rowKey)`: takes slot `idx` of `sort`'s
    /// bucket out (its index entry stays); returns it and the bytes of an
    /// emptied bucket.
    fn take(&mut self, sort: &[u8], idx: usize) -> Option<(Slot, usize)> {
        let b = self.buckets.get_mut(sort)?;
        if idx >= b.len() {
            return None;
        }
        let slot = b.remove(idx);
        self.rows -= 1;
        let mut freed = 0;
        if b.is_empty() {
            self.buckets.remove(sort);
            freed = sort.len() + BUCKET_OVERHEAD;
        }
        Some((slot, freed))
    }

    /// `TopNBuffer.removeLast` and the `rowKeyMap` entry: the last row of
    /// the last bucket, and the bytes released.
    fn pop_last(&mut self) -> Option<(StoredRow, usize)> {
        let mut e = self.buckets.last_entry()?;
        let slot = e.get_mut().pop()?;
        self.rows -= 1;
        let sort_len = e.key().len();
        let mut freed = slot_bytes(slot.row.len(), slot.key.len(), sort_len);
        if e.get().is_empty() {
            e.remove_entry();
            freed += sort_len + BUCKET_OVERHEAD;
        }
        self.index.remove(&KeyProbe(&slot.key));
        Some((slot.row, freed))
    }

    /// The clean-up after `emitRecordsWithRowNumber`'s loop: the buckets the
    /// loop did not reach (those with more than `end` rows before them) are
    /// dropped with their rows. Returns the bytes released.
    fn trim(&mut self, end: u64) -> usize {
        let mut freed = 0;
        while let Some(e) = self.buckets.last_entry() {
            let len = e.get().len();
            if ((self.rows - len) as u64) <= end {
                break;
            }
            let (sort, slots) = e.remove_entry();
            self.rows -= len;
            freed += sort.len() + BUCKET_OVERHEAD;
            for s in slots {
                self.index.remove(&KeyProbe(&s.key));
                freed += slot_bytes(s.row.len(), s.key.len(), sort.len());
            }
        }
        freed
    }

    /// Adds a restored row (snapshot rows come in rank order). Returns the
    /// bytes retained, or `None` when the row key is already in the
    /// partition.
    pub(crate) fn restore_row(&mut self, sort: &[u8], key: &[u8], row: StoredRow) -> Option<usize> {
        if self.contains(key) {
            return None;
        }
        self.index.insert(Box::from(key), Box::from(sort));
        let bytes = slot_bytes(row.len(), key.len(), sort.len());
        Some(self.put(sort, Slot { key: Box::from(key), row }) + bytes)
    }
}

/// `UpdatableTopNFunction.processElement` for one `+I`/`+U` row: `ranked`
/// picks `processElementWithRowNumber` (rank column or offset) over
/// `processElementWithoutRowNumber`.
pub(crate) fn apply(
    parts: &mut ByteKeyMap<Ranked>,
    acct: &mut Accounting,
    end: u64,
    ranked: bool,
    row: &Upsert<'_>,
    out: &mut Out<'_, '_>,
) -> Result<()> {
    let row_key = row.row_key;
    let new_cost = slot_bytes(row.payload.len(), row_key.len(), row.sort.len()) + row.sort.len() + BUCKET_OVERHEAD;
    let part = match parts.entry_ref(&KeyProbe(row.key)) {
        EntryRef::Occupied(e) => e.into_mut(),
        EntryRef::Vacant(v) => {
            let add = row.key.len() + ENTRY_OVERHEAD;
            acct.check(add + new_cost)?;
            acct.charge(add);
            v.insert_with_key(Box::from(row.key), Ranked::default())
        }
    };
    if part.contains(row_key) {
        acct.check(row.payload.len() + 2 * row.sort.len() + BUCKET_OVERHEAD)?;
        return upsert(part, acct, end, ranked, row, out);
    }
    if !part.accepts(row.sort, end) {
        return Ok(());
    }
    acct.check(new_cost)?;
    let new: StoredRow = Arc::from(row.payload);
    let add = part.put(row.sort, Slot { key: Box::from(row_key), row: new.clone() });
    part.index.insert(Box::from(row_key), Box::from(row.sort));
    acct.charge(add + slot_bytes(new.len(), row_key.len(), row.sort.len()));
    if ranked {
        // `emitRecordsWithRowNumber` for a new row: the rank shifts it
        // causes (as the append-only ranker's), then the clean-up.
        let own = part.buckets.get(row.sort).map_or(0, Vec::len);
        let rank = part.rows_before(row.sort) + own as u64;
        if rank <= end {
            shift_ranks(part.rows_after(row.sort, own), &new, rank, true, out);
        }
        acct.release(part.trim(end));
    } else {
        // The row pushed past rank N leaves (always `-D`), the new row enters.
        if part.rows as u64 > end {
            if let Some((last, freed)) = part.pop_last() {
                acct.release(freed);
                out.plain(&last, RowKind::Delete);
            }
        }
        out.plain(&new, RowKind::Insert);
    }
    Ok(())
}

/// The branch of `processElementWith(out)RowNumber` for a row key already in
/// the buffer: the row is replaced, moved to its new sort key when that
/// changed, and the changelog is Flink's for the move.
fn upsert(
    part: &mut Ranked,
    acct: &mut Accounting,
    end: u64,
    ranked: bool,
    row: &Upsert<'_>,
    out: &mut Out<'_, '_>,
) -> Result<()> {
    let row_key = row.row_key;
    let lost = || invalid_arg("Top-N (update) state: a row key without its row");
    let Some((key, old_sort)) = part.index.remove_entry(&KeyProbe(row_key)) else { return Err(lost()) };
    let Some(idx) = part.position(&old_sort, row_key) else {
        part.index.insert(key, old_sort);
        return Err(lost());
    };
    let old_rank = if ranked { part.rows_before(&old_sort) + idx as u64 + 1 } else { 0 };
    let new: StoredRow = Arc::from(row.payload);
    let order = row.sort.cmp(&old_sort);
    let old_row = if order.is_eq() {
        let Some(slot) = part.buckets.get_mut(&old_sort).and_then(|b| b.get_mut(idx)) else { return Err(lost()) };
        part.index.insert(key, old_sort);
        std::mem::replace(&mut slot.row, new.clone())
    } else {
        let Some((slot, freed)) = part.take(&old_sort, idx) else { return Err(lost()) };
        let added = part.put(row.sort, Slot { key: slot.key, row: new.clone() });
        part.index.insert(key, Box::from(row.sort));
        acct.release(freed + old_sort.len());
        acct.charge(added + row.sort.len());
        slot.row
    };
    acct.release(old_row.len());
    acct.charge(new.len());
    if !ranked {
        out.plain(&old_row, RowKind::UpdateBefore);
        out.plain(&new, RowKind::UpdateAfter);
        return Ok(());
    }
    match order {
        std::cmp::Ordering::Equal => {
            out.ranked(&old_row, RowKind::UpdateBefore, old_rank);
            out.ranked(&new, RowKind::UpdateAfter, old_rank);
        }
        std::cmp::Ordering::Less => {
            if emit_moved_up(part, row.sort, &new, &old_row, old_rank, end, out) {
                acct.release(part.trim(end));
            }
        }
        std::cmp::Ordering::Greater => {
            let own = part.buckets.get(row.sort).map_or(0, Vec::len);
            let new_rank = part.rows_before(row.sort) + own as u64;
            emit_moved_down(part, &new, new_rank, &old_row, old_rank, out);
        }
    }
    Ok(())
}

/// `emitRecordsWithRowNumber` with an old row: the row moved up from
/// `old_rank` to the end of `sort`'s bucket. Each rank from the new one up
/// to `old_rank` gets `-U` of the row that held it and `+U` of the row that
/// holds it now, except that the old row's own `-U` (at `old_rank`) comes
/// right after the first `-U` ("in a same unique key, we should retract
/// oldRow first"). Returns whether the walk passed rank `end` (Flink then
/// drops the buckets it did not reach).
fn emit_moved_up(
    part: &Ranked,
    sort: &[u8],
    new: &StoredRow,
    old_row: &StoredRow,
    old_rank: u64,
    end: u64,
    out: &mut Out<'_, '_>,
) -> bool {
    let own = part.buckets.get(sort).map_or(0, Vec::len);
    let mut rank = part.rows_before(sort) + own as u64;
    let mut carried = new;
    let mut retracted = false;
    for held in part.rows_after(sort, own) {
        // Flink's inner loop stops at the old rank; past `end` everything
        // it emits is outside the rank range.
        if rank >= old_rank || rank > end {
            break;
        }
        out.ranked(held, RowKind::UpdateBefore, rank);
        if !retracted {
            out.ranked(old_row, RowKind::UpdateBefore, old_rank);
            retracted = true;
        }
        out.ranked(carried, RowKind::UpdateAfter, rank);
        carried = held;
        rank += 1;
    }
    if rank > end {
        return true;
    }
    if !retracted {
        out.ranked(old_row, RowKind::UpdateBefore, old_rank);
    }
    out.ranked(carried, RowKind::UpdateAfter, rank);
    false
}

/// `emitRecordsWithRowNumberIgnoreStateError`: the row moved down (against
/// the planner's monotonicity guarantee) from `old_rank` to `new_rank`.
/// Flink's exact output: `-U` of the old row at `old_rank`, then for each
/// later rank up to `new_rank` `-U` of the row that held it and `+U` of the
/// same row one rank up, and `+U` of the new row at `new_rank`; when the
/// rank did not change, only the `-U`.
fn emit_moved_down(
    part: &Ranked,
    new: &StoredRow,
    new_rank: u64,
    old_row: &StoredRow,
    old_rank: u64,
    out: &mut Out<'_, '_>,
) {
    let mut rank = 0u64;
    let mut prev: Option<&StoredRow> = None;
    for bucket in part.buckets.values() {
        if rank > new_rank {
            break;
        }
        for slot in bucket {
            rank += 1;
            if rank == old_rank {
                out.ranked(old_row, RowKind::UpdateBefore, old_rank);
            } else if let (true, Some(p)) = (rank > old_rank, prev) {
                out.ranked(p, RowKind::UpdateBefore, rank);
                out.ranked(p, RowKind::UpdateAfter, rank - 1);
                if rank == new_rank {
                    out.ranked(new, RowKind::UpdateAfter, rank);
                }
            }
            prev = Some(&slot.row);
        }
    }
}
