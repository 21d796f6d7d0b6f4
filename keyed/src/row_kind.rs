//! Flink's `RowKind` (`flink-core/.../types/RowKind.java`).

use crate::error::{Error, Result};

/// The change a row carries in a changelog stream; the discriminants are
/// Flink's byte values (`RowKind.toByteValue`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum RowKind {
    /// `+I`
    Insert = 0,
    /// `-U`
    UpdateBefore = 1,
    /// `+U`
    UpdateAfter = 2,
    /// `-D`
    Delete = 3,
}

impl RowKind {
    /// The kind for a Flink byte value.
    ///
    /// # Errors
    /// [`Error::InvalidRowKind`] for bytes outside 0..=3 (Flink's
    /// `RowKind.fromByteValue` throws for them too); `row` is only used in
    /// the message.
    pub fn from_byte(value: u8, row: usize) -> Result<RowKind> {
        match value {
            0 => Ok(RowKind::Insert),
            1 => Ok(RowKind::UpdateBefore),
            2 => Ok(RowKind::UpdateAfter),
            3 => Ok(RowKind::Delete),
            _ => Err(Error::InvalidRowKind { row, value }),
        }
    }

    /// Converts a column of Flink row-kind bytes (for example from the C ABI).
    ///
    /// # Errors
    /// [`Error::InvalidRowKind`] naming the first bad row.
    pub fn from_bytes(values: &[u8]) -> Result<Vec<RowKind>> {
        values.iter().enumerate().map(|(row, &v)| RowKind::from_byte(v, row)).collect()
    }

    /// Flink's byte value.
    pub fn to_byte(self) -> u8 {
        self as u8
    }

    /// `+I` or `+U` (`RowDataUtil.isAccumulateMsg`).
    pub fn is_accumulate(self) -> bool {
        matches!(self, RowKind::Insert | RowKind::UpdateAfter)
    }

    /// `-U` or `-D` (`RowDataUtil.isRetractMsg`).
    pub fn is_retract(self) -> bool {
        !self.is_accumulate()
    }

    /// Flink's short string: `+I`, `-U`, `+U`, `-D`.
    pub fn short_string(self) -> &'static str {
        match self {
            RowKind::Insert => "+I",
            RowKind::UpdateBefore => "-U",
            RowKind::UpdateAfter => "+U",
            RowKind::Delete => "-D",
        }
    }
}

/// Checks that `kinds` has one entry per row of a batch of `num_rows` rows.
pub(crate) fn check_kinds_len(kinds: &[RowKind], num_rows: usize) -> Result<()> {
    if kinds.len() != num_rows {
        return Err(Error::InvalidArgument(format!(
            "{} row kinds given for a batch of {num_rows} rows",
            kinds.len()
        )));
    }
    Ok(())
}
