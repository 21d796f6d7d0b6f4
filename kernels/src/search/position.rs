//! POSITION, LOCATE and INSTR: 1-based character positions of a substring.
//!
//! Flink evaluates all three on the UTF-8 bytes of `BinaryStringData`
//! (`BinaryStringData.indexOf`, `SqlFunctionUtils.position` / `instr`):
//! characters are delimited by the lead-byte rule of
//! `BinaryStringData.numBytesForFirstByte` and the needle is compared byte for
//! byte at each character boundary. Here the boundaries are walked the same
//! way, but candidates are found with `memchr::memmem` (a [`Finder`] built
//! once per batch for a scalar needle) and the walk only counts characters up
//! to the candidate, eight ASCII bytes at a time.

use arrow_array::{Datum, Int32Array};
use arrow_buffer::{NullBuffer, ScalarBuffer};
use memchr::memmem::{self, Finder};

use super::args::{output_len, union_nulls, with_rows, IntArg, Rows, StrArg};
use crate::error::{Error, Result};

/// Bytes of the character starting with `b`, by Flink's rule
/// (`BinaryStringData.numBytesForFirstByte`): `C2..DF` → 2, `E0..EF` → 3,
/// `F0..F7` → 4, everything else (ASCII, continuation bytes, `C0`, `C1`,
/// `F8..FF`) → 1. Continuation bytes are not checked.
#[inline(always)]
pub(crate) fn flink_char_len(b: u8) -> usize {
    if b < 0x80 {
        1
    } else if b & 0xE0 == 0xC0 && b & 0x1E != 0 {
        2
    } else if b & 0xF0 == 0xE0 {
        3
    } else if b & 0xF8 == 0xF0 {
        4
    } else {
        1
    }
}

const HIGH_BITS: u64 = 0x8080_8080_8080_8080;

#[inline(always)]
fn ascii8(s: &[u8], pos: usize) -> bool {
    match s.get(pos..pos + 8) {
        Some(c) => {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            u64::from_ne_bytes(w) & HIGH_BITS == 0
        }
        None => false,
    }
}

/// Walks character boundaries from `(pos, ch)` while `go(pos, ch)`, eight
/// ASCII bytes at a time where `eight(pos, ch)` allows eight more
/// characters. Returns the boundary it stops at and its character index.
#[inline(always)]
fn walk(
    s: &[u8],
    (mut pos, mut ch): (usize, i64),
    go: impl Fn(usize, i64) -> bool,
    eight: impl Fn(usize, i64) -> bool,
) -> (usize, i64) {
    while go(pos, ch) {
        if eight(pos, ch) && ascii8(s, pos) {
            pos += 8;
            ch += 8;
            continue;
        }
        pos += flink_char_len(s[pos]);
        ch += 1;
    }
    (pos, ch)
}

/// Walks character boundaries from `(pos, ch)` while `pos < target`.
/// Returns the first boundary at or past `target` and its character index.
#[inline(always)]
fn walk_to(s: &[u8], pos: usize, ch: i64, target: usize) -> (usize, i64) {
    walk(s, (pos, ch), |pos, _| pos < target, |pos, _| pos + 8 <= target)
}

/// Skips `n` characters from the start (`n <= 0` skips none), stopping at
/// the end of `s`, like the first loop of `BinaryStringData.indexOf`.
#[inline(always)]
pub(crate) fn skip_chars(s: &[u8], n: i64) -> (usize, i64) {
    walk(s, (0, 0), |pos, ch| pos < s.len() && ch < n, |_, ch| n - ch >= 8)
}

/// `BinaryStringData.numChars()`.
#[inline]
pub(crate) fn num_chars(s: &[u8]) -> i64 {
    skip_chars(s, i64::MAX).1
}

/// From boundary `(pos, ch)`, the first boundary at which `needle` (non
/// empty) occurs, as `(byte, char)`; the second loop of
/// `BinaryStringData.indexOf`.
#[inline(always)]
fn search_from<F: Fn(&[u8], &[u8]) -> Option<usize>>(
    s: &[u8],
    needle: &[u8],
    mut pos: usize,
    mut ch: i64,
    find: &F,
) -> Option<(usize, i64)> {
    loop {
        if pos > s.len() || s.len() - pos < needle.len() {
            return None;
        }
        let cand = pos + find(&s[pos..], needle)?;
        (pos, ch) = walk_to(s, pos, ch, cand);
        if pos == cand {
            return Some((pos, ch));
        }
        // The candidate was inside a character (only possible on bytes that
        // are not UTF-8): go on from the next boundary.
    }
}

/// `BinaryStringData.indexOf(needle, from)`: character index or -1.
#[inline(always)]
fn index_of<F: Fn(&[u8], &[u8]) -> Option<usize>>(s: &[u8], needle: &[u8], from: i32, find: &F) -> i64 {
    if needle.is_empty() {
        return 0;
    }
    let (pos, ch) = skip_chars(s, from as i64);
    search_from(s, needle, pos, ch, find).map_or(-1, |(_, c)| c)
}

fn finish(values: Vec<i32>, nulls: Option<NullBuffer>) -> Int32Array {
    Int32Array::new(ScalarBuffer::from(values), nulls)
}

/// `POSITION(needle IN hay)`: the 1-based character position of the first
/// occurrence of `needle` in `hay`, 0 if there is none, 1 for an empty
/// needle. Same as [`locate`] without `from`.
///
/// # Errors
/// A non-string argument or array arguments of different lengths.
///
/// # Example
/// ```
/// use arrow_array::{Int32Array, Scalar, StringArray};
/// let hay = StringArray::from(vec![Some("añb"), None, Some("xyz")]);
/// let needle = Scalar::new(StringArray::from(vec!["b"]));
/// let out = sluice_kernels::search::position(&needle, &hay).unwrap();
/// assert_eq!(out, Int32Array::from(vec![Some(3), None, Some(0)]));
/// ```
pub fn position(needle: &dyn Datum, hay: &dyn Datum) -> Result<Int32Array> {
    locate(needle, hay, None)
}

/// `LOCATE(needle, hay[, from])` =
/// `SqlFunctionUtils.position(needle, hay, from)` =
/// `hay.indexOf(needle, from - 1) + 1`.
///
/// * Positions count characters (lead-byte rule, = code points on UTF-8),
///   1-based; 0 = not found.
/// * An empty needle gives 1 whatever `from` is.
/// * `from <= 0` searches from the start; `from - 1` wraps like Java `int`,
///   so `from = i32::MIN` searches from "character `i32::MAX`" (not found).
/// * Matching is on bytes: no case folding, no normalisation.
/// * Any NULL argument gives NULL.
///
/// `needle` and `from` may be scalars or arrays; `hay` too.
///
/// # Errors
/// A non-string `needle`/`hay`, a non-Int32 `from`, array arguments of
/// different lengths.
///
/// # Performance
/// A scalar needle is compiled once into a [`memchr::memmem::Finder`];
/// nothing is allocated per row.
pub fn locate(needle: &dyn Datum, hay: &dyn Datum, from: Option<&dyn Datum>) -> Result<Int32Array> {
    let needle = StrArg::new(needle, "LOCATE needle")?;
    let hay = StrArg::new(hay, "LOCATE haystack")?;
    let from = match from {
        Some(f) => IntArg::new(f, "LOCATE from")?,
        None => IntArg::constant(1),
    };
    let len = output_len(&[needle.array_len(), hay.array_len(), from.array_len()])?;
    if needle.is_null_scalar() || hay.is_null_scalar() || from.is_null_scalar() {
        return Ok(Int32Array::new_null(len));
    }
    let nulls = union_nulls([needle.nulls(), hay.nulls(), from.nulls()]);
    let values = match needle.scalar() {
        Some(n) => {
            let finder = Finder::new(n);
            let find = |h: &[u8], _: &[u8]| finder.find(h);
            with_rows!(hay, |h| locate_rows(h, super::args::Const(n), from, len, &find))
        }
        None => {
            let find = |h: &[u8], n: &[u8]| memmem::find(h, n);
            with_rows!(hay, |h| locate_rows(h, needle, from, len, &find))
        }
    };
    Ok(finish(values, nulls))
}

#[inline(never)]
fn locate_rows<H: Rows, N: Rows, F: Fn(&[u8], &[u8]) -> Option<usize>>(
    hay: H,
    needle: N,
    from: IntArg<'_>,
    len: usize,
    find: &F,
) -> Vec<i32> {
    // NULL rows are computed too (on whatever bytes they hold): no branch
    // on the mask, and the result is hidden by the output's NULL mask.
    (0..len).map(|i| (index_of(hay.row(i), needle.row(i), from.get(i).wrapping_sub(1), find) + 1) as i32).collect()
}

/// `INSTR(str, sub[, start[, nth]])` = `SqlFunctionUtils.instr(str, sub,
/// start, nth)` (`start` and `nth` default to 1).
///
/// * `nth <= 0` fails like Flink (`nthAppearance must be positive!`), but
///   only on rows whose arguments are all non-NULL.
/// * `start = 0` gives 0.
/// * `start > 0`: the `nth` occurrence at or after character `start`,
///   occurrences may overlap; an empty `sub` gives 1.
/// * `start < 0`: Flink searches the character-reversed strings from
///   character `-start`; this is the `nth` occurrence counting from the end
///   among those ending at least `-start - 1` characters before the end, as
///   a position from the start. An empty `sub` gives `CHAR_LENGTH(str) + 1`.
///   (Computed without reversing, assuming UTF-8 input as Arrow guarantees.)
/// * `start = i32::MIN` makes Flink recurse forever (`-start` overflows):
///   an error here.
///
/// # Errors
/// As above, plus argument type/length errors.
pub fn instr(s: &dyn Datum, sub: &dyn Datum, start: Option<&dyn Datum>, nth: Option<&dyn Datum>) -> Result<Int32Array> {
    let s = StrArg::new(s, "INSTR str")?;
    let sub = StrArg::new(sub, "INSTR substring")?;
    let start = match start {
        Some(d) => IntArg::new(d, "INSTR start")?,
        None => IntArg::constant(1),
    };
    let nth = match nth {
        Some(d) => IntArg::new(d, "INSTR nth")?,
        None => IntArg::constant(1),
    };
    let len = output_len(&[s.array_len(), sub.array_len(), start.array_len(), nth.array_len()])?;
    if s.is_null_scalar() || sub.is_null_scalar() || start.is_null_scalar() || nth.is_null_scalar() {
        return Ok(Int32Array::new_null(len));
    }
    let nulls = union_nulls([s.nulls(), sub.nulls(), start.nulls(), nth.nulls()]);
    let values = match sub.scalar() {
        Some(n) => {
            let finder = Finder::new(n);
            let find = |h: &[u8], _: &[u8]| finder.find(h);
            with_rows!(s, |h| instr_rows(h, super::args::Const(n), start, nth, len, nulls.as_ref(), &find))?
        }
        None => {
            let find = |h: &[u8], n: &[u8]| memmem::find(h, n);
            with_rows!(s, |h| instr_rows(h, sub, start, nth, len, nulls.as_ref(), &find))?
        }
    };
    Ok(finish(values, nulls))
}

#[inline(never)]
fn instr_rows<H: Rows, N: Rows, F: Fn(&[u8], &[u8]) -> Option<usize>>(
    s: H,
    sub: N,
    start: IntArg<'_>,
    nth: IntArg<'_>,
    len: usize,
    nulls: Option<&NullBuffer>,
    find: &F,
) -> Result<Vec<i32>> {
    let mut out = Vec::with_capacity(len);
    for i in 0..len {
        if nulls.is_some_and(|n| n.is_null(i)) {
            out.push(0);
            continue;
        }
        out.push(instr_one(s.row(i), sub.row(i), start.get(i), nth.get(i), find)?);
    }
    Ok(out)
}

fn instr_one<F: Fn(&[u8], &[u8]) -> Option<usize>>(
    s: &[u8],
    sub: &[u8],
    start: i32,
    nth: i32,
    find: &F,
) -> Result<i32> {
    if nth <= 0 {
        // SqlFunctionUtils.instr: IllegalArgumentException.
        return Err(Error::Flink("nthAppearance must be positive!".to_string()));
    }
    if start == 0 {
        return Ok(0);
    }
    if start > 0 {
        if sub.is_empty() {
            return Ok(1);
        }
        let (mut pos, mut ch) = skip_chars(s, start as i64 - 1);
        let mut k = 0;
        loop {
            match search_from(s, sub, pos, ch, find) {
                None => return Ok(0),
                Some((p, c)) => {
                    k += 1;
                    if k == nth {
                        return Ok((c + 1) as i32);
                    }
                    // Next search from the character after the match start.
                    pos = p + flink_char_len(s[p]);
                    ch = c + 1;
                }
            }
        }
    }
    if start == i32::MIN {
        return Err(Error::Flink(
            "java.lang.StackOverflowError: INSTR start position -2147483648 cannot be negated \
             (SqlFunctionUtils.instr recurses forever)"
                .to_string(),
        ));
    }
    let m = -(start as i64);
    let n_chars = num_chars(s);
    if sub.is_empty() {
        return Ok((n_chars + 1) as i32);
    }
    let limit = n_chars - (m - 1);
    if limit < num_chars(sub) {
        return Ok(0);
    }
    let (mut end, _) = skip_chars(s, limit);
    end = end.min(s.len());
    let mut k = 0;
    loop {
        let Some(p) = memmem::rfind(&s[..end], sub) else {
            return Ok(0);
        };
        k += 1;
        if k == nth {
            return Ok((walk_to(s, 0, 0, p).1 + 1) as i32);
        }
        // The next occurrence (towards the start) starts before `p` and may
        // overlap this one.
        end = p + sub.len() - 1;
    }
}
