//! One partition's sorted rows and Flink's emission loops over them.
//!
//! A [`Partition`] is what Flink keeps per partition key: a sorted map from
//! sort key to the rows of that sort key in arrival order (Flink's
//! `TopNBuffer` for the append-only ranker, `sortedMap` + `dataState` for
//! the retracting one). Here the sort key is its memcomparable arrow-row
//! bytes, so the map orders by plain byte comparison, and a row is an
//! `Arc<[u8]>` of its arrow-row payload bytes, so emitting a stored row
//! (`-U` of a shifted rank, `-D` of a row leaving the top N) is a refcount
//! bump.
//!
//! Each `emit_*` function follows one method of Flink's functions in
//! `flink-table-runtime/.../operators/rank/` line by line (same loop bounds,
//! same order of emitted rows), cited on the function.

use std::collections::BTreeMap;
use std::ops::Bound;
use std::sync::Arc;

use bumpalo::collections::Vec as BumpVec;

use super::cost::{BUCKET_OVERHEAD, ROW_OVERHEAD};
use super::sort_key::{OwnedSortKey, SortKey};
use crate::row_kind::RowKind;

/// A stored row: its arrow-row payload bytes, shared.
pub(crate) type StoredRow = Arc<[u8]>;

/// The rows of one sort key in arrival order. The first row is held
/// inline, so a sort key with a single row (most of them, for distinct
/// sort keys) costs no `Vec` allocation; the rest follow in `rest`.
#[derive(Debug)]
pub(crate) struct Bucket {
    first: StoredRow,
    rest: Vec<StoredRow>,
}

impl Bucket {
    fn new(row: StoredRow) -> Self {
        Bucket { first: row, rest: Vec::new() }
    }

    /// Rows in the bucket (at least one).
    pub(crate) fn len(&self) -> usize {
        1 + self.rest.len()
    }

    /// The rows in arrival order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &StoredRow> {
        self.into_iter()
    }

    fn first(&self) -> &StoredRow {
        &self.first
    }

    fn push(&mut self, row: StoredRow) {
        self.rest.push(row);
    }

    /// Removes row `idx` (not the only row: the caller drops a bucket that
    /// would become empty).
    fn remove(&mut self, idx: usize) -> StoredRow {
        if idx == 0 {
            let next = self.rest.remove(0);
            std::mem::replace(&mut self.first, next)
        } else {
            self.rest.remove(idx - 1)
        }
    }
}

/// `for row in &bucket`, `buckets.values().flatten()`: the rows in arrival
/// order, as for the `Vec` a bucket was before.
impl<'a> IntoIterator for &'a Bucket {
    type Item = &'a StoredRow;
    type IntoIter = std::iter::Chain<std::iter::Once<&'a StoredRow>, std::slice::Iter<'a, StoredRow>>;

    fn into_iter(self) -> Self::IntoIter {
        std::iter::once(&self.first).chain(&self.rest)
    }
}

/// The rows of one partition key, sorted by sort key bytes; rows of one
/// sort key keep their arrival order.
///
/// Every per-row path searches the B-tree once (twice when it creates or
/// drops a bucket): the rank of a row is counted by walking the first
/// buckets from the front (at most N + 1 rows: only ranks up to N matter),
/// and the rows after it are one range from its own bucket on.
#[derive(Default, Debug)]
pub(crate) struct Partition {
    pub(crate) buckets: BTreeMap<OwnedSortKey, Bucket>,
    /// Rows over all buckets.
    pub(crate) rows: usize,
}

impl Partition {
    /// Rows in buckets strictly before `key`, counting no further than
    /// `limit + 1` (callers only need to know whether it exceeds `limit`).
    /// Walks from the first bucket instead of searching for `key`: it stops
    /// after at most `limit + 1` rows.
    fn rows_before(&self, key: &[u8], limit: u64) -> u64 {
        let key = SortKey::new(key);
        let mut n = 0u64;
        for (k, rows) in &self.buckets {
            if n > limit || k.as_key() >= key {
                break;
            }
            n += rows.len() as u64;
        }
        n
    }

    /// The rows after position `skip` of `key`'s bucket, then every row of
    /// the later buckets, in rank order (one B-tree search).
    fn rows_after<'a>(&'a self, key: &'a [u8], skip: usize) -> impl Iterator<Item = &'a StoredRow> + 'a {
        let key = SortKey::new(key);
        let from = self.buckets.range::<SortKey, _>((Bound::Included(key), Bound::Unbounded));
        from.flat_map(move |(k, b)| b.iter().skip(if k.as_key() == key { skip } else { 0 }))
    }

    /// Flink's `TopNBuffer.checkSortKeyInBufferRange` for a buffer that
    /// keeps at most the top `end` rows plus the ties of its last sort key:
    /// a row enters when the buffer has room or its sort key sorts strictly
    /// before the buffer's worst one.
    pub(crate) fn accepts(&self, key: &[u8], end: u64) -> bool {
        match self.buckets.last_key_value() {
            None => true,
            Some((worst, _)) => SortKey::new(key) < worst.as_key() || (self.rows as u64) < end,
        }
    }

    /// Appends `row` to its sort key's bucket (after the rows of equal sort
    /// key). Returns the bytes newly retained (key and bucket when the sort
    /// key is new).
    pub(crate) fn push(&mut self, key: &[u8], row: StoredRow) -> usize {
        self.push_counted(key, row).0
    }

    /// [`Self::push`], also returning the rows of `key`'s bucket after it
    /// (the new row's position in it, 1-based).
    pub(crate) fn push_counted(&mut self, key: &[u8], row: StoredRow) -> (usize, usize) {
        self.rows += 1;
        if let Some(b) = self.buckets.get_mut(SortKey::new(key)) {
            b.push(row);
            return (0, b.len());
        }
        self.buckets.insert(OwnedSortKey::new(key), Bucket::new(row));
        (key.len() + BUCKET_OVERHEAD, 1)
    }

    /// Removes the first row of `key`'s bucket whose bytes equal `row`
    /// (Flink's `RecordEqualiser`: every field equal), dropping an emptied
    /// bucket. Returns the row's position in its bucket, the removed row
    /// and the bytes released; `None` when no row matches.
    pub(crate) fn take(&mut self, key: &[u8], row: &[u8]) -> Option<(usize, StoredRow, usize)> {
        let key = SortKey::new(key);
        let b = self.buckets.get_mut(key)?;
        let idx = b.iter().position(|r| **r == *row)?;
        self.rows -= 1;
        let (r, mut freed) = if b.len() == 1 {
            let (k, b) = self.buckets.remove_entry(key)?;
            (b.first, k.len() + BUCKET_OVERHEAD)
        } else {
            (b.remove(idx), 0)
        };
        freed += r.len() + ROW_OVERHEAD;
        Some((idx, r, freed))
    }

    /// Removes the very last row (Flink's `TopNBuffer.removeLast`).
    pub(crate) fn pop_last(&mut self) -> Option<(StoredRow, usize)> {
        let mut e = self.buckets.last_entry()?;
        self.rows -= 1;
        if let Some(r) = e.get_mut().rest.pop() {
            let freed = r.len() + ROW_OVERHEAD;
            return Some((r, freed));
        }
        let (k, b) = e.remove_entry();
        let freed = b.first.len() + ROW_OVERHEAD + k.len() + BUCKET_OVERHEAD;
        Some((b.first, freed))
    }

    /// Drops whole trailing buckets that lie entirely past rank `end`
    /// (what `AppendOnlyTopNFunction.processElementWithRowNumber` removes
    /// after its loop; a bucket straddling rank `end` stays). Returns the
    /// bytes released.
    pub(crate) fn trim_past(&mut self, end: u64) -> usize {
        let mut freed = 0;
        while let Some(e) = self.buckets.last_entry() {
            let len = e.get().len();
            if ((self.rows - len) as u64) < end {
                break;
            }
            let (k, rows) = e.remove_entry();
            self.rows -= len;
            freed += k.len() + BUCKET_OVERHEAD + rows.iter().map(|r| r.len() + ROW_OVERHEAD).sum::<usize>();
        }
        freed
    }
}

/// One emitted row: which stored row, its kind, its rank (0 when the
/// output has no rank column and the row is emitted without one).
pub(crate) struct Emit {
    pub(crate) row: StoredRow,
    pub(crate) kind: RowKind,
    pub(crate) rank: u64,
}

/// The rank range and output flags of `AbstractTopNFunction`, and the
/// per-batch emission list (in the operator's bump arena).
pub(crate) struct Out<'a, 'b> {
    pub(crate) emits: &'a mut BumpVec<'b, Emit>,
    pub(crate) start: u64,
    pub(crate) end: u64,
    pub(crate) update_before: bool,
    /// Benchmark-only: emit deep copies of stored rows (the owned-row
    /// behaviour Arc sharing replaced).
    pub(crate) deep_copy: bool,
}

impl Out<'_, '_> {
    #[inline]
    fn push(&mut self, row: &StoredRow, kind: RowKind, rank: u64) {
        let row = if self.deep_copy { Arc::from(&**row) } else { row.clone() };
        self.emits.push(Emit { row, kind, rank });
    }

    #[inline]
    fn in_range(&self, rank: u64) -> bool {
        rank >= self.start && rank <= self.end
    }

    /// `collectInsert(out, row, rank)` / `collectDelete` / `collectUpdateAfter`
    /// / `collectUpdateBefore` with a rank: only inside the rank range, `-U`
    /// only with update-before on.
    #[inline]
    pub(crate) fn ranked(&mut self, row: &StoredRow, kind: RowKind, rank: u64) {
        if self.in_range(rank) && (kind != RowKind::UpdateBefore || self.update_before) {
            self.push(row, kind, rank);
        }
    }

    /// The same collectors without a rank (no range check).
    #[inline]
    pub(crate) fn plain(&mut self, row: &StoredRow, kind: RowKind) {
        if kind != RowKind::UpdateBefore || self.update_before {
            self.push(row, kind, 0);
        }
    }
}

/// After `new` was pushed into `key`'s bucket as its `own`-th row: the
/// rank shifts it causes (`RetractableTopNFunction.emitRecordsWithRowNumber`,
/// `AppendOnlyTopNFunction.processElementWithRowNumber`): for each rank from
/// the new row's to `end`, `-U` the row that held it and `+U` the row that
/// holds it now, then `+I` at the first rank that was empty.
pub(crate) fn emit_insert_ranked(p: &Partition, key: &[u8], own: usize, new: &StoredRow, out: &mut Out<'_, '_>) {
    let rank = p.rows_before(key, out.end) + own as u64;
    if rank > out.end {
        return;
    }
    shift_ranks(p.rows_after(key, own), new, rank, true, out);
}

/// After `new` was pushed into `key`'s bucket as its `own`-th row, without
/// rank numbers and without offset
/// (`RetractableTopNFunction.emitRecordsWithoutRowNumber`): when the new
/// row is in the top N, `-D` the row it pushed to rank N + 1, then `+I` the
/// new row.
pub(crate) fn emit_insert_plain(p: &Partition, key: &[u8], own: usize, new: &StoredRow, out: &mut Out<'_, '_>) {
    let rank = p.rows_before(key, out.end) + own as u64;
    if rank > out.end {
        return;
    }
    if let Some(pushed) = p.rows_after(key, own).nth((out.end - rank) as usize) {
        out.plain(pushed, RowKind::Delete);
    }
    out.plain(new, RowKind::Insert);
}

/// After `removed`, row `idx` of `key`'s bucket, was taken out of the
/// partition ([`Partition::take`]), with rank numbers
/// (`RetractableTopNFunction.retractRecordWithRowNumber`, which emits
/// before it removes: the rows after the removed one are the same rows):
/// for each rank from the removed row's to `end`, `-U` the row that held it
/// and `+U` the row that moves up into it, then `-D` at the last rank that
/// is now empty.
pub(crate) fn emit_retract_ranked(p: &Partition, key: &[u8], idx: usize, removed: &StoredRow, out: &mut Out<'_, '_>) {
    let rank = p.rows_before(key, out.end) + idx as u64 + 1;
    if rank > out.end {
        return;
    }
    shift_ranks(p.rows_after(key, idx), removed, rank, false, out);
}

/// The rank shifts from `rank` to `end` as `carried` enters the ranking
/// (`inserting`: each row of `rows` moves one rank down) or leaves it (each
/// moves one rank up): at each rank, `-U` the row that held it and `+U` the
/// row that holds it now; then `+I` at the first rank that was empty, or
/// `-D` at the last rank that is now empty.
#[inline(always)]
pub(crate) fn shift_ranks<'p>(
    rows: impl Iterator<Item = &'p StoredRow>,
    mut carried: &'p StoredRow,
    mut rank: u64,
    inserting: bool,
    out: &mut Out<'_, '_>,
) {
    for row in rows {
        if rank > out.end {
            break;
        }
        let (held, holds) = if inserting { (row, carried) } else { (carried, row) };
        out.ranked(held, RowKind::UpdateBefore, rank);
        out.ranked(holds, RowKind::UpdateAfter, rank);
        carried = row;
        rank += 1;
    }
    if rank <= out.end {
        out.ranked(carried, if inserting { RowKind::Insert } else { RowKind::Delete }, rank);
    }
}

/// After `removed`, row `idx` of `key`'s bucket, was taken out of the
/// partition, without rank numbers and without offset
/// (`RetractableTopNFunction.retractRecordWithoutRowNumber`): when the row
/// was in the top N, `-D` it, then `+I` the row that moves up from rank
/// N + 1 to N.
pub(crate) fn emit_retract_plain(p: &Partition, key: &[u8], idx: usize, removed: &StoredRow, out: &mut Out<'_, '_>) {
    let rank = p.rows_before(key, out.end) + idx as u64 + 1;
    if rank > out.end {
        return;
    }
    out.plain(removed, RowKind::Delete);
    if let Some(up) = p.rows_after(key, idx).nth((out.end - rank) as usize) {
        out.plain(up, RowKind::Insert);
    }
}

/// `AppendOnlyTopNFunction.processElementWithoutRowNumber`, after `new`
/// was pushed: when the buffer holds more than N rows, its last row leaves
/// (`-D`, unless it is the new row itself), then `+I` the new row.
pub(crate) fn emit_append_plain(p: &mut Partition, new: &StoredRow, out: &mut Out<'_, '_>) -> usize {
    let mut freed = 0;
    if p.rows as u64 > out.end {
        if let Some((last, f)) = p.pop_last() {
            freed = f;
            if Arc::ptr_eq(&last, new) {
                return freed;
            }
            out.plain(&last, RowKind::Delete);
        }
    }
    out.plain(new, RowKind::Insert);
    freed
}

/// `FastTop1Function.processElement`, the decision: the first row of a
/// partition is stored, a row whose sort key sorts strictly before the kept
/// one replaces it, any other row changes nothing (and allocates nothing).
pub(crate) fn top1_decide(p: &Partition, key: &[u8]) -> Top1 {
    match p.buckets.first_key_value() {
        None => Top1::First,
        Some((kept, _)) if SortKey::new(key) < kept.as_key() => Top1::Replaces,
        Some(_) => Top1::Ignored,
    }
}

/// `FastTop1Function.processElement`, the emission (before the state
/// changes): `+I` for a partition's first row, `-U` kept / `+U` new for a
/// replacing one; rank 1 when the output has the rank column.
pub(crate) fn emit_top1(p: &Partition, new: &StoredRow, ranked: bool, out: &mut Out<'_, '_>) {
    let emit = |out: &mut Out<'_, '_>, row: &StoredRow, kind| {
        if ranked {
            out.ranked(row, kind, 1);
        } else {
            out.plain(row, kind);
        }
    };
    match p.buckets.first_key_value().map(|(_, b)| b.first()) {
        None => emit(out, new, RowKind::Insert),
        Some(old) => {
            emit(out, old, RowKind::UpdateBefore);
            emit(out, new, RowKind::UpdateAfter);
        }
    }
}

/// What [`top1_decide`] decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Top1 {
    /// The partition's first row: store it.
    First,
    /// A better row: replace the kept one.
    Replaces,
    /// Not better: nothing changes.
    Ignored,
}
