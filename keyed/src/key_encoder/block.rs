//! [`KeyBlock`]: the encoded keys of one batch in one reused buffer, filled
//! row at a time through the [`KeyEncoder`] seam or column at a time from a
//! [`FlinkKeyEncoder`].

use super::columnar::{each_start, put_at, var_sizes, var_write, with_var, BinViews, Offs, StrViews};
use super::encoder::KeyEncoder;
use super::flink::{Col, FlinkKeyEncoder, MAX_ROW_BYTES};
use crate::error::Result;

/// The encoded keys of one batch, back to back in one reused buffer.
///
/// Operators keep one `KeyBlock` and refill it per batch, so after the first
/// batches (once the buffers reached their working size) encoding a batch
/// allocates nothing. Probes borrow `row(i)` straight out of the block.
///
/// Keys made only of fixed-width fields have one size (`stride`); the block
/// then needs no offsets and [`fill_flink`](KeyBlock::fill_flink) writes it a
/// column at a time.
#[derive(Default, Debug)]
pub struct KeyBlock {
    data: Vec<u8>,
    ends: Vec<usize>,
    /// Scratch of [`fill_flink`](KeyBlock::fill_flink) for variable-width
    /// keys: per row, where its next variable-part byte goes.
    cursor: Vec<usize>,
    /// Row size when every row has the same size, else 0.
    stride: usize,
    len: usize,
}

impl KeyBlock {
    /// An empty block.
    pub fn new() -> Self {
        Self::default()
    }

    /// Replaces the contents with the key rows of every row of `enc`, one
    /// row at a time.
    ///
    /// # Errors
    /// As [`KeyEncoder::encode_row`].
    pub fn fill(&mut self, enc: &dyn KeyEncoder) -> Result<()> {
        self.data.clear();
        self.ends.clear();
        self.stride = 0;
        let n = enc.num_rows();
        self.ends.reserve(n);
        for i in 0..n {
            enc.encode_row(i, &mut self.data)?;
            self.ends.push(self.data.len());
        }
        self.len = n;
        Ok(())
    }

    /// Replaces the contents with the Flink key rows of every row of `enc`.
    /// Fixed-width keys are written a column at a time into a zeroed block of
    /// `rows × fixed size` bytes (no per-row dispatch); keys with strings
    /// fall back to [`fill`](KeyBlock::fill).
    ///
    /// # Errors
    /// As [`KeyEncoder::encode_row`].
    pub fn fill_flink(&mut self, enc: &FlinkKeyEncoder<'_>) -> Result<()> {
        if !enc.is_fixed_width() {
            return self.fill_var(enc);
        }
        let (n, stride) = (enc.num_rows, enc.fixed);
        self.ends.clear();
        self.data.clear();
        self.data.resize(n * stride, 0);
        self.stride = stride;
        self.len = n;
        for (f, kc) in enc.cols.iter().enumerate() {
            let off = enc.nb + 8 * f;
            let rows = self.data.chunks_exact_mut(stride);
            match &kc.col {
                Col::Bool(a) => {
                    for (i, r) in rows.enumerate() {
                        r[off] = a.value(i) as u8;
                    }
                }
                Col::I8(v) => rows.zip(v.iter()).for_each(|(r, x)| r[off] = *x as u8),
                Col::I16(v) => rows.zip(v.iter()).for_each(|(r, x)| r[off..off + 2].copy_from_slice(&x.to_le_bytes())),
                Col::I32(v) => rows.zip(v.iter()).for_each(|(r, x)| r[off..off + 4].copy_from_slice(&x.to_le_bytes())),
                Col::F32(v) => {
                    rows.zip(v.iter()).for_each(|(r, x)| r[off..off + 4].copy_from_slice(&x.to_bits().to_le_bytes()))
                }
                Col::I64(v) => rows.zip(v.iter()).for_each(|(r, x)| r[off..off + 8].copy_from_slice(&x.to_le_bytes())),
                Col::F64(v) => {
                    rows.zip(v.iter()).for_each(|(r, x)| r[off..off + 8].copy_from_slice(&x.to_bits().to_le_bytes()))
                }
                Col::Dec(v) => {
                    rows.zip(v.iter()).for_each(|(r, x)| r[off..off + 8].copy_from_slice(&(*x as i64).to_le_bytes()))
                }
                // Variable-width columns never reach here (is_fixed_width).
                _ => return self.fill(enc),
            }
            if let Some(nulls) = kc.nulls.filter(|n| n.null_count() > 0) {
                let bit = f + 8;
                for (i, r) in self.data.chunks_exact_mut(stride).enumerate() {
                    if nulls.is_null(i) {
                        r[off..off + 8].fill(0);
                        r[bit >> 3] |= 1 << (bit & 7);
                    }
                }
            }
        }
        Ok(())
    }

    /// [`fill_flink`](KeyBlock::fill_flink) for keys with strings or
    /// binaries, a column at a time as well: one pass sizes every row (fixed
    /// part plus each long value padded to 8) into `ends`, the block is
    /// zeroed once at its final size, then each key column is written into
    /// every row, long values appended at the row's variable-part cursor.
    /// The bytes are exactly [`FlinkKeyEncoder::encode_row`]'s (the
    /// `columnar_fill` property test compares them); a row over Flink's
    /// offset limit falls back to the row writer for its exact error.
    fn fill_var(&mut self, enc: &FlinkKeyEncoder<'_>) -> Result<()> {
        let (n, fixed) = (enc.num_rows, enc.fixed);
        self.stride = 0;
        self.len = 0;
        self.ends.clear();
        self.ends.resize(n, fixed);
        for kc in &enc.cols {
            with_var!(&kc.col, v => var_sizes(v, kc, &mut self.ends));
        }
        if self.ends.iter().any(|&e| e > MAX_ROW_BYTES) {
            return self.fill(enc);
        }
        // Sizes to ends; the variable-part cursor of every row starts at its fixed part.
        self.cursor.clear();
        self.cursor.reserve(n);
        let mut at = 0usize;
        for e in &mut self.ends {
            self.cursor.push(at + fixed);
            at += *e;
            *e = at;
        }
        self.data.clear();
        self.data.resize(at, 0);
        for (f, kc) in enc.cols.iter().enumerate() {
            let off = enc.nb + 8 * f;
            let (data, cursor, ends) = (&mut self.data, &mut self.cursor, &self.ends);
            match &kc.col {
                Col::Bool(a) => each_start(ends, |i, s| put_at(data, s + off, &[a.value(i) as u8])),
                Col::I8(v) => each_start(ends, |i, s| put_at(data, s + off, &[v[i] as u8])),
                Col::I16(v) => each_start(ends, |i, s| put_at(data, s + off, &v[i].to_le_bytes())),
                Col::I32(v) => each_start(ends, |i, s| put_at(data, s + off, &v[i].to_le_bytes())),
                Col::F32(v) => each_start(ends, |i, s| put_at(data, s + off, &v[i].to_bits().to_le_bytes())),
                Col::I64(v) => each_start(ends, |i, s| put_at(data, s + off, &v[i].to_le_bytes())),
                Col::F64(v) => each_start(ends, |i, s| put_at(data, s + off, &v[i].to_bits().to_le_bytes())),
                Col::Dec(v) => each_start(ends, |i, s| put_at(data, s + off, &(v[i] as i64).to_le_bytes())),
                var => with_var!(var, v => var_write(v, kc, off, ends, cursor, data)),
            }
            if let Some(nulls) = kc.nulls.filter(|n| n.null_count() > 0) {
                let bit = f + 8;
                for i in 0..n {
                    if nulls.is_null(i) {
                        let start = if i == 0 { 0 } else { self.ends[i - 1] };
                        self.data[start + off..start + off + 8].fill(0);
                        self.data[start + (bit >> 3)] |= 1 << (bit & 7);
                    }
                }
            }
        }
        self.len = n;
        Ok(())
    }

    /// Rows in the block.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the block is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The common row size when all rows have one size, else `None`.
    pub fn stride(&self) -> Option<usize> {
        (self.stride != 0).then_some(self.stride)
    }

    /// The whole encoded block (rows back to back).
    pub fn data(&self) -> &[u8] {
        &self.data
    }

    /// The key bytes of row `i`.
    ///
    /// # Panics
    /// If `i >= self.len()` (operators only index rows they filled).
    #[inline]
    pub fn row(&self, i: usize) -> &[u8] {
        if self.stride != 0 {
            let s = i * self.stride;
            return &self.data[s..s + self.stride];
        }
        let end = self.ends[i];
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.data[start..end]
    }

    /// Row `i`'s key for a state probe: borrowed from the block, or, when
    /// `owned` is given (the benches' owned-key mode, see the operators'
    /// `set_owned_key_probe`), copied into a fresh `Vec` stored there.
    #[inline]
    pub(crate) fn probe_row<'a>(&'a self, i: usize, owned: Option<&'a mut Vec<u8>>) -> &'a [u8] {
        match owned {
            None => self.row(i),
            Some(copy) => {
                *copy = self.row(i).to_vec();
                copy
            }
        }
    }
}
