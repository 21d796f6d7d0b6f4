//! A counting global allocator, for proving "no allocation per row".
//!
//! Kernels promise to size their buffers once per batch. Tests, benches and
//! the demo install [`CountingAlloc`] as the global allocator and read the
//! number of allocation calls around a kernel call:
//!
//! ```
//! use sluice_kernels::alloc_count::{CountingAlloc, count_allocs};
//! // In a test binary: #[global_allocator] static A: CountingAlloc = CountingAlloc::system();
//! let (allocs, v) = count_allocs(|| vec![1u8; 16]);
//! # let _ = (allocs, v);
//! ```
//!
//! The counter is per thread, so parallel test threads do not disturb each
//! other. It is not installed by this crate: Rust users keep their own
//! allocator.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

thread_local! {
    static ALLOCS: Cell<u64> = const { Cell::new(0) };
    static BYTES: Cell<u64> = const { Cell::new(0) };
}

/// A [`GlobalAlloc`] wrapper that counts allocation calls (alloc, zeroed
/// alloc and realloc) and requested bytes on the calling thread.
pub struct CountingAlloc<A = System> {
    inner: A,
}

impl CountingAlloc<System> {
    /// Wraps the system allocator.
    pub const fn system() -> Self {
        CountingAlloc { inner: System }
    }
}

impl<A> CountingAlloc<A> {
    /// Wraps `inner`.
    pub const fn new(inner: A) -> Self {
        CountingAlloc { inner }
    }
}

#[inline]
fn record(bytes: usize) {
    // `try_with`: the thread-local may already be gone during thread teardown.
    let _ = ALLOCS.try_with(|c| c.set(c.get() + 1));
    let _ = BYTES.try_with(|c| c.set(c.get() + bytes as u64));
}

// SAFETY: every method forwards to `inner`, which upholds the `GlobalAlloc`
// contract; the bookkeeping touches only thread-locals of `Cell<u64>` (const
// initialised, so it never allocates).
unsafe impl<A: GlobalAlloc> GlobalAlloc for CountingAlloc<A> {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        record(layout.size());
        // SAFETY: forwarded with the caller's guarantees.
        unsafe { self.inner.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        record(layout.size());
        // SAFETY: forwarded with the caller's guarantees.
        unsafe { self.inner.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded with the caller's guarantees.
        unsafe { self.inner.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        record(new_size);
        // SAFETY: forwarded with the caller's guarantees.
        unsafe { self.inner.realloc(ptr, layout, new_size) }
    }
}

/// Allocation calls made on this thread so far (only meaningful when
/// [`CountingAlloc`] is the global allocator).
pub fn allocations() -> u64 {
    ALLOCS.with(|c| c.get())
}

/// Bytes requested on this thread so far.
pub fn allocated_bytes() -> u64 {
    BYTES.with(|c| c.get())
}

/// Runs `f` and returns how many allocation calls it made on this thread.
pub fn count_allocs<R>(f: impl FnOnce() -> R) -> (u64, R) {
    let before = allocations();
    let r = f();
    (allocations() - before, r)
}
