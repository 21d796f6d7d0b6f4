//! The panic boundary every exported function runs inside, after rustls-ffi's
//! `ffi_panic_boundary!`.
//!
//! A Rust panic must never unwind into C (since Rust 1.81 it aborts the
//! process at an `extern "C"` frame). [`ffi_boundary!`] runs the body under
//! `catch_unwind`, turns `Err(FfiError)` into its code + last-error message
//! and a caught panic into `SLUICE_ERR_PANIC` with the panic's message.
//! Values owned by the body (for example an input `ArrowArray` already moved
//! in) are dropped during unwinding, so a panic still releases them once.

use std::any::Any;

use crate::capi::error::{set_last_error, sluice_status};

/// Runs `$body` (an expression of type `FfiResult<()>`) and returns the
/// `int32_t` status for C. `$name` names the C function in messages.
macro_rules! ffi_boundary {
    ($name:expr, $body:expr) => {{
        match ::std::panic::catch_unwind(::std::panic::AssertUnwindSafe(|| -> $crate::capi::error::FfiResult<()> {
            $body
        })) {
            Ok(Ok(())) => {
                $crate::capi::error::clear_last_error();
                $crate::capi::error::sluice_status::SLUICE_OK as i32
            }
            Ok(Err(e)) => e.in_function($name).publish(),
            Err(payload) => $crate::capi::panic::publish_panic($name, payload),
        }
    }};
}

/// Returns `Err(FfiError::null(..))` from the enclosing function when `$ptr`
/// is NULL (rustls-ffi's `try_ref_from_ptr!` idea).
macro_rules! check_not_null {
    ($ptr:expr, $what:expr) => {
        if $ptr.is_null() {
            return Err($crate::capi::error::FfiError::null($what));
        }
    };
}

/// Records a caught panic as this thread's last error.
pub(crate) fn publish_panic(function: &str, payload: Box<dyn Any + Send>) -> i32 {
    set_last_error(&panic_message(function, payload));
    sluice_status::SLUICE_ERR_PANIC as i32
}

/// The message of a caught panic, as C and Java callers see it. Consumes
/// the payload without dropping it: dropping a payload can itself panic, so
/// leaking it is the safe choice.
pub(crate) fn panic_message(function: &str, payload: Box<dyn Any + Send>) -> String {
    let detail = if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "(no message)".to_string()
    };
    std::mem::forget(payload);
    format!("{function}: panic inside sluice (a bug, please report it): {detail}")
}
