//! REPLACE(str, old, new) with Java `String.replace` semantics.
//!
//! Flink: `SqlFunctionUtils.replace(str, old, new)` = `str.replace(old, new)`
//! on decoded UTF-16 Strings, re-encoded by `BinaryStringData.fromString`.
//! For a non-empty `old` on UTF-8 input that is exactly a left-to-right,
//! non-overlapping byte replacement (a UTF-8 needle only matches at
//! character boundaries, and UTF-16 matches are the same occurrences), done
//! here with `memchr::memmem`. An empty `old` inserts `new` between every
//! UTF-16 code unit and at both ends: inside a supplementary character that
//! splits the surrogate pair and each half encodes to `?` (§4.2 of the
//! reference), which is reproduced byte for byte.

use arrow_array::{Datum, StringArray};
use memchr::memmem::{self, Finder};

use super::args::{is_unchecked, output_len, union_nulls, with_rows, Rows, StrArg, Utf8Out};
use crate::error::Result;

/// `REPLACE(s, old, new)`: every occurrence of `old` in `s` replaced by
/// `new`, Java `String.replace` semantics (see the module docs). Any NULL
/// argument gives NULL. Output is `Utf8` whatever the input layouts;
/// binary arguments are read as string bytes, and the output rows are then
/// validated as UTF-8.
///
/// # Errors
/// [`Error::OffsetOverflow`](crate::Error::OffsetOverflow) if the output
/// exceeds `i32::MAX` bytes; [`Error::InvalidUtf8`](crate::Error::InvalidUtf8)
/// for an output row that is not UTF-8 (binary input only); argument
/// type/length errors.
///
/// # Example
/// ```
/// use arrow_array::{Scalar, StringArray};
/// use sluice_kernels::search::replace;
/// let s = StringArray::from(vec!["ab", "a-b-c"]);
/// let out = replace(&s, &Scalar::new(StringArray::from(vec![""])), &Scalar::new(StringArray::from(vec!["x"]))).unwrap();
/// assert_eq!(out.value(0), "xaxbx");
/// assert_eq!(out.value(1), "xax-xbx-xcx");
/// ```
///
/// # Performance
/// A scalar `old` is compiled once into a [`Finder`]; the output buffers are
/// sized once from the input and nothing is allocated per row.
pub fn replace(s: &dyn Datum, old: &dyn Datum, new: &dyn Datum) -> Result<StringArray> {
    let check = [s, old, new].into_iter().any(is_unchecked);
    let s = StrArg::new(s, "REPLACE str")?;
    let old = StrArg::new(old, "REPLACE old")?;
    let new = StrArg::new(new, "REPLACE new")?;
    let len = output_len(&[s.array_len(), old.array_len(), new.array_len()])?;
    if s.is_null_scalar() || old.is_null_scalar() || new.is_null_scalar() {
        return Ok(StringArray::new_null(len));
    }
    let nulls = union_nulls([s.nulls(), old.nulls(), new.nulls()]);
    let hint = s.bytes_hint(len);
    let cap = match (old.scalar(), new.scalar()) {
        (Some(o), Some(n)) if !o.is_empty() && n.len() <= o.len() => hint,
        _ => hint + hint / 4 + 64,
    };
    let mut out = Utf8Out::with_capacity(len, cap).checked(check);
    match old.scalar() {
        Some(o) => {
            let finder = Finder::new(o);
            with_rows!(s, |h| replace_rows(h, Const(o), new, Some(&finder), len, nulls.as_ref(), &mut out))?
        }
        None => with_rows!(s, |h| replace_rows(h, old, new, None, len, nulls.as_ref(), &mut out))?,
    }
    out.finish_checked(nulls)
}

#[inline(never)]
fn replace_rows<H: Rows, O: Rows>(
    s: H,
    old: O,
    new: StrArg<'_>,
    finder: Option<&Finder<'_>>,
    len: usize,
    nulls: Option<&arrow_buffer::NullBuffer>,
    out: &mut Utf8Out,
) -> Result<()> {
    for i in 0..len {
        if !nulls.is_some_and(|n| n.is_null(i)) {
            replace_one(s.row(i), old.row(i), new.get(i), finder, &mut out.values);
        }
        out.end_row()?;
    }
    Ok(())
}

#[inline]
fn replace_one(s: &[u8], old: &[u8], new: &[u8], finder: Option<&Finder<'_>>, out: &mut Vec<u8>) {
    if old.is_empty() {
        return insert_everywhere(s, new, out);
    }
    let mut last = 0;
    match finder {
        Some(f) => {
            for m in f.find_iter(s) {
                out.extend_from_slice(&s[last..m]);
                out.extend_from_slice(new);
                last = m + old.len();
            }
        }
        None => {
            for m in memmem::find_iter(s, old) {
                out.extend_from_slice(&s[last..m]);
                out.extend_from_slice(new);
                last = m + old.len();
            }
        }
    }
    out.extend_from_slice(&s[last..]);
}

/// `s.replace("", new)`: `new` before every UTF-16 unit and at the end. A
/// supplementary character (4 UTF-8 bytes, two UTF-16 units) gets `new`
/// between its surrogates, which then encode to `?` each (`new` is UTF-8, so
/// it neither starts with a low nor ends with a high surrogate).
fn insert_everywhere(s: &[u8], new: &[u8], out: &mut Vec<u8>) {
    if new.is_empty() {
        out.extend_from_slice(s);
        return;
    }
    out.extend_from_slice(new);
    let mut p = 0;
    while p < s.len() {
        let l = utf8_len(s[p]).min(s.len() - p);
        if l == 4 {
            out.push(b'?');
            out.extend_from_slice(new);
            out.push(b'?');
        } else {
            out.extend_from_slice(&s[p..p + l]);
        }
        out.extend_from_slice(new);
        p += l;
    }
}

/// Length of a UTF-8 sequence from its lead byte (input is UTF-8).
#[inline(always)]
fn utf8_len(b: u8) -> usize {
    match b {
        0x00..=0x7F => 1,
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF7 => 4,
        _ => 1,
    }
}
