//! `process_segments_utf16` against the row path fed with independently
//! encoded UTF-8 (Flink's rule: an unpaired surrogate becomes `?`).

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray};
use arrow_buffer::NullBuffer;
use sluice_transpose::lazy_strings::Utf16Column;
use sluice_transpose::{FlinkType, NullLayout, RowAddress, RowConverter, RowKind, Rows, TypeKind};

use crate::calc::CalcProgram;

const NAMES: [&str; 3] = ["s", "id", "t"];

fn types() -> Vec<FlinkType> {
    vec![
        FlinkType::string(),
        FlinkType::new(TypeKind::BigInt).with_nullable(false),
        FlinkType::new(TypeKind::VarChar(20)),
    ]
}

/// Naive reference: UTF-16 → UTF-8 with `?` for every unpaired surrogate
/// (JDK `String.getBytes(UTF_8)`, Flink `StringUtf8Utils.encodeUTF8`).
fn reference(units: &[u16]) -> String {
    char::decode_utf16(units.iter().copied()).map(|c| c.unwrap_or('?')).collect()
}

/// Column values as UTF-16 (`None` = NULL).
fn column_s() -> Vec<Option<Vec<u16>>> {
    let mut v: Vec<Option<Vec<u16>>> =
        ["abc", "héllo wörld", "中文字符串", "𝄞 clef"].iter().map(|s| Some(s.encode_utf16().collect())).collect();
    v.push(Some(vec![0x61, 0xD800, 0x62])); // lone high surrogate
    v.push(Some(vec![0xDC00, 0x63])); // lone low surrogate
    v.push(None);
    for _ in 0..5 {
        v.push(Some("repeated ü".encode_utf16().collect()));
    }
    v
}

fn column_t(n: usize) -> Vec<Option<Vec<u16>>> {
    (0..n).map(|i| if i % 3 == 1 { None } else { Some(format!("t{}é", i % 2).encode_utf16().collect()) }).collect()
}

/// Rows (every row in its own segment) of `s`, `id`, `t` given as UTF-8.
fn rows(s: &[Option<String>], t: &[Option<String>]) -> Rows {
    let conv = RowConverter::from_flink_types(&NAMES, &types()).unwrap();
    let ids: Vec<i64> = (0..s.len() as i64).map(|i| i * 10).collect();
    let cols: Vec<ArrayRef> = vec![
        Arc::new(StringArray::from(s.to_vec())),
        Arc::new(Int64Array::from(ids)),
        Arc::new(StringArray::from(t.to_vec())),
    ];
    let batch = RecordBatch::try_new(Arc::clone(conv.schema()), cols).unwrap();
    let kinds: Vec<RowKind> =
        (0..s.len()).map(|i| if i % 2 == 0 { RowKind::Insert } else { RowKind::UpdateAfter }).collect();
    conv.batch_to_rows(&batch, Some(&kinds), NullLayout::Serializer).unwrap()
}

fn segments(rows: &Rows) -> (Vec<&[u8]>, Vec<RowAddress>) {
    let segs: Vec<&[u8]> = rows.iter().collect();
    let addrs = segs.iter().enumerate().map(|(i, s)| RowAddress { segment: i, offset: 0, len: s.len() }).collect();
    (segs, addrs)
}

/// Back-to-back units, offsets and validity of a column.
fn packed(values: &[Option<Vec<u16>>]) -> (Vec<u16>, Vec<i64>, NullBuffer) {
    let mut units = Vec::new();
    let mut offsets = vec![0i64];
    for v in values {
        units.extend(v.iter().flatten());
        offsets.push(units.len() as i64);
    }
    let nulls = NullBuffer::from(values.iter().map(Option::is_some).collect::<Vec<_>>());
    (units, offsets, nulls)
}

/// The UTF-16 path: the string fields NULL in the rows, `s` and `t` given
/// as units (`t` listed first).
fn run_utf16(prog: &mut CalcProgram, s16: &[Option<Vec<u16>>], t16: &[Option<Vec<u16>>]) -> Rows {
    let blank = vec![None; s16.len()];
    let bare = rows(&blank, &blank);
    let (segs, addrs) = segments(&bare);
    let (su, so, sn) = packed(s16);
    let (tu, to, tn) = packed(t16);
    let cols = [
        Utf16Column { field: 2, units: &tu, offsets: &to, nulls: Some(&tn) },
        Utf16Column { field: 0, units: &su, offsets: &so, nulls: Some(&sn) },
    ];
    let mut got = Rows::default();
    prog.process_segments_utf16(&segs, &addrs, &cols, &mut got).unwrap();
    got
}

const EXPRS: [&str; 4] = ["s", "concat_ws('|', t, s)", "id", "md5(s)"];

#[test]
fn utf16_columns_give_the_rows_the_utf8_path_gives() {
    let s16 = column_s();
    let t16 = column_t(s16.len());
    let utf8 = |c: &[Option<Vec<u16>>]| c.iter().map(|v| v.as_deref().map(reference)).collect::<Vec<_>>();
    // Reference: the row path over independently encoded UTF-8.
    let full = rows(&utf8(&s16), &utf8(&t16));
    let (segs, addrs) = segments(&full);
    let mut prog = CalcProgram::new(&NAMES.map(String::from), &types(), &EXPRS, None).unwrap();
    let mut want = Rows::default();
    prog.process_segments(&segs, &addrs, &mut want).unwrap();
    let got = run_utf16(&mut prog, &s16, &t16);
    assert_eq!(got.offsets, want.offsets);
    assert_eq!(got.data, want.data);
    // Spot check the reference itself: lone surrogates are '?'.
    assert_eq!(reference(&[0x61, 0xD800, 0x62]), "a?b");
    assert_eq!(reference(&[0xDC00, 0x63]), "?c");
}

#[test]
fn the_encode_cache_serves_runs_across_batches() {
    let s16 = column_s();
    let n = s16.len();
    let blank = vec![None; n];
    let bare = rows(&blank, &blank);
    let (segs, addrs) = segments(&bare);
    let mut prog = CalcProgram::new(&NAMES.map(String::from), &types(), &EXPRS, None).unwrap();
    assert_eq!(prog.utf16_cache_stats(0), None);
    let (su, so, sn) = packed(&s16);
    let cols = [Utf16Column { field: 0, units: &su, offsets: &so, nulls: Some(&sn) }];
    let mut out = Rows::default();
    prog.process_segments_utf16(&segs, &addrs, &cols, &mut out).unwrap();
    // 3 distinct non-ASCII values and the first "repeated ü" miss, its 4
    // repeats hit; "abc" and the two values with lone surrogates narrow
    // (UTF-8 as long as UTF-16) and are never cached; the NULL does not
    // touch the cache.
    let st = prog.utf16_cache_stats(0).unwrap();
    assert_eq!((st.hits, st.misses, st.ineligible, st.bypassed), (4, 4, 3, false));
    // The next batch starts with the same value: served from the cache kept
    // in the program.
    let run: Vec<Option<Vec<u16>>> = vec![Some("repeated ü".encode_utf16().collect()); 3];
    let bare3 = rows(&[None, None, None], &[None, None, None]);
    let (segs3, addrs3) = segments(&bare3);
    let (ru, ro, rn) = packed(&run);
    let cols = [Utf16Column { field: 0, units: &ru, offsets: &ro, nulls: Some(&rn) }];
    prog.process_segments_utf16(&segs3, &addrs3, &cols, &mut out).unwrap();
    let st = prog.utf16_cache_stats(0).unwrap();
    assert_eq!((st.hits, st.misses), (7, 4));
    assert_eq!(prog.utf16_cache_stats(2).map(|s| s.hits + s.misses), Some(0), "t was not given as UTF-16");
}

#[test]
fn bad_utf16_columns_fail_with_clear_messages() {
    let bare = rows(&[None, None], &[None, None]);
    let (segs, addrs) = segments(&bare);
    let mut prog = CalcProgram::new(&NAMES.map(String::from), &types(), &EXPRS, None).unwrap();
    let units: Vec<u16> = "ab".encode_utf16().collect();
    let offs = [0i64, 1, 2];
    let mut out = Rows::default();
    let mut err =
        |cols: &[Utf16Column<'_>]| prog.process_segments_utf16(&segs, &addrs, cols, &mut out).unwrap_err().to_string();
    let col = |field| Utf16Column { field, units: &units, offsets: &offs, nulls: None };
    assert!(err(&[col(1)]).contains("UTF-16 input for a BIGINT NOT NULL column"), "{}", err(&[col(1)]));
    assert!(err(&[col(7)]).contains("UTF-16 column 7 does not exist; the input has 3 columns"));
    assert!(err(&[col(0), col(0)]).contains("UTF-16 column 0 given twice"));
    let short = Utf16Column { field: 0, units: &units, offsets: &offs[..2], nulls: None };
    assert!(err(&[short]).contains("UTF-16 column 0 has 2 offsets for 2 rows"));
}

/// Unpaired surrogates on the UTF-16 path, as Flink sees values it still
/// holds as Java Strings: `SqlFunctionUtils.replace` / `splitIndex` and
/// `LikeCallGen`'s regex and `equals` paths work on the String (the raw
/// surrogate), POSITION (`BinaryStringData.indexOf`) and the byte quick
/// paths (`startsWith`, ...) on the `?` bytes (`StringUtf8Utils.encodeUTF8`).
#[test]
fn utf16_columns_keep_their_surrogates_for_string_functions() {
    let s16: Vec<Option<Vec<u16>>> = vec![
        Some(vec![0x61, 0xD800, 0x2C, 0x62]), // "a\uD800,b"
        Some("a?,b".encode_utf16().collect()),
        None,
    ];
    let t16: Vec<Option<Vec<u16>>> =
        vec![Some(vec![0xDE00]), Some("?".encode_utf16().collect()), Some("x".encode_utf16().collect())];
    let exprs = [
        "REPLACE(s, '?', 'Q')",
        "SPLIT_INDEX(s, 63, 0)",
        "SPLIT_INDEX(s, '?', 1)",
        "s LIKE 'a?%'",
        "s LIKE 'a_,b'",
        "s LIKE 'a?,b'",
        "REPLACE('x😀', t, 'Y')",
        "POSITION('?' IN s)",
        "'?' LIKE t",
    ];
    let mut prog = CalcProgram::new(&NAMES.map(String::from), &types(), &exprs, None).unwrap();
    let got = run_utf16(&mut prog, &s16, &t16);
    let names: Vec<&str> = prog.output_names().iter().map(String::as_str).collect();
    let (b, _) = RowConverter::from_flink_types(&names, prog.output_types())
        .unwrap()
        .rows_to_batch(&got.data, &got.offsets)
        .unwrap();
    let text = |i: usize| -> Vec<Option<String>> {
        b.column(i).as_string::<i32>().iter().map(|v| v.map(str::to_string)).collect()
    };
    let bools = |i: usize| -> Vec<Option<bool>> { b.column(i).as_boolean().iter().collect() };
    let some = |v: &str| Some(v.to_string());
    // "a\uD800,b".replace("?", "Q") finds no '?'.
    assert_eq!(text(0), vec![some("a?,b"), some("aQ,b"), None]);
    // '?' (63) is not the surrogate: one token, the whole value.
    assert_eq!(text(1), vec![some("a?,b"), some("a"), None]);
    assert_eq!(text(2), vec![None, some(",b"), None]);
    // startsWith on the bytes: true on both.
    assert_eq!(bools(3), vec![Some(true), Some(true), None]);
    // `_` is the regex on the String: it matches the surrogate (and '?').
    assert_eq!(bools(4), vec![Some(true), Some(true), None]);
    // `equals` of two Strings: the surrogate is not '?'.
    assert_eq!(bools(5), vec![Some(false), Some(true), None]);
    // "x😀".replace("\uDE00", "Y") = "x\uD83DY".
    assert_eq!(text(6), vec![some("x?Y"), some("x😀"), some("Y😀")]);
    // indexOf on the bytes: the surrogate is '?'.
    let pos: Vec<Option<i32>> = b.column(7).as_primitive::<arrow_array::types::Int32Type>().iter().collect();
    assert_eq!(pos, vec![Some(2), Some(2), None]);
    // A column pattern holding a lone surrogate matches only it.
    assert_eq!(bools(8), vec![Some(false), Some(true), Some(false)]);
}
