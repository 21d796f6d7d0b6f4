//! `struct sluice_buffer`: bytes owned by the library, handed to C.
//!
//! A buffer is either a fresh copy ([`sluice_buffer::from_bytes`]: an
//! allocation of `len` bytes aligned to 8) or a vector the library built
//! and hands over without copying it:
//!
//! * a `Vec<i64>` ([`sluice_buffer::from_i64_vec`]) always: its allocation
//!   is `Layout::array::<i64>(capacity)`, exactly the `(cap, 8)` layout
//!   [`sluice_buffer_free`] rebuilds, whatever the global allocator;
//! * a `Vec<u8>` ([`sluice_buffer::take_bytes`]) only in the C library's
//!   build (feature `mimalloc`, mimalloc the global allocator) and only when
//!   its pointer is 8-aligned (checked: the header promises 8). Its layout
//!   has alignment 1, so it is not freed through the Rust allocator API
//!   with the `(cap, 8)` layout but with `mi_free`, which frees any
//!   mimalloc block whatever alignment it was asked with. Without mimalloc
//!   the bytes are copied, as before.
//!
//! Handing over is what the row encoder's output needs: copying megabytes
//! of rows into a second buffer per batch was a third of
//! `sluice_row_converter_arrow_to_rows` (benches/RESULTS.md, issue 19).

use std::alloc::{alloc, Layout};
use std::mem::ManuallyDrop;
use std::ptr;

use crate::capi::error::{FfiError, FfiResult};

/// Every buffer is allocated with this alignment, so that `int64_t` data
/// (row offsets) can be read in place and [`sluice_buffer_free`] can always
/// rebuild the allocation's layout from `cap` alone.
const BUFFER_ALIGN: usize = 8;

/// Bytes owned by libsluice: `len` valid bytes at `ptr` in an allocation of
/// `cap` bytes, aligned to 8. Release with [`sluice_buffer_free`]; an
/// empty buffer may have a NULL `ptr`.
#[repr(C)]
#[derive(Debug)]
pub struct sluice_buffer {
    /// Start of the bytes (NULL when `cap == 0`).
    pub ptr: *mut u8,
    /// Number of valid bytes.
    pub len: i64,
    /// Size of the allocation in bytes.
    pub cap: i64,
}

impl sluice_buffer {
    /// A buffer holding nothing.
    pub const EMPTY: sluice_buffer = sluice_buffer { ptr: ptr::null_mut(), len: 0, cap: 0 };

    /// Copies `bytes` into a new buffer.
    ///
    /// # Errors
    /// `SLUICE_ERR_INVALID_ARGUMENT` if the size does not fit a layout.
    pub fn from_bytes(bytes: &[u8]) -> FfiResult<Self> {
        if bytes.is_empty() {
            return Ok(Self::EMPTY);
        }
        let layout = Layout::from_size_align(bytes.len(), BUFFER_ALIGN)
            .map_err(|e| FfiError::invalid(format!("buffer of {} bytes: {e}", bytes.len())))?;
        // SAFETY: `layout` has a non-zero size.
        let p = unsafe { alloc(layout) };
        if p.is_null() {
            std::alloc::handle_alloc_error(layout);
        }
        // SAFETY: `p` is a fresh allocation of `bytes.len()` bytes.
        unsafe { ptr::copy_nonoverlapping(bytes.as_ptr(), p, bytes.len()) };
        Ok(sluice_buffer { ptr: p, len: bytes.len() as i64, cap: bytes.len() as i64 })
    }

    /// Copies `values` (native endianness) into a new buffer.
    ///
    /// # Errors
    /// As [`Self::from_bytes`].
    pub fn from_i64s(values: &[i64]) -> FfiResult<Self> {
        // SAFETY: any i64 slice is a valid byte slice of 8x its length.
        let bytes = unsafe { std::slice::from_raw_parts(values.as_ptr().cast::<u8>(), size_of_val(values)) };
        Self::from_bytes(bytes)
    }

    /// Hands `values` (native endianness) over without copying them.
    pub fn from_i64_vec(values: Vec<i64>) -> Self {
        if values.capacity() == 0 {
            return Self::EMPTY;
        }
        let mut v = ManuallyDrop::new(values);
        // `Layout::array::<i64>(capacity)` = `(8 * capacity, 8)`: what
        // `sluice_buffer_free` deallocates with. Both products fit: the
        // vector exists, so its size in bytes fits `isize`.
        sluice_buffer { ptr: v.as_mut_ptr().cast::<u8>(), len: 8 * v.len() as i64, cap: 8 * v.capacity() as i64 }
    }

    /// The bytes of `bytes` as a buffer: the vector itself (left empty)
    /// where it can be handed over (see the module doc), else a copy (the
    /// vector keeps its bytes and capacity, for reuse).
    ///
    /// # Errors
    /// As [`Self::from_bytes`] (only when copying).
    pub fn take_bytes(bytes: &mut Vec<u8>) -> FfiResult<Self> {
        if bytes.is_empty() {
            return Ok(Self::EMPTY);
        }
        if cfg!(feature = "mimalloc") && bytes.as_ptr().addr().is_multiple_of(BUFFER_ALIGN) {
            let mut v = ManuallyDrop::new(std::mem::take(bytes));
            return Ok(sluice_buffer { ptr: v.as_mut_ptr(), len: v.len() as i64, cap: v.capacity() as i64 });
        }
        Self::from_bytes(bytes)
    }
}

#[cfg(feature = "mimalloc")]
extern "C" {
    /// mimalloc (linked statically by the `mimalloc` crate, the global
    /// allocator with this feature): frees any block it allocated.
    fn mi_free(p: *mut std::ffi::c_void);
}

/// Returns the allocation of a non-empty buffer.
///
/// # Safety
/// `b` was made by one of the constructors above and not yet released.
unsafe fn release(b: &sluice_buffer) {
    #[cfg(feature = "mimalloc")]
    {
        // SAFETY: every buffer's allocation came from the global allocator,
        // which is mimalloc with this feature (`lib.rs`); `mi_free` takes
        // any of its blocks, whatever size and alignment it was asked for.
        unsafe { mi_free(b.ptr.cast()) };
    }
    #[cfg(not(feature = "mimalloc"))]
    {
        // Without mimalloc only `(cap, 8)` allocations are handed out
        // (`from_bytes`, `from_i64_vec`; `take_bytes` copies).
        if let Ok(layout) = Layout::from_size_align(b.cap as usize, BUFFER_ALIGN) {
            // SAFETY: allocated with exactly this layout, per the above.
            unsafe { std::alloc::dealloc(b.ptr, layout) };
        }
    }
}

/// Frees a buffer the library filled and resets it to `{NULL, 0, 0}`.
/// NULL `buf` and an already freed (empty) buffer are no-ops, so calling it
/// twice is harmless.
///
/// # Safety
/// `buf` is NULL or points to a `struct sluice_buffer` last written by
/// libsluice (or zeroed).
#[no_mangle]
pub unsafe extern "C" fn sluice_buffer_free(buf: *mut sluice_buffer) {
    if buf.is_null() {
        return;
    }
    // SAFETY: non-NULL, written by us per the contract.
    let b = unsafe { ptr::read_unaligned(buf) };
    if !b.ptr.is_null() && b.cap > 0 {
        // SAFETY: a buffer written by libsluice, not yet freed (a freed one
        // was reset to empty below).
        unsafe { release(&b) };
    }
    // SAFETY: as above.
    unsafe { ptr::write_unaligned(buf, sluice_buffer::EMPTY) };
}
