//! Exit transpose: Arrow `RecordBatch` (+ RowKinds) → Flink `BinaryRowData`
//! rows, byte-identical to Flink's `BinaryRowWriter` / `BinaryArrayWriter`
//! / `BinaryMapData.valueOf`.

use arrow_array::cast::AsArray;
use arrow_array::{Array, RecordBatch};
use arrow_schema::DataType;

use crate::converter::RowConverter;
use crate::error::{Error, Result};
use crate::row_kind::RowKind;
use crate::types::TypeKind;

mod acc;
mod flat;
mod rows;
mod write;

pub(crate) use acc::{Acc, Vals};
pub use rows::Rows;
pub(crate) use write::write_row;
pub use write::NullLayout;

impl RowConverter {
    pub(crate) fn bind<'a>(&self, batch: &'a RecordBatch) -> Result<Vec<Acc<'a>>> {
        if batch.num_columns() != self.fields.len() {
            return Err(Error::InvalidArgument(format!(
                "batch has {} columns, the converter {}",
                batch.num_columns(),
                self.fields.len()
            )));
        }
        self.fields.iter().zip(batch.columns()).map(|(n, c)| Acc::bind(n, c.as_ref())).collect()
    }

    /// Exit transpose: every row of `batch` as a `BinaryRowData`, back to
    /// back in one buffer, byte-identical to Flink's writers.
    ///
    /// `row_kinds` (one per row) sets each header byte; `None` means all
    /// `+I`. `layout` picks the NULL layout of non-compact DECIMAL /
    /// TIMESTAMP fields of the top-level row; nested rows always use
    /// [`NullLayout::Serializer`] (Flink converts nested `RowData` through
    /// `RowDataSerializer.toBinaryRow`), array elements always reserve
    /// nothing (`BinaryArrayWriter.createNullSetter`).
    ///
    /// Strings come from `Utf8`, `LargeUtf8` or `Utf8View`; binaries from
    /// `Binary`, `LargeBinary`, `BinaryView` or `FixedSizeBinary`; sliced
    /// arrays are honoured.
    ///
    /// # Errors
    /// [`Error::Unsupported`] when a column's Arrow type cannot hold its
    /// Flink type, [`Error::InvalidArgument`] for a wrong column count or
    /// RowKind count, [`Error::OffsetOverflow`] when a row exceeds 2^31 bytes.
    ///
    /// # Performance
    /// The output buffer is sized once from the input's value-buffer sizes;
    /// no allocation per row.
    pub fn batch_to_rows(
        &self,
        batch: &RecordBatch,
        row_kinds: Option<&[RowKind]>,
        layout: NullLayout,
    ) -> Result<Rows> {
        let mut rows = Rows::default();
        self.batch_to_rows_into(batch, row_kinds, layout, &mut rows)?;
        Ok(rows)
    }

    /// As [`RowConverter::batch_to_rows`], reusing `out`'s buffers (cleared first).
    ///
    /// # Errors
    /// As [`RowConverter::batch_to_rows`].
    pub fn batch_to_rows_into(
        &self,
        batch: &RecordBatch,
        row_kinds: Option<&[RowKind]>,
        layout: NullLayout,
        out: &mut Rows,
    ) -> Result<()> {
        let n = batch.num_rows();
        if let Some(k) = row_kinds {
            if k.len() != n {
                return Err(Error::InvalidArgument(format!("{} RowKinds for {n} rows", k.len())));
            }
        }
        let accs = self.bind(batch)?;
        out.clear();
        if self.flat && flat::write_rows(&accs, n, row_kinds, out)? {
            return Ok(());
        }
        out.offsets.reserve(n + 1);
        out.data.reserve(self.estimate(batch));
        out.offsets.push(0);
        for i in 0..n {
            let kind = row_kinds.and_then(|k| k.get(i)).copied().unwrap_or_default();
            write_row(&mut out.data, &self.fields, &accs, i, kind.to_byte(), layout, i)?;
            out.offsets.push(out.data.len() as i64);
        }
        Ok(())
    }

    /// Upper-bound-ish output size: fixed parts + value bytes + padding.
    fn estimate(&self, batch: &RecordBatch) -> usize {
        let n = batch.num_rows();
        let mut total = n * self.fixed_size;
        for (node, col) in self.fields.iter().zip(batch.columns()) {
            total += match (&node.ty.kind, col.data_type()) {
                (_, DataType::Utf8) => {
                    let s = col.as_string::<i32>();
                    s.value_offsets().last().copied().unwrap_or(0) as usize
                        - s.value_offsets().first().copied().unwrap_or(0) as usize
                        + 7 * n
                }
                (_, DataType::Binary) => {
                    let s = col.as_binary::<i32>();
                    s.value_offsets().last().copied().unwrap_or(0) as usize
                        - s.value_offsets().first().copied().unwrap_or(0) as usize
                        + 7 * n
                }
                (TypeKind::Decimal { .. }, _) => 16 * n,
                (TypeKind::Timestamp(_) | TypeKind::TimestampLtz(_), _) => 8 * n,
                (
                    TypeKind::Boolean
                    | TypeKind::TinyInt
                    | TypeKind::SmallInt
                    | TypeKind::Int
                    | TypeKind::BigInt
                    | TypeKind::Float
                    | TypeKind::Double
                    | TypeKind::Date
                    | TypeKind::Time(_),
                    _,
                ) => 0,
                _ => col.get_buffer_memory_size() + 16 * n,
            };
        }
        total
    }
}
