//! Proctime `RANGE BETWEEN INTERVAL x PRECEDING AND CURRENT ROW`
//! (`ProcTimeRangeBoundedPrecedingFunction`) with explicit processing
//! times: a plainly written model of Flink's function and its timer service
//! (every registered timer fires once, in time order, when the clock reaches
//! it; each frame's aggregates recomputed from scratch), the case of
//! Flink's `OverAggregateHarnessTest.testProcTimeBoundedRangeOver`, and
//! snapshot round trips with buffered rows.

use std::collections::{BTreeMap, BTreeSet};

use proptest::prelude::*;
use sluice_keyed::{KeyGroupRange, OverAggregate, OverFrame, OverTime, RowKind};

use super::{aggregates, arb_steps, batch, cols, op, out_row, per_key, r, Cell, In, Row, Step};
use crate::common::changelog;

/// `process_at(rows, now)`: the rows it emits.
fn push_at(o: &mut OverAggregate, rows: &[In], now: i64) -> Vec<Row> {
    let (b, k) = o.process_at(&batch(rows), &vec![RowKind::Insert; rows.len()], now).unwrap();
    changelog(&b, &k).into_iter().map(|r| r.1).collect()
}

/// `advance_processing_time(now)`: the rows it fires.
fn advance(o: &mut OverAggregate, now: i64) -> Vec<Row> {
    let (b, k) = o.advance_processing_time(now).unwrap();
    assert!(k.iter().all(|k| *k == RowKind::Insert));
    changelog(&b, &k).into_iter().map(|r| r.1).collect()
}

/// One key of Flink's function: `inputState` (stamp → rows; the rows of
/// fired stamps are the frame), `cleanupTsState` and the key's registered
/// processing-time timers.
#[derive(Default, Clone)]
struct PKey {
    input: BTreeMap<i64, Vec<In>>,
    cleanup_ts: Option<i64>,
    timers: BTreeSet<i64>,
}

/// The model: Flink's `processElement` / `onTimer`, transcribed.
#[derive(Clone)]
struct ProcModel {
    x: i64,
    now: i64,
    keys: BTreeMap<String, PKey>,
}

impl ProcModel {
    fn new(x: i64) -> Self {
        ProcModel { x, now: i64::MIN, keys: BTreeMap::new() }
    }

    /// The clock moves to `now`: every key's timers up to it fire, in order.
    fn advance(&mut self, now: i64) -> BTreeMap<String, Vec<Row>> {
        self.now = now;
        let mut out = BTreeMap::new();
        for (name, k) in &mut self.keys {
            let mut emitted = Vec::new();
            while let Some(t) = k.timers.first().copied().filter(|t| *t <= now) {
                k.timers.remove(&t);
                Self::on_timer(self.x, k, t, &mut emitted);
            }
            if !emitted.is_empty() {
                out.insert(name.clone(), emitted);
            }
        }
        out
    }

    fn on_timer(x: i64, k: &mut PKey, t: i64, out: &mut Vec<Row>) {
        if k.cleanup_ts.is_some_and(|c| c <= t) {
            k.input.clear();
            k.cleanup_ts = None;
            return;
        }
        let Some(current) = k.input.get(&(t - 1)).cloned() else { return };
        let limit = t - 1 - x;
        k.input.retain(|stamp, _| *stamp >= limit);
        let frame: Vec<&In> = k.input.values().flatten().collect();
        let aggs = aggregates(&frame);
        out.extend(current.iter().map(|r| out_row(r, aggs.clone())));
    }

    /// The clock moves to `now`, then `rows` arrive.
    fn process_at(&mut self, rows: &[In], now: i64) -> BTreeMap<String, Vec<Row>> {
        let out = self.advance(now);
        for r in rows {
            let k = self.keys.entry(r.0.clone()).or_default();
            let list = k.input.entry(now).or_default();
            if list.is_empty() {
                k.timers.insert(now + 1);
                if k.cleanup_ts.is_none_or(|c| c < now + self.x + 1) {
                    let c = now + (self.x as f64 * 1.5) as i64 + 1;
                    k.timers.insert(c);
                    k.cleanup_ts = Some(c);
                }
            }
            list.push(r.clone());
        }
        out
    }
}

/// Runs `steps` (rows at the clock, or the clock moving forward by a delta)
/// through the operator and the model and compares every output.
fn check(o: &mut OverAggregate, m: &mut ProcModel, steps: &[Step], now: &mut i64) -> Result<(), TestCaseError> {
    for s in steps {
        let (got, want) = match s {
            Step::Rows(rows) => (per_key(push_at(o, rows, *now)), m.process_at(rows, *now)),
            Step::Watermark(d) => {
                *now += d.max(&0);
                (per_key(advance(o, *now)), m.advance(*now))
            }
        };
        prop_assert_eq!(got, want, "at {}", *now);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn proctime_range_matches_the_reference_model(
        x in prop::sample::select(vec![0i64, 1, 2, 3, 10, 1000]),
        steps in arb_steps(),
    ) {
        let mut o = op(OverTime::ProcTime, OverFrame::Range(x));
        let mut m = ProcModel::new(x);
        let mut now = 100;
        check(&mut o, &mut m, &steps, &mut now)?;
        // Drain: every registered timer fires.
        prop_assert_eq!(per_key(advance(&mut o, i64::MAX - 1)), m.advance(i64::MAX - 1));
        prop_assert_eq!(o.num_pending(), 0);
    }

    /// Buffered rows, frames and cleanup timers restore (whole, and split
    /// by key-group ranges) into operators that go on exactly as the model.
    #[test]
    fn proctime_range_snapshot_restore(
        x in prop::sample::select(vec![0i64, 2, 10]),
        steps in arb_steps(),
        more in arb_steps(),
    ) {
        let mut o = op(OverTime::ProcTime, OverFrame::Range(x));
        let mut m = ProcModel::new(x);
        let mut now = 100;
        check(&mut o, &mut m, &steps, &mut now)?;
        let whole = o.snapshot(KeyGroupRange::all(128)).unwrap();
        let mut one = op(OverTime::ProcTime, OverFrame::Range(x));
        one.restore(&whole, KeyGroupRange::all(128)).unwrap();
        prop_assert_eq!((one.num_keys(), one.num_pending(), one.size()), (o.num_keys(), o.num_pending(), o.size()));
        let mut parts = 0;
        for i in 0..2 {
            let range = sluice_keyed::key_group_range_for_operator(128, 2, i).unwrap();
            let mut p = op(OverTime::ProcTime, OverFrame::Range(x));
            for (_, blob) in o.snapshot_key_groups(range).unwrap() {
                p.restore(&blob, range).unwrap();
            }
            parts += p.num_pending();
        }
        prop_assert_eq!(parts, o.num_pending());
        // The restored operator's clock starts unset; it goes on at `now`.
        let mut m2 = m.clone();
        let mut now2 = now;
        check(&mut one, &mut m2, &more, &mut now2)?;
        prop_assert_eq!(per_key(advance(&mut one, i64::MAX - 1)), m2.advance(i64::MAX - 1));
    }
}

/// `OverAggregateHarnessTest.testProcTimeBoundedRangeOver` (flink-table-planner,
/// both lines): `MIN(c)`, `MAX(c)` over `RANGE BETWEEN INTERVAL '4' SECOND
/// PRECEDING`, the harness setting processing time explicitly, once back
/// from 3003 to 5. Flink compares the output sorted; the values per row are
/// exact (all rows of one key and millisecond share one value).
#[test]
fn flink_proctime_bounded_range_over() {
    let mut o = op(OverTime::ProcTime, OverFrame::Range(4000));
    let mut out = Vec::new();
    let mut at = |o: &mut OverAggregate, rows: &[In], now: i64| out.extend(push_at(o, rows, now));
    at(&mut o, &[r("aaa", 1, 0), r("bbb", 10, 0)], 3);
    at(&mut o, &[r("aaa", 2, 0)], 4);
    at(&mut o, &[r("aaa", 3, 0), r("bbb", 20, 0)], 3003);
    at(&mut o, &[r("aaa", 4, 0)], 5);
    at(&mut o, &[], 6002);
    at(&mut o, &[r("aaa", 5, 0), r("aaa", 6, 0), r("bbb", 30, 0)], 7002);
    at(&mut o, &[r("aaa", 7, 0)], 11002);
    at(&mut o, &[r("aaa", 8, 0), r("aaa", 9, 0), r("aaa", 10, 0), r("bbb", 40, 0)], 11004);
    out.extend(advance(&mut o, 11006));
    // (key, c, MIN(c), MAX(c)): all_aggs' MIN(v) and MAX(v) are columns 9 and 10.
    let mut got = cols(&out, &[0, 1, 9, 10]);
    got.sort();
    let row = |k: &str, c: i64, lo: i64, hi: i64| vec![Cell::S(k.into()), Cell::I(c), Cell::I(lo), Cell::I(hi)];
    let mut want = vec![
        row("aaa", 1, 1, 1),
        row("bbb", 10, 10, 10),
        row("aaa", 2, 1, 2),
        row("aaa", 3, 1, 4),
        row("bbb", 20, 10, 20),
        row("aaa", 4, 1, 4),
        row("aaa", 5, 3, 6),
        row("aaa", 6, 3, 6),
        row("bbb", 30, 20, 30),
        row("aaa", 7, 5, 7),
        row("aaa", 8, 7, 10),
        row("aaa", 9, 7, 10),
        row("aaa", 10, 7, 10),
        row("bbb", 40, 40, 40),
    ];
    want.sort();
    assert_eq!(got, want);
    // COUNT(*) (column 4) of aaa 5 and 6: the rows stamped 3003 and 5 are in
    // the frame at 7002 (stamps >= 3002), the one at 5 was retracted.
    let counts: Vec<Vec<Cell>> = cols(&out, &[1, 4]).into_iter().filter(|c| matches!(c[0], Cell::I(5 | 6))).collect();
    assert_eq!(counts, vec![vec![Cell::I(5), Cell::I(3)], vec![Cell::I(6), Cell::I(3)]]);
}

/// The processing timer of a stamp fires one millisecond later; rows of one
/// key and stamp share one value; with `INTERVAL '0'` the cleanup timer is
/// that same timer and Flink's `onTimer` clears the state first: nothing is
/// emitted.
#[test]
fn proctime_range_timers() {
    let mut o = op(OverTime::ProcTime, OverFrame::Range(10));
    let e = o.process(&batch(&[r("k", 1, 0)]), &[RowKind::Insert]).unwrap_err();
    assert!(e.to_string().contains("processing time"), "{e}");
    assert!(push_at(&mut o, &[r("k", 1, 0), r("k", 2, 0)], 50).is_empty());
    assert!(advance(&mut o, 50).is_empty());
    assert_eq!(o.num_pending(), 2);
    // (v, COUNT(*), SUM)
    let both = vec![vec![Cell::I(1), Cell::I(2), Cell::I(3)], vec![Cell::I(2), Cell::I(2), Cell::I(3)]];
    assert_eq!(cols(&advance(&mut o, 51), &[1, 4, 6]), both);
    // The timer of 60 keeps the rows at 50 (50 >= 60 - 10); that of 61 retracts them.
    push_at(&mut o, &[r("k", 4, 0)], 60);
    assert_eq!(cols(&advance(&mut o, 61), &[4, 6]), vec![vec![Cell::I(3), Cell::I(7)]]);
    push_at(&mut o, &[r("k", 8, 0)], 61);
    assert_eq!(cols(&advance(&mut o, 62), &[4, 6]), vec![vec![Cell::I(2), Cell::I(12)]]);
    // Cleanup timers: 50 + 15 + 1 = 66, then 60 + 15 + 1 = 76 (61 needs 72 <= 76:
    // none); 66 is outdated, 76 drops the key's state.
    advance(&mut o, 75);
    assert_eq!(o.num_keys(), 1);
    advance(&mut o, 76);
    assert_eq!((o.num_keys(), o.size()), (0, 0));
    let mut zero = op(OverTime::ProcTime, OverFrame::Range(0));
    push_at(&mut zero, &[r("k", 1, 0)], 5);
    assert!(advance(&mut zero, 1000).is_empty());
    assert_eq!((zero.num_keys(), zero.num_pending(), zero.size()), (0, 0, 0));
}
