//! Where encoded bytes go: the per-value encode step with its capacity rule,
//! and the values buffer of a batch being filled front to back ([`Sink`]),
//! shared by the plain batch loop and the encode cache's loop.

use arrow_buffer::NullBuffer;

use crate::arch::{self, all::encode as scalar, EncodeFn};
use crate::error::{Error, Result};

/// Values shorter than this many code units are encoded by the portable
/// encoder without loading the dispatched function pointer.
const SHORT_INPUT: usize = 16;

/// Encodes with `kernel` (`None`: short-input path, then the dispatch).
///
/// # Safety
///
/// - `src` valid for reads of `len` units, `dst` valid for writes of
///   `3 * len + WRITE_SLACK` bytes (or the exact length plus slack).
/// - `kernel`, if given, comes from `Level::encoder` (so the CPU has its
///   features).
#[inline(always)]
pub(crate) unsafe fn run(kernel: Option<EncodeFn>, src: *const u16, len: usize, dst: *mut u8) -> usize {
    // SAFETY: forwarded caller contract; the dispatched pointer only names
    // implementations the CPU supports.
    unsafe {
        match kernel {
            Some(f) => f(src, len, dst),
            None if len < SHORT_INPUT => scalar::encode(src, len, dst),
            None => arch::encode_fn()(src, len, dst),
        }
    }
}

/// Bytes of spare capacity an append of `len` units needs.
#[inline(always)]
pub(crate) fn append_capacity(len: usize) -> usize {
    // A `[u16]` holds at most isize::MAX / 2 units, so this cannot overflow.
    3 * len + scalar::WRITE_SLACK
}

/// Checks `needed` value bytes against the offset limit.
///
/// # Errors
///
/// [`Error::OffsetOverflow`] naming `needed` and `limit`.
pub(crate) fn check_limit(needed: usize, limit: usize) -> Result<()> {
    if needed > limit {
        return Err(Error::OffsetOverflow { needed, limit });
    }
    Ok(())
}

/// Exact bytes of the non-NULL rows `first_row..` (`offsets` starts at
/// that row's offset).
pub(crate) fn exact_len(units: &[u16], offsets: &[i64], nulls: Option<&NullBuffer>, first_row: usize) -> usize {
    offsets
        .windows(2)
        .enumerate()
        .filter(|(r, _)| nulls.is_none_or(|n| n.is_valid(first_row + r)))
        .map(|(_, w)| scalar::utf8_len(&units[w[0] as usize..w[1] as usize]))
        .sum()
}

/// The values buffer of a batch being filled front to back.
pub(crate) struct Sink<'a> {
    /// The values; `values[..o]` are initialised.
    pub(crate) values: Vec<u8>,
    /// Bytes written.
    pub(crate) o: usize,
    pub(crate) capacity: usize,
    /// Whether `capacity` holds every remaining row's worst case (3 bytes
    /// per unit) or the exact total, so that no per-row check is needed.
    pub(crate) capacity_ok: bool,
    pub(crate) limit: usize,
    /// The batch's input (offsets and validity checked).
    pub(crate) units: &'a [u16],
    pub(crate) offsets: &'a [i64],
    pub(crate) nulls: Option<&'a NullBuffer>,
}

impl Sink<'_> {
    /// Makes sure row `r` (`len` units, not NULL) fits: the spare capacity
    /// from `o` is then at least `3 * len` or the exact bytes of this and
    /// every later row, plus `WRITE_SLACK`. The buffer may move.
    ///
    /// # Errors
    ///
    /// [`Error::OffsetOverflow`] if the exact total exceeds the limit.
    #[inline(always)]
    pub(crate) fn room(&mut self, r: usize, len: usize) -> Result<()> {
        if !self.capacity_ok && self.o + 3 * len > self.capacity {
            self.grow(r)?;
        }
        Ok(())
    }

    /// This row might not fit: size the rest exactly, once.
    #[cold]
    #[inline(never)]
    fn grow(&mut self, r: usize) -> Result<()> {
        let rest = exact_len(self.units, &self.offsets[r..], self.nulls, r);
        check_limit(self.o + rest, self.limit)?;
        // SAFETY: the encoders initialised `values[..o]`.
        unsafe { self.values.set_len(self.o) };
        self.values.reserve_exact(rest + scalar::WRITE_SLACK);
        self.capacity_ok = true;
        Ok(())
    }

    /// Whether no row needs [`room`](Self::room) any more.
    #[inline(always)]
    pub(crate) fn room_is_ok(&self) -> bool {
        self.capacity_ok
    }

    /// The capacity the per-row check compares with.
    #[inline(always)]
    pub(crate) fn capacity(&self) -> usize {
        self.capacity
    }

    /// Where the next byte goes.
    #[inline(always)]
    pub(crate) fn dst(&mut self) -> *mut u8 {
        // SAFETY: `o` is within the allocation (at most its capacity).
        unsafe { self.values.as_mut_ptr().add(self.o) }
    }
}
