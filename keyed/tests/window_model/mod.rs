//! A plainly written reference model of Flink's window TVF aggregate:
//! every row is materialised into every window it belongs to (unless that
//! window had already fired when the row arrived, Flink's late-row rule),
//! each window's aggregates are computed from scratch over its rows, and a
//! watermark emits the non-empty windows whose `end - 1` it reached, by
//! window end.
#![allow(dead_code)]

use std::collections::BTreeMap;

use sluice_keyed::{WindowKind, WindowSpec};

/// An input row: key, BIGINT value, DOUBLE value, VARCHAR value, rowtime.
#[derive(Clone, Debug)]
pub struct Row {
    pub k: Option<String>,
    pub v: Option<i64>,
    pub f: Option<f64>,
    pub s: Option<String>,
    pub t: i64,
}

/// An output cell; doubles by bits, timestamps as millis.
pub use crate::common::Cell;
use crate::common::{bigint_aggs, Value};

fn floor(ts: i64, offset: i64, size: i64) -> i64 {
    ts - (ts - offset).rem_euclid(size)
}

/// The windows `[start, end)` that contain `ts`.
pub fn windows_of(w: &WindowSpec, ts: i64) -> Vec<(i64, i64)> {
    match w.kind {
        WindowKind::Tumble { size } => {
            let s = floor(ts, w.offset, size);
            vec![(s, s + size)]
        }
        WindowKind::Hop { size, slide } => {
            let mut out = Vec::new();
            let mut s = floor(ts, w.offset, slide);
            while s > ts - size {
                out.push((s, s + size));
                s -= slide;
            }
            out
        }
        WindowKind::Cumulate { max_size, step } => {
            let s = floor(ts, w.offset, max_size);
            (1..=max_size / step).map(|k| (s, s + k * step)).filter(|&(_, e)| ts < e).collect()
        }
    }
}

/// The aggregates the tests compute, in output order.
pub const AGGS: &str =
    "count(*), count(v), sum(v), sum0(v), avg(v), min(v), max(v), sum(f), avg(f), min(f), max(f), min(s), max(s)";

fn aggregate(rows: &[&Row]) -> Vec<Cell> {
    let vs: Vec<i64> = rows.iter().filter_map(|r| r.v).collect();
    let fs: Vec<f64> = rows.iter().filter_map(|r| r.f).collect();
    let ss: Vec<&str> = rows.iter().filter_map(|r| r.s.as_deref()).collect();
    let sum_f: f64 = fs.iter().sum();
    let mut out = bigint_aggs(rows.len(), &vs);
    out.extend([
        (!fs.is_empty()).then_some(sum_f).cell(),
        (!fs.is_empty()).then(|| sum_f / fs.len() as f64).cell(),
        fs.iter().copied().reduce(f64::min).cell(),
        fs.iter().copied().reduce(f64::max).cell(),
    ]);
    out.extend([ss.iter().min(), ss.iter().max()].map(|s| s.copied().cell()));
    out
}

/// The model operator.
pub struct Model {
    pub window: WindowSpec,
    watermark: i64,
    /// (window end, key, window start) → rows counted in it.
    windows: BTreeMap<(i64, Option<String>, i64), Vec<Row>>,
    pub late: u64,
}

impl Model {
    pub fn new(window: WindowSpec) -> Self {
        Model { window, watermark: i64::MIN, windows: BTreeMap::new(), late: 0 }
    }

    fn fired(&self, end: i64) -> bool {
        end != i64::MAX && self.watermark >= end - 1
    }

    pub fn push(&mut self, rows: &[Row]) {
        for r in rows {
            let open: Vec<(i64, i64)> =
                windows_of(&self.window, r.t).into_iter().filter(|&(_, e)| !self.fired(e)).collect();
            if open.is_empty() {
                self.late += 1;
            }
            for (s, e) in open {
                self.windows.entry((e, r.k.clone(), s)).or_default().push(r.clone());
            }
        }
    }

    /// The rows a watermark emits, sorted within each window end:
    /// `key, aggregates, window_start, window_end, window_time`.
    pub fn watermark(&mut self, wm: i64) -> Vec<Vec<Cell>> {
        if wm <= self.watermark {
            return Vec::new();
        }
        self.watermark = wm;
        let due: Vec<_> = self.windows.keys().filter(|(e, _, _)| self.fired(*e)).cloned().collect();
        let mut out = Vec::new();
        for k in due {
            let rows = self.windows.remove(&k).unwrap_or_default();
            let refs: Vec<&Row> = rows.iter().collect();
            let mut row = vec![k.1.clone().map_or(Cell::Null, Cell::S)];
            row.extend(aggregate(&refs));
            row.extend([Cell::I(k.2), Cell::I(k.0), Cell::I(k.0 - 1)]);
            out.push(row);
        }
        sort_by_end(&mut out);
        out
    }
}

/// Sorts rows by window end (the second-last column), then by content.
pub fn sort_by_end(rows: &mut [Vec<Cell>]) {
    rows.sort_by(|a, b| (&a[a.len() - 2], a).cmp(&(&b[b.len() - 2], b)));
}
