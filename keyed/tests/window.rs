//! The window TVF aggregate against a plainly written model (random
//! streams with out-of-order and late rows, several watermarks, NULLs,
//! TUMBLE / HOP / CUMULATE of several sizes and offsets), cases transcribed
//! from Flink's `SlicingWindowAggOperatorTest`, snapshot round trips and
//! key-group range restores, and the allocation bar.

mod common;
mod window_model;

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use arrow_array::{ArrayRef, Int64Array, RecordBatch, TimestampMillisecondArray};
use arrow_schema::{DataType, Field, Schema, SchemaRef, TimeUnit};
use common::{bigint_agg_specs, column, rows, schema_of, Cell};
use proptest::prelude::*;
use sluice_kernels::alloc_count::{count_allocs, CountingAlloc};
use sluice_keyed::{
    key_group_range_for_operator, AggSpec, Error, KeyGroupRange, RowKind, WindowAggOptions, WindowAggregate, WindowSpec,
};
use window_model::{sort_by_end, Model, Row};

#[global_allocator]
static A: CountingAlloc = CountingAlloc::system();

fn schema() -> SchemaRef {
    let t = DataType::Timestamp(TimeUnit::Millisecond, None);
    schema_of(&[
        ("k", DataType::Utf8, true),
        ("v", DataType::Int64, true),
        ("f", DataType::Float64, true),
        ("s", DataType::Utf8, true),
        ("t", t, false),
    ])
}

fn aggs() -> Vec<AggSpec> {
    let mut aggs = bigint_agg_specs(1);
    aggs.extend([AggSpec::sum(2), AggSpec::avg(2), AggSpec::min(2), AggSpec::max(2)]);
    aggs.extend([AggSpec::min(3), AggSpec::max(3)]);
    aggs
}

fn op(w: WindowSpec) -> WindowAggregate {
    WindowAggregate::new(schema(), vec![0], aggs(), WindowAggOptions::new(w, 4)).unwrap()
}

/// `COUNT(*)` over TUMBLE(5) without keys, rowtime column 0 of `schema`.
fn global_count(schema: SchemaRef) -> WindowAggregate {
    let opts = WindowAggOptions::new(WindowSpec::tumble(5), 0);
    WindowAggregate::new(schema, vec![], vec![AggSpec::count_star()], opts).unwrap()
}

fn batch(rows: &[Row]) -> RecordBatch {
    let cols: Vec<ArrayRef> = vec![
        column(rows, |r| r.k.clone()),
        column(rows, |r| r.v),
        column(rows, |r| r.f),
        column(rows, |r| r.s.clone()),
        Arc::new(TimestampMillisecondArray::from(rows.iter().map(|r| r.t).collect::<Vec<_>>())),
    ];
    RecordBatch::try_new(schema(), cols).unwrap()
}

fn push(op: &mut WindowAggregate, rows: &[Row]) {
    op.process(&batch(rows), &vec![RowKind::Insert; rows.len()]).unwrap();
}

/// The emitted rows, checked to be in ascending window end order, then
/// sorted within each window end (Flink's order among keys is not defined).
fn fire(op: &mut WindowAggregate, wm: i64) -> Vec<Vec<Cell>> {
    let b = op.advance_watermark(wm).unwrap();
    let mut out = rows(&b);
    let ends: Vec<&Cell> = out.iter().map(|r| &r[r.len() - 2]).collect();
    assert!(ends.windows(2).all(|w| w[0] <= w[1]), "windows out of end order: {ends:?}");
    sort_by_end(&mut out);
    out
}

fn row(k: &str, v: i64, t: i64) -> Row {
    Row { k: Some(k.to_string()), v: Some(v), f: Some(v as f64), s: Some(format!("s{v}")), t }
}

/// `key, sum(v), count(*), window_start, window_end` of an output row: the
/// columns of Flink's `SlicingSumAndCountAggsFunction` tests.
fn sum_count(rows: &[Vec<Cell>]) -> Vec<(String, i64, i64, i64, i64)> {
    let mut v: Vec<_> = rows
        .iter()
        .map(|r| {
            let (Cell::S(k), Cell::I(sum), Cell::I(cnt)) = (&r[0], &r[3], &r[1]) else { panic!("{r:?}") };
            let n = r.len();
            let (Cell::I(s), Cell::I(e)) = (&r[n - 3], &r[n - 2]) else { panic!("{r:?}") };
            (k.clone(), *sum, *cnt, *s, *e)
        })
        .collect();
    v.sort();
    v
}

fn sc(k: &str, sum: i64, cnt: i64, s: i64, e: i64) -> (String, i64, i64, i64, i64) {
    (k.to_string(), sum, cnt, s, e)
}

/// The out-of-order input every `SlicingWindowAggOperatorTest` event-time case starts with.
fn flink_input(first_key2: i64) -> Vec<Row> {
    vec![
        row("key2", 1, 3999),
        row("key2", 1, first_key2),
        row("key1", 1, 20),
        row("key1", 1, 0),
        row("key1", 1, 999),
        row("key2", 1, 1998),
        row("key2", 1, 1999),
        row("key2", 1, 1000),
    ]
}

/// Round-trips `op` through a snapshot into a fresh operator (the
/// harness's snapshot / close / `initializeState` in Flink's tests).
fn restored(op: &WindowAggregate, w: WindowSpec) -> WindowAggregate {
    let all = KeyGroupRange::new(0, 127);
    let mut fresh = self::op(w);
    fresh.restore(&op.snapshot(all).unwrap(), all).unwrap();
    // The watermark is operator state in Flink (a union list state).
    fresh.restore_watermark(op.watermark());
    fresh
}

/// `SlicingWindowAggOperatorTest.testEventTimeHoppingWindows`.
#[test]
fn flink_event_time_hopping_windows() {
    let w = WindowSpec::hop(3000, 1000);
    let mut op = op(w);
    push(&mut op, &flink_input(3000));
    assert_eq!(sum_count(&fire(&mut op, 999)), vec![sc("key1", 3, 3, -2000, 1000)]);
    assert_eq!(sum_count(&fire(&mut op, 1999)), vec![sc("key1", 3, 3, -1000, 2000), sc("key2", 3, 3, -1000, 2000)]);
    assert_eq!(sum_count(&fire(&mut op, 2999)), vec![sc("key1", 3, 3, 0, 3000), sc("key2", 3, 3, 0, 3000)]);
    let mut op = restored(&op, w);
    assert_eq!(sum_count(&fire(&mut op, 3999)), vec![sc("key2", 5, 5, 1000, 4000)]);
    // Late for [1K, 4K), but accumulated into [2K, 5K) and [3K, 6K).
    push(&mut op, &[row("key2", 1, 3500)]);
    assert_eq!(sum_count(&fire(&mut op, 4999)), vec![sc("key2", 3, 3, 2000, 5000)]);
    // Late for every window it belongs to: dropped.
    push(&mut op, &[row("key1", 1, 2999)]);
    assert_eq!(sum_count(&fire(&mut op, 5999)), vec![sc("key2", 3, 3, 3000, 6000)]);
    assert!(fire(&mut op, 6999).is_empty() && fire(&mut op, 7999).is_empty());
    assert_eq!(op.late_rows_dropped(), 1);
    assert_eq!((op.num_keys(), op.num_slices(), op.num_timers()), (0, 0, 0));
}

/// `SlicingWindowAggOperatorTest.testEventTimeCumulativeWindows`.
#[test]
fn flink_event_time_cumulative_windows() {
    let w = WindowSpec::cumulate(3000, 1000);
    let mut op = op(w);
    push(&mut op, &flink_input(2999));
    assert_eq!(sum_count(&fire(&mut op, 999)), vec![sc("key1", 3, 3, 0, 1000)]);
    assert_eq!(sum_count(&fire(&mut op, 1999)), vec![sc("key1", 3, 3, 0, 2000), sc("key2", 3, 3, 0, 2000)]);
    let mut op = restored(&op, w);
    // The restored watermark makes this row late: [0, 2K) does not fire again.
    push(&mut op, &[row("key2", 1, 1000)]);
    assert!(fire(&mut op, 1999).is_empty());
    assert_eq!(sum_count(&fire(&mut op, 2999)), vec![sc("key1", 3, 3, 0, 3000), sc("key2", 5, 5, 0, 3000)]);
    assert_eq!(sum_count(&fire(&mut op, 3999)), vec![sc("key2", 1, 1, 3000, 4000)]);
    // Late for [3K, 4K), accumulated into [3K, 5K) and [3K, 6K).
    push(&mut op, &[row("key1", 2, 3500)]);
    assert_eq!(sum_count(&fire(&mut op, 4999)), vec![sc("key1", 2, 1, 3000, 5000), sc("key2", 1, 1, 3000, 5000)]);
    push(&mut op, &[row("key1", 1, 2999)]);
    assert_eq!(sum_count(&fire(&mut op, 5999)), vec![sc("key1", 2, 1, 3000, 6000), sc("key2", 1, 1, 3000, 6000)]);
    assert!(fire(&mut op, 6999).is_empty() && fire(&mut op, 7999).is_empty());
    assert_eq!(op.late_rows_dropped(), 1);
}

/// `SlicingWindowAggOperatorTest.testEventTimeTumblingWindows`.
#[test]
fn flink_event_time_tumbling_windows() {
    let w = WindowSpec::tumble(3000);
    let mut op = op(w);
    push(&mut op, &flink_input(3000));
    assert!(fire(&mut op, 999).is_empty() && fire(&mut op, 1999).is_empty());
    let mut op = restored(&op, w);
    assert_eq!(sum_count(&fire(&mut op, 2999)), vec![sc("key1", 3, 3, 0, 3000), sc("key2", 3, 3, 0, 3000)]);
    assert!(fire(&mut op, 3999).is_empty());
    push(&mut op, &[row("key1", 1, 2500)]);
    assert!(fire(&mut op, 4999).is_empty());
    push(&mut op, &[row("key2", 1, 2999)]);
    assert_eq!(sum_count(&fire(&mut op, 5999)), vec![sc("key2", 2, 2, 3000, 6000)]);
    assert!(fire(&mut op, 6999).is_empty() && fire(&mut op, 7999).is_empty());
    assert_eq!(op.late_rows_dropped(), 2);
}

#[test]
fn refuses_retractions_null_rowtimes_and_bad_windows() {
    let mut o = op(WindowSpec::tumble(10));
    let b = batch(&[row("a", 1, 1)]);
    let e = o.process(&b, &[RowKind::UpdateAfter]).unwrap_err();
    assert!(matches!(e, Error::UnexpectedRowKind { row: 0, .. }), "{e}");
    let e = WindowAggregate::new(schema(), vec![0], aggs(), WindowAggOptions::new(WindowSpec::hop(10, 3), 4));
    assert!(e.err().unwrap().to_string().contains("integral multiple of slide"));
    let e = WindowAggregate::new(
        schema(),
        vec![0],
        vec![AggSpec::first_value(1)],
        WindowAggOptions::new(WindowSpec::tumble(5), 4),
    );
    assert!(e.err().unwrap().to_string().contains("not supported by the window aggregate"));
    let nullable = Arc::new(Schema::new(vec![Field::new("t", DataType::Int64, true)]));
    let mut o = global_count(nullable.clone());
    let b = RecordBatch::try_new(nullable, vec![Arc::new(Int64Array::from(vec![Some(1), None]))]).unwrap();
    let e = o.process(&b, &[RowKind::Insert; 2]).unwrap_err();
    assert!(e.to_string().contains("row 1: RowTime field should not be null"), "{e}");
}

#[test]
fn a_global_window_has_no_key_columns() {
    let s = Arc::new(Schema::new(vec![Field::new("t", DataType::Int64, false)]));
    let mut o = global_count(s.clone());
    let b = RecordBatch::try_new(s, vec![Arc::new(Int64Array::from(vec![1, 2, 7, 3]))]).unwrap();
    o.process(&b, &[RowKind::Insert; 4]).unwrap();
    let out = o.advance_watermark(i64::MAX).unwrap();
    assert_eq!(out.num_columns(), 4);
    assert_eq!(out.column(0).as_primitive::<Int64Type>().values().to_vec(), vec![3, 1]);
}

fn arb_window() -> impl Strategy<Value = WindowSpec> {
    let tumble =
        (prop::sample::select(vec![5i64, 7, 10]), 0i64..3).prop_map(|(s, o)| WindowSpec::tumble(s).with_offset(o));
    let hop = (prop::sample::select(vec![2i64, 3, 5]), 1i64..4, 0i64..2)
        .prop_map(|(slide, k, o)| WindowSpec::hop(slide * k, slide).with_offset(o));
    let cum = (prop::sample::select(vec![2i64, 3, 5]), 1i64..4, 0i64..2)
        .prop_map(|(step, k, o)| WindowSpec::cumulate(step * k, step).with_offset(o));
    prop_oneof![tumble, hop, cum]
}

fn arb_row() -> impl Strategy<Value = Row> {
    let key = prop::option::weighted(0.9, prop::sample::select(vec!["a", "b", "c", "dd"]));
    let s = prop::option::weighted(0.8, prop::sample::select(vec!["", "x", "xy", "é", "zz", "Ab"]));
    (key, prop::option::weighted(0.8, -5i64..6), prop::option::weighted(0.8, -4i64..5), s, -3i64..60).prop_map(
        |(k, v, f, s, t)| Row {
            k: k.map(str::to_string),
            v,
            f: f.map(|x| x as f64 * 0.5),
            s: s.map(str::to_string),
            t,
        },
    )
}

#[derive(Clone, Debug)]
enum Op {
    Batch(Vec<Row>),
    Watermark(i64),
}

fn arb_op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => prop::collection::vec(arb_row(), 0..12).prop_map(Op::Batch),
        1 => (-5i64..70).prop_map(Op::Watermark),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// Every window kind, size and offset against the model: each
    /// watermark's output, the late-row count, and an empty state at the end.
    #[test]
    fn matches_the_reference_model(w in arb_window(), ops in prop::collection::vec(arb_op(), 0..30), snap_at in 0usize..30) {
        let mut o = op(w);
        let mut m = Model::new(w);
        // The late-row counter is a metric: a restored operator starts at 0.
        let mut late = 0;
        for (i, step) in ops.iter().enumerate() {
            if i == snap_at {
                late += o.late_rows_dropped();
                o = restored(&o, w);
            }
            match step {
                Op::Batch(rows) => {
                    push(&mut o, rows);
                    m.push(rows);
                }
                Op::Watermark(wm) => prop_assert_eq!(fire(&mut o, *wm), m.watermark(*wm)),
            }
        }
        prop_assert_eq!(fire(&mut o, i64::MAX), m.watermark(i64::MAX));
        prop_assert_eq!(late + o.late_rows_dropped(), m.late);
        prop_assert_eq!((o.num_keys(), o.num_slices(), o.num_timers(), o.size()), (0, 0, 0, 0));
    }

    /// Snapshots per key group, restored into operators of two key-group
    /// ranges, fire exactly what the original fires.
    #[test]
    fn range_restore_splits_the_state(w in arb_window(), rows in prop::collection::vec(arb_row(), 0..40), wm in -5i64..30) {
        let mut o = op(w);
        push(&mut o, &rows);
        fire(&mut o, wm);
        let blobs = o.snapshot_key_groups(KeyGroupRange::new(0, 127)).unwrap();
        let mut parts = Vec::new();
        for i in 0..2 {
            let r = key_group_range_for_operator(128, 2, i).unwrap();
            let mut p = op(w);
            for (_, b) in &blobs {
                p.restore(b, r).unwrap();
            }
            parts.push(p);
        }
        let mut split: Vec<Vec<Cell>> = parts.iter_mut().flat_map(|p| fire(p, i64::MAX)).collect();
        sort_by_end(&mut split);
        prop_assert_eq!(split, fire(&mut o, i64::MAX));
    }
}

#[test]
fn a_corrupt_snapshot_is_an_error_and_leaves_state_alone() {
    let w = WindowSpec::hop(10, 5);
    let mut o = op(w);
    push(&mut o, &[row("a", 1, 3), row("b", 2, 12)]);
    let all = KeyGroupRange::new(0, 127);
    let mut snap = o.snapshot(all).unwrap();
    let mid = snap.len() / 2;
    snap[mid] ^= 0x40;
    let mut fresh = op(w);
    assert!(matches!(fresh.restore(&snap, all), Err(Error::CorruptSnapshot { .. })));
    assert_eq!((fresh.num_keys(), fresh.num_slices()), (0, 0));
    let tumble = op(WindowSpec::tumble(10));
    let mut other = tumble;
    let e = other.restore(&o.snapshot(all).unwrap(), all).unwrap_err();
    assert!(e.to_string().contains("another schema"), "{e}");
}

#[test]
fn the_state_budget_refuses_new_slices() {
    let mut opts = WindowAggOptions::new(WindowSpec::tumble(10), 4);
    opts.state_budget = Some(600);
    let mut o = WindowAggregate::new(schema(), vec![0], aggs(), opts).unwrap();
    let rows: Vec<Row> = (0..20).map(|i| row("a", 1, i * 10)).collect();
    let e = o.process(&batch(&rows), &[RowKind::Insert; 20]).unwrap_err();
    assert!(matches!(e, Error::StateBudgetExceeded { .. }), "{e}");
    assert!(o.size() <= 600 && o.num_slices() > 0);
}

/// Keys and slices already in state: a batch allocates a bounded number of
/// times (per batch), whatever its row count.
#[test]
fn a_batch_of_known_keys_and_slices_allocates_per_batch() {
    let numeric = vec![AggSpec::count_star(), AggSpec::sum(1), AggSpec::min(1), AggSpec::max(2), AggSpec::avg(2)];
    let mut o =
        WindowAggregate::new(schema(), vec![0], numeric, WindowAggOptions::new(WindowSpec::hop(1000, 250), 4)).unwrap();
    let mk =
        |n: usize| -> Vec<Row> { (0..n).map(|i| row(["a", "b", "c"][i % 3], i as i64, (i % 900) as i64)).collect() };
    push(&mut o, &mk(4096));
    let (small, big) = (batch(&mk(64)), batch(&mk(4096)));
    let (a_small, _) = count_allocs(|| o.process(&small, &[RowKind::Insert; 64]).unwrap());
    let (a_big, _) = count_allocs(|| o.process(&big, &[RowKind::Insert; 4096]).unwrap());
    assert!(a_big <= a_small.max(4), "{a_small} allocations for 64 rows, {a_big} for 4,096");
}
