//! The Calc over rows whose CHAR / VARCHAR fields arrive as UTF-16.
//!
//! A Flink row whose strings are still `java.lang.String`s (a lazy
//! `BinaryStringData`, e.g. in a `GenericRowData` from a source or a
//! `toDataStream` conversion) has no UTF-8 bytes. The Java operator then
//! writes the row with those fields left NULL and hands each such column
//! over as one `char[]` of all values' code units, `n + 1` offsets and NULL
//! flags (`io.sluice.jni.Utf16Columns`). The entry transpose encodes them
//! with the kernels' SIMD encoder (Flink's rule: an unpaired surrogate
//! becomes `?`) through one repeated-value cache per input field, kept here
//! across batches ([`CalcProgram::utf16_cache_stats`] shows its counters),
//! and decodes every other field from the rows. The evaluator also gets the
//! UTF-16 values themselves, so that REPLACE, SPLIT_INDEX and LIKE see an
//! unpaired surrogate where Flink's String-based evaluation sees it
//! (`sluice_kernels::search::replace_java` documents which functions and
//! what can still differ).

use sluice_kernels::encode::{CachedEncoder, EncodeCacheStats};
use sluice_transpose::lazy_strings::Utf16Column;
use sluice_transpose::{RowAddress, RowKind, Rows};

use crate::calc::CalcProgram;
use crate::error::{Error, Result};

impl CalcProgram {
    /// As [`CalcProgram::process_segments`], except that the fields listed
    /// in `columns` are taken from their UTF-16 values (encoded through the
    /// field's cache) instead of from the rows, whose slots for them are
    /// not read (the Java side leaves them NULL).
    ///
    /// # Errors
    /// As [`CalcProgram::process_segments`]; [`Error::Invalid`]
    /// for a field out of range, listed twice or not CHAR / VARCHAR, bad
    /// offsets, or a row count that differs from the rows'.
    pub fn process_segments_utf16(
        &mut self,
        segments: &[&[u8]],
        rows: &[RowAddress],
        columns: &[Utf16Column<'_>],
        out: &mut Rows,
    ) -> Result<()> {
        let width = self.input.schema().fields().len();
        if self.utf16_caches.len() < width {
            self.utf16_caches.resize_with(width, CachedEncoder::new);
        }
        let mut caches = Vec::with_capacity(columns.len());
        for c in columns {
            let slot = self.utf16_caches.get_mut(c.field).ok_or_else(|| {
                Error::invalid(format!("UTF-16 column {} does not exist; the input has {width} columns", c.field))
            })?;
            caches.push(std::mem::take(slot));
        }
        self.kinds.clear();
        self.kinds.resize(rows.len(), RowKind::Insert);
        let decoded =
            self.input.rows_to_batch_segments_with_utf16(segments, rows, &mut self.kinds, columns, &mut caches);
        // Back in reverse, so that for a field listed twice (an error) the
        // cache taken first, the real one, is the one kept.
        for (c, cache) in columns.iter().zip(caches).rev() {
            if let Some(slot) = self.utf16_caches.get_mut(c.field) {
                *slot = cache;
            }
        }
        let batch = decoded?;
        // REPLACE / SPLIT_INDEX / LIKE see these columns' unpaired
        // surrogates, as Flink's String-based evaluation does.
        self.project_into(&batch, columns, out)
    }

    /// The counters of input field `field`'s UTF-16 encode cache (hits,
    /// misses, ...), or `None` before any UTF-16 batch reached it.
    pub fn utf16_cache_stats(&self, field: usize) -> Option<EncodeCacheStats> {
        self.utf16_caches.get(field).map(CachedEncoder::stats)
    }
}

#[cfg(test)]
mod tests;
