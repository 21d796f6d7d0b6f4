//! OVER aggregation: the borrowed-byte operator beside its owned-key
//! variant (a fresh `Vec<u8>` partition key per probe) and, for the running
//! fold, its owned-scalar-key variant (a `Vec` of owned scalar values per
//! row, hashed and compared as scalars: the key the OVER loops built before
//! they probed borrowed bytes) and a plainly written scalar reference
//! (owned `String` keys in a `HashMap`, one output row built per input
//! row), in one run.
//!
//! 4,096-row batches over 1, 256 and 4,096 partitions. Each case first
//! prints allocations per row (counting allocator below) and interleaved
//! minimum / median times, then runs the criterion groups:
//!
//! * `over/running_fold`: `COUNT(*), SUM(v) OVER (PARTITION BY p ORDER BY
//!   proctime ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)`
//!   (`ProcTimeUnboundedPrecedingFunction`), every key already in state.
//!   The printed lines add `key_copy`: the owned variant's extra work alone
//!   (a fresh `Vec` per row's key bytes, copied and freed), the floor that
//!   bounds borrowed / owned (2× needs borrowed ≤ key_copy per row).
//! * `over/bounded_rows`: `SUM(v), MAX(v) OVER (… ROWS BETWEEN 9 PRECEDING
//!   AND CURRENT ROW)` (`ProcTimeRowsBoundedPrecedingFunction`: a retraction
//!   and an accumulation per row once the frames are full).
//! * `over/rowtime_fold`: the running fold ordered by rowtime
//!   (`RowTimeRowsUnboundedPrecedingFunction`): one iteration buffers a
//!   batch (a fresh rowtime column each time) and fires it with the next
//!   watermark.
//!
//! Run: `cargo bench -p sluice-keyed --bench over -- --warm-up-time 1 --measurement-time 3`

mod support;

use std::collections::HashMap;
use std::hint::black_box;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use arrow_array::{ArrayRef, Int64Array, RecordBatch};
use criterion::{criterion_group, criterion_main, Criterion};
use sluice_kernels::alloc_count::CountingAlloc;
use sluice_keyed::{AggSpec, FlinkKeyEncoder, KeyBlock, OverAggregate, OverFrame, OverOptions, OverTime, RowKind};

#[global_allocator]
static A: CountingAlloc = CountingAlloc::system();

const ROWS: usize = 4096;
const PARTITIONS: [usize; 3] = [1, 256, 4096];

/// `p` VARCHAR partition, `v` BIGINT value, `t` BIGINT rowtime (`t0 + i`).
fn batch(parts: usize, t0: i64) -> RecordBatch {
    let p = support::partitions(ROWS, parts);
    let v: ArrayRef = Arc::new(Int64Array::from((0..ROWS).map(|i| (i as i64 * 7919) % 1000).collect::<Vec<_>>()));
    let t: ArrayRef = Arc::new(Int64Array::from((0..ROWS).map(|i| t0 + i as i64).collect::<Vec<_>>()));
    RecordBatch::try_from_iter([("p", p), ("v", v), ("t", t)]).unwrap()
}

/// The operator computing `aggs` over `time` and `frame`, twice: borrowed
/// key probes, then owned ones.
fn over(time: OverTime, frame: OverFrame, aggs: &[AggSpec]) -> [OverAggregate; 2] {
    let schema = batch(1, 0).schema();
    [false, true].map(|owned| {
        let opts = OverOptions::new(time, frame);
        let mut o = OverAggregate::new(schema.clone(), vec![0], aggs.to_vec(), opts).unwrap();
        o.set_owned_key_probe(owned);
        o
    })
}

/// The scalar running fold: owned keys, one output row per input row.
#[derive(Default)]
struct Model {
    keys: HashMap<String, (i64, i64)>,
    out: Vec<(String, i64, i64, i64)>,
}

impl Model {
    fn step(&mut self, b: &RecordBatch) {
        let p = b.column(0).as_string::<i32>();
        let v = b.column(1).as_primitive::<Int64Type>();
        self.out.clear();
        for i in 0..b.num_rows() {
            let key = p.value(i).to_string();
            let acc = self.keys.entry(key.clone()).or_default();
            acc.0 += 1;
            acc.1 += v.value(i);
            self.out.push((key, v.value(i), acc.0, acc.1));
        }
    }
}

fn running_fold(c: &mut Criterion) {
    let mut g = support::Group::new(c, "over/running_fold", ROWS);
    let kinds = vec![RowKind::Insert; ROWS];
    for parts in PARTITIONS {
        let b = batch(parts, 0);
        let aggs = [AggSpec::count_star(), AggSpec::sum(1)];
        let [borrowed, owned] = over(OverTime::ProcTime, OverFrame::RowsUnbounded, &aggs);
        let [mut scalar, _] = over(OverTime::ProcTime, OverFrame::RowsUnbounded, &aggs);
        scalar.set_scalar_key_probe(true).unwrap();
        let mut ops = [borrowed, owned, scalar];
        let mut model = Model::default();
        for o in &mut ops {
            o.process(&b, &kinds).unwrap();
        }
        model.step(&b);
        let [borrowed, owned, scalar] = &mut ops;
        let mut run_b = || drop(black_box(borrowed.process(&b, &kinds).unwrap()));
        let mut run_o = || drop(black_box(owned.process(&b, &kinds).unwrap()));
        let mut run_s = || drop(black_box(scalar.process(&b, &kinds).unwrap()));
        let mut run_m = || model.step(black_box(&b));
        // The owned variant's extra work alone: one fresh `Vec` per row's
        // key bytes, copied and freed (its floor: 2× needs borrowed ≤ this).
        let enc = FlinkKeyEncoder::try_new(b.columns(), &[0]).unwrap();
        let mut block = KeyBlock::new();
        block.fill_flink(&enc).unwrap();
        let mut run_k = || {
            for i in 0..block.len() {
                drop(black_box(block.row(i).to_vec()));
            }
        };
        g.report(parts, &mut [("key_copy", &mut run_k)]);
        g.compare(
            parts,
            &mut [("borrowed", &mut run_b), ("owned", &mut run_o), ("scalar", &mut run_s), ("reference", &mut run_m)],
        );
    }
    g.finish();
}

fn bounded_rows(c: &mut Criterion) {
    let mut g = support::Group::new(c, "over/bounded_rows", ROWS);
    let kinds = vec![RowKind::Insert; ROWS];
    for parts in PARTITIONS {
        let b = batch(parts, 0);
        let mut ops = over(OverTime::ProcTime, OverFrame::Rows(9), &[AggSpec::sum(1), AggSpec::max(1)]);
        for o in &mut ops {
            // Fill every frame (10 rows per partition).
            for _ in 0..10 {
                o.process(&b, &kinds).unwrap();
            }
        }
        let [borrowed, owned] = &mut ops;
        let mut run_b = || drop(black_box(borrowed.process(&b, &kinds).unwrap()));
        let mut run_o = || drop(black_box(owned.process(&b, &kinds).unwrap()));
        g.compare(parts, &mut [("borrowed", &mut run_b), ("owned", &mut run_o)]);
    }
    g.finish();
}

fn rowtime_fold(c: &mut Criterion) {
    let mut g = support::Group::new(c, "over/rowtime_fold", ROWS);
    let kinds = vec![RowKind::Insert; ROWS];
    for parts in PARTITIONS {
        let time = OverTime::RowTime { column: 2 };
        let mut ops = over(time, OverFrame::RowsUnbounded, &[AggSpec::count_star(), AggSpec::sum(1)]);
        let mut ts = [0i64; 2];
        let base = batch(parts, 0);
        // The partition and value columns are shared; only the rowtimes move on.
        let step = |o: &mut OverAggregate, t: &mut i64| {
            // After the watermark `t`: a row at `t` would be late.
            let times: ArrayRef = Arc::new(Int64Array::from_iter_values(*t + 1..=*t + ROWS as i64));
            let b = RecordBatch::try_new(base.schema(), vec![base.column(0).clone(), base.column(1).clone(), times])
                .unwrap();
            o.process(&b, &kinds).unwrap();
            *t += ROWS as i64;
            let (out, _) = o.advance_watermark(*t).unwrap();
            assert_eq!(out.num_rows(), ROWS);
        };
        for (o, t) in ops.iter_mut().zip(ts.iter_mut()) {
            step(o, t);
        }
        let [borrowed, owned] = &mut ops;
        let [tb, to] = &mut ts;
        let mut run_b = || step(borrowed, tb);
        let mut run_o = || step(owned, to);
        g.compare(parts, &mut [("borrowed", &mut run_b), ("owned", &mut run_o)]);
    }
    g.finish();
}

criterion_group!(benches, running_fold, bounded_rows, rowtime_fold);
criterion_main!(benches);
