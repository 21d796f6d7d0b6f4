//! The one error type of `sluice-keyed`.

use std::fmt;

use arrow_schema::{ArrowError, DataType};

/// Everything a keyed operator can refuse.
///
/// Operators never panic on input: an unsupported key type, a retraction fed
/// to an insert-only operator, a snapshot that is truncated or corrupt, or an
/// insert that would exceed the configured state budget all come back as one
/// of these variants with a message naming the row, column or limit.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// Wrong column index, mismatched lengths, bad option value.
    InvalidArgument(String),
    /// A column whose Arrow type the operator cannot use in that role.
    UnsupportedType {
        /// Column index in the input schema.
        column: usize,
        /// Its Arrow type.
        data_type: DataType,
        /// What the column was used for ("key", "SUM input", ...).
        role: &'static str,
    },
    /// A row kind that the operator does not accept (for example a `-U`
    /// given to a deduplication, whose input Flink requires to be insert-only).
    UnexpectedRowKind {
        /// Row index in the batch.
        row: usize,
        /// The row kind's Flink byte value.
        kind: u8,
        /// Which operator refused it.
        operator: &'static str,
    },
    /// A byte that is not a Flink `RowKind` (0..=3).
    InvalidRowKind {
        /// Row index.
        row: usize,
        /// The byte.
        value: u8,
    },
    /// A variable-length key field would not be addressable by Flink's
    /// 31-bit in-row offset.
    OffsetOverflow {
        /// Bytes needed.
        needed: usize,
        /// The largest offset Flink's row format can hold.
        limit: usize,
    },
    /// Inserting a new key (or value) would take retained state above the
    /// configured budget. The operator's state is unchanged by the failing
    /// row; rows before it in the batch were applied.
    StateBudgetExceeded {
        /// Retained bytes the insert would have produced.
        needed: usize,
        /// The configured budget.
        budget: usize,
    },
    /// A snapshot that cannot be restored: wrong magic, unknown version,
    /// truncated, checksum mismatch, or state of another operator kind.
    CorruptSnapshot {
        /// Byte offset in the snapshot where the problem was found.
        offset: usize,
        /// What was wrong.
        reason: String,
    },
    /// An error from arrow-rs itself.
    Arrow(ArrowError),
    /// An error from `sluice-transpose`'s `BinaryRowData` key writer (used
    /// for key types this crate's own encoder does not cover).
    Transpose(sluice_transpose::Error),
}

/// `Result` with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::InvalidArgument(msg) => write!(f, "invalid argument: {msg}"),
            Error::UnsupportedType { column, data_type, role } => {
                write!(f, "column {column} of type {data_type} is not supported as {role}")
            }
            Error::UnexpectedRowKind { row, kind, operator } => {
                write!(f, "{operator} does not accept row kind {kind} (row {row})")
            }
            Error::InvalidRowKind { row, value } => {
                write!(f, "row {row}: {value} is not a Flink RowKind byte (0..=3)")
            }
            Error::OffsetOverflow { needed, limit } => {
                write!(f, "key row needs {needed} bytes, more than Flink's in-row offset limit of {limit}")
            }
            Error::StateBudgetExceeded { needed, budget } => {
                write!(f, "state budget exceeded: the insert needs {needed} retained bytes, budget is {budget}")
            }
            Error::CorruptSnapshot { offset, reason } => {
                write!(f, "corrupt snapshot at byte {offset}: {reason}")
            }
            Error::Arrow(e) => write!(f, "arrow: {e}"),
            Error::Transpose(e) => write!(f, "key writer: {e}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Arrow(e) => Some(e),
            Error::Transpose(e) => Some(e),
            _ => None,
        }
    }
}

impl From<ArrowError> for Error {
    fn from(e: ArrowError) -> Self {
        Error::Arrow(e)
    }
}

impl From<sluice_transpose::Error> for Error {
    fn from(e: sluice_transpose::Error) -> Self {
        Error::Transpose(e)
    }
}

impl From<Error> for ArrowError {
    fn from(e: Error) -> Self {
        match e {
            Error::Arrow(e) => e,
            Error::InvalidArgument(msg) => ArrowError::InvalidArgumentError(msg),
            other => ArrowError::ComputeError(other.to_string()),
        }
    }
}

pub(crate) fn invalid_arg(msg: impl Into<String>) -> Error {
    Error::InvalidArgument(msg.into())
}
