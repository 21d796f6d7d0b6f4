//! CONCAT / CONCAT_WS: sluice vs arrow-rs `concat_elements_utf8_many` vs a
//! naive per-row reference, side by side in one group per shape, with the
//! `memcpy` of the same bytes as the floor no CONCAT can beat.
//!
//! Run: `cargo bench -p sluice-benches --bench concat -- --warm-up-time 1 --measurement-time 3`

use std::hint::black_box;

use arrow_array::builder::StringBuilder;
use arrow_array::{Array, Datum, Scalar, StringArray};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use sluice_kernels::concat::{concat, concat_ws};

const ROWS: usize = 8192;

/// Deterministic ASCII column; `null_every`: 0 = no NULLs, 4 = a NULL in
/// every fourth row (25%).
fn column(len: usize, seed: u64, null_every: usize) -> StringArray {
    sluice_benches::data::ascii_column(ROWS, len, seed, null_every)
}

fn naive_concat(cols: &[&StringArray]) -> StringArray {
    let mut b = StringBuilder::new();
    for i in 0..cols[0].len() {
        if cols.iter().any(|c| c.is_null(i)) {
            b.append_null();
        } else {
            let s: String = cols.iter().map(|c| c.value(i)).collect();
            b.append_value(s);
        }
    }
    b.finish()
}

fn naive_concat_ws(sep: &str, cols: &[&StringArray]) -> StringArray {
    let mut b = StringBuilder::new();
    for i in 0..cols[0].len() {
        let parts: Vec<&str> = cols.iter().filter(|c| c.is_valid(i)).map(|c| c.value(i)).collect();
        b.append_value(parts.join(sep));
    }
    b.finish()
}

fn bench(c: &mut Criterion) {
    for len in [16usize, 64, 256] {
        for (tag, null_every) in [("no_nulls", 0usize), ("25pct_null_rows", 4)] {
            let a = column(len, 1, null_every);
            let b = column(len, 2, 0);
            let d = column(len, 3, 0);
            let cols = [&a, &b, &d];
            let mut g = c.benchmark_group(format!("concat3_{len}B_{tag}"));
            g.throughput(Throughput::Elements(ROWS as u64));
            g.bench_function("sluice", |bn| bn.iter(|| concat(black_box(&[&a as &dyn Datum, &b, &d])).unwrap()));
            g.bench_function("arrow_concat_elements_utf8_many", |bn| {
                bn.iter(|| arrow_string::concat_elements::concat_elements_utf8_many(black_box(&cols)).unwrap())
            });
            g.bench_function("naive", |bn| bn.iter(|| naive_concat(black_box(&cols))));
            // The floor of any CONCAT: the same value bytes moved with three
            // `memcpy` calls into a fresh buffer (no offsets, no row loop).
            g.bench_function("memcpy_floor", |bn| {
                bn.iter(|| {
                    let bufs = [a.values(), b.values(), d.values()];
                    let mut out = Vec::with_capacity(bufs.iter().map(|v| v.len()).sum());
                    for v in bufs {
                        out.extend_from_slice(black_box(v.as_slice()));
                    }
                    out
                })
            });
            g.finish();

            let sep = Scalar::new(StringArray::from(vec![","]));
            let mut g = c.benchmark_group(format!("concat_ws3_{len}B_{tag}"));
            g.throughput(Throughput::Elements(ROWS as u64));
            g.bench_function("sluice", |bn| {
                bn.iter(|| concat_ws(&sep, black_box(&[&a as &dyn Datum, &b, &d])).unwrap())
            });
            g.bench_function("naive", |bn| bn.iter(|| naive_concat_ws(",", black_box(&cols))));
            g.finish();
        }
    }
    // Scalar in the middle (a common SQL shape: CONCAT(a, '-', b)).
    let a = column(16, 1, 0);
    let b = column(16, 2, 0);
    let dash = Scalar::new(StringArray::from(vec!["-"]));
    let mut g = c.benchmark_group("concat_col_scalar_col_16B");
    g.throughput(Throughput::Elements(ROWS as u64));
    g.bench_with_input(BenchmarkId::new("sluice", 16), &(), |bn, _| {
        bn.iter(|| concat(black_box(&[&a as &dyn Datum, &dash, &b])).unwrap())
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches, strategy);

/// The NULL-row fill strategies side by side (25% NULL rows in a fixed
/// pattern, so the per-row branch of `Branchy` predicts well here; the demo's
/// random masks are its real case).
fn strategies(c: &mut Criterion) {
    use sluice_kernels::concat::{forced, NullFill};
    for len in [16usize, 256] {
        let a = column(len, 1, 4);
        let b = column(len, 2, 0);
        let d = column(len, 3, 0);
        let mut g = c.benchmark_group(format!("concat3_{len}B_25pct_strategy"));
        for f in [NullFill::SkipNulls, NullFill::BranchFree, NullFill::ValidOnly, NullFill::Branchy] {
            g.bench_function(format!("{f:?}"), |bn| {
                bn.iter(|| forced::concat(black_box(&[&a as &dyn Datum, &b, &d]), f).unwrap())
            });
        }
        g.finish();
    }
}
criterion_group!(strategy, strategies);
