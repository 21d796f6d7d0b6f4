//! POSITION / LOCATE / INSTR, LIKE, REPLACE, SPLIT_INDEX against naive
//! references written plainly here, plus hand-written Flink cases that each
//! name the Flink source they pin.

mod support;

use std::sync::Arc;

use arrow_array::{Array, ArrayRef, BooleanArray, Int32Array, Scalar, StringArray};
use proptest::prelude::*;
use sluice_kernels::search::{instr, like, locate, position, replace, split_index, LikePattern};
use sluice_kernels::Error;

use support::*;

fn s1(v: &str) -> Scalar<StringArray> {
    Scalar::new(StringArray::from(vec![v]))
}
fn snull() -> Scalar<StringArray> {
    Scalar::new(StringArray::from(vec![None::<&str>]))
}
fn i1(v: i32) -> Scalar<Int32Array> {
    Scalar::new(Int32Array::from(vec![v]))
}
fn ints_of(a: &Int32Array) -> Vec<Option<i32>> {
    a.iter().collect()
}
fn bools_of(a: &BooleanArray) -> Vec<Option<bool>> {
    a.iter().collect()
}

// ---------------------------------------------------------------------------
// Naive references
// ---------------------------------------------------------------------------

/// `BinaryStringData.indexOf` on valid UTF-8, by plain char iteration.
fn ref_index_of(hay: &str, needle: &str, from: i32) -> i32 {
    if needle.is_empty() {
        return 0;
    }
    for (k, (b, _)) in hay.char_indices().enumerate() {
        if (k as i64) < from as i64 {
            continue;
        }
        if hay.as_bytes()[b..].starts_with(needle.as_bytes()) {
            return k as i32;
        }
    }
    -1
}

/// `SqlFunctionUtils.position(needle, hay, from)`.
fn ref_locate(needle: &str, hay: &str, from: i32) -> i32 {
    ref_index_of(hay, needle, from.wrapping_sub(1)) + 1
}

/// `SqlFunctionUtils.instr`, transcribed with the string reversal; `None`
/// where Flink throws.
fn ref_instr(s: &str, sub: &str, start: i32, nth: i32) -> Option<i32> {
    if nth <= 0 {
        return None;
    }
    if start == 0 {
        return Some(0);
    }
    if start > 0 {
        let mut start_index = start;
        let mut index = 0;
        for _ in 0..nth {
            index = ref_index_of(s, sub, start_index - 1) + 1;
            if index == 0 {
                return Some(0);
            }
            start_index = index + 1;
        }
        return Some(index);
    }
    if start == i32::MIN {
        return None;
    }
    let rs: String = s.chars().rev().collect();
    let rsub: String = sub.chars().rev().collect();
    let pos = ref_instr(&rs, &rsub, -start, nth)?;
    if pos == 0 {
        Some(0)
    } else {
        Some(s.chars().count() as i32 + 2 - pos - sub.chars().count() as i32)
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum P {
    Lit(char),
    One,
    Star,
}

/// Parses a LIKE pattern; `None` for an invalid escape sequence.
fn ref_parse(p: &str, esc: Option<char>) -> Option<Vec<P>> {
    let cs: Vec<char> = p.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < cs.len() {
        let c = cs[i];
        if Some(c) == esc {
            let n = *cs.get(i + 1)?;
            if n == '_' || n == '%' || Some(n) == esc {
                out.push(P::Lit(n));
                i += 2;
                continue;
            }
            return None;
        }
        out.push(match c {
            '_' => P::One,
            '%' => P::Star,
            c => P::Lit(c),
        });
        i += 1;
    }
    Some(out)
}

/// Java regex `.` without DOTALL.
fn ref_dot(c: char) -> bool {
    !matches!(c, '\n' | '\r' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

/// Plain recursive wildcard matcher over chars.
fn ref_match(p: &[P], s: &[char]) -> bool {
    match p.first() {
        None => s.is_empty(),
        Some(P::Star) => (0..=s.len()).any(|k| ref_match(&p[1..], &s[k..])),
        Some(P::One) => !s.is_empty() && ref_dot(s[0]) && ref_match(&p[1..], &s[1..]),
        Some(P::Lit(c)) => s.first() == Some(c) && ref_match(&p[1..], &s[1..]),
    }
}

/// LIKE; `literal` = scalar pattern (Flink's quick path; the empty pattern
/// matches only '' on both paths, so the flag no longer changes the answer).
fn ref_like(s: &str, p: &str, esc: Option<char>, literal: bool) -> Option<bool> {
    let _ = literal;
    let toks = ref_parse(p, esc)?;
    let cs: Vec<char> = s.chars().collect();
    Some(ref_match(&toks, &cs))
}

/// Java `String.replace` on UTF-16 units, then Java's UTF-8 encoding
/// (unpaired surrogate → '?').
fn ref_replace(s: &str, old: &str, new: &str) -> String {
    let s16: Vec<u16> = s.encode_utf16().collect();
    let o16: Vec<u16> = old.encode_utf16().collect();
    let n16: Vec<u16> = new.encode_utf16().collect();
    let mut out: Vec<u16> = Vec::new();
    if o16.is_empty() {
        out.extend(&n16);
        for u in &s16 {
            out.push(*u);
            out.extend(&n16);
        }
    } else {
        let mut i = 0;
        while i < s16.len() {
            if s16[i..].starts_with(&o16) {
                out.extend(&n16);
                i += o16.len();
            } else {
                out.push(s16[i]);
                i += 1;
            }
        }
    }
    char::decode_utf16(out).map(|r| r.unwrap_or('?')).collect()
}

/// `Character.isWhitespace` (JDK 17) for the characters of the tests.
fn ref_java_ws(c: char) -> bool {
    matches!(c, '\u{9}'..='\u{d}' | '\u{1c}'..='\u{20}' | '\u{1680}' | '\u{2000}'..='\u{2006}'
        | '\u{2008}'..='\u{200a}' | '\u{2028}' | '\u{2029}' | '\u{205f}' | '\u{3000}')
}

/// commons-lang3 `splitByWholeSeparatorPreserveAllTokens(s, sep)[idx]`.
fn ref_split(s: &str, sep: &str, idx: i32) -> Option<String> {
    if idx < 0 || s.is_empty() {
        return None;
    }
    let toks: Vec<&str> = if sep.is_empty() { s.split(ref_java_ws).collect() } else { s.split(sep).collect() };
    toks.get(idx as usize).map(|t| t.to_string())
}

// ---------------------------------------------------------------------------
// Property tests
// ---------------------------------------------------------------------------

const HAY: &[char] = &['a', 'b', 'a', 'ñ', '€', '😀', '\n', ' '];

fn cfg() -> ProptestConfig {
    ProptestConfig { cases: 256, ..ProptestConfig::default() }
}

proptest! {
    #![proptest_config(cfg())]

    #[test]
    fn locate_scalar_needle_matches_reference(
        hay in rows(24, small_text(HAY, 10)),
        needle in small_text(HAY, 3),
        from in prop::option::of(prop_oneof![-3i32..8, Just(i32::MIN), Just(i32::MAX)]),
        layout in 0u8..3, pad in 0usize..5,
    ) {
        let a = strings(&hay, layout, pad);
        let out = match from {
            None => position(&s1(&needle), &a).unwrap(),
            Some(f) => locate(&s1(&needle), &a, Some(&i1(f))).unwrap(),
        };
        let want: Vec<Option<i32>> = hay.iter()
            .map(|h| h.as_ref().map(|h| ref_locate(&needle, h, from.unwrap_or(1))))
            .collect();
        prop_assert_eq!(ints_of(&out), want);
    }

    #[test]
    fn locate_array_args_match_reference(
        rows_ in prop::collection::vec((opt(small_text(HAY, 10)), opt(small_text(HAY, 3)), opt(-3i32..8)), 0..24),
        l1 in 0u8..3, l2 in 0u8..3, pad in 0usize..5,
    ) {
        let hay: Vec<_> = rows_.iter().map(|r| r.0.clone()).collect();
        let nee: Vec<_> = rows_.iter().map(|r| r.1.clone()).collect();
        let from: Vec<_> = rows_.iter().map(|r| r.2).collect();
        let out = locate(&strings(&nee, l2, pad + 1), &strings(&hay, l1, pad), Some(&ints(&from, pad))).unwrap();
        let want: Vec<Option<i32>> = rows_.iter().map(|(h, n, f)| match (h, n, f) {
            (Some(h), Some(n), Some(f)) => Some(ref_locate(n, h, *f)),
            _ => None,
        }).collect();
        prop_assert_eq!(ints_of(&out), want);
    }

    #[test]
    fn instr_matches_reversal_reference(
        rows_ in prop::collection::vec((opt(small_text(&['a', 'a', 'b', '😀', 'ñ'], 10)), opt(-12i32..12), opt(1i32..4)), 0..24),
        sub in small_text(&['a', 'a', 'b', '😀'], 3),
        layout in 0u8..3, pad in 0usize..4,
    ) {
        let s: Vec<_> = rows_.iter().map(|r| r.0.clone()).collect();
        let start: Vec<_> = rows_.iter().map(|r| r.1).collect();
        let nth: Vec<_> = rows_.iter().map(|r| r.2).collect();
        // Scalar substring, or the same substring as a column with every
        // fourth row NULL.
        let sub_col: Vec<Option<String>> = (0..rows_.len()).map(|i| (i % 4 != 1).then(|| sub.clone())).collect();
        let out = if layout == 1 {
            instr(&strings(&s, layout, pad), &strings(&sub_col, 2, pad), Some(&ints(&start, pad)), Some(&ints(&nth, 0))).unwrap()
        } else {
            instr(&strings(&s, layout, pad), &s1(&sub), Some(&ints(&start, pad)), Some(&ints(&nth, 0))).unwrap()
        };
        let want: Vec<Option<i32>> = rows_.iter().enumerate().map(|(i, (s, st, n))| match (s, st, n) {
            _ if layout == 1 && i % 4 == 1 => None,
            (Some(s), Some(st), Some(n)) => ref_instr(s, &sub, *st, *n),
            _ => None,
        }).collect();
        prop_assert_eq!(ints_of(&out), want);
    }

    #[test]
    fn like_scalar_pattern_matches_reference(
        s in rows(24, small_text(&['a', 'b', 'ñ', '😀', '\n', '\u{2028}', '\u{a0}', '_', '%', '\\', '!'], 8)),
        p in small_text(&['a', 'b', 'ñ', '😀', '_', '%', '\\', '!'], 7),
        esc in prop::option::of(prop::sample::select(vec!['!', '\\', '_', '%', 'a'])),
        layout in 0u8..3, pad in 0usize..4,
    ) {
        let a = strings(&s, layout, pad);
        let got = like(&a, &s1(&p), esc);
        match ref_parse(&p, esc) {
            None => prop_assert!(matches!(got, Err(Error::Flink(_))), "{:?}", got),
            Some(_) => {
                let want: Vec<Option<bool>> = s.iter()
                    .map(|h| h.as_ref().map(|h| ref_like(h, &p, esc, true).unwrap()))
                    .collect();
                prop_assert_eq!(bools_of(&got.unwrap()), want);
            }
        }
    }

    #[test]
    fn like_array_pattern_matches_reference(
        rows_ in prop::collection::vec((
            opt(small_text(&['a', 'b', 'ñ', '😀', '\n', '\u{85}', '_', '%'], 8)),
            opt(small_text(&['a', 'b', 'ñ', '😀', '_', '%', '!'], 6)),
        ), 0..24),
        esc in prop::option::of(Just('!')),
        l1 in 0u8..3, l2 in 0u8..3, pad in 0usize..4,
    ) {
        let s: Vec<_> = rows_.iter().map(|r| r.0.clone()).collect();
        let p: Vec<_> = rows_.iter().map(|r| r.1.clone()).collect();
        let got = like(&strings(&s, l1, pad), &strings(&p, l2, pad + 2), esc);
        let want: Option<Vec<Option<bool>>> = rows_.iter().map(|(s, p)| match (s, p) {
            (Some(s), Some(p)) => ref_like(s, p, esc, false).map(Some),
            _ => Some(None),
        }).collect();
        match want {
            None => prop_assert!(matches!(got, Err(Error::Flink(_)))),
            Some(w) => prop_assert_eq!(bools_of(&got.unwrap()), w),
        }
    }

    #[test]
    fn replace_matches_java_string_replace(
        rows_ in prop::collection::vec((opt(small_text(HAY, 10)), opt(small_text(&['a', 'ñ', '😀'], 2))), 0..24),
        old in small_text(&['a', 'b', 'ñ', '😀'], 2),
        new in small_text(&['x', '€', '😀'], 2),
        scalar_old in any::<bool>(),
        layout in 0u8..3, pad in 0usize..4,
    ) {
        let s: Vec<_> = rows_.iter().map(|r| r.0.clone()).collect();
        let olds: Vec<_> = rows_.iter().map(|r| r.1.clone()).collect();
        let sa = strings(&s, layout, pad);
        let (out, want): (StringArray, Vec<Option<String>>) = if scalar_old {
            (replace(&sa, &s1(&old), &s1(&new)).unwrap(),
             s.iter().map(|h| h.as_ref().map(|h| ref_replace(h, &old, &new))).collect())
        } else {
            (replace(&sa, &strings(&olds, 2 - layout % 3, pad), &s1(&new)).unwrap(),
             rows_.iter().map(|(h, o)| match (h, o) { (Some(h), Some(o)) => Some(ref_replace(h, o, &new)), _ => None }).collect())
        };
        prop_assert_eq!(read_strings(&out), want);
    }

    #[test]
    fn split_index_matches_reference(
        rows_ in prop::collection::vec((opt(text(10)), opt(-1i32..5)), 0..24),
        sep in prop::sample::select(vec!["", ",", ",,", "a", "😀", "ab"]),
        layout in 0u8..3, pad in 0usize..4,
    ) {
        let s: Vec<_> = rows_.iter().map(|r| r.0.clone()).collect();
        let idx: Vec<_> = rows_.iter().map(|r| r.1).collect();
        let out = split_index(&strings(&s, layout, pad), &s1(sep), &ints(&idx, pad)).unwrap();
        let want: Vec<Option<String>> = rows_.iter().map(|(s, i)| match (s, i) {
            (Some(s), Some(i)) => ref_split(s, sep, *i),
            _ => None,
        }).collect();
        prop_assert_eq!(read_strings(&out), want);
    }

    #[test]
    fn split_index_array_separator(
        rows_ in prop::collection::vec((opt(small_text(&['a', ',', ' ', '😀'], 8)), opt(small_text(&[',', 'a', ' '], 2))), 0..24),
        idx in -1i32..4,
    ) {
        let s: Vec<_> = rows_.iter().map(|r| r.0.clone()).collect();
        let sep: Vec<_> = rows_.iter().map(|r| r.1.clone()).collect();
        let out = split_index(&strings(&s, 0, 1), &strings(&sep, 1, 2), &i1(idx)).unwrap();
        let want: Vec<Option<String>> = rows_.iter().map(|(s, p)| match (s, p) {
            (Some(s), Some(p)) => ref_split(s, p, idx),
            _ => None,
        }).collect();
        prop_assert_eq!(read_strings(&out), want);
    }
}

// ---------------------------------------------------------------------------
// Hand-written Flink cases
// ---------------------------------------------------------------------------

fn pos1(needle: &str, hay: &str) -> Option<i32> {
    ints_of(&position(&s1(needle), &StringArray::from(vec![hay])).unwrap())[0]
}
fn loc1(needle: &str, hay: &str, from: i32) -> Option<i32> {
    ints_of(&locate(&s1(needle), &StringArray::from(vec![hay]), Some(&i1(from))).unwrap())[0]
}
fn instr1(s: &str, sub: &str, start: i32, nth: i32) -> sluice_kernels::Result<Option<i32>> {
    instr(&StringArray::from(vec![s]), &s1(sub), Some(&i1(start)), Some(&i1(nth))).map(|a| ints_of(&a)[0])
}

/// `BinaryStringData.indexOf` + `SqlFunctionUtils.position`: 1-based code
/// point positions, empty needle → 1 regardless of from, from ≤ 0 → start,
/// `from - 1` wraps as a Java int.
#[test]
fn flink_position_cases() {
    assert_eq!(pos1("b", "añb"), Some(3));
    assert_eq!(pos1("x", "😀x"), Some(2));
    assert_eq!(pos1("€", "a€€"), Some(2));
    assert_eq!(pos1("z", "abc"), Some(0));
    assert_eq!(pos1("", "abc"), Some(1));
    assert_eq!(pos1("", ""), Some(1));
    assert_eq!(pos1("a", ""), Some(0));
    assert_eq!(loc1("", "abc", 100), Some(1));
    assert_eq!(loc1("a", "aXa", 2), Some(3));
    assert_eq!(loc1("a", "aXa", 0), Some(1));
    assert_eq!(loc1("a", "aXa", -5), Some(1));
    assert_eq!(loc1("a", "aXa", 4), Some(0));
    assert_eq!(loc1("a", "abc", i32::MIN), Some(0));
    // Matching is on bytes: no case folding.
    assert_eq!(pos1("A", "abc"), Some(0));
    // NULL in any argument → NULL (generateCallIfArgsNotNull).
    let out = position(&snull(), &StringArray::from(vec!["a"])).unwrap();
    assert!(out.is_null(0));
    let out =
        locate(&s1("a"), &StringArray::from(vec!["a"]), Some(&Scalar::new(Int32Array::from(vec![None])))).unwrap();
    assert!(out.is_null(0));
}

/// `BinaryStringData.indexOf` steps by `numBytesForFirstByte` and compares
/// bytes at each step: on bytes that are not UTF-8 (an unchecked array)
/// a match inside a "character" is skipped.
#[test]
fn flink_position_lead_byte_rule_on_raw_bytes() {
    // E0 counts 3 bytes: "\xE0ab" is one character, then "b".
    let values = arrow_buffer::Buffer::from_vec(b"\xE0abb".to_vec());
    let offsets = arrow_buffer::OffsetBuffer::new(vec![0i32, 4].into());
    // SAFETY: deliberately not UTF-8, to pin the lead-byte rule; the kernel
    // only reads bytes.
    let hay = unsafe { StringArray::new_unchecked(offsets, values, None) };
    let out = position(&s1("b"), &hay).unwrap();
    assert_eq!(out.value(0), 2);
    let out = position(&s1("a"), &hay).unwrap();
    assert_eq!(out.value(0), 0);
}

/// `SqlFunctionUtils.instr`.
#[test]
fn flink_instr_cases() {
    assert_eq!(instr1("abcabc", "bc", 1, 2).unwrap(), Some(5));
    assert_eq!(instr1("aaaa", "aa", 1, 2).unwrap(), Some(2)); // overlapping
    assert_eq!(instr1("aaaa", "aa", 1, 4).unwrap(), Some(0));
    assert_eq!(instr1("abcabc", "bc", 0, 1).unwrap(), Some(0));
    assert_eq!(instr1("abcabc", "bc", -1, 1).unwrap(), Some(5));
    assert_eq!(instr1("abcabc", "bc", -1, 2).unwrap(), Some(2));
    assert_eq!(instr1("abcabc", "bc", -2, 1).unwrap(), Some(2));
    // Overlapping from the end too (reversed search restarts one char on).
    assert_eq!(instr1("aaaa", "aa", -1, 2).unwrap(), Some(2));
    assert_eq!(instr1("aaaa", "aa", -1, 3).unwrap(), Some(1));
    assert_eq!(instr1("aaaa", "aa", -1, 4).unwrap(), Some(0));
    assert_eq!(instr1("abc", "bc", -5, 1).unwrap(), Some(0));
    assert_eq!(instr1("ab😀", "", -1, 1).unwrap(), Some(4));
    assert_eq!(instr1("ab😀", "", 3, 7).unwrap(), Some(1));
    assert_eq!(instr1("x😀y😀", "😀", -1, 1).unwrap(), Some(4));
    assert!(matches!(instr1("abc", "b", 1, 0), Err(Error::Flink(m)) if m == "nthAppearance must be positive!"));
    assert!(matches!(instr1("abc", "b", i32::MIN, 1), Err(Error::Flink(_))));
    // Defaults start = 1, nth = 1.
    let out = instr(&StringArray::from(vec!["xyzy"]), &s1("y"), None, None).unwrap();
    assert_eq!(out.value(0), 2);
    // nth ≤ 0 only fails on rows Flink evaluates (all arguments non-NULL).
    let out = instr(&StringArray::from(vec![None::<&str>]), &s1("b"), Some(&i1(1)), Some(&i1(0))).unwrap();
    assert!(out.is_null(0));
}

fn like1(s: &str, p: &str, esc: Option<char>) -> sluice_kernels::Result<bool> {
    like(&StringArray::from(vec![s]), &s1(p), esc).map(|a| a.value(0))
}
fn like_dyn1(s: &str, p: &str) -> bool {
    like(&StringArray::from(vec![s]), &StringArray::from(vec![p]), None).unwrap().value(0)
}

/// `SqlLikeChainChecker.check` (apache/flink master, `isEmptyPattern`;
/// FLINK-39396 kept its semantics): the empty literal pattern returns false
/// early when the input is not empty. A non-literal '' goes to
/// `SqlLikeUtils.like` (regex '') and also matches only ''. An all-`%`
/// pattern matches everything.
#[test]
fn flink_like_empty_pattern() {
    assert!(!like1("abc", "", None).unwrap());
    assert!(like1("", "", None).unwrap());
    assert!(!like_dyn1("abc", ""));
    assert!(like_dyn1("", ""));
    assert!(like1("abc", "%", None).unwrap());
    assert!(like1("", "%%", None).unwrap());
}

/// `LikeCallGen` quick path: no ESCAPE clause ⇒ backslash is literal and
/// `%` still a wildcard; FLINK-39424: `_` after a backslash is a wildcard.
#[test]
fn flink_like_no_default_escape() {
    assert!(like1("a\\%c", "a\\%", None).unwrap());
    assert!(!like1("TE_ST", "TE\\_ST", None).unwrap());
    assert!(like1("TE\\XST", "TE\\_ST", None).unwrap());
    assert!(!like1("TE%ST", "TE\\%ST", None).unwrap());
    assert!(like1("TE\\%ST", "TE\\%ST", None).unwrap());
}

/// `SqlLikeUtils.sqlToRegexLike`: `_` → `.` (no DOTALL), `%` → `(?s:.*)`.
#[test]
fn flink_like_regex_path() {
    assert!(!like1("a\nb", "a_b", None).unwrap());
    assert!(!like1("a\rb", "a_b", None).unwrap());
    assert!(!like1("a\u{85}b", "a_b", None).unwrap());
    assert!(!like1("a\u{2028}b", "a_b", None).unwrap());
    assert!(!like1("a\u{2029}b", "a_b", None).unwrap());
    assert!(like1("a\u{a0}b", "a_b", None).unwrap());
    assert!(like1("a\nb", "a%b", None).unwrap());
    assert!(like1("😀", "_", None).unwrap());
    assert!(!like1("😀", "__", None).unwrap());
    assert!(like1("x😀yz", "%_y_", None).unwrap());
    assert!(!like1("\n", "%_%", None).unwrap());
    assert!(like1("ab", "_%_", None).unwrap());
    assert!(!like1("a", "_%_", None).unwrap());
}

/// `LikeCallGen` quick-path shapes and `SqlLikeChainChecker` (cases from
/// Flink's `ScalarFunctionsTest.testLike`).
#[test]
fn flink_like_quick_paths() {
    assert!(like1("abcxxxdef", "abc%def", None).unwrap());
    assert!(like1("abcxxxdef", "%abc%def%", None).unwrap());
    assert!(!like1("abcxxxdef", "%abc%qef%", None).unwrap());
    assert!(!like1("abcxxxdef", "abc%qef", None).unwrap());
    assert!(like1("abcxxxdef", "abc%", None).unwrap());
    assert!(like1("abcxxxdef", "%def", None).unwrap());
    assert!(like1("abcxxxdef", "%xx%", None).unwrap());
    assert!(like1("abc", "abc", None).unwrap());
    assert!(!like1("abcd", "abc", None).unwrap());
    // Prefix and suffix may not overlap (chain checker minLen / order).
    assert!(!like1("ab", "ab%b", None).unwrap());
    assert!(like1("abb", "ab%b", None).unwrap());
    assert!(!like1("aXbXa", "a%b%b%a", None).unwrap());
}

/// `LikeCallGen` pre-scan and `SqlLikeUtils.sqlToRegexLike` with ESCAPE.
#[test]
fn flink_like_escape() {
    assert!(like1("a_c", "a!_c", Some('!')).unwrap());
    assert!(!like1("abc", "a!_c", Some('!')).unwrap());
    assert!(like1("a%c", "a!%c", Some('!')).unwrap());
    assert!(!like1("abc", "a!%c", Some('!')).unwrap());
    assert!(like1("a!c", "a!!c", Some('!')).unwrap());
    assert!(like1("TE-ST", "%E\\_S%", Some('\\')).map(|b| !b).unwrap());
    assert!(like1("TE_ST", "%E\\_S%", Some('\\')).unwrap());
    // The escape check comes first: ESCAPE '_' makes `__` a literal `_`.
    assert!(like1("a_b", "a__b", Some('_')).unwrap());
    assert!(!like1("axb", "a__b", Some('_')).unwrap());
    match like1("abc", "a!bc", Some('!')) {
        Err(Error::Flink(m)) => assert_eq!(m, "Invalid escape sequence 'a!bc', 1"),
        other => panic!("{other:?}"),
    }
    match like1("abc", "😀b!", Some('!')) {
        // The index counts UTF-16 units, like Java.
        Err(Error::Flink(m)) => assert_eq!(m, "Invalid escape sequence '😀b!', 3"),
        other => panic!("{other:?}"),
    }
    // A literal pattern fails at code generation in Flink, before any row,
    // so here it fails even when every row is NULL.
    assert!(like(&StringArray::from(vec![None::<&str>]), &s1("a!"), Some('!')).is_err());
    // An escape outside the BMP is two UTF-16 units: rejected (LikeCallGen).
    assert!(matches!(like1("a", "a", Some('😀')), Err(Error::Flink(_))));
    // A non-literal pattern only fails on the rows Flink evaluates.
    let out = like(&StringArray::from(vec![None::<&str>]), &StringArray::from(vec!["a!"]), Some('!')).unwrap();
    assert!(out.is_null(0));
}

/// `SqlFunctionUtils.replace` = Java `String.replace` on UTF-16, re-encoded
/// by `StringUtf8Utils.encodeUTF8` (lone surrogate → '?').
#[test]
fn flink_replace_cases() {
    let r = |s: &str, o: &str, n: &str| {
        read_strings(&replace(&StringArray::from(vec![s]), &s1(o), &s1(n)).unwrap())[0].clone().unwrap()
    };
    assert_eq!(r("ab", "", "x"), "xaxbx");
    assert_eq!(r("😀", "", "x"), "x?x?x");
    assert_eq!(r("😀", "", ""), "😀");
    assert_eq!(r("", "", "x"), "x");
    assert_eq!(r("aaa", "aa", "b"), "ba");
    assert_eq!(r("a😀b😀", "😀", "-"), "a-b-");
    assert_eq!(r("abc", "", "😀"), "😀a😀b😀c😀");
    let out = replace(&StringArray::from(vec![Some("a"), None]), &s1("a"), &snull()).unwrap();
    assert!(out.is_null(0) && out.is_null(1));
}

/// `SqlFunctionUtils.splitIndex` + commons-lang3
/// `splitByWholeSeparatorPreserveAllTokens`.
#[test]
fn flink_split_index_cases() {
    let sp = |s: &str, sep: &str, i: i32| {
        read_strings(&split_index(&StringArray::from(vec![s]), &s1(sep), &i1(i)).unwrap())[0].clone()
    };
    assert_eq!(sp("a,,b", ",", 0).as_deref(), Some("a"));
    assert_eq!(sp("a,,b", ",", 1).as_deref(), Some(""));
    assert_eq!(sp("a,,b", ",", 2).as_deref(), Some("b"));
    assert_eq!(sp("a,,b", ",", 3), None);
    assert_eq!(sp(",a", ",", 0).as_deref(), Some(""));
    assert_eq!(sp("a,", ",", 1).as_deref(), Some(""));
    assert_eq!(sp("", ",", 0), None);
    assert_eq!(sp("", "", 0), None);
    assert_eq!(sp("abc", ",", -1), None);
    assert_eq!(sp("aaa", "aa", 0).as_deref(), Some(""));
    assert_eq!(sp("aaa", "aa", 1).as_deref(), Some("a"));
    // sep = '' splits on each Java whitespace character.
    assert_eq!(sp("a b  c", "", 2).as_deref(), Some(""));
    assert_eq!(sp("a b  c", "", 3).as_deref(), Some("c"));
    assert_eq!(sp("a\u{3000}b", "", 1).as_deref(), Some("b"));
    assert_eq!(sp("a\u{a0}b", "", 0).as_deref(), Some("a\u{a0}b")); // NBSP is not whitespace
    assert_eq!(sp("a\u{85}b", "", 0).as_deref(), Some("a\u{85}b")); // nor NEL
    assert_eq!(sp("a\u{2007}b", "", 0).as_deref(), Some("a\u{2007}b")); // nor FIGURE SPACE
    assert_eq!(sp(" ", "", 1).as_deref(), Some(""));
}

#[test]
fn all_scalar_arguments_give_one_row() {
    let out = position(&s1("b"), &s1("abc")).unwrap();
    assert_eq!(ints_of(&out), vec![Some(2)]);
    let out = like(&s1("abc"), &s1("a%"), None).unwrap();
    assert_eq!(bools_of(&out), vec![Some(true)]);
}

#[test]
fn mismatched_lengths_and_types_are_errors() {
    let a = StringArray::from(vec!["a", "b"]);
    let b = StringArray::from(vec!["a"]);
    assert!(matches!(position(&b, &a), Err(Error::InvalidArgument(_))));
    let n: ArrayRef = Arc::new(Int32Array::from(vec![1, 2]));
    assert!(matches!(position(&n, &a), Err(Error::InvalidArgument(_))));
}

#[test]
fn like_pattern_api() {
    let p = LikePattern::new("", None).unwrap();
    assert!(!p.matches(b"x"));
    assert!(p.matches(b""));
    let p = LikePattern::new_dynamic("", None).unwrap();
    assert!(!p.matches(b"x"));
    let p = LikePattern::new("%a_c%", None).unwrap();
    assert!(p.matches("zzabcz".as_bytes()));
    assert!(!p.matches("zza\ncz".as_bytes()));
}
