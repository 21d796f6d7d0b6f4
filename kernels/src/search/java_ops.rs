//! Flink's search functions on one Java `String` (UTF-16 code units, where
//! an unpaired surrogate is a character of its own), for the rows of
//! [`super::java`] that the UTF-8 kernels cannot reproduce.
//!
//! | function | Flink / JDK source followed |
//! | --- | --- |
//! | [`replace_units`] | `SqlFunctionUtils.replace` = JDK `String.replace(CharSequence, CharSequence)` |
//! | [`split_units`] | `SqlFunctionUtils.splitIndex(String, String, int)` / `(String, int, int)`, commons-lang3 `splitByWholeSeparatorPreserveAllTokens` / `splitPreserveAllTokens` |
//! | [`LikeUnits`] | `SqlLikeUtils.sqlToRegexLike` + `java.util.regex.Pattern.matches` |
//!
//! These are plain loops, not the SIMD kernels: they only run on the rare
//! rows that hold an unpaired surrogate, and reuse their buffers.

use crate::error::{Error, Result};

/// Whether `units` holds a surrogate that is not half of a pair (Flink's
/// `StringUtf8Utils.encodeUTF8` turns each such unit into `?`).
pub fn has_unpaired_surrogate(units: &[u16]) -> bool {
    let mut i = 0;
    while i < units.len() {
        match units[i] {
            0xD800..=0xDBFF if matches!(units.get(i + 1), Some(0xDC00..=0xDFFF)) => i += 2,
            0xD800..=0xDFFF => return true,
            _ => i += 1,
        }
    }
    false
}

/// JDK `s.replace(old, new)`: an empty `old` puts `new` before every code
/// unit and at the end (splitting a surrogate pair); otherwise every
/// non-overlapping occurrence of the code units of `old`, left to right, is
/// replaced (so a lone surrogate in `old` matches half of a pair in `s`).
pub fn replace_units(s: &[u16], old: &[u16], new: &[u16], out: &mut Vec<u16>) {
    if old.is_empty() {
        out.extend_from_slice(new);
        for &u in s {
            out.push(u);
            out.extend_from_slice(new);
        }
        return;
    }
    let mut last = 0;
    let mut at = 0;
    while let Some(off) = find_units(&s[at..], old) {
        let m = at + off;
        out.extend_from_slice(&s[last..m]);
        out.extend_from_slice(new);
        last = m + old.len();
        at = last;
    }
    out.extend_from_slice(&s[last..]);
}

/// `String.indexOf(String)` on code units.
fn find_units(h: &[u16], n: &[u16]) -> Option<usize> {
    if n.len() > h.len() {
        return None;
    }
    h.windows(n.len()).position(|w| w == n)
}

/// `Character.isWhitespace` of a UTF-16 unit (no surrogate is whitespace);
/// the set of `split::java_whitespace_len`.
fn is_java_whitespace(u: u16) -> bool {
    matches!(u, 0x09..=0x0D | 0x1C..=0x20 | 0x1680 | 0x2000..=0x2006 | 0x2008..=0x200A | 0x2028 | 0x2029 | 0x205F | 0x3000)
}

/// Token `idx` of `s` split by `sep` with every token kept
/// (`splitByWholeSeparatorPreserveAllTokens`; an empty `sep` splits on each
/// `Character.isWhitespace` unit), or `None`: `idx < 0`, `s` empty (no
/// tokens), or `idx` past the last token. A one-unit `sep` is also
/// `splitPreserveAllTokens(s, (char) code)`, which keeps the same tokens.
pub fn split_units<'s>(s: &'s [u16], sep: &[u16], idx: i32) -> Option<&'s [u16]> {
    let idx = usize::try_from(idx).ok()?;
    if s.is_empty() {
        return None;
    }
    let mut start = 0;
    let mut k = 0;
    if sep.is_empty() {
        for (p, &u) in s.iter().enumerate() {
            if is_java_whitespace(u) {
                if k == idx {
                    return Some(&s[start..p]);
                }
                k += 1;
                start = p + 1;
            }
        }
    } else {
        while let Some(off) = find_units(&s[start..], sep) {
            if k == idx {
                return Some(&s[start..start + off]);
            }
            k += 1;
            start += off + sep.len();
        }
    }
    (k == idx).then(|| &s[start..])
}

/// One element of a LIKE pattern as `sqlToRegexLike` turns it into a Java
/// regex, matched by code point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tok {
    /// A literal code point (an unpaired surrogate is its own code point).
    Lit(u32),
    /// `_` → `.`: one code point that is not a line terminator.
    One,
    /// `%` → `(?s:.*)`.
    Any,
}

/// A LIKE pattern compiled for Java Strings, with reusable buffers.
#[derive(Debug, Default)]
pub struct LikeUnits {
    toks: Vec<Tok>,
    lit: Vec<u16>,
    cps: Vec<u32>,
}

impl LikeUnits {
    /// `Pattern.matches(sqlToRegexLike(pattern, escape), s)`. `escape` must
    /// already be valid (one unit, not `'\0'`; the callers check it).
    ///
    /// # Errors
    /// [`Error::Flink`] `Invalid escape sequence '<pattern>', <i>` (`i` in
    /// code units; the pattern shown with each unpaired surrogate as `?`).
    pub fn matches(&mut self, s: &[u16], pattern: &[u16], escape: Option<u16>) -> Result<bool> {
        self.compile(pattern, escape)?;
        self.cps.clear();
        self.cps.extend(char::decode_utf16(s.iter().copied()).map(code_point));
        Ok(glob(&self.toks, &self.cps))
    }

    fn compile(&mut self, p: &[u16], escape: Option<u16>) -> Result<()> {
        self.toks.clear();
        self.lit.clear();
        let mut i = 0;
        while i < p.len() {
            let c = p[i];
            if Some(c) == escape {
                match p.get(i + 1) {
                    // The escaped character goes into the regex as itself
                    // (quoted if special): a literal.
                    Some(&n) if n == u16::from(b'_') || n == u16::from(b'%') || Some(n) == escape => {
                        self.lit.push(n);
                        i += 2;
                        continue;
                    }
                    _ => return Err(invalid_escape_sequence(p, i)),
                }
            }
            if c == u16::from(b'_') || c == u16::from(b'%') {
                self.flush();
                self.toks.push(if c == u16::from(b'_') { Tok::One } else { Tok::Any });
            } else {
                self.lit.push(c);
            }
            i += 1;
        }
        self.flush();
        Ok(())
    }

    /// Literal units → code points: adjacent literal units of the regex
    /// string pair up as `Pattern.compile` reads them.
    fn flush(&mut self) {
        self.toks.extend(char::decode_utf16(self.lit.drain(..)).map(|r| Tok::Lit(code_point(r))));
    }
}

fn code_point(r: std::result::Result<char, std::char::DecodeUtf16Error>) -> u32 {
    match r {
        Ok(c) => c as u32,
        Err(e) => u32::from(e.unpaired_surrogate()),
    }
}

/// Java's `.` without DOTALL: not `\n`, `\r`, U+0085, U+2028, U+2029.
fn is_line_terminator(c: u32) -> bool {
    matches!(c, 0x0A | 0x0D | 0x85 | 0x2028 | 0x2029)
}

/// Whole-string match of tokens that each consume one code point, or any
/// run (`Any`): the classic wildcard walk that backtracks only to the last
/// `Any`, exact for such patterns.
fn glob(toks: &[Tok], s: &[u32]) -> bool {
    let (mut si, mut ti) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while si < s.len() {
        match toks.get(ti) {
            Some(Tok::Any) => {
                star = Some((ti + 1, si));
                ti += 1;
                continue;
            }
            Some(Tok::One) if !is_line_terminator(s[si]) => {
                si += 1;
                ti += 1;
                continue;
            }
            Some(Tok::Lit(c)) if *c == s[si] => {
                si += 1;
                ti += 1;
                continue;
            }
            _ => {}
        }
        match star {
            Some((t, from)) => {
                ti = t;
                si = from + 1;
                star = Some((t, from + 1));
            }
            None => return false,
        }
    }
    toks[ti..].iter().all(|t| *t == Tok::Any)
}

/// `SqlLikeUtils.invalidEscapeSequence(s, i)`.
fn invalid_escape_sequence(p: &[u16], i: usize) -> Error {
    let mut shown = Vec::with_capacity(p.len());
    crate::encode::encode_utf16_into(p, &mut shown);
    Error::Flink(format!("Invalid escape sequence '{}', {i}", String::from_utf8_lossy(&shown)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u(s: &str) -> Vec<u16> {
        s.encode_utf16().collect()
    }

    #[test]
    fn unpaired_surrogates_are_found() {
        assert!(!has_unpaired_surrogate(&u("a😀b")));
        assert!(has_unpaired_surrogate(&[0xD800]));
        assert!(has_unpaired_surrogate(&[0x61, 0xDC00]));
        assert!(has_unpaired_surrogate(&[0xDE00, 0xD83D])); // reversed pair
        assert!(!has_unpaired_surrogate(&[0xD83D, 0xDE00]));
    }

    #[test]
    fn replace_sees_code_units() {
        // JDK: "😀".replace("\uDE00", "X") is "\uD83DX".
        let mut out = Vec::new();
        replace_units(&u("😀"), &[0xDE00], &u("X"), &mut out);
        assert_eq!(out, vec![0xD83D, u16::from(b'X')]);
        out.clear();
        replace_units(&u("ab"), &[], &u("x"), &mut out);
        assert_eq!(out, u("xaxbx"));
        out.clear();
        replace_units(&u("aaa"), &u("aa"), &u("b"), &mut out);
        assert_eq!(out, u("ba"));
    }

    #[test]
    fn split_keeps_every_token() {
        let s = u("a,,b,");
        let tok = |i| split_units(&s, &u(","), i).map(String::from_utf16_lossy);
        assert_eq!(
            (tok(0), tok(1), tok(2), tok(3), tok(4)),
            (Some("a".into()), Some("".into()), Some("b".into()), Some("".into()), None)
        );
        assert_eq!(split_units(&[], &u(","), 0), None);
        assert_eq!(split_units(&u("a b"), &[], 1), Some(&u("b")[..]));
        // a lone low surrogate splits a pair's second half off
        assert_eq!(split_units(&u("x😀y"), &[0xDE00], 0), Some(&[u16::from(b'x'), 0xD83D][..]));
        assert_eq!(split_units(&u("a"), &u(","), -1), None);
    }

    #[test]
    fn like_matches_code_points() {
        let mut l = LikeUnits::default();
        // '\uD800' LIKE '?' is false on the Java String; '_' matches it.
        assert!(!l.matches(&[0xD800], &u("?"), None).unwrap());
        assert!(l.matches(&[0xD800], &u("_"), None).unwrap());
        assert!(l.matches(&u("😀"), &u("_"), None).unwrap());
        assert!(!l.matches(&u("😀"), &[0xD83D, u16::from(b'%')], None).unwrap());
        assert!(l.matches(&u("a\u{1}b_c"), &u("a%!_c"), Some(u16::from(b'!'))).unwrap());
        assert!(!l.matches(&u("a\nb"), &u("a_b"), None).unwrap());
        assert!(l.matches(&u("a\nb"), &u("a%b"), None).unwrap());
        assert!(l.matches(&u("abcbcd"), &u("a%bcd"), None).unwrap());
        let e = l.matches(&u("a"), &u("a!"), Some(u16::from(b'!'))).unwrap_err();
        assert_eq!(e.to_string(), "Invalid escape sequence 'a!', 1");
    }
}
