//! Where encoded bytes go: the per-value encode step with its capacity rule,
//! and the values buffer of a batch being filled front to back ([`Sink`]),
//! shared by the plain batch loop and the encode cache's loop.

use arrow_array::OffsetSizeTrait;
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

/// Where [`Sink::encode_rows`] stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Stop {
    /// Every row is done.
    End,
    /// The row it returned is valid and `watch_len` units long: it may be
    /// the cached value. Nothing of it is written (its offset neither).
    Candidate,
    /// The row before the one it returned was eligible for the cache and
    /// not narrowed (its UTF-8 is longer than its UTF-16): a miss, already
    /// encoded and its offset pushed. `s` is its first unit, `at` its first
    /// byte in the values, `n` its byte length.
    Miss { s: usize, len: usize, at: usize, n: usize },
}

impl Sink<'_> {
    /// The plain batch loop: encodes rows `r..end` with `f`, pushing each
    /// row's end offset (a NULL row repeats it), until row `end`.
    ///
    /// It also stops before a valid row of `watch_len` units (a possible
    /// hit for the encode cache; `usize::MAX` when nothing is cached) and
    /// after a row of at most `max_cached` units whose encoding is longer
    /// than its units (a miss). Narrowed rows (ASCII) and longer rows are
    /// neither, so a column of them runs this loop end to end. Plain
    /// encoding passes `usize::MAX` and 0, which never stop it.
    ///
    /// `#[inline(never)]` and one copy for both callers (not a const
    /// generic): the cache's stretches between events run exactly the
    /// machine code of plain encoding, so a column the cache cannot help
    /// costs what plain encoding costs plus one predictable compare per row
    /// (the miss test), and nothing during its quiet stretches (which pass
    /// the plain arguments). With two copies of this loop (a `WATCH` const
    /// generic), the cache's copy measured 0.79–0.88× the plain one on
    /// ASCII columns (benches/RESULTS.md, issue 19).
    ///
    /// # Safety
    ///
    /// - `f` is an encoder the CPU can run (see `EncodeFn`).
    /// - The offsets and validity were checked (`check_offsets`);
    ///   `out_offsets` holds the offsets of rows `..r` (`r + 1` entries)
    ///   and has capacity for every row; `end` is at most the row count.
    ///
    /// # Errors
    ///
    /// [`Error::OffsetOverflow`] if the exact total exceeds the limit (the
    /// offsets pushed so far stay valid).
    #[inline(never)]
    pub(crate) unsafe fn encode_rows<O: OffsetSizeTrait>(
        &mut self,
        f: EncodeFn,
        out_offsets: &mut Vec<O>,
        mut r: usize,
        end: usize,
        watch_len: usize,
        max_cached: usize,
    ) -> Result<(usize, Stop)> {
        let (offsets, bits) = (self.offsets, self.nulls.map(|n| n.inner()));
        debug_assert!(end <= offsets.len().saturating_sub(1));
        let base = self.units.as_ptr();
        while r < end {
            // SAFETY: `r < end <= rows`, the validity's length (checked).
            if bits.is_none_or(|b| unsafe { b.value_unchecked(r) }) {
                // SAFETY: `r + 1 <= end < offsets.len()`.
                let (s, e) = unsafe { (*offsets.get_unchecked(r) as usize, *offsets.get_unchecked(r + 1) as usize) };
                let len = e - s;
                if len == watch_len {
                    return Ok((r, Stop::Candidate));
                }
                // SAFETY: `s..e` is within `units` (checked offsets); the
                // caller vouches for `f`.
                let (at, n) = unsafe { self.encode_row(f, out_offsets, r, base.add(s), len) }?;
                r += 1;
                if n != len && len <= max_cached {
                    return Ok((r, Stop::Miss { s, len, at, n }));
                }
            } else {
                out_offsets.push(O::usize_as(self.o));
                r += 1;
            }
        }
        Ok((r, Stop::End))
    }

    /// Encodes valid row `r` (`len` units at `src`) with `f` after making
    /// room, and pushes its end offset; returns where its bytes start and
    /// how many there are.
    ///
    /// # Safety
    ///
    /// `src` is row `r`'s units within `units`; `f` as for
    /// [`encode_rows`](Self::encode_rows).
    ///
    /// # Errors
    ///
    /// As [`room`](Self::room).
    #[inline(always)]
    pub(crate) unsafe fn encode_row<O: OffsetSizeTrait>(
        &mut self,
        f: EncodeFn,
        out_offsets: &mut Vec<O>,
        r: usize,
        src: *const u16,
        len: usize,
    ) -> Result<(usize, usize)> {
        self.room(r, len)?;
        let at = self.o;
        // SAFETY: `src` holds `len` units (the caller's contract); `room`
        // left this row's worst case (or its exact bytes) plus slack from
        // `o`.
        let n = unsafe { f(src, len, self.dst()) };
        self.o += n;
        // `o <= total <= limit <= O::MAX_OFFSET`: exact conversion.
        out_offsets.push(O::usize_as(self.o));
        Ok((at, n))
    }

    /// The number of valid rows among `from..to`.
    pub(crate) fn valid_rows(&self, from: usize, to: usize) -> usize {
        self.nulls.map_or(to - from, |n| n.inner().slice(from, to - from).count_set_bits())
    }
}
