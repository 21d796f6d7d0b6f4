//! The one error type of `sluice-transpose`.

use std::fmt;

use arrow_schema::ArrowError;

/// Everything the transpose can refuse.
///
/// Malformed rows never cause a panic or undefined behaviour: every offset and
/// length read from a row is checked against the row's size, and a failure
/// comes back as one of the `Malformed*`-style variants naming the row (index
/// in the batch) and the field (a dotted path such as `f3.element.key`).
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// Byte 0 of a row (or nested row) is not a Flink `RowKind` byte (0..=3).
    BadRowKind {
        /// Row index in the batch.
        row: usize,
        /// Field path of the nested row, or `None` for the top-level row.
        field: Option<String>,
        /// The byte found.
        byte: u8,
    },
    /// A row is shorter than its fixed part (null bits + 8 bytes per field).
    TruncatedRow {
        /// Row index in the batch.
        row: usize,
        /// The row's size in bytes.
        size: usize,
        /// The fixed part the schema requires.
        needed: usize,
    },
    /// The row offsets (or segment addresses) given for a batch do not
    /// describe a slice of the input: negative, decreasing or past the end.
    BadRowBounds {
        /// Row index in the batch.
        row: usize,
        /// Start of the row as given.
        start: i64,
        /// End of the row as given.
        end: i64,
        /// Length of the buffer the row must lie in.
        buffer_len: usize,
    },
    /// A variable-part offset points at or past the end of the enclosing row,
    /// array or map.
    OffsetOutOfBounds {
        /// Row index in the batch.
        row: usize,
        /// Field path.
        field: String,
        /// The offset read from the slot.
        offset: usize,
        /// Size of the enclosing row / array / map.
        size: usize,
    },
    /// A variable-part item starts inside the enclosing row but its length
    /// runs past the end.
    LengthOutOfBounds {
        /// Row index in the batch.
        row: usize,
        /// Field path.
        field: String,
        /// Offset of the item.
        offset: usize,
        /// Length of the item.
        len: usize,
        /// Size of the enclosing row / array / map.
        size: usize,
    },
    /// The header of a nested ARRAY, MAP or ROW is impossible (negative
    /// element count, elements past the end, key-array size past the end,
    /// nested row shorter than its fixed part, non-compact decimal with 0 or
    /// more than 16 bytes, ...).
    BadNestedHeader {
        /// Row index in the batch.
        row: usize,
        /// Field path.
        field: String,
        /// What is wrong.
        detail: String,
    },
    /// A string field's bytes are not UTF-8 (Arrow `Utf8` requires it).
    InvalidUtf8 {
        /// Row index in the batch.
        row: usize,
        /// Field path.
        field: String,
    },
    /// A NULL in a field declared NOT NULL.
    NullInNonNullable {
        /// Row index in the batch.
        row: usize,
        /// Field path.
        field: String,
    },
    /// A value that cannot be represented on the other side (timestamp that
    /// overflows i64 nanoseconds, BINARY(n) value of the wrong length, ...).
    ValueOutOfRange {
        /// Row index in the batch.
        row: usize,
        /// Field path.
        field: String,
        /// What is wrong.
        detail: String,
    },
    /// The output's values would exceed what its offset type can address
    /// (`i32::MAX` bytes for `Utf8`, `u32`/`i32` offsets inside a row).
    OffsetOverflow {
        /// Bytes needed.
        needed: usize,
        /// The largest value the offset type can hold.
        limit: usize,
    },
    /// A type string that does not parse as a Flink logical type.
    TypeParse {
        /// The input.
        input: String,
        /// Byte position of the problem.
        pos: usize,
        /// What was expected.
        detail: String,
    },
    /// A Flink or Arrow type the transpose does not support, or a column
    /// whose Arrow type does not match its Flink type.
    Unsupported(String),
    /// Wrong arity, wrong lengths, wrong argument.
    InvalidArgument(String),
    /// An error from arrow-rs.
    Arrow(ArrowError),
    /// An error from `sluice-kernels` (UTF-16 encoding).
    Kernels(sluice_kernels::Error),
}

/// `Result` with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::BadRowKind { row, field: None, byte } => {
                write!(f, "row {row}: header byte {byte:#04x} is not a RowKind (0..=3)")
            }
            Error::BadRowKind { row, field: Some(field), byte } => write!(
                f,
                "row {row}, field {field}: nested row header byte {byte:#04x} is not a RowKind (0..=3)"
            ),
            Error::TruncatedRow { row, size, needed } => write!(
                f,
                "row {row}: {size} bytes, shorter than the fixed part of {needed} bytes"
            ),
            Error::BadRowBounds { row, start, end, buffer_len } => write!(
                f,
                "row {row}: bounds {start}..{end} do not lie in the {buffer_len}-byte buffer"
            ),
            Error::OffsetOutOfBounds { row, field, offset, size } => write!(
                f,
                "row {row}, field {field}: offset {offset} is past the end of the {size}-byte enclosing value"
            ),
            Error::LengthOutOfBounds { row, field, offset, len, size } => write!(
                f,
                "row {row}, field {field}: {len} bytes at offset {offset} run past the end of the {size}-byte enclosing value"
            ),
            Error::BadNestedHeader { row, field, detail } => {
                write!(f, "row {row}, field {field}: bad nested header: {detail}")
            }
            Error::InvalidUtf8 { row, field } => {
                write!(f, "row {row}, field {field}: string bytes are not valid UTF-8")
            }
            Error::NullInNonNullable { row, field } => {
                write!(f, "row {row}, field {field}: NULL in a NOT NULL field")
            }
            Error::ValueOutOfRange { row, field, detail } => {
                write!(f, "row {row}, field {field}: {detail}")
            }
            Error::OffsetOverflow { needed, limit } => write!(
                f,
                "output needs {needed} bytes, more than the offset limit of {limit} bytes"
            ),
            Error::TypeParse { input, pos, detail } => {
                write!(f, "cannot parse Flink type {input:?} at byte {pos}: {detail}")
            }
            Error::Unsupported(msg) => write!(f, "unsupported: {msg}"),
            Error::InvalidArgument(msg) => write!(f, "invalid argument: {msg}"),
            Error::Arrow(e) => write!(f, "arrow: {e}"),
            Error::Kernels(e) => write!(f, "kernels: {e}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Arrow(e) => Some(e),
            Error::Kernels(e) => Some(e),
            _ => None,
        }
    }
}

impl From<ArrowError> for Error {
    fn from(e: ArrowError) -> Self {
        Error::Arrow(e)
    }
}

impl From<sluice_kernels::Error> for Error {
    fn from(e: sluice_kernels::Error) -> Self {
        Error::Kernels(e)
    }
}

impl From<Error> for ArrowError {
    fn from(e: Error) -> Self {
        match e {
            Error::Arrow(e) => e,
            Error::InvalidArgument(msg) => ArrowError::InvalidArgumentError(msg),
            other => ArrowError::ExternalError(Box::new(other)),
        }
    }
}
