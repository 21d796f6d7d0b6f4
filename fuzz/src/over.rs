//! `sluice_keyed::OverAggregate` against a model that recomputes every
//! frame from scratch, with a snapshot round trip in the middle and damaged
//! and arbitrary snapshot bytes.
//!
//! Arbitrary batches of `+I` rows `(p VARCHAR, v BIGINT, t BIGINT, s
//! VARCHAR)` and watermark moves (up, down or not at all) go into an OVER
//! partitioned by `p`, ordered by proctime or by the rowtime `t`, over
//! ROWS or RANGE UNBOUNDED PRECEDING, ROWS n PRECEDING or (rowtime) RANGE
//! INTERVAL x PRECEDING, computing COUNT(*), COUNT, SUM, AVG, MIN, MAX,
//! FIRST_VALUE and LAST_VALUE of `v` and MIN, MAX, FIRST_VALUE, LAST_VALUE
//! of `s`. Row times spread around the watermark, so rows are late, ties
//! and out of order.
//!
//! The model keeps, per key, the rows waiting for a timer, the rows already
//! emitted (in emission order) and the key's event-time timers, and follows
//! the Flink functions' `processElement` / `onTimer` literally (see
//! [`Model::accept`] and [`Model::fire`]); each emitted row's aggregates are
//! recomputed over its frame, taken from the emitted rows. The operator's
//! output of one watermark must be in timestamp order and, per key, equal
//! to the model's.
//!
//! Before an arbitrary step the operator is snapshotted and replaced by a
//! fresh one restored from the snapshot (which, as Flink's, starts again at
//! the initial watermark; the model's watermark goes back too). The
//! snapshot, damaged, and raw arbitrary bytes go into `restore` of other
//! fresh operators: an error (leaving the state empty) or success, never a
//! panic; raw bytes are always an error.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use arbitrary::Arbitrary;
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use sluice_keyed::{AggSpec, OverAggregate, OverFrame, OverOptions, OverTime, RowKind};

use crate::rows::{batch_of, changes_of, restored, Cell, Damage, Row};

/// One step of the stream.
#[derive(Arbitrary, Debug, Clone)]
pub enum Step {
    /// A batch of `+I` rows: (partition byte: `% 4 == 3` is NULL, v, time byte, s byte: `None` is NULL).
    Rows(Vec<(u8, Option<i8>, u8, Option<u8>)>),
    /// The watermark moves by `this % 16 − 4` milliseconds.
    Watermark(u8),
}

/// Input of `over_model`.
#[derive(Arbitrary, Debug, Clone)]
pub struct Input {
    /// Ordered by the rowtime `t` (else proctime).
    pub rowtime: bool,
    /// ROWS UNBOUNDED, RANGE UNBOUNDED, ROWS n, RANGE x (proctime: ROWS n) (mod 4).
    pub frame: u8,
    /// n of ROWS (0, 1, 2, 5, 1000) or x of RANGE (0, 1, 3, 10, 1000) (mod 5).
    pub size: u8,
    /// The stream.
    pub steps: Vec<Step>,
    /// Snapshot and restore before this step (mod the step count + 1).
    pub restore_at: u8,
    /// Damage to the snapshot for a second restore.
    pub damage: Damage,
    /// Raw bytes for `restore`.
    pub raw: Vec<u8>,
}

/// `(p, v, t, s)`.
type In = (Option<String>, Option<i64>, i64, Option<String>);

fn cells(r: &In) -> Row {
    vec![Cell::text(r.0.as_deref()), Cell::int(r.1), Cell::I(r.2), Cell::text(r.3.as_deref())]
}

fn schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("p", DataType::Utf8, true),
        Field::new("v", DataType::Int64, true),
        Field::new("t", DataType::Int64, false),
        Field::new("s", DataType::Utf8, true),
    ]))
}

fn aggs() -> Vec<AggSpec> {
    let mut a = vec![AggSpec::count_star(), AggSpec::count(1), AggSpec::sum(1), AggSpec::avg(1)];
    for c in [1, 3] {
        a.extend([AggSpec::min(c), AggSpec::max(c), AggSpec::first_value(c), AggSpec::last_value(c)]);
    }
    a
}

/// The input row followed by [`aggs`] over `frame`, computed plainly (NULLs
/// ignored; AVG is Java long division; strings by their bytes).
fn out_row(r: &In, frame: &[In]) -> Row {
    let vs: Vec<i64> = frame.iter().filter_map(|f| f.1).collect();
    let ss: Vec<&str> = frame.iter().filter_map(|f| f.3.as_deref()).collect();
    let sum: i64 = vs.iter().sum();
    let any = !vs.is_empty();
    let mut row = cells(r);
    row.extend([
        Cell::I(frame.len() as i64),
        Cell::I(vs.len() as i64),
        Cell::int(any.then_some(sum)),
        Cell::int(any.then(|| sum / vs.len() as i64)),
        Cell::int(vs.iter().min().copied()),
        Cell::int(vs.iter().max().copied()),
        Cell::int(vs.first().copied()),
        Cell::int(vs.last().copied()),
        Cell::text(ss.iter().min().copied()),
        Cell::text(ss.iter().max().copied()),
        Cell::text(ss.first().copied()),
        Cell::text(ss.last().copied()),
    ]);
    row
}

/// The state of one key in the model.
#[derive(Default, Clone, Debug)]
struct Key {
    /// Rows waiting for a timer, in arrival order.
    pending: Vec<In>,
    /// Rows emitted, in emission order (the frames are taken from them).
    done: Vec<In>,
    /// Registered event-time timers.
    timers: BTreeSet<i64>,
    /// `lastTriggeringTsState` of the bounded functions (unset reads as 0).
    last_trigger: Option<i64>,
    /// `cleanupTsState` of the RANGE bounded function.
    cleanup: Option<i64>,
}

struct Model {
    rowtime: bool,
    frame: OverFrame,
    watermark: i64,
    keys: BTreeMap<Option<String>, Key>,
}

impl Model {
    fn unbounded(&self) -> bool {
        matches!(self.frame, OverFrame::RowsUnbounded | OverFrame::RangeUnbounded)
    }

    /// The frame of the last row of `done`: ROWS n its last n + 1 rows, every
    /// row otherwise (RANGE x has dropped the older rows already).
    fn frame<'a>(&self, done: &'a [In]) -> &'a [In] {
        match self.frame {
            OverFrame::Rows(n) => &done[done.len().saturating_sub(n as usize + 1)..],
            _ => done,
        }
    }

    /// One row: proctime emits it; rowtime buffers it (`processElement`).
    fn accept(&mut self, r: &In, out: &mut Vec<Row>) {
        let wm = self.watermark;
        let unbounded = self.unbounded();
        let frame = self.frame;
        let k = self.keys.entry(r.0.clone()).or_default();
        if !self.rowtime {
            k.done.push(r.clone());
            let done = k.done.clone();
            out.push(out_row(r, self.frame(&done)));
            return;
        }
        if unbounded {
            // AbstractRowTimeUnboundedPrecedingOver: late at or below the watermark.
            if r.2 <= wm {
                return;
            }
            k.timers.insert(if wm < 0 { 0 } else { wm + 1 });
        } else {
            // RowTime{Rows,Range}BoundedPrecedingFunction: late at or below the last trigger.
            if r.2 <= k.last_trigger.unwrap_or(0) {
                return;
            }
            k.timers.insert(r.2);
            if let OverFrame::Range(x) = frame {
                if k.cleanup.is_none_or(|c| c < r.2 + x + 1) {
                    let c = r.2 + x + x / 2 + 1;
                    k.timers.insert(c);
                    k.cleanup = Some(c);
                }
            }
        }
        k.pending.push(r.clone());
    }

    /// A watermark: every key's timers up to it fire (`onTimer`); returns
    /// the emitted rows per key.
    fn fire(&mut self, w: i64) -> BTreeMap<Option<String>, Vec<Row>> {
        let mut out = BTreeMap::new();
        if !self.rowtime || w <= self.watermark {
            return out;
        }
        self.watermark = w;
        let names: Vec<Option<String>> = self.keys.keys().cloned().collect();
        for name in names {
            let mut k = self.keys.remove(&name).expect("a listed key");
            let mut emitted = Vec::new();
            let keep = if self.unbounded() {
                self.fire_unbounded(&mut k, w, &mut emitted)
            } else {
                self.fire_bounded(&mut k, w, &mut emitted)
            };
            if !emitted.is_empty() {
                out.insert(name.clone(), emitted);
            }
            if keep {
                self.keys.insert(name, k);
            }
        }
        out
    }

    /// `AbstractRowTimeUnboundedPrecedingOver.onTimer`: the key's rows up to
    /// the watermark in time order (ties in arrival order); ROWS emits each
    /// with the aggregate after it, RANGE each row of a timestamp with the
    /// aggregate after all of them; a timer at `w + 1` if rows are left.
    fn fire_unbounded(&self, k: &mut Key, w: i64, out: &mut Vec<Row>) -> bool {
        if k.timers.first().is_none_or(|t| *t > w) {
            return true;
        }
        k.timers.retain(|t| *t > w);
        let mut ready: Vec<In> = k.pending.iter().filter(|r| r.2 <= w).cloned().collect();
        ready.sort_by_key(|r| r.2);
        k.pending.retain(|r| r.2 > w);
        for (i, r) in ready.iter().enumerate() {
            k.done.push(r.clone());
            if self.frame == OverFrame::RangeUnbounded {
                let peers = ready[i + 1..].iter().take_while(|o| o.2 == r.2).count();
                let frame: Vec<In> = k.done.iter().chain(&ready[i + 1..i + 1 + peers]).cloned().collect();
                out.push(out_row(r, &frame));
            } else {
                out.push(out_row(r, &k.done));
            }
        }
        if !k.pending.is_empty() {
            k.timers.insert(w + 1);
        }
        true
    }

    /// `RowTime{Rows,Range}BoundedPrecedingFunction.onTimer`, timer by timer
    /// in time order: the cleanup timer (RANGE) drops the key; any other
    /// emits the rows of its timestamp (ROWS: each over its last n + 1 rows;
    /// RANGE: rows more than x older retracted first, all with one value)
    /// and becomes the last trigger. Returns whether the key keeps state.
    fn fire_bounded(&self, k: &mut Key, w: i64, out: &mut Vec<Row>) -> bool {
        while let Some(ts) = k.timers.first().copied().filter(|t| *t <= w) {
            k.timers.remove(&ts);
            if k.cleanup.is_some_and(|c| c <= ts) {
                return false;
            }
            let rows: Vec<In> = k.pending.iter().filter(|r| r.2 == ts).cloned().collect();
            k.pending.retain(|r| r.2 != ts);
            if let OverFrame::Range(x) = self.frame {
                k.done.retain(|d| ts - d.2 <= x);
                k.done.extend(rows.iter().cloned());
                out.extend(rows.iter().map(|r| out_row(r, &k.done)));
            } else {
                for r in &rows {
                    k.done.push(r.clone());
                    out.push(out_row(r, self.frame(&k.done)));
                }
            }
            k.last_trigger = Some(ts);
        }
        true
    }
}

fn options(input: &Input) -> OverOptions {
    let n = [0u64, 1, 2, 5, 1000][usize::from(input.size % 5)];
    let x = [0i64, 1, 3, 10, 1000][usize::from(input.size % 5)];
    let frame = match input.frame % 4 {
        0 => OverFrame::RowsUnbounded,
        1 => OverFrame::RangeUnbounded,
        3 if input.rowtime => OverFrame::Range(x),
        _ => OverFrame::Rows(n),
    };
    let time = if input.rowtime { OverTime::RowTime { column: 2 } } else { OverTime::ProcTime };
    OverOptions::new(time, frame)
}

/// The rows of one watermark's output per key, after checking they are in
/// timestamp order.
fn by_key(rows: Vec<Row>) -> BTreeMap<Option<String>, Vec<Row>> {
    let times: Vec<&Cell> = rows.iter().map(|r| &r[2]).collect();
    assert!(times.windows(2).all(|p| p[0] <= p[1]), "a watermark's output in timestamp order: {times:?}");
    let mut m: BTreeMap<Option<String>, Vec<Row>> = BTreeMap::new();
    for r in rows {
        let key = match &r[0] {
            Cell::S(s) => Some(s.clone()),
            _ => None,
        };
        m.entry(key).or_default().push(r);
    }
    m
}

/// Runs the check on one input; panics on a mismatch.
pub fn check(input: &Input) {
    let opts = options(input);
    let operator = || OverAggregate::new(schema(), vec![0], aggs(), opts.clone()).expect("OVER operator");
    let mut op = operator();
    let mut model = Model { rowtime: input.rowtime, frame: opts.frame, watermark: i64::MIN, keys: BTreeMap::new() };
    let mut w = 0i64;
    let restore_at = usize::from(input.restore_at) % (input.steps.len() + 1);
    for (n, step) in input.steps.iter().enumerate() {
        if n == restore_at {
            op = restored(&op, &operator, &input.damage, &input.raw);
            model.watermark = i64::MIN;
        }
        match step {
            Step::Rows(rows) => {
                let rows: Vec<In> = rows
                    .iter()
                    .map(|&(p, v, t, s)| {
                        let p = (p % 4 != 3).then(|| format!("p{}", p % 4));
                        (
                            p,
                            v.map(|v| i64::from(v % 20)),
                            i64::from(t % 32) - 4,
                            s.map(|s| ["", "x", "yy", "z"][usize::from(s % 4)].to_string()),
                        )
                    })
                    .collect();
                let mut want = Vec::new();
                rows.iter().for_each(|r| model.accept(r, &mut want));
                let cells: Vec<Row> = rows.iter().map(cells).collect();
                let out =
                    op.process(&batch_of(&schema(), &cells), &vec![RowKind::Insert; rows.len()]).expect("process");
                let got = changes_of(&out);
                assert!(got.iter().all(|c| c.0 == RowKind::Insert), "OVER emits +I only");
                let got: Vec<Row> = got.into_iter().map(|c| c.1).collect();
                assert_eq!(got, want, "step {n}: rows ({opts:?})");
            }
            Step::Watermark(d) => {
                w += i64::from(d % 16) - 4;
                let got = by_key(
                    changes_of(&op.advance_watermark(w).expect("advance_watermark")).into_iter().map(|c| c.1).collect(),
                );
                assert_eq!(got, model.fire(w), "step {n}: watermark {w} ({opts:?})");
            }
        }
    }
    if restore_at == input.steps.len() {
        op = restored(&op, &operator, &input.damage, &input.raw);
        model.watermark = i64::MIN;
    }
    // Drain: every buffered row fires.
    let end = i64::MAX - 1;
    let got =
        by_key(changes_of(&op.advance_watermark(end).expect("advance_watermark")).into_iter().map(|c| c.1).collect());
    assert_eq!(got, model.fire(end), "final watermark ({opts:?})");
}
