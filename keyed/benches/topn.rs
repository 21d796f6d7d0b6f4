//! Top-N: the borrowed-byte operator beside its owned-key variant (fresh
//! `Vec<u8>` partition and sort keys per row, deep-copied emitted rows), for
//! the retracting ranker its owned-scalar variant (the seed's before-state,
//! `TopN::set_scalar_ranker`: a `Vec` of owned scalars as partition key and
//! as sort key per row, a scalar comparator over a `BTreeMap`, deep-cloned
//! before/after top-N snapshots diffed per row) and a plainly written
//! scalar reference (owned `String` partition keys, a sorted `Vec` of cloned
//! rows per partition, the top N cloned before and after every row and
//! diffed), in one run.
//!
//! 4,096-row batches over 1, 256 and 4,096 partitions. Each case first
//! prints allocations per row (counting allocator below) and interleaved
//! minimum / median times, then runs the criterion groups:
//!
//! * `topn/retract`: a retracting Top-3 with rank numbers; one iteration is
//!   a batch of 4,096 `+I` and the batch of their `-D`, over a prefilled
//!   state of 8 rows per partition, so state is the same after every
//!   iteration (8,192 rows per iteration).
//! * `topn/append_rejected`: an append-only Top-3 whose 4,096 rows all sort
//!   after the kept ones (the rows that cannot enter the top N).
//!
//! Run: `cargo bench -p sluice-keyed --bench topn -- --warm-up-time 1 --measurement-time 3`

mod support;

use std::collections::HashMap;
use std::hint::black_box;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use arrow_array::{ArrayRef, Int64Array, RecordBatch};
use criterion::{criterion_group, criterion_main, Criterion};
use sluice_kernels::alloc_count::CountingAlloc;
use sluice_keyed::{RowKind, SortColumn, TopN, TopNOptions, TopNStrategy};

#[global_allocator]
static A: CountingAlloc = CountingAlloc::system();

const ROWS: usize = 4096;
const PARTITIONS: [usize; 3] = [1, 256, 4096];
const N: u64 = 3;

/// `p` VARCHAR partition, `s` BIGINT sort key (a scrambled value), `id`.
fn batch(parts: usize, offset: i64, base: i64) -> RecordBatch {
    let p = support::partitions(ROWS, parts);
    let s: ArrayRef =
        Arc::new(Int64Array::from((0..ROWS).map(|i| base + ((i as i64 * 7919 + offset) % 1000)).collect::<Vec<_>>()));
    let id: ArrayRef = Arc::new(Int64Array::from((0..ROWS).map(|i| offset * 100_000 + i as i64).collect::<Vec<_>>()));
    RecordBatch::try_from_iter([("p", p), ("s", s), ("id", id)]).unwrap()
}

/// Which operator variant a bench runs.
#[derive(Clone, Copy, PartialEq)]
enum Variant {
    Borrowed,
    Owned,
    Scalar,
}

fn topn(strategy: TopNStrategy, variant: Variant, rank_number: bool) -> TopN {
    let mut o = TopNOptions::new(strategy, vec![SortColumn::asc(1)], N);
    o.output_rank_number = rank_number;
    let b = batch(1, 0, 0);
    let mut t = TopN::new(b.schema(), vec![0], o).unwrap();
    t.set_owned_key_probe(variant == Variant::Owned);
    if variant == Variant::Scalar {
        t.set_scalar_ranker(true).unwrap();
    }
    t
}

/// The scalar reference: owned keys, cloned rows, recomputed top N.
#[derive(Default)]
struct Model {
    parts: HashMap<String, Vec<(i64, i64, String)>>,
    out: Vec<(RowKind, (i64, i64, String), i64)>,
}

impl Model {
    fn step(&mut self, b: &RecordBatch, kind: RowKind) {
        let p = b.column(0).as_string::<i32>();
        let s = b.column(1).as_primitive::<Int64Type>();
        let id = b.column(2).as_primitive::<Int64Type>();
        self.out.clear();
        for i in 0..b.num_rows() {
            let key = p.value(i).to_string();
            let rows = self.parts.entry(key.clone()).or_default();
            let before: Vec<(i64, i64, String)> = rows.iter().take(N as usize).cloned().collect();
            let row = (s.value(i), id.value(i), key);
            if kind == RowKind::Insert {
                let at = rows.partition_point(|r| r.0 <= row.0);
                rows.insert(at, row);
            } else if let Some(at) = rows.iter().position(|r| *r == row) {
                rows.remove(at);
            }
            let after: Vec<(i64, i64, String)> = rows.iter().take(N as usize).cloned().collect();
            for k in 0..N as usize {
                match (before.get(k), after.get(k)) {
                    (Some(a), Some(b)) if a != b => {
                        self.out.push((RowKind::UpdateBefore, a.clone(), k as i64 + 1));
                        self.out.push((RowKind::UpdateAfter, b.clone(), k as i64 + 1));
                    }
                    (None, Some(b)) => self.out.push((RowKind::Insert, b.clone(), k as i64 + 1)),
                    (Some(a), None) => self.out.push((RowKind::Delete, a.clone(), k as i64 + 1)),
                    _ => {}
                }
            }
        }
    }
}

fn retract(c: &mut Criterion) {
    let mut g = support::Group::new(c, "topn/retract", 2 * ROWS);
    for parts in PARTITIONS {
        let (pre, ins) = (batch(parts, 1, 0), batch(parts, 2, 0));
        let prefill: Vec<RecordBatch> = (0..8).map(|o| batch(parts, 10 + o, 0).slice(0, parts)).collect();
        let variants = [Variant::Borrowed, Variant::Owned, Variant::Scalar];
        let mut ops: Vec<TopN> = variants.map(|v| topn(TopNStrategy::Retract, v, true)).into();
        let mut model = Model::default();
        for b in prefill.iter().chain([&pre]) {
            for t in &mut ops {
                t.process(b, &vec![RowKind::Insert; b.num_rows()]).unwrap();
            }
            model.step(b, RowKind::Insert);
        }
        let (ik, dk) = (vec![RowKind::Insert; ROWS], vec![RowKind::Delete; ROWS]);
        let [borrowed, owned, scalar] = &mut ops[..] else { unreachable!() };
        // The before-state emits what the operator emits (state is back as
        // it was after each `+I`/`-D` pair).
        for k in [&ik, &dk] {
            assert_eq!(borrowed.process(&ins, k).unwrap(), scalar.process(&ins, k).unwrap());
        }
        let run = |t: &mut TopN| {
            black_box(t.process(&ins, &ik).unwrap());
            black_box(t.process(&ins, &dk).unwrap());
        };
        let mut run_b = || run(borrowed);
        let mut run_o = || run(owned);
        let mut run_s = || run(scalar);
        let mut run_m = || {
            model.step(&ins, RowKind::Insert);
            model.step(&ins, RowKind::Delete);
        };
        g.compare(
            parts,
            &mut [("borrowed", &mut run_b), ("owned", &mut run_o), ("scalar", &mut run_s), ("reference", &mut run_m)],
        );
    }
    g.finish();
}

fn append_rejected(c: &mut Criterion) {
    let mut g = support::Group::new(c, "topn/append_rejected", ROWS);
    for parts in PARTITIONS {
        // Three batches of the best rows, so that every partition's top 3 is
        // full even with one row per partition per batch.
        let best: Vec<RecordBatch> = (0..3).map(|o| batch(parts, 3 + o, 0)).collect();
        let worse = batch(parts, 4, 10_000);
        let kinds = vec![RowKind::Insert; ROWS];
        let variants = [Variant::Borrowed, Variant::Owned];
        let mut ops: Vec<TopN> = variants.map(|v| topn(TopNStrategy::AppendOnly, v, false)).into();
        for t in &mut ops {
            for b in &best {
                t.process(b, &kinds).unwrap();
            }
        }
        let [borrowed, owned] = &mut ops[..] else { unreachable!() };
        let mut run_b = || {
            let (out, _) = borrowed.process(&worse, &kinds).unwrap();
            assert_eq!(out.num_rows(), 0);
        };
        let mut run_o = || drop(black_box(owned.process(&worse, &kinds).unwrap()));
        g.compare(parts, &mut [("borrowed", &mut run_b), ("owned", &mut run_o)]);
    }
    g.finish();
}

criterion_group!(benches, retract, append_rejected);
criterion_main!(benches);
