//! The one error type of the engine.
//!
//! Every failure of a Calc program or a keyed operator is an [`Error`]: the
//! variants say which stage refused (parsing an expression, binding it,
//! a kernel, a transpose, a keyed operator) and carry what a caller needs to
//! report it. The bindings map the variants to their own codes (the C ABI's
//! status enum, the Java exception's code); the engine itself knows nothing
//! of them.

use std::fmt;

use arrow_schema::ArrowError;

/// Why an engine call failed.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// A Calc expression does not parse.
    Parse {
        /// 1-based position of the expression in the projection list, when
        /// the expression is part of one.
        expression: Option<usize>,
        /// The expression text.
        text: String,
        /// Byte offset in `text` where parsing stopped.
        pos: usize,
        /// What was expected and what was found.
        message: String,
    },
    /// A Calc program does not bind: an unknown column, a wrong argument
    /// type, a constant output column, an incompatible output type, a
    /// mismatch between the given names and types. The message names the
    /// expression.
    Bind(String),
    /// A keyed operator spec that does not parse or resolve (the message
    /// names the offending text).
    Spec(String),
    /// An input that breaks the engine's contract: bad offsets, too few
    /// NULL flags or row kinds, a column given twice, a bad key-group
    /// range.
    Invalid(String),
    /// An Arrow or Flink type the engine does not take.
    UnsupportedType(String),
    /// A kernel's error (invalid UTF-8, offset overflow, Flink's own
    /// run-time errors such as `SHA2`'s width).
    Kernel(sluice_kernels::Error),
    /// A transpose error (a malformed `BinaryRowData` row, an unsupported
    /// Flink type, a NULL in a NOT NULL field).
    Transpose(sluice_transpose::Error),
    /// A keyed operator's error (state budget, corrupt snapshot, a row kind
    /// it refuses).
    Keyed(sluice_keyed::Error),
    /// Restoring blob `blob` of several failed.
    Restore {
        /// Index of the failing blob.
        blob: usize,
        /// Why it failed.
        source: sluice_keyed::Error,
    },
    /// An Arrow error (a batch that does not match its schema).
    Arrow(ArrowError),
}

/// `Result` with the engine's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// An [`Error::Invalid`].
    pub fn invalid(message: impl Into<String>) -> Self {
        Error::Invalid(message.into())
    }

    /// An [`Error::Bind`].
    pub fn bind(message: impl Into<String>) -> Self {
        Error::Bind(message.into())
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Parse { expression: Some(i), text, pos, message } => {
                write!(f, "expression {i} ({text}): at byte {pos}: {message}")
            }
            Error::Parse { expression: None, pos, message, .. } => write!(f, "at byte {pos}: {message}"),
            Error::Bind(m) | Error::Invalid(m) | Error::UnsupportedType(m) => f.write_str(m),
            Error::Spec(m) => write!(f, "bad operator spec: {m}"),
            Error::Kernel(e) => e.fmt(f),
            Error::Transpose(e) => e.fmt(f),
            Error::Keyed(e) => e.fmt(f),
            Error::Restore { blob, source } => write!(f, "blob {blob}: {source}"),
            Error::Arrow(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Kernel(e) => Some(e),
            Error::Transpose(e) => Some(e),
            Error::Keyed(e) | Error::Restore { source: e, .. } => Some(e),
            Error::Arrow(e) => Some(e),
            _ => None,
        }
    }
}

/// `From` for the errors of the layers below, each wrapped in its variant
/// (so `?` lifts them).
macro_rules! wrap_errors {
    ($($source:ty => $variant:ident),* $(,)?) => {$(
        impl From<$source> for Error {
            fn from(e: $source) -> Self {
                Error::$variant(e)
            }
        }
    )*};
}

wrap_errors! {
    sluice_kernels::Error => Kernel,
    sluice_transpose::Error => Transpose,
    sluice_keyed::Error => Keyed,
    ArrowError => Arrow,
}
