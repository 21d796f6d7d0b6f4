//! The one error type of `sluice-kernels`.

use std::fmt;

use arrow_schema::ArrowError;

/// Everything a kernel can refuse.
///
/// Kernels never panic on input: a wrong type, an offset that would not fit,
/// invalid UTF-8 from outside or a call Flink itself would fail all come back
/// as one of these variants, with a message that names the row or limit.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// Bytes that must be UTF-8 are not; `row` is the row index in the input
    /// (relative to the array's own offset), `valid_up_to` the byte offset of
    /// the first invalid sequence inside that row.
    InvalidUtf8 {
        /// Row index, relative to the start of the (possibly sliced) array.
        row: usize,
        /// Length of the valid UTF-8 prefix of that row.
        valid_up_to: usize,
    },
    /// The output's values would exceed what its offset type can address
    /// (`i32::MAX` bytes for `Utf8`). Use the `LargeUtf8` variant of the kernel.
    OffsetOverflow {
        /// Bytes the output needs.
        needed: usize,
        /// The largest value the offset type can hold.
        limit: usize,
    },
    /// Wrong arity, wrong type, mismatched lengths.
    InvalidArgument(String),
    /// A call that stock Flink also fails at run time (for example
    /// `SHA2(s, 160)`); the message is the one Flink raises.
    Flink(String),
    /// An error from arrow-rs itself.
    Arrow(ArrowError),
}

/// `Result` with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::InvalidUtf8 { row, valid_up_to } => write!(
                f,
                "invalid UTF-8 in row {row}: the first invalid byte sequence starts at byte {valid_up_to}"
            ),
            Error::OffsetOverflow { needed, limit } => write!(
                f,
                "output needs {needed} value bytes, more than the offset limit of {limit} bytes; use the LargeUtf8 variant"
            ),
            Error::InvalidArgument(msg) => write!(f, "invalid argument: {msg}"),
            Error::Flink(msg) => f.write_str(msg),
            Error::Arrow(e) => write!(f, "arrow: {e}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Arrow(e) => Some(e),
            _ => None,
        }
    }
}

impl From<ArrowError> for Error {
    fn from(e: ArrowError) -> Self {
        Error::Arrow(e)
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

/// Shorthand for an [`Error::InvalidArgument`].
pub(crate) fn invalid_arg(msg: impl Into<String>) -> Error {
    Error::InvalidArgument(msg.into())
}
