//! The CONCAT / CONCAT_WS row loops: sources are read once, the output is
//! written front to back into buffers sized before the loop.

use arrow_array::OffsetSizeTrait;
use arrow_buffer::NullBuffer;

use super::SLACK;

/// How [`concat`](super::concat) fills its output when some rows are NULL.
/// Not part of the stable API: for tests, benches and fuzzing.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum NullFill {
    /// Branch-free when the values buffer holds every row (always, except
    /// near the offset limit); otherwise the valid rows only.
    #[default]
    Auto,
    /// A branch per row; only the valid rows are copied.
    Branchy,
    /// Every row is copied, NULL ones included, and the write position
    /// advances by `len × valid`: the next row overwrites a NULL row's bytes.
    /// Needs a values buffer sized for all rows.
    BranchFree,
    /// The offsets first (a branch-free prefix sum of `len × valid`), then
    /// the valid rows, found by walking the set bits of the validity.
    ValidOnly,
}

impl NullFill {
    /// The concrete strategy for a batch; `all_rows_fit`: whether the values
    /// buffer holds the bytes of every row, NULL ones included (false only
    /// near the offset limit, where the buffer is sized for the valid rows).
    ///
    /// `Auto` is branch-free whenever it can be: measured with `sluice demo`
    /// (3 columns, 25% NULL rows, 8,192-row batches) it beat the per-row
    /// branch and the valid-rows-only walk at 16 *and* 256 bytes per value,
    /// where both of those ran slower than the same input without NULLs.
    pub(super) fn resolve(self, all_rows_fit: bool) -> NullFill {
        match self {
            NullFill::Auto | NullFill::BranchFree if all_rows_fit => NullFill::BranchFree,
            // Copying NULL rows needs room for them.
            NullFill::Auto | NullFill::BranchFree => NullFill::ValidOnly,
            other => other,
        }
    }
}

/// A source of row byte ranges, monomorphised into the fill loops.
pub(super) trait RowSrc: Copy {
    /// Row `i`: start pointer, length, readable bytes from the start.
    ///
    /// # Safety
    ///
    /// `i` must be below the number of rows of an array source (any `i` for
    /// a scalar), and the array must satisfy Arrow's layout invariants.
    unsafe fn row(&self, i: usize) -> (*const u8, usize, usize);
}

/// Copies `len` bytes from `src` to `dst`.
///
/// # Safety
///
/// `src` readable for `avail >= len` bytes; `dst` writable for `len` bytes
/// rounded up to a multiple of 32 (the values buffer's `SLACK` covers the
/// excess); the ranges do not overlap.
#[inline(always)]
pub(super) unsafe fn copy_short(dst: *mut u8, src: *const u8, len: usize, avail: usize) {
    type V = [u8; 16];
    const _: () = assert!(SLACK >= 32);
    // SAFETY: each vector branch reads only within `avail` and writes within
    // `len` rounded up to 32, as the caller guarantees; otherwise a plain
    // copy of `len` bytes.
    unsafe {
        if len <= 16 && avail >= 16 {
            dst.cast::<V>().write_unaligned(src.cast::<V>().read_unaligned());
        } else if len <= 512 && avail >= len.next_multiple_of(32) {
            // Whole 32-byte chunks (two 16-byte moves each): cheaper than a
            // `memcpy` call for the string sizes SQL columns hold.
            let mut k = 0;
            while k < len {
                let a = src.add(k).cast::<V>().read_unaligned();
                let b = src.add(k + 16).cast::<V>().read_unaligned();
                dst.add(k).cast::<V>().write_unaligned(a);
                dst.add(k + 16).cast::<V>().write_unaligned(b);
                k += 32;
            }
        } else {
            std::ptr::copy_nonoverlapping(src, dst, len);
        }
    }
}

/// Picks a fill loop unrolled for 2, 3 or 4 arguments.
///
/// # Safety
///
/// As [`fill_concat`].
pub(super) unsafe fn dispatch_concat<P: RowSrc, O: OffsetSizeTrait>(
    pieces: &[P],
    n: usize,
    nulls: Option<(&NullBuffer, NullFill)>,
    base: *mut u8,
    offs: *mut O,
) -> usize {
    // SAFETY: forwarded contract.
    unsafe {
        if let Ok(p) = <&[P; 2]>::try_from(pieces) {
            fill_concat(p.as_slice(), n, nulls, base, offs)
        } else if let Ok(p) = <&[P; 3]>::try_from(pieces) {
            fill_concat(p.as_slice(), n, nulls, base, offs)
        } else if let Ok(p) = <&[P; 4]>::try_from(pieces) {
            fill_concat(p.as_slice(), n, nulls, base, offs)
        } else {
            fill_concat(pieces, n, nulls, base, offs)
        }
    }
}

/// Writes the CONCAT of every row (the valid ones only, under `nulls`) front
/// to back; returns the value bytes written. `nulls` carries a resolved
/// strategy (not `Auto`).
///
/// # Safety
///
/// Every source has at least `n` rows; `offs` is writable for `n + 1`
/// offsets; `base` is writable for the total bytes of the rows written plus
/// `SLACK` — with [`NullFill::BranchFree`], of all `n` rows plus `SLACK` —
/// and that total fits `O`.
#[inline(always)]
unsafe fn fill_concat<P: RowSrc, O: OffsetSizeTrait>(
    pieces: &[P],
    n: usize,
    nulls: Option<(&NullBuffer, NullFill)>,
    base: *mut u8,
    offs: *mut O,
) -> usize {
    let mut pos = 0usize;
    // SAFETY: per the contract; rows are `< n`, `pos` stays within the
    // written total, and `copy_short` may spill into the `SLACK` bytes only.
    unsafe {
        offs.write(O::usize_as(0));
        match nulls {
            None => {
                for i in 0..n {
                    for p in pieces {
                        let (s, len, avail) = p.row(i);
                        copy_short(base.add(pos), s, len, avail);
                        pos += len;
                    }
                    offs.add(i + 1).write(O::usize_as(pos));
                }
            }
            Some((nb, NullFill::BranchFree)) => {
                let bits = nb.inner();
                for i in 0..n {
                    // All ones for a valid row, zero for a NULL one. A NULL
                    // row's bytes land at `pos` (within the all-rows
                    // capacity: `pos` is at most the bytes of the rows
                    // before it) and the next row overwrites them.
                    let keep = (bits.value_unchecked(i) as usize).wrapping_neg();
                    for p in pieces {
                        let (s, len, avail) = p.row(i);
                        copy_short(base.add(pos), s, len, avail);
                        pos += len & keep;
                    }
                    offs.add(i + 1).write(O::usize_as(pos));
                }
            }
            Some((nb, NullFill::ValidOnly)) => {
                let bits = nb.inner();
                for i in 0..n {
                    let keep = (bits.value_unchecked(i) as usize).wrapping_neg();
                    let mut len = 0;
                    for p in pieces {
                        len += p.row(i).1;
                    }
                    pos += len & keep;
                    offs.add(i + 1).write(O::usize_as(pos));
                }
                // Valid rows in increasing order: a copy's spill past its
                // row is overwritten by the next valid row, or is slack.
                for i in nb.valid_indices() {
                    let mut at = offs.add(i).read().as_usize();
                    for p in pieces {
                        let (s, len, avail) = p.row(i);
                        copy_short(base.add(at), s, len, avail);
                        at += len;
                    }
                }
            }
            Some((nb, _)) => {
                for i in 0..n {
                    if nb.is_valid(i) {
                        for p in pieces {
                            let (s, len, avail) = p.row(i);
                            copy_short(base.add(pos), s, len, avail);
                            pos += len;
                        }
                    }
                    offs.add(i + 1).write(O::usize_as(pos));
                }
            }
        }
    }
    pos
}

/// Picks a CONCAT_WS fill loop unrolled for 2, 3 or 4 arguments.
///
/// # Safety
///
/// As [`fill_concat_ws`].
pub(super) unsafe fn dispatch_concat_ws<P: RowSrc, O: OffsetSizeTrait>(
    srcs: &[P],
    arg_nulls: &[Option<&NullBuffer>],
    any_arg_nulls: bool,
    n: usize,
    nulls: Option<&NullBuffer>,
    base: *mut u8,
    offs: *mut O,
) -> usize {
    // SAFETY: forwarded contract.
    unsafe {
        if let Ok(p) = <&[P; 3]>::try_from(srcs) {
            fill_concat_ws(p.as_slice(), arg_nulls, any_arg_nulls, n, nulls, base, offs)
        } else if let Ok(p) = <&[P; 4]>::try_from(srcs) {
            fill_concat_ws(p.as_slice(), arg_nulls, any_arg_nulls, n, nulls, base, offs)
        } else if let Ok(p) = <&[P; 5]>::try_from(srcs) {
            fill_concat_ws(p.as_slice(), arg_nulls, any_arg_nulls, n, nulls, base, offs)
        } else {
            fill_concat_ws(srcs, arg_nulls, any_arg_nulls, n, nulls, base, offs)
        }
    }
}

/// Writes CONCAT_WS rows front to back. `srcs[0]` is the separator, the rest
/// the arguments, whose NULL masks are `arg_nulls`.
///
/// # Safety
///
/// As [`fill_concat`], with the separators counted in the total.
#[inline(always)]
unsafe fn fill_concat_ws<P: RowSrc, O: OffsetSizeTrait>(
    srcs: &[P],
    arg_nulls: &[Option<&NullBuffer>],
    any_arg_nulls: bool,
    n: usize,
    nulls: Option<&NullBuffer>,
    base: *mut u8,
    offs: *mut O,
) -> usize {
    let Some((sep, args)) = srcs.split_first() else { return 0 };
    let mut pos = 0usize;
    // SAFETY: per the contract, as in `fill_concat`.
    unsafe {
        offs.write(O::usize_as(0));
        if nulls.is_none() && !any_arg_nulls {
            for i in 0..n {
                let (ss, slen, savail) = sep.row(i);
                for (k, p) in args.iter().enumerate() {
                    if k > 0 {
                        copy_short(base.add(pos), ss, slen, savail);
                        pos += slen;
                    }
                    let (s, len, avail) = p.row(i);
                    copy_short(base.add(pos), s, len, avail);
                    pos += len;
                }
                offs.add(i + 1).write(O::usize_as(pos));
            }
        } else {
            for i in 0..n {
                if nulls.is_none_or(|nb| nb.is_valid(i)) {
                    let (ss, slen, savail) = sep.row(i);
                    let mut first = true;
                    for (p, an) in args.iter().zip(arg_nulls) {
                        if an.is_some_and(|nb| nb.is_null(i)) {
                            continue;
                        }
                        if !first {
                            copy_short(base.add(pos), ss, slen, savail);
                            pos += slen;
                        }
                        first = false;
                        let (s, len, avail) = p.row(i);
                        copy_short(base.add(pos), s, len, avail);
                        pos += len;
                    }
                }
                offs.add(i + 1).write(O::usize_as(pos));
            }
        }
    }
    pos
}
