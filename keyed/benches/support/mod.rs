//! Helpers shared by the keyed operator benches: the partition column of
//! their batches and the allocation / interleaved timing report printed
//! before the criterion groups.

use std::sync::Arc;
use std::time::Instant;

use arrow_array::{ArrayRef, StringArray};
use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, BenchmarkId, Criterion, Throughput};
use sluice_kernels::alloc_count::count_allocs;

/// `rows` VARCHAR partition keys `partition-<i % parts>` (11–14 bytes).
/// (The window bench keys its rows its own way.)
#[allow(dead_code)]
pub fn partitions(rows: usize, parts: usize) -> ArrayRef {
    Arc::new(StringArray::from((0..rows).map(|i| format!("partition-{}", i % parts)).collect::<Vec<_>>()))
}

/// Rounds of the interleaved timing: each round calls every variant once.
const ROUNDS: usize = 15;

/// Minimum and median of each row of `t`, in seconds.
fn min_med(mut t: Vec<f64>) -> (f64, f64) {
    t.sort_by(f64::total_cmp);
    (t[0], t[t.len() / 2])
}

/// Allocations per row and min / median time per row of each variant (one
/// call handles `rows` rows), printed on stderr. The timing is interleaved:
/// [`ROUNDS`] rounds, each calling every variant once in turn, so load from
/// other processes on a shared machine falls on all variants alike.
fn report(group: &str, parts: usize, rows: usize, variants: &mut [(&str, &mut dyn FnMut())]) {
    let mut allocs = Vec::with_capacity(variants.len());
    for (_, f) in variants.iter_mut() {
        f();
        allocs.push(count_allocs(&mut **f).0);
    }
    let mut times = vec![Vec::with_capacity(ROUNDS); variants.len()];
    for _ in 0..ROUNDS {
        for ((_, f), t) in variants.iter_mut().zip(&mut times) {
            let s = Instant::now();
            f();
            t.push(s.elapsed().as_secs_f64());
        }
    }
    for (((name, _), a), t) in variants.iter().zip(allocs).zip(times) {
        let (min, med) = min_med(t);
        eprintln!(
            "{group:<22} partitions={parts:<5} {name:<9} allocs/row {:>7.3}  min {:>8.1} ns/row  med {:>8.1} ns/row",
            a as f64 / rows as f64,
            min * 1e9 / rows as f64,
            med * 1e9 / rows as f64
        );
    }
}

/// A criterion group whose every iteration handles `rows` rows: the
/// throughput unit, and the count the printed report divides by.
pub struct Group<'c> {
    g: BenchmarkGroup<'c, WallTime>,
    name: &'static str,
    rows: usize,
}

impl<'c> Group<'c> {
    /// The group `name` of `c`.
    pub fn new(c: &'c mut Criterion, name: &'static str, rows: usize) -> Self {
        let mut g = c.benchmark_group(name);
        g.throughput(Throughput::Elements(rows as u64));
        Group { g, name, rows }
    }

    /// [`report`] for every variant (over `parts` partitions) without
    /// benchmarking it.
    pub fn report(&self, parts: usize, variants: &mut [(&str, &mut dyn FnMut())]) {
        report(self.name, parts, self.rows, variants);
    }

    /// [`report`] for every variant, then a criterion benchmark of each
    /// (named by the variant and the partition count).
    pub fn compare(&mut self, parts: usize, variants: &mut [(&str, &mut dyn FnMut())]) {
        self.report(parts, variants);
        for (name, f) in variants.iter_mut() {
            self.g.bench_function(BenchmarkId::new(*name, parts), |bn| bn.iter(&mut **f));
        }
    }

    /// Ends the group (criterion's summary).
    pub fn finish(self) {
        self.g.finish();
    }
}
