//! The updating join (`StreamingJoin`): borrowed probes vs the owned-row
//! variant (every input row's key and row bytes copied into owned boxes
//! before probing, the two copies per row the borrowed probes replaced),
//! side by side in one criterion group per case.
//!
//! The right input is a dimension of 1, 256 or 4,096 keys, one row per key
//! (its unique key is the join key); the left input is a 4,096-row batch of
//! probe rows (BIGINT key, BIGINT, VARCHAR) that is pushed again and again,
//! so every probe finds its key, and its own record, in state. INNER emits
//! one joined row per probe; LEFT the same through the outer-side path.
//! Before the timings each case prints its allocations per row and a paired
//! ratio (interleaved runs, minimum and median).
//!
//! Run: `cargo bench -p sluice-benches --bench join -- --warm-up-time 1 --measurement-time 3`

use std::hint::black_box;
use std::sync::Arc;

use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use sluice_kernels::alloc_count::CountingAlloc;
use sluice_keyed::{JoinOptions, JoinType, RowKind, StreamingJoin};

mod pairing;
use pairing::{paired, report, ROWS};

#[global_allocator]
static A: CountingAlloc = CountingAlloc::system();

const KEYS: [usize; 3] = [1, 256, 4096];

fn schema(p: &str) -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new(format!("{p}k"), DataType::Int64, false),
        Field::new(format!("{p}v"), DataType::Int64, false),
        Field::new(format!("{p}s"), DataType::Utf8, false),
    ]))
}

fn batch(schema: &SchemaRef, n: usize, distinct: usize, text: &str) -> RecordBatch {
    let k: ArrayRef = Arc::new(Int64Array::from((0..n).map(|i| ((i % distinct) as i64) * 7919).collect::<Vec<_>>()));
    let v: ArrayRef = Arc::new(Int64Array::from((0..n).map(|i| (i % 16) as i64).collect::<Vec<_>>()));
    let s: ArrayRef = Arc::new(StringArray::from((0..n).map(|i| format!("{text} {i}")).collect::<Vec<_>>()));
    RecordBatch::try_new(schema.clone(), vec![k, v, s]).unwrap()
}

/// A join with the dimension loaded and the probe batch pushed once.
fn loaded(t: JoinType, distinct: usize, owned: bool, probe: &RecordBatch) -> StreamingJoin {
    let (ls, rs) = (schema("l"), schema("r"));
    let mut opts = JoinOptions::new(t, vec![0], vec![0]);
    opts.right.unique_key = Some(vec![0]);
    let mut j = StreamingJoin::new(ls, rs.clone(), opts).unwrap();
    j.set_owned_rows(owned);
    j.process_right(&batch(&rs, distinct, distinct, "dimension row"), &vec![RowKind::Insert; distinct]).unwrap();
    j.process_left(probe, &[RowKind::Insert; ROWS]).unwrap();
    j
}

fn bench_join(c: &mut Criterion) {
    let kinds = [RowKind::Insert; ROWS];
    for (t, name) in [(JoinType::Inner, "inner"), (JoinType::Left, "left")] {
        let mut g = c.benchmark_group(format!("join/{name}"));
        g.throughput(Throughput::Elements(ROWS as u64));
        for distinct in KEYS {
            let probe = batch(&schema("l"), ROWS, distinct, "probe payload");
            let mut borrowed = loaded(t, distinct, false, &probe);
            let mut owned = loaded(t, distinct, true, &probe);
            report(&format!("join {name} borrowed"), distinct, || {
                black_box(borrowed.process_left(&probe, &kinds).unwrap());
            });
            report(&format!("join {name} owned"), distinct, || {
                black_box(owned.process_left(&probe, &kinds).unwrap());
            });
            paired(
                &format!("join {name}"),
                distinct,
                || {
                    black_box(borrowed.process_left(&probe, &kinds).unwrap());
                },
                || {
                    black_box(owned.process_left(&probe, &kinds).unwrap());
                },
            );
            g.bench_function(BenchmarkId::new("borrowed", distinct), |b| {
                b.iter(|| black_box(borrowed.process_left(&probe, &kinds).unwrap()))
            });
            g.bench_function(BenchmarkId::new("owned", distinct), |b| {
                b.iter(|| black_box(owned.process_left(&probe, &kinds).unwrap()))
            });
        }
        g.finish();
    }
}

criterion_group!(benches, bench_join);
criterion_main!(benches);
