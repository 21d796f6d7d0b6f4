//! Benchmark- and test-only (`public_imp`): the retracting Top-N as it was
//! before it moved to borrowed bytes (seed 002, "the ScalarValue-vintage
//! keyed loops retired"), so the benches can print that before-state beside
//! the operator in one run (`TopN::set_scalar_ranker`).
//!
//! Per input row it builds the partition key as a `Vec` of owned
//! [`Scalar`]s (one `Vec`, plus a `String` per string column) and the sort
//! key as a `Vec` of [`SortValue`]s, probes a `HashMap` from scalar
//! partition key to partition, and orders each partition's rows in a
//! `BTreeMap` from scalar sort key (Flink's comparator: ASC/DESC, NULLS
//! FIRST/LAST, [`SortValue`]) to the rows of that key in arrival order —
//! Flink's `RetractableTopNFunction` state (`sortedMap` + `dataState`) held
//! in memory. A stored row is an owned copy of its arrow-row bytes with an
//! arrival number. The changelog comes from top-N snapshots: the first
//! `rank_end` rows are deep-cloned before and after the row is applied and
//! the two are diffed (by arrival number, so a row that moves one rank is
//! re-emitted even when an equal row takes its place), which is
//! `RetractableTopNFunction`'s output row for row (`keyed/tests/topn.rs`
//! compares the two on random streams).
//!
//! Shared with the operator: the schema checks, the per-batch arrow-row
//! payload encoding and the one decode of the emitted rows per batch (so
//! the before-state pays no per-row Arrow conversion). Not supported: state
//! budget, snapshots (refused while it is on).

use std::collections::BTreeMap;

use arrow_array::RecordBatch;
use hashbrown::hash_map::Entry;
use hashbrown::HashMap;

use super::{SortColumn, TopN, TopNOptions};
use crate::error::Result;
use crate::payload::PayloadCodec;
use crate::row_kind::RowKind;
use crate::scalar_value::{scalar, Scalar, SortValue};

/// A stored row: its arrival number and an owned copy of its bytes.
#[derive(Clone, Debug)]
struct OwnedRow {
    seq: u64,
    bytes: Box<[u8]>,
}

/// One partition: scalar sort key → its rows in arrival order.
#[derive(Default, Debug)]
struct ScalarPartition {
    sorted: BTreeMap<Vec<SortValue>, Vec<OwnedRow>>,
    rows: usize,
}

impl ScalarPartition {
    /// Deep copies of the first `n` rows in rank order.
    fn top(&self, n: usize) -> Vec<OwnedRow> {
        self.sorted.values().flatten().take(n).cloned().collect()
    }

    /// Removes the first row of `sort`'s bucket with the bytes of `row`
    /// (Flink's `RecordEqualiser`); whether one was there.
    fn remove(&mut self, sort: &[SortValue], row: &[u8]) -> bool {
        let Some(rows) = self.sorted.get_mut(sort) else { return false };
        let Some(at) = rows.iter().position(|r| *r.bytes == *row) else { return false };
        rows.remove(at);
        if rows.is_empty() {
            self.sorted.remove(sort);
        }
        self.rows -= 1;
        true
    }
}

/// The scalar-keyed state of a retracting Top-N (see the module docs).
#[derive(Default)]
pub(super) struct ScalarRanker {
    parts: HashMap<Vec<Scalar>, ScalarPartition>,
    seq: u64,
}

impl ScalarRanker {
    pub(super) fn num_partitions(&self) -> usize {
        self.parts.len()
    }

    pub(super) fn num_rows(&self) -> usize {
        self.parts.values().map(|p| p.rows).sum()
    }
}

/// One emitted row (owned) with its kind and rank (0: no rank column).
struct Emitted {
    row: OwnedRow,
    kind: RowKind,
    rank: u64,
}

/// Row `i`'s sort key.
fn sort_key(batch: &RecordBatch, order: &[SortColumn], i: usize) -> Result<Vec<SortValue>> {
    let value = |s: &SortColumn| {
        let value = scalar(batch.column(s.column), i)?;
        Ok(SortValue { value, descending: s.descending, nulls_first: s.nulls_first })
    };
    order.iter().map(value).collect()
}

/// The changelog between the top-N snapshots `before` and `after`
/// (`AbstractTopNFunction`'s collectors): with rank numbers or an offset,
/// every rank of `[rank_start, rank_end]` whose row changed is `-U old` /
/// `+U new`, a rank that became occupied `+I`, one that emptied `-D`;
/// otherwise `-D` the rows that left and `+I` the rows that entered.
fn diff(opts: &TopNOptions, ranked: bool, before: Vec<OwnedRow>, after: Vec<OwnedRow>, out: &mut Vec<Emitted>) {
    let ub = opts.generate_update_before;
    if ranked {
        let (mut b, mut a) = (before.into_iter(), after.into_iter());
        for rank in 1..=opts.rank_end {
            let (old, new) = (b.next(), a.next());
            if rank < opts.rank_start {
                continue;
            }
            match (old, new) {
                (Some(o), Some(n)) if o.seq != n.seq => {
                    if ub {
                        out.push(Emitted { row: o, kind: RowKind::UpdateBefore, rank });
                    }
                    out.push(Emitted { row: n, kind: RowKind::UpdateAfter, rank });
                }
                (None, Some(n)) => out.push(Emitted { row: n, kind: RowKind::Insert, rank }),
                (Some(o), None) => out.push(Emitted { row: o, kind: RowKind::Delete, rank }),
                _ => {}
            }
        }
        return;
    }
    // Rows are moved out of the snapshots into the output (their bytes
    // taken, the arrival numbers left for the other side's checks).
    let (mut before, mut after) = (before, after);
    for o in before.iter_mut().filter(|o| !after.iter().any(|n| n.seq == o.seq)) {
        let row = OwnedRow { seq: o.seq, bytes: std::mem::take(&mut o.bytes) };
        out.push(Emitted { row, kind: RowKind::Delete, rank: 0 });
    }
    for n in after.iter_mut().filter(|n| !before.iter().any(|o| o.seq == n.seq)) {
        let row = OwnedRow { seq: n.seq, bytes: std::mem::take(&mut n.bytes) };
        out.push(Emitted { row, kind: RowKind::Insert, rank: 0 });
    }
}

impl ScalarRanker {
    /// `RetractableTopNFunction.processElement` for every row of `batch`
    /// (its payload bytes already in `codec`); the emitted rows in order.
    fn apply(
        &mut self,
        batch: &RecordBatch,
        row_kinds: &[RowKind],
        partition_columns: &[usize],
        opts: &TopNOptions,
        codec: &PayloadCodec,
    ) -> Result<Vec<Emitted>> {
        let ranked = opts.output_rank_number || opts.rank_start > 1;
        let n = opts.rank_end as usize;
        let mut out = Vec::new();
        for (i, &kind) in row_kinds.iter().enumerate() {
            let key: Vec<Scalar> =
                partition_columns.iter().map(|&c| scalar(batch.column(c), i)).collect::<Result<_>>()?;
            let sort = sort_key(batch, &opts.order, i)?;
            let accumulate = matches!(kind, RowKind::Insert | RowKind::UpdateAfter);
            let mut part = match self.parts.entry(key) {
                Entry::Occupied(e) => e,
                Entry::Vacant(v) if accumulate => v.insert_entry(ScalarPartition::default()),
                // A retraction for a partition without state changes nothing.
                Entry::Vacant(_) => continue,
            };
            let before = part.get().top(n);
            let row = codec.row(i);
            if accumulate {
                self.seq += 1;
                let p = part.get_mut();
                p.sorted.entry(sort).or_default().push(OwnedRow { seq: self.seq, bytes: Box::from(row) });
                p.rows += 1;
            } else if !part.get_mut().remove(&sort, row) {
                // A retraction of a row not in state is ignored.
                continue;
            }
            let after = part.get().top(n);
            if part.get().rows == 0 {
                part.remove();
            }
            diff(opts, ranked, before, after, &mut out);
        }
        Ok(out)
    }
}

impl TopN {
    /// [`TopN::process`] through the scalar ranker (checks done).
    pub(super) fn process_scalar(
        &mut self,
        batch: &RecordBatch,
        row_kinds: &[RowKind],
    ) -> Result<(RecordBatch, Vec<RowKind>)> {
        self.codec.encode(batch)?;
        let Self { scalar, partition_columns, opts, codec, .. } = self;
        let Some(ranker) = scalar.as_mut() else { return Err(crate::error::invalid_arg("no scalar ranker")) };
        let emits = ranker.apply(batch, row_kinds, partition_columns, opts, codec)?;
        let kinds = emits.iter().map(|e| e.kind).collect();
        let rows = emits.iter().map(|e| &*e.row.bytes);
        Self::output_of(
            &self.codec,
            &self.output_schema,
            self.opts.output_rank_number,
            rows,
            kinds,
            emits.iter().map(|e| e.rank),
        )
    }
}
