//! Key encoding: some columns of one row as a `BinaryRowData`, exactly as
//! Flink's generated key projections build SQL keys (docs/flink-semantics.md §5.5,
//! §11): [`NullLayout::Projection`], RowKind `+I` (0).

use arrow_array::RecordBatch;

use crate::converter::{Node, RowConverter};
use crate::error::{Error, Result};
use crate::exit::{write_row, Acc, NullLayout};

/// Encodes chosen columns of a row as a Flink `BinaryRowData` key. Build
/// once per (schema, key columns); [`KeyEncoder::bind`] once per batch;
/// then [`BoundKeyEncoder::encode`] per row into a reused buffer, with no
/// allocation once the buffer has grown to the largest key.
///
/// ```
/// use std::sync::Arc;
/// use arrow_array::{Int32Array, RecordBatch, StringArray};
/// use arrow_schema::{DataType, Field, Schema};
/// use sluice_transpose::{KeyEncoder, RowConverter};
///
/// let schema = Arc::new(Schema::new(vec![
///     Field::new("k", DataType::Int32, true),
///     Field::new("v", DataType::Utf8, true),
/// ]));
/// let conv = RowConverter::new(schema.clone()).unwrap();
/// let batch = RecordBatch::try_new(schema, vec![
///     Arc::new(Int32Array::from(vec![42])),
///     Arc::new(StringArray::from(vec!["x"])),
/// ]).unwrap();
/// let keys = KeyEncoder::new(&conv, &[0]).unwrap();
/// let bound = keys.bind(&batch).unwrap();
/// let mut buf = Vec::new();
/// bound.encode(0, &mut buf).unwrap();
/// // INT 42 as Flink writes it (docs/flink-semantics.md §2.5)
/// assert_eq!(buf, [0, 0, 0, 0, 0, 0, 0, 0, 42, 0, 0, 0, 0, 0, 0, 0]);
/// ```
#[derive(Debug, Clone)]
pub struct KeyEncoder {
    nodes: Vec<Node>,
    columns: Vec<usize>,
}

impl KeyEncoder {
    /// Key of `columns` (indices into the converter's fields, in key order).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for an index out of range.
    pub fn new(converter: &RowConverter, columns: &[usize]) -> Result<Self> {
        let nodes = columns
            .iter()
            .map(|&c| {
                converter.fields.get(c).cloned().ok_or_else(|| {
                    Error::InvalidArgument(format!("key column {c} of {} fields", converter.fields.len()))
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(KeyEncoder { nodes, columns: columns.to_vec() })
    }

    /// The key columns.
    pub fn columns(&self) -> &[usize] {
        &self.columns
    }

    /// Binds the key columns of `batch` (downcasts once per batch).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when a key column is missing,
    /// [`Error::Unsupported`] when its Arrow type cannot hold its Flink type.
    pub fn bind<'a>(&'a self, batch: &'a RecordBatch) -> Result<BoundKeyEncoder<'a>> {
        let accs = self
            .nodes
            .iter()
            .zip(&self.columns)
            .map(|(n, &c)| {
                let col = batch.columns().get(c).ok_or_else(|| {
                    Error::InvalidArgument(format!("key column {c} of a {}-column batch", batch.num_columns()))
                })?;
                Acc::bind(n, col.as_ref())
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(BoundKeyEncoder { enc: self, accs, rows: batch.num_rows() })
    }
}

/// A [`KeyEncoder`] bound to one batch.
pub struct BoundKeyEncoder<'a> {
    enc: &'a KeyEncoder,
    accs: Vec<Acc<'a>>,
    rows: usize,
}

impl BoundKeyEncoder<'_> {
    /// Clears `out` and writes the key of row `row` into it: a
    /// `BinaryRowData` of the key columns, RowKind 0, projection NULL layout.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a row out of range; value errors as in
    /// [`RowConverter::batch_to_rows`].
    ///
    /// # Performance
    /// No allocation when `out` already has the capacity of the key.
    #[inline]
    pub fn encode(&self, row: usize, out: &mut Vec<u8>) -> Result<()> {
        if row >= self.rows {
            return Err(Error::InvalidArgument(format!("row {row} of {}", self.rows)));
        }
        out.clear();
        write_row(out, &self.enc.nodes, &self.accs, row, 0, NullLayout::Projection, row)
    }
}
