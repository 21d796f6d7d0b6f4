//! Keyed operators: borrowed-key probes vs an owned-key variant (a fresh
//! `Vec<u8>` key per probe), side by side in one criterion group each.
//!
//! 4096-row batches with 1, 128 and 4096 distinct BIGINT keys (plus a VARCHAR
//! column). Before the timings, each case prints its allocations per row
//! (measured with the counting allocator installed below) and a paired
//! ratio: borrowed and owned runs interleaved, minimum and median time of
//! each (the minimum is the figure least disturbed by other processes on a
//! shared machine).
//!
//! Run: `cargo bench -p sluice-benches --bench keyed -- --warm-up-time 1 --measurement-time 3`

use std::hint::black_box;
use std::sync::Arc;

use arrow_array::{ArrayRef, Float64Array, Int64Array, RecordBatch, StringArray, UInt32Array};
use arrow_select::take::take;
use criterion::measurement::WallTime;
use criterion::{criterion_group, criterion_main, BenchmarkGroup, BenchmarkId, Criterion, Throughput};
use sluice_kernels::alloc_count::CountingAlloc;
use sluice_keyed::{
    hash_binary_row, AggSpec, ChannelAssigner, DedupOptions, DedupOrder, Deduplicate, FlinkKeyEncoder, GroupAggOptions,
    GroupAggregate, Keep, KeyEncoder, KeyedExchange, RowKind,
};

mod pairing;
use pairing::{paired, report, ROWS};

#[global_allocator]
static A: CountingAlloc = CountingAlloc::system();

const KEYS: [usize; 3] = [1, 128, 4096];
const MAX_P: i32 = 128;
const P: i32 = 8;

fn batch(distinct: usize) -> RecordBatch {
    let k: ArrayRef = Arc::new(Int64Array::from((0..ROWS).map(|i| ((i % distinct) as i64) * 7919).collect::<Vec<_>>()));
    let v: ArrayRef = Arc::new(Int64Array::from((0..ROWS).map(|i| (i % 16) as i64).collect::<Vec<_>>()));
    let x: ArrayRef = Arc::new(Float64Array::from((0..ROWS).map(|i| i as f64 * 0.5).collect::<Vec<_>>()));
    let s: ArrayRef = Arc::new(StringArray::from((0..ROWS).map(|i| format!("payload string {i}")).collect::<Vec<_>>()));
    let t: ArrayRef = Arc::new(Int64Array::from(vec![1000i64; ROWS]));
    RecordBatch::try_from_iter([("k", k), ("v", v), ("x", x), ("s", s), ("t", t)]).unwrap()
}

/// The owned-key exchange: same encoder, hash and split, but every row's
/// key goes into a fresh `Vec<u8>`.
fn split_owned(batch: &RecordBatch, assigner: &ChannelAssigner, per_channel: &mut [Vec<u32>]) -> Vec<RecordBatch> {
    let enc = FlinkKeyEncoder::try_new(batch.columns(), &[0]).unwrap();
    for v in per_channel.iter_mut() {
        v.clear();
    }
    for i in 0..batch.num_rows() {
        let mut key = Vec::new();
        enc.encode_row(i, &mut key).unwrap();
        let ch = assigner.channel(assigner.key_group(hash_binary_row(&key).unwrap()));
        per_channel[ch].push(i as u32);
    }
    per_channel
        .iter()
        .map(|idx| {
            let idx = UInt32Array::from(idx.clone());
            let cols = batch.columns().iter().map(|c| take(c.as_ref(), &idx, None).unwrap()).collect::<Vec<_>>();
            RecordBatch::try_new(batch.schema(), cols).unwrap()
        })
        .collect()
}

fn exchange(c: &mut Criterion) {
    let mut g = c.benchmark_group("keyed/exchange_split");
    g.throughput(Throughput::Elements(ROWS as u64));
    for d in KEYS {
        let b = batch(d);
        let mut ex = KeyedExchange::new(vec![0], MAX_P, P).unwrap();
        let mut per = vec![Vec::new(); P as usize];
        let asg = ex.assigner().clone();
        report("exchange borrowed", d, || drop(black_box(ex.split(&b).unwrap())));
        report("exchange owned", d, || drop(black_box(split_owned(&b, &asg, &mut per))));
        paired(
            "exchange",
            d,
            || drop(black_box(ex.split(&b).unwrap())),
            || drop(black_box(split_owned(&b, &asg, &mut per))),
        );
        g.bench_with_input(BenchmarkId::new("borrowed", d), &b, |bn, b| bn.iter(|| black_box(ex.split(b).unwrap())));
        g.bench_with_input(BenchmarkId::new("owned", d), &b, |bn, b| {
            bn.iter(|| black_box(split_owned(b, &asg, &mut per)))
        });
    }
    g.finish();
}

fn group_agg(c: &mut Criterion) {
    // Append-only input (Flink plans the non-retract MIN/MAX for it); every
    // row changes its group's values, so each row emits -U/+U.
    type AggList = fn() -> Vec<AggSpec>;
    let sets: [(&str, AggList); 2] = [
        ("keyed/group_agg_keys_in_state", || {
            vec![AggSpec::count_star(), AggSpec::sum(1), AggSpec::min(1), AggSpec::max(1), AggSpec::avg(2)]
        }),
        ("keyed/group_agg_count_sum_keys_in_state", || vec![AggSpec::count_star(), AggSpec::sum(1)]),
    ];
    let kinds = vec![RowKind::Insert; ROWS];
    for (group, aggs) in sets {
        let mut g = c.benchmark_group(group);
        g.throughput(Throughput::Elements(ROWS as u64));
        for d in KEYS {
            let b = batch(d);
            let mut ops = [false, true].map(|owned| {
                let opts = GroupAggOptions { retractable: false, ..Default::default() };
                let mut op = GroupAggregate::new(b.schema(), vec![0], aggs(), opts).unwrap();
                op.set_owned_key_probe(owned);
                op.process(&b, &kinds).unwrap(); // every key in state from here on
                op
            });
            borrowed_vs_owned(&mut g, group, d, &b, &mut ops, |op, b| op.process(b, &kinds).unwrap());
        }
        g.finish();
    }
}

/// The borrowed-probe (`ops[0]`) and owned-probe (`ops[1]`) operator on
/// batch `b` of `distinct` keys: allocations per row, the paired ratio, and
/// one criterion benchmark each in `g`.
fn borrowed_vs_owned<O, R>(
    g: &mut BenchmarkGroup<'_, WallTime>,
    group: &str,
    distinct: usize,
    b: &RecordBatch,
    ops: &mut [O; 2],
    process: impl Fn(&mut O, &RecordBatch) -> R,
) {
    for (op, name) in ops.iter_mut().zip(["borrowed", "owned"]) {
        report(&format!("{group} {name}"), distinct, || drop(black_box(process(op, b))));
    }
    let [bo, ow] = ops;
    paired(group, distinct, || drop(black_box(process(bo, b))), || drop(black_box(process(ow, b))));
    for (op, name) in ops.iter_mut().zip(["borrowed", "owned"]) {
        g.bench_with_input(BenchmarkId::new(name, distinct), b, |bn, b| bn.iter(|| black_box(process(op, b))));
    }
}

fn dedup(c: &mut Criterion, group: &str, keep: Keep, order: DedupOrder) {
    let mut g = c.benchmark_group(group);
    g.throughput(Throughput::Elements(ROWS as u64));
    let kinds = vec![RowKind::Insert; ROWS];
    for d in KEYS {
        let b = batch(d);
        let mut ops = [false, true].map(|owned| {
            let mut op = Deduplicate::new(b.schema(), vec![0], DedupOptions::new(keep, order)).unwrap();
            op.set_owned_key_probe(owned);
            op.process(&b, &kinds).unwrap();
            op
        });
        borrowed_vs_owned(&mut g, group, d, &b, &mut ops, |op, b| op.process(b, &kinds).unwrap());
    }
    g.finish();
}

fn dedups(c: &mut Criterion) {
    // Keep-first: every key already seen, every row a probe that emits nothing.
    dedup(c, "keyed/keep_first_probe", Keep::First, DedupOrder::ProcTime);
    // Keep-last by rowtime with equal times: every row replaces (ties replace
    // in RowTimeDeduplicateFunction), so each row is copied once into state
    // and emits -U/+U.
    dedup(c, "keyed/keep_last_replace", Keep::Last, DedupOrder::RowTime { column: 4 });
}

criterion_group!(benches, exchange, group_agg, dedups);
criterion_main!(benches);
