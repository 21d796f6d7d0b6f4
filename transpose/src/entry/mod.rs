//! Entry transpose: Flink `BinaryRowData` rows → Arrow `RecordBatch`.
//!
//! One pass over the rows in blocks (plus, with [`ValuesSizing::ExactPass`],
//! a first pass over the string slots that sums lengths): the flat columns
//! through [`flat`], the rest column by column through
//! [`builder::Builder::decode_block`]. String and binary bytes go from the row
//! straight into the Arrow values buffer: one copy, no intermediate
//! `Vec`/`String` per value, no allocation per row. [`source`] holds the
//! row sources (one buffer + offsets, or addresses into segments).

use arrow_array::{ArrayRef, RecordBatch, RecordBatchOptions};

use crate::converter::{RowConverter, ValuesSizing};
use crate::error::{Error, Result};
use crate::layout::{null_bits_width, row_null_bit};
use crate::reader::u64_at;
use crate::row_kind::RowKind;

mod builder;
mod flat;
mod projected;
mod source;

use builder::{is_bytes, unreachable_kind, Builder, BLOCK, BLOCK_BYTES};

pub use source::RowAddress;
pub(crate) use source::{Contiguous, RowSource, RowVisitor, Segmented};

impl RowConverter {
    /// Entry transpose of rows stored back to back: row `i` is
    /// `data[offsets[i] .. offsets[i + 1]]`.
    ///
    /// Returns the batch (schema [`RowConverter::schema`]) and each row's
    /// [`RowKind`].
    ///
    /// # Errors
    /// An error naming the row and field for any malformed row (see
    /// [`Error`]); [`Error::OffsetOverflow`] when a string column exceeds
    /// `i32::MAX` bytes.
    ///
    /// # Performance
    /// String bytes are copied once, from the row into the Arrow values
    /// buffer; no allocation per row.
    pub fn rows_to_batch(&self, data: &[u8], offsets: &[i64]) -> Result<(RecordBatch, Vec<RowKind>)> {
        let src = Contiguous::new(data, offsets, self.fixed_size);
        let mut kinds = vec![RowKind::Insert; src.num_rows()];
        let batch = self.decode(&src, &mut kinds, &mut [])?;
        Ok((batch, kinds))
    }

    /// As [`RowConverter::rows_to_batch`], writing the RowKinds into a
    /// caller-provided slice of exactly one entry per row (for the C ABI).
    ///
    /// # Errors
    /// As [`RowConverter::rows_to_batch`]; [`Error::InvalidArgument`] when
    /// `kinds` has the wrong length.
    pub fn rows_to_batch_into(&self, data: &[u8], offsets: &[i64], kinds: &mut [RowKind]) -> Result<RecordBatch> {
        self.decode(&Contiguous::new(data, offsets, self.fixed_size), kinds, &mut [])
    }

    /// Entry transpose of rows that live in separate buffers.
    ///
    /// # Errors
    /// As [`RowConverter::rows_to_batch`]; [`Error::BadRowBounds`] for an
    /// address outside its segment.
    pub fn rows_to_batch_segments(
        &self,
        segments: &[&[u8]],
        rows: &[RowAddress],
    ) -> Result<(RecordBatch, Vec<RowKind>)> {
        let src = Segmented { segments, rows };
        let mut kinds = vec![RowKind::Insert; rows.len()];
        let batch = self.decode(&src, &mut kinds, &mut [])?;
        Ok((batch, kinds))
    }

    /// As [`RowConverter::rows_to_batch_segments`] with a caller slice for
    /// the RowKinds.
    ///
    /// # Errors
    /// As [`RowConverter::rows_to_batch_segments`].
    pub fn rows_to_batch_segments_into(
        &self,
        segments: &[&[u8]],
        rows: &[RowAddress],
        kinds: &mut [RowKind],
    ) -> Result<RecordBatch> {
        self.decode(&Segmented { segments, rows }, kinds, &mut [])
    }

    /// Decodes the rows of `src`; fields with `Some` in `replace` are not
    /// read from the rows, their column is taken from `replace` instead.
    pub(crate) fn decode<S: RowSource>(
        &self,
        src: &S,
        kinds: &mut [RowKind],
        replace: &mut [Option<ArrayRef>],
    ) -> Result<RecordBatch> {
        let skip = |j: usize| replace.get(j).is_some_and(|r| r.is_some());
        let n = src.num_rows();
        if kinds.len() != n {
            return Err(Error::InvalidArgument(format!("{} RowKind slots for {n} rows", kinds.len())));
        }
        let mut builders: Vec<Builder> = self.fields.iter().map(|f| Builder::new(f, n, true)).collect();
        let nb = null_bits_width(self.fields.len());
        if self.sizing == ValuesSizing::ExactPass {
            self.presize(src, &mut builders, nb, &skip)?;
        }
        let total = src.total_bytes();
        // Rows are decoded in blocks: the block's rows are checked and
        // collected once, then each column runs its own tight loop over the
        // block (no per-field dispatch) while the rows are still in L1. The
        // block holds about BLOCK_BYTES of rows (16..=BLOCK rows).
        let avg = total / n.max(1);
        let rows_per_block = (BLOCK_BYTES / avg.max(1)).clamp(16, BLOCK);
        let mut block: Vec<&[u8]> = Vec::with_capacity(rows_per_block.min(n));
        // The flat columns go through one loop each per block that checks
        // and writes at once; the rest (and a block that fails those
        // checks) column by column through the checked `decode_block`.
        let flat_cols = if self.flat { flat::plan(&self.fields, nb, self.fixed_size, &skip) } else { Vec::new() };
        let mut is_flat = vec![false; self.fields.len()];
        for c in &flat_cols {
            is_flat[c.j] = true;
        }
        let mut pending = Vec::with_capacity(flat_cols.len());
        for first in (0..n).step_by(rows_per_block) {
            let end = (first + rows_per_block).min(n);
            block.clear();
            src.fill_block(first, end, self.fixed_size, &mut kinds[first..end], &mut block)?;
            // SAFETY: `fill_block` returned rows of at least `fixed_size`
            // bytes each, and `flat_cols` was planned for `fixed_size`.
            let flat_done = !flat_cols.is_empty()
                && unsafe {
                    flat::decode_block(&flat_cols, &block, self.fixed_size, &mut builders, &self.fields, &mut pending)
                }?;
            for (j, (b, node)) in builders.iter_mut().zip(&self.fields).enumerate() {
                if !(skip(j) || flat_done && is_flat[j]) {
                    b.decode_block(node, &block, first, j, nb + 8 * j)?;
                }
            }
        }
        let columns = builders
            .into_iter()
            .zip(&self.fields)
            .enumerate()
            .map(|(j, (b, node))| match replace.get_mut(j).and_then(|r| r.take()) {
                Some(col) => Ok(col),
                None => b.finish(node),
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(RecordBatch::try_new_with_options(
            self.schema.clone(),
            columns,
            &RecordBatchOptions::new().with_row_count(Some(n)),
        )?)
    }

    /// First pass: sums the string / binary lengths of each top-level column
    /// from the slots so each values buffer is allocated once, exactly.
    fn presize<S: RowSource>(
        &self,
        src: &S,
        builders: &mut [Builder],
        nb: usize,
        skip: &dyn Fn(usize) -> bool,
    ) -> Result<()> {
        let cols: Vec<usize> =
            (0..self.fields.len()).filter(|&j| !skip(j) && is_bytes(&self.fields[j].ty.kind)).collect();
        if cols.is_empty() {
            return Ok(());
        }
        // (null byte, null mask, slot position) of each summed column
        let slots: Vec<(usize, u8, usize)> = cols
            .iter()
            .map(|&j| {
                let (byte, mask) = row_null_bit(j);
                (byte, mask, nb + 8 * j)
            })
            .collect();
        // One pass over the rows for up to four columns at a time: the sums
        // live in a fixed-size array the compiler keeps in registers.
        let mut col_sums = vec![0usize; cols.len()];
        for (group, out) in slots.chunks(4).zip(col_sums.chunks_mut(4)) {
            match group.len() {
                1 => sum_lengths::<1, S>(src, self.fixed_size, group, out)?,
                2 => sum_lengths::<2, S>(src, self.fixed_size, group, out)?,
                3 => sum_lengths::<3, S>(src, self.fixed_size, group, out)?,
                _ => sum_lengths::<4, S>(src, self.fixed_size, group, out)?,
            }
        }
        let mut sums = vec![0usize; self.fields.len()];
        for (&j, &sum) in cols.iter().zip(&col_sums) {
            sums[j] = sum;
        }
        for &j in &cols {
            builders[j].reserve_values(sums[j]);
        }
        Ok(())
    }
}

/// Sums the string / binary lengths of the `N` columns whose (null byte,
/// null mask, slot position) are `slots` over every row of `src`, in one
/// pass, into `out`. A NULL adds nothing; a length is never counted as
/// more than its row holds (a malformed length is reported by the main
/// pass).
#[inline]
fn sum_lengths<const N: usize, S: RowSource>(
    src: &S,
    fixed_size: usize,
    slots: &[(usize, u8, usize)],
    out: &mut [usize],
) -> Result<()> {
    let Ok(slots) = <[(usize, u8, usize); N]>::try_from(slots) else { return unreachable_kind() };
    let mut v = LengthSums { slots, sums: [0usize; N] };
    src.for_each_row(fixed_size, &mut v)?;
    for (o, s) in out.iter_mut().zip(v.sums) {
        *o = s;
    }
    Ok(())
}

/// The running sums of [`sum_lengths`]: (null byte, null mask, slot
/// position) of each column and its sum so far.
struct LengthSums<const N: usize> {
    slots: [(usize, u8, usize); N],
    sums: [usize; N],
}

impl<const N: usize> RowVisitor for LengthSums<N> {
    #[inline(always)]
    fn visit(&mut self, row: &[u8]) {
        for (sum, &(byte, mask, pos)) in self.sums.iter_mut().zip(&self.slots) {
            let null = row.get(byte).is_none_or(|b| b & mask != 0);
            let w = u64_at(row, pos).unwrap_or(0);
            let len = if w >> 63 == 1 { ((w >> 56) & 0x7F) as usize } else { (w & 0xFFFF_FFFF) as usize };
            *sum += if null { 0 } else { len.min(row.len()) };
        }
    }
}
