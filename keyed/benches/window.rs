//! Window aggregation: the contiguous-range fold against the `take`
//! variant, and string MIN/MAX selecting the winner against copying every
//! candidate string, in one run.
//!
//! 4,096-row batches over 1, 256 and 4,096 keys (`key-{i % keys}`), rowtime
//! `i` ms into a HOP(4 s, 1 s) window, so a batch spans 5 slices and the
//! rows of one (key, slice) are contiguous with 1 key and single rows with
//! 4,096. One iteration is one `process` of the batch into a state that
//! already holds its keys and slices (no watermark: the fold path alone).
//! Each case first prints allocations per batch (counting allocator below).
//!
//! * `window/fold`: COUNT(*), SUM, MIN, MAX, AVG of BIGINT; `slices`
//!   (folds each run from `&values[run]`) vs `take` (groups the rows by
//!   slot and folds a `take` of each group, the replaced behaviour).
//! * `window/minmax_str`: MIN and MAX of VARCHAR; `winner` (compares
//!   borrowed bytes, copies the run's winner only when it beats the stored
//!   value) vs `copy_every` (an owned copy of every candidate).
//!
//! Run: `cargo bench -p sluice-keyed --bench window -- --warm-up-time 1 --measurement-time 3`

use std::hint::black_box;
use std::sync::Arc;

use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray, TimestampMillisecondArray};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use sluice_kernels::alloc_count::{count_allocs, CountingAlloc};
use sluice_keyed::{AggSpec, RowKind, WindowAggOptions, WindowAggregate, WindowSpec};

#[global_allocator]
static A: CountingAlloc = CountingAlloc::system();

const ROWS: usize = 4096;
const KEYS: [usize; 3] = [1, 256, 4096];

/// `k` VARCHAR key, `v` BIGINT, `s` VARCHAR (scrambled values), `t` rowtime.
fn batch(keys: usize) -> RecordBatch {
    let k: ArrayRef = Arc::new(StringArray::from((0..ROWS).map(|i| format!("key-{}", i % keys)).collect::<Vec<_>>()));
    let v: ArrayRef = Arc::new(Int64Array::from((0..ROWS).map(|i| (i as i64 * 7919) % 10007).collect::<Vec<_>>()));
    let s: ArrayRef = Arc::new(StringArray::from(
        (0..ROWS).map(|i| format!("value-{:08}", (i * 7919) % 100_000)).collect::<Vec<_>>(),
    ));
    let t: ArrayRef = Arc::new(TimestampMillisecondArray::from((0..ROWS as i64).collect::<Vec<_>>()));
    RecordBatch::try_from_iter([("k", k), ("v", v), ("s", s), ("t", t)]).unwrap()
}

fn op(b: &RecordBatch, aggs: Vec<AggSpec>, take: bool, copy_every: bool) -> WindowAggregate {
    let opts = WindowAggOptions::new(WindowSpec::hop(4000, 1000), 3);
    let mut o = WindowAggregate::new(b.schema(), vec![0], aggs, opts).unwrap();
    o.set_take_variant(take, copy_every);
    // Keys and slices enter state here; the measured batches find them.
    o.process(b, &[RowKind::Insert; ROWS]).unwrap();
    o
}

fn numeric() -> Vec<AggSpec> {
    vec![AggSpec::count_star(), AggSpec::sum(1), AggSpec::min(1), AggSpec::max(1), AggSpec::avg(1)]
}

fn strings() -> Vec<AggSpec> {
    vec![AggSpec::min(2), AggSpec::max(2)]
}

fn run_group(c: &mut Criterion, name: &str, aggs: fn() -> Vec<AggSpec>, variants: [(&str, bool, bool); 2]) {
    let kinds = vec![RowKind::Insert; ROWS];
    let mut g = c.benchmark_group(name);
    g.throughput(Throughput::Elements(ROWS as u64));
    for keys in KEYS {
        let b = batch(keys);
        for (label, take, copy_every) in variants {
            let mut o = op(&b, aggs(), take, copy_every);
            let (n, _) = count_allocs(|| o.process(&b, &kinds).unwrap());
            println!("{name}/{label}/{keys}: {n} allocations per 4,096-row batch");
            g.bench_with_input(BenchmarkId::new(label, keys), &b, |bench, b| {
                bench.iter(|| o.process(black_box(b), &kinds).unwrap())
            });
        }
    }
    g.finish();
}

fn benches(c: &mut Criterion) {
    run_group(c, "window/fold", numeric, [("slices", false, false), ("take", true, false)]);
    run_group(c, "window/minmax_str", strings, [("winner", false, false), ("copy_every", false, true)]);
}

criterion_group!(window, benches);
criterion_main!(window);
