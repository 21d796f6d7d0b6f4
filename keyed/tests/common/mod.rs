//! Helpers shared by the operator tests: batches to plain rows.
#![allow(dead_code)]

use arrow_array::cast::AsArray;
use arrow_array::types::{Float64Type, Int64Type};
use arrow_array::{Array, RecordBatch};
use arrow_schema::DataType;
use sluice_keyed::RowKind;

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
