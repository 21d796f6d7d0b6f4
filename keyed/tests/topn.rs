//! Top-N against a plainly written reference model (random streams, full
//! changelog), cases transcribed from Flink's own operator tests, snapshot
//! and restore across key-group ranges, and the allocation bar.

mod common;
mod topn_rows;

use std::cmp::Ordering;

use common::{Cell, TupleRow};
use proptest::prelude::*;
use sluice_kernels::alloc_count::{count_allocs, CountingAlloc};
use sluice_keyed::{Error, KeyGroupRange, RowKind, SortColumn, TopN, TopNOptions, TopNStrategy};
use topn_rows::{batch, damaged_snapshots_fail, op, rec, restored_go_on, run, run_split, schema, Cfg, In, Rec};

#[global_allocator]
static A: CountingAlloc = CountingAlloc::system();

use RowKind::*;

fn inserts(rows: &[(&str, i64, i64)]) -> Vec<(RowKind, In)> {
    rows.iter().map(|&(p, id, s)| (Insert, (p.to_string(), id, Some(s)))).collect()
}

fn flink_cfg(strategy: TopNStrategy, start: u64, end: u64, update_before: bool, rank_number: bool) -> Cfg {
    Cfg { strategy, order: vec![SortColumn::asc(2)], start, end, rank_number, update_before }
}

/// Flink's `TopNFunctionTestBase` input: `book` and `fruit`, ORDER BY the
/// INT column ascending.
fn flink_input() -> Vec<(RowKind, In)> {
    inserts(&[("book", 1, 12), ("book", 2, 19), ("book", 4, 11), ("fruit", 4, 33), ("fruit", 3, 44), ("fruit", 5, 22)])
}

/// [`flink_input`] with rows inserted (position in the result, row), as
/// the Flink tests that add ties to it list them.
fn flink_input_with(extra: &[(usize, (&str, i64, i64))]) -> Vec<(RowKind, In)> {
    let mut input = flink_input();
    for &(at, (p, id, s)) in extra {
        input.insert(at, (Insert, (p.to_string(), id, Some(s))));
    }
    input
}

const ORDERED_STRATEGIES: [TopNStrategy; 2] = [TopNStrategy::AppendOnly, TopNStrategy::Retract];

/// `TopNFunctionTestBase.testDisableGenerateUpdateBefore` (rank range 1..2,
/// no update-before, no rank number): `-D` is still sent.
#[test]
fn flink_disable_generate_update_before() {
    for s in ORDERED_STRATEGIES {
        let mut t = op(&flink_cfg(s, 1, 2, false, false));
        let input = flink_input_with(&[(2, ("book", 3, 19)), (4, ("book", 5, 11))]);
        let expected = vec![
            rec(Insert, "book", 1, 12, None),
            rec(Insert, "book", 2, 19, None),
            rec(Delete, "book", 2, 19, None),
            rec(Insert, "book", 4, 11, None),
            rec(Delete, "book", 1, 12, None),
            rec(Insert, "book", 5, 11, None),
            rec(Insert, "fruit", 4, 33, None),
            rec(Insert, "fruit", 3, 44, None),
            rec(Delete, "fruit", 3, 44, None),
            rec(Insert, "fruit", 5, 22, None),
        ];
        assert_eq!(run(&mut t, &input), expected, "{s:?}");
    }
}

/// `TopNFunctionTestBase.testDisableGenerateUpdateBeforeAndOutputRankNumber`.
#[test]
fn flink_disable_generate_update_before_and_output_rank_number() {
    for s in ORDERED_STRATEGIES {
        let mut t = op(&flink_cfg(s, 1, 2, false, true));
        let input = flink_input_with(&[(3, ("book", 5, 11))]);
        let expected = vec![
            rec(Insert, "book", 1, 12, Some(1)),
            rec(Insert, "book", 2, 19, Some(2)),
            rec(UpdateAfter, "book", 4, 11, Some(1)),
            rec(UpdateAfter, "book", 1, 12, Some(2)),
            rec(UpdateAfter, "book", 5, 11, Some(2)),
            rec(Insert, "fruit", 4, 33, Some(1)),
            rec(Insert, "fruit", 3, 44, Some(2)),
            rec(UpdateAfter, "fruit", 5, 22, Some(1)),
            rec(UpdateAfter, "fruit", 4, 33, Some(2)),
        ];
        assert_eq!(run(&mut t, &input), expected, "{s:?}");
    }
}

/// `TopNFunctionTestBase.testOutputRankNumberWithConstantRankRange`.
#[test]
fn flink_output_rank_number_with_constant_rank_range() {
    for s in ORDERED_STRATEGIES {
        let mut t = op(&flink_cfg(s, 1, 2, true, true));
        let input = flink_input_with(&[(3, ("book", 5, 11))]);
        let expected = vec![
            rec(Insert, "book", 1, 12, Some(1)),
            rec(Insert, "book", 2, 19, Some(2)),
            rec(UpdateBefore, "book", 1, 12, Some(1)),
            rec(UpdateAfter, "book", 4, 11, Some(1)),
            rec(UpdateBefore, "book", 2, 19, Some(2)),
            rec(UpdateAfter, "book", 1, 12, Some(2)),
            rec(UpdateBefore, "book", 1, 12, Some(2)),
            rec(UpdateAfter, "book", 5, 11, Some(2)),
            rec(Insert, "fruit", 4, 33, Some(1)),
            rec(Insert, "fruit", 3, 44, Some(2)),
            rec(UpdateBefore, "fruit", 4, 33, Some(1)),
            rec(UpdateAfter, "fruit", 5, 22, Some(1)),
            rec(UpdateBefore, "fruit", 3, 44, Some(2)),
            rec(UpdateAfter, "fruit", 4, 33, Some(2)),
        ];
        assert_eq!(run(&mut t, &input), expected, "{s:?}");
    }
}

/// `TopNFunctionTestBase.testConstantRankRangeWithOffset` (`rn = 2`, no rank
/// column: the with-row-number algorithm without the column).
#[test]
fn flink_constant_rank_range_with_offset() {
    for s in ORDERED_STRATEGIES {
        let mut t = op(&flink_cfg(s, 2, 2, true, false));
        let expected = vec![
            rec(Insert, "book", 2, 19, None),
            rec(UpdateBefore, "book", 2, 19, None),
            rec(UpdateAfter, "book", 1, 12, None),
            rec(Insert, "fruit", 3, 44, None),
            rec(UpdateBefore, "fruit", 3, 44, None),
            rec(UpdateAfter, "fruit", 4, 33, None),
        ];
        assert_eq!(run(&mut t, &flink_input()), expected, "{s:?}");
    }
}

/// `TopNFunctionTestBase.testConstantRankRangeWithoutOffset`, including its
/// snapshot / restore step.
#[test]
fn flink_constant_rank_range_without_offset_and_restore() {
    for s in ORDERED_STRATEGIES {
        let cfg = flink_cfg(s, 1, 2, true, false);
        let mut t = op(&cfg);
        let expected = vec![
            rec(Insert, "book", 1, 12, None),
            rec(Insert, "book", 2, 19, None),
            rec(Delete, "book", 2, 19, None),
            rec(Insert, "book", 4, 11, None),
            rec(Insert, "fruit", 4, 33, None),
            rec(Insert, "fruit", 3, 44, None),
            rec(Delete, "fruit", 3, 44, None),
            rec(Insert, "fruit", 5, 22, None),
        ];
        assert_eq!(run(&mut t, &flink_input()), expected, "{s:?}");
        let snap = t.snapshot(KeyGroupRange::all(128)).unwrap();
        let mut r = op(&cfg);
        r.restore(&snap, KeyGroupRange::all(128)).unwrap();
        let after = run(&mut r, &inserts(&[("book", 5, 10)]));
        assert_eq!(after, vec![rec(Delete, "book", 1, 12, None), rec(Insert, "book", 5, 10, None)], "{s:?}");
    }
}

/// `FastTop1FunctionTest.testDisableGenerateUpdateBefore` and the Top-1
/// with rank number: a strictly better row replaces (`-U`/`+U`), an equal
/// or worse one emits nothing.
#[test]
fn flink_fast_top1() {
    let input = flink_input_with(&[(2, ("book", 3, 19)), (4, ("book", 5, 11))]);
    let mut t = op(&flink_cfg(TopNStrategy::FastTop1, 1, 1, false, false));
    let expected = vec![
        rec(Insert, "book", 1, 12, None),
        rec(UpdateAfter, "book", 4, 11, None),
        rec(Insert, "fruit", 4, 33, None),
        rec(UpdateAfter, "fruit", 5, 22, None),
    ];
    assert_eq!(run(&mut t, &input), expected);
    let mut t = op(&flink_cfg(TopNStrategy::FastTop1, 1, 1, true, true));
    let expected = vec![
        rec(Insert, "book", 1, 12, Some(1)),
        rec(UpdateBefore, "book", 1, 12, Some(1)),
        rec(UpdateAfter, "book", 4, 11, Some(1)),
        rec(Insert, "fruit", 4, 33, Some(1)),
        rec(UpdateBefore, "fruit", 4, 33, Some(1)),
        rec(UpdateAfter, "fruit", 5, 22, Some(1)),
    ];
    assert_eq!(run(&mut t, &input), expected);
}

/// `RetractableTopNFunction`: retracting a row inside the top N pulls the
/// row at N + 1 up; retracting one outside emits nothing.
#[test]
fn retract_inside_and_outside_the_top_n() {
    let mut t = op(&flink_cfg(TopNStrategy::Retract, 1, 2, true, true));
    run(&mut t, &inserts(&[("book", 1, 12), ("book", 2, 19), ("book", 3, 11), ("book", 4, 20)]));
    let out = run(&mut t, &[(Delete, ("book".into(), 4, Some(20)))]);
    assert_eq!(out, vec![]);
    let out = run(&mut t, &[(UpdateBefore, ("book".into(), 3, Some(11)))]);
    assert_eq!(
        out,
        vec![
            rec(UpdateBefore, "book", 3, 11, Some(1)),
            rec(UpdateAfter, "book", 1, 12, Some(1)),
            rec(UpdateBefore, "book", 1, 12, Some(2)),
            rec(UpdateAfter, "book", 2, 19, Some(2)),
        ]
    );
    let mut t = op(&flink_cfg(TopNStrategy::Retract, 1, 2, true, false));
    run(&mut t, &inserts(&[("book", 1, 12), ("book", 2, 19), ("book", 3, 11)]));
    let out = run(&mut t, &[(Delete, ("book".into(), 3, Some(11)))]);
    assert_eq!(out, vec![rec(Delete, "book", 3, 11, None), rec(Insert, "book", 2, 19, None)]);
}

#[test]
fn refusals() {
    let mut t = op(&flink_cfg(TopNStrategy::AppendOnly, 1, 2, true, false));
    let e = t.process(&batch(&[("a".into(), 1, Some(1))]), &[Delete]).unwrap_err();
    assert!(matches!(e, Error::UnexpectedRowKind { row: 0, .. }), "{e}");
    let bad = TopN::new(schema(), vec![0], TopNOptions::new(TopNStrategy::FastTop1, vec![SortColumn::asc(2)], 3));
    assert!(bad.is_err());
    let bad = TopN::new(schema(), vec![0], TopNOptions::new(TopNStrategy::Retract, vec![], 3));
    assert!(bad.is_err());
    let mut o = TopNOptions::new(TopNStrategy::Retract, vec![SortColumn::asc(2)], 3);
    o.rank_start = 4;
    assert!(TopN::new(schema(), vec![0], o).is_err());
}

// ---------------------------------------------------------------------------
// The reference model: every row of a partition in a Vec, sorted, the top N
// recomputed before and after each row, and the two diffed.

#[derive(Clone, Debug)]
struct MRow {
    seq: u64,
    row: In,
}

fn cmp_col(a: Option<i64>, b: Option<i64>, c: &SortColumn) -> Ordering {
    match (a, b) {
        (None, None) => Ordering::Equal,
        (None, Some(_)) => {
            if c.nulls_first {
                Ordering::Less
            } else {
                Ordering::Greater
            }
        }
        (Some(_), None) => {
            if c.nulls_first {
                Ordering::Greater
            } else {
                Ordering::Less
            }
        }
        (Some(x), Some(y)) => {
            if c.descending {
                y.cmp(&x)
            } else {
                x.cmp(&y)
            }
        }
    }
}

fn col(r: &In, c: usize) -> Option<i64> {
    if c == 1 {
        Some(r.1)
    } else {
        r.2
    }
}

struct Model {
    cfg: Cfg,
    parts: std::collections::HashMap<String, Vec<MRow>>,
    seq: u64,
}

impl Model {
    fn cmp(&self, a: &MRow, b: &MRow) -> Ordering {
        for c in &self.cfg.order {
            let o = cmp_col(col(&a.row, c.column), col(&b.row, c.column), c);
            if o != Ordering::Equal {
                return o;
            }
        }
        a.seq.cmp(&b.seq)
    }

    fn top(&self, p: &str) -> Vec<MRow> {
        let mut v = self.parts.get(p).cloned().unwrap_or_default();
        v.sort_by(|a, b| self.cmp(a, b));
        v.truncate(self.cfg.end as usize);
        v
    }

    fn step(&mut self, kind: RowKind, row: &In, out: &mut Vec<Rec>) {
        let before = self.top(&row.0);
        let accumulate = matches!(kind, Insert | UpdateAfter);
        if accumulate {
            self.seq += 1;
            self.parts.entry(row.0.clone()).or_default().push(MRow { seq: self.seq, row: row.clone() });
        } else {
            // The first equal row in rank order (Flink's equaliser over the
            // rows of the sort key, in arrival order).
            let mut sorted = self.parts.get(&row.0).cloned().unwrap_or_default();
            sorted.sort_by(|a, b| self.cmp(a, b));
            let Some(victim) = sorted.iter().find(|r| r.row == *row) else { return };
            let seq = victim.seq;
            self.parts.get_mut(&row.0).unwrap().retain(|r| r.seq != seq);
        }
        let after = self.top(&row.0);
        self.diff(&before, &after, out);
    }

    fn diff(&self, before: &[MRow], after: &[MRow], out: &mut Vec<Rec>) {
        let c = &self.cfg;
        let with_rank = |r: &MRow, k: u64| {
            let mut v = r.row.cells();
            if c.rank_number {
                v.push(Cell::I(k as i64));
            }
            v
        };
        if c.strategy == TopNStrategy::FastTop1 || c.rank_number || c.start > 1 {
            for k in c.start..=c.end {
                let (o, n) = (before.get(k as usize - 1), after.get(k as usize - 1));
                match (o, n) {
                    (Some(a), Some(b)) if a.seq != b.seq => {
                        if c.update_before {
                            out.push((UpdateBefore, with_rank(a, k)));
                        }
                        out.push((UpdateAfter, with_rank(b, k)));
                    }
                    (None, Some(b)) => out.push((Insert, with_rank(b, k))),
                    (Some(a), None) => out.push((Delete, with_rank(a, k))),
                    _ => {}
                }
            }
        } else {
            for a in before.iter().filter(|a| !after.iter().any(|b| b.seq == a.seq)) {
                out.push((Delete, a.row.cells()));
            }
            for b in after.iter().filter(|b| !before.iter().any(|a| a.seq == b.seq)) {
                out.push((Insert, b.row.cells()));
            }
        }
    }
}

#[derive(Clone, Debug)]
enum Op {
    Insert(In),
    /// Retract the i-th live row (modulo), as `-D` or `-U` (then followed by
    /// a `+U` of a changed row when `update` is set).
    Retract {
        pick: usize,
        update: Option<Option<i64>>,
        as_update_before: bool,
    },
    /// Retract a row that is not in state.
    RetractMissing(In),
}

fn arb_row() -> impl Strategy<Value = In> {
    (prop::sample::select(vec!["a", "b", "c"]), 0i64..6, prop::option::weighted(0.85, 0i64..5))
        .prop_map(|(p, id, s)| (p.to_string(), id, s))
}

fn arb_op() -> impl Strategy<Value = Op> {
    prop_oneof![
        5 => arb_row().prop_map(Op::Insert),
        3 => (any::<usize>(), prop::option::of(prop::option::weighted(0.85, 0i64..5)), any::<bool>())
            .prop_map(|(pick, update, as_update_before)| Op::Retract { pick, update, as_update_before }),
        1 => arb_row().prop_map(|(p, id, s)| Op::RetractMissing((p, id + 100, s))),
    ]
}

/// Turns ops into a changelog that only retracts live rows (or, for
/// `RetractMissing`, rows that never were).
fn changelog_of(ops: &[Op], insert_only: bool) -> Vec<(RowKind, In)> {
    let mut live: Vec<In> = Vec::new();
    let mut out = Vec::new();
    for op in ops {
        match op {
            Op::Insert(r) => {
                live.push(r.clone());
                out.push((Insert, r.clone()));
            }
            _ if insert_only => {}
            Op::Retract { pick, update, as_update_before } => {
                if live.is_empty() {
                    continue;
                }
                let r = live.remove(pick % live.len());
                match update {
                    Some(s) => {
                        let new = (r.0.clone(), r.1, *s);
                        out.push((UpdateBefore, r));
                        live.push(new.clone());
                        out.push((UpdateAfter, new));
                    }
                    None => out.push((if *as_update_before { UpdateBefore } else { Delete }, r)),
                }
            }
            Op::RetractMissing(r) => out.push((Delete, r.clone())),
        }
    }
    out
}

fn arb_cfg() -> impl Strategy<Value = Cfg> {
    (0usize..3, 1u64..6, 0u64..3, any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>()).prop_map(
        |(s, end, off, rank_number, update_before, desc, nulls_first, second)| {
            let strategy = [TopNStrategy::AppendOnly, TopNStrategy::Retract, TopNStrategy::FastTop1][s];
            let (start, end) = if strategy == TopNStrategy::FastTop1 { (1, 1) } else { ((1 + off).min(end), end) };
            let mut order = vec![SortColumn { column: 2, descending: desc, nulls_first }];
            if second {
                order.push(SortColumn::desc(1));
            }
            Cfg { strategy, order, start, end, rank_number, update_before }
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    /// Every strategy, rank range, rank column, null order and batch split
    /// against the model: the full changelog, record for record.
    #[test]
    fn matches_the_reference_model(
        cfg in arb_cfg(),
        ops in prop::collection::vec(arb_op(), 0..60),
        splits in prop::collection::vec(1usize..9, 1..10),
    ) {
        let insert_only = cfg.strategy != TopNStrategy::Retract;
        let input = changelog_of(&ops, insert_only);
        let mut t = op(&cfg);
        let mut model = Model { cfg, parts: Default::default(), seq: 0 };
        let mut expected = Vec::new();
        for (k, r) in &input {
            model.step(*k, r, &mut expected);
        }
        prop_assert_eq!(run_split(&mut t, &input, &splits), expected);
    }

    /// The benches' seed before-state (`set_scalar_ranker`: scalar keys, a
    /// scalar comparator, diffed top-N snapshots) emits exactly the model's
    /// changelog, and so the operator's, for every retracting configuration.
    #[test]
    fn scalar_ranker_matches_the_model_and_the_operator(
        cfg in arb_cfg().prop_map(|c| Cfg { strategy: TopNStrategy::Retract, start: c.start.min(c.end), ..c }),
        ops in prop::collection::vec(arb_op(), 0..60),
        splits in prop::collection::vec(1usize..9, 1..10),
    ) {
        let input = changelog_of(&ops, false);
        let mut scalar = op(&cfg);
        scalar.set_scalar_ranker(true).unwrap();
        let mut model = Model { cfg: cfg.clone(), parts: Default::default(), seq: 0 };
        let mut expected = Vec::new();
        for (k, r) in &input {
            model.step(*k, r, &mut expected);
        }
        let got = run_split(&mut scalar, &input, &splits);
        prop_assert_eq!(&got, &expected);
        prop_assert_eq!(got, run_split(&mut op(&cfg), &input, &splits));
        prop_assert!(scalar.snapshot(KeyGroupRange::all(128)).is_err());
    }

    /// Sort keys too long for a bucket to hold inline (a VARCHAR ORDER BY
    /// column of 35 bytes, DESC), with equal rows: the operator's changelog
    /// is the scalar ranker's, row by row.
    #[test]
    fn long_sort_keys_match_the_scalar_ranker(
        steps in prop::collection::vec((0usize..3, 0usize..4, any::<bool>()), 0..60),
        rank_number in any::<bool>(),
    ) {
        type Long = (String, String, i64);
        let schema = Long::schema(&["p", "s", "id"]);
        let mk = || {
            let mut o = TopNOptions::new(TopNStrategy::Retract, vec![SortColumn::desc(1)], 3);
            o.output_rank_number = rank_number;
            TopN::new(schema.clone(), vec![0], o).unwrap()
        };
        let (mut t, mut scalar) = (mk(), mk());
        scalar.set_scalar_ranker(true).unwrap();
        let mut live: Vec<Long> = Vec::new();
        for (i, &(p, v, retract)) in steps.iter().enumerate() {
            let (kind, row) = if retract && !live.is_empty() {
                (Delete, live.remove((p + v) % live.len()))
            } else {
                let row = (format!("p{p}"), format!("a sort key longer than the inline {v}"), i as i64 % 3);
                live.push(row.clone());
                (Insert, row)
            };
            let b = common::batch_of(schema.clone(), &[row]);
            prop_assert_eq!(t.process(&b, &[kind]).unwrap(), scalar.process(&b, &[kind]).unwrap());
        }
        prop_assert_eq!(t.num_rows(), live.len());
    }

    /// A snapshot split by key-group ranges restores into operators that go
    /// on exactly as the original.
    #[test]
    fn snapshot_restore_by_key_group_range(
        cfg in arb_cfg(),
        ops in prop::collection::vec(arb_op(), 0..40),
        more in prop::collection::vec(arb_row(), 0..20),
    ) {
        let input = changelog_of(&ops, cfg.strategy != TopNStrategy::Retract);
        let mut t = op(&cfg);
        if !input.is_empty() {
            run(&mut t, &input);
        }
        let tail: Vec<(RowKind, In)> = more.into_iter().map(|r| (Insert, r)).collect();
        let (a, b) = restored_go_on(&mut t, || op(&cfg), &tail);
        prop_assert_eq!(a, b);
    }

    /// Arbitrary bytes, and damaged valid snapshots, are errors, never panics.
    #[test]
    fn restore_of_arbitrary_bytes_is_an_error(bytes in prop::collection::vec(any::<u8>(), 0..300), flip in any::<usize>()) {
        let cfg = flink_cfg(TopNStrategy::Retract, 1, 3, true, true);
        prop_assert!(damaged_snapshots_fail(|| op(&cfg), &flink_input(), &bytes, flip));
    }
}

#[test]
fn restore_refuses_another_operator_config() {
    for s in [TopNStrategy::Retract, TopNStrategy::Update] {
        let mut t = op(&flink_cfg(s, 1, 3, true, true));
        run(&mut t, &flink_input());
        let snap = t.snapshot(KeyGroupRange::all(128)).unwrap();
        let e = op(&flink_cfg(s, 1, 2, true, true)).restore(&snap, KeyGroupRange::all(128));
        assert!(matches!(e, Err(Error::CorruptSnapshot { .. })), "{s:?}: {e:?}");
        let mut again = op(&flink_cfg(s, 1, 3, true, true));
        again.restore(&snap, KeyGroupRange::all(128)).unwrap();
        assert_eq!((again.num_rows(), again.size()), (t.num_rows(), t.size()), "{s:?}");
        assert!(again.restore(&snap, KeyGroupRange::all(128)).is_err(), "{s:?}: a partition restored twice");
    }
}

#[test]
fn state_budget_is_enforced() {
    // The Update ranker keeps only its top N: a rank end that holds them all.
    for (strategy, n) in [(TopNStrategy::Retract, 3), (TopNStrategy::Update, 50)] {
        let mut o = TopNOptions::new(strategy, vec![SortColumn::asc(2)], n);
        if strategy == TopNStrategy::Update {
            o.row_key = vec![0, 1];
        }
        o.state_budget = Some(400);
        let mut t = TopN::new(schema(), vec![0], o).unwrap();
        let rows: Vec<In> = (0..50).map(|i| ("p".to_string(), i, Some(i))).collect();
        let e = t.process(&batch(&rows), &vec![Insert; rows.len()]).unwrap_err();
        assert!(matches!(e, Error::StateBudgetExceeded { .. }), "{strategy:?}: {e}");
        assert!(t.size() <= 400);
    }
}

/// The bar: a row that cannot enter the top N allocates nothing. An
/// append-only Top-3 over 64 partitions is filled with the best rows; then a
/// 64-row and a 4,096-row batch of worse rows (new row keys, for the Update
/// ranker) cost the same (per-batch) allocations, and no more than a few.
#[test]
fn rows_that_cannot_enter_the_top_n_allocate_nothing() {
    for strategy in [TopNStrategy::AppendOnly, TopNStrategy::FastTop1, TopNStrategy::Update] {
        for rank_number in [false, true] {
            let n = if strategy == TopNStrategy::FastTop1 { 1 } else { 3 };
            let mut o = TopNOptions::new(strategy, vec![SortColumn::asc(2)], n);
            o.output_rank_number = rank_number;
            if strategy == TopNStrategy::Update {
                o.row_key = vec![0, 1];
            }
            let mut t = TopN::new(schema(), vec![0], o).unwrap();
            let mk = |rows: usize, base: i64| -> Vec<In> {
                let row = |i: usize| (format!("p{}", i % 64), base * 1000 + i as i64, Some(base + (i % 7) as i64));
                (0..rows).map(row).collect()
            };
            let best = mk(64 * 3, 0);
            t.process(&batch(&best), &vec![Insert; best.len()]).unwrap();
            let (small, big) = (batch(&mk(64, 100)), batch(&mk(4096, 100)));
            // Warm the reused blocks to their working size.
            t.process(&big, &[Insert; 4096]).unwrap();
            let (a_small, (o_small, _)) = count_allocs(|| t.process(&small, &[Insert; 64]).unwrap());
            let (a_big, (o_big, _)) = count_allocs(|| t.process(&big, &[Insert; 4096]).unwrap());
            assert_eq!((o_small.num_rows(), o_big.num_rows()), (0, 0));
            assert!(
                a_big <= a_small + 2 && a_big < 48,
                "{strategy:?} rank_number={rank_number}: 4096 rejected rows {a_big} allocations, 64 rows {a_small}"
            );
        }
    }
}
