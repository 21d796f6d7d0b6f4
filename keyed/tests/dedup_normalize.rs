//! Deduplicate and ChangelogNormalize against plain reference models, cases
//! transcribed from Flink's own operator tests, snapshot/restore across
//! key-group ranges, and the allocation bars.

mod common;

use std::collections::BTreeMap;
use std::sync::Arc;

use arrow_array::{Int64Array, RecordBatch};
use arrow_schema::{DataType, Field, Schema};
use common::{changelog, kvt_schema as schema, Cell, KeyedOp as Op, TupleRow};
use proptest::prelude::*;
use sluice_kernels::alloc_count::{count_allocs, CountingAlloc};
use sluice_keyed::{
    key_group_range_for_operator, key_groups, ChangelogNormalize, DedupOptions, DedupOrder, Deduplicate, Error, Keep,
    KeyGroupRange, NormalizeOptions, RowKind,
};

#[global_allocator]
static A: CountingAlloc = CountingAlloc::system();

use RowKind::*;

/// (key, value, time)
type In = (String, Option<i64>, i64);

fn batch(rows: &[In]) -> RecordBatch {
    common::batch_of(schema(), rows)
}

fn rec(kind: RowKind, k: &str, v: i64, t: i64) -> (RowKind, Vec<Cell>) {
    (kind, (k.to_string(), Some(v), t).cells())
}

fn run(op: &mut dyn Op, input: &[(RowKind, In)], sizes: &[usize]) -> Vec<(RowKind, Vec<Cell>)> {
    common::in_batches(input, sizes, |rows, kinds| op.step(&batch(rows), kinds).unwrap())
}

/// Runs `phase1` (input, batch size) through an operator of `make`,
/// snapshots it, restores the snapshot into a fresh one and runs `phase2`
/// there: the changelog of both phases.
fn run_across_restore<O: Op>(
    make: impl Fn() -> O,
    phase1: (&[(RowKind, In)], usize),
    phase2: (&[(RowKind, In)], usize),
) -> Vec<(RowKind, Vec<Cell>)> {
    let mut op = make();
    let mut got = run(&mut op, phase1.0, &[phase1.1]);
    let snap = op.snap(KeyGroupRange::all(128));
    let mut op = make();
    op.rest(&snap, KeyGroupRange::all(128)).unwrap();
    got.extend(run(&mut op, phase2.0, &[phase2.1]));
    got
}

fn dedup(keep: Keep, order: DedupOrder, ub: bool, ins: bool) -> Deduplicate {
    let mut o = DedupOptions::new(keep, order);
    o.generate_update_before = ub;
    o.generate_insert = ins;
    Deduplicate::new(schema(), vec![0], o).unwrap()
}

const ROWTIME: DedupOrder = DedupOrder::RowTime { column: 2 };

// ---------------------------------------------------------------------------
// Flink's operator tests, transcribed (the rows are (key, value, time); the
// TTL-expiry phases of those tests are left out: sluice has no state TTL).
// ---------------------------------------------------------------------------

fn ins(rows: &[(&str, i64, i64)]) -> Vec<(RowKind, In)> {
    rows.iter().map(|(k, v, t)| (Insert, (k.to_string(), Some(*v), *t))).collect()
}

/// ProcTimeDeduplicateKeepLastRowFunctionTest: testWithoutGenerateUpdateBefore,
/// testWithoutGenerateUpdateBeforeAndInsert, testWithStateTtlDisabled (key = the
/// BIGINT field; here column 0 holds the key).
#[test]
fn flink_proctime_keep_last() {
    let input = ins(&[("1", 12, 0), ("2", 11, 0), ("1", 13, 0)]);
    let mut op = dedup(Keep::Last, DedupOrder::ProcTime, false, true);
    assert_eq!(
        run(&mut op, &input, &[1]),
        vec![rec(Insert, "1", 12, 0), rec(Insert, "2", 11, 0), rec(UpdateAfter, "1", 13, 0)]
    );
    let mut op = dedup(Keep::Last, DedupOrder::ProcTime, false, false);
    assert_eq!(
        run(&mut op, &input, &[3]),
        vec![rec(UpdateAfter, "1", 12, 0), rec(UpdateAfter, "2", 11, 0), rec(UpdateAfter, "1", 13, 0)]
    );
    let same = ins(&[("1", 12, 0), ("2", 11, 0), ("1", 12, 0)]);
    let mut op = dedup(Keep::Last, DedupOrder::ProcTime, true, true);
    assert_eq!(run(&mut op, &same, &[2]), vec![rec(Insert, "1", 12, 0), rec(Insert, "2", 11, 0)]);
}

/// processLastRowOnProcTime stores the row, then marks it `+U` when it
/// emits it; the RecordEqualiser compares RowKinds. On the heap backend the
/// stored object keeps that `+U`, so an equal row right after an update is
/// not "the same" (Flink emits `-U`/`+U`); RocksDB serialised the row as `+I`
/// before the mark, so it is dropped. Before any update the kept row is `+I`
/// on both, and an equal row is dropped.
#[test]
fn proctime_keep_last_equal_row_after_update_follows_the_backend() {
    use sluice_keyed::StateBackendKind;
    let input = ins(&[("1", 12, 0), ("1", 12, 0), ("1", 13, 0), ("1", 13, 0)]);
    let mut op = dedup(Keep::Last, DedupOrder::ProcTime, true, true);
    assert_eq!(
        run(&mut op, &input, &[1]),
        vec![
            rec(Insert, "1", 12, 0),
            rec(UpdateBefore, "1", 12, 0),
            rec(UpdateAfter, "1", 13, 0),
            rec(UpdateBefore, "1", 13, 0),
            rec(UpdateAfter, "1", 13, 0),
        ]
    );
    let mut o = DedupOptions::new(Keep::Last, DedupOrder::ProcTime);
    o.backend = StateBackendKind::RocksDb;
    let mut op = Deduplicate::new(schema(), vec![0], o).unwrap();
    assert_eq!(
        run(&mut op, &input, &[1]),
        vec![rec(Insert, "1", 12, 0), rec(UpdateBefore, "1", 12, 0), rec(UpdateAfter, "1", 13, 0)]
    );
}

/// RowTimeDeduplicateFunctionTest.testRowTimeDeduplicateKeepLastRow, phases 1–2
/// (with the snapshot/restore between them), all four flag combinations.
#[test]
fn flink_rowtime_keep_last() {
    let p1 = ins(&[("key1", 13, 99), ("key1", 12, 100), ("key2", 11, 101)]);
    let p2 = ins(&[("key1", 12, 300), ("key2", 11, 301), ("key3", 5, 299)]);
    for (ub, insf) in [(true, true), (true, false), (false, true), (false, false)] {
        let got = run_across_restore(|| dedup(Keep::Last, ROWTIME, ub, insf), (&p1, 2), (&p2, 3));
        let first = if ub || insf { Insert } else { UpdateAfter };
        let mut want = vec![rec(first, "key1", 13, 99)];
        if ub {
            want.push(rec(UpdateBefore, "key1", 13, 99));
        }
        want.push(rec(UpdateAfter, "key1", 12, 100));
        want.push(rec(first, "key2", 11, 101));
        if ub {
            want.push(rec(UpdateBefore, "key1", 12, 100));
        }
        want.push(rec(UpdateAfter, "key1", 12, 300));
        if ub {
            want.push(rec(UpdateBefore, "key2", 11, 101));
        }
        want.push(rec(UpdateAfter, "key2", 11, 301));
        want.push(rec(first, "key3", 5, 299));
        assert_eq!(got, want, "ub={ub} insert={insf}");
    }
}

/// RowTimeDeduplicateFunctionTest.testRowTimeDeduplicateKeepFirstRow, phases
/// 1–2: a tie (same time) keeps the first row; later rows are ignored.
#[test]
fn flink_rowtime_keep_first() {
    let p1 = ins(&[("key1", 13, 99), ("key1", 13, 99), ("key1", 12, 100), ("key2", 11, 101)]);
    let p2 = ins(&[("key1", 12, 300), ("key2", 11, 301), ("key3", 5, 299)]);
    for (ub, insf) in [(true, true), (true, false), (false, true), (false, false)] {
        let got = run_across_restore(|| dedup(Keep::First, ROWTIME, ub, insf), (&p1, 4), (&p2, 1));
        let first = if ub || insf { Insert } else { UpdateAfter };
        assert_eq!(got, vec![rec(first, "key1", 13, 99), rec(first, "key2", 11, 101), rec(first, "key3", 5, 299)]);
    }
    // An out-of-order earlier row replaces the kept one (isDuplicate: cur < prev).
    let mut op = dedup(Keep::First, ROWTIME, true, true);
    let got = run(&mut op, &ins(&[("a", 1, 50), ("a", 2, 40)]), &[2]);
    assert_eq!(got, vec![rec(Insert, "a", 1, 50), rec(UpdateBefore, "a", 1, 50), rec(UpdateAfter, "a", 2, 40)]);
}

/// ProcTimeDeduplicateKeepFirstRowFunctionTest.testWithoutStateTtl shape:
/// only the first row of each key, as +I.
#[test]
fn flink_proctime_keep_first() {
    let mut op = dedup(Keep::First, DedupOrder::ProcTime, true, true);
    let got = run(&mut op, &ins(&[("1", 12, 0), ("2", 11, 0), ("1", 13, 0)]), &[3]);
    assert_eq!(got, vec![rec(Insert, "1", 12, 0), rec(Insert, "2", 11, 0)]);
    let e = op.process(&batch(&[("1".into(), None, 0)]), &[Delete]).unwrap_err();
    assert!(matches!(e, Error::UnexpectedRowKind { .. }));
}

/// DeduplicateFunctionHelper.processLastRowOnChangelog (ChangelogNormalize),
/// as Flink 2.x runs it (an incoming `+U` compared as `+I`,
/// `areRowsWithSameContent`) and as Flink 1.20 does (RowKinds compared, the
/// stored row `+I`: an equal `+U` is an update).
#[test]
fn normalize_contract() {
    let input = vec![
        (Delete, ("a".to_string(), None, 0)),         // absent key: nothing
        (UpdateAfter, ("a".to_string(), Some(1), 0)), // first: +I
        (Insert, ("a".to_string(), Some(1), 0)),      // identical +I: nothing
        (UpdateAfter, ("a".to_string(), Some(1), 0)), // identical +U: 2.x nothing; 1.20 -U prev, +U cur
        (UpdateAfter, ("a".to_string(), Some(2), 0)), // -U prev, +U cur
        (Delete, ("a".to_string(), None, 9)),         // key-only delete: -D with the stored row
        (UpdateBefore, ("a".to_string(), None, 9)),   // already gone: nothing
        (Insert, ("a".to_string(), Some(3), 0)),      // starts over: +I
    ];
    let mut flink2 = ChangelogNormalize::new(schema(), vec![0], NormalizeOptions::default()).unwrap();
    let tail =
        [rec(UpdateBefore, "a", 1, 0), rec(UpdateAfter, "a", 2, 0), rec(Delete, "a", 2, 0), rec(Insert, "a", 3, 0)];
    let mut want = vec![rec(Insert, "a", 1, 0)];
    want.extend(tail.iter().cloned());
    assert_eq!(run(&mut flink2, &input, &[3]), want);

    let opts = NormalizeOptions { drop_equal_update_after: false, ..Default::default() };
    let mut flink120 = ChangelogNormalize::new(schema(), vec![0], opts).unwrap();
    let mut want = vec![rec(Insert, "a", 1, 0), rec(UpdateBefore, "a", 1, 0), rec(UpdateAfter, "a", 1, 0)];
    want.extend(tail.iter().cloned());
    assert_eq!(run(&mut flink120, &input, &[3]), want);
}

// ---------------------------------------------------------------------------
// Reference models
// ---------------------------------------------------------------------------

fn model_normalize(input: &[(RowKind, In)], ub: bool, drop_equal_ua: bool) -> Vec<(RowKind, Vec<Cell>)> {
    let mut state: BTreeMap<String, In> = BTreeMap::new();
    let mut out = Vec::new();
    for (kind, r) in input {
        if matches!(kind, Insert | UpdateAfter) {
            match state.get(&r.0) {
                None => out.push((Insert, r.cells())),
                // Flink 1.20's RecordEqualiser compares RowKinds (the stored
                // row is +I); 2.x compares a +U as a +I.
                Some(p) if p == r && (*kind == Insert || drop_equal_ua) => continue,
                Some(p) => {
                    if ub {
                        out.push((UpdateBefore, p.cells()));
                    }
                    out.push((UpdateAfter, r.cells()));
                }
            }
            state.insert(r.0.clone(), r.clone());
        } else if let Some(p) = state.remove(&r.0) {
            out.push((Delete, p.cells()));
        }
    }
    out
}

fn model_dedup(
    input: &[(RowKind, In)],
    keep: Keep,
    order: DedupOrder,
    ub: bool,
    insf: bool,
) -> Vec<(RowKind, Vec<Cell>)> {
    // The kept row and whether it was last emitted as +U (the RowKind
    // Flink's heap backend leaves on the stored row object).
    let mut state: BTreeMap<String, (In, bool)> = BTreeMap::new();
    let mut out = Vec::new();
    // processFirstRowOnProcTime emits the input row (+I) whatever the flags.
    let first_kind =
        if ub || insf || (keep, order) == (Keep::First, DedupOrder::ProcTime) { Insert } else { UpdateAfter };
    for (_, r) in input {
        if keep == Keep::Last && order == DedupOrder::ProcTime && !ub && !insf {
            out.push((UpdateAfter, r.cells()));
            continue;
        }
        let Some((p, updated)) = state.get(&r.0).cloned() else {
            out.push((first_kind, r.cells()));
            state.insert(r.0.clone(), (r.clone(), false));
            continue;
        };
        let replace = match (keep, order) {
            (Keep::First, DedupOrder::ProcTime) => false,
            // Equal means same fields and same RowKind (+I).
            (Keep::Last, DedupOrder::ProcTime) => p != *r || updated,
            (Keep::Last, _) => p.2 <= r.2,
            (Keep::First, _) => r.2 < p.2,
        };
        if replace {
            if ub {
                out.push((UpdateBefore, p.cells()));
            }
            out.push((UpdateAfter, r.cells()));
            state.insert(r.0.clone(), (r.clone(), true));
        } else if (keep, order) == (Keep::Last, DedupOrder::ProcTime) {
            state.insert(r.0.clone(), (r.clone(), false));
        }
    }
    out
}

fn arb_row() -> impl Strategy<Value = In> {
    (
        prop::sample::select(vec!["a".to_string(), "b".into(), "".into(), "a key longer than 7".into(), "é".into()]),
        prop::option::weighted(0.8, 0i64..3),
        0i64..6,
    )
}

fn arb_upserts() -> impl Strategy<Value = Vec<(RowKind, In)>> {
    prop::collection::vec((0u8..4, arb_row()), 1..100)
        .prop_map(|v| v.into_iter().map(|(k, r)| (RowKind::from_byte(k).unwrap(), r)).collect())
}

fn arb_inserts() -> impl Strategy<Value = Vec<(RowKind, In)>> {
    prop::collection::vec(arb_row(), 1..100).prop_map(|v| v.into_iter().map(|r| (Insert, r)).collect())
}

fn variants() -> Vec<(Keep, DedupOrder)> {
    vec![
        (Keep::First, DedupOrder::ProcTime),
        (Keep::Last, DedupOrder::ProcTime),
        (Keep::First, ROWTIME),
        (Keep::Last, ROWTIME),
    ]
}

/// Runs `input[..cut]` on one operator, snapshots, restores per key-group
/// range into `p` operators, routes the rest by Flink channel.
fn run_with_rescale(
    mk: &dyn Fn() -> Box<dyn Op>,
    input: &[(RowKind, In)],
    cut: usize,
    p: i32,
) -> Vec<(RowKind, Vec<Cell>)> {
    let mut first = mk();
    let mut got = run(first.as_mut(), &input[..cut], &[5]);
    let snap = first.snap(KeyGroupRange::all(128));
    let mut ops: Vec<Box<dyn Op>> = (0..p)
        .map(|i| {
            let mut o = mk();
            o.rest(&snap, key_group_range_for_operator(128, p, i).unwrap()).unwrap();
            o
        })
        .collect();
    for (kind, row) in &input[cut..] {
        let b = batch(std::slice::from_ref(row));
        let (mut kg, mut ch) = ([0], [0]);
        key_groups(&b, &[0], 128, p, &mut kg, &mut ch).unwrap();
        let (ob, ok) = ops[ch[0] as usize].step(&b, &[*kind]).unwrap();
        got.extend(changelog(&ob, &ok));
    }
    got
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn normalize_matches_model(input in arb_upserts(), sizes in prop::collection::vec(1usize..30, 1..4), ub in any::<bool>(), drop_ua in any::<bool>()) {
        let opts = NormalizeOptions { generate_update_before: ub, drop_equal_update_after: drop_ua, ..Default::default() };
        let mut op = ChangelogNormalize::new(schema(), vec![0], opts).unwrap();
        prop_assert_eq!(run(&mut op, &input, &sizes), model_normalize(&input, ub, drop_ua));
    }

    #[test]
    fn dedup_matches_model(input in arb_inserts(), sizes in prop::collection::vec(1usize..30, 1..4), ub in any::<bool>(), insf in any::<bool>()) {
        for (keep, order) in variants() {
            let mut op = dedup(keep, order, ub, insf);
            prop_assert_eq!(run(&mut op, &input, &sizes), model_dedup(&input, keep, order, ub, insf), "{:?} {:?}", keep, order);
        }
    }

    #[test]
    fn restore_by_key_group_range_continues(input in arb_upserts(), cut in any::<prop::sample::Index>(), p in 1i32..4) {
        let cut = cut.index(input.len() + 1);
        let mk = || -> Box<dyn Op> { Box::new(ChangelogNormalize::new(schema(), vec![0], NormalizeOptions::default()).unwrap()) };
        prop_assert_eq!(run_with_rescale(&mk, &input, cut, p), model_normalize(&input, true, true));
        let inserts: Vec<(RowKind, In)> = input.iter().map(|(_, r)| (Insert, r.clone())).collect();
        for (keep, order) in variants() {
            let mk = move || -> Box<dyn Op> { Box::new(dedup(keep, order, true, true)) };
            prop_assert_eq!(run_with_rescale(&mk, &inserts, cut, p), model_dedup(&inserts, keep, order, true, true));
        }
    }
}

// ---------------------------------------------------------------------------
// Snapshots and budget
// ---------------------------------------------------------------------------

#[test]
fn corrupt_snapshots_are_errors() {
    let mut op = dedup(Keep::Last, ROWTIME, true, true);
    let rows: Vec<In> = (0..40).map(|i| (format!("key {i}"), Some(i), i)).collect();
    op.process(&batch(&rows), &[Insert; 40]).unwrap();
    let snap = op.snapshot(KeyGroupRange::all(128)).unwrap();
    for cut in 0..snap.len() {
        let mut o = dedup(Keep::Last, ROWTIME, true, true);
        assert!(matches!(o.restore(&snap[..cut], KeyGroupRange::all(128)), Err(Error::CorruptSnapshot { .. })));
        assert_eq!(o.num_keys(), 0);
    }
    for i in 0..snap.len() {
        let mut bad = snap.clone();
        bad[i] = bad[i].wrapping_add(1);
        assert!(dedup(Keep::Last, ROWTIME, true, true).restore(&bad, KeyGroupRange::all(128)).is_err(), "byte {i}");
    }
    // A snapshot of another operator kind or shape.
    assert!(dedup(Keep::First, ROWTIME, true, true).restore(&snap, KeyGroupRange::all(128)).is_err());
    let mut n = ChangelogNormalize::new(schema(), vec![0], NormalizeOptions::default()).unwrap();
    assert!(matches!(n.restore(&snap, KeyGroupRange::all(128)), Err(Error::CorruptSnapshot { .. })));
}

#[test]
fn budget_is_an_error() {
    let mut o = DedupOptions::new(Keep::Last, DedupOrder::ProcTime);
    o.state_budget = Some(1000);
    let mut op = Deduplicate::new(schema(), vec![0], o).unwrap();
    let rows: Vec<In> = (0..100).map(|i| (format!("key {i}"), Some(i), i)).collect();
    assert!(matches!(op.process(&batch(&rows), &[Insert; 100]), Err(Error::StateBudgetExceeded { .. })));
    assert!(op.size() <= 1000);
    let opts = NormalizeOptions { state_budget: Some(500), ..Default::default() };
    let mut n = ChangelogNormalize::new(schema(), vec![0], opts).unwrap();
    assert!(matches!(n.process(&batch(&rows), &[Insert; 100]), Err(Error::StateBudgetExceeded { .. })));
}

// ---------------------------------------------------------------------------
// Allocation bars
// ---------------------------------------------------------------------------

fn allocs_of(op: &mut dyn Op, b: &RecordBatch, k: &[RowKind]) -> u64 {
    op.step(b, k).unwrap();
    op.step(b, k).unwrap();
    count_allocs(|| op.step(b, k).unwrap()).0
}

#[test]
fn probes_of_keys_in_state_do_not_allocate_per_row() {
    let mk = |n: usize, t: i64| -> RecordBatch {
        batch(&(0..n).map(|i| (format!("a longer key {}", i % 64), Some(1), t)).collect::<Vec<_>>())
    };
    let (small, big) = (mk(64, 10), mk(4096, 10));
    let (ks, kb) = (vec![Insert; 64], vec![Insert; 4096]);
    // Keep-first probe; keep-last with identical rows; rowtime keep-first with
    // later (ignored) rows; normalize with identical upserts.
    type Make = Box<dyn Fn() -> Box<dyn Op>>;
    let ops: Vec<(&str, Make)> = vec![
        ("keep-first proctime", Box::new(|| Box::new(dedup(Keep::First, DedupOrder::ProcTime, true, true)))),
        ("keep-last proctime", Box::new(|| Box::new(dedup(Keep::Last, DedupOrder::ProcTime, true, true)))),
        ("keep-first rowtime", Box::new(|| Box::new(dedup(Keep::First, ROWTIME, true, true)))),
        (
            "normalize",
            Box::new(|| Box::new(ChangelogNormalize::new(schema(), vec![0], NormalizeOptions::default()).unwrap())),
        ),
    ];
    for (name, mk_op) in ops {
        let mut op = mk_op();
        let a_small = allocs_of(op.as_mut(), &small, &ks);
        let a_big = allocs_of(op.as_mut(), &big, &kb);
        assert!(a_big <= a_small + 4 && a_big < 64, "{name}: 4096 rows {a_big} allocations, 64 rows {a_small}");
    }
    // Keep-last rowtime: stale rows (older time) are ignored without allocating.
    let mut op = dedup(Keep::Last, ROWTIME, true, true);
    op.process(&mk(4096, 100), &kb).unwrap();
    let a_small = allocs_of(&mut op, &mk(64, 5), &ks);
    let a_big = allocs_of(&mut op, &mk(4096, 5), &kb);
    assert!(a_big <= a_small + 4 && a_big < 64, "stale keep-last: {a_big} vs {a_small}");
    // And a replacing row costs exactly one copy into state: 4096 rows over
    // 64 keys, all newer → 4096 payload copies + per-batch allocations.
    let newer = mk(4096, 200);
    let (a, _) = count_allocs(|| op.process(&newer, &kb).unwrap());
    assert!((4096..4096 + 64).contains(&a), "replacing keep-last: {a} allocations for 4096 replacements");
}

/// A key with a non-compact TIMESTAMP(6) column (sluice-transpose's writer)
/// keys state by Flink's bytes like any other.
#[test]
fn non_compact_key_types_use_the_transpose_writer() {
    use arrow_array::TimestampMicrosecondArray;
    let schema = Arc::new(Schema::new(vec![
        Field::new("ts", DataType::Timestamp(arrow_schema::TimeUnit::Microsecond, None), true),
        Field::new("v", DataType::Int64, true),
    ]));
    let b = RecordBatch::try_new(
        schema.clone(),
        vec![
            Arc::new(TimestampMicrosecondArray::from(vec![Some(1), None, Some(1), None])),
            Arc::new(Int64Array::from(vec![1, 2, 3, 4])),
        ],
    )
    .unwrap();
    let mut op = ChangelogNormalize::new(schema, vec![0], NormalizeOptions::default()).unwrap();
    let (out, kinds) = op.process(&b, &[Insert; 4]).unwrap();
    assert_eq!(out.num_rows(), 6);
    assert_eq!(kinds, vec![Insert, Insert, UpdateBefore, UpdateAfter, UpdateBefore, UpdateAfter]);
    assert_eq!(op.num_keys(), 2);
    let snap = op.snapshot(KeyGroupRange::all(128)).unwrap();
    let mut again = ChangelogNormalize::new(b.schema(), vec![0], NormalizeOptions::default()).unwrap();
    again.restore(&snap, KeyGroupRange::all(128)).unwrap();
    assert_eq!(again.num_keys(), 2);
}

/// `snapshot_key_groups` writes one blob per key group holding keys, and
/// exactly the key groups Flink's assignment gives the input keys; the blobs
/// restored one by one rebuild the state of the full snapshot byte for byte.
#[test]
fn snapshot_key_groups_splits_the_full_snapshot() {
    let rows: Vec<In> = (0..300).map(|i| (format!("key {}", i % 97), Some(i), i)).collect();
    let b = batch(&rows);
    let (mut kg, mut ch) = (vec![0; rows.len()], vec![0; rows.len()]);
    key_groups(&b, &[0], 128, 1, &mut kg, &mut ch).unwrap();
    let mut expected: Vec<i32> = kg.clone();
    expected.sort_unstable();
    expected.dedup();
    let kinds = vec![Insert; rows.len()];

    let mut d = dedup(Keep::Last, ROWTIME, true, true);
    d.process(&b, &kinds).unwrap();
    let mut n = ChangelogNormalize::new(schema(), vec![0], NormalizeOptions::default()).unwrap();
    n.process(&b, &kinds).unwrap();
    type Make = Box<dyn Fn() -> Box<dyn Op>>;
    let cases: Vec<(Box<dyn Op>, Make)> = vec![
        (Box::new(d), Box::new(|| -> Box<dyn Op> { Box::new(dedup(Keep::Last, ROWTIME, true, true)) })),
        (
            Box::new(n),
            Box::new(|| -> Box<dyn Op> {
                Box::new(ChangelogNormalize::new(schema(), vec![0], NormalizeOptions::default()).unwrap())
            }),
        ),
    ];
    for (op, mk) in cases {
        let all = KeyGroupRange::all(128);
        let blobs = op.snap_kg(all);
        assert_eq!(blobs.iter().map(|(g, _)| *g).collect::<Vec<_>>(), expected);
        let mut fresh = mk();
        for (g, blob) in &blobs {
            // A blob holds only its key group: restoring it with a range
            // that excludes that group adds nothing.
            let mut other = mk();
            other.rest(blob, KeyGroupRange::new(g + 1, 127)).unwrap();
            assert_eq!(other.snap(all), mk().snap(all));
            fresh.rest(blob, KeyGroupRange::new(*g, *g)).unwrap();
        }
        assert_eq!(fresh.snap(all), op.snap(all));
        // A sub-range gives the blobs of that sub-range, unchanged.
        let sub = op.snap_kg(KeyGroupRange::new(32, 63));
        let want: Vec<_> = blobs.iter().filter(|(g, _)| (32..=63).contains(g)).cloned().collect();
        assert_eq!(sub, want);
    }
}
