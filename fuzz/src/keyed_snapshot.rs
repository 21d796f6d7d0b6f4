//! `sluice_keyed` snapshots: restore never panics, and a restored operator
//! behaves like the one that wrote the snapshot.
//!
//! A `GroupAggregate` (COUNT(*), SUM, MIN, MAX, AVG, FIRST_VALUE, LAST_VALUE
//! over `(k VARCHAR, v BIGINT)`) processes an arbitrary changelog and writes
//! a snapshot. Then:
//! * the snapshot restored into a fresh operator gives the same groups, and
//!   both emit the same changelog for the same next batch (the reference is
//!   the operator that never went through a snapshot);
//! * the snapshot with arbitrary bytes flipped, cut or appended — with the
//!   trailing FNV-1a 64 checksum recomputed (plainly, `rows::fnv1a`) half of the
//!   time so the parser gets past it — restores or fails, never panics, and
//!   a failed restore leaves the state empty;
//! * raw arbitrary bytes go through `restore` of every keyed operator.

use std::sync::Arc;

use arbitrary::Arbitrary;
use arrow_array::{Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use sluice_keyed::{
    AggSpec, ChangelogNormalize, DedupOptions, DedupOrder, Deduplicate, GroupAggOptions, GroupAggregate, Keep,
    KeyGroupRange, NormalizeOptions, RowKind,
};

use crate::rows::Damage;
use crate::text::Text;

/// One changelog row.
#[derive(Arbitrary, Debug, Clone)]
pub struct Row {
    /// Key (`None` = NULL).
    pub key: Option<Text>,
    /// Value (`None` = NULL).
    pub value: Option<i64>,
    /// RowKind byte (mod 4); mostly inserts.
    pub kind: u8,
}

/// Input of `keyed_snapshot`.
#[derive(Arbitrary, Debug, Clone)]
pub struct Input {
    /// Rows before the snapshot.
    pub before: Vec<Row>,
    /// Rows after it (fed to both operators).
    pub after: Vec<Row>,
    /// Retractable aggregates.
    pub retractable: bool,
    /// Byte flips applied to the snapshot.
    pub flips: Vec<(u16, u8)>,
    /// Truncation / appended bytes.
    pub cut: u8,
    /// Bytes appended before the checksum is (maybe) recomputed.
    pub extra: Vec<u8>,
    /// Recompute the checksum after mutating.
    pub fix_checksum: bool,
    /// Restore only a sub-range of key groups (start, len) of 128.
    pub range: Option<(u8, u8)>,
    /// Raw bytes for `restore`.
    pub raw: Vec<u8>,
}

fn schema() -> SchemaRef {
    Arc::new(Schema::new(vec![Field::new("k", DataType::Utf8, true), Field::new("v", DataType::Int64, true)]))
}

fn batch(rows: &[Row], retractable: bool) -> (RecordBatch, Vec<RowKind>) {
    let k: StringArray = rows.iter().map(|r| r.key.as_ref().map(Text::string)).collect();
    let v: Int64Array = rows.iter().map(|r| r.value).collect();
    let kinds = rows
        .iter()
        .map(|r| match (retractable, r.kind % 8) {
            (true, 5) => RowKind::UpdateBefore,
            (true, 6) => RowKind::Delete,
            (_, 7) => RowKind::UpdateAfter,
            _ => RowKind::Insert,
        })
        .collect();
    let b = RecordBatch::try_new(schema(), vec![Arc::new(k), Arc::new(v)]).expect("batch");
    (b, kinds)
}

fn operator(retractable: bool) -> GroupAggregate {
    let aggs = vec![
        AggSpec::count_star(),
        AggSpec::sum(1),
        AggSpec::min(1),
        AggSpec::max(1),
        AggSpec::avg(1),
        AggSpec::first_value(1),
        AggSpec::last_value(1),
    ];
    let opts = GroupAggOptions { retractable, ..GroupAggOptions::default() };
    GroupAggregate::new(schema(), vec![0], aggs, opts).expect("operator")
}

const ALL: KeyGroupRange = KeyGroupRange::new(0, 127);

/// Runs the check on one input; panics on a mismatch.
pub fn check(input: &Input) {
    let mut op = operator(input.retractable);
    let (b, kinds) = batch(&input.before, input.retractable);
    if op.process(&b, &kinds).is_err() {
        return; // e.g. a retraction of an unknown group, sum overflow
    }
    let snap = op.snapshot(ALL).expect("snapshot");

    // Untouched: same groups, same behaviour afterwards.
    let mut restored = operator(input.retractable);
    restored.restore(&snap, ALL).expect("restore of an untouched snapshot");
    assert_eq!(restored.num_groups(), op.num_groups(), "groups after restore");
    let (b, kinds) = batch(&input.after, input.retractable);
    let want = op.process(&b, &kinds);
    let got = restored.process(&b, &kinds);
    match (want, got) {
        (Ok((wb, wk)), Ok((gb, gk))) => {
            assert_eq!(gk, wk, "changelog kinds after restore");
            assert_eq!(gb, wb, "changelog after restore");
        }
        (Err(_), Err(_)) => {}
        (w, g) => panic!("after restore: original {:?}, restored {:?}", w.err(), g.err()),
    }

    // Mutated.
    let damage = Damage {
        flips: input.flips.clone(),
        cut: input.cut,
        extra: input.extra.clone(),
        fix_checksum: input.fix_checksum,
    };
    let bytes = damage.apply(&snap);
    let range = input.range.map_or(ALL, |(s, l)| {
        let s = i32::from(s % 128);
        KeyGroupRange::new(s, (s + i32::from(l % 128)).min(127))
    });
    let mut fresh = operator(input.retractable);
    if fresh.restore(&bytes, range).is_err() {
        assert_eq!(fresh.num_groups(), 0, "a failed restore leaves the state unchanged");
    }

    // Raw bytes, every keyed operator.
    let _ = operator(input.retractable).restore(&input.raw, ALL);
    for keep in [Keep::First, Keep::Last] {
        let opts = DedupOptions::new(keep, DedupOrder::ProcTime);
        let mut d = Deduplicate::new(schema(), vec![0], opts).expect("dedup");
        let _ = d.restore(&input.raw, range);
        let _ = d.restore(&bytes, range);
    }
    let mut n = ChangelogNormalize::new(schema(), vec![0], NormalizeOptions::default()).expect("normalize");
    let _ = n.restore(&input.raw, range);
}
