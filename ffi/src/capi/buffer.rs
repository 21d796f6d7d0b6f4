//! `struct sluice_buffer`: bytes owned by the library, handed to C.

use std::alloc::{alloc, dealloc, Layout};
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
        if let Ok(layout) = Layout::from_size_align(b.cap as usize, BUFFER_ALIGN) {
            // SAFETY: allocated in `from_bytes` with exactly this layout.
            unsafe { dealloc(b.ptr, layout) };
        }
    }
    // SAFETY: as above.
    unsafe { ptr::write_unaligned(buf, sluice_buffer::EMPTY) };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_double_free_is_harmless() {
        let mut b = sluice_buffer::from_i64s(&[0, 5, 9]).unwrap();
        assert_eq!(b.len, 24);
        // SAFETY: b is a live buffer from `from_i64s`.
        let v = unsafe { std::slice::from_raw_parts(b.ptr.cast::<i64>(), 3) };
        assert_eq!(v, &[0, 5, 9]);
        // SAFETY: written by us.
        unsafe { sluice_buffer_free(&mut b) };
        assert!(b.ptr.is_null());
        // SAFETY: now empty.
        unsafe { sluice_buffer_free(&mut b) };
        // SAFETY: NULL is a no-op.
        unsafe { sluice_buffer_free(ptr::null_mut()) };
    }
}
