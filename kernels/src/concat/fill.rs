//! The CONCAT / CONCAT_WS row loops: sources are read once, the output is
//! written front to back into buffers sized before the loop.

use arrow_array::OffsetSizeTrait;
use arrow_buffer::NullBuffer;

/// Bytes of slack after the values so that short copies may write whole
/// 16-byte vectors.
pub(super) const SLACK: usize = 64;

/// How [`concat`](super::concat) fills its output when some rows are NULL.
/// Not part of the stable API: for tests, benches and fuzzing.
// Only `Auto` is chosen without `public_imp` (the others are forced by tests).
#[cfg_attr(not(feature = "public_imp"), allow(dead_code))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum NullFill {
    /// `SkipNulls` for short rows; `BranchFree` for long ones when the
    /// values buffer holds every row (see `NullFill::resolve`).
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
    /// One pass over the valid rows only, found by walking the set bits of
    /// the validity; each valid row also writes its end offset ahead over
    /// the next `OFFSETS_SLACK` rows, which is every NULL row's offset
    /// unless a longer run of NULLs follows (then a short loop fills it).
    SkipNulls,
}

/// Offsets the buffer holds past its `rows + 1`, for [`NullFill::SkipNulls`]
/// writing ahead.
pub(super) const OFFSETS_SLACK: usize = 4;

/// Average output bytes per row from which [`NullFill::Auto`] copies NULL
/// rows too ([`NullFill::BranchFree`]) instead of skipping them.
const SKIP_BELOW: usize = 512;

impl NullFill {
    /// The concrete strategy for a batch of `rows` rows whose values total
    /// `total` bytes when NULL rows are counted too; `all_rows_fit`: whether
    /// the values buffer holds them all (false only near the offset limit,
    /// where the buffer is sized for the valid rows).
    ///
    /// `Auto`, measured with `sluice demo` (3 columns, ~25% NULL rows from
    /// three random masks, 8,192-row batches, inputs far larger than the
    /// cache):
    /// - 3 × 16 B: `SkipNulls` 4.0–4.2 ns/row, `BranchFree` 4.3–4.4 (the same
    ///   input without NULLs: 4.0–4.2);
    /// - 3 × 64 B and 3 × 128 B: `SkipNulls` 3–8% faster than `BranchFree`;
    /// - 3 × 256 B: `SkipNulls` 43 ns/row, `BranchFree` 28–31: skipping rows
    ///   of that size costs more memory time than copying them, so from
    ///   [`SKIP_BELOW`] bytes per row NULL rows are copied and overwritten.
    pub(super) fn resolve(self, all_rows_fit: bool, rows: usize, total: usize) -> NullFill {
        match self {
            NullFill::Auto if all_rows_fit && total >= SKIP_BELOW.saturating_mul(rows) => NullFill::BranchFree,
            NullFill::Auto => NullFill::SkipNulls,
            NullFill::BranchFree if all_rows_fit => NullFill::BranchFree,
            // Copying NULL rows needs room for them.
            NullFill::BranchFree => NullFill::ValidOnly,
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

    /// How many leading rows of `0..n` may be read as a whole
    /// [`FAST_READ`]-byte block from their start (the block may run past
    /// the row, never past the source's buffer).
    ///
    /// # Safety
    ///
    /// `n` is at most the number of rows of an array source.
    unsafe fn fast_rows(&self, n: usize) -> usize;
}

/// The block [`copy_fast`] may read from a row's start: its longest vector
/// copy (rows above it go through `memcpy`).
pub(super) const FAST_READ: usize = 64;

/// Copies `len` bytes from `src` to `dst`, reading up to [`FAST_READ`] bytes.
///
/// # Safety
///
/// `src` readable for `max(len, FAST_READ)` bytes; `dst` writable for `len`
/// bytes rounded up to a multiple of 32 (the values buffer's `SLACK` covers
/// the excess); the ranges do not overlap.
#[inline(always)]
pub(super) unsafe fn copy_fast(dst: *mut u8, src: *const u8, len: usize) {
    type V = [u8; 16];
    const _: () = assert!(SLACK >= 32 && FAST_READ == 64);
    // SAFETY: at most 64 bytes are read (readable, per the caller) and at
    // most `len` rounded up to 32 written; longer rows are a plain copy.
    unsafe {
        if len <= 16 {
            dst.cast::<V>().write_unaligned(src.cast::<V>().read_unaligned());
        } else if len <= FAST_READ {
            copy_chunks32(dst, src, len);
        } else {
            // `memcpy` (glibc picks AVX2 / AVX-512 moves at run time) beats
            // 16-byte moves from 64 bytes up: 256-byte rows ran 20% faster.
            std::ptr::copy_nonoverlapping(src, dst, len);
        }
    }
}

/// Copies `len` bytes as whole 32-byte chunks (two 16-byte moves each):
/// cheaper than a `memcpy` call for short strings.
///
/// # Safety
///
/// `src` readable and `dst` writable for `len` rounded up to a multiple of
/// 32 bytes; the ranges do not overlap.
#[inline(always)]
unsafe fn copy_chunks32(dst: *mut u8, src: *const u8, len: usize) {
    type V = [u8; 16];
    let mut k = 0;
    // SAFETY: every chunk lies below `len` rounded up to 32 (caller).
    unsafe {
        while k < len {
            let a = src.add(k).cast::<V>().read_unaligned();
            let b = src.add(k + 16).cast::<V>().read_unaligned();
            dst.add(k).cast::<V>().write_unaligned(a);
            dst.add(k + 16).cast::<V>().write_unaligned(b);
            k += 32;
        }
    }
}

/// Copies row `i` of `p` to `dst`; returns its length. `FAST`: the row is
/// one of `p.fast_rows(..)`, so [`copy_fast`] applies.
///
/// # Safety
///
/// As [`RowSrc::row`], and `dst` as for [`copy_short`].
#[inline(always)]
unsafe fn put<P: RowSrc, const FAST: bool>(p: &P, i: usize, dst: *mut u8) -> usize {
    // SAFETY: forwarded contract; with `FAST`, `i < p.fast_rows(..)` makes
    // the 64-byte read of `copy_fast` valid.
    unsafe {
        let (s, len, avail) = p.row(i);
        if FAST {
            copy_fast(dst, s, len);
        } else {
            copy_short(dst, s, len, avail);
        }
        len
    }
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
        } else if len <= FAST_READ && avail >= len.next_multiple_of(32) {
            copy_chunks32(dst, src, len);
        } else {
            std::ptr::copy_nonoverlapping(src, dst, len);
        }
    }
}

/// Writes `pos` to offsets `from..to`.
///
/// # Safety
///
/// `offs` is writable for `to` entries.
#[inline(always)]
unsafe fn fill_offsets<O: OffsetSizeTrait>(offs: *mut O, from: usize, to: usize, pos: usize) {
    for k in from..to {
        // SAFETY: `k < to` (caller).
        unsafe { offs.add(k).write(O::usize_as(pos)) };
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

/// [`put`] of row `i`, without bounds checks when `i < fast`.
///
/// # Safety
///
/// As [`put`]; rows below `fast` are fast rows of `p`.
#[inline(always)]
unsafe fn put_below<P: RowSrc>(p: &P, i: usize, fast: usize, dst: *mut u8) -> usize {
    // SAFETY: forwarded contract; `i < fast` makes row `i` a fast row.
    unsafe {
        if i < fast {
            put::<P, true>(p, i, dst)
        } else {
            put::<P, false>(p, i, dst)
        }
    }
}

/// Writes the CONCAT of every row (the valid ones only, under `nulls`) front
/// to back; returns the value bytes written. `nulls` carries a resolved
/// strategy (not `Auto`).
///
/// # Safety
///
/// Every source has at least `n` rows; `offs` is writable for
/// `n + 1 + OFFSETS_SLACK` offsets; `base` is writable for the total bytes of the rows written plus
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
    // Rows `0..fast` of every piece take the copy without bounds checks.
    // SAFETY: `n` is at most each source's rows (contract).
    let fast = pieces.iter().map(|p| unsafe { p.fast_rows(n) }).min().unwrap_or(n);
    let mut pos = 0usize;
    // SAFETY: per the contract; rows are `< n`, those below `fast` are fast
    // rows of every piece, `pos` stays within the written total, and copies
    // may spill into the `SLACK` bytes only.
    unsafe {
        offs.write(O::usize_as(0));
        match nulls {
            None => {
                for i in 0..fast {
                    for p in pieces {
                        pos += put::<P, true>(p, i, base.add(pos));
                    }
                    offs.add(i + 1).write(O::usize_as(pos));
                }
                for i in fast..n {
                    for p in pieces {
                        pos += put::<P, false>(p, i, base.add(pos));
                    }
                    offs.add(i + 1).write(O::usize_as(pos));
                }
            }
            Some((nb, NullFill::BranchFree)) => {
                // A NULL row's bytes land at `pos` (within the all-rows
                // capacity: `pos` is at most the bytes of the rows before
                // it) and the next row overwrites them, as `pos` goes back
                // to the row's start. The fast rows read the validity 64
                // rows at a time; the rest mask each length with `keep`
                // (all ones for a valid row, zero for a NULL one).
                let mut i = 0;
                for mut w in nb.inner().bit_chunks().iter() {
                    if i + 64 > fast {
                        break;
                    }
                    // 64 rows; ending on `i % 64` keeps one register free.
                    loop {
                        let start = pos;
                        for p in pieces {
                            pos += put::<P, true>(p, i, base.add(pos));
                        }
                        pos = core::hint::select_unpredictable(w & 1 != 0, pos, start);
                        w >>= 1;
                        offs.add(i + 1).write(O::usize_as(pos));
                        i += 1;
                        if i % 64 == 0 {
                            break;
                        }
                    }
                }
                let bits = nb.inner();
                while i < n {
                    let keep = (bits.value_unchecked(i) as usize).wrapping_neg();
                    for p in pieces {
                        pos += put::<P, false>(p, i, base.add(pos)) & keep;
                    }
                    offs.add(i + 1).write(O::usize_as(pos));
                    i += 1;
                }
            }
            Some((nb, NullFill::SkipNulls)) => {
                // Invariant: the offsets up to and including the last valid
                // row's end, `offs[ahead + 1 - OFFSETS_SLACK]`, are final, and
                // those after it up to `offs[ahead]` already hold `pos`. The
                // first `OFFSETS_SLACK` are 0 to start with.
                offs.cast::<[O; OFFSETS_SLACK]>().write_unaligned([O::usize_as(0); OFFSETS_SLACK]);
                let mut ahead = OFFSETS_SLACK - 1;
                let mut word_start = 0usize;
                for mut w in nb.inner().bit_chunks().iter() {
                    if word_start + 64 > fast {
                        break;
                    }
                    while w != 0 {
                        let i = word_start + w.trailing_zeros() as usize;
                        w &= w - 1;
                        // The NULL rows since the last valid row end where
                        // it did: `offs[..=i]` must hold `pos`.
                        if i > ahead {
                            fill_offsets(offs, ahead + 1, i + 1, pos);
                        }
                        for p in pieces {
                            pos += put::<P, true>(p, i, base.add(pos));
                        }
                        // Row `i`'s end offset, and the same value ahead.
                        offs.add(i + 1).cast::<[O; OFFSETS_SLACK]>().write_unaligned([O::usize_as(pos); OFFSETS_SLACK]);
                        ahead = i + OFFSETS_SLACK;
                    }
                    word_start += 64;
                }
                // The rows after the last valid one so far end at `pos`.
                fill_offsets(offs, ahead + 1, word_start + 1, pos);
                let bits = nb.inner();
                for i in word_start..n {
                    if bits.value_unchecked(i) {
                        for p in pieces {
                            pos += put::<P, false>(p, i, base.add(pos));
                        }
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
                        at += put_below::<P>(p, i, fast, base.add(at));
                    }
                }
            }
            Some((nb, _)) => {
                for i in 0..n {
                    if nb.is_valid(i) {
                        for p in pieces {
                            pos += put_below::<P>(p, i, fast, base.add(pos));
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
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn dispatch_concat_ws<P: RowSrc, O: OffsetSizeTrait>(
    srcs: &[P],
    arg_nulls: &[Option<&NullBuffer>],
    any_arg_nulls: bool,
    all_fit: bool,
    n: usize,
    nulls: Option<&NullBuffer>,
    base: *mut u8,
    offs: *mut O,
) -> usize {
    // SAFETY: forwarded contract.
    unsafe {
        if let Ok(p) = <&[P; 3]>::try_from(srcs) {
            fill_concat_ws(p.as_slice(), arg_nulls, any_arg_nulls, all_fit, n, nulls, base, offs)
        } else if let Ok(p) = <&[P; 4]>::try_from(srcs) {
            fill_concat_ws(p.as_slice(), arg_nulls, any_arg_nulls, all_fit, n, nulls, base, offs)
        } else if let Ok(p) = <&[P; 5]>::try_from(srcs) {
            fill_concat_ws(p.as_slice(), arg_nulls, any_arg_nulls, all_fit, n, nulls, base, offs)
        } else {
            fill_concat_ws(srcs, arg_nulls, any_arg_nulls, all_fit, n, nulls, base, offs)
        }
    }
}

/// Writes CONCAT_WS rows front to back. `srcs[0]` is the separator, the rest
/// the arguments, whose NULL masks are `arg_nulls`.
///
/// # Safety
///
/// As [`fill_concat`], with the separators counted in the total; `all_fit`:
/// `base` holds every row with all its arguments and separators (NULL ones
/// included) plus `SLACK`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn fill_concat_ws<P: RowSrc, O: OffsetSizeTrait>(
    srcs: &[P],
    arg_nulls: &[Option<&NullBuffer>],
    any_arg_nulls: bool,
    all_fit: bool,
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
        } else if all_fit {
            // Branch-free: every argument and separator is copied, and the
            // write position advances only past the ones that count (an
            // argument if non-NULL; a separator if its argument is non-NULL
            // and one was written before it); a NULL row goes back to its
            // start. Skipped bytes are overwritten by what follows, and stay
            // within the all-rows capacity: at argument `k` at most `k`
            // separators and `k + 1` arguments of this row have been placed.
            for i in 0..n {
                let start = pos;
                let (ss, slen, savail) = sep.row(i);
                let mut seen = 0usize;
                for (k, (p, an)) in args.iter().zip(arg_nulls).enumerate() {
                    let valid = match an {
                        Some(nb) => (nb.inner().value_unchecked(i) as usize).wrapping_neg(),
                        None => usize::MAX,
                    };
                    if k > 0 {
                        copy_short(base.add(pos), ss, slen, savail);
                        pos += slen & valid & seen;
                    }
                    let (s, len, avail) = p.row(i);
                    copy_short(base.add(pos), s, len, avail);
                    pos += len & valid;
                    seen |= valid;
                }
                if let Some(nb) = nulls {
                    pos = core::hint::select_unpredictable(nb.inner().value_unchecked(i), pos, start);
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
