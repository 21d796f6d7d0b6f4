//! Lazy Java strings: VARCHAR columns delivered as UTF-16.
//!
//! A Flink row whose string fields are still `java.lang.String`s (a
//! `BinaryStringData` not yet materialised, `docs/flink-semantics.md` §4.1) has no
//! UTF-8 bytes to read. A JNI caller holding such rows hands those columns
//! over as Java chars instead — all values' UTF-16 code units back to back,
//! `n + 1` i64 offsets (in units) and a validity mask — and the entry
//! transpose encodes them with `sluice_kernels::encode` (Flink's own rule:
//! unpaired surrogates become `?`, as `StringUtf8Utils.encodeUTF8` / JDK
//! `String.getBytes(UTF_8)`) through its repeated-value cache, straight
//! into the same `Utf8` column the row path produces.

use std::sync::Arc;

use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_buffer::NullBuffer;
use sluice_kernels::encode::{utf16_to_utf8_cached, CachedEncoder};

use crate::converter::RowConverter;
use crate::entry::{Contiguous, RowAddress, Segmented};
use crate::error::{Error, Result};
use crate::row_kind::RowKind;
use crate::types::TypeKind;

/// One CHAR / VARCHAR column's values as UTF-16.
#[derive(Clone, Copy, Debug)]
pub struct Utf16Column<'a> {
    /// Index of the column in the converter's schema.
    pub field: usize,
    /// Code units of all values, back to back.
    pub units: &'a [u16],
    /// `num_rows + 1` offsets into `units`.
    pub offsets: &'a [i64],
    /// Validity (NULL rows); `None` = all valid.
    pub nulls: Option<&'a NullBuffer>,
}

impl RowConverter {
    /// Encodes one CHAR / VARCHAR column given as UTF-16 into the `Utf8`
    /// array the entry transpose would produce for it, through `cache` (the
    /// kernels' repeated-value cache; keep one per column across batches).
    ///
    /// # Errors
    /// [`Error::Unsupported`] when the field is not CHAR / VARCHAR,
    /// [`Error::NullInNonNullable`] for a NULL in a NOT NULL field,
    /// [`Error::Kernels`] for bad offsets or more than `i32::MAX` bytes.
    pub fn utf16_column(&self, col: &Utf16Column<'_>, cache: &mut CachedEncoder) -> Result<ArrayRef> {
        let node = self
            .fields
            .get(col.field)
            .ok_or_else(|| Error::InvalidArgument(format!("field {} of {}", col.field, self.fields.len())))?;
        if !matches!(node.ty.kind, TypeKind::Char(_) | TypeKind::VarChar(_)) {
            return Err(Error::Unsupported(format!("field {}: UTF-16 input for a {} column", node.path, node.ty)));
        }
        if !node.ty.nullable {
            if let Some(row) = col.nulls.and_then(|n| n.iter().position(|v| !v)) {
                return Err(Error::NullInNonNullable { row, field: node.path.clone() });
            }
        }
        let arr = utf16_to_utf8_cached(col.units, col.offsets, col.nulls, cache)?;
        Ok(Arc::new(arr))
    }

    /// Entry transpose where the listed CHAR / VARCHAR columns come as
    /// UTF-16 (`columns[k]` encoded through `caches[k]`) instead of from the
    /// rows: their slots are not read. Everything else as
    /// [`RowConverter::rows_to_batch`].
    ///
    /// # Errors
    /// As [`RowConverter::rows_to_batch`] and [`RowConverter::utf16_column`];
    /// [`Error::InvalidArgument`] when a column's row count differs from the
    /// batch's, a field is listed twice, or `caches` and `columns` differ in
    /// length.
    ///
    /// # Performance
    /// Each string is encoded once, straight into the Arrow values buffer
    /// (the kernels size it once per batch); a value equal to the previous
    /// one in its column copies cached bytes. No allocation per row.
    pub fn rows_to_batch_with_utf16(
        &self,
        data: &[u8],
        offsets: &[i64],
        columns: &[Utf16Column<'_>],
        caches: &mut [CachedEncoder],
    ) -> Result<(RecordBatch, Vec<RowKind>)> {
        let n = offsets.len().saturating_sub(1);
        let mut replace = self.utf16_replacements(n, columns, caches)?;
        let mut kinds = vec![RowKind::Insert; n];
        let batch = self.decode(&Contiguous::new(data, offsets, self.fixed_size), &mut kinds, &mut replace)?;
        Ok((batch, kinds))
    }

    /// [`RowConverter::rows_to_batch_with_utf16`] for rows that live in
    /// separate buffers (as [`RowConverter::rows_to_batch_segments_into`]),
    /// with a caller slice for the RowKinds.
    ///
    /// # Errors
    /// As [`RowConverter::rows_to_batch_with_utf16`] and
    /// [`RowConverter::rows_to_batch_segments_into`].
    pub fn rows_to_batch_segments_with_utf16(
        &self,
        segments: &[&[u8]],
        rows: &[RowAddress],
        kinds: &mut [RowKind],
        columns: &[Utf16Column<'_>],
        caches: &mut [CachedEncoder],
    ) -> Result<RecordBatch> {
        let mut replace = self.utf16_replacements(rows.len(), columns, caches)?;
        self.decode(&Segmented { segments, rows }, kinds, &mut replace)
    }

    /// Encodes each UTF-16 column (of `n` rows) into its field's slot of a
    /// `replace` list for [`RowConverter::decode`].
    fn utf16_replacements(
        &self,
        n: usize,
        columns: &[Utf16Column<'_>],
        caches: &mut [CachedEncoder],
    ) -> Result<Vec<Option<ArrayRef>>> {
        if caches.len() != columns.len() {
            return Err(Error::InvalidArgument(format!(
                "{} caches for {} UTF-16 columns",
                caches.len(),
                columns.len()
            )));
        }
        let mut replace: Vec<Option<ArrayRef>> = vec![None; self.fields.len()];
        for (col, cache) in columns.iter().zip(caches.iter_mut()) {
            if col.offsets.len() != n + 1 {
                return Err(Error::InvalidArgument(format!(
                    "UTF-16 column {} has {} offsets for {n} rows",
                    col.field,
                    col.offsets.len()
                )));
            }
            if !matches!(replace.get(col.field), Some(None)) {
                return Err(Error::InvalidArgument(format!("UTF-16 column {} given twice", col.field)));
            }
            let arr = self.utf16_column(col, cache)?;
            debug_assert_eq!(arr.len(), n);
            if let Some(slot) = replace.get_mut(col.field) {
                *slot = Some(arr);
            }
        }
        Ok(replace)
    }
}
