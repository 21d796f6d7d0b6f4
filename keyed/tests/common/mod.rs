//! Helpers shared by the operator tests: batches to plain rows, and one
//! trait over the three keyed operators.
#![allow(dead_code)]

use arrow_array::cast::AsArray;
use arrow_array::types::{Float64Type, Int64Type};
use arrow_array::{Array, RecordBatch};
use arrow_schema::DataType;
use sluice_keyed::{ChangelogNormalize, Deduplicate, Error, GroupAggregate, KeyGroupRange, RowKind};

/// A cell of an output row, comparable (doubles by bits).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Cell {
    Null,
    I(i64),
    F(u64),
    S(String),
}

pub fn f(v: f64) -> Cell {
    Cell::F(v.to_bits())
}

pub fn rows(batch: &RecordBatch) -> Vec<Vec<Cell>> {
    (0..batch.num_rows())
        .map(|i| {
            batch
                .columns()
                .iter()
                .map(|c| {
                    if c.is_null(i) {
                        return Cell::Null;
                    }
                    match c.data_type() {
                        DataType::Int64 => Cell::I(c.as_primitive::<Int64Type>().value(i)),
                        DataType::Float64 => Cell::F(c.as_primitive::<Float64Type>().value(i).to_bits()),
                        DataType::Utf8 => Cell::S(c.as_string::<i32>().value(i).to_string()),
                        other => panic!("test helper does not read {other}"),
                    }
                })
                .collect()
        })
        .collect()
}

pub fn changelog(batch: &RecordBatch, kinds: &[RowKind]) -> Vec<(RowKind, Vec<Cell>)> {
    assert_eq!(batch.num_rows(), kinds.len());
    kinds.iter().copied().zip(rows(batch)).collect()
}

/// Feeds `input` to an operator in batches of the (cycled) `sizes` through
/// `step(rows, kinds)` and collects the changelog it emits, so a property
/// test sees every batch split.
pub fn in_batches<T: Clone>(
    input: &[(RowKind, T)],
    sizes: &[usize],
    mut step: impl FnMut(&[T], &[RowKind]) -> (RecordBatch, Vec<RowKind>),
) -> Vec<(RowKind, Vec<Cell>)> {
    let mut out = Vec::new();
    let mut at = 0;
    let mut sizes = sizes.iter().cycle();
    while at < input.len() {
        let n = sizes.next().map_or(1, |&n| n.clamp(1, input.len() - at));
        let rows: Vec<T> = input[at..at + n].iter().map(|c| c.1.clone()).collect();
        let kinds: Vec<RowKind> = input[at..at + n].iter().map(|c| c.0).collect();
        let (b, k) = step(&rows, &kinds);
        out.extend(changelog(&b, &k));
        at += n;
    }
    out
}

/// A random changelog of rows from `row`, `1..max` steps: each step inserts
/// a fresh row (as +I or +U) or retracts a live row at a random index (as -U
/// or -D), so only rows inserted before are ever retracted.
pub fn retracting_changelog<T: Clone + std::fmt::Debug>(
    row: impl proptest::strategy::Strategy<Value = T>,
    max: usize,
) -> impl proptest::strategy::Strategy<Value = Vec<(RowKind, T)>> {
    use proptest::prelude::*;
    prop::collection::vec((any::<bool>(), any::<bool>(), row, any::<prop::sample::Index>()), 1..max).prop_map(|steps| {
        let mut live: Vec<T> = Vec::new();
        let mut out = Vec::new();
        for (retract, flavour, row, idx) in steps {
            if retract && !live.is_empty() {
                let r = live.remove(idx.index(live.len()));
                out.push((if flavour { RowKind::UpdateBefore } else { RowKind::Delete }, r));
            } else {
                live.push(row.clone());
                out.push((if flavour { RowKind::Insert } else { RowKind::UpdateAfter }, row));
            }
        }
        out
    })
}

/// `(k VARCHAR NOT NULL, v BIGINT, t BIGINT NOT NULL)`: key, value, time.
pub fn kvt_schema() -> arrow_schema::SchemaRef {
    use arrow_schema::{Field, Schema};
    std::sync::Arc::new(Schema::new(vec![
        Field::new("k", DataType::Utf8, false),
        Field::new("v", DataType::Int64, true),
        Field::new("t", DataType::Int64, false),
    ]))
}

/// A batch of `(Utf8, Int64, Int64)` rows of `schema` (e.g.
/// [`kvt_schema`]); either integer may be nullable (`Option<i64>`) or not
/// (`i64`).
pub fn str_i64_i64<A, B>(schema: arrow_schema::SchemaRef, rows: &[(String, A, B)]) -> RecordBatch
where
    A: Copy + Into<Option<i64>>,
    B: Copy + Into<Option<i64>>,
{
    use arrow_array::{ArrayRef, Int64Array, StringArray};
    use std::sync::Arc;
    let cols: Vec<ArrayRef> = vec![
        Arc::new(StringArray::from_iter_values(rows.iter().map(|r| r.0.as_str()))),
        Arc::new(Int64Array::from_iter(rows.iter().map(|r| r.1.into()))),
        Arc::new(Int64Array::from_iter(rows.iter().map(|r| r.2.into()))),
    ];
    RecordBatch::try_new(schema, cols).unwrap()
}

/// The cells of one `(Utf8, Int64, Int64)` row, as [`rows`] reads them.
pub fn str_i64_i64_cells<A, B>(r: &(String, A, B)) -> Vec<Cell>
where
    A: Copy + Into<Option<i64>>,
    B: Copy + Into<Option<i64>>,
{
    let int = |v: Option<i64>| v.map_or(Cell::Null, Cell::I);
    vec![Cell::S(r.0.clone()), int(r.1.into()), int(r.2.into())]
}

/// What the tests drive on every keyed operator (snapshots unwrapped: they
/// cannot fail).
pub trait KeyedOp {
    fn step(&mut self, b: &RecordBatch, k: &[RowKind]) -> Result<(RecordBatch, Vec<RowKind>), Error>;
    fn snap(&self, r: KeyGroupRange) -> Vec<u8>;
    fn snap_kg(&self, r: KeyGroupRange) -> Vec<(i32, Vec<u8>)>;
    fn rest(&mut self, bytes: &[u8], r: KeyGroupRange) -> Result<(), Error>;
    /// Retained state bytes.
    fn bytes(&self) -> usize;
}

macro_rules! impl_keyed_op {
    ($($t:ty),*) => {$(
        impl KeyedOp for $t {
            fn step(&mut self, b: &RecordBatch, k: &[RowKind]) -> Result<(RecordBatch, Vec<RowKind>), Error> {
                self.process(b, k)
            }
            fn snap(&self, r: KeyGroupRange) -> Vec<u8> {
                self.snapshot(r).unwrap()
            }
            fn snap_kg(&self, r: KeyGroupRange) -> Vec<(i32, Vec<u8>)> {
                self.snapshot_key_groups(r).unwrap()
            }
            fn rest(&mut self, bytes: &[u8], r: KeyGroupRange) -> Result<(), Error> {
                self.restore(bytes, r)
            }
            fn bytes(&self) -> usize {
                self.size()
            }
        }
    )*};
}
impl_keyed_op!(GroupAggregate, Deduplicate, ChangelogNormalize);
