//! `sluice_keyed::TopN` against a plainly written model, with a snapshot
//! round trip in the middle and damaged and arbitrary snapshot bytes.
//!
//! An arbitrary changelog over `(p VARCHAR, id BIGINT, s BIGINT)`, valid for
//! the strategy (`+I` only for `AppendOnly` and `FastTop1`; for `Retract`
//! also `-D`/`-U` of live rows, `-U`/`+U` pairs that change a row's sort
//! value, and `-D` of rows never inserted, which change nothing), goes in
//! batches into a Top-N partitioned by `p` and ordered by `s` (ASC or DESC,
//! NULLS FIRST or LAST, optionally then by `id DESC`), over an arbitrary rank
//! range, with or without the rank column and update-before.
//!
//! The model keeps every live row of a partition in a `Vec` sorted by the
//! ORDER BY (ties in arrival order: a new row goes after its equals, a
//! retraction removes the first equal row), takes the top `rank_end` before
//! and after each input row and diffs the two as Flink's functions emit
//! them: rank by rank (`-U`/`+U` where the row at a rank changed, `+I` where
//! a rank filled, `-D` where one emptied, ranks `rank_start..=rank_end`)
//! when rank numbers are output, the range has an offset or the strategy is
//! `FastTop1`; otherwise `-D` for the row that left the top N, then `+I`
//! for the one that entered.
//!
//! Before an arbitrary batch the operator is snapshotted and replaced by a
//! fresh one restored from the snapshot; the model goes on unchanged. The
//! snapshot, damaged, and raw arbitrary bytes go into `restore` of other
//! fresh operators: an error (leaving the state empty) or success, never a
//! panic; raw bytes are always an error.

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::sync::Arc;

use arbitrary::Arbitrary;
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use sluice_keyed::{RowKind, SortColumn, TopN, TopNOptions, TopNStrategy};

use crate::rows::{batch_of, changes_of, restored, Cell, Change, Damage, Row};

/// One change of the input, turned into a valid changelog by [`changelog`].
#[derive(Arbitrary, Debug, Clone)]
pub enum Op {
    /// `+I` of a new row: (partition byte: `% 4 == 3` is NULL, id, sort value: `None` is NULL).
    Insert(u8, u8, Option<u8>),
    /// Retract the live row `pick` (mod their number) as `-D` or `-U`; with
    /// `update`, then `+U` of the row with that new sort value.
    Retract {
        /// Which live row.
        pick: u8,
        /// The new sort value of a `-U`/`+U` pair.
        update: Option<Option<u8>>,
        /// `-U` instead of `-D` for a plain retraction.
        as_update_before: bool,
    },
    /// `-D` of a row that was never inserted (its id is above every live one).
    RetractMissing(u8, u8, Option<u8>),
}

/// Input of `topn_model`.
#[derive(Arbitrary, Debug, Clone)]
pub struct Input {
    /// 0 AppendOnly, 1 Retract, 2 FastTop1 (mod 3).
    pub strategy: u8,
    /// Rank end: 1 + this % 5 (FastTop1: 1).
    pub end: u8,
    /// Rank start: 1 + this % 3, at most the end (FastTop1: 1).
    pub offset: u8,
    /// Output the rank number.
    pub rank_number: bool,
    /// Emit `-U` rows.
    pub update_before: bool,
    /// ORDER BY s DESC.
    pub descending: bool,
    /// NULLS FIRST.
    pub nulls_first: bool,
    /// ORDER BY s, then id DESC.
    pub by_id: bool,
    /// The batches.
    pub batches: Vec<Vec<Op>>,
    /// Snapshot and restore before this batch (mod the batch count + 1).
    pub restore_at: u8,
    /// Damage to the snapshot for a second restore.
    pub damage: Damage,
    /// Raw bytes for `restore`.
    pub raw: Vec<u8>,
}

/// `(p, id, s)`.
type In = (Option<String>, i64, Option<i64>);

fn cells(r: &In) -> Row {
    vec![Cell::text(r.0.as_deref()), Cell::I(r.1), Cell::int(r.2)]
}

fn schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("p", DataType::Utf8, true),
        Field::new("id", DataType::Int64, false),
        Field::new("s", DataType::Int64, true),
    ]))
}

fn row(p: u8, id: u8, s: Option<u8>, id_base: i64) -> In {
    ((p % 4 != 3).then(|| format!("p{}", p % 4)), id_base + i64::from(id % 6), s.map(|s| i64::from(s % 5)))
}

/// The ops as a changelog valid for `strategy`: retractions only of live
/// rows (or of rows never inserted), and none for the insert-only ones.
fn changelog(batches: &[Vec<Op>], insert_only: bool) -> Vec<Vec<(RowKind, In)>> {
    let mut live: Vec<In> = Vec::new();
    let mut out = Vec::new();
    for ops in batches {
        let mut b = Vec::new();
        for op in ops {
            match *op {
                Op::Insert(p, id, s) => {
                    let r = row(p, id, s, 0);
                    live.push(r.clone());
                    b.push((RowKind::Insert, r));
                }
                _ if insert_only => {}
                Op::Retract { pick, update, as_update_before } => {
                    if live.is_empty() {
                        continue;
                    }
                    let r = live.remove(usize::from(pick) % live.len());
                    match update {
                        Some(s) => {
                            let new = (r.0.clone(), r.1, s.map(|s| i64::from(s % 5)));
                            b.push((RowKind::UpdateBefore, r));
                            live.push(new.clone());
                            b.push((RowKind::UpdateAfter, new));
                        }
                        None => b.push((if as_update_before { RowKind::UpdateBefore } else { RowKind::Delete }, r)),
                    }
                }
                Op::RetractMissing(p, id, s) => b.push((RowKind::Delete, row(p, id, s, 100))),
            }
        }
        out.push(b);
    }
    out
}

/// A stored row of the model: its arrival number and values.
#[derive(Clone, Debug)]
struct Stored {
    seq: u64,
    row: In,
}

struct Model {
    opts: TopNOptions,
    parts: BTreeMap<Option<String>, Vec<Stored>>,
    seq: u64,
}

/// `a` against `b` on one ORDER BY column of `(p, id, s)`.
fn cmp_col(a: &In, b: &In, c: &SortColumn) -> Ordering {
    let value = |r: &In| if c.column == 1 { Some(r.1) } else { r.2 };
    match (value(a), value(b)) {
        (None, None) => Ordering::Equal,
        (None, Some(_)) if c.nulls_first => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (Some(_), None) if c.nulls_first => Ordering::Greater,
        (Some(_), None) => Ordering::Less,
        (Some(x), Some(y)) if c.descending => y.cmp(&x),
        (Some(x), Some(y)) => x.cmp(&y),
    }
}

impl Model {
    fn cmp(&self, a: &In, b: &In) -> Ordering {
        self.opts.order.iter().map(|c| cmp_col(a, b, c)).find(|o| o.is_ne()).unwrap_or(Ordering::Equal)
    }

    fn top(&self, p: &Option<String>) -> Vec<Stored> {
        let rows = self.parts.get(p).map_or(&[][..], |v| &v[..]);
        rows.iter().take(self.opts.rank_end as usize).cloned().collect()
    }

    fn step(&mut self, kind: RowKind, r: &In, out: &mut Vec<Change>) {
        let before = self.top(&r.0);
        let mut rows = self.parts.remove(&r.0).unwrap_or_default();
        if matches!(kind, RowKind::Insert | RowKind::UpdateAfter) {
            self.seq += 1;
            let at = rows.partition_point(|s| self.cmp(&s.row, r) != Ordering::Greater);
            rows.insert(at, Stored { seq: self.seq, row: r.clone() });
        } else if let Some(at) = rows.iter().position(|s| s.row == *r) {
            rows.remove(at);
        }
        if !rows.is_empty() {
            self.parts.insert(r.0.clone(), rows);
        }
        let after = self.top(&r.0);
        self.diff(&before, &after, out);
    }

    fn diff(&self, before: &[Stored], after: &[Stored], out: &mut Vec<Change>) {
        let o = &self.opts;
        let emit = |kind: RowKind, s: &Stored, rank: u64, out: &mut Vec<Change>| {
            let mut c = cells(&s.row);
            if o.output_rank_number {
                c.push(Cell::I(rank as i64));
            }
            out.push((kind, c));
        };
        if o.strategy == TopNStrategy::FastTop1 || o.output_rank_number || o.rank_start > 1 {
            for rank in o.rank_start..=o.rank_end {
                let i = rank as usize - 1;
                match (before.get(i), after.get(i)) {
                    (Some(a), Some(b)) if a.seq != b.seq => {
                        if o.generate_update_before {
                            emit(RowKind::UpdateBefore, a, rank, out);
                        }
                        emit(RowKind::UpdateAfter, b, rank, out);
                    }
                    (None, Some(b)) => emit(RowKind::Insert, b, rank, out),
                    (Some(a), None) => emit(RowKind::Delete, a, rank, out),
                    _ => {}
                }
            }
        } else {
            for a in before.iter().filter(|a| after.iter().all(|b| b.seq != a.seq)) {
                emit(RowKind::Delete, a, 0, out);
            }
            for b in after.iter().filter(|b| before.iter().all(|a| a.seq != b.seq)) {
                emit(RowKind::Insert, b, 0, out);
            }
        }
    }
}

fn options(input: &Input) -> TopNOptions {
    let strategy =
        [TopNStrategy::AppendOnly, TopNStrategy::Retract, TopNStrategy::FastTop1][usize::from(input.strategy % 3)];
    let (start, end) = if strategy == TopNStrategy::FastTop1 {
        (1, 1)
    } else {
        let end = 1 + u64::from(input.end % 5);
        ((1 + u64::from(input.offset % 3)).min(end), end)
    };
    let mut order = vec![SortColumn { column: 2, descending: input.descending, nulls_first: input.nulls_first }];
    if input.by_id {
        order.push(SortColumn::desc(1));
    }
    let mut o = TopNOptions::new(strategy, order, end);
    o.rank_start = start;
    o.output_rank_number = input.rank_number;
    o.generate_update_before = input.update_before;
    o
}

/// Runs the check on one input; panics on a mismatch.
pub fn check(input: &Input) {
    let opts = options(input);
    let operator = || TopN::new(schema(), vec![0], opts.clone()).expect("Top-N operator");
    let mut op = operator();
    let mut model = Model { opts: opts.clone(), parts: BTreeMap::new(), seq: 0 };
    let batches = changelog(&input.batches, opts.strategy != TopNStrategy::Retract);
    let restore_at = usize::from(input.restore_at) % (batches.len() + 1);
    for (n, b) in batches.iter().enumerate() {
        if n == restore_at {
            op = restored(&op, &operator, &input.damage, &input.raw);
        }
        let mut want = Vec::new();
        for (kind, r) in b {
            model.step(*kind, r, &mut want);
        }
        let rows: Vec<Row> = b.iter().map(|(_, r)| cells(r)).collect();
        let kinds: Vec<RowKind> = b.iter().map(|(k, _)| *k).collect();
        let got = changes_of(&op.process(&batch_of(&schema(), &rows), &kinds).expect("process"));
        assert_eq!(got, want, "batch {n} ({opts:?})");
    }
    if restore_at == batches.len() {
        restored(&op, &operator, &input.damage, &input.raw);
    }
}
