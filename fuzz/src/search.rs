//! `sluice_kernels::search`: POSITION, LOCATE, LIKE, REPLACE, SPLIT_INDEX
//! (and INSTR for panics only) vs naive references of the Flink/Java code
//! they follow, written plainly over `char`s / UTF-16 units below:
//!
//! * LOCATE = `BinaryStringData.indexOf(needle, from - 1) + 1` (Java `int`
//!   wrap of `from - 1`), characters = code points;
//! * LIKE = `SqlLikeUtils.sqlToRegexLike` semantics by dynamic programming
//!   (`_` one code point but no Java line terminator, `%` anything, escapes
//!   only before `_`, `%` or the escape itself, else Flink's error); the
//!   empty pattern matches only `''`, literal or not (the chain checker
//!   returns early on an empty pattern with a non-empty input);
//! * REPLACE = Java `String.replace` on UTF-16 units, re-encoded with each
//!   unpaired surrogate as `?`;
//! * SPLIT_INDEX = commons-lang3 `splitByWholeSeparatorPreserveAllTokens`
//!   (`sep = ''` splits on each `Character.isWhitespace`, Java 11+).
//!
//! Every argument may be a scalar or a column of any layout with NULLs.

use arbitrary::Arbitrary;
use arrow_array::{Array, BooleanArray, Int32Array, StringArray};
use sluice_kernels::search::{self, LikePattern};
use sluice_kernels::Error;

use crate::encode_utf16::reference as encode_java;
use crate::text::{output_rows, IntArg, StrArg};

/// One call of each function over the same arguments.
#[derive(Arbitrary, Debug, Clone)]
pub struct Input {
    /// Rows of the column arguments (mod 16).
    pub rows: u8,
    /// The string (`s` / haystack).
    pub s: StrArg,
    /// Needle / `old` / pattern / separator.
    pub needle: StrArg,
    /// `new` of REPLACE.
    pub new: StrArg,
    /// `from` of LOCATE / `idx` of SPLIT_INDEX / `start` of INSTR.
    pub int: IntArg,
    /// `nth` of INSTR.
    pub nth: IntArg,
    /// ESCAPE: none, `\`, `#`, `a`, `ñ`.
    pub escape: u8,
    /// Pass `from` to LOCATE.
    pub with_from: bool,
}

/// `BinaryStringData.indexOf(needle, from)` on code points: index or -1.
fn index_of(hay: &[char], needle: &[char], from: i32) -> i64 {
    if needle.is_empty() {
        return 0;
    }
    let start = (from.max(0) as usize).min(hay.len());
    (start..hay.len()).find(|&i| hay[i..].starts_with(needle)).map_or(-1, |i| i as i64)
}

fn chars(s: &str) -> Vec<char> {
    s.chars().collect()
}

/// `SqlFunctionUtils.position(seek, s, from)`.
fn locate_ref(needle: &str, hay: &str, from: i32) -> i32 {
    (index_of(&chars(hay), &chars(needle), from.wrapping_sub(1)) + 1) as i32
}

#[derive(Clone, Copy, PartialEq, Debug)]
enum Tok {
    Lit(char),
    One,
    Any,
}

/// `sqlToRegexLike`'s parse: tokens, or the index of a bad escape.
fn like_tokens(pattern: &str, escape: Option<char>) -> Result<Vec<Tok>, usize> {
    let cs = chars(pattern);
    let mut toks = Vec::new();
    let mut i = 0;
    // Flink reports the position in UTF-16 units.
    let unit_pos = |i: usize| cs[..i].iter().map(|c| c.len_utf16()).sum::<usize>();
    while i < cs.len() {
        let c = cs[i];
        if Some(c) == escape {
            match cs.get(i + 1) {
                Some(&n) if n == '_' || n == '%' || Some(n) == escape => {
                    toks.push(Tok::Lit(n));
                    i += 2;
                    continue;
                }
                _ => return Err(unit_pos(i)),
            }
        }
        toks.push(match c {
            '_' => Tok::One,
            '%' => Tok::Any,
            c => Tok::Lit(c),
        });
        i += 1;
    }
    Ok(toks)
}

fn is_line_terminator(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

/// Whole-string match of `toks` against `s`, by dynamic programming.
fn like_match(toks: &[Tok], s: &[char]) -> bool {
    // m[j] = toks[..i] matches s[..j]
    let mut m = vec![false; s.len() + 1];
    m[0] = true;
    for t in toks {
        let mut next = vec![false; s.len() + 1];
        for j in 0..=s.len() {
            next[j] = match t {
                Tok::Any => m[j] || (j > 0 && next[j - 1]),
                Tok::One => j > 0 && m[j - 1] && !is_line_terminator(s[j - 1]),
                Tok::Lit(c) => j > 0 && m[j - 1] && s[j - 1] == *c,
            };
        }
        m = next;
    }
    m[s.len()]
}

/// Java `s.replace(old, new)`, re-encoded as Flink does.
fn replace_ref(s: &str, old: &str, new: &str) -> Vec<u8> {
    let s: Vec<u16> = s.encode_utf16().collect();
    let old: Vec<u16> = old.encode_utf16().collect();
    let new: Vec<u16> = new.encode_utf16().collect();
    let mut out = Vec::new();
    if old.is_empty() {
        out.extend_from_slice(&new);
        for u in &s {
            out.push(*u);
            out.extend_from_slice(&new);
        }
    } else {
        let mut i = 0;
        while i < s.len() {
            if s[i..].starts_with(&old) {
                out.extend_from_slice(&new);
                i += old.len();
            } else {
                out.push(s[i]);
                i += 1;
            }
        }
    }
    encode_java(&out)
}

/// Java 11+ `Character.isWhitespace` (Unicode 10+: U+180E is not a space).
fn java_whitespace(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | '\u{1c}' | '\u{1d}' | '\u{1e}' | '\u{1f}'
            | ' ' | '\u{1680}' | '\u{2000}'..='\u{2006}' | '\u{2008}'..='\u{200a}'
            | '\u{2028}' | '\u{2029}' | '\u{205f}' | '\u{3000}'
    )
}

/// `SqlFunctionUtils.splitIndex(s, sep, idx)`.
fn split_index_ref(s: &str, sep: &str, idx: i32) -> Option<String> {
    if idx < 0 || s.is_empty() {
        return None;
    }
    let tokens: Vec<&str> = if sep.is_empty() { s.split(java_whitespace).collect() } else { s.split(sep).collect() };
    tokens.get(idx as usize).map(|t| t.to_string())
}

fn ints(a: &Int32Array) -> Vec<Option<i32>> {
    a.iter().collect()
}

fn bools(a: &BooleanArray) -> Vec<Option<bool>> {
    a.iter().collect()
}

fn strs(a: &StringArray) -> Vec<Option<String>> {
    a.iter().map(|v| v.map(str::to_string)).collect()
}

/// Runs the check on one input; panics on a mismatch.
pub fn check(input: &Input) {
    let rows = input.rows as usize % 16;
    let escape = [None, Some('\\'), Some('#'), Some('a'), Some('ñ')][input.escape as usize % 5];
    let (s, needle, new) = (&input.s, &input.needle, &input.new);
    let sd = s.datum(rows);
    let nd = needle.datum(rows);

    // POSITION / LOCATE.
    let n = output_rows(rows, s.is_column() || needle.is_column());
    let want: Vec<Option<i32>> = (0..n).map(|i| Some(locate_ref(&needle.value(i)?, &s.value(i)?, 1))).collect();
    let got = search::position(nd.as_ref(), sd.as_ref()).expect("position");
    assert_eq!(ints(&got), want, "POSITION");
    let got = search::locate(nd.as_ref(), sd.as_ref(), None).expect("locate");
    assert_eq!(ints(&got), want, "LOCATE without from");
    if input.with_from {
        let n = output_rows(rows, s.is_column() || needle.is_column() || input.int.column);
        let want: Vec<Option<i32>> =
            (0..n).map(|i| Some(locate_ref(&needle.value(i)?, &s.value(i)?, input.int.value(i)?))).collect();
        let from = input.int.datum(rows);
        let got = search::locate(nd.as_ref(), sd.as_ref(), Some(from.as_ref())).expect("locate");
        assert_eq!(ints(&got), want, "LOCATE with from");
    }

    // INSTR: any result or a clean error, never a panic.
    let (start, nth) = (input.int.datum(rows), input.nth.datum(rows));
    let _ = search::instr(sd.as_ref(), nd.as_ref(), Some(start.as_ref()), Some(nth.as_ref()));
    let _ = search::instr(sd.as_ref(), nd.as_ref(), Some(start.as_ref()), None);

    // LIKE: the needle is the pattern.
    let n = output_rows(rows, s.is_column() || needle.is_column());
    let mut want = Vec::new();
    let mut bad = None;
    for i in 0..n {
        let (Some(sv), Some(p)) = (s.value(i), needle.value(i)) else {
            want.push(None);
            continue;
        };
        match like_tokens(&p, escape) {
            Ok(t) => want.push(Some(like_match(&t, &chars(&sv)))),
            Err(at) => {
                bad.get_or_insert((p.clone(), at));
                want.push(None);
            }
        }
    }
    // A literal pattern is compiled once: `LikePattern::new` must reject a
    // bad escape. Whether `like` reports it when no row is evaluated (every
    // `s` NULL) is left open: Flink fails at start-up either way.
    let mut bad_literal = false;
    if let (false, Some(p)) = (needle.is_column(), needle.value(0)) {
        bad_literal = like_tokens(&p, escape).is_err();
        match LikePattern::new(&p, escape) {
            Ok(lp) => {
                assert!(!bad_literal, "LikePattern::new({p:?}, {escape:?}) accepted a bad escape");
                for i in 0..rows {
                    if let Some(sv) = s.value(i) {
                        let t = like_tokens(&p, escape).expect("checked");
                        let w = like_match(&t, &chars(&sv));
                        assert_eq!(lp.matches(sv.as_bytes()), w, "{sv:?} LIKE {p:?} ESCAPE {escape:?}");
                    }
                }
            }
            Err(Error::Flink(m)) => assert!(bad_literal, "LikePattern::new({p:?}) failed: {m}"),
            Err(e) => panic!("LikePattern::new({p:?}): unexpected error {e}"),
        }
    }
    match search::like(sd.as_ref(), nd.as_ref(), escape) {
        Ok(got) => {
            assert!(bad.is_none(), "LIKE accepted bad escape {bad:?} (escape {escape:?})");
            if bad_literal {
                assert!(got.iter().all(|v| v.is_none()), "LIKE evaluated a bad literal pattern");
            } else {
                assert_eq!(bools(&got), want, "LIKE escape {escape:?}");
            }
        }
        Err(Error::Flink(m)) => {
            assert!(bad.is_some() || bad_literal, "LIKE failed without a bad escape: {m}");
            assert!(m.contains("Invalid escape sequence"), "LIKE error {m:?} ({bad:?})");
        }
        Err(e) => panic!("LIKE: unexpected error {e}"),
    }

    // REPLACE(s, needle, new).
    let n = output_rows(rows, s.is_column() || needle.is_column() || new.is_column());
    let want: Vec<Option<String>> = (0..n)
        .map(|i| {
            let r = replace_ref(&s.value(i)?, &needle.value(i)?, &new.value(i)?);
            Some(String::from_utf8(r).expect("encoder output is UTF-8"))
        })
        .collect();
    let wd = new.datum(rows);
    let got = search::replace(sd.as_ref(), nd.as_ref(), wd.as_ref()).expect("replace");
    assert_eq!(got.len(), n);
    assert_eq!(strs(&got), want, "REPLACE");

    // SPLIT_INDEX(s, needle, int).
    let n = output_rows(rows, s.is_column() || needle.is_column() || input.int.column);
    let want: Vec<Option<String>> =
        (0..n).map(|i| split_index_ref(&s.value(i)?, &needle.value(i)?, input.int.value(i)?)).collect();
    let idx = input.int.datum(rows);
    let got = search::split_index(sd.as_ref(), nd.as_ref(), idx.as_ref()).expect("split_index");
    assert_eq!(strs(&got), want, "SPLIT_INDEX");

    check_int_separator_and_bad_escape(input);
}

/// SPLIT_INDEX with an INT separator (`SqlFunctionUtils.splitIndex(String,
/// int, int)`: NULL outside 1..=255, else the split on that one character)
/// and LIKE with an ESCAPE that is not one character
/// (`SqlLikeUtils.invalidEscapeCharacter`: a literal pattern fails the call,
/// a column pattern only when some row has both operands).
pub fn check_int_separator_and_bad_escape(input: &Input) {
    let rows = usize::from(input.rows % 16);
    let (s, needle) = (&input.s, &input.needle);
    let sd = s.datum(rows);
    let nd = needle.datum(rows);
    let n = output_rows(rows, s.is_column() || input.nth.column || input.int.column);
    let want: Vec<Option<String>> = (0..n)
        .map(|i| {
            let code = input.nth.value(i)?;
            let sep = char::from(u8::try_from(code).ok().filter(|&c| c >= 1)?).to_string();
            split_index_ref(&s.value(i)?, &sep, input.int.value(i)?)
        })
        .collect();
    let (codes, idx) = (input.nth.datum(rows), input.int.datum(rows));
    let got = search::split_index(sd.as_ref(), codes.as_ref(), idx.as_ref()).expect("split_index INT");
    assert_eq!(strs(&got), want, "SPLIT_INDEX INT");

    let esc = ["", "ab", "😀"][usize::from(input.escape % 3)];
    let n = output_rows(rows, s.is_column() || needle.is_column());
    let evaluated = (0..n).any(|i| s.value(i).is_some() && needle.value(i).is_some());
    let null_literal = (!s.is_column() && s.value(0).is_none()) || (!needle.is_column() && needle.value(0).is_none());
    match search::like_with_escape(sd.as_ref(), nd.as_ref(), Some(esc)) {
        Ok(got) => {
            assert!(null_literal || (needle.is_column() && !evaluated), "bad escape {esc:?} accepted");
            assert_eq!(got.null_count(), got.len(), "bad escape evaluated a row");
        }
        Err(Error::Flink(m)) => {
            assert_eq!(m, format!("Invalid escape character '{esc}'"));
            assert!(!null_literal && (!needle.is_column() || evaluated), "failed without a row: {m}");
        }
        Err(e) => panic!("LIKE bad escape: unexpected error {e}"),
    }
}
