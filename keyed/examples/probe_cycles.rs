//! Runs one keyed operator configuration N times so `perf stat` can count
//! cycles and instructions (on-CPU only, so a busy machine disturbs it far
//! less than wall-clock timing):
//!
//! `perf stat -e cycles,instructions target/release/examples/probe_cycles <op> <keys> <owned 0|1> <iters>`
//! with `<op>` one of `agg5`, `agg2`, `first`, `last`.

use std::sync::Arc;

use arrow_array::{ArrayRef, Float64Array, Int64Array, RecordBatch, StringArray};
use sluice_keyed::{AggSpec, DedupOptions, DedupOrder, Deduplicate, GroupAggOptions, GroupAggregate, Keep, RowKind};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let op = args.get(1).map_or("agg5", |s| s.as_str()).to_string();
    let keys: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(128);
    let owned = args.get(3).is_some_and(|s| s == "1");
    let iters: usize = args.get(4).and_then(|s| s.parse().ok()).unwrap_or(2000);
    const ROWS: usize = 4096;
    let k: ArrayRef = Arc::new(Int64Array::from((0..ROWS).map(|i| ((i % keys) as i64) * 7919).collect::<Vec<_>>()));
    let v: ArrayRef = Arc::new(Int64Array::from((0..ROWS).map(|i| (i % 16) as i64).collect::<Vec<_>>()));
    let x: ArrayRef = Arc::new(Float64Array::from((0..ROWS).map(|i| i as f64 * 0.5).collect::<Vec<_>>()));
    let s: ArrayRef = Arc::new(StringArray::from((0..ROWS).map(|i| format!("payload string {i}")).collect::<Vec<_>>()));
    let t: ArrayRef = Arc::new(Int64Array::from(vec![1000i64; ROWS]));
    let b = RecordBatch::try_from_iter([("k", k), ("v", v), ("x", x), ("s", s), ("t", t)]).unwrap();
    let kinds = vec![RowKind::Insert; ROWS];
    let mut rows_out = 0usize;
    match op.as_str() {
        "agg5" | "agg2" => {
            let aggs = if op == "agg5" {
                vec![AggSpec::count_star(), AggSpec::sum(1), AggSpec::min(1), AggSpec::max(1), AggSpec::avg(2)]
            } else {
                vec![AggSpec::count_star(), AggSpec::sum(1)]
            };
            let opts = GroupAggOptions { retractable: false, ..Default::default() };
            let mut g = GroupAggregate::new(b.schema(), vec![0], aggs, opts).unwrap();
            g.set_owned_key_probe(owned);
            for _ in 0..iters {
                rows_out += g.process(&b, &kinds).unwrap().0.num_rows();
            }
        }
        _ => {
            let (keep, order) = if op == "first" {
                (Keep::First, DedupOrder::ProcTime)
            } else {
                (Keep::Last, DedupOrder::RowTime { column: 4 })
            };
            let mut d = Deduplicate::new(b.schema(), vec![0], DedupOptions::new(keep, order)).unwrap();
            d.set_owned_key_probe(owned);
            for _ in 0..iters {
                rows_out += d.process(&b, &kinds).unwrap().0.num_rows();
            }
        }
    }
    println!("{op} keys={keys} owned={owned} iters={iters} rows_out={rows_out}");
}
