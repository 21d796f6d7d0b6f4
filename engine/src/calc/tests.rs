//! CalcProgram end to end over real rows: rows in → projected rows out,
//! checked against independently computed values.

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::Int32Type;
use arrow_array::{Array, ArrayRef, Int32Array, Int64Array, RecordBatch, StringArray};
use sluice_transpose::{FlinkType, NullLayout, RowAddress, RowConverter, RowKind, Rows, TypeKind};

use super::CalcProgram;

fn input() -> (Vec<String>, Vec<FlinkType>, RecordBatch, Vec<RowKind>) {
    let names = vec!["s".to_string(), "t".to_string(), "w".to_string(), "id".to_string()];
    let types = vec![
        FlinkType::string(),
        FlinkType::new(TypeKind::VarChar(20)),
        FlinkType::new(TypeKind::Int),
        FlinkType::new(TypeKind::BigInt).with_nullable(false),
    ];
    let conv = RowConverter::from_flink_types(&["s", "t", "w", "id"], &types).unwrap();
    let cols: Vec<ArrayRef> = vec![
        Arc::new(StringArray::from(vec![Some("abc"), None, Some("héllo wörld, long enough"), Some("")])),
        Arc::new(StringArray::from(vec![Some("x"), Some("y"), None, Some("𝄞")])),
        Arc::new(Int32Array::from(vec![Some(256), Some(224), None, Some(1)])),
        Arc::new(Int64Array::from(vec![1, 2, 3, 4])),
    ];
    let batch = RecordBatch::try_new(Arc::clone(conv.schema()), cols).unwrap();
    let kinds = vec![RowKind::Insert, RowKind::UpdateBefore, RowKind::UpdateAfter, RowKind::Delete];
    (names, types, batch, kinds)
}

/// Runs `exprs` over the input rows; returns the decoded output and kinds.
fn run(exprs: &[&str]) -> (RecordBatch, Vec<RowKind>, Vec<String>) {
    let (names, types, batch, kinds) = input();
    let conv = RowConverter::from_flink_types(&["s", "t", "w", "id"], &types).unwrap();
    let rows = conv.batch_to_rows(&batch, Some(&kinds), NullLayout::Serializer).unwrap();
    // Every row in its own segment, as Flink hands them over.
    let segs: Vec<&[u8]> = rows.iter().collect();
    let addrs: Vec<RowAddress> =
        segs.iter().enumerate().map(|(i, s)| RowAddress { segment: i, offset: 0, len: s.len() }).collect();
    let mut prog = CalcProgram::new(&names, &types, exprs, None).unwrap();
    let mut out = Rows::default();
    prog.process_segments(&segs, &addrs, &mut out).unwrap();
    let out_names: Vec<&str> = prog.output_names().iter().map(String::as_str).collect();
    let oconv = RowConverter::from_flink_types(&out_names, prog.output_types()).unwrap();
    let (b, k) = oconv.rows_to_batch(&out.data, &out.offsets).unwrap();
    (b, k, prog.output_types().iter().map(ToString::to_string).collect())
}

fn strings(a: &ArrayRef) -> Vec<Option<String>> {
    a.as_string::<i32>().iter().map(|v| v.map(str::to_string)).collect()
}

#[test]
fn digests_and_pass_through_keep_row_kinds() {
    let (b, k, types) = run(&["md5(s)", "sha2(s, w) AS h", "id", "SHA1(t)"]);
    assert_eq!(k, vec![RowKind::Insert, RowKind::UpdateBefore, RowKind::UpdateAfter, RowKind::Delete]);
    assert_eq!(types, vec!["CHAR(32)", "VARCHAR(128)", "BIGINT NOT NULL", "CHAR(40)"]);
    let md5 = strings(b.column(0));
    assert_eq!(md5[0].as_deref(), Some("900150983cd24fb0d6963f7d28e17f72"));
    assert_eq!(md5[1], None);
    assert_eq!(md5[3].as_deref(), Some("d41d8cd98f00b204e9800998ecf8427e"));
    let sha = strings(b.column(1));
    assert_eq!(sha[0].as_deref(), Some("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
    assert_eq!(sha[1], None, "NULL input");
    assert_eq!(sha[2], None, "NULL width");
    // width 1 is SHA-1 in Flink (the JDK resolves "SHA-1"); SHA-1('') is:
    assert_eq!(sha[3].as_deref(), Some("da39a3ee5e6b4b0d3255bfef95601890afd80709"));
    let ids: Vec<i64> = b.column(2).as_primitive::<arrow_array::types::Int64Type>().values().to_vec();
    assert_eq!(ids, vec![1, 2, 3, 4]);
    assert_eq!(strings(b.column(3))[0].as_deref(), Some("11f6ad8ec52a2984abaafd7c3b516503785c2072"));
}

#[test]
fn concat_and_search_match_flink_null_rules() {
    let (b, _, types) = run(&[
        "concat(s, '-', t)",
        "concat_ws('|', s, t)",
        "POSITION('l' IN s)",
        "locate('o', s, 6)",
        "s LIKE '%wö%'",
        "replace(s, 'l', 'L')",
        "split_index(s, ' ', 1)",
    ]);
    assert_eq!(
        types,
        vec![
            "VARCHAR(2147483647)",
            "VARCHAR(2147483647)",
            "INT",
            "INT",
            "BOOLEAN",
            "VARCHAR(2147483647)",
            "VARCHAR(2147483647)"
        ]
    );
    assert_eq!(strings(b.column(0)), vec![Some("abc-x".into()), None, None, Some("-𝄞".into())]);
    assert_eq!(
        strings(b.column(1)),
        vec![Some("abc|x".into()), Some("y".into()), Some("héllo wörld, long enough".into()), Some("|𝄞".into())]
    );
    let pos: Vec<Option<i32>> = b.column(2).as_primitive::<Int32Type>().iter().collect();
    assert_eq!(pos, vec![Some(0), None, Some(3), Some(0)]);
    let loc: Vec<Option<i32>> = b.column(3).as_primitive::<Int32Type>().iter().collect();
    assert_eq!(loc, vec![Some(0), None, Some(15), Some(0)]); // ö is not o
    let like: Vec<Option<bool>> = b.column(4).as_boolean().iter().collect();
    assert_eq!(like, vec![Some(false), None, Some(true), Some(false)]);
    assert_eq!(strings(b.column(5))[2].as_deref(), Some("héLLo wörLd, Long enough"));
    assert_eq!(strings(b.column(6))[2].as_deref(), Some("wörld,"));
    assert_eq!(b.column(6).null_count(), 3); // out of range ("abc", ""), NULL input
}

#[test]
fn bad_programs_fail_at_creation_with_clear_messages() {
    let (names, types, _, _) = input();
    let err = |exprs: &[&str]| CalcProgram::new(&names, &types, exprs, None).unwrap_err().to_string();
    assert_eq!(err(&["md5(nope)"]), "expression 1 (md5(nope)): unknown column nope; the input has s, t, w, id");
    assert_eq!(err(&["id", "md5(id)"]), "expression 2 (md5(id)): MD5: argument 1 must be a character string (CHAR, VARCHAR, STRING), got BIGINT NOT NULL");
    assert!(err(&["sha2(s, 160)"]).contains("Unsupported algorithm."));
    assert!(err(&["md5('x')"]).contains("constant output columns are not supported"));
    assert_eq!(err(&["md5(s"]), "expression 1 (md5(s): at byte 5: expected ',' or ')', found the end");
    assert_eq!(err(&["concat_ws('|')"]), "expression 1 (concat_ws('|')): CONCAT_WS takes at least 2 arguments, got 1");
    let wrong = [FlinkType::new(TypeKind::Int)];
    let e = CalcProgram::new(&names, &types, &["md5(s)"], Some(&wrong)).unwrap_err().to_string();
    assert_eq!(e, "expression 1 (md5(s)): output type INT is not compatible with the computed CHAR(32)");
}

#[test]
fn invalid_row_width_fails_the_batch_with_flinks_message() {
    let (names, types, batch, _) = input();
    let prog = CalcProgram::new(&names, &types, &["sha2(s, 384)", "sha2(t, w)"], None).unwrap();
    let mut bad = batch.columns().to_vec();
    bad[2] = Arc::new(Int32Array::from(vec![Some(256), None, None, Some(7)]));
    let bad = RecordBatch::try_new(batch.schema(), bad).unwrap();
    let e = prog.eval(&bad).unwrap_err();
    assert!(e.to_string().contains("SHA-7 MessageDigest not available"), "{e}");
}

/// `SqlFunctionUtils.splitIndex(String, int, int)` (flink-table-runtime):
/// an INT separator, literal or column, is a character code; NULL outside
/// 1..=255.
#[test]
fn split_index_takes_an_int_separator() {
    let (b, _, types) = run(&["split_index(s, 44, 0)", "split_index(t, w, 0)", "SPLIT_INDEX(s, 256, 0)"]);
    assert_eq!(types, vec!["VARCHAR(2147483647)"; 3]);
    assert_eq!(strings(b.column(0)), vec![Some("abc".into()), None, Some("héllo wörld".into()), None]);
    // w = 256 (NULL), 224 'à' (absent: the whole value), NULL, 1 (absent)
    assert_eq!(strings(b.column(1)), vec![None, Some("y".into()), None, Some("𝄞".into())]);
    assert_eq!(b.column(2).null_count(), 4);
}

/// An ESCAPE that is not one character: `LikeCallGen` (flink-table-planner)
/// throws `SqlLikeUtils.invalidEscapeCharacter` while generating the code of
/// a literal pattern (the program fails at creation); a column pattern is
/// `SqlLikeUtils.like` per row under `generateCallIfArgsNotNull`, failing
/// only on a row whose string and pattern are both non-NULL.
#[test]
fn like_invalid_escape_fails_as_flink_fails() {
    let (names, types, batch, _) = input();
    let e = CalcProgram::new(&names, &types, &["s LIKE 'a%' ESCAPE 'ab'"], None).unwrap_err().to_string();
    assert_eq!(e, "expression 1 (s LIKE 'a%' ESCAPE 'ab'): Invalid escape character 'ab'");
    let prog = CalcProgram::new(&names, &types, &["s LIKE t ESCAPE ''"], None).unwrap();
    let e = prog.eval(&batch).unwrap_err();
    assert_eq!(e.to_string(), "Invalid escape character ''");
    // Only rows with a NULL operand: NULL, no error.
    let nulls = RecordBatch::try_new(
        batch.schema(),
        vec![
            Arc::new(StringArray::from(vec![None, Some("a")])),
            Arc::new(StringArray::from(vec![Some("a"), None])),
            Arc::new(Int32Array::from(vec![1, 2])),
            Arc::new(Int64Array::from(vec![1, 2])),
        ],
    )
    .unwrap();
    let out = prog.eval(&nulls).unwrap();
    assert_eq!(out.column(0).null_count(), 2);
}
