//! The `Update` Top-N strategy (Flink's `UpdatableTopNFunction`): cases
//! transcribed from Flink's `UpdatableTopNFunctionTest`, Flink's lenient
//! handling of a sort key that moves the wrong way, a plainly written model
//! on random monotone upsert streams (the full changelog), snapshot and
//! restore across key-group ranges. (`topn.rs` runs the checks every
//! strategy shares with it: the allocation bar, the state budget, a
//! snapshot of another configuration.)

mod common;
mod topn_rows;

use std::collections::HashMap;

use common::{Cell, TupleRow};
use proptest::prelude::*;
use sluice_keyed::{Error, RowKind, SortColumn, TopN, TopNOptions, TopNStrategy};
use topn_rows::{batch, damaged_snapshots_fail, op, rec, restored_go_on, run, run_split, schema, Cfg, In, Rec};

use RowKind::*;

fn row(kind: RowKind, p: &str, id: i64, s: i64) -> (RowKind, In) {
    (kind, (p.to_string(), id, Some(s)))
}

/// `TopNFunctionTestBase`'s set-up: ORDER BY the INT column ascending.
fn flink(end: u64, update_before: bool, rank_number: bool) -> Cfg {
    Cfg { strategy: TopNStrategy::Update, order: vec![SortColumn::asc(2)], start: 1, end, rank_number, update_before }
}

/// The input of `UpdatableTopNFunctionTest.testSortKeyChanges*`.
fn sort_key_changes() -> Vec<(RowKind, In)> {
    vec![
        row(Insert, "book", 2, 19),
        row(Insert, "book", 3, 16),
        row(UpdateAfter, "book", 2, 11),
        row(UpdateAfter, "book", 3, 15),
        row(Insert, "book", 4, 2),
        row(UpdateAfter, "book", 2, 1),
    ]
}

/// `UpdatableTopNFunctionTest.testSortKeyChangesWhenOutputRankNumber`: the
/// moved row's old rank is retracted right after the first `-U`.
#[test]
fn flink_sort_key_changes_when_output_rank_number() {
    let expected = vec![
        rec(Insert, "book", 2, 19, Some(1)),
        rec(UpdateBefore, "book", 2, 19, Some(1)),
        rec(UpdateAfter, "book", 3, 16, Some(1)),
        rec(Insert, "book", 2, 19, Some(2)),
        rec(UpdateBefore, "book", 3, 16, Some(1)),
        rec(UpdateBefore, "book", 2, 19, Some(2)),
        rec(UpdateAfter, "book", 2, 11, Some(1)),
        rec(UpdateAfter, "book", 3, 16, Some(2)),
        rec(UpdateBefore, "book", 3, 16, Some(2)),
        rec(UpdateAfter, "book", 3, 15, Some(2)),
        rec(UpdateBefore, "book", 2, 11, Some(1)),
        rec(UpdateAfter, "book", 4, 2, Some(1)),
        rec(UpdateBefore, "book", 3, 15, Some(2)),
        rec(UpdateAfter, "book", 2, 11, Some(2)),
        rec(UpdateBefore, "book", 4, 2, Some(1)),
        rec(UpdateBefore, "book", 2, 11, Some(2)),
        rec(UpdateAfter, "book", 2, 1, Some(1)),
        rec(UpdateAfter, "book", 4, 2, Some(2)),
    ];
    assert_eq!(run(&mut op(&flink(2, true, true)), &sort_key_changes()), expected);
    // `...AndNotGenerateUpdateBefore`: the same without the `-U` rows.
    let no_ub: Vec<Rec> = expected.into_iter().filter(|r| r.0 != UpdateBefore).collect();
    assert_eq!(run(&mut op(&flink(2, false, true)), &sort_key_changes()), no_ub);
}

/// `UpdatableTopNFunctionTest.testSortKeyChangesWhenNotOutputRankNumber`
/// (and `...AndNotGenerateUpdateBefore`): a row key in the top N is
/// answered with `-U`/`+U`, a new row pushing the last one out with `-D`/`+I`.
#[test]
fn flink_sort_key_changes_when_not_output_rank_number() {
    let expected = vec![
        rec(Insert, "book", 2, 19, None),
        rec(Insert, "book", 3, 16, None),
        rec(UpdateBefore, "book", 2, 19, None),
        rec(UpdateAfter, "book", 2, 11, None),
        rec(UpdateBefore, "book", 3, 16, None),
        rec(UpdateAfter, "book", 3, 15, None),
        rec(Delete, "book", 3, 15, None),
        rec(Insert, "book", 4, 2, None),
        rec(UpdateBefore, "book", 2, 11, None),
        rec(UpdateAfter, "book", 2, 1, None),
    ];
    assert_eq!(run(&mut op(&flink(2, true, false)), &sort_key_changes()), expected);
    let no_ub: Vec<Rec> = expected.into_iter().filter(|r| r.0 != UpdateBefore).collect();
    assert_eq!(run(&mut op(&flink(2, false, false)), &sort_key_changes()), no_ub);
}

/// `UpdatableTopNFunctionTest.testVariableRankRange` /
/// `testOutputRankNumberWithVariableRankRange` with their rank end of 1 as
/// a constant (a variable rank end is not supported): each upsert of the
/// kept row key is `-U`/`+U`.
#[test]
fn flink_updates_of_the_kept_row() {
    let input = vec![
        row(Insert, "book", 2, 19),
        row(UpdateAfter, "book", 2, 12),
        row(UpdateAfter, "book", 2, 11),
        row(Insert, "fruit", 1, 44),
        row(UpdateAfter, "fruit", 1, 33),
        row(UpdateAfter, "fruit", 1, 22),
    ];
    let expected = vec![
        rec(Insert, "book", 2, 19, Some(1)),
        rec(UpdateBefore, "book", 2, 19, Some(1)),
        rec(UpdateAfter, "book", 2, 12, Some(1)),
        rec(UpdateBefore, "book", 2, 12, Some(1)),
        rec(UpdateAfter, "book", 2, 11, Some(1)),
        rec(Insert, "fruit", 1, 44, Some(1)),
        rec(UpdateBefore, "fruit", 1, 44, Some(1)),
        rec(UpdateAfter, "fruit", 1, 33, Some(1)),
        rec(UpdateBefore, "fruit", 1, 33, Some(1)),
        rec(UpdateAfter, "fruit", 1, 22, Some(1)),
    ];
    assert_eq!(run(&mut op(&flink(1, true, true)), &input), expected);
    let plain: Vec<Rec> = expected.into_iter().map(|(k, mut c)| (k, c.drain(..3).collect())).collect();
    assert_eq!(run(&mut op(&flink(1, true, false)), &input), plain);
}

/// A sort key that moves away from the top (what the planner's
/// monotonicity rules out): Flink's lenient mode repositions the row in its
/// buffer. Without rank numbers that is `-U`/`+U`; with them it is
/// `emitRecordsWithRowNumberIgnoreStateError`'s output, including the pair
/// its `currentRank <= newRank` loop bound emits for the bucket after the
/// new position.
#[test]
fn flink_lenient_sort_key_moving_down() {
    let fill = [row(Insert, "a", 1, 10), row(Insert, "a", 2, 20), row(Insert, "a", 3, 30)];
    let mut t = op(&flink(2, true, false));
    run(&mut t, &fill);
    let out = run(&mut t, &[row(UpdateAfter, "a", 1, 25)]);
    assert_eq!(out, vec![rec(UpdateBefore, "a", 1, 10, None), rec(UpdateAfter, "a", 1, 25, None)]);

    let mut t = op(&flink(3, true, true));
    run(&mut t, &fill);
    let out = run(&mut t, &[row(UpdateAfter, "a", 1, 25)]);
    let expected = vec![
        rec(UpdateBefore, "a", 1, 10, Some(1)),
        rec(UpdateBefore, "a", 2, 20, Some(2)),
        rec(UpdateAfter, "a", 2, 20, Some(1)),
        rec(UpdateAfter, "a", 1, 25, Some(2)),
        rec(UpdateBefore, "a", 1, 25, Some(3)),
        rec(UpdateAfter, "a", 1, 25, Some(2)),
    ];
    assert_eq!(out, expected);
    // Moving down without changing rank: Flink emits the `-U` only.
    let out = run(&mut t, &[row(UpdateAfter, "a", 3, 31)]);
    assert_eq!(out, vec![rec(UpdateBefore, "a", 3, 30, Some(3))]);
}

#[test]
fn refusals() {
    let mut t = op(&flink(2, true, false));
    for kind in [UpdateBefore, Delete] {
        let e = t.process(&batch(&[("a".into(), 1, Some(1))]), &[kind]).unwrap_err();
        assert!(matches!(e, Error::UnexpectedRowKind { row: 0, .. }), "{e}");
    }
    let mut o = TopNOptions::new(TopNStrategy::Retract, vec![SortColumn::asc(2)], 3);
    o.row_key = vec![0, 1];
    assert!(TopN::new(schema(), vec![0], o).is_err(), "a row key for another strategy");
    let mut o = TopNOptions::new(TopNStrategy::Update, vec![SortColumn::asc(2)], 3);
    o.row_key = vec![7];
    assert!(TopN::new(schema(), vec![0], o).is_err(), "a row key column out of range");
}

// ---------------------------------------------------------------------------
// The reference model: every live row of a partition (the last upsert of
// each row key), ordered by sort key and then by when the row got its
// current sort key; the changelog of each upsert written from the ranks
// before and after it, in the order Flink's function emits it.

/// The sort position of one value for one ORDER BY column: nulls first or
/// last, values ascending or descending.
fn position(v: Option<i64>, c: &SortColumn) -> (u8, i64) {
    match v {
        None if c.nulls_first => (0, 0),
        None => (2, 0),
        Some(x) if c.descending => (1, -x),
        Some(x) => (1, x),
    }
}

fn sort_key(cfg: &Cfg, r: &In) -> Vec<(u8, i64)> {
    cfg.order.iter().map(|c| position(if c.column == 1 { Some(r.1) } else { r.2 }, c)).collect()
}

#[derive(Clone, Debug)]
struct Live {
    row: In,
    /// When the row got its current sort key (ties go by it).
    since: u64,
}

struct Model {
    cfg: Cfg,
    parts: HashMap<String, HashMap<i64, Live>>,
    clock: u64,
}

impl Model {
    fn ranking(&self, p: &str) -> Vec<Live> {
        let mut v: Vec<Live> = self.parts.get(p).map(|m| m.values().cloned().collect()).unwrap_or_default();
        v.sort_by_key(|l| (sort_key(&self.cfg, &l.row), l.since));
        v
    }

    fn cells(&self, l: &Live, rank: u64) -> Vec<Cell> {
        let mut c = l.row.cells();
        if self.cfg.rank_number {
            c.push(Cell::I(rank as i64));
        }
        c
    }

    fn upsert(&mut self, r: &In, out: &mut Vec<Rec>) {
        let before = self.ranking(&r.0);
        self.clock += 1;
        let clock = self.clock;
        let cfg = self.cfg.clone();
        let rows = self.parts.entry(r.0.clone()).or_default();
        let old = rows.get(&r.1).cloned();
        let since = match &old {
            Some(o) if sort_key(&cfg, &o.row) == sort_key(&cfg, r) => o.since,
            _ => clock,
        };
        rows.insert(r.1, Live { row: r.clone(), since });
        let after = self.ranking(&r.0);
        let rank_of = |v: &[Live]| v.iter().position(|l| l.row.1 == r.1).map(|i| i as u64 + 1);
        let (old_rank, new_rank) = (rank_of(&before), rank_of(&after).unwrap_or(u64::MAX));
        let end = cfg.end;
        let mut emit = |kind: RowKind, l: &Live, rank: u64| {
            let ranked = cfg.rank_number || cfg.start > 1;
            let in_range = !ranked || (cfg.start..=end).contains(&rank);
            if in_range && (kind != UpdateBefore || cfg.update_before) {
                out.push((kind, self.cells(l, rank)));
            }
        };
        let at = |v: &[Live], k: u64| v.get(k as usize - 1).cloned();
        if !(cfg.rank_number || cfg.start > 1) {
            // Without rank numbers: a row key in the top N is `-U`/`+U`; a
            // row entering pushes the N-th one out (`-D`), then `+I`.
            match (old, old_rank) {
                (Some(o), Some(k)) if k <= end => {
                    emit(UpdateBefore, &o, 0);
                    emit(UpdateAfter, &after[new_rank as usize - 1], 0);
                }
                _ if new_rank <= end => {
                    if let Some(pushed) = at(&before, end) {
                        emit(Delete, &pushed, 0);
                    }
                    emit(Insert, &after[new_rank as usize - 1], 0);
                }
                _ => {}
            }
            return;
        }
        match old_rank.filter(|&k| k <= end) {
            // A row key in the top N moves up from `k` (or stays): each rank
            // from the new one to `k` changes; the old row's `-U` comes
            // right after the first `-U`.
            Some(k) => {
                let old = before[k as usize - 1].clone();
                let mut retracted = false;
                for j in new_rank..k {
                    emit(UpdateBefore, &before[j as usize - 1], j);
                    if !retracted {
                        emit(UpdateBefore, &old, k);
                        retracted = true;
                    }
                    emit(UpdateAfter, &after[j as usize - 1], j);
                }
                if !retracted {
                    emit(UpdateBefore, &old, k);
                }
                emit(UpdateAfter, &after[k as usize - 1], k);
            }
            // A row entering from outside the top N: every rank from its
            // new one to N changes, the first empty one is `+I`.
            None => {
                for j in new_rank..=end {
                    match (at(&before, j), at(&after, j)) {
                        (Some(b), Some(a)) => {
                            emit(UpdateBefore, &b, j);
                            emit(UpdateAfter, &a, j);
                        }
                        (None, Some(a)) => emit(Insert, &a, j),
                        _ => break,
                    }
                }
            }
        }
    }
}

/// A random upsert stream whose sort key only moves towards the top: each
/// op names a row key and a candidate value; an upsert of a known row key
/// takes the candidate only when it does not sort after the current value.
fn stream(cfg: &Cfg, ops: &[(usize, i64, Option<i64>)]) -> Vec<(RowKind, In)> {
    let parts = ["a", "b", "c"];
    let mut current: HashMap<(usize, i64), Option<i64>> = HashMap::new();
    let mut out = Vec::new();
    for &(p, id, cand) in ops {
        let sort = |v: Option<i64>| sort_key(cfg, &(String::new(), id, v));
        let (kind, v) = match current.get(&(p, id)) {
            None => (Insert, cand),
            Some(&cur) if sort(cand) <= sort(cur) => (UpdateAfter, cand),
            Some(&cur) => (UpdateAfter, cur),
        };
        current.insert((p, id), v);
        out.push((kind, (parts[p].to_string(), id, v)));
    }
    out
}

fn arb_cfg() -> impl Strategy<Value = Cfg> {
    (1u64..6, 0u64..3, any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>()).prop_map(
        |(end, off, rank_number, update_before, desc, nulls_first, second)| {
            let mut order = vec![SortColumn { column: 2, descending: desc, nulls_first }];
            if second {
                order.push(SortColumn::desc(1));
            }
            Cfg { strategy: TopNStrategy::Update, order, start: (1 + off).min(end), end, rank_number, update_before }
        },
    )
}

fn arb_ops(max: usize) -> impl Strategy<Value = Vec<(usize, i64, Option<i64>)>> {
    prop::collection::vec((0usize..3, 0i64..6, prop::option::weighted(0.85, 0i64..5)), 0..max)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    /// Rank ranges (N = 1 up to more than any partition holds), offsets,
    /// the rank column, update-before, null order, ties and batch splits
    /// against the model: the full changelog, record for record.
    #[test]
    fn matches_the_reference_model(
        cfg in arb_cfg(),
        ops in arb_ops(60),
        splits in prop::collection::vec(1usize..9, 1..10),
    ) {
        let input = stream(&cfg, &ops);
        let mut t = op(&cfg);
        let mut model = Model { cfg, parts: HashMap::new(), clock: 0 };
        let mut expected = Vec::new();
        for (_, r) in &input {
            model.upsert(r, &mut expected);
        }
        prop_assert_eq!(run_split(&mut t, &input, &splits), expected);
    }

    /// A snapshot split by key-group ranges restores into operators that go
    /// on exactly as the original.
    #[test]
    fn snapshot_restore_by_key_group_range(cfg in arb_cfg(), ops in arb_ops(80)) {
        let input = stream(&cfg, &ops);
        let (head, tail) = input.split_at(input.len() / 2);
        let mut t = op(&cfg);
        if !head.is_empty() {
            run(&mut t, head);
        }
        let (a, b) = restored_go_on(&mut t, || op(&cfg), tail);
        prop_assert_eq!(a, b);
    }

    /// Arbitrary bytes, and damaged valid snapshots, are errors, never panics.
    #[test]
    fn restore_of_arbitrary_bytes_is_an_error(bytes in prop::collection::vec(any::<u8>(), 0..300), flip in any::<usize>()) {
        let cfg = flink(3, true, true);
        prop_assert!(damaged_snapshots_fail(|| op(&cfg), &sort_key_changes(), &bytes, flip));
    }
}
