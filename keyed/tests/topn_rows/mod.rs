//! Rows, runs and snapshot checks shared by the Top-N tests (`topn.rs`,
//! `topn_update.rs`): Flink's `TopNFunctionTestBase` row shape and the
//! checks every strategy's snapshots must pass.
#![allow(dead_code)]

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use sluice_keyed::{key_group_range_for_operator, KeyGroupRange, RowKind, SortColumn, TopN, TopNOptions, TopNStrategy};

use crate::common::{self, changelog, Cell, TupleRow};

/// (partition, id, sort value): Flink's `TopNFunctionTestBase` row shape
/// (VARCHAR, BIGINT, INT), with the INT as Int64 and nullable here.
pub type In = (String, i64, Option<i64>);

pub fn schema() -> SchemaRef {
    In::schema(&["p", "id", "s"])
}

pub fn batch(rows: &[In]) -> RecordBatch {
    common::batch_of(schema(), rows)
}

pub type Rec = (RowKind, Vec<Cell>);

/// An expected record, `rank` appended when given.
pub fn rec(kind: RowKind, p: &str, id: i64, s: i64, rank: Option<i64>) -> Rec {
    let mut c = (p.to_string(), id, Some(s)).cells();
    c.extend(rank.map(Cell::I));
    (kind, c)
}

/// A Top-N configuration (partitioned by `p`; the `Update` ranker keyed by
/// (p, id)).
#[derive(Clone, Debug)]
pub struct Cfg {
    pub strategy: TopNStrategy,
    pub order: Vec<SortColumn>,
    pub start: u64,
    pub end: u64,
    pub rank_number: bool,
    pub update_before: bool,
}

pub fn op(c: &Cfg) -> TopN {
    let mut o = TopNOptions::new(c.strategy, c.order.clone(), c.end);
    o.rank_start = c.start;
    o.output_rank_number = c.rank_number;
    o.generate_update_before = c.update_before;
    if c.strategy == TopNStrategy::Update {
        o.row_key = vec![0, 1];
    }
    TopN::new(schema(), vec![0], o).unwrap()
}

/// One batch through `op`, its changelog.
pub fn run(op: &mut TopN, input: &[(RowKind, In)]) -> Vec<Rec> {
    let rows: Vec<In> = input.iter().map(|r| r.1.clone()).collect();
    let kinds: Vec<RowKind> = input.iter().map(|r| r.0).collect();
    let (out, k) = op.process(&batch(&rows), &kinds).unwrap();
    changelog(&out, &k)
}

/// `input` through `op` in batches of the sizes `splits` cycles through.
pub fn run_split(op: &mut TopN, input: &[(RowKind, In)], splits: &[usize]) -> Vec<Rec> {
    let mut got = Vec::new();
    let (mut at, mut i) = (0, 0);
    while at < input.len() {
        let n = splits[i % splits.len()].min(input.len() - at);
        got.extend(run(op, &input[at..at + n]));
        at += n;
        i += 1;
    }
    got
}

/// `t`'s per-key-group snapshots restored into two fresh operators (the
/// key-group ranges of parallelism 2); panics unless their rows add up to
/// `t`'s. Then each of `tail` goes to `t` and to the restored operator that
/// owns its partition; returns both changelogs.
pub fn restored_go_on(t: &mut TopN, fresh: impl Fn() -> TopN, tail: &[(RowKind, In)]) -> (Vec<Rec>, Vec<Rec>) {
    let mut restored = Vec::new();
    for i in 0..2 {
        let range = key_group_range_for_operator(128, 2, i).unwrap();
        let mut r = fresh();
        for (_, blob) in t.snapshot_key_groups(range).unwrap() {
            r.restore(&blob, range).unwrap();
        }
        restored.push(r);
    }
    assert_eq!(restored.iter().map(TopN::num_rows).sum::<usize>(), t.num_rows());
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for row in tail {
        let (mut kg, mut ch) = ([0i32], [0i32]);
        sluice_keyed::key_groups(&batch(std::slice::from_ref(&row.1)), &[0], 128, 2, &mut kg, &mut ch).unwrap();
        a.extend(run(t, std::slice::from_ref(row)));
        b.extend(run(&mut restored[ch[0] as usize], std::slice::from_ref(row)));
    }
    (a, b)
}

/// Whether arbitrary `bytes` fail to restore into a `fresh` operator (or are
/// empty), and `input`'s snapshot with the byte at `flip` damaged fails too.
pub fn damaged_snapshots_fail(fresh: impl Fn() -> TopN, input: &[(RowKind, In)], bytes: &[u8], flip: usize) -> bool {
    let mut t = fresh();
    let arbitrary = t.restore(bytes, KeyGroupRange::all(128)).is_err() || bytes.is_empty();
    run(&mut t, input);
    let mut snap = t.snapshot(KeyGroupRange::all(128)).unwrap();
    let at = flip % snap.len();
    snap[at] ^= 0x5a;
    arbitrary && fresh().restore(&snap, KeyGroupRange::all(128)).is_err()
}
