//! Window aggregation: the contiguous-range fold against the `take`
//! variant, and string MIN/MAX selecting the winner against copying every
//! candidate string, in one run.
//!
//! 4,096-row batches over 1, 256 and 4,096 keys (`key-{i % keys}`), rowtime
//! `i` ms into a HOP(4 s, 1 s) window, so a batch spans 5 slices and the
//! rows of one (key, slice) are contiguous with 1 key and single rows with
//! 4,096. One iteration is one `process` of the batch into a state that
//! already holds its keys and slices (no watermark: the fold path alone).
//! Each case first prints allocations per row (counting allocator below)
//! and interleaved minimum / median times per row (15 rounds, each running
//! both variants once in turn), then runs the criterion group.
//!
//! * `window/fold`: COUNT(*), SUM, MIN, MAX, AVG of BIGINT; `slices`
//!   (folds each run from `&values[run]`) vs `take` (groups the rows by
//!   slot and folds a `take` of each group, the replaced behaviour).
//! * `window/fold_str`: COUNT, MIN, MAX of a nullable VARCHAR of 14–16
//!   bytes (the seed's fixture: the `take` copied each group's string
//!   payload), `slices` vs `take` as above.
//! * `window/minmax_str`: MIN and MAX of VARCHAR; `winner` (compares
//!   borrowed bytes, copies the run's winner only when it beats the stored
//!   value) vs `copy_every` (an owned copy of every candidate).
//!
//! Run: `cargo bench -p sluice-keyed --bench window -- --warm-up-time 1 --measurement-time 3`

mod support;

use std::hint::black_box;
use std::sync::Arc;

use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray, TimestampMillisecondArray};
use criterion::{criterion_group, criterion_main, Criterion};
use sluice_kernels::alloc_count::CountingAlloc;
use sluice_keyed::{AggSpec, RowKind, WindowAggOptions, WindowAggregate, WindowSpec};

#[global_allocator]
static A: CountingAlloc = CountingAlloc::system();

const ROWS: usize = 4096;
const KEYS: [usize; 3] = [1, 256, 4096];

/// `k` VARCHAR key, `v` BIGINT, `s` VARCHAR (scrambled values), `t`
/// rowtime, `n` VARCHAR (14–16 bytes, every 8th NULL).
fn batch(keys: usize) -> RecordBatch {
    let k: ArrayRef = Arc::new(StringArray::from((0..ROWS).map(|i| format!("key-{}", i % keys)).collect::<Vec<_>>()));
    let v: ArrayRef = Arc::new(Int64Array::from((0..ROWS).map(|i| (i as i64 * 7919) % 10007).collect::<Vec<_>>()));
    let s: ArrayRef = Arc::new(StringArray::from(
        (0..ROWS).map(|i| format!("value-{:08}", (i * 7919) % 100_000)).collect::<Vec<_>>(),
    ));
    let n: ArrayRef = Arc::new(StringArray::from(
        (0..ROWS)
            .map(|i| (i % 8 != 3).then(|| format!("text-{:0w$}", (i * 104_729) % 1_000_000, w = 9 + i % 3)))
            .collect::<Vec<_>>(),
    ));
    let t: ArrayRef = Arc::new(TimestampMillisecondArray::from((0..ROWS as i64).collect::<Vec<_>>()));
    RecordBatch::try_from_iter([("k", k), ("v", v), ("s", s), ("t", t), ("n", n)]).unwrap()
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

fn string_values() -> Vec<AggSpec> {
    vec![AggSpec::count(4), AggSpec::min(4), AggSpec::max(4)]
}

fn run_group(c: &mut Criterion, name: &'static str, aggs: fn() -> Vec<AggSpec>, variants: [(&str, bool, bool); 2]) {
    let kinds = vec![RowKind::Insert; ROWS];
    let mut g = support::Group::new(c, name, ROWS);
    for keys in KEYS {
        let b = batch(keys);
        let [(la, ta, ca), (lb, tb, cb)] = variants;
        let (mut x, mut y) = (op(&b, aggs(), ta, ca), op(&b, aggs(), tb, cb));
        let mut run_x = || x.process(black_box(&b), &kinds).unwrap();
        let mut run_y = || y.process(black_box(&b), &kinds).unwrap();
        g.compare(keys, &mut [(la, &mut run_x), (lb, &mut run_y)]);
    }
    g.finish();
}

fn benches(c: &mut Criterion) {
    run_group(c, "window/fold", numeric, [("slices", false, false), ("take", true, false)]);
    run_group(c, "window/fold_str", string_values, [("slices", false, false), ("take", true, false)]);
    run_group(c, "window/minmax_str", strings, [("winner", false, false), ("copy_every", false, true)]);
}

criterion_group!(window, benches);
criterion_main!(window);
