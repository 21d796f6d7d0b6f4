//! Stable status codes and the per-thread last-error message.
//!
//! Modelled on rustls-ffi's `rustls_result`: the numeric values of
//! [`sluice_status`] are part of the ABI and never change meaning; new codes
//! are only ever appended. The message of the last failed call is kept per
//! thread and read with [`sluice_last_error`].

use std::cell::RefCell;
use std::ffi::{c_char, CString};

use arrow_schema::ArrowError;

/// Status of every `sluice_*` call. `SLUICE_OK` is 0; every other value is
/// an error whose message [`sluice_last_error`] returns.
///
/// The values are stable: they are part of the C ABI.
#[repr(i32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum sluice_status {
    /// Success.
    SLUICE_OK = 0,
    /// A required pointer argument was NULL.
    SLUICE_ERR_NULL_POINTER = 1,
    /// An argument is out of its domain: a negative count, mismatched
    /// lengths, an already released array, a misaligned struct, ...
    SLUICE_ERR_INVALID_ARGUMENT = 2,
    /// Bytes that must be UTF-8 are not (the message names the row).
    SLUICE_ERR_INVALID_UTF8 = 3,
    /// An output would exceed what its offsets can address (`i32::MAX`
    /// value bytes for `Utf8`).
    SLUICE_ERR_OFFSET_OVERFLOW = 4,
    /// A call stock Flink also fails at run time (e.g. `SHA2(s, 160)`); the
    /// message is Flink's.
    SLUICE_ERR_FLINK = 5,
    /// A Flink `BinaryRowData` row does not match its schema.
    SLUICE_ERR_MALFORMED_ROW = 6,
    /// An Arrow or Flink type the function does not take.
    SLUICE_ERR_UNSUPPORTED_TYPE = 7,
    /// A C Data Interface struct that does not describe a valid Arrow array
    /// (wrong buffer count, offsets out of bounds, ...).
    SLUICE_ERR_INVALID_ARROW = 8,
    /// A panic inside sluice was caught at the boundary (a bug: please
    /// report it with the message).
    SLUICE_ERR_PANIC = 9,
    /// The function exists in the ABI but is not built into this version of
    /// the library yet.
    SLUICE_ERR_NOT_AVAILABLE = 10,
    /// A keyed operator's state would exceed its `budget=` (the message
    /// gives the bytes needed and the budget).
    SLUICE_ERR_STATE_BUDGET = 11,
    /// A keyed-operator snapshot that cannot be restored: truncated,
    /// corrupt, or taken by another operator kind, shape or max parallelism.
    SLUICE_ERR_CORRUPT_SNAPSHOT = 12,
}

/// An error on its way to the C caller: a stable code plus a message.
#[derive(Debug)]
pub struct FfiError {
    /// The code returned to C.
    pub code: sluice_status,
    /// The message `sluice_last_error` returns.
    pub message: String,
}

/// `Result` with [`FfiError`].
pub type FfiResult<T> = Result<T, FfiError>;

impl FfiError {
    /// A new error.
    pub fn new(code: sluice_status, message: impl Into<String>) -> Self {
        FfiError { code, message: message.into() }
    }

    /// `what` was NULL.
    pub fn null(what: &str) -> Self {
        Self::new(sluice_status::SLUICE_ERR_NULL_POINTER, format!("{what} is NULL"))
    }

    /// Shorthand for [`sluice_status::SLUICE_ERR_INVALID_ARGUMENT`].
    pub fn invalid(message: impl Into<String>) -> Self {
        Self::new(sluice_status::SLUICE_ERR_INVALID_ARGUMENT, message)
    }

    /// Shorthand for [`sluice_status::SLUICE_ERR_UNSUPPORTED_TYPE`].
    pub fn unsupported_type(message: impl Into<String>) -> Self {
        Self::new(sluice_status::SLUICE_ERR_UNSUPPORTED_TYPE, message)
    }

    /// Prefixes the message with the name of the failing function.
    pub fn in_function(mut self, function: &str) -> Self {
        self.message = format!("{function}: {}", self.message);
        self
    }
}

impl FfiError {
    fn from_kernel_code(e: &sluice_kernels::Error) -> sluice_status {
        use sluice_kernels::Error as E;
        match e {
            E::InvalidUtf8 { .. } => sluice_status::SLUICE_ERR_INVALID_UTF8,
            E::OffsetOverflow { .. } => sluice_status::SLUICE_ERR_OFFSET_OVERFLOW,
            E::InvalidArgument(_) => sluice_status::SLUICE_ERR_INVALID_ARGUMENT,
            E::Flink(_) => sluice_status::SLUICE_ERR_FLINK,
            E::Arrow(_) => sluice_status::SLUICE_ERR_INVALID_ARROW,
            _ => sluice_status::SLUICE_ERR_INVALID_ARGUMENT,
        }
    }
}

impl FfiError {
    fn from_transpose_code(e: &sluice_transpose::Error) -> sluice_status {
        use sluice_transpose::Error as E;
        match e {
            E::BadRowKind { .. }
            | E::TruncatedRow { .. }
            | E::BadRowBounds { .. }
            | E::OffsetOutOfBounds { .. }
            | E::LengthOutOfBounds { .. }
            | E::BadNestedHeader { .. }
            | E::NullInNonNullable { .. } => sluice_status::SLUICE_ERR_MALFORMED_ROW,
            E::InvalidUtf8 { .. } => sluice_status::SLUICE_ERR_INVALID_UTF8,
            E::ValueOutOfRange { .. } | E::InvalidArgument(_) => sluice_status::SLUICE_ERR_INVALID_ARGUMENT,
            E::OffsetOverflow { .. } => sluice_status::SLUICE_ERR_OFFSET_OVERFLOW,
            E::TypeParse { .. } | E::Unsupported(_) => sluice_status::SLUICE_ERR_UNSUPPORTED_TYPE,
            E::Arrow(_) => sluice_status::SLUICE_ERR_INVALID_ARROW,
            E::Kernels(k) => FfiError::from_kernel_code(k),
            _ => sluice_status::SLUICE_ERR_INVALID_ARGUMENT,
        }
    }
}

impl FfiError {
    fn from_keyed_code(e: &sluice_keyed::Error) -> sluice_status {
        use sluice_keyed::Error as E;
        match e {
            E::UnsupportedType { .. } => sluice_status::SLUICE_ERR_UNSUPPORTED_TYPE,
            E::OffsetOverflow { .. } => sluice_status::SLUICE_ERR_OFFSET_OVERFLOW,
            E::Arrow(_) => sluice_status::SLUICE_ERR_INVALID_ARROW,
            E::StateBudgetExceeded { .. } => sluice_status::SLUICE_ERR_STATE_BUDGET,
            E::CorruptSnapshot { .. } => sluice_status::SLUICE_ERR_CORRUPT_SNAPSHOT,
            E::Transpose(t) => FfiError::from_transpose_code(t),
            _ => sluice_status::SLUICE_ERR_INVALID_ARGUMENT,
        }
    }
}

/// Errors of the layers below the engine reach the bindings as engine
/// errors, so that one mapping decides every code.
macro_rules! via_engine {
    ($($t:ty),*) => {$(
        impl From<$t> for FfiError {
            fn from(e: $t) -> Self {
                FfiError::from(sluice_engine::Error::from(e))
            }
        }
    )*};
}

via_engine!(sluice_kernels::Error, sluice_transpose::Error, sluice_keyed::Error);

/// The one mapping of engine errors to C status codes (the JNI layer
/// throws the same codes in `SluiceException`).
impl From<sluice_engine::Error> for FfiError {
    fn from(e: sluice_engine::Error) -> Self {
        use sluice_engine::Error as E;
        let code = match &e {
            E::Parse { .. } | E::Bind(_) | E::Spec(_) | E::Invalid(_) => sluice_status::SLUICE_ERR_INVALID_ARGUMENT,
            E::UnsupportedType(_) => sluice_status::SLUICE_ERR_UNSUPPORTED_TYPE,
            E::Kernel(k) => FfiError::from_kernel_code(k),
            E::Transpose(t) => FfiError::from_transpose_code(t),
            E::Keyed(k) | E::Restore { source: k, .. } => FfiError::from_keyed_code(k),
            E::Arrow(_) => sluice_status::SLUICE_ERR_INVALID_ARROW,
            _ => sluice_status::SLUICE_ERR_INVALID_ARGUMENT,
        };
        FfiError::new(code, e.to_string())
    }
}

via_engine!(ArrowError);

thread_local! {
    /// The message of this thread's last failed call; empty after a success.
    static LAST_ERROR: RefCell<Option<CString>> = const { RefCell::new(None) };
}

/// Records `message` as this thread's last error. Never panics: interior
/// NUL bytes are replaced, and a thread being torn down keeps no message.
pub(crate) fn set_last_error(message: &str) {
    let c = match CString::new(message) {
        Ok(c) => c,
        Err(_) => CString::new(message.replace('\0', "\\0")).unwrap_or_default(),
    };
    let _ = LAST_ERROR.try_with(|slot| {
        if let Ok(mut slot) = slot.try_borrow_mut() {
            *slot = Some(c);
        }
    });
}

/// Clears this thread's last error after a successful call (no allocation
/// when it is already clear).
pub(crate) fn clear_last_error() {
    let _ = LAST_ERROR.try_with(|slot| {
        if let Ok(mut slot) = slot.try_borrow_mut() {
            if slot.is_some() {
                *slot = None;
            }
        }
    });
}

impl FfiError {
    /// Publishes the error as this thread's last error and returns its code.
    pub(crate) fn publish(self) -> i32 {
        set_last_error(&self.message);
        self.code as i32
    }
}

/// The message of the calling thread's last failed `sluice_*` call, or `""`
/// if its last call succeeded (or it made none).
///
/// The returned string is owned by the library and stays valid until the
/// same thread's next `sluice_*` call (other than `sluice_last_error` and
/// `sluice_version`). Never NULL.
#[no_mangle]
pub extern "C" fn sluice_last_error() -> *const c_char {
    static EMPTY: &[u8] = b"\0";
    LAST_ERROR
        .try_with(|slot| match slot.try_borrow().as_deref() {
            // The CString's heap buffer does not move until the slot is
            // assigned again, which only this thread's next call does.
            Ok(Some(s)) => s.as_ptr(),
            _ => EMPTY.as_ptr().cast(),
        })
        .unwrap_or(EMPTY.as_ptr().cast())
}
