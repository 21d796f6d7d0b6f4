//! Helpers shared by the operator tests: input batches from plain rows,
//! batches back to plain rows, and one trait over the three keyed operators.
#![allow(dead_code)]

use arrow_array::cast::AsArray;
use std::sync::Arc;

use arrow_array::types::{Float64Type, Int64Type, TimestampMillisecondType};
use arrow_array::{Array, ArrayRef, BooleanArray, Float64Array, Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema, SchemaRef, TimeUnit};
use sluice_keyed::{AggSpec, ChangelogNormalize, Deduplicate, Error, GroupAggregate, KeyGroupRange, RowKind};

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
                        DataType::Timestamp(TimeUnit::Millisecond, _) => {
                            Cell::I(c.as_primitive::<TimestampMillisecondType>().value(i))
                        }
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

/// A schema of `(name, type, nullable)` fields.
pub fn schema_of(fields: &[(&str, DataType, bool)]) -> SchemaRef {
    Arc::new(Schema::new(fields.iter().map(|(n, t, null)| Field::new(*n, t.clone(), *null)).collect::<Vec<_>>()))
}

/// `(k VARCHAR NOT NULL, v BIGINT, t BIGINT NOT NULL)`: key, value, time.
pub fn kvt_schema() -> SchemaRef {
    <(String, Option<i64>, i64)>::schema(&["k", "v", "t"])
}

/// A Rust value the tests put in a cell of an input row: it knows the
/// Arrow column that holds it and the [`Cell`] [`rows`] reads back.
pub trait Value: Clone {
    /// The Arrow type of its column.
    const DATA_TYPE: DataType;
    /// Whether its column is nullable (an `Option`).
    const NULLABLE: bool;
    /// The column of `values`, `None` as NULL.
    fn column(values: Vec<Self>) -> ArrayRef;
    /// The cell [`rows`] reads for this value.
    fn cell(&self) -> Cell;
}

macro_rules! impl_value {
    ($($t:ty => $array:ty, $data_type:ident, |$v:ident| $cell:expr;)*) => {$(
        impl Value for $t {
            const DATA_TYPE: DataType = DataType::$data_type;
            const NULLABLE: bool = false;
            fn column(values: Vec<Self>) -> ArrayRef {
                Arc::new(<$array>::from(values))
            }
            fn cell(&self) -> Cell {
                let $v = self;
                $cell
            }
        }
        impl Value for Option<$t> {
            const DATA_TYPE: DataType = DataType::$data_type;
            const NULLABLE: bool = true;
            fn column(values: Vec<Self>) -> ArrayRef {
                Arc::new(<$array>::from(values))
            }
            fn cell(&self) -> Cell {
                self.as_ref().map_or(Cell::Null, Value::cell)
            }
        }
    )*};
}
impl_value! {
    i64 => Int64Array, Int64, |v| Cell::I(*v);
    f64 => Float64Array, Float64, |v| f(*v);
    String => StringArray, Utf8, |v| Cell::S(v.clone());
    &str => StringArray, Utf8, |v| Cell::S(v.to_string());
    bool => BooleanArray, Boolean, |_v| panic!("test rows do not read BOOLEAN cells");
}

/// The column of `value` of every row.
pub fn column<R, T: Value>(rows: &[R], value: impl Fn(&R) -> T) -> ArrayRef {
    T::column(rows.iter().map(value).collect())
}

/// An input row as a tuple of [`Value`]s, one column per field.
pub trait TupleRow: Sized {
    /// The schema of these rows, its fields named `names` (one per tuple
    /// field): each field's type and nullability are its [`Value`]'s.
    fn schema(names: &[&str]) -> SchemaRef;
    /// One column per tuple field.
    fn columns(rows: &[Self]) -> Vec<ArrayRef>;
    /// The cells [`rows`] reads back for this row.
    fn cells(&self) -> Vec<Cell>;
}

macro_rules! impl_tuple_row {
    ($(($($t:ident $i:tt),+))*) => {$(
        impl<$($t: Value),+> TupleRow for ($($t,)+) {
            fn schema(names: &[&str]) -> SchemaRef {
                let types = [$((<$t as Value>::DATA_TYPE, <$t as Value>::NULLABLE)),+];
                assert_eq!(names.len(), types.len(), "one name per tuple field");
                let fields: Vec<Field> = names.iter().zip(types).map(|(n, (t, null))| Field::new(*n, t, null)).collect();
                Arc::new(Schema::new(fields))
            }
            fn columns(rows: &[Self]) -> Vec<ArrayRef> {
                vec![$(column(rows, |r| r.$i.clone())),+]
            }
            fn cells(&self) -> Vec<Cell> {
                vec![$(self.$i.cell()),+]
            }
        }
    )*};
}
impl_tuple_row! {
    (A 0, B 1)
    (A 0, B 1, C 2)
    (A 0, B 1, C 2, D 3)
    (A 0, B 1, C 2, D 3, E 4)
}

/// Whether two rows of aggregate values are equal to Flink's generated
/// equaliser, which decides whether a GROUP BY emits an update: doubles
/// compare with `==` (NaN never equals itself, -0.0 equals 0.0).
pub fn flink_equal(a: &[Cell], b: &[Cell]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(a, b)| match (a, b) {
            (Cell::F(x), Cell::F(y)) => f64::from_bits(*x) == f64::from_bits(*y),
            _ => a == b,
        })
}

/// `COUNT(*)`, `COUNT`, `SUM`, `$SUM0`, `AVG`, `MIN` and `MAX` of `column`:
/// the calls [`bigint_aggs`] models.
pub fn bigint_agg_specs(column: usize) -> Vec<AggSpec> {
    vec![
        AggSpec::count_star(),
        AggSpec::count(column),
        AggSpec::sum(column),
        AggSpec::sum0(column),
        AggSpec::avg(column),
        AggSpec::min(column),
        AggSpec::max(column),
    ]
}

/// `COUNT(*)`, `COUNT`, `SUM`, `$SUM0`, `AVG`, `MIN` and `MAX` over a
/// BIGINT column, recomputed from scratch for the reference models: `rows`
/// rows whose non-NULL values are `vs` (Flink's functions ignore NULLs; SUM
/// wraps like Java `long`, AVG is `long` division).
pub fn bigint_aggs(rows: usize, vs: &[i64]) -> Vec<Cell> {
    let sum = vs.iter().fold(0i64, |a, b| a.wrapping_add(*b));
    let any = !vs.is_empty();
    vec![
        Cell::I(rows as i64),
        Cell::I(vs.len() as i64),
        any.then_some(sum).cell(),
        Cell::I(sum),
        any.then(|| sum / vs.len() as i64).cell(),
        vs.iter().min().copied().cell(),
        vs.iter().max().copied().cell(),
    ]
}

/// A batch of `schema` from tuple rows (e.g. `(String, i64, Option<i64>)`
/// for [`kvt_schema`]).
pub fn batch_of<R: TupleRow>(schema: SchemaRef, rows: &[R]) -> RecordBatch {
    RecordBatch::try_new(schema, R::columns(rows)).unwrap()
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
