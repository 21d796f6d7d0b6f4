//! Projected entry transpose: decode only the fields a consumer reads.
//!
//! A projection such as `SELECT MD5(a) FROM t` reads one column of a wide
//! row; decoding the others (copying their strings into Arrow) is wasted
//! work. The projected decode skips them through the `replace` mechanism of
//! the decoder: a skipped field's bytes are never read or checked, and its
//! column is a cheap placeholder of the right type and length (all NULL
//! when the field is nullable, zero / empty values when it is not), so the
//! batch keeps the converter's schema and column positions.

use arrow_array::{make_array, new_null_array, ArrayRef, RecordBatch};
use arrow_data::ArrayData;
use arrow_schema::{DataType, Field};

use super::source::{Contiguous, Segmented};
use super::RowAddress;
use crate::converter::RowConverter;
use crate::error::Result;
use crate::row_kind::RowKind;

/// The placeholder column for a skipped field, or `None` when the field is
/// nested (nested fields are always decoded).
fn placeholder(field: &Field, n: usize) -> Option<ArrayRef> {
    match field.data_type() {
        DataType::Struct(_) | DataType::List(_) | DataType::LargeList(_) | DataType::Map(_, _) => None,
        dt if field.is_nullable() => Some(new_null_array(dt, n)),
        // `new_null` builds zeroed buffers valid for the type; without the
        // validity they read as zeros / empty strings, still valid data.
        dt => ArrayData::new_null(dt, n).into_builder().nulls(None).build().ok().map(make_array),
    }
}

impl RowConverter {
    fn replacements(&self, needed: &[bool], n: usize) -> Vec<Option<ArrayRef>> {
        self.schema()
            .fields()
            .iter()
            .enumerate()
            .map(|(j, f)| if needed.get(j).copied().unwrap_or(true) { None } else { placeholder(f, n) })
            .collect()
    }

    /// As [`RowConverter::rows_to_batch_segments_into`], decoding only the
    /// fields with `true` in `needed` (a field past the end of `needed`
    /// counts as needed). Every other column is a placeholder of its type
    /// (all NULL if nullable, zeros / empty strings if not) whose bytes were
    /// never read: use it for a projection that reads few of many columns.
    ///
    /// # Errors
    /// As [`RowConverter::rows_to_batch_segments_into`], for the decoded
    /// fields and the row bounds.
    pub fn rows_to_batch_segments_projected(
        &self,
        segments: &[&[u8]],
        rows: &[RowAddress],
        kinds: &mut [RowKind],
        needed: &[bool],
    ) -> Result<RecordBatch> {
        let mut replace = self.replacements(needed, rows.len());
        self.decode(&Segmented { segments, rows }, kinds, &mut replace)
    }

    /// As [`RowConverter::rows_to_batch_into`] (rows back to back), decoding
    /// only the fields with `true` in `needed`; see
    /// [`RowConverter::rows_to_batch_segments_projected`].
    ///
    /// # Errors
    /// As [`RowConverter::rows_to_batch_into`], for the decoded fields.
    pub fn rows_to_batch_projected(
        &self,
        data: &[u8],
        offsets: &[i64],
        kinds: &mut [RowKind],
        needed: &[bool],
    ) -> Result<RecordBatch> {
        let src = Contiguous::new(data, offsets, self.fixed_size);
        let mut replace = self.replacements(needed, offsets.len().saturating_sub(1));
        self.decode(&src, kinds, &mut replace)
    }
}
