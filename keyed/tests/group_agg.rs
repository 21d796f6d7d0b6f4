//! GroupAggregate against a plain reference model (GroupAggFunction's rules
//! written out with owned keys and full recomputation), Flink's changelog
//! contract cases, snapshot/restore and the per-row allocation bar.

mod common;

use std::collections::BTreeMap;
use std::sync::Arc;

use arrow_array::{Int64Array, RecordBatch};
use arrow_schema::{Schema, SchemaRef};
use common::{changelog, f, flink_equal, Cell, TupleRow};
use proptest::prelude::*;
use sluice_kernels::alloc_count::{count_allocs, CountingAlloc};
use sluice_keyed::{
    key_group_range_for_operator, AggSpec, Error, GroupAggOptions, GroupAggregate, KeyGroupRange, RowKind,
};

#[global_allocator]
static A: CountingAlloc = CountingAlloc::system();

use RowKind::*;

/// Input row: (k, g, v, x, s).
type In = (Option<i64>, String, Option<i64>, Option<f64>, Option<String>);

fn schema() -> SchemaRef {
    In::schema(&["k", "g", "v", "x", "s"])
}

fn batch(rows: &[In]) -> RecordBatch {
    common::batch_of(schema(), rows)
}

fn all_aggs() -> Vec<AggSpec> {
    vec![
        AggSpec::count_star(),
        AggSpec::count(2),
        AggSpec::sum(2),
        AggSpec::min(2),
        AggSpec::max(2),
        AggSpec::avg(2),
        AggSpec::first_value(2),
        AggSpec::last_value(2),
        AggSpec::sum(3),
        AggSpec::min(3),
        AggSpec::max(3),
        AggSpec::avg(3),
        AggSpec::count(4),
        AggSpec::min(4),
        AggSpec::max(4),
        AggSpec::first_value(4),
        AggSpec::last_value(4),
        AggSpec::sum0(2),
        AggSpec::sum0(3),
    ]
}

// ---------------------------------------------------------------------------
// Reference model: per key, the live rows and per-column value histories in
// arrival order; aggregates recomputed from scratch on every row.
// ---------------------------------------------------------------------------

#[derive(Default, Clone)]
struct ModelGroup {
    count: i64,
    v: Vec<i64>,    // non-null v values, arrival order
    x: Vec<f64>,    // non-null x values
    s: Vec<String>, // non-null s values
    // Flink's double sums are incremental expressions, so signed zeros depend
    // on history: SUM starts NULL (SumWithRetractAggFunction), AVG at 0
    // (AvgAggFunction).
    xsum: Option<f64>,
    xavg: f64,
    // $SUM0 (Sum0AggFunction): starts at 0.0, never NULL.
    xsum0: f64,
}

fn remove_first<T: PartialEq>(h: &mut Vec<T>, v: &T) {
    if let Some(p) = h.iter().position(|x| x == v) {
        h.remove(p);
    }
}

fn cmp_f(a: &f64, b: &f64) -> std::cmp::Ordering {
    // Double.compareTo
    let c = |x: f64| if x.is_nan() { f64::NAN } else { x };
    c(*a).total_cmp(&c(*b))
}

impl ModelGroup {
    fn values(&self) -> Vec<Cell> {
        let opt_i = |o: Option<i64>| o.map_or(Cell::Null, Cell::I);
        let opt_f = |o: Option<f64>| o.map_or(Cell::Null, f);
        let opt_s = |o: Option<&String>| o.map_or(Cell::Null, |s| Cell::S(s.clone()));
        let n = self.v.len() as i64;
        let sum: i64 = self.v.iter().fold(0i64, |a, b| a.wrapping_add(*b));
        let xn = self.x.len();

        vec![
            Cell::I(self.count),
            Cell::I(n),
            if n == 0 { Cell::Null } else { Cell::I(sum) },
            opt_i(self.v.iter().min().copied()),
            opt_i(self.v.iter().max().copied()),
            if n == 0 { Cell::Null } else { Cell::I(sum / n) },
            opt_i(self.v.first().copied()),
            opt_i(self.v.last().copied()),
            if xn == 0 { Cell::Null } else { self.xsum.map_or(Cell::Null, f) },
            opt_f(self.x.iter().copied().min_by(cmp_f)),
            opt_f(self.x.iter().copied().max_by(cmp_f)),
            if xn == 0 { Cell::Null } else { f(self.xavg / xn as f64) },
            Cell::I(self.s.len() as i64),
            opt_s(self.s.iter().min()),
            opt_s(self.s.iter().max()),
            opt_s(self.s.first()),
            opt_s(self.s.last()),
            Cell::I(sum),
            f(self.xsum0),
        ]
    }

    fn apply(&mut self, r: &In, acc: bool) {
        if acc {
            self.count += 1;
            self.v.extend(r.2);
            self.x.extend(r.3);
            if let Some(x) = r.3 {
                self.xsum = Some(self.xsum.map_or(x, |s| s + x));
                self.xavg += x;
                self.xsum0 += x;
            }
            self.s.extend(r.4.clone());
        } else {
            self.count -= 1;
            if let Some(v) = r.2 {
                remove_first(&mut self.v, &v);
            }
            if let Some(x) = r.3 {
                self.xsum = Some(self.xsum.map_or(0.0 - x, |s| s - x));
                self.xavg -= x;
                self.xsum0 -= x;
                if let Some(p) = self.x.iter().position(|y| y.to_bits() == x.to_bits()) {
                    self.x.remove(p);
                }
            }
            if let Some(s) = &r.4 {
                remove_first(&mut self.s, s);
            }
        }
    }
}

fn key_cells(r: &In) -> Vec<Cell> {
    vec![r.0.map_or(Cell::Null, Cell::I), Cell::S(r.1.clone())]
}

/// GroupAggFunction.processElement, written out plainly.
fn model(input: &[(RowKind, In)]) -> Vec<(RowKind, Vec<Cell>)> {
    model_of(input, &(0..all_aggs().len()).collect::<Vec<_>>())
}

/// [`model`] for the operator computing only the aggregates `aggs` (indices
/// into [`all_aggs`]): values projected before "unchanged" is decided.
fn model_of(input: &[(RowKind, In)], aggs: &[usize]) -> Vec<(RowKind, Vec<Cell>)> {
    let proj = |g: &ModelGroup| -> Vec<Cell> {
        let v = g.values();
        aggs.iter().map(|&i| v[i].clone()).collect()
    };
    let mut state: BTreeMap<Vec<Cell>, ModelGroup> = BTreeMap::new();
    let mut out = Vec::new();
    for (kind, r) in input {
        let key = key_cells(r);
        let acc = matches!(kind, Insert | UpdateAfter);
        let Some(g) = state.get_mut(&key) else {
            if acc {
                let mut g = ModelGroup::default();
                g.apply(r, true);
                out.push((Insert, [key.clone(), proj(&g)].concat()));
                state.insert(key, g);
            }
            continue;
        };
        let prev = proj(g);
        g.apply(r, acc);
        if g.count == 0 {
            out.push((Delete, [key.clone(), prev].concat()));
            state.remove(&key);
            continue;
        }
        let new = proj(g);
        if !flink_equal(&prev, &new) {
            out.push((UpdateBefore, [key.clone(), prev].concat()));
            out.push((UpdateAfter, [key, new].concat()));
        }
    }
    out
}

fn run(op: &mut GroupAggregate, input: &[(RowKind, In)], batch_sizes: &[usize]) -> Vec<(RowKind, Vec<Cell>)> {
    common::in_batches(input, batch_sizes, |rows, kinds| op.process(&batch(rows), kinds).unwrap())
}

fn new_op() -> GroupAggregate {
    GroupAggregate::new(schema(), vec![0, 1], all_aggs(), GroupAggOptions::default()).unwrap()
}

// ---------------------------------------------------------------------------
// Random valid changelogs
// ---------------------------------------------------------------------------

fn arb_row() -> impl Strategy<Value = In> {
    (
        prop::option::weighted(0.9, 0i64..4),
        prop::sample::select(vec!["a".to_string(), "".to_string(), "a long group name".to_string()]),
        prop::option::weighted(0.8, -5i64..5),
        prop::option::weighted(0.8, prop::sample::select(vec![-1.5, 0.0, -0.0, 2.0, 7.25])),
        prop::option::weighted(
            0.8,
            prop::sample::select(vec!["x".to_string(), "yy".to_string(), "é long value!".to_string(), "".to_string()]),
        ),
    )
}

/// Steps: insert a fresh row (as +I or +U), or retract the live row at an
/// index (as -U or -D). Only previously inserted rows are retracted.
fn arb_changelog() -> impl Strategy<Value = Vec<(RowKind, In)>> {
    common::retracting_changelog(arb_row(), 120)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn matches_model(input in arb_changelog(), sizes in prop::collection::vec(1usize..40, 1..5)) {
        let mut op = new_op();
        prop_assert_eq!(run(&mut op, &input, &sizes), model(&input));
    }

    #[test]
    fn snapshot_restore_continues_like_uninterrupted(
        input in arb_changelog(),
        cut in any::<prop::sample::Index>(),
        p in 1i32..4,
    ) {
        let cut = cut.index(input.len() + 1);
        let mut whole = new_op();
        let expected = run(&mut whole, &input, &[7]);

        let mut first = new_op();
        let mut got = run(&mut first, &input[..cut], &[7]);
        let snap = first.snapshot(KeyGroupRange::all(128)).unwrap();
        // Restore per key-group range into `p` operators; route the rest of
        // the stream by key group and merge the outputs back in input order.
        let ranges: Vec<KeyGroupRange> = (0..p).map(|i| key_group_range_for_operator(128, p, i).unwrap()).collect();
        let mut ops: Vec<GroupAggregate> = ranges.iter().map(|r| {
            let mut o = new_op();
            o.restore(&snap, *r).unwrap();
            o
        }).collect();
        prop_assert_eq!(ops.iter().map(|o| o.num_groups()).sum::<usize>(), first.num_groups());
        for (kind, row) in &input[cut..] {
            let b = batch(std::slice::from_ref(row));
            let (mut kg, mut ch) = ([0], [0]);
            sluice_keyed::key_groups(&b, &[0, 1], 128, p, &mut kg, &mut ch).unwrap();
            let (ob, ok) = ops[ch[0] as usize].process(&b, &[*kind]).unwrap();
            got.extend(changelog(&ob, &ok));
        }
        prop_assert_eq!(got, expected);
    }
}

/// Insert-only changelogs (+I / +U rows), for the append-only accumulators.
fn arb_inserts() -> impl Strategy<Value = Vec<(RowKind, In)>> {
    prop::collection::vec((any::<bool>(), arb_row()), 1..160)
        .prop_map(|v| v.into_iter().map(|(flavour, r)| (if flavour { Insert } else { UpdateAfter }, r)).collect())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// The append-only MIN/MAX/FIRST/LAST (current value only) give the same
    /// changelog as the model on inputs without retractions, in batches where
    /// a key repeats many times.
    #[test]
    fn append_only_matches_model(input in arb_inserts(), sizes in prop::collection::vec(1usize..80, 1..5)) {
        let opts = GroupAggOptions { retractable: false, ..Default::default() };
        let mut op = GroupAggregate::new(schema(), vec![0, 1], all_aggs(), opts).unwrap();
        prop_assert_eq!(run(&mut op, &input, &sizes), model(&input));
    }

    /// Without update-before, the model's changelog minus its -U rows.
    #[test]
    fn without_update_before_matches_model(input in arb_changelog(), sizes in prop::collection::vec(1usize..40, 1..5)) {
        let opts = GroupAggOptions { generate_update_before: false, ..Default::default() };
        let mut op = GroupAggregate::new(schema(), vec![0, 1], all_aggs(), opts).unwrap();
        let want: Vec<_> = model(&input).into_iter().filter(|(k, _)| *k != UpdateBefore).collect();
        prop_assert_eq!(run(&mut op, &input, &sizes), want);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Without COUNT(*) many updates leave every value unchanged and must
    /// emit nothing; random subsets of the aggregates, both modes of -U.
    #[test]
    fn unchanged_updates_emit_nothing(
        input in arb_changelog(),
        sizes in prop::collection::vec(1usize..40, 1..5),
        pick in prop::collection::vec(1usize..19, 1..5),
        gen_ub in any::<bool>(),
    ) {
        let all = all_aggs();
        let mut idx = pick.clone();
        idx.sort_unstable();
        idx.dedup();
        let aggs: Vec<AggSpec> = idx.iter().map(|&i| all[i].clone()).collect();
        let opts = GroupAggOptions { generate_update_before: gen_ub, ..Default::default() };
        let mut op = GroupAggregate::new(schema(), vec![0, 1], aggs, opts).unwrap();
        let want: Vec<_> = model_of(&input, &idx).into_iter().filter(|(k, _)| gen_ub || *k != UpdateBefore).collect();
        prop_assert_eq!(run(&mut op, &input, &sizes), want);
    }
}

// ---------------------------------------------------------------------------
// Flink's contract, case by case (docs/flink-semantics.md §7.1; GroupAggFunction).
// ---------------------------------------------------------------------------

fn r(k: i64, v: Option<i64>) -> In {
    (Some(k), "g".into(), v, None, None)
}

#[test]
fn flink_contract_cases() {
    let mut op = GroupAggregate::new(
        schema(),
        vec![0],
        vec![AggSpec::count_star(), AggSpec::sum(2), AggSpec::max(2)],
        GroupAggOptions::default(),
    )
    .unwrap();
    let mut step = |kinds: &[RowKind], rows: &[In]| {
        let (b, k) = op.process(&batch(rows), kinds).unwrap();
        changelog(&b, &k)
    };
    let row = |k: i64, c: i64, s: Option<i64>, m: Option<i64>| {
        vec![Cell::I(k), Cell::I(c), s.map_or(Cell::Null, Cell::I), m.map_or(Cell::Null, Cell::I)]
    };
    // Retraction of an unknown key: dropped.
    assert_eq!(step(&[Delete], &[r(1, Some(5))]), vec![]);
    // First row: +I.
    assert_eq!(step(&[Insert], &[r(1, Some(5))]), vec![(Insert, row(1, 1, Some(5), Some(5)))]);
    // Change: -U prev, +U new.
    assert_eq!(
        step(&[Insert], &[r(1, Some(7))]),
        vec![(UpdateBefore, row(1, 1, Some(5), Some(5))), (UpdateAfter, row(1, 2, Some(12), Some(7)))]
    );
    // MAX retracts to the remaining value (multiset).
    assert_eq!(
        step(&[UpdateBefore], &[r(1, Some(7))]),
        vec![(UpdateBefore, row(1, 2, Some(12), Some(7))), (UpdateAfter, row(1, 1, Some(5), Some(5)))]
    );
    // Count back to zero: -D with the previous values.
    assert_eq!(step(&[Delete], &[r(1, Some(5))]), vec![(Delete, row(1, 1, Some(5), Some(5)))]);
    // The key starts over with +I.
    assert_eq!(step(&[UpdateAfter], &[r(1, None)]), vec![(Insert, row(1, 1, None, None))]);

    // Unchanged aggregate values emit nothing: COUNT(v) only, v NULL.
    let mut op = GroupAggregate::new(schema(), vec![0], vec![AggSpec::count(2)], GroupAggOptions::default()).unwrap();
    let (b, k) = op.process(&batch(&[r(2, None), r(2, None), r(2, Some(1))]), &[Insert, Insert, Insert]).unwrap();
    assert_eq!(
        changelog(&b, &k),
        vec![
            (Insert, vec![Cell::I(2), Cell::I(0)]),
            (UpdateBefore, vec![Cell::I(2), Cell::I(0)]),
            (UpdateAfter, vec![Cell::I(2), Cell::I(1)]),
        ]
    );
}

#[test]
fn without_update_before_only_plus_u() {
    let opts = GroupAggOptions { generate_update_before: false, ..Default::default() };
    let mut op = GroupAggregate::new(schema(), vec![0], vec![AggSpec::max(4)], opts).unwrap();
    let rows = [
        (Some(1), "g".to_string(), None, None, Some("b".to_string())),
        (Some(1), "g".to_string(), None, None, Some("a long string value".to_string())),
        (Some(1), "g".to_string(), None, None, Some("c".to_string())),
    ];
    let (b, k) = op.process(&batch(&rows), &[Insert, Insert, Insert]).unwrap();
    assert_eq!(
        changelog(&b, &k),
        vec![(Insert, vec![Cell::I(1), Cell::S("b".into())]), (UpdateAfter, vec![Cell::I(1), Cell::S("c".into())]),]
    );
}

#[test]
fn append_only_mode_rejects_retraction() {
    let opts = GroupAggOptions { retractable: false, ..Default::default() };
    let mut op = GroupAggregate::new(schema(), vec![0], vec![AggSpec::min(2)], opts).unwrap();
    let e = op.process(&batch(&[r(1, Some(1))]), &[Delete]).unwrap_err();
    assert!(matches!(e, Error::UnexpectedRowKind { row: 0, .. }), "{e}");
}

#[test]
fn budget_is_an_error_not_an_abort() {
    let opts = GroupAggOptions { state_budget: Some(600), ..Default::default() };
    let mut op = GroupAggregate::new(schema(), vec![0], vec![AggSpec::sum(2)], opts).unwrap();
    let rows: Vec<In> = (0..100).map(|k| r(k, Some(1))).collect();
    let e = op.process(&batch(&rows), &[Insert; 100]).unwrap_err();
    assert!(matches!(e, Error::StateBudgetExceeded { .. }), "{e}");
    assert!(op.size() <= 600 && op.size() > 0);
    // The operator stays usable: keys already in state keep working and the
    // failed batch's partial output does not leak into the next one.
    let groups = op.num_groups();
    let (b, k) = op.process(&batch(&[r(0, Some(5))]), &[Insert]).unwrap();
    assert_eq!(op.num_groups(), groups);
    assert_eq!(
        changelog(&b, &k),
        vec![(UpdateBefore, vec![Cell::I(0), Cell::I(1)]), (UpdateAfter, vec![Cell::I(0), Cell::I(6)])]
    );
}

/// Found by the `operator_spec` fuzz target: an existing group's heap (here
/// MAX's retraction multiset of strings) may grow past the budget, which
/// `process` does not refuse; `restore` then used to refuse the snapshot the
/// operator itself wrote. Restore now checks the groups as `process` does,
/// so that snapshot restores under the same budget, while a snapshot with
/// more groups than the budget holds is still refused.
#[test]
fn a_snapshot_over_budget_through_heap_growth_restores_under_the_same_budget() {
    let budget = 400;
    let opts = || GroupAggOptions { state_budget: Some(budget), ..Default::default() };
    let mut op = GroupAggregate::new(schema(), vec![0], vec![AggSpec::max(4)], opts()).unwrap();
    let rows: Vec<In> =
        (0..20).map(|i| (Some(1), "g".into(), None, None, Some(format!("{i:03}{}", "x".repeat(100))))).collect();
    op.process(&batch(&rows), &[Insert; 20]).unwrap();
    assert!(op.size() > budget, "the heap did not outgrow the budget ({} bytes)", op.size());
    let snap = op.snapshot(KeyGroupRange::all(128)).unwrap();
    let mut again = GroupAggregate::new(schema(), vec![0], vec![AggSpec::max(4)], opts()).unwrap();
    again.restore(&snap, KeyGroupRange::all(128)).unwrap();
    assert_eq!((again.num_groups(), again.size()), (op.num_groups(), op.size()));
    // It continues like the original: retracting the largest value.
    let last = rows[19].clone();
    let (b1, k1) = op.process(&batch(std::slice::from_ref(&last)), &[Delete]).unwrap();
    let (b2, k2) = again.process(&batch(&[last]), &[Delete]).unwrap();
    assert_eq!(changelog(&b1, &k1), changelog(&b2, &k2));

    // Many groups do not fit: refused, state untouched.
    let mut big = GroupAggregate::new(schema(), vec![0], vec![AggSpec::max(4)], GroupAggOptions::default()).unwrap();
    let rows: Vec<In> = (0..50).map(|k| (Some(k), "g".into(), None, None, Some("v".into()))).collect();
    big.process(&batch(&rows), &[Insert; 50]).unwrap();
    let snap = big.snapshot(KeyGroupRange::all(128)).unwrap();
    let mut small = GroupAggregate::new(schema(), vec![0], vec![AggSpec::max(4)], opts()).unwrap();
    assert!(matches!(small.restore(&snap, KeyGroupRange::all(128)), Err(Error::StateBudgetExceeded { .. })));
    assert_eq!((small.num_groups(), small.size()), (0, 0));
}

#[test]
fn corrupt_snapshots_are_errors() {
    let mut op = new_op();
    let rows: Vec<In> = (0..50).map(|k| (Some(k % 7), "g".into(), Some(k), Some(1.0), Some(format!("s{k}")))).collect();
    op.process(&batch(&rows), &[Insert; 50]).unwrap();
    let snap = op.snapshot(KeyGroupRange::all(128)).unwrap();
    for cut in 0..snap.len() {
        let mut o = new_op();
        assert!(
            matches!(o.restore(&snap[..cut], KeyGroupRange::all(128)), Err(Error::CorruptSnapshot { .. })),
            "cut {cut}"
        );
        assert_eq!(o.num_groups(), 0);
    }
    for i in (0..snap.len()).step_by(3) {
        let mut bad = snap.clone();
        bad[i] ^= 0x41;
        let mut o = new_op();
        assert!(o.restore(&bad, KeyGroupRange::all(128)).is_err(), "flip at {i}");
    }
    // Another operator shape refuses it too.
    let mut other =
        GroupAggregate::new(schema(), vec![0], vec![AggSpec::count_star()], GroupAggOptions::default()).unwrap();
    assert!(matches!(other.restore(&snap, KeyGroupRange::all(128)), Err(Error::CorruptSnapshot { .. })));
    let mut ok = new_op();
    ok.restore(&snap, KeyGroupRange::all(128)).unwrap();
    assert_eq!(ok.num_groups(), op.num_groups());
    assert_eq!(ok.size(), op.size());
}

#[test]
fn keys_in_state_allocate_nothing_per_row() {
    let aggs = vec![
        AggSpec::count_star(),
        AggSpec::sum(2),
        AggSpec::min(2),
        AggSpec::max(2),
        AggSpec::avg(3),
        AggSpec::count(4),
    ];
    let opts = GroupAggOptions { retractable: false, ..Default::default() };
    let mut op = GroupAggregate::new(schema(), vec![0, 1], aggs, opts).unwrap();
    let mk = |n: usize| -> Vec<In> {
        (0..n)
            .map(|i| (Some((i % 64) as i64), "group name > 7 bytes".into(), Some(i as i64), Some(i as f64), None))
            .collect()
    };
    let small = batch(&mk(64));
    let big = batch(&mk(4096));
    let k_small = vec![Insert; 64];
    let k_big = vec![Insert; 4096];
    // Warm up: every key in state, the operator's reusable buffers grown.
    op.process(&big, &k_big).unwrap();
    op.process(&big, &k_big).unwrap();
    op.process(&small, &k_small).unwrap();
    let (a_small, _) = count_allocs(|| op.process(&small, &k_small).unwrap());
    op.process(&big, &k_big).unwrap();
    let (a_big, _) = count_allocs(|| op.process(&big, &k_big).unwrap());
    // Per-batch allocations only (output arrays, schema-sized vectors): the
    // count does not grow with the number of rows.
    assert!(a_big <= a_small + 2, "4096 rows: {a_big} allocations, 64 rows: {a_small}");
    assert!(a_big < 64, "{a_big} allocations for a 4096-row batch");
}

/// Found by the `operator_spec` fuzz target: `group_agg keys= aggs=count(*)`
/// on a schema with no fields, fed a batch of one row (no columns, row count
/// 1). The key encoder took the row count from the first column, found none,
/// encoded 0 keys for 1 row kind and panicked indexing the key block. A
/// global aggregate over zero-field rows counts them.
#[test]
fn global_aggregate_of_a_zero_column_batch() {
    let schema: SchemaRef = Arc::new(Schema::empty());
    let mut op =
        GroupAggregate::new(schema.clone(), vec![], vec![AggSpec::count_star()], GroupAggOptions::default()).unwrap();
    let opts = arrow_array::RecordBatchOptions::new().with_row_count(Some(3));
    let batch = RecordBatch::try_new_with_options(schema, vec![], &opts).unwrap();
    let (out, kinds) = op.process(&batch, &[Insert, Insert, Insert]).unwrap();
    assert_eq!(op.num_groups(), 1);
    assert_eq!(out.num_rows(), kinds.len());
    let counts = out.column(0).as_any().downcast_ref::<Int64Array>().unwrap();
    assert_eq!(counts.value(counts.len() - 1), 3, "COUNT(*) after three rows");
}
