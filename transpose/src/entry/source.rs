//! Where the rows of a batch come from: one contiguous buffer + offsets,
//! or (segment, offset, length) addresses; each checked once per block.

use std::cell::Cell;

use crate::error::{Error, Result};
use crate::row_kind::RowKind;

use super::builder::PREFETCH_AHEAD;

/// How far ahead (in bytes of row data) the block check prefetches: far
/// enough to cover the memory latency at the rate rows are decoded.
const PREFETCH_BYTES: usize = 2048;
/// Where one row of a batch lives when rows are not in one buffer: row
/// bytes are `segments[segment][offset .. offset + len]`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RowAddress {
    /// Index into the segment list.
    pub segment: usize,
    /// Byte offset of the row in its segment.
    pub offset: usize,
    /// Row size in bytes.
    pub len: usize,
}

/// A batch of rows, however they are laid out.
pub(crate) trait RowSource {
    fn num_rows(&self) -> usize;
    fn row(&self, i: usize) -> Result<&[u8]>;
    /// Asks the CPU to start loading the first `bytes` of row `i` (no-op
    /// when out of range).
    #[inline(always)]
    fn prefetch(&self, _i: usize, _bytes: usize) {}

    /// Bytes of all rows together (a hint for the block size: never more
    /// than the buffers hold, whatever the offsets say).
    fn total_bytes(&self) -> usize;

    /// Calls `v` on every row in order, each checked for bounds and a
    /// fixed part of `fixed_size` bytes (the first bad row is the error).
    #[inline]
    fn for_each_row<V: RowVisitor>(&self, fixed_size: usize, v: &mut V) -> Result<()> {
        for_each_row_checked(self, fixed_size, v)
    }

    /// Checks rows `first..end` (bounds, fixed part present, RowKind byte),
    /// writes their kinds into `kinds` (one per row) and their bytes into
    /// `out`. The error is the first bad row's, in row order. Every row put
    /// into `out` holds at least `fixed_size` bytes: the flat decoder's
    /// unchecked slot reads rely on it.
    #[inline]
    fn fill_block<'s>(
        &'s self,
        first: usize,
        end: usize,
        fixed_size: usize,
        kinds: &mut [RowKind],
        out: &mut Vec<&'s [u8]>,
    ) -> Result<()> {
        fill_block_checked(self, first, end, fixed_size, kinds, out)
    }
}

/// What a pass over all rows ([`RowSource::for_each_row`]) does with each
/// row. A trait rather than a closure: its `visit` can be marked
/// `#[inline(always)]`, so the row loop has no call in it.
pub(crate) trait RowVisitor {
    /// Called once per row, in row order.
    fn visit(&mut self, row: &[u8]);
}

/// [`RowSource::for_each_row`] with every row checked as it comes.
fn for_each_row_checked<S: RowSource + ?Sized, V: RowVisitor + ?Sized>(
    src: &S,
    fixed_size: usize,
    v: &mut V,
) -> Result<()> {
    for i in 0..src.num_rows() {
        // only the fixed part: the slots are all this pass reads
        src.prefetch(i + PREFETCH_AHEAD, fixed_size);
        let row = src.row(i)?;
        if row.len() < fixed_size {
            return Err(Error::TruncatedRow { row: i, size: row.len(), needed: fixed_size });
        }
        v.visit(row);
    }
    Ok(())
}

/// [`RowSource::fill_block`] row by row, each check reported as it fails.
fn fill_block_checked<'s, S: RowSource + ?Sized>(
    src: &'s S,
    first: usize,
    end: usize,
    fixed_size: usize,
    kinds: &mut [RowKind],
    out: &mut Vec<&'s [u8]>,
) -> Result<()> {
    for (i, kind) in (first..end).zip(kinds.iter_mut()) {
        // every line of the row (its strings are copied next), up to 512 bytes
        src.prefetch(i + PREFETCH_AHEAD, 512);
        let row = src.row(i)?;
        if row.len() < fixed_size {
            return Err(Error::TruncatedRow { row: i, size: row.len(), needed: fixed_size });
        }
        *kind = match RowKind::from_byte(row[0]) {
            Some(k) => k,
            None => return Err(Error::BadRowKind { row: i, field: None, byte: row[0] }),
        };
        out.push(row);
    }
    Ok(())
}

/// Starts loading the cache line at `p` into L1. Never faults, whatever `p`.
#[inline(always)]
fn prefetch_ptr(p: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `prefetcht0` is a hint: it does not fault on any address and
    // SSE (which provides it) is part of the x86_64 baseline.
    unsafe {
        core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(p.cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// How many cache lines to prefetch per row for rows at `offsets`: their
/// average width in lines, 1..=8 (the offsets may be unchecked: only a
/// hint). A constant per batch or block, so the prefetch loop's branch is
/// predicted; one line per row would leave most of a wide row (4 x
/// VARCHAR(64): ~4 lines) to the hardware prefetcher.
#[inline]
fn prefetch_lines(offsets: &[i64]) -> usize {
    let (Some(&f), Some(&l)) = (offsets.first(), offsets.last()) else { return 1 };
    let rows = offsets.len().saturating_sub(1).max(1) as u64;
    let avg = (l.saturating_sub(f).max(0) as u64 / rows).min(1 << 20) as usize;
    avg.div_ceil(64).clamp(1, 8)
}

/// Prefetches `lines` (>= 1) cache lines of `data` from byte `at` (any
/// value: a prefetch never faults). The first line outside the loop: rows
/// of one line (VARCHAR(16)) then skip the loop's setup.
#[inline(always)]
fn prefetch_row(data: &[u8], at: usize, lines: usize) {
    prefetch_ptr(data.as_ptr().wrapping_add(at));
    if lines > 1 {
        for j in 1..lines {
            prefetch_ptr(data.as_ptr().wrapping_add(at.wrapping_add(64 * j)));
        }
    }
}

/// Whether every row `w[0] .. w[1]` of `offsets` lies inside a buffer of
/// `dl` bytes and holds at least `fixed_size` bytes. Branch-free (`&`,
/// not `&&`), so the loop is a few instructions a row.
#[inline(always)]
fn offsets_ok(offsets: &[i64], dl: u64, fixed_size: usize) -> bool {
    let f = fixed_size as u64;
    let mut bad = 0u8;
    for (&s, &e) in offsets.iter().zip(offsets.iter().skip(1)) {
        let (s, e) = (s as u64, e as u64);
        // a negative offset is > dl as u64; when s <= dl < 2^63 the sum
        // does not wrap, and when s > dl its value does not matter
        bad |= u8::from(s > dl) | u8::from(e > dl) | u8::from(e < s.wrapping_add(f));
    }
    bad == 0
}

/// Rows back to back in one buffer: row `i` is `data[offsets[i] .. offsets[i + 1]]`.
pub(crate) struct Contiguous<'a> {
    data: &'a [u8],
    offsets: &'a [i64],
    /// Every row was checked (by a complete [`RowSource::for_each_row`]) to
    /// lie in `data` and to hold at least this many bytes (0: not checked).
    checked_fixed: Cell<usize>,
}

impl<'a> Contiguous<'a> {
    /// The rows of `data` at `offsets`. Nothing is checked here: the first
    /// pass over the rows checks each row's bounds as it goes (the
    /// presizing pass over all rows, or the block check of `fill_block`),
    /// so the offsets are read once for both.
    pub(crate) fn new(data: &'a [u8], offsets: &'a [i64], _fixed_size: usize) -> Self {
        Contiguous { data, offsets, checked_fixed: Cell::new(0) }
    }

    /// Whether rows `offs` were checked for `fixed_size`, before or here.
    #[inline(always)]
    fn rows_ok(&self, offs: &[i64], fixed_size: usize) -> bool {
        (fixed_size > 0 && fixed_size <= self.checked_fixed.get())
            || offsets_ok(offs, self.data.len() as u64, fixed_size)
    }

    /// The error of row `i`, the first row of the batch that fails the
    /// bounds or fixed-part check.
    #[cold]
    fn row_error(&self, i: usize, fixed_size: usize) -> Error {
        match self.row(i) {
            Err(e) => e,
            Ok(row) => Error::TruncatedRow { row: i, size: row.len(), needed: fixed_size },
        }
    }
}

impl RowSource for Contiguous<'_> {
    #[inline(always)]
    fn num_rows(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }
    #[inline(always)]
    fn row(&self, i: usize) -> Result<&[u8]> {
        let (s, e) = match (self.offsets.get(i), self.offsets.get(i + 1)) {
            (Some(&s), Some(&e)) => (s, e),
            _ => return Err(Error::InvalidArgument(format!("row {i} out of range"))),
        };
        if s < 0 || e < s || e as u64 > self.data.len() as u64 {
            return Err(Error::BadRowBounds { row: i, start: s, end: e, buffer_len: self.data.len() });
        }
        Ok(&self.data[s as usize..e as usize])
    }
    #[inline]
    fn total_bytes(&self) -> usize {
        match (self.offsets.first(), self.offsets.last()) {
            (Some(&f), Some(&l)) if f >= 0 && l >= f => ((l - f) as u64).min(self.data.len() as u64) as usize,
            _ => 0,
        }
    }

    /// Each row is checked as it comes (in bounds, at least `fixed_size`
    /// bytes; one predictable branch a row), also when an earlier pass
    /// checked them: one call site of `v.visit` keeps it inlined. After a
    /// complete pass the batch is known good, and the later block checks
    /// are skipped.
    #[inline]
    fn for_each_row<V: RowVisitor>(&self, fixed_size: usize, v: &mut V) -> Result<()> {
        let data = self.data;
        let (Some((&first, rest)), true) = (self.offsets.split_first(), fixed_size > 0) else {
            // cold (no rows, or no fixed part): `dyn`, so `visit` is not inlined twice
            return for_each_row_checked(self, fixed_size, v as &mut dyn RowVisitor);
        };
        let dl = data.len() as u64;
        let fs = fixed_size as u64;
        // a negative offset is > dl as u64
        let mut s = first as u64;
        if s > dl {
            return Err(self.row_error(0, fixed_size));
        }
        let lines = prefetch_lines(self.offsets);
        for (i, &e) in rest.iter().enumerate() {
            let e = e as u64;
            // s <= dl < 2^63, so `s + fs` does not wrap; e >= s + fs > s
            if (e > dl) | (e < s + fs) {
                return Err(self.row_error(i, fixed_size));
            }
            prefetch_row(data, s as usize + PREFETCH_BYTES, lines);
            // SAFETY: s + fixed_size <= e <= data.len(), checked just above
            // (and for s, by the previous row or before the loop).
            v.visit(unsafe { data.get_unchecked(s as usize..e as usize) });
            s = e;
        }
        self.checked_fixed.set(fixed_size);
        Ok(())
    }

    /// Checks the whole block branch-free first (offsets in bounds and
    /// ordered, fixed part present, RowKind byte <= 3); only a block with a
    /// bad row goes through the row-by-row checks that name the error.
    #[inline]
    fn fill_block<'s>(
        &'s self,
        first: usize,
        end: usize,
        fixed_size: usize,
        kinds: &mut [RowKind],
        out: &mut Vec<&'s [u8]>,
    ) -> Result<()> {
        let data = self.data;
        let (Some(offs), true) = (self.offsets.get(first..=end), kinds.len() == end - first) else {
            return fill_block_checked(self, first, end, fixed_size, kinds, out);
        };
        if fixed_size == 0 || !self.rows_ok(offs, fixed_size) {
            return fill_block_checked(self, first, end, fixed_size, kinds, out);
        }
        let n = end - first;
        let len0 = out.len();
        out.reserve(n);
        let dst = out.spare_capacity_mut().as_mut_ptr();
        // OR of every RowKind byte: > 3 exactly when some byte is > 3
        let mut kind_bits = 0u8;
        let lines = prefetch_lines(offs);
        for (k, (w, kind)) in offs.windows(2).zip(kinds.iter_mut()).enumerate() {
            let (s, e) = (w[0] as usize, w[1] as usize);
            prefetch_row(data, s + PREFETCH_BYTES, lines);
            // SAFETY: s <= e <= data.len() was checked for every row of the
            // block just above (and s + fixed_size <= e with fixed_size > 0,
            // so s < e and data[s] exists).
            let row = unsafe { data.get_unchecked(s..e) };
            // SAFETY: as above, s < e <= data.len().
            let b = unsafe { *data.get_unchecked(s) };
            kind_bits |= b;
            // SAFETY: RowKind is repr(u8) with the values 0..=3; a byte > 3
            // stored here is never read: the block is redone checked below.
            *kind = unsafe { std::mem::transmute::<u8, RowKind>(b & 3) };
            // SAFETY: `k < n` slots of spare capacity were reserved above.
            unsafe { (*dst.add(k)).write(row) };
        }
        if kind_bits > 3 {
            return fill_block_checked(self, first, end, fixed_size, kinds, out);
        }
        // SAFETY: the loop initialised the `n` reserved slots after `len0`
        // (`kinds.len() == n`, checked above, so it ran `n` times).
        unsafe { out.set_len(len0 + n) };
        Ok(())
    }
    #[inline(always)]
    fn prefetch(&self, i: usize, bytes: usize) {
        if let (Some(&s), Some(&e)) = (self.offsets.get(i), self.offsets.get(i + 1)) {
            if s >= 0 && s <= e && (e as u64) <= self.data.len() as u64 {
                let end = (e as usize).min(s as usize + bytes);
                let mut p = s as usize;
                while p < end {
                    prefetch_ptr(self.data.as_ptr().wrapping_add(p));
                    p += 64;
                }
            }
        }
    }
}

pub(crate) struct Segmented<'a> {
    pub segments: &'a [&'a [u8]],
    pub rows: &'a [RowAddress],
}

impl RowSource for Segmented<'_> {
    #[inline(always)]
    fn num_rows(&self) -> usize {
        self.rows.len()
    }
    fn total_bytes(&self) -> usize {
        self.rows.iter().fold(0usize, |acc, a| {
            let seg = self.segments.get(a.segment).map_or(0, |s| s.len());
            acc.saturating_add(a.len.min(seg))
        })
    }
    #[inline(always)]
    fn row(&self, i: usize) -> Result<&[u8]> {
        let a = self.rows.get(i).ok_or_else(|| Error::InvalidArgument(format!("row {i} out of range")))?;
        let seg = self.segments.get(a.segment).ok_or_else(|| {
            Error::InvalidArgument(format!("row {i}: segment {} of {}", a.segment, self.segments.len()))
        })?;
        let end = a.offset.checked_add(a.len);
        match end.and_then(|e| seg.get(a.offset..e)) {
            Some(b) => Ok(b),
            None => Err(Error::BadRowBounds {
                row: i,
                start: a.offset as i64,
                end: a.offset as i64 + a.len as i64,
                buffer_len: seg.len(),
            }),
        }
    }
}
