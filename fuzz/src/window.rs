//! `sluice_keyed::WindowAggregate` against a plainly written model, with a
//! snapshot round trip in the middle.
//!
//! An arbitrary sequence of row batches and watermarks goes into a window
//! aggregate (COUNT(*), SUM, MIN, MAX of a nullable BIGINT, grouped by a
//! nullable VARCHAR key) over TUMBLE, HOP, CUMULATE or a window attached by
//! an upstream HOP (the row's time is its `window_end`). Row times are drawn
//! above the current watermark, so no row is late and the model needs no
//! slice rules: it keeps one accumulator per `(key, window)` for every
//! window that contains the row (Flink's window TVF definitions) and emits
//! the windows whose end − 1 the watermark reached. At an arbitrary point
//! the operator is snapshotted and replaced by a fresh one restored from
//! the snapshot; everything it emits afterwards must still equal the model.

use std::collections::BTreeMap;
use std::sync::Arc;

use arbitrary::Arbitrary;
use arrow_array::cast::AsArray;
use arrow_array::types::{Int64Type, TimestampMillisecondType};
use arrow_array::{Array, Int64Array, RecordBatch, StringArray, TimestampMillisecondArray};
use arrow_schema::{DataType, Field, Schema, SchemaRef, TimeUnit};
use sluice_keyed::{AggSpec, KeyGroupRange, RowKind, WindowAggOptions, WindowAggregate, WindowSpec};

/// One step of the stream.
#[derive(Arbitrary, Debug, Clone)]
pub enum Step {
    /// A batch of rows: (key byte: `% 4 == 3` is NULL, value, time offset above the watermark).
    Rows(Vec<(u8, Option<i32>, u8)>),
    /// The watermark moves up by this many milliseconds.
    Watermark(u8),
}

/// Input of `window_model`.
#[derive(Arbitrary, Debug, Clone)]
pub struct Input {
    /// 0 TUMBLE, 1 HOP, 2 CUMULATE, 3 attached to a HOP.
    pub kind: u8,
    /// Slice size (slide / step / tumbling size), 1 + this % 7 ms.
    pub unit: u8,
    /// Window size in slices (HOP / CUMULATE), 1 + this % 4.
    pub slices: u8,
    /// The stream.
    pub steps: Vec<Step>,
    /// Snapshot and restore before this step (mod the step count + 1).
    pub restore_at: u8,
}

type Key = Option<String>;
/// `(count, sum over non-NULL values or None, min, max)` of one window.
type Acc = (i64, Option<i64>, Option<i64>, Option<i64>);
/// One emitted row: key, the four aggregates, window_start, window_end.
type Out = (Key, i64, Option<i64>, Option<i64>, Option<i64>, i64, i64);

fn schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("k", DataType::Utf8, true),
        Field::new("v", DataType::Int64, true),
        Field::new("t", DataType::Timestamp(TimeUnit::Millisecond, None), false),
    ]))
}

/// The window ends containing time `t`, and the start of the window ending at `end`.
struct Windows {
    kind: u8,
    unit: i64,
    size: i64,
}

impl Windows {
    fn ends(&self, t: i64) -> Vec<i64> {
        let slice_end = t.div_euclid(self.unit) * self.unit + self.unit;
        match self.kind {
            0 => vec![slice_end],
            // HOP: every window [s, s + size) with s a multiple of the slide and s <= t < s + size.
            1 => (0..self.size / self.unit).map(|j| slice_end + j * self.unit).collect(),
            // CUMULATE: the windows of t's max-size period whose end is past t.
            2 => {
                let start = t.div_euclid(self.size) * self.size;
                (1..=self.size / self.unit).map(|j| start + j * self.unit).filter(|&e| e > t).collect()
            }
            _ => vec![t],
        }
    }

    fn start(&self, end: i64) -> i64 {
        match self.kind {
            2 => (end - 1).div_euclid(self.size) * self.size,
            0 => end - self.unit,
            _ => end - self.size,
        }
    }
}

fn operator(spec: WindowSpec) -> WindowAggregate {
    let aggs = vec![AggSpec::count_star(), AggSpec::sum(1), AggSpec::min(1), AggSpec::max(1)];
    let mut opts = WindowAggOptions::new(spec, 2);
    opts.window_time = false;
    WindowAggregate::new(schema(), vec![0], aggs, opts).expect("window operator")
}

fn rows_of(b: &RecordBatch) -> Vec<Out> {
    let opt = |c: usize, i: usize| {
        let a = b.column(c).as_primitive::<Int64Type>();
        a.is_valid(i).then(|| a.value(i))
    };
    let ts = |c: usize, i: usize| b.column(c).as_primitive::<TimestampMillisecondType>().value(i);
    let k = b.column(0).as_string::<i32>();
    let mut out: Vec<Out> = (0..b.num_rows())
        .map(|i| {
            let key = k.is_valid(i).then(|| k.value(i).to_string());
            let count = b.column(1).as_primitive::<Int64Type>().value(i);
            (key, count, opt(2, i), opt(3, i), opt(4, i), ts(5, i), ts(6, i))
        })
        .collect();
    out.sort();
    out
}

const ALL: KeyGroupRange = KeyGroupRange::new(0, 127);

/// Runs the check on one input; panics on a mismatch.
pub fn check(input: &Input) {
    let unit = 1 + i64::from(input.unit % 7);
    let size = unit * (1 + i64::from(input.slices % 4));
    let (spec, w) = match input.kind % 4 {
        0 => (WindowSpec::tumble(unit), Windows { kind: 0, unit, size: unit }),
        1 => (WindowSpec::hop(size, unit), Windows { kind: 1, unit, size }),
        2 => (WindowSpec::cumulate(size, unit), Windows { kind: 2, unit, size }),
        _ => (WindowSpec::hop(size, unit).attached(), Windows { kind: 3, unit, size }),
    };
    let mut op = operator(spec);
    let mut model: BTreeMap<(i64, Key), Acc> = BTreeMap::new();
    let mut watermark: i64 = -1;
    let restore_at = usize::from(input.restore_at) % (input.steps.len() + 1);
    for (n, step) in input.steps.iter().enumerate() {
        if n == restore_at {
            let snap = op.snapshot(ALL).expect("snapshot");
            let mut fresh = operator(spec);
            fresh.restore(&snap, ALL).expect("restore of a fresh snapshot");
            assert_eq!(fresh.num_keys(), op.num_keys(), "keys after restore");
            op = fresh;
        }
        match step {
            Step::Rows(rows) => {
                let times: Vec<i64> = rows
                    .iter()
                    .map(|r| {
                        let above = i64::from(r.2 % 24);
                        if w.kind == 3 {
                            // A window end the watermark has not reached: end - 1 > watermark.
                            (watermark + 1).div_euclid(unit) * unit + unit * (1 + above % 4)
                        } else {
                            watermark + 1 + above
                        }
                    })
                    .collect();
                let keys: Vec<Key> = rows.iter().map(|r| (r.0 % 4 != 3).then(|| format!("k{}", r.0 % 4))).collect();
                let values: Vec<Option<i64>> = rows.iter().map(|r| r.1.map(i64::from)).collect();
                for ((key, v), &t) in keys.iter().zip(&values).zip(&times) {
                    for end in w.ends(t) {
                        let acc = model.entry((end, key.clone())).or_insert((0, None, None, None));
                        acc.0 += 1;
                        if let Some(v) = *v {
                            acc.1 = Some(acc.1.unwrap_or(0) + v);
                            acc.2 = Some(acc.2.map_or(v, |m| m.min(v)));
                            acc.3 = Some(acc.3.map_or(v, |m| m.max(v)));
                        }
                    }
                }
                let batch = RecordBatch::try_new(
                    schema(),
                    vec![
                        Arc::new(keys.iter().map(|k| k.as_deref()).collect::<StringArray>()),
                        Arc::new(values.iter().copied().collect::<Int64Array>()),
                        Arc::new(TimestampMillisecondArray::from(times)),
                    ],
                )
                .expect("batch");
                op.process(&batch, &vec![RowKind::Insert; rows.len()]).expect("process");
            }
            Step::Watermark(d) => {
                watermark += i64::from(*d);
                let out = op.advance_watermark(watermark).expect("advance_watermark");
                let fired: Vec<(i64, Key)> =
                    model.keys().take_while(|(end, _)| end - 1 <= watermark).cloned().collect();
                let mut want: Vec<Out> = fired
                    .into_iter()
                    .map(|(end, key)| {
                        let (c, s, mn, mx) = model.remove(&(end, key.clone())).expect("fired window");
                        (key, c, s, mn, mx, w.start(end), end)
                    })
                    .collect();
                want.sort();
                assert_eq!(rows_of(&out), want, "windows fired by watermark {watermark} ({spec:?})");
            }
        }
    }
}
