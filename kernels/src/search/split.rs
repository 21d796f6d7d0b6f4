//! SPLIT_INDEX(str, sep, idx).
//!
//! Flink: `SqlFunctionUtils.splitIndex(str, sep, idx)`: NULL for `idx < 0`,
//! else commons-lang3
//! `StringUtils.splitByWholeSeparatorPreserveAllTokens(str, sep)[idx]`, NULL
//! when `idx` is past the last token. That splitter:
//!
//! * returns no tokens for `str = ''` (so the result is always NULL);
//! * for a non-empty `sep`, cuts at every non-overlapping occurrence left
//!   to right and keeps every token, empty ones included (`'a,,b'` →
//!   `[a, '', b]`, leading/trailing separators give empty first/last tokens);
//! * for `sep = ''` splits on **each** Java whitespace character
//!   (`Character.isWhitespace`) keeping empty tokens (`'a b  c'` →
//!   `[a, b, '', c]`).
//!
//! `SPLIT_INDEX(str, code INT, idx)` is the other overload,
//! `SqlFunctionUtils.splitIndex(String, int, int)`: NULL when `code > 255`,
//! `code < 1` or `idx < 0`, else commons-lang3
//! `StringUtils.splitPreserveAllTokens(str, (char) code)[idx]` (NULL past the
//! last token). Splitting on one character keeps every token exactly as the
//! whole-separator splitter does with that character as a one-character
//! string (`''` → no tokens, `'a,,b'` → `[a, '', b]`, `','` → `['', '']`),
//! so a code is run as the separator U+0001..U+00FF (one UTF-8 byte below
//! 0x80, two from 0x80). There is no whitespace mode for a code.
//!
//! Tokens are slices of the input, so the UTF-16 round trip of Flink is the
//! identity here (for input that reached sluice as UTF-8; see
//! [`super::java`] for values still held as Java chars).

use arrow_array::{Datum, StringArray};
use arrow_buffer::NullBufferBuilder;
use arrow_schema::DataType;
use memchr::memmem::{self, Finder};

use super::args::{is_unchecked, output_len, union_nulls, with_rows, IntArg, Rows, StrArg, Utf8Out};
use crate::error::Result;

/// `SPLIT_INDEX(s, sep, idx)`; see the module docs. `sep` is a string
/// (`Utf8`, `LargeUtf8`, `Utf8View`) or an `Int32` character code. Any NULL
/// argument gives NULL; `idx < 0`, `idx` past the last token, `s = ''` and a
/// code outside 1..=255 give NULL.
///
/// # Errors
/// Argument type/length errors; [`Error::OffsetOverflow`](crate::Error::OffsetOverflow)
/// cannot happen for a `Utf8` input but is checked for `LargeUtf8`.
///
/// # Example
/// ```
/// use arrow_array::{Array, Int32Array, Scalar, StringArray};
/// use sluice_kernels::search::split_index;
/// let s = StringArray::from(vec!["a,,b", "a b  c", ""]);
/// let sep = Scalar::new(StringArray::from(vec![","]));
/// let out = split_index(&s, &sep, &Scalar::new(Int32Array::from(vec![2]))).unwrap();
/// assert_eq!(out.value(0), "b");
/// // no ',' in "a b  c": one token, so index 2 is NULL; '' is always NULL
/// assert!(out.is_null(1) && out.is_null(2));
/// // an INT separator is a character code: 44 is ','
/// let out = split_index(&s, &Scalar::new(Int32Array::from(vec![44])), &Scalar::new(Int32Array::from(vec![2]))).unwrap();
/// assert_eq!(out.value(0), "b");
/// ```
pub fn split_index(s: &dyn Datum, sep: &dyn Datum, idx: &dyn Datum) -> Result<StringArray> {
    let check = is_unchecked(s) || is_unchecked(sep);
    if sep.get().0.data_type() == &DataType::Int32 {
        return split_index_code(s, IntArg::new(sep, "SPLIT_INDEX separator")?, idx, check);
    }
    let s = StrArg::new(s, "SPLIT_INDEX str")?;
    let sep = StrArg::new(sep, "SPLIT_INDEX separator")?;
    let idx = IntArg::new(idx, "SPLIT_INDEX index")?;
    let len = output_len(&[s.array_len(), sep.array_len(), idx.array_len()])?;
    if s.is_null_scalar() || sep.is_null_scalar() || idx.is_null_scalar() {
        return Ok(StringArray::new_null(len));
    }
    let in_nulls = union_nulls([s.nulls(), sep.nulls(), idx.nulls()]);
    let mut out = Utf8Out::with_capacity(len, s.bytes_hint(len)).checked(check);
    let mut nulls = NullBufferBuilder::new(len);
    match sep.scalar() {
        Some(p) if !p.is_empty() => {
            let finder = Finder::new(p);
            let find = |h: &[u8], _: &[u8]| finder.find(h);
            with_rows!(s, |h| split_rows(h, sep, idx, len, in_nulls.as_ref(), &find, &mut out, &mut nulls))?
        }
        _ => {
            let find = |h: &[u8], n: &[u8]| memmem::find(h, n);
            with_rows!(s, |h| split_rows(h, sep, idx, len, in_nulls.as_ref(), &find, &mut out, &mut nulls))?
        }
    }
    out.finish_checked(nulls.finish())
}

/// The separator bytes of character code `code`, or `None` when
/// `SqlFunctionUtils.splitIndex(String, int, int)` returns NULL for it
/// (`code > 255 || code < 1`). `buf` holds the one or two UTF-8 bytes.
#[inline]
pub(crate) fn code_separator(code: i32, buf: &mut [u8; 2]) -> Option<&[u8]> {
    let c = u8::try_from(code).ok().filter(|&c| c >= 1)?;
    if c < 0x80 {
        buf[0] = c;
        Some(&buf[..1])
    } else {
        *buf = [0xC0 | (c >> 6), 0x80 | (c & 0x3F)];
        Some(&buf[..])
    }
}

/// `SPLIT_INDEX(s, code, idx)` with an `Int32` separator (module docs).
fn split_index_code(s: &dyn Datum, code: IntArg<'_>, idx: &dyn Datum, check: bool) -> Result<StringArray> {
    let s = StrArg::new(s, "SPLIT_INDEX str")?;
    let idx = IntArg::new(idx, "SPLIT_INDEX index")?;
    let len = output_len(&[s.array_len(), code.array_len(), idx.array_len()])?;
    let mut buf = [0u8; 2];
    let scalar_sep = match code {
        IntArg::Scalar(Some(c)) => match code_separator(c, &mut buf) {
            Some(sep) => Some(sep),
            None => return Ok(StringArray::new_null(len)),
        },
        _ => None,
    };
    if s.is_null_scalar() || code.is_null_scalar() || idx.is_null_scalar() {
        return Ok(StringArray::new_null(len));
    }
    let in_nulls = union_nulls([s.nulls(), code.nulls(), idx.nulls()]);
    let mut out = Utf8Out::with_capacity(len, s.bytes_hint(len)).checked(check);
    let mut nulls = NullBufferBuilder::new(len);
    match scalar_sep {
        Some(p) => {
            let finder = Finder::new(p);
            let find = |h: &[u8], _: &[u8]| finder.find(h);
            let sep = StrArg::Scalar(Some(p));
            with_rows!(s, |h| split_rows(h, sep, idx, len, in_nulls.as_ref(), &find, &mut out, &mut nulls))?
        }
        None => with_rows!(s, |h| split_code_rows(h, code, idx, len, in_nulls.as_ref(), &mut out, &mut nulls))?,
    }
    out.finish_checked(nulls.finish())
}

/// The rows of [`split_index_code`] for a column of codes.
#[inline(never)]
fn split_code_rows<H: Rows>(
    s: H,
    code: IntArg<'_>,
    idx: IntArg<'_>,
    len: usize,
    in_nulls: Option<&arrow_buffer::NullBuffer>,
    out: &mut Utf8Out,
    nulls: &mut NullBufferBuilder,
) -> Result<()> {
    let find = |h: &[u8], n: &[u8]| memmem::find(h, n);
    let mut buf = [0u8; 2];
    for i in 0..len {
        let tok = if in_nulls.is_some_and(|n| n.is_null(i)) {
            None
        } else {
            code_separator(code.get(i), &mut buf).and_then(|sep| token(s.row(i), sep, idx.get(i), &find))
        };
        push_token(tok, out, nulls)?;
    }
    Ok(())
}

/// Appends one output row: the token, or NULL.
#[inline(always)]
fn push_token(tok: Option<&[u8]>, out: &mut Utf8Out, nulls: &mut NullBufferBuilder) -> Result<()> {
    match tok {
        Some(t) => {
            out.values.extend_from_slice(t);
            nulls.append_non_null();
        }
        None => nulls.append_null(),
    }
    out.end_row()
}

#[allow(clippy::too_many_arguments)]
#[inline(never)]
fn split_rows<H: Rows, F: Fn(&[u8], &[u8]) -> Option<usize>>(
    s: H,
    sep: StrArg<'_>,
    idx: IntArg<'_>,
    len: usize,
    in_nulls: Option<&arrow_buffer::NullBuffer>,
    find: &F,
    out: &mut Utf8Out,
    nulls: &mut NullBufferBuilder,
) -> Result<()> {
    for i in 0..len {
        let tok =
            if in_nulls.is_some_and(|n| n.is_null(i)) { None } else { token(s.row(i), sep.get(i), idx.get(i), find) };
        push_token(tok, out, nulls)?;
    }
    Ok(())
}

/// Token `idx` of `s` split by `sep`, or `None`.
#[inline]
fn token<'s, F: Fn(&[u8], &[u8]) -> Option<usize>>(s: &'s [u8], sep: &[u8], idx: i32, find: &F) -> Option<&'s [u8]> {
    if idx < 0 || s.is_empty() {
        return None;
    }
    if sep.is_empty() {
        return whitespace_token(s, idx as usize);
    }
    let mut pos = 0;
    for _ in 0..idx {
        pos += find(&s[pos..], sep)? + sep.len();
    }
    let end = find(&s[pos..], sep).map_or(s.len(), |o| pos + o);
    Some(&s[pos..end])
}

/// Token `idx` when splitting on each Java whitespace character.
fn whitespace_token(s: &[u8], idx: usize) -> Option<&[u8]> {
    let mut start = 0;
    let mut k = 0;
    let mut p = 0;
    while p < s.len() {
        let w = java_whitespace_len(s, p);
        if w > 0 {
            if k == idx {
                return Some(&s[start..p]);
            }
            k += 1;
            p += w;
            start = p;
        } else {
            p += 1;
        }
    }
    (k == idx).then(|| &s[start..])
}

/// If a `Character.isWhitespace` character starts at byte `p`, its UTF-8
/// length, else 0. The set (JDK 17): U+0009..U+000D, U+001C..U+001F,
/// U+0020, U+1680, U+2000..U+2006, U+2008..U+200A, U+2028, U+2029, U+205F,
/// U+3000 (space separators except the no-break ones, line and paragraph
/// separators, and those controls; not U+0085, not U+00A0).
///
/// Called at every byte; only lead bytes can start a match, and
/// continuation bytes never equal the lead bytes tested here.
#[inline(always)]
pub(crate) fn java_whitespace_len(s: &[u8], p: usize) -> usize {
    let b = s[p];
    let ws = match b {
        0x09..=0x0D | 0x1C..=0x20 => return 1,
        0xE1 => s.get(p + 1) == Some(&0x9A) && s.get(p + 2) == Some(&0x80),
        0xE2 => match (s.get(p + 1), s.get(p + 2)) {
            (Some(0x80), Some(&c)) => matches!(c, 0x80..=0x86 | 0x88..=0x8A | 0xA8 | 0xA9),
            (Some(0x81), Some(0x9F)) => true,
            _ => false,
        },
        0xE3 => s.get(p + 1) == Some(&0x80) && s.get(p + 2) == Some(&0x80),
        _ => false,
    };
    if ws {
        3
    } else {
        0
    }
}
