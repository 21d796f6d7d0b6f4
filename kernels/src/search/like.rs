//! `s LIKE pattern [ESCAPE 'c']` with Flink's exact semantics.
//!
//! Flink has two evaluation paths (`LikeCallGen`, `SqlLikeUtils`,
//! `SqlLikeChainChecker`):
//!
//! * a **literal** pattern without `_` (after un-escaping) takes a byte-level
//!   *quick path*: `equals`, `startsWith`, `endsWith`, `contains`, or the
//!   chain checker (anchored prefix, anchored suffix, ordered substrings);
//! * anything else becomes the Java regex of `sqlToRegexLike`, matched on the
//!   decoded string: `_` is `.` without DOTALL (one code point, but not
//!   `\n`, `\r`, U+0085, U+2028, U+2029), `%` is `(?s:.*)`.
//!
//! On UTF-8 input the two agree. The **empty pattern** matches only `''` on
//! both: the chain checker returns false early when the pattern is empty but
//! the input is not (`SqlLikeChainChecker.check`, `isEmptyPattern`; older
//! Flink trees matched every string there).
//!
//! Without an ESCAPE clause there is no escape character (backslash is an
//! ordinary character): the rule of Flink 1.20 and of FLINK-39424 (2.0–2.3).
//!
//! A pattern is compiled once into a [`LikePattern`]: a specialised plan
//! (exact / prefix / suffix / contains / match-all) or a chain of
//! `%`-separated segments, each a run of literal bytes and `_`. Segments are
//! placed left to right (prefix anchored at 0, suffix anchored at the end,
//! middles leftmost, found with `memchr::memmem`), which is exact for LIKE
//! because every segment matches a fixed number of characters. No regex, no
//! backtracking beyond one segment.

use arrow_array::{BooleanArray, Datum};
use arrow_buffer::{BooleanBuffer, BooleanBufferBuilder, NullBuffer};
use memchr::memmem::{self, Finder};

use super::args::{output_len, union_nulls, with_rows, Rows, StrArg};
use super::position::flink_char_len;
use crate::error::{Error, Result};

#[derive(Clone, Copy, Debug)]
enum Tok {
    /// `len` literal bytes at `start` in `lits`.
    Lit { start: u32, len: u32 },
    /// `_`: one character that is not a line terminator.
    One,
}

#[derive(Clone, Copy, Debug)]
struct Seg {
    /// Range of the segment's tokens in `toks`.
    start: u32,
    end: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    MatchAll,
    Exact,
    Prefix,
    Suffix,
    Contains,
    Chain,
}

/// Which of Flink's evaluations `LikeCallGen` picks for a **literal**
/// pattern; they differ only on values Flink still holds as Java Strings
/// (see [`super::java`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LiteralPath {
    /// `BinaryStringData.equals` with a `fromString` constant: Java
    /// `String.equals` when both sides hold a String.
    Equals,
    /// `startsWith` / `endsWith` / `contains` / `SqlLikeChainChecker`:
    /// materialized UTF-8 bytes.
    Bytes,
    /// `Pattern.compile(sqlToRegexLike(..)).matcher(s.toString())`: the Java
    /// String.
    Regex,
}

/// A compiled LIKE pattern.
///
/// ```
/// use sluice_kernels::search::LikePattern;
/// let p = LikePattern::new("a_c%", None).unwrap();
/// assert!(p.matches("abcdef".as_bytes()));
/// assert!(!p.matches("a\ncdef".as_bytes())); // `_` does not match a line terminator
/// ```
#[derive(Debug)]
pub struct LikePattern {
    kind: Kind,
    /// Un-escaped literal bytes of all segments.
    lits: Vec<u8>,
    toks: Vec<Tok>,
    /// Non-empty `%`-separated segments, in order.
    segs: Vec<Seg>,
    /// The pattern has no `%` at all.
    no_star: bool,
    /// The pattern does not start / end with `%`.
    anchored_start: bool,
    anchored_end: bool,
    /// Fewest bytes a matching string has.
    min_len: usize,
    /// For a literal pattern: a searcher for the contains-plan literal.
    contains: Option<Finder<'static>>,
    /// For a literal pattern: a searcher per segment that starts with a
    /// literal run (indexed like `segs`).
    seg_finders: Vec<Option<Finder<'static>>>,
    /// Flink's evaluation of this pattern as a literal.
    path: LiteralPath,
}

impl LikePattern {
    /// Compiles a **literal** pattern, as Flink's generated code does for
    /// `s LIKE 'pattern'` (`LikeCallGen`): the empty pattern matches only
    /// `''`. `escape` is the ESCAPE character;
    /// `None` means no escape character at all.
    ///
    /// # Errors
    /// [`Error::Flink`] with Flink's message for an escape character not
    /// followed by `_`, `%` or itself (`Invalid escape sequence '…', i`, `i`
    /// in UTF-16 units), for escape `'\0'` on the regex path, and for an
    /// escape outside the BMP (`Invalid escape character '…'`).
    pub fn new(pattern: &str, escape: Option<char>) -> Result<Self> {
        let mut p = Self::empty();
        p.compile(pattern, escape, false, true)?;
        Ok(p)
    }

    /// Compiles a pattern as Flink evaluates a **non-literal** pattern
    /// (`SqlLikeUtils.like`, a regex): like [`new`](Self::new) except that
    /// an escape of `'\0'` is rejected as on Flink's regex path.
    ///
    /// # Errors
    /// As [`new`](Self::new).
    pub fn new_dynamic(pattern: &str, escape: Option<char>) -> Result<Self> {
        let mut p = Self::empty();
        p.compile(pattern, escape, true, true)?;
        Ok(p)
    }

    fn empty() -> Self {
        LikePattern {
            kind: Kind::MatchAll,
            lits: Vec::new(),
            toks: Vec::new(),
            segs: Vec::new(),
            no_star: true,
            anchored_start: true,
            anchored_end: true,
            min_len: 0,
            contains: None,
            seg_finders: Vec::new(),
            path: LiteralPath::Bytes,
        }
    }

    /// Flink's evaluation of this pattern as a literal (`LikeCallGen`:
    /// `allowQuick` is false for a bare `_` or an escaped `%`; the quick path
    /// uses `equals` for a pattern without `%`, which `NONE_PATTERN`
    /// `[^%]+` requires to be non-empty).
    pub(crate) fn literal_path(&self) -> LiteralPath {
        self.path
    }

    /// (Re)compiles into `self`, reusing its buffers.
    fn compile(&mut self, pattern: &str, escape: Option<char>, dynamic: bool, finders: bool) -> Result<()> {
        if let Some(e) = escape {
            // LikeCallGen / sqlToRegexLike take a one-UTF-16-unit escape
            // string: a supplementary character is two units and fails.
            if e.len_utf16() != 1 {
                return Err(invalid_escape_character(e.encode_utf8(&mut [0; 4])));
            }
        }
        self.lits.clear();
        self.toks.clear();
        self.segs.clear();
        self.seg_finders.clear();
        self.contains = None;
        let mut has_one = false;
        let mut escaped_percent = false;
        let mut stars = 0usize;
        let mut seg_start = 0usize;
        let mut utf16_idx = 0usize;
        let mut chars = pattern.chars().peekable();
        let mut seen = false;
        self.anchored_start = true;
        self.anchored_end = true;
        while let Some(c) = chars.next() {
            let at = utf16_idx;
            utf16_idx += c.len_utf16();
            let first = !seen;
            seen = true;
            self.anchored_end = true;
            // SqlLikeUtils.sqlToRegexLike / LikeCallGen: the escape check
            // comes first, so an escape of `_` or `%` works too.
            if escape == Some(c) {
                match chars.next() {
                    Some(n) if n == '_' || n == '%' || Some(n) == escape => {
                        utf16_idx += n.len_utf16();
                        escaped_percent |= n == '%';
                        self.push_lit(n, seg_start);
                    }
                    _ => {
                        return Err(Error::Flink(format!("Invalid escape sequence '{pattern}', {at}")));
                    }
                }
            } else if c == '_' {
                has_one = true;
                self.toks.push(Tok::One);
            } else if c == '%' {
                if first {
                    self.anchored_start = false;
                }
                stars += 1;
                self.anchored_end = false;
                if self.toks.len() > seg_start {
                    self.segs.push(Seg { start: seg_start as u32, end: self.toks.len() as u32 });
                }
                seg_start = self.toks.len();
            } else {
                self.push_lit(c, seg_start);
            }
        }
        if self.toks.len() > seg_start {
            self.segs.push(Seg { start: seg_start as u32, end: self.toks.len() as u32 });
        }
        self.no_star = stars == 0;
        // The regex path (`sqlToRegexLike`) rejects escape '\0'.
        if escape == Some('\0') && (dynamic || has_one || escaped_percent) {
            return Err(Error::Flink("Invalid escape character '\0'".to_string()));
        }
        self.min_len = self
            .toks
            .iter()
            .map(|t| match t {
                Tok::Lit { len, .. } => *len as usize,
                Tok::One => 1,
            })
            .sum();
        self.kind = if has_one {
            Kind::Chain
        } else if self.segs.is_empty() {
            if self.no_star {
                // The empty pattern matches only ''. Regex path: regex ''.
                // Literal path: SqlLikeChainChecker.check returns false
                // early when "the pattern is empty but the input is not"
                // (its `isEmptyPattern` flag, kept by FLINK-39396). Older
                // trees matched every string here; current Flink and the SQL
                // standard do not.
                Kind::Exact
            } else {
                // Only `%`s: matches every string.
                Kind::MatchAll
            }
        } else if self.segs.len() == 1 {
            match (self.no_star, self.anchored_start, self.anchored_end) {
                (true, _, _) => Kind::Exact,
                (false, true, false) => Kind::Prefix,
                (false, false, true) => Kind::Suffix,
                (false, false, false) => Kind::Contains,
                (false, true, true) => Kind::Chain,
            }
        } else {
            Kind::Chain
        };
        self.path = if has_one || escaped_percent {
            LiteralPath::Regex
        } else if self.kind == Kind::Exact && !self.lits.is_empty() {
            LiteralPath::Equals
        } else {
            LiteralPath::Bytes
        };
        if finders {
            if self.kind == Kind::Contains {
                self.contains = Some(Finder::new(&self.lits[..]).into_owned());
            }
            if self.kind == Kind::Chain {
                for seg in &self.segs {
                    let f = match self.toks[seg.start as usize] {
                        Tok::Lit { start, len } => {
                            Some(Finder::new(&self.lits[start as usize..(start + len) as usize]).into_owned())
                        }
                        Tok::One => None,
                    };
                    self.seg_finders.push(f);
                }
            }
        }
        Ok(())
    }

    fn push_lit(&mut self, c: char, seg_start: usize) {
        let mut buf = [0u8; 4];
        let b = c.encode_utf8(&mut buf).as_bytes();
        let start = self.lits.len() as u32;
        self.lits.extend_from_slice(b);
        if self.toks.len() > seg_start {
            if let Some(Tok::Lit { start: s, len }) = self.toks.last_mut() {
                if *s + *len == start {
                    *len += b.len() as u32;
                    return;
                }
            }
        }
        self.toks.push(Tok::Lit { start, len: b.len() as u32 });
    }

    #[inline(always)]
    fn lit(&self, start: u32, len: u32) -> &[u8] {
        &self.lits[start as usize..(start + len) as usize]
    }

    /// Whether `s` (UTF-8 bytes) matches.
    #[inline]
    pub fn matches(&self, s: &[u8]) -> bool {
        match self.kind {
            Kind::MatchAll => true,
            Kind::Exact => s == &self.lits[..],
            Kind::Prefix => s.starts_with(&self.lits),
            Kind::Suffix => s.ends_with(&self.lits),
            Kind::Contains => match &self.contains {
                Some(f) => f.find(s).is_some(),
                None => memmem::find(s, &self.lits).is_some(),
            },
            Kind::Chain => self.matches_chain(s),
        }
    }

    fn matches_chain(&self, s: &[u8]) -> bool {
        if s.len() < self.min_len {
            return false;
        }
        let mut segs = &self.segs[..];
        let mut finders = &self.seg_finders[..];
        if self.no_star {
            return match segs.first() {
                Some(seg) => self.match_fwd(*seg, s, 0, s.len()) == Some(s.len()),
                None => s.is_empty(),
            };
        }
        let (mut lo, mut hi) = (0, s.len());
        if self.anchored_start {
            let Some((seg, rest)) = segs.split_first() else { return false };
            match self.match_fwd(*seg, s, 0, hi) {
                Some(e) => lo = e,
                None => return false,
            }
            segs = rest;
            finders = finders.get(1..).unwrap_or(&[]);
        }
        if self.anchored_end {
            let Some((seg, rest)) = segs.split_last() else { return false };
            match self.match_bwd(*seg, s, lo, hi) {
                Some(b) => hi = b,
                None => return false,
            }
            segs = rest;
        }
        for (k, seg) in segs.iter().enumerate() {
            match self.find_seg(*seg, finders.get(k).and_then(|f| f.as_ref()), s, lo, hi) {
                Some(e) => lo = e,
                None => return false,
            }
        }
        true
    }

    /// Matches segment `seg` at `pos`, not past `hi`; returns its end.
    #[inline]
    fn match_fwd(&self, seg: Seg, s: &[u8], mut pos: usize, hi: usize) -> Option<usize> {
        for t in &self.toks[seg.start as usize..seg.end as usize] {
            match *t {
                Tok::Lit { start, len } => {
                    let end = pos + len as usize;
                    if end > hi || s[pos..end] != *self.lit(start, len) {
                        return None;
                    }
                    pos = end;
                }
                Tok::One => {
                    if pos >= hi || is_line_terminator(s, pos) {
                        return None;
                    }
                    pos += flink_char_len(s[pos]);
                    if pos > hi {
                        return None;
                    }
                }
            }
        }
        Some(pos)
    }

    /// Matches segment `seg` ending exactly at `hi`, not before `lo`;
    /// returns its start.
    #[inline]
    fn match_bwd(&self, seg: Seg, s: &[u8], lo: usize, mut hi: usize) -> Option<usize> {
        for t in self.toks[seg.start as usize..seg.end as usize].iter().rev() {
            match *t {
                Tok::Lit { start, len } => {
                    let len = len as usize;
                    if hi < lo + len || s[hi - len..hi] != *self.lit(start, len as u32) {
                        return None;
                    }
                    hi -= len;
                }
                Tok::One => {
                    if hi <= lo {
                        return None;
                    }
                    let mut p = hi - 1;
                    while p > lo && s[p] & 0xC0 == 0x80 {
                        p -= 1;
                    }
                    if is_line_terminator(s, p) {
                        return None;
                    }
                    hi = p;
                }
            }
        }
        Some(hi)
    }

    /// Leftmost match of `seg` inside `[lo, hi)`; returns its end.
    #[inline]
    fn find_seg(&self, seg: Seg, finder: Option<&Finder<'_>>, s: &[u8], lo: usize, hi: usize) -> Option<usize> {
        let mut at = lo;
        match self.toks[seg.start as usize] {
            Tok::Lit { start, len } => loop {
                let window = s.get(at..hi)?;
                let off = match finder {
                    Some(f) => f.find(window),
                    None => memmem::find(window, self.lit(start, len)),
                }?;
                let cand = at + off;
                if let Some(e) = self.match_fwd(seg, s, cand, hi) {
                    return Some(e);
                }
                at = cand + 1;
            },
            Tok::One => {
                while at < hi {
                    if let Some(e) = self.match_fwd(seg, s, at, hi) {
                        return Some(e);
                    }
                    at += flink_char_len(s[at]);
                }
                None
            }
        }
    }
}

/// Line terminators of `java.util.regex` without DOTALL / UNIX_LINES: `.`
/// does not match them.
#[inline(always)]
fn is_line_terminator(s: &[u8], p: usize) -> bool {
    match s[p] {
        b'\n' | b'\r' => true,
        0xC2 => s.get(p + 1) == Some(&0x85),
        0xE2 => s.get(p + 1) == Some(&0x80) && matches!(s.get(p + 2), Some(0xA8 | 0xA9)),
        _ => false,
    }
}

/// `s LIKE pattern [ESCAPE escape]`.
///
/// * A **scalar** pattern is Flink's literal pattern (`LikeCallGen`):
///   compiled once, quick-path semantics; `''` matches only `''`.
/// * An **array** pattern is Flink's non-literal pattern
///   (`SqlLikeUtils.like`): regex semantics per row; `''` matches only `''`.
///   Each row's pattern is compiled into one reused buffer, and only when it
///   differs from the previous row's.
/// * `escape = None`: no escape character.
/// * Any NULL operand gives NULL.
///
/// # Errors
/// Invalid escape sequences ([`Error::Flink`] with Flink's message; for an
/// array pattern only on rows where both operands are non-NULL), argument
/// type or length errors.
///
/// # Example
/// ```
/// use arrow_array::{BooleanArray, Scalar, StringArray};
/// use sluice_kernels::search::like;
/// let s = StringArray::from(vec![Some("apple"), None, Some("grape")]);
/// let out = like(&s, &Scalar::new(StringArray::from(vec!["%pp%"])), None).unwrap();
/// assert_eq!(out, BooleanArray::from(vec![Some(true), None, Some(false)]));
/// ```
pub fn like(s: &dyn Datum, pattern: &dyn Datum, escape: Option<char>) -> Result<BooleanArray> {
    let s = StrArg::new(s, "LIKE string")?;
    let p = StrArg::new(pattern, "LIKE pattern")?;
    let len = output_len(&[s.array_len(), p.array_len()])?;
    if s.is_null_scalar() || p.is_null_scalar() {
        return Ok(BooleanArray::new_null(len));
    }
    let nulls = union_nulls([s.nulls(), p.nulls()]);
    let values = match p.scalar() {
        Some(pb) => {
            let pat = LikePattern::new(as_str(pb, 0)?, escape)?;
            with_rows!(s, |h| like_scalar(h, &pat, len))
        }
        None => with_rows!(s, |h| like_dynamic(h, p, escape, len, nulls.as_ref()))?,
    };
    Ok(BooleanArray::new(values, nulls))
}

/// `s LIKE pattern [ESCAPE escape]` with the ESCAPE clause as the string it
/// is in SQL: `None` (no clause) or any string, valid or not.
///
/// An escape of exactly one UTF-16 unit behaves as [`like`]. Any other
/// (`''`, `'ab'`, a supplementary character) is Flink's invalid escape:
///
/// * a NULL scalar string or pattern gives NULL on every row (Calcite folds
///   a strict call with a NULL literal operand to NULL before code
///   generation);
/// * a **scalar** pattern (Flink's literal pattern) fails the whole call:
///   `LikeCallGen` throws `SqlLikeUtils.invalidEscapeCharacter` while it
///   generates the code, before any row is read;
/// * an **array** pattern (Flink's non-literal pattern, `SqlLikeUtils.like`
///   per row under `generateCallIfArgsNotNull`) gives NULL on the rows
///   whose string or pattern is NULL, and fails the call if any other row
///   exists, as the first such row fails Flink's job.
///
/// The message is Flink's, `Invalid escape character '<escape>'`
/// (`SqlLikeUtils.invalidEscapeCharacter`, flink-table-api-java, 1.20 and
/// 2.x). Known differences on Flink 2.x's literal path only (`LikeCallGen`
/// after FLINK-36100): an escape `''` fails there with a
/// `StringIndexOutOfBoundsException` (`escape.charAt(-1)`) rather than this
/// message, and a two-character escape starting with a backslash (`'\\x'`)
/// is accepted there as the escape `x`; 1.20 and every non-literal pattern
/// reject both as here.
///
/// # Errors
/// As [`like`], and the invalid escape above.
///
/// # Example
/// ```
/// use arrow_array::{Array, StringArray};
/// use sluice_kernels::search::like_with_escape;
/// let s = StringArray::from(vec![Some("a"), None]);
/// let p = StringArray::from(vec![None, Some("a")]);
/// // every row has a NULL operand: NULL, no error
/// let out = like_with_escape(&s, &p, Some("ab")).unwrap();
/// assert_eq!(out.null_count(), 2);
/// let p = StringArray::from(vec![Some("a"), Some("a")]);
/// let err = like_with_escape(&s, &p, Some("ab")).unwrap_err();
/// assert_eq!(err.to_string(), "Invalid escape character 'ab'");
/// ```
pub fn like_with_escape(s: &dyn Datum, pattern: &dyn Datum, escape: Option<&str>) -> Result<BooleanArray> {
    let Some(e) = escape else { return like(s, pattern, None) };
    if let Some(c) = one_unit_escape(e) {
        return like(s, pattern, Some(c));
    }
    let sa = StrArg::new(s, "LIKE string")?;
    let p = StrArg::new(pattern, "LIKE pattern")?;
    let len = output_len(&[sa.array_len(), p.array_len()])?;
    if sa.is_null_scalar() || p.is_null_scalar() {
        return Ok(BooleanArray::new_null(len));
    }
    let nulls = union_nulls([sa.nulls(), p.nulls()]);
    let evaluated = nulls.as_ref().map_or(len, |n| len - n.null_count());
    if p.scalar().is_some() || evaluated > 0 {
        return Err(invalid_escape_character(e));
    }
    Ok(BooleanArray::new_null(len))
}

/// The escape character of an ESCAPE string Flink accepts: exactly one
/// UTF-16 unit (`SqlLikeUtils.sqlToRegexLike`: `escapeStr.length() != 1`
/// throws).
pub(crate) fn one_unit_escape(e: &str) -> Option<char> {
    let mut chars = e.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) if c.len_utf16() == 1 => Some(c),
        _ => None,
    }
}

/// `SqlLikeUtils.invalidEscapeCharacter(s)`.
pub(crate) fn invalid_escape_character(e: &str) -> Error {
    Error::Flink(format!("Invalid escape character '{e}'"))
}

fn as_str(b: &[u8], row: usize) -> Result<&str> {
    std::str::from_utf8(b).map_err(|e| Error::InvalidUtf8 { row, valid_up_to: e.valid_up_to() })
}

/// One loop per plan, so that the per-row work is only the search itself.
/// NULL rows are evaluated too (hidden by the mask): no branch per row.
#[inline(never)]
fn like_scalar<H: Rows>(h: H, pat: &LikePattern, len: usize) -> BooleanBuffer {
    let lit = &pat.lits[..];
    match (pat.kind, &pat.contains) {
        (Kind::MatchAll, _) => BooleanBuffer::new_set(len),
        (Kind::Exact, _) => BooleanBuffer::collect_bool(len, |i| h.row(i) == lit),
        (Kind::Prefix, _) => BooleanBuffer::collect_bool(len, |i| h.row(i).starts_with(lit)),
        (Kind::Suffix, _) => BooleanBuffer::collect_bool(len, |i| h.row(i).ends_with(lit)),
        (Kind::Contains, Some(f)) => BooleanBuffer::collect_bool(len, |i| f.find(h.row(i)).is_some()),
        (Kind::Chain, _) => BooleanBuffer::collect_bool(len, |i| pat.matches_chain(h.row(i))),
        _ => BooleanBuffer::collect_bool(len, |i| pat.matches(h.row(i))),
    }
}

#[inline(never)]
fn like_dynamic<H: Rows>(
    h: H,
    p: StrArg<'_>,
    escape: Option<char>,
    len: usize,
    nulls: Option<&NullBuffer>,
) -> Result<BooleanBuffer> {
    let mut out = BooleanBufferBuilder::new(len);
    let mut pat = LikePattern::empty();
    let mut prev: Option<&[u8]> = None;
    for i in 0..len {
        if nulls.is_some_and(|n| n.is_null(i)) {
            out.append(false);
            continue;
        }
        let pb = p.get(i);
        if prev != Some(pb) {
            pat.compile(as_str(pb, i)?, escape, true, false)?;
            prev = Some(pb);
        }
        out.append(pat.matches(h.row(i)));
    }
    Ok(out.finish())
}
