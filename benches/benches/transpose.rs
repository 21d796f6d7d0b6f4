//! Entry (rows → Arrow) and exit (Arrow → rows) transpose throughput in GB/s
//! of row bytes, next to a plain memcpy of the same row bytes.
//!
//! Schemas (2M rows each, ASCII strings of random length in [n/2, n]):
//! `(BIGINT, VARCHAR(16))`, `(BIGINT, 4 × VARCHAR(64))`, `(BIGINT, VARCHAR(256))`.
//!
//! Run: `cargo bench -p sluice-benches --bench transpose -- --warm-up-time 1 --measurement-time 3`
//! (`SLUICE_BENCH_ROWS=200000` for a quicker run). For ratios to memcpy
//! measured round by round (the machine is shared and noisy):
//! `SLUICE_BENCH_INTERLEAVED=9 cargo bench -p sluice-benches --bench transpose`
//! (`SLUICE_BENCH_SCHEMA=varchar16` runs only the schemas whose label contains it;
//! `SLUICE_BENCH_BATCH=32768` changes the rows per call, default 8,192).

use sluice_benches::data::Rng;
use std::hint::black_box;
use std::sync::Arc;

use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use sluice_transpose::{FlinkType, NullLayout, RowConverter, Rows, ValuesSizing};

/// Rows per call in the batched variants: `SLUICE_BENCH_BATCH`, default
/// 8,192 (the demo's batch, a typical Flink network-buffer batch).
fn batch_rows() -> usize {
    std::env::var("SLUICE_BENCH_BATCH").ok().and_then(|s| s.parse().ok()).filter(|&b| b > 0).unwrap_or(8192)
}

fn rows() -> usize {
    std::env::var("SLUICE_BENCH_ROWS").ok().and_then(|s| s.parse().ok()).unwrap_or(2_000_000)
}

fn dataset(n: usize, strings: usize, max: usize) -> (RowConverter, RecordBatch) {
    let mut names = vec!["id".to_string()];
    let mut types = vec![FlinkType::parse("BIGINT NOT NULL").unwrap()];
    for i in 0..strings {
        names.push(format!("s{i}"));
        types.push(FlinkType::parse(&format!("VARCHAR({max})")).unwrap());
    }
    let names: Vec<&str> = names.iter().map(|s| s.as_str()).collect();
    let conv = RowConverter::from_flink_types(&names, &types).unwrap();
    let mut rng = Rng(0x1234_5678_9abc_def1);
    let alphabet = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    let mut cols: Vec<ArrayRef> = vec![Arc::new(Int64Array::from_iter_values(0..n as i64))];
    for _ in 0..strings {
        let mut buf = String::new();
        let vals: Vec<String> = (0..n)
            .map(|_| {
                let len = max / 2 + (rng.next() as usize % (max / 2 + 1));
                buf.clear();
                for _ in 0..len {
                    buf.push(alphabet[rng.next() as usize % alphabet.len()] as char);
                }
                buf.clone()
            })
            .collect();
        cols.push(Arc::new(StringArray::from(vals)));
    }
    let batch = RecordBatch::try_new(conv.schema().clone(), cols).unwrap();
    (conv, batch)
}

/// Runs memcpy / entry / exit back to back, round after round, and prints
/// each one's throughput relative to memcpy *of the same round* (median
/// over rounds): on a shared, noisy machine ratios measured seconds apart
/// by criterion are not comparable. `SLUICE_BENCH_INTERLEAVED=<rounds>`.
fn interleaved(n: usize, rounds: usize) {
    use std::time::Instant;
    let batch_size = batch_rows();
    let only = std::env::var("SLUICE_BENCH_SCHEMA").ok();
    for (label, strings, max) in SCHEMAS {
        if only.as_deref().is_some_and(|o| !label.contains(o)) {
            continue;
        }
        let (conv, batch) = dataset(n, strings, max);
        let rows = conv.batch_to_rows(&batch, None, NullLayout::Serializer).unwrap();
        let bytes = rows.data.len() as f64;
        let mut dst = vec![0u8; rows.data.len()];
        let exact = conv.clone().with_values_sizing(ValuesSizing::ExactPass);
        let geometric = conv.clone().with_values_sizing(ValuesSizing::Geometric);
        let mut out = Rows::default();
        // "general": the flat fast paths off (the code before them), for
        // before/after in the same run.
        let general = conv.clone().with_flat_paths(false);
        let names =
            ["memcpy", "entry_exact_pass (default)", "entry_geometric", "entry_general", "exit", "exit_general"];
        let mut secs: Vec<Vec<f64>> = vec![Vec::new(); names.len()];
        let mut cpu: Vec<Vec<f64>> = vec![Vec::new(); names.len()];
        for _ in 0..rounds {
            for (k, (s, c)) in secs.iter_mut().zip(cpu.iter_mut()).enumerate() {
                let t = Instant::now();
                let c0 = thread_cpu_secs();
                match k {
                    0 => dst.copy_from_slice(black_box(&rows.data)),
                    1..=3 => {
                        let c = [&exact, &geometric, &general][k - 1];
                        for start in (0..n).step_by(batch_size) {
                            let end = (start + batch_size).min(n);
                            black_box(c.rows_to_batch(&rows.data, &rows.offsets[start..=end]).unwrap());
                        }
                    }
                    _ => {
                        let c = if k == 4 { &conv } else { &general };
                        for start in (0..n).step_by(batch_size) {
                            let len = batch_size.min(n - start);
                            c.batch_to_rows_into(&batch.slice(start, len), None, NullLayout::Serializer, &mut out)
                                .unwrap();
                            black_box(&out);
                        }
                    }
                }
                s.push(t.elapsed().as_secs_f64());
                c.push(thread_cpu_secs().map_or(f64::NAN, |c1| c1 - c0.unwrap_or(c1)));
            }
        }
        let median = |mut v: Vec<f64>| {
            v.sort_by(|a, b| a.total_cmp(b));
            v[v.len() / 2]
        };
        for k in 0..names.len() {
            let ratios: Vec<f64> = (0..rounds).map(|r| secs[0][r] / secs[k][r]).collect();
            let cpu_ratios: Vec<f64> = (0..rounds).map(|r| cpu[0][r] / cpu[k][r]).collect();
            eprintln!(
                "interleaved {label:22} {:26} {:6.2} GB/s  {:5.2}x memcpy wall, {:5.2}x on-CPU (median of {rounds} rounds)",
                names[k],
                bytes / median(secs[k].clone()) / 1e9,
                median(ratios),
                median(cpu_ratios)
            );
        }
    }
}

/// This thread's time on a CPU in seconds (Linux `schedstat`), so that
/// time the scheduler gave to other jobs on a shared machine is not
/// counted; `None` elsewhere.
fn thread_cpu_secs() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: u64 = s.split_whitespace().next()?.parse().ok()?;
    Some(ns as f64 / 1e9)
}

const SCHEMAS: [(&str, usize, usize); 3] =
    [("bigint_varchar16", 1, 16), ("bigint_4x_varchar64", 4, 64), ("bigint_varchar256", 1, 256)];

fn bench(c: &mut Criterion) {
    let n = rows();
    let batch_size = batch_rows();
    if let Some(r) = std::env::var("SLUICE_BENCH_INTERLEAVED").ok().and_then(|s| s.parse().ok()) {
        interleaved(n, r);
        return;
    }
    for (label, strings, max) in SCHEMAS {
        let (conv, batch) = dataset(n, strings, max);
        let rows = conv.batch_to_rows(&batch, None, NullLayout::Serializer).unwrap();
        let mut group = c.benchmark_group(format!("transpose/{label}"));
        group.sample_size(10);
        group.throughput(Throughput::Bytes(rows.data.len() as u64));

        let mut dst = vec![0u8; rows.data.len()];
        group.bench_function("memcpy", |b| {
            b.iter(|| {
                dst.copy_from_slice(black_box(&rows.data));
                black_box(&dst);
            })
        });
        // Entry in Arrow-sized batches (the way a JNI / C caller feeds it),
        // and as one 2M-row call; both value-buffer sizing strategies.
        for sizing in [ValuesSizing::ExactPass, ValuesSizing::Geometric] {
            let conv = conv.clone().with_values_sizing(sizing);
            let tag = if sizing == ValuesSizing::ExactPass { "exact_pass" } else { "geometric" };
            group.bench_function(format!("entry_batched_{tag}"), |b| {
                b.iter(|| {
                    for start in (0..n).step_by(batch_size) {
                        let end = (start + batch_size).min(n);
                        black_box(conv.rows_to_batch(black_box(&rows.data), &rows.offsets[start..=end]).unwrap());
                    }
                })
            });
            group.bench_function(format!("entry_one_batch_{tag}"), |b| {
                b.iter(|| black_box(conv.rows_to_batch(black_box(&rows.data), &rows.offsets).unwrap()))
            });
        }
        let mut out = Rows::default();
        group.bench_function("exit_batched", |b| {
            b.iter(|| {
                for start in (0..n).step_by(batch_size) {
                    let len = batch_size.min(n - start);
                    conv.batch_to_rows_into(&batch.slice(start, len), None, NullLayout::Serializer, &mut out).unwrap();
                    black_box(&out);
                }
            })
        });
        group.bench_function("exit_one_batch", |b| {
            b.iter(|| {
                conv.batch_to_rows_into(black_box(&batch), None, NullLayout::Serializer, &mut out).unwrap();
                black_box(&out);
            })
        });
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
