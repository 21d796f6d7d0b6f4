//! The native WHERE over real rows: the kept rows, their RowKinds and
//! values, the empty entries of dropped rows, and that no projection runs
//! on a dropped row.

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::{ArrayRef, Int32Array, RecordBatch, StringArray};
use sluice_transpose::{FlinkType, NullLayout, RowAddress, RowConverter, RowKind, Rows, TypeKind};

use crate::calc::CalcProgram;

const NAMES: [&str; 2] = ["s", "w"];

fn types() -> Vec<FlinkType> {
    vec![FlinkType::string(), FlinkType::new(TypeKind::Int)]
}

/// Input rows: `s` and the SHA2 width `w`; row 3's width 7 makes SHA2 fail.
fn rows() -> (Rows, Vec<RowKind>) {
    let conv = RowConverter::from_flink_types(&NAMES, &types()).unwrap();
    let cols: Vec<ArrayRef> = vec![
        Arc::new(StringArray::from(vec![Some("abc"), None, Some("xyz"), Some("bad width"), Some("a")])),
        Arc::new(Int32Array::from(vec![Some(256), Some(256), Some(224), Some(7), None])),
    ];
    let batch = RecordBatch::try_new(Arc::clone(conv.schema()), cols).unwrap();
    let kinds = vec![RowKind::Insert, RowKind::UpdateBefore, RowKind::UpdateAfter, RowKind::Delete, RowKind::Insert];
    (conv.batch_to_rows(&batch, Some(&kinds), NullLayout::Serializer).unwrap(), kinds)
}

/// Runs `exprs` with `filters` over [`rows`] through the row path.
fn run(exprs: &[&str], filters: &[usize]) -> crate::error::Result<(Rows, CalcProgram)> {
    let names: Vec<String> = NAMES.iter().map(|s| s.to_string()).collect();
    let mut prog = CalcProgram::new(&names, &types(), exprs, None)?.with_filters(filters)?;
    let (input, _) = rows();
    let addrs: Vec<RowAddress> = (0..input.num_rows())
        .map(|i| RowAddress { segment: 0, offset: input.offsets[i] as usize, len: input.row(i).len() })
        .collect();
    let mut out = Rows::default();
    prog.process_segments(&[&input.data], &addrs, &mut out)?;
    Ok((out, prog))
}

/// The kept rows of `out` (non-empty entries) with their input positions.
fn kept(out: &Rows, prog: &CalcProgram) -> (Vec<usize>, RecordBatch, Vec<RowKind>) {
    let at: Vec<usize> = (0..out.num_rows()).filter(|&i| !out.row(i).is_empty()).collect();
    let mut packed = Rows::default();
    packed.offsets.push(0);
    for &i in &at {
        packed.data.extend_from_slice(out.row(i));
        packed.offsets.push(packed.data.len() as i64);
    }
    let names: Vec<&str> = prog.output_names().iter().map(String::as_str).collect();
    let conv = RowConverter::from_flink_types(&names, prog.output_types()).unwrap();
    let (b, k) = conv.rows_to_batch(&packed.data, &packed.offsets).unwrap();
    (at, b, k)
}

#[test]
fn keeps_only_rows_whose_filters_are_all_true_with_their_kinds() {
    let (out, prog) = run(&["s LIKE '%a%'", "md5(s)", "s LIKE '%b%'"], &[0, 2]).unwrap();
    assert_eq!(out.num_rows(), 5, "one entry per input row");
    let (at, b, k) = kept(&out, &prog);
    // "abc": both TRUE; NULL: NULL drops; "xyz": FALSE; "bad width": both
    // TRUE; "a": '%b%' FALSE.
    assert_eq!(at, vec![0, 3]);
    assert_eq!(k, vec![RowKind::Insert, RowKind::Delete]);
    let md5: Vec<Option<&str>> = b.column(1).as_string::<i32>().iter().collect();
    assert_eq!(md5, vec![Some("900150983cd24fb0d6963f7d28e17f72"), Some("409f649e40844668d222eb7aad264e44")]);
    let tests: Vec<Option<bool>> = b.column(0).as_boolean().iter().chain(b.column(2).as_boolean().iter()).collect();
    assert_eq!(tests, vec![Some(true); 4]);
}

/// A projection that fails on a row the WHERE removes (SHA2 with width 7,
/// row 3) does not fail: it is evaluated only over the kept rows, as
/// Flink's Calc evaluates its projections only for rows that pass.
#[test]
fn projections_are_not_evaluated_on_dropped_rows() {
    let e = run(&["s LIKE '%x%'", "sha2(s, w)"], &[]).expect_err("without the filter, row 3 fails");
    assert!(e.to_string().contains("SHA-7 MessageDigest not available"), "{e}");
    let (out, prog) = run(&["s LIKE '%x%'", "sha2(s, w)"], &[0]).unwrap();
    let (at, b, _) = kept(&out, &prog);
    assert_eq!(at, vec![2]);
    let sha: Vec<Option<&str>> = b.column(1).as_string::<i32>().iter().collect();
    assert_eq!(sha, vec![Some("30e90f1cd0ceff8eb3dd6a540a605c0666f841d35de63c57e4dd2877")]);
    // SHA-224("xyz")
}

#[test]
fn no_kept_row_gives_only_empty_entries() {
    let (out, _) = run(&["s LIKE 'none'", "md5(s)"], &[0]).unwrap();
    assert_eq!(out.offsets, vec![0; 6]);
    assert!(out.data.is_empty());
}

#[test]
fn filters_must_be_distinct_boolean_columns() {
    let err = |f: &[usize]| run(&["s LIKE 'a%'", "md5(s)"], f).expect_err("refused").to_string();
    assert_eq!(err(&[1]), "filter column 1 is CHAR(32), not BOOLEAN");
    assert_eq!(err(&[2]), "filter column 2 of 2 output columns");
    assert_eq!(err(&[0, 0]), "filter column 0 listed twice");
}
