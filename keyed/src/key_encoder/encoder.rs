//! [`KeyEncoder`], the trait both key writers implement.

use crate::error::Result;

/// Appends encoded key rows for the rows of one batch.
///
/// Implementations do all per-batch work (type dispatch, downcasts) when they
/// are built, so that [`encode_row`](KeyEncoder::encode_row) is a tight loop
/// with no allocation other than the amortised growth of `out`.
pub trait KeyEncoder {
    /// Rows in the batch this encoder reads.
    fn num_rows(&self) -> usize;

    /// Appends the key bytes of row `row` to `out` (without clearing it).
    ///
    /// # Errors
    /// `row` out of range, or a value the format cannot hold.
    fn encode_row(&self, row: usize, out: &mut Vec<u8>) -> Result<()>;
}
