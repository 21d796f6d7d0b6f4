//! Helpers shared by the keyed operator benches: the partition column of
//! their batches and the allocation / interleaved timing report printed
//! before the criterion groups.

use std::sync::Arc;
use std::time::Instant;

use arrow_array::{ArrayRef, StringArray};
use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, BenchmarkId};
use sluice_kernels::alloc_count::count_allocs;

/// `rows` VARCHAR partition keys `partition-<i % parts>` (11–14 bytes).
pub fn partitions(rows: usize, parts: usize) -> ArrayRef {
    Arc::new(StringArray::from((0..rows).map(|i| format!("partition-{}", i % parts)).collect::<Vec<_>>()))
}

/// Minimum and median time of `runs` calls of `f`, in seconds.
fn timed(runs: usize, f: &mut dyn FnMut()) -> (f64, f64) {
    let mut t: Vec<f64> = (0..runs)
        .map(|_| {
            let s = Instant::now();
            f();
            s.elapsed().as_secs_f64()
        })
        .collect();
    t.sort_by(f64::total_cmp);
    (t[0], t[runs / 2])
}

/// Allocations per row and interleaved min / median time per row of each
/// variant (one call handles `rows` rows), printed on stderr.
pub fn report(group: &str, parts: usize, rows: usize, variants: &mut [(&str, &mut dyn FnMut())]) {
    for (name, f) in variants.iter_mut() {
        f();
        let (a, _) = count_allocs(&mut **f);
        let (min, med) = timed(15, &mut **f);
        eprintln!(
            "{group:<22} partitions={parts:<5} {name:<9} allocs/row {:>7.3}  min {:>8.1} ns/row  med {:>8.1} ns/row",
            a as f64 / rows as f64,
            min * 1e9 / rows as f64,
            med * 1e9 / rows as f64
        );
    }
}

/// [`report`] for every variant, then a criterion benchmark of each in `g`
/// (named by the variant and the partition count).
pub fn compare(
    g: &mut BenchmarkGroup<'_, WallTime>,
    group: &str,
    parts: usize,
    rows: usize,
    variants: &mut [(&str, &mut dyn FnMut())],
) {
    report(group, parts, rows, variants);
    for (name, f) in variants.iter_mut() {
        g.bench_function(BenchmarkId::new(*name, parts), |bn| bn.iter(&mut **f));
    }
}
