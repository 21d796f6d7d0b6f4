//! The three search classes checked against Flink's source (issue 20):
//! SPLIT_INDEX with an INT separator, LIKE with an invalid ESCAPE, and
//! unpaired surrogates in values Flink still holds as Java Strings. Each
//! test names the Flink file its expected values are read from.

mod support;

use arrow_array::{Array, ArrayRef, BooleanArray, Int32Array, Scalar, StringArray};
use proptest::prelude::*;
use sluice_kernels::search::{
    like, like_java, like_with_escape, replace_java, split_index, split_index_java, JavaStr, Utf16Values,
};
use sluice_kernels::Error;

use support::*;

fn s1(v: &str) -> Scalar<StringArray> {
    Scalar::new(StringArray::from(vec![v]))
}
fn i1(v: i32) -> Scalar<Int32Array> {
    Scalar::new(Int32Array::from(vec![v]))
}
fn inull() -> Scalar<Int32Array> {
    Scalar::new(Int32Array::from(vec![None]))
}
fn bools_of(a: &BooleanArray) -> Vec<Option<bool>> {
    a.iter().collect()
}

// ---------------------------------------------------------------------------
// SPLIT_INDEX(s, <INT>, i): SqlFunctionUtils.splitIndex(String, int, int)
// (flink-table-runtime, 1.20 and 2.x): NULL for `character > 255 ||
// character < 1 || index < 0`, else commons-lang3
// `StringUtils.splitPreserveAllTokens(str, (char) character)[index]`, NULL
// past the last token.
// ---------------------------------------------------------------------------

/// `SqlFunctionUtils.splitIndex(String, int, int)` written out plainly:
/// commons-lang3 `splitWorker(str, char, preserveAllTokens = true)`.
fn ref_split_code(s: &str, code: i32, idx: i32) -> Option<String> {
    if !(1..=255).contains(&code) || idx < 0 {
        return None;
    }
    let units: Vec<u16> = s.encode_utf16().collect();
    if units.is_empty() {
        return None;
    }
    let mut tokens = Vec::new();
    let mut start = 0;
    for (i, &u) in units.iter().enumerate() {
        if u32::from(u) == code as u32 {
            tokens.push(String::from_utf16_lossy(&units[start..i]));
            start = i + 1;
        }
    }
    tokens.push(String::from_utf16_lossy(&units[start..]));
    tokens.get(idx as usize).cloned()
}

#[test]
fn split_index_int_separator_cases() {
    let sp = |s: &str, code: i32, i: i32| {
        read_strings(&split_index(&StringArray::from(vec![s]), &i1(code), &i1(i)).unwrap())[0].clone()
    };
    assert_eq!(sp("a,,b", 44, 0).as_deref(), Some("a"));
    assert_eq!(sp("a,,b", 44, 1).as_deref(), Some(""));
    assert_eq!(sp("a,,b", 44, 2).as_deref(), Some("b"));
    assert_eq!(sp("a,,b", 44, 3), None);
    assert_eq!(sp(",", 44, 1).as_deref(), Some(""));
    assert_eq!(sp("", 44, 0), None); // no tokens
    assert_eq!(sp("a,b", 44, -1), None);
    // 'é' is 233: two UTF-8 bytes, one UTF-16 unit.
    assert_eq!(sp("xébéc", 233, 1).as_deref(), Some("b"));
    assert_eq!(sp("ÿaÿ", 255, 2).as_deref(), Some(""));
    // Out of 1..=255: NULL, even where the character occurs.
    assert_eq!(sp("a\u{100}b", 256, 0), None);
    assert_eq!(sp("a\0b", 0, 0), None);
    assert_eq!(sp("a,b", -44, 0), None);
    assert_eq!(sp("a,b", i32::MAX, 0), None);
    // A code is one character: 32 splits on ' ' only, no whitespace mode.
    assert_eq!(sp("a\tb c", 32, 0).as_deref(), Some("a\tb"));
    assert_eq!(sp("a\u{1}b", 1, 1).as_deref(), Some("b"));
    // NULL code or index: NULL.
    let out = split_index(&StringArray::from(vec!["a,b"]), &inull(), &i1(0)).unwrap();
    assert!(out.is_null(0));
    let out = split_index(&StringArray::from(vec!["a,b"]), &i1(44), &inull()).unwrap();
    assert!(out.is_null(0));
}

#[test]
fn split_index_int_separator_column() {
    let s = StringArray::from(vec![Some("a,b"), Some("a;b"), None, Some("a,b"), Some("a,b"), Some("a\u{80}b")]);
    let codes = Int32Array::from(vec![Some(44), Some(59), Some(44), None, Some(300), Some(128)]);
    let out = split_index(&s, &codes, &i1(1)).unwrap();
    assert_eq!(read_strings(&out), vec![Some("b".into()), Some("b".into()), None, None, None, Some("b".into())]);
    // A scalar out-of-range code is NULL on every row.
    let out = split_index(&s, &i1(0), &i1(0)).unwrap();
    assert_eq!(out.null_count(), s.len());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Every layout, sliced, with scalar or column codes, against the
    /// commons-lang3 transcription.
    #[test]
    fn split_index_int_matches_reference(
        s in rows(12, small_text(&[',', 'a', 'é', ' ', 'ÿ', '😀'], 6)),
        codes in prop::collection::vec(prop::sample::select(vec![44, 233, 32, 255, 0, 256, -1, 97]), 12),
        idx in -1i32..4,
        layout in 0u8..3,
        pad in 0usize..3,
    ) {
        let codes = &codes[..s.len()];
        let col = strings(&s, layout, pad);
        let code_col: ArrayRef = ints(&codes.iter().map(|c| Some(*c)).collect::<Vec<_>>(), pad);
        let out = split_index(&col, &code_col, &i1(idx)).unwrap();
        let want: Vec<Option<String>> =
            s.iter().zip(codes).map(|(v, c)| v.as_deref().and_then(|v| ref_split_code(v, *c, idx))).collect();
        prop_assert_eq!(read_strings(&out), want);
        let c0 = codes.first().copied().unwrap_or(44);
        let out = split_index(&col, &i1(c0), &i1(idx)).unwrap();
        let want: Vec<Option<String>> =
            s.iter().map(|v| v.as_deref().and_then(|v| ref_split_code(v, c0, idx))).collect();
        prop_assert_eq!(read_strings(&out), want);
    }
}

// ---------------------------------------------------------------------------
// LIKE with an invalid ESCAPE: SqlLikeUtils.sqlToRegexLike(String,
// CharSequence) (flink-table-api-java) throws
// `invalidEscapeCharacter(escape)` = ValidationException("Invalid escape
// character '" + s + "'") when `escapeStr.length() != 1`; LikeCallGen
// (flink-table-planner) throws the same while generating code for a literal
// pattern, and calls SqlLikeUtils.like per row under
// generateCallIfArgsNotNull for a non-literal one.
// ---------------------------------------------------------------------------

#[test]
fn like_invalid_escape_is_per_row_for_a_column_pattern() {
    for esc in ["", "ab", "😀", "!!"] {
        let msg = format!("Invalid escape character '{esc}'");
        // Every row has a NULL operand: NULL everywhere, no error.
        let s = StringArray::from(vec![Some("a"), None, None]);
        let p = StringArray::from(vec![None, Some("a"), None]);
        let out = like_with_escape(&s, &p, Some(esc)).unwrap();
        assert_eq!(bools_of(&out), vec![None, None, None], "escape {esc:?}");
        // One row with both operands: Flink's job fails with the message.
        let s = StringArray::from(vec![Some("a"), None, Some("b")]);
        let p = StringArray::from(vec![None, Some("a"), Some("b")]);
        let err = like_with_escape(&s, &p, Some(esc)).unwrap_err();
        assert!(matches!(&err, Error::Flink(m) if *m == msg), "escape {esc:?}: {err}");
        // Empty input: nothing is evaluated.
        let e = StringArray::from(Vec::<&str>::new());
        assert_eq!(like_with_escape(&e, &e, Some(esc)).unwrap().len(), 0);
    }
}

#[test]
fn like_invalid_escape_with_a_literal_pattern_fails_the_call() {
    // LikeCallGen throws at code generation, before any row: even all-NULL
    // strings fail.
    let s = StringArray::from(vec![None::<&str>, None]);
    let err = like_with_escape(&s, &s1("a%"), Some("ab")).unwrap_err();
    assert_eq!(err.to_string(), "Invalid escape character 'ab'");
    // A NULL literal operand folds the call to NULL (Calcite, strict LIKE).
    let out = like_with_escape(&s1("a"), &Scalar::new(StringArray::from(vec![None::<&str>])), Some("ab")).unwrap();
    assert!(out.is_null(0));
    let out = like_with_escape(&Scalar::new(StringArray::from(vec![None::<&str>])), &s1("a"), Some("")).unwrap();
    assert!(out.is_null(0));
}

#[test]
fn like_valid_escape_and_none_are_like() {
    let s = StringArray::from(vec![Some("a_b"), Some("axb"), None]);
    let p = s1("a!_b");
    assert_eq!(like_with_escape(&s, &p, Some("!")).unwrap(), like(&s, &p, Some('!')).unwrap());
    assert_eq!(bools_of(&like_with_escape(&s, &p, Some("!")).unwrap()), vec![Some(true), Some(false), None]);
    assert_eq!(like_with_escape(&s, &s1("a_b"), None).unwrap(), like(&s, &s1("a_b"), None).unwrap());
}

// ---------------------------------------------------------------------------
// Unpaired surrogates on the UTF-16 path (values Flink holds as a Java
// String, BinaryStringData.fromString): SqlFunctionUtils.replace /
// splitIndex work on the String; LikeCallGen's dynamic path and literal
// regex path match `s.toString()`; its literal `equals` path compares the
// Strings (BinaryStringData.equals); the other quick paths
// (startsWith / endsWith / contains / SqlLikeChainChecker) materialize the
// bytes, where StringUtf8Utils.encodeUTF8 has made each unpaired surrogate
// '?'.
// ---------------------------------------------------------------------------

/// A UTF-16 column in both forms: its units and the `?`-encoded UTF-8.
struct Col16 {
    units: Vec<u16>,
    offsets: Vec<i64>,
    utf8: StringArray,
}

impl Col16 {
    fn new(rows: &[Option<&[u16]>]) -> Self {
        let mut units = Vec::new();
        let mut offsets = vec![0i64];
        let mut utf8 = Vec::new();
        for r in rows {
            if let Some(r) = r {
                units.extend_from_slice(r);
                let mut b = Vec::new();
                sluice_kernels::encode::encode_utf16_into(r, &mut b);
                utf8.push(Some(String::from_utf8(b).unwrap()));
            } else {
                utf8.push(None);
            }
            offsets.push(units.len() as i64);
        }
        Col16 { units, offsets, utf8: StringArray::from(utf8) }
    }

    fn arg(&self) -> JavaStr<'_> {
        let v = Utf16Values { units: &self.units, offsets: &self.offsets, nulls: self.utf8.nulls() };
        JavaStr { utf8: &self.utf8, utf16: Some(v) }
    }
}

fn u(s: &str) -> Vec<u16> {
    s.encode_utf16().collect()
}

#[test]
fn replace_sees_the_raw_surrogate() {
    // REPLACE('😀', '\uDE00', 'X'): "😀".replace("\uDE00", "X") = "\uD83DX",
    // written out as "?X".
    let s = StringArray::from(vec!["😀", "a😀"]);
    let old = Col16::new(&[Some(&[0xDE00]), Some(&[0xDE00])]);
    let out = replace_java(JavaStr::utf8(&s), old.arg(), JavaStr::utf8(&s1("X"))).unwrap();
    assert_eq!(read_strings(&out), vec![Some("?X".into()), Some("a?X".into())]);
    // The UTF-8 kernel alone (the '?' bytes) finds no '?' in "😀".
    let plain = sluice_kernels::search::replace(&s, &old.utf8, &s1("X")).unwrap();
    assert_eq!(plain.value(0), "😀");
    // A lone surrogate is not the '?' it encodes to; other rows unchanged,
    // NULLs stay NULL.
    let hi: &[u16] = &[0x61, 0xD800];
    let s = Col16::new(&[Some(hi), Some(&u("a?")), None]);
    let out = replace_java(s.arg(), JavaStr::utf8(&s1("?")), JavaStr::utf8(&s1("Q"))).unwrap();
    assert_eq!(read_strings(&out), vec![Some("a?".into()), Some("aQ".into()), None]);
    // An empty `old` splits nothing new: "a\uD800".replace("", "-").
    let out = replace_java(s.arg(), JavaStr::utf8(&s1("")), JavaStr::utf8(&s1("-"))).unwrap();
    assert_eq!(out.value(0), "-a-?-");
}

#[test]
fn split_index_sees_the_raw_surrogate() {
    let s = Col16::new(&[Some(&[0x61, 0xD800, 0x2C, 0x62]), Some(&u("a?,b")), Some(&u("a,b"))]);
    // The separator '?' never matches the raw surrogate: token 0 is the
    // whole string.
    let out = split_index_java(s.arg(), JavaStr::utf8(&s1("?")), &i1(0)).unwrap();
    assert_eq!(read_strings(&out), vec![Some("a?,b".into()), Some("a".into()), Some("a,b".into())]);
    // INT code 63 = '?': the same.
    let out = split_index_java(s.arg(), JavaStr::utf8(&i1(63)), &i1(0)).unwrap();
    assert_eq!(read_strings(&out), vec![Some("a?,b".into()), Some("a".into()), Some("a,b".into())]);
    let out = split_index_java(s.arg(), JavaStr::utf8(&i1(44)), &i1(1)).unwrap();
    assert_eq!(read_strings(&out), vec![Some("b".into()), Some("b".into()), Some("b".into())]);
    // A lone low surrogate separator cuts a pair: "x😀y" split by "\uDE00".
    let sep = Col16::new(&[Some(&[0xDE00])]);
    let out = split_index_java(JavaStr::utf8(&s1("x😀y")), sep.arg(), &i1(0)).unwrap();
    assert_eq!(out.value(0), "x?");
    let out = split_index_java(JavaStr::utf8(&s1("x😀y")), sep.arg(), &i1(1)).unwrap();
    assert_eq!(out.value(0), "y");
    // NULL index / out-of-range code on a surrogate row: NULL.
    let out = split_index_java(s.arg(), JavaStr::utf8(&i1(0)), &i1(0)).unwrap();
    assert_eq!(out.null_count(), 3);
}

#[test]
fn like_column_pattern_sees_the_raw_surrogate() {
    // '\uD800' LIKE '?' is false on the Java String (SqlLikeUtils.like).
    let s = Col16::new(&[Some(&[0xD800]), Some(&[0xD800]), Some(&u("?")), None]);
    let p = StringArray::from(vec!["?", "_", "?", "?"]);
    let out = like_java(s.arg(), JavaStr::utf8(&p), None).unwrap();
    assert_eq!(bools_of(&out), vec![Some(false), Some(true), Some(true), None]);
    // A pattern column holding a lone surrogate matches only it.
    let p = Col16::new(&[Some(&[0xDE00]), Some(&[0xD800, 0x25])]);
    let s = StringArray::from(vec!["?", "\u{10000}"]); // U+10000 = D800 DC00
    let out = like_java(JavaStr::utf8(&s), p.arg(), None).unwrap();
    assert_eq!(bools_of(&out), vec![Some(false), Some(false)]);
}

#[test]
fn like_literal_pattern_follows_flinks_path() {
    let hi: &[u16] = &[0xD800];
    let hix: &[u16] = &[0xD800, 0x78];
    let s = Col16::new(&[Some(hi), Some(hix)]);
    let lit = |p: &str| bools_of(&like_java(s.arg(), JavaStr::utf8(&s1(p)), None).unwrap());
    // `equals` on the two Strings.
    assert_eq!(lit("?"), vec![Some(false), Some(false)]);
    assert_eq!(lit("?x"), vec![Some(false), Some(false)]);
    // startsWith / endsWith / contains / chain checker: the '?' bytes.
    assert_eq!(lit("?%"), vec![Some(true), Some(true)]);
    assert_eq!(lit("%?"), vec![Some(true), Some(false)]);
    assert_eq!(lit("%?%"), vec![Some(true), Some(true)]);
    assert_eq!(lit("?%x"), vec![Some(false), Some(true)]);
    // `_` takes the regex path on the String.
    assert_eq!(lit("?_"), vec![Some(false), Some(false)]);
    assert_eq!(lit("__"), vec![Some(false), Some(true)]);
    assert_eq!(lit("_x"), vec![Some(false), Some(true)]);
    // An escaped '%' also takes the regex path.
    let out = like_java(s.arg(), JavaStr::utf8(&s1("?!%")), Some("!")).unwrap();
    assert_eq!(bools_of(&out), vec![Some(false), Some(false)]);
    // Invalid escapes are decided as in like_with_escape.
    assert!(like_java(s.arg(), JavaStr::utf8(&s1("?")), Some("ab")).is_err());
}
