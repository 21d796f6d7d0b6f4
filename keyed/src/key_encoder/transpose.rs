//! [`TransposeKeyEncoder`]: `sluice-transpose`'s key writer behind the
//! [`KeyEncoder`] seam, for the key types the columnar writer does not cover.

use super::encoder::KeyEncoder;
use crate::error::Result;

/// `sluice-transpose`'s Flink key writer behind the [`KeyEncoder`] seam:
/// covers every key type transpose maps to a Flink type, including the
/// non-compact DECIMAL/TIMESTAMP whose NULLs need the projection layout.
/// Each row is written into one reused scratch buffer and appended.
pub struct TransposeKeyEncoder<'a> {
    bound: sluice_transpose::BoundKeyEncoder<'a>,
    scratch: std::cell::RefCell<Vec<u8>>,
    rows: usize,
}

impl<'a> TransposeKeyEncoder<'a> {
    /// Wraps a key encoder bound to a batch of `rows` rows.
    pub fn new(bound: sluice_transpose::BoundKeyEncoder<'a>, rows: usize) -> Self {
        TransposeKeyEncoder { bound, scratch: std::cell::RefCell::new(Vec::new()), rows }
    }
}

impl KeyEncoder for TransposeKeyEncoder<'_> {
    fn num_rows(&self) -> usize {
        self.rows
    }

    fn encode_row(&self, row: usize, out: &mut Vec<u8>) -> Result<()> {
        let mut scratch = self.scratch.borrow_mut();
        self.bound.encode(row, &mut scratch)?;
        out.extend_from_slice(&scratch);
        Ok(())
    }
}
