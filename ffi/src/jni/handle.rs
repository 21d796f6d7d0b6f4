//! Native objects owned by a Java handle: a `Box<T>` whose address travels
//! to Java as a `long` and comes back on every call.
//!
//! A process-wide counter of the handles alive ([`live_handles`], Java's
//! `SluiceNative.liveHandles()`) lets tests prove that every handle created
//! was freed: after a job, a cancellation or a failure, it is back where it
//! started.

use std::sync::atomic::{AtomicI64, Ordering};

use jni::sys::jlong;

use crate::capi::error::{FfiError, FfiResult};

/// A native object behind the handles of one Java class.
pub trait JavaClass {
    /// The Java class, for errors (`KeyedNative`).
    const CLASS: &'static str;
}

/// Moves `value` to the heap and returns its address for Java.
pub fn into_handle<T>(value: T) -> jlong {
    LIVE.fetch_add(1, Ordering::Relaxed);
    Box::into_raw(Box::new(value)) as jlong
}

/// Handles returned by [`into_handle`] and not yet passed to [`free_handle`].
static LIVE: AtomicI64 = AtomicI64::new(0);

/// How many handles are alive in this process (created and not yet freed).
pub fn live_handles() -> i64 {
    LIVE.load(Ordering::Relaxed)
}

/// Borrows the object behind `handle`.
///
/// # Safety
/// `handle` is 0 or a value returned by [`into_handle::<T>`] that has not
/// been passed to [`free_handle`], and no other reference to it is live (the
/// Java side serialises calls on one handle).
pub unsafe fn handle_mut<'a, T>(handle: jlong, what: &str) -> FfiResult<&'a mut T> {
    if handle == 0 {
        return Err(FfiError::null(&format!("{what} handle (already closed?)")));
    }
    // SAFETY: non-zero, and per the contract a live `Box<T>` with no other
    // reference.
    Ok(unsafe { &mut *(handle as *mut T) })
}

/// Drops the object behind `handle`; 0 is a no-op.
///
/// # Safety
/// As [`handle_mut`]; afterwards `handle` must not be used again (the Java
/// side zeroes its copy before calling this, exactly once).
pub unsafe fn free_handle<T>(handle: jlong) {
    if handle != 0 {
        // SAFETY: per the contract, a live `Box<T>` released exactly once.
        drop(unsafe { Box::from_raw(handle as *mut T) });
        LIVE.fetch_sub(1, Ordering::Relaxed);
    }
}
