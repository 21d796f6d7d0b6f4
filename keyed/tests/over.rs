//! OVER aggregation against a plainly written reference model (random
//! streams with out-of-order rowtime, late rows, ties, NULL values; every
//! frame's aggregates recomputed from scratch), cases transcribed from
//! Flink's own operator tests, snapshot and restore across key-group
//! ranges, and the allocation bar.

mod common;
mod over_proctime;

use std::collections::BTreeMap;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use common::{bigint_agg_specs, bigint_aggs, changelog, Cell, TupleRow, Value};
use proptest::prelude::*;
use sluice_kernels::alloc_count::{count_allocs, CountingAlloc};
use sluice_keyed::{
    key_group_range_for_operator, AggSpec, Error, KeyGroupRange, OverAggregate, OverFrame, OverOptions, OverTime,
    RowKind,
};

#[global_allocator]
static A: CountingAlloc = CountingAlloc::system();

/// (partition, value, rowtime, text).
type In = (String, Option<i64>, i64, Option<String>);

fn schema() -> SchemaRef {
    In::schema(&["p", "v", "t", "s"])
}

fn batch(rows: &[In]) -> RecordBatch {
    common::batch_of(schema(), rows)
}

/// Every aggregate the group aggregate supports, on the BIGINT and the VARCHAR column.
fn all_aggs() -> Vec<AggSpec> {
    let mut aggs = bigint_agg_specs(1);
    aggs.extend([AggSpec::first_value(1), AggSpec::last_value(1)]);
    aggs.extend([AggSpec::min(3), AggSpec::max(3), AggSpec::first_value(3), AggSpec::last_value(3)]);
    aggs
}

fn op(time: OverTime, frame: OverFrame) -> OverAggregate {
    OverAggregate::new(schema(), vec![0], all_aggs(), OverOptions::new(time, frame)).unwrap()
}

type Row = Vec<Cell>;

fn push(o: &mut OverAggregate, rows: &[In]) -> Vec<Row> {
    let (b, k) = o.process(&batch(rows), &vec![RowKind::Insert; rows.len()]).unwrap();
    assert!(k.iter().all(|k| *k == RowKind::Insert));
    changelog(&b, &k).into_iter().map(|r| r.1).collect()
}

fn wm(o: &mut OverAggregate, w: i64) -> Vec<Row> {
    let (b, k) = o.advance_watermark(w).unwrap();
    assert!(k.iter().all(|k| *k == RowKind::Insert));
    changelog(&b, &k).into_iter().map(|r| r.1).collect()
}

// ---------------------------------------------------------------------------
// The reference model
// ---------------------------------------------------------------------------

/// The aggregates of `frame`, recomputed from scratch (NULLs ignored, as
/// Flink's aggregate functions do).
fn aggregates(frame: &[&In]) -> Vec<Cell> {
    let vs: Vec<i64> = frame.iter().filter_map(|r| r.1).collect();
    let ss: Vec<&str> = frame.iter().filter_map(|r| r.3.as_deref()).collect();
    let mut out = bigint_aggs(frame.len(), &vs);
    out.extend([vs.first().copied().cell(), vs.last().copied().cell()]);
    out.extend([ss.iter().min(), ss.iter().max(), ss.first(), ss.last()].map(|s| s.copied().cell()));
    out
}

fn out_row(r: &In, aggs: Vec<Cell>) -> Row {
    let mut c = vec![
        Cell::S(r.0.clone()),
        r.1.map_or(Cell::Null, Cell::I),
        Cell::I(r.2),
        r.3.clone().map_or(Cell::Null, Cell::S),
    ];
    c.extend(aggs);
    c
}

#[derive(Default, Clone)]
struct MKey {
    /// Buffered rows (arrival order).
    pending: Vec<In>,
    /// Rows processed since the key's state began, in processing order.
    done: Vec<In>,
    last_trigger: i64,
    timer: Option<i64>,
    cleanup_ts: Option<i64>,
    cleanup_timers: Vec<i64>,
}

struct Model {
    time: OverTime,
    frame: OverFrame,
    wm: i64,
    keys: BTreeMap<String, MKey>,
}

impl Model {
    fn new(time: OverTime, frame: OverFrame) -> Self {
        Model { time, frame, wm: i64::MIN, keys: BTreeMap::new() }
    }

    /// Frame of the processed row at `i` of `done` (rows of the current
    /// timestamp group up to `group_end` included for RANGE).
    fn frame_of<'a>(&self, done: &'a [In], i: usize, group_end: usize) -> Vec<&'a In> {
        match self.frame {
            OverFrame::RowsUnbounded => done[..=i].iter().collect(),
            OverFrame::RangeUnbounded => done[..group_end].iter().collect(),
            OverFrame::Rows(n) => {
                let lo = (i + 1).saturating_sub(n as usize + 1);
                done[lo..=i].iter().collect()
            }
            OverFrame::Range(x) => {
                let t = done[i].2;
                done[..group_end].iter().filter(|r| t - r.2 <= x).collect()
            }
        }
    }

    fn process(&mut self, rows: &[In]) -> Vec<Row> {
        let mut out = Vec::new();
        for r in rows {
            let wm = self.wm;
            let k = self.keys.get(&r.0).cloned().unwrap_or_default();
            match self.time {
                OverTime::ProcTime => {
                    let k = self.keys.entry(r.0.clone()).or_default();
                    k.done.push(r.clone());
                    let done = k.done.clone();
                    let i = done.len() - 1;
                    out.push(out_row(r, aggregates(&self.frame_of(&done, i, i + 1))));
                }
                OverTime::RowTime { .. } => {
                    let unbounded = matches!(self.frame, OverFrame::RowsUnbounded | OverFrame::RangeUnbounded);
                    let late = if unbounded { r.2 <= wm } else { r.2 <= k.last_trigger };
                    if late {
                        continue;
                    }
                    let k = self.keys.entry(r.0.clone()).or_default();
                    if unbounded {
                        let trig = if wm < 0 { 0 } else { wm + 1 };
                        k.timer = Some(k.timer.map_or(trig, |t| t.min(trig)));
                    }
                    if let OverFrame::Range(x) = self.frame {
                        if k.cleanup_ts.is_none_or(|c| c < r.2 + x + 1) {
                            let c = r.2 + (x as f64 * 1.5) as i64 + 1;
                            k.cleanup_ts = Some(c);
                            k.cleanup_timers.push(c);
                        }
                    }
                    k.pending.push(r.clone());
                }
            }
        }
        out
    }

    /// Per key (in key order): the rows a watermark emits.
    fn watermark(&mut self, w: i64) -> BTreeMap<String, Vec<Row>> {
        let mut out = BTreeMap::new();
        if w <= self.wm || self.time == OverTime::ProcTime {
            self.wm = self.wm.max(w);
            return out;
        }
        self.wm = w;
        let unbounded = matches!(self.frame, OverFrame::RowsUnbounded | OverFrame::RangeUnbounded);
        let names: Vec<String> = self.keys.keys().cloned().collect();
        for name in names {
            let mut k = self.keys.remove(&name).unwrap_or_default();
            let fires = !unbounded || k.timer.is_some_and(|t| t <= w);
            let mut emitted = Vec::new();
            if fires {
                let mut ready: Vec<In> = k.pending.iter().filter(|r| r.2 <= w).cloned().collect();
                ready.sort_by_key(|r| r.2); // stable: arrival order within a timestamp
                k.pending.retain(|r| r.2 > w);
                let mut i = 0;
                while i < ready.len() {
                    let t = ready[i].2;
                    let j = i + ready[i..].iter().take_while(|r| r.2 == t).count();
                    let base = k.done.len();
                    k.done.extend(ready[i..j].iter().cloned());
                    for m in base..k.done.len() {
                        emitted.push(out_row(&k.done[m], aggregates(&self.frame_of(&k.done, m, k.done.len()))));
                    }
                    if !unbounded {
                        k.last_trigger = t;
                    }
                    i = j;
                }
            }
            if unbounded && k.timer.is_some_and(|t| t <= w) {
                k.timer = (!k.pending.is_empty()).then_some(w + 1);
            }
            let mut cleared = false;
            for &c in k.cleanup_timers.iter().filter(|c| **c <= w) {
                k.last_trigger = k.last_trigger.max(c);
                cleared |= k.cleanup_ts == Some(c);
            }
            k.cleanup_timers.retain(|c| *c > w);
            if !emitted.is_empty() {
                out.insert(name.clone(), emitted);
            }
            if !cleared {
                self.keys.insert(name, k);
            }
        }
        out
    }
}

/// The operator's output of one watermark, grouped by key (order kept),
/// after checking it is in timestamp order.
fn by_key(rows: Vec<Row>) -> BTreeMap<String, Vec<Row>> {
    let ts: Vec<&Cell> = rows.iter().map(|r| &r[2]).collect();
    assert!(ts.windows(2).all(|w| w[0] <= w[1]), "a watermark's output is in timestamp order: {ts:?}");
    per_key(rows)
}

/// Output rows grouped by partition key, each key's order kept.
fn per_key(rows: Vec<Row>) -> BTreeMap<String, Vec<Row>> {
    let mut m: BTreeMap<String, Vec<Row>> = BTreeMap::new();
    for r in rows {
        let Cell::S(k) = &r[0] else { panic!("key cell") };
        m.entry(k.clone()).or_default().push(r);
    }
    m
}

#[derive(Clone, Debug)]
enum Step {
    Rows(Vec<In>),
    Watermark(i64),
}

fn arb_row() -> impl Strategy<Value = In> {
    (
        prop::sample::select(vec!["a", "b", "c"]),
        prop::option::weighted(0.8, -5i64..20),
        -3i64..25,
        prop::option::weighted(0.8, prop::sample::select(vec!["x", "yy", "z", ""])),
    )
        .prop_map(|(p, v, t, s)| (p.to_string(), v, t, s.map(str::to_string)))
}

fn arb_steps() -> impl Strategy<Value = Vec<Step>> {
    prop::collection::vec(
        prop_oneof![
            3 => prop::collection::vec(arb_row(), 0..8).prop_map(Step::Rows),
            2 => (-4i64..6).prop_map(Step::Watermark),
        ],
        0..25,
    )
}

fn arb_config() -> impl Strategy<Value = (OverTime, OverFrame)> {
    let frame = prop_oneof![
        Just(OverFrame::RowsUnbounded),
        Just(OverFrame::RangeUnbounded),
        prop::sample::select(vec![0u64, 1, 2, 5, 1000]).prop_map(OverFrame::Rows),
        prop::sample::select(vec![0i64, 1, 3, 10, 1000]).prop_map(OverFrame::Range),
    ];
    // Proctime RANGE x fires on processing time: its own model (over_proctime).
    (any::<bool>(), frame).prop_filter_map("proctime RANGE x has its own model", |(row, f)| {
        let time = if row { OverTime::RowTime { column: 2 } } else { OverTime::ProcTime };
        (row || !matches!(f, OverFrame::Range(_))).then_some((time, f))
    })
}

/// Runs `steps` (watermark steps are deltas on a running watermark) through
/// the operator and the model and compares every output.
fn check(o: &mut OverAggregate, m: &mut Model, steps: &[Step], w: &mut i64) -> Result<(), TestCaseError> {
    for s in steps {
        match s {
            Step::Rows(rows) => {
                let got = push(o, rows);
                let want = m.process(rows);
                prop_assert_eq!(got, want);
            }
            Step::Watermark(d) => {
                *w += d;
                let got = by_key(wm(o, *w));
                let want = m.watermark(*w);
                prop_assert_eq!(got, want, "watermark {}", *w);
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn matches_the_reference_model((time, frame) in arb_config(), steps in arb_steps()) {
        let mut o = op(time, frame);
        let mut m = Model::new(time, frame);
        check(&mut o, &mut m, &steps, &mut 0)?;
        // Drain: everything buffered fires at a final watermark.
        let got = by_key(wm(&mut o, i64::MAX - 1));
        prop_assert_eq!(got, m.watermark(i64::MAX - 1));
    }

    /// A snapshot split by key-group ranges restores into operators that go
    /// on exactly as the original.
    #[test]
    fn snapshot_restore_by_key_group_range(
        (time, frame) in arb_config(),
        steps in arb_steps(),
        more in arb_steps(),
    ) {
        let mut o = op(time, frame);
        let mut m = Model::new(time, frame);
        let mut w = 0;
        check(&mut o, &mut m, &steps, &mut w)?;
        let mut parts = Vec::new();
        for i in 0..2 {
            let range = key_group_range_for_operator(128, 2, i).unwrap();
            let mut r = op(time, frame);
            for (_, blob) in o.snapshot_key_groups(range).unwrap() {
                r.restore(&blob, range).unwrap();
            }
            parts.push(r);
        }
        let whole = o.snapshot(KeyGroupRange::all(128)).unwrap();
        let mut one = op(time, frame);
        one.restore(&whole, KeyGroupRange::all(128)).unwrap();
        prop_assert_eq!(one.num_keys(), o.num_keys());
        prop_assert_eq!(one.size(), o.size());
        prop_assert_eq!(parts.iter().map(OverAggregate::num_keys).sum::<usize>(), o.num_keys());
        prop_assert_eq!(parts.iter().map(OverAggregate::num_pending).sum::<usize>(), o.num_pending());
        // The restored operator starts at the initial watermark, as Flink's does.
        let mut m2 = Model { wm: i64::MIN, ..Model::new(time, frame) };
        m2.keys = m.keys.clone();
        let mut w2 = w;
        check(&mut one, &mut m2, &more, &mut w2)?;
    }

    /// Arbitrary bytes, and damaged valid snapshots, are errors, never panics.
    #[test]
    fn restore_of_arbitrary_bytes_is_an_error(bytes in prop::collection::vec(any::<u8>(), 0..300), flip in any::<usize>()) {
        let mut o = op(OverTime::RowTime { column: 2 }, OverFrame::Range(5));
        prop_assert!(o.restore(&bytes, KeyGroupRange::all(128)).is_err() || bytes.is_empty());
        push(&mut o, &flink_rows());
        wm(&mut o, 3);
        let mut snap = o.snapshot(KeyGroupRange::all(128)).unwrap();
        let at = flip % snap.len();
        snap[at] ^= 0x5a;
        let mut fresh = op(OverTime::RowTime { column: 2 }, OverFrame::Range(5));
        prop_assert!(fresh.restore(&snap, KeyGroupRange::all(128)).is_err());
    }
}

// ---------------------------------------------------------------------------
// Cases transcribed from Flink's tests
// ---------------------------------------------------------------------------

fn r(p: &str, v: i64, t: i64) -> In {
    (p.to_string(), Some(v), t, None)
}

/// `RowTimeOverWindowTestBase.inputData`-style rows: key, value, rowtime.
fn flink_rows() -> Vec<In> {
    vec![r("key", 1, 1), r("key", 2, 1), r("key", 3, 2), r("key", 4, 4), r("key", 5, 5)]
}

fn cols(rows: &[Row], at: &[usize]) -> Vec<Vec<Cell>> {
    rows.iter().map(|row| at.iter().map(|&i| row[i].clone()).collect()).collect()
}

/// `RowTimeRangeBoundedPrecedingFunctionTest.testLateRecordMetrics`: with a
/// watermark past a row's timestamp the row is still accepted while the
/// key's last fired timer is older; a row at or before the last fired timer
/// is dropped and counted.
#[test]
fn flink_range_bounded_late_records() {
    let mut o = op(OverTime::RowTime { column: 2 }, OverFrame::Range(2000));
    push(&mut o, &[r("key", 1, 1000)]);
    assert_eq!(cols(&wm(&mut o, 1000), &[2, 4]), vec![vec![Cell::I(1000), Cell::I(1)]]);
    // Late: its timestamp is not after the last fired timer (1000).
    push(&mut o, &[r("key", 2, 500)]);
    assert_eq!(o.late_dropped(), 1);
    // Not late: 1500 > 1000 although the watermark will pass it only next.
    push(&mut o, &[r("key", 3, 1500)]);
    assert_eq!(o.late_dropped(), 1);
    let out = wm(&mut o, 2000);
    assert_eq!(cols(&out, &[2, 4, 6]), vec![vec![Cell::I(1500), Cell::I(2), Cell::I(4)]]);
}

/// Modelled on `RowTimeRangeBoundedPrecedingFunctionTest.testStateCleanup`:
/// once the cleanup timer (`ts + 1.5·x + 1`, registered only when `ts + x +
/// 1` passes the registered one) fires, the key's state is gone.
#[test]
fn flink_range_bounded_state_cleanup() {
    let mut o = op(OverTime::RowTime { column: 2 }, OverFrame::Range(2000));
    push(&mut o, &[r("key", 1, 1000), r("key", 2, 1500)]);
    wm(&mut o, 1500);
    assert_eq!(o.num_keys(), 1);
    // 1000 + 3000 + 1 = 4001; the row at 1500 needs 3501 <= 4001: no new timer.
    wm(&mut o, 4000);
    assert_eq!(o.num_keys(), 1);
    wm(&mut o, 4001);
    assert_eq!(o.num_keys(), 0);
    assert_eq!(o.size(), 0, "all state bytes released");
    // The key starts afresh: a row before the old last trigger is accepted.
    push(&mut o, &[r("key", 7, 1200)]);
    assert_eq!(o.late_dropped(), 0);
    assert_eq!(cols(&wm(&mut o, 5000), &[4, 6]), vec![vec![Cell::I(1), Cell::I(7)]]);
}

/// `RowTimeOverWindowTestBase` / `RowTimeRowsUnboundedPrecedingFunction`:
/// ROWS emits a running value per row; RANGE gives the rows of one
/// timestamp the same value; rows arrive out of order and are sorted.
#[test]
fn flink_rowtime_unbounded_rows_and_range() {
    let input = vec![r("key", 3, 2), r("key", 1, 1), r("key", 2, 1), r("key", 4, 4)];
    let mut rows = op(OverTime::RowTime { column: 2 }, OverFrame::RowsUnbounded);
    push(&mut rows, &input);
    // SUM(v) per row, in (ts, arrival) order.
    assert_eq!(
        cols(&wm(&mut rows, 2), &[1, 6]),
        vec![vec![Cell::I(1), Cell::I(1)], vec![Cell::I(2), Cell::I(3)], vec![Cell::I(3), Cell::I(6)]]
    );
    let mut range = op(OverTime::RowTime { column: 2 }, OverFrame::RangeUnbounded);
    push(&mut range, &input);
    assert_eq!(
        cols(&wm(&mut range, 2), &[1, 6]),
        vec![vec![Cell::I(1), Cell::I(3)], vec![Cell::I(2), Cell::I(3)], vec![Cell::I(3), Cell::I(6)]]
    );
    // Late for the unbounded functions: at or before the watermark.
    push(&mut range, &[r("key", 9, 2)]);
    assert_eq!(range.late_dropped(), 1);
    assert_eq!(cols(&wm(&mut range, 10), &[1, 6]), vec![vec![Cell::I(4), Cell::I(10)]]);
}

/// `ProcTimeRowsBoundedPrecedingFunctionTest`-style: ROWS 1 PRECEDING keeps
/// two rows in arrival order, MIN/MAX retract through the multiset.
#[test]
fn flink_proctime_rows_bounded() {
    let mut o = op(OverTime::ProcTime, OverFrame::Rows(1));
    let out = push(&mut o, &[r("a", 5, 0), r("a", 1, 0), r("b", 7, 0), r("a", 3, 0), r("a", 9, 0)]);
    // (v, COUNT(*), MIN, MAX)
    assert_eq!(
        cols(&out, &[1, 4, 9, 10]),
        vec![
            vec![Cell::I(5), Cell::I(1), Cell::I(5), Cell::I(5)],
            vec![Cell::I(1), Cell::I(2), Cell::I(1), Cell::I(5)],
            vec![Cell::I(7), Cell::I(1), Cell::I(7), Cell::I(7)],
            vec![Cell::I(3), Cell::I(2), Cell::I(1), Cell::I(3)],
            vec![Cell::I(9), Cell::I(2), Cell::I(3), Cell::I(9)],
        ]
    );
}

/// `RowTimeRowsBoundedPrecedingFunction`: a new key's rows at `ts <= 0`
/// are late (its last triggering timestamp reads as 0).
#[test]
fn flink_rows_bounded_drops_non_positive_times_of_a_new_key() {
    let mut o = op(OverTime::RowTime { column: 2 }, OverFrame::Rows(2));
    push(&mut o, &[r("k", 1, 0), r("k", 2, -5), r("k", 3, 1)]);
    assert_eq!(o.late_dropped(), 2);
    assert_eq!(cols(&wm(&mut o, 1), &[1, 6]), vec![vec![Cell::I(3), Cell::I(3)]]);
}

#[test]
fn refusals() {
    let e =
        OverAggregate::new(schema(), vec![0], all_aggs(), OverOptions::new(OverTime::ProcTime, OverFrame::Range(-1)))
            .err()
            .unwrap();
    assert!(e.to_string().contains("negative"), "{e}");
    let e = OverAggregate::new(
        schema(),
        vec![0],
        all_aggs(),
        OverOptions::new(OverTime::RowTime { column: 0 }, OverFrame::RowsUnbounded),
    )
    .err()
    .unwrap();
    assert!(matches!(e, Error::UnsupportedType { column: 0, .. }), "{e}");
    let mut o = op(OverTime::ProcTime, OverFrame::RowsUnbounded);
    let e = o.process(
        &batch(&flink_rows()),
        &[RowKind::Insert, RowKind::UpdateBefore, RowKind::Insert, RowKind::Insert, RowKind::Insert],
    );
    assert!(matches!(e, Err(Error::UnexpectedRowKind { row: 1, .. })), "{e:?}");
    let other = op(OverTime::ProcTime, OverFrame::Rows(3));
    let snap = other.snapshot(KeyGroupRange::all(128)).unwrap();
    assert!(op(OverTime::ProcTime, OverFrame::Rows(2)).restore(&snap, KeyGroupRange::all(128)).is_err());
}

#[test]
fn state_budget_is_enforced() {
    let mut opts = OverOptions::new(OverTime::ProcTime, OverFrame::Rows(1000));
    opts.state_budget = Some(2000);
    let mut o = OverAggregate::new(schema(), vec![0], vec![AggSpec::sum(1)], opts).unwrap();
    let rows: Vec<In> = (0..100).map(|i| r("k", i, 0)).collect();
    let e = o.process(&batch(&rows), &vec![RowKind::Insert; rows.len()]).unwrap_err();
    assert!(matches!(e, Error::StateBudgetExceeded { .. }), "{e}");
    assert!(o.size() <= 2000);
}

/// The bar: a proctime running fold whose keys are all in state allocates
/// per batch, not per row (a 64-row and a 4,096-row batch cost the same
/// few allocations: the output arrays).
#[test]
fn a_running_fold_over_known_keys_allocates_per_batch() {
    let aggs = vec![AggSpec::count_star(), AggSpec::sum(1), AggSpec::max(1), AggSpec::avg(1)];
    let mut o =
        OverAggregate::new(schema(), vec![0], aggs, OverOptions::new(OverTime::ProcTime, OverFrame::RowsUnbounded))
            .unwrap();
    let mk = |n: usize| -> Vec<In> { (0..n).map(|i| (format!("p{}", i % 256), Some(i as i64), 0, None)).collect() };
    let (small, big) = (batch(&mk(64)), batch(&mk(4096)));
    o.process(&big, &[RowKind::Insert; 4096]).unwrap();
    o.process(&big, &[RowKind::Insert; 4096]).unwrap();
    let (a_small, (s, _)) = count_allocs(|| o.process(&small, &[RowKind::Insert; 64]).unwrap());
    let (a_big, (b, _)) = count_allocs(|| o.process(&big, &[RowKind::Insert; 4096]).unwrap());
    assert_eq!((s.num_rows(), b.num_rows()), (64, 4096));
    assert!(a_big <= a_small + 2 && a_big < 64, "4096 rows {a_big} allocations, 64 rows {a_small}");
}

/// `RowTimeRangeBoundedPrecedingFunction.onTimer`: an outdated cleanup
/// timer (one a later row superseded) still sets `lastTriggeringTs` when it
/// fires, so a row at or before it is late afterwards.
#[test]
fn an_outdated_cleanup_timer_moves_the_last_trigger() {
    let mut o = op(OverTime::RowTime { column: 2 }, OverFrame::Range(3));
    // t=1 registers 1 + 4 + 1 = 6; t=5 needs 9 > 6 and registers 5 + 4 + 1 = 10.
    push(&mut o, &[r("k", 1, 1), r("k", 2, 5)]);
    assert_eq!(wm(&mut o, 7).len(), 2);
    // The timer at 6 fired (the state stays: 10 is the cleanup time).
    push(&mut o, &[r("k", 3, 6)]);
    assert_eq!(o.late_dropped(), 1);
    push(&mut o, &[r("k", 4, 7)]);
    assert_eq!(o.late_dropped(), 1);
    // Frame at 7: rows within 3 of 7 (5 and 7).
    assert_eq!(cols(&wm(&mut o, 8), &[1, 6]), vec![vec![Cell::I(4), Cell::I(6)]]);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// The benches' owned-scalar-key variant of the proctime running fold
    /// (`set_scalar_key_probe`) computes what the model computes, so its
    /// timings compare like with like.
    #[test]
    fn the_scalar_key_probe_matches_the_reference_model(batches in prop::collection::vec(prop::collection::vec(arb_row(), 0..8), 0..10)) {
        let (time, frame) = (OverTime::ProcTime, OverFrame::RowsUnbounded);
        let mut o = op(time, frame);
        o.set_scalar_key_probe(true).unwrap();
        let steps: Vec<Step> = batches.into_iter().map(Step::Rows).collect();
        check(&mut o, &mut Model::new(time, frame), &steps, &mut 0)?;
    }
}

#[test]
fn the_scalar_key_probe_is_for_the_proctime_running_fold_only() {
    let mut o = op(OverTime::RowTime { column: 2 }, OverFrame::RowsUnbounded);
    assert!(matches!(o.set_scalar_key_probe(true), Err(Error::InvalidArgument(_))));
}
