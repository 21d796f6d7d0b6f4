//! Flink's `RowKind` (`flink-core/.../types/RowKind.java`): the one type of
//! sluice-transpose, plus conversions that fail with this crate's error.

use crate::error::{Error, Result};

pub use sluice_transpose::RowKind;

/// The kind for a Flink byte value, as an error of this crate.
///
/// # Errors
/// [`Error::InvalidRowKind`] for bytes outside 0..=3 (Flink's
/// `RowKind.fromByteValue` throws for them too); `row` is only used in the
/// message.
pub fn row_kind_from_byte(value: u8, row: usize) -> Result<RowKind> {
    RowKind::from_byte(value).ok_or(Error::InvalidRowKind { row, value })
}

/// Converts a column of Flink row-kind bytes (for example from the C ABI).
///
/// # Errors
/// [`Error::InvalidRowKind`] naming the first bad row.
pub fn row_kinds_from_bytes(values: &[u8]) -> Result<Vec<RowKind>> {
    values.iter().enumerate().map(|(row, &v)| row_kind_from_byte(v, row)).collect()
}

/// Checks that `kinds` has one entry per row of a batch of `num_rows` rows.
pub(crate) fn check_kinds_len(kinds: &[RowKind], num_rows: usize) -> Result<()> {
    if kinds.len() != num_rows {
        return Err(Error::InvalidArgument(format!("{} row kinds given for a batch of {num_rows} rows", kinds.len())));
    }
    Ok(())
}
