//! FILTER (WHERE f) and DISTINCT calls of the GroupAggregate against a plain
//! model (per group and call, the values that pass the filter in arrival
//! order, the distinct ones recomputed from them on every row), Flink's
//! distinct-count rules by hand (`DistinctAggCodeGen`), snapshot/restore of
//! the distinct state and its accounting, and the per-row allocation bar.

mod common;

use std::collections::BTreeMap;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use common::{changelog, f, flink_equal, Cell, TupleRow};
use proptest::prelude::*;
use sluice_kernels::alloc_count::{count_allocs, CountingAlloc};
use sluice_keyed::{
    key_group_range_for_operator, AggKind, AggSpec, GroupAggOptions, GroupAggregate, KeyGroupRange, OverAggregate,
    OverFrame, OverOptions, OverTime, RowKind,
};

#[global_allocator]
static A: CountingAlloc = CountingAlloc::system();

use RowKind::*;

/// Input row: (k, f, v, x, s).
type In = (i64, Option<bool>, Option<i64>, Option<f64>, Option<String>);

fn schema() -> SchemaRef {
    In::schema(&["k", "f", "v", "x", "s"])
}

fn batch(rows: &[In]) -> RecordBatch {
    common::batch_of(schema(), rows)
}

const F: usize = 1;

fn calls() -> Vec<AggSpec> {
    vec![
        AggSpec::count_star(),
        AggSpec::count_star().with_filter(F),
        AggSpec::sum(2).with_filter(F),
        AggSpec::count(2).with_distinct(),
        AggSpec::count(4).with_distinct().with_filter(F),
        AggSpec::sum(2).with_distinct(),
        AggSpec::avg(2).with_distinct().with_filter(F),
        AggSpec::min(3).with_distinct().with_filter(F),
        AggSpec::max(3).with_distinct(),
        AggSpec::count(3).with_distinct(),
        AggSpec::max(4).with_filter(F),
        AggSpec::min(4).with_distinct(),
        AggSpec::first_value(2).with_filter(F),
        AggSpec::last_value(4).with_filter(F),
        AggSpec::avg(2).with_filter(F),
    ]
}

// ---------------------------------------------------------------------------
// Model
// ---------------------------------------------------------------------------

/// A value of a call's argument, ordered as Flink compares it (doubles by
/// `Double.compareTo`, so equal as `Double.equals`: one NaN, -0.0 ≠ 0.0).
#[derive(Clone, Debug, PartialEq)]
enum V {
    Row,
    I(i64),
    F(f64),
    S(String),
}

impl V {
    fn same(&self, o: &V) -> bool {
        self.cmp(o).is_eq()
    }
    fn cmp(&self, o: &V) -> std::cmp::Ordering {
        let c = |x: f64| if x.is_nan() { f64::NAN } else { x };
        match (self, o) {
            (V::I(a), V::I(b)) => a.cmp(b),
            (V::F(a), V::F(b)) => c(*a).total_cmp(&c(*b)),
            (V::S(a), V::S(b)) => a.as_bytes().cmp(b.as_bytes()),
            _ => std::cmp::Ordering::Equal,
        }
    }
    fn cell(&self) -> Cell {
        match self {
            V::I(v) => Cell::I(*v),
            V::F(v) => f(*v),
            V::S(s) => Cell::S(s.clone()),
            V::Row => Cell::Null,
        }
    }
}

fn arg(r: &In, spec: &AggSpec) -> Option<V> {
    match spec.column {
        None => Some(V::Row),
        Some(2) => r.2.map(V::I),
        Some(3) => r.3.map(V::F),
        Some(4) => r.4.clone().map(V::S),
        Some(c) => panic!("column {c}"),
    }
}

#[derive(Default, Clone)]
struct Group {
    records: i64,
    /// Per call: the non-NULL arguments of the rows that pass its filter, in
    /// arrival order; a retraction removes the first equal one.
    seen: Vec<Vec<V>>,
}

impl Group {
    fn apply(&mut self, r: &In, acc: bool, calls: &[AggSpec]) {
        self.records += if acc { 1 } else { -1 };
        self.seen.resize(calls.len(), Vec::new());
        for (c, seen) in calls.iter().zip(&mut self.seen) {
            if c.filter.is_some() && r.1 != Some(true) {
                continue;
            }
            let Some(v) = arg(r, c) else { continue };
            if acc {
                seen.push(v);
            } else if let Some(p) = seen.iter().position(|x| x.same(&v)) {
                seen.remove(p);
            }
        }
    }

    fn values(&self, calls: &[AggSpec]) -> Vec<Cell> {
        calls
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let mut vals: Vec<V> = self.seen.get(i).cloned().unwrap_or_default();
                if c.distinct {
                    let mut d: Vec<V> = Vec::new();
                    for v in vals {
                        if !d.iter().any(|x| x.same(&v)) {
                            d.push(v);
                        }
                    }
                    vals = d;
                }
                let n = vals.len() as i64;
                let sum = || vals.iter().map(|v| if let V::I(x) = v { *x } else { 0 }).fold(0i64, i64::wrapping_add);
                match c.kind {
                    AggKind::CountStar if c.filter.is_none() => Cell::I(self.records),
                    AggKind::CountStar | AggKind::Count => Cell::I(n),
                    _ if n == 0 => Cell::Null,
                    AggKind::Sum => Cell::I(sum()),
                    AggKind::Avg => Cell::I(sum() / n),
                    AggKind::Min => vals.iter().min_by(|a, b| a.cmp(b)).unwrap().cell(),
                    AggKind::Max => vals.iter().max_by(|a, b| a.cmp(b)).unwrap().cell(),
                    AggKind::FirstValue => vals[0].cell(),
                    AggKind::LastValue => vals[vals.len() - 1].cell(),
                    k => panic!("{k:?} not modelled"),
                }
            })
            .collect()
    }
}

/// GroupAggFunction.processElement with the model's values.
fn model(input: &[(RowKind, In)], calls: &[AggSpec]) -> Vec<(RowKind, Vec<Cell>)> {
    let mut state: BTreeMap<i64, Group> = BTreeMap::new();
    let mut out = Vec::new();
    for (kind, r) in input {
        let key = vec![Cell::I(r.0)];
        let acc = matches!(kind, Insert | UpdateAfter);
        let Some(g) = state.get_mut(&r.0) else {
            if acc {
                let mut g = Group::default();
                g.apply(r, true, calls);
                out.push((Insert, [key, g.values(calls)].concat()));
                state.insert(r.0, g);
            }
            continue;
        };
        let prev = g.values(calls);
        g.apply(r, acc, calls);
        if g.records == 0 {
            out.push((Delete, [key, prev].concat()));
            state.remove(&r.0);
            continue;
        }
        let new = g.values(calls);
        // No double result of these calls can be NaN-vs-NaN unequal except
        // MIN/MAX over NaN.
        if !flink_equal(&prev, &new) {
            out.push((UpdateBefore, [key.clone(), prev].concat()));
            out.push((UpdateAfter, [key, new].concat()));
        }
    }
    out
}

fn new_op(calls: Vec<AggSpec>, retractable: bool) -> GroupAggregate {
    GroupAggregate::new(schema(), vec![0], calls, GroupAggOptions { retractable, ..Default::default() }).unwrap()
}

fn run(op: &mut GroupAggregate, input: &[(RowKind, In)], sizes: &[usize]) -> Vec<(RowKind, Vec<Cell>)> {
    common::in_batches(input, sizes, |rows, kinds| op.process(&batch(rows), kinds).unwrap())
}

fn arb_row() -> impl Strategy<Value = In> {
    (
        0i64..3,
        prop::option::weighted(0.8, any::<bool>()),
        prop::option::weighted(0.8, -3i64..3),
        prop::option::weighted(0.8, prop::sample::select(vec![-1.5, 0.0, -0.0, 2.0, f64::NAN])),
        prop::option::weighted(0.8, prop::sample::select(vec!["x".to_string(), "é y".to_string(), "".to_string()])),
    )
}

/// Inserts (+I / +U) and retractions (-U / -D) of live rows only.
fn arb_changelog(max: usize) -> impl Strategy<Value = Vec<(RowKind, In)>> {
    common::retracting_changelog(arb_row(), max)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn matches_model(input in arb_changelog(120), sizes in prop::collection::vec(1usize..40, 1..5)) {
        let mut op = new_op(calls(), true);
        prop_assert_eq!(run(&mut op, &input, &sizes), model(&input, &calls()));
        if op.num_groups() == 0 {
            prop_assert_eq!(op.size(), 0, "state left after every group was deleted");
        }
    }

    #[test]
    fn append_only_matches_model(
        input in prop::collection::vec(arb_row(), 1..100),
        sizes in prop::collection::vec(1usize..40, 1..5),
    ) {
        let input: Vec<(RowKind, In)> = input.into_iter().map(|r| (Insert, r)).collect();
        let mut op = new_op(calls(), false);
        prop_assert_eq!(run(&mut op, &input, &sizes), model(&input, &calls()));
    }

    #[test]
    fn snapshot_restore_continues_like_uninterrupted(
        input in arb_changelog(80),
        cut in any::<prop::sample::Index>(),
        p in 1i32..4,
    ) {
        let cut = cut.index(input.len() + 1);
        let expected = run(&mut new_op(calls(), true), &input, &[7]);
        let mut first = new_op(calls(), true);
        let mut got = run(&mut first, &input[..cut], &[7]);
        let snap = first.snapshot(KeyGroupRange::all(128)).unwrap();
        let mut ops: Vec<GroupAggregate> = (0..p)
            .map(|i| {
                let mut o = new_op(calls(), true);
                o.restore(&snap, key_group_range_for_operator(128, p, i).unwrap()).unwrap();
                o
            })
            .collect();
        prop_assert_eq!(ops.iter().map(|o| o.size()).sum::<usize>(), first.size());
        for (kind, row) in &input[cut..] {
            let b = batch(std::slice::from_ref(row));
            let (mut kg, mut ch) = ([0], [0]);
            sluice_keyed::key_groups(&b, &[0], 128, p, &mut kg, &mut ch).unwrap();
            let (ob, ok) = ops[ch[0] as usize].process(&b, &[*kind]).unwrap();
            got.extend(changelog(&ob, &ok));
        }
        prop_assert_eq!(got, expected);
    }
}

// ---------------------------------------------------------------------------
// Hand cases
// ---------------------------------------------------------------------------

fn row(k: i64, filter: Option<bool>, v: Option<i64>) -> In {
    (k, filter, v, None, None)
}

fn step(op: &mut GroupAggregate, kind: RowKind, r: In) -> Vec<(RowKind, Vec<Cell>)> {
    let (b, k) = op.process(&batch(&[r]), &[kind]).unwrap();
    changelog(&b, &k)
}

/// COUNT(*) FILTER and COUNT(DISTINCT v): a row failing the filter (false
/// or NULL) changes only COUNT(*); a repeated value changes no distinct
/// count; a value stops counting when its last row is retracted.
#[test]
fn filter_and_distinct_by_hand() {
    let calls = vec![AggSpec::count_star(), AggSpec::count_star().with_filter(F), AggSpec::count(2).with_distinct()];
    let mut op = new_op(calls, true);
    let c = |a, b, d| vec![Cell::I(1), Cell::I(a), Cell::I(b), Cell::I(d)];
    assert_eq!(step(&mut op, Insert, row(1, Some(true), Some(5))), vec![(Insert, c(1, 1, 1))]);
    assert_eq!(
        step(&mut op, Insert, row(1, None, Some(5))),
        vec![(UpdateBefore, c(1, 1, 1)), (UpdateAfter, c(2, 1, 1))]
    );
    assert_eq!(
        step(&mut op, Insert, row(1, Some(false), Some(6))),
        vec![(UpdateBefore, c(2, 1, 1)), (UpdateAfter, c(3, 1, 2))]
    );
    // One of the two 5s leaves: 5 still counts.
    assert_eq!(
        step(&mut op, UpdateBefore, row(1, Some(true), Some(5))),
        vec![(UpdateBefore, c(3, 1, 2)), (UpdateAfter, c(2, 0, 2))]
    );
    assert_eq!(
        step(&mut op, Delete, row(1, None, Some(5))),
        vec![(UpdateBefore, c(2, 0, 2)), (UpdateAfter, c(1, 0, 1))]
    );
    assert_eq!(step(&mut op, Delete, row(1, Some(false), Some(6))), vec![(Delete, c(1, 0, 1))]);
    assert_eq!(op.num_groups(), 0);
    assert_eq!(op.size(), 0);
}

/// `DistinctAggCodeGen` with retraction: retracting a value the group
/// never saw stores count -1 (no inner retract), so the next accumulate of
/// it only brings the count back to 0 (no inner accumulate) and the value
/// is not counted; the one after that counts it.
#[test]
fn a_retraction_of_an_unseen_value_is_remembered_as_flink_does() {
    let calls = vec![AggSpec::count_star(), AggSpec::count(2).with_distinct()];
    let mut op = new_op(calls, true);
    let c = |n, d| vec![Cell::I(1), Cell::I(n), Cell::I(d)];
    step(&mut op, Insert, row(1, None, Some(1)));
    step(&mut op, Insert, row(1, None, Some(1)));
    step(&mut op, Insert, row(1, None, Some(1)));
    assert_eq!(
        step(&mut op, UpdateBefore, row(1, None, Some(9))),
        vec![(UpdateBefore, c(3, 1)), (UpdateAfter, c(2, 1))]
    );
    assert_eq!(
        step(&mut op, UpdateAfter, row(1, None, Some(9))),
        vec![(UpdateBefore, c(2, 1)), (UpdateAfter, c(3, 1))]
    );
    assert_eq!(
        step(&mut op, UpdateAfter, row(1, None, Some(9))),
        vec![(UpdateBefore, c(3, 1)), (UpdateAfter, c(4, 2))]
    );
}

#[test]
fn bad_calls_are_errors() {
    let e = |calls: Vec<AggSpec>| {
        GroupAggregate::new(schema(), vec![0], calls, GroupAggOptions::default()).err().unwrap().to_string()
    };
    assert!(e(vec![AggSpec::sum(2).with_filter(2)]).contains("FILTER column (BOOLEAN)"));
    assert!(e(vec![AggSpec::sum(2).with_filter(9)]).contains("filter column 9 out of range"));
    assert!(e(vec![AggSpec::count_star().with_distinct()]).contains("COUNT(DISTINCT *)"));
    let over = OverAggregate::new(
        schema(),
        vec![0],
        vec![AggSpec::count(2).with_distinct()],
        OverOptions::new(OverTime::ProcTime, OverFrame::RowsUnbounded),
    );
    assert!(over.err().unwrap().to_string().contains("OVER aggregates take no FILTER or DISTINCT"));
}

/// The distinct maps are state: charged to the budget and given back.
#[test]
fn distinct_state_is_accounted() {
    let mut plain = new_op(vec![AggSpec::count(2)], true);
    let mut dist = new_op(vec![AggSpec::count(2).with_distinct()], true);
    let rows: Vec<In> = (0..100).map(|i| row(0, None, Some(i))).collect();
    plain.process(&batch(&rows), &[Insert; 100]).unwrap();
    dist.process(&batch(&rows), &[Insert; 100]).unwrap();
    assert!(dist.size() >= plain.size() + 100 * 8, "{} vs {}", dist.size(), plain.size());
    dist.process(&batch(&rows), &[Delete; 100]).unwrap();
    assert_eq!((dist.num_groups(), dist.size()), (0, 0));
    // The budget refuses new groups against all state (heap growth of a
    // group is not refused): 100 distinct values in group 0 leave no room
    // for group 1 under the size of 50.
    let opts = GroupAggOptions { state_budget: Some(dist_size_for(50)), ..Default::default() };
    let mut small = GroupAggregate::new(schema(), vec![0], vec![AggSpec::count(2).with_distinct()], opts).unwrap();
    small.process(&batch(&rows), &[Insert; 100]).unwrap();
    let err = small.process(&batch(&[row(1, None, Some(1))]), &[Insert]).unwrap_err();
    assert!(err.to_string().contains("budget"), "{err}");
}

/// Bytes of one group holding `n` distinct BIGINTs (an upper estimate).
fn dist_size_for(n: usize) -> usize {
    let mut op = new_op(vec![AggSpec::count(2).with_distinct()], true);
    let rows: Vec<In> = (0..n as i64).map(|i| row(0, None, Some(i))).collect();
    op.process(&batch(&rows), &vec![Insert; n]).unwrap();
    op.size()
}

#[test]
fn values_in_state_allocate_nothing_per_row() {
    let calls = vec![
        AggSpec::count_star().with_filter(F),
        AggSpec::count(2).with_distinct(),
        AggSpec::count(4).with_distinct().with_filter(F),
        AggSpec::sum(2).with_filter(F),
    ];
    let mut op = new_op(calls, false);
    let mk = |n: usize| -> Vec<In> {
        (0..n)
            .map(|i| ((i % 8) as i64, Some(i % 3 == 0), Some((i % 50) as i64), None, Some(format!("v{}", i % 50))))
            .collect()
    };
    let (small, big) = (batch(&mk(64)), batch(&mk(4096)));
    let (k_small, k_big) = (vec![Insert; 64], vec![Insert; 4096]);
    op.process(&big, &k_big).unwrap();
    op.process(&small, &k_small).unwrap();
    let (a_small, _) = count_allocs(|| op.process(&small, &k_small).unwrap());
    let (a_big, _) = count_allocs(|| op.process(&big, &k_big).unwrap());
    assert!(a_big <= a_small + 2, "4096 rows: {a_big} allocations, 64 rows: {a_small}");
}
