//! The one guard over Java primitive arrays pinned with
//! `GetPrimitiveArrayCritical`.
//!
//! While an array is pinned the JVM may not move it (and may hold off the
//! garbage collector), so the guard's rules are the JNI critical-region
//! rules: only other `Get*Critical` calls may happen until every array is
//! released, which `Pinned`'s `Drop` does (also when the caller panics).
//! The pinned elements are reachable only through `Pinned::slices`,
//! whose slices borrow the guard: no slice can outlive the release.

use std::ffi::c_void;
use std::marker::PhantomData;
use std::ptr;

use jni::sys::{jarray, jboolean, JNI_ABORT};

use crate::capi::error::{FfiError, FfiResult};

/// Primitive arrays pinned as slices of `E`, released on drop.
pub(crate) struct Pinned<'a, E> {
    raw: *mut jni::sys::JNIEnv,
    pinned: Vec<(jarray, *mut c_void)>,
    slices: Vec<&'a [E]>,
    _elements: PhantomData<E>,
}

impl<'a, E> Pinned<'a, E> {
    /// A guard that has pinned nothing yet, with room for `capacity` arrays.
    ///
    /// # Safety
    /// `raw` is the current thread's valid `JNIEnv`, and no JNI call other
    /// than [`Pinned::pin`] happens until the guard is dropped.
    pub(crate) unsafe fn new(raw: *mut jni::sys::JNIEnv, capacity: usize) -> FfiResult<Self> {
        // SAFETY: `raw` is valid per the caller; the JVM fills the table.
        let table = unsafe { &**raw };
        if table.GetPrimitiveArrayCritical.is_none() || table.ReleasePrimitiveArrayCritical.is_none() {
            return Err(FfiError::invalid("JNI: GetPrimitiveArrayCritical missing"));
        }
        Ok(Pinned {
            raw,
            pinned: Vec::with_capacity(capacity),
            slices: Vec::with_capacity(capacity),
            _elements: PhantomData,
        })
    }

    /// Pins `array` and appends its first `len` elements, seen as `E`, to
    /// [`Pinned::slices`].
    ///
    /// # Safety
    /// `array` is a live, non-NULL local reference to a Java primitive
    /// array holding at least `len * size_of::<E>()` bytes whose element
    /// alignment is at least `E`'s, and `E` is a plain integer type every
    /// bit pattern of those bytes is valid for.
    pub(crate) unsafe fn pin(&mut self, array: jarray, len: usize) -> FfiResult<()> {
        // SAFETY: as in `new`.
        let table = unsafe { &**self.raw };
        let Some(get) = table.GetPrimitiveArrayCritical else {
            return Err(FfiError::invalid("JNI: GetPrimitiveArrayCritical missing"));
        };
        // SAFETY: a live primitive array reference (caller's contract);
        // critical regions nest, and no other JNI call happens until every
        // one is released in `drop`.
        let p = unsafe { get(self.raw, array, ptr::null_mut::<jboolean>()) };
        if p.is_null() {
            return Err(FfiError::invalid("JNI: GetPrimitiveArrayCritical returned NULL (out of memory)"));
        }
        self.pinned.push((array, p));
        if p.cast::<E>().align_offset(align_of::<E>()) != 0 {
            return Err(FfiError::invalid("JNI: a pinned array is not aligned for its element type"));
        }
        // SAFETY: the JVM keeps the array's elements at `p` until the
        // release in `drop`; `len` elements of `E` fit (caller's contract),
        // `p` is aligned (checked), and the slice is only handed out
        // borrowed from `self` (`slices`), so it cannot outlive the release.
        self.slices.push(unsafe { std::slice::from_raw_parts(p.cast::<E>(), len) });
        Ok(())
    }

    /// The pinned arrays' elements, in the order they were pinned.
    pub(crate) fn slices(&self) -> &[&[E]] {
        &self.slices
    }
}

impl<E> Drop for Pinned<'_, E> {
    fn drop(&mut self) {
        self.slices.clear();
        // SAFETY: as in `new`; the table was checked to have the function.
        let table = unsafe { &**self.raw };
        if let Some(release) = table.ReleasePrimitiveArrayCritical {
            for &(array, p) in self.pinned.iter().rev() {
                // SAFETY: `p` came from GetPrimitiveArrayCritical on `array`
                // and is released exactly once; JNI_ABORT: nothing to copy back.
                unsafe { release(self.raw, array, p, JNI_ABORT) };
            }
        }
    }
}
