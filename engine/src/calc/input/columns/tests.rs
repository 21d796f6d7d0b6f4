//! The column handover against the row path: the same rows through
//! `process_segments` (rows decoded natively) and `process_columns`
//! (columns borrowed from "Java" arrays) must give identical output rows.

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::Int32Type;
use arrow_array::{
    Array, ArrayRef, BinaryArray, Int32Array, Int64Array, RecordBatch, StringArray, TimestampMillisecondArray,
};
use sluice_transpose::{FlinkType, NullLayout, RowAddress, RowConverter, RowKind, Rows, TypeKind};

use super::{ColumnKind, ColumnSlices, NOT_NEEDED, UNSUPPORTED};
use crate::calc::CalcProgram;

const NAMES: [&str; 5] = ["s", "t", "w", "id", "b"];

fn types() -> Vec<FlinkType> {
    vec![
        FlinkType::string(),
        FlinkType::new(TypeKind::VarChar(20)),
        FlinkType::new(TypeKind::Int),
        FlinkType::new(TypeKind::BigInt).with_nullable(false),
        FlinkType::new(TypeKind::VarBinary(100)),
    ]
}

/// Strings around the 7/8-byte inline boundary, empty, NULL, multi-byte.
fn input() -> (RecordBatch, Vec<RowKind>) {
    let s = vec![
        Some("abc"),
        None,
        Some("héllo wörld, long enough"),
        Some(""),
        Some("1234567"),
        Some("12345678"),
        Some("𝄞x"),
    ];
    let t = vec![Some("x"), Some("y"), None, Some("𝄞"), Some(""), None, Some("abcdefgh")];
    let w = vec![Some(256), Some(224), None, Some(1), Some(512), Some(224), Some(384)];
    let b: Vec<Option<&[u8]>> =
        vec![Some(b"\xff\x00"), None, Some(b""), Some(b"12345678"), None, Some(b"z"), Some(b"\x80")];
    let conv = RowConverter::from_flink_types(&NAMES, &types()).unwrap();
    let cols: Vec<ArrayRef> = vec![
        Arc::new(StringArray::from(s)),
        Arc::new(StringArray::from(t)),
        Arc::new(Int32Array::from(w)),
        Arc::new(Int64Array::from(vec![1, 2, 3, 4, 5, 6, i64::MIN])),
        Arc::new(BinaryArray::from(b)),
    ];
    let kinds = vec![
        RowKind::Insert,
        RowKind::UpdateBefore,
        RowKind::UpdateAfter,
        RowKind::Delete,
        RowKind::Insert,
        RowKind::Insert,
        RowKind::Delete,
    ];
    (RecordBatch::try_new(Arc::clone(conv.schema()), cols).unwrap(), kinds)
}

fn program(exprs: &[&str]) -> CalcProgram {
    let names: Vec<String> = NAMES.iter().map(|s| s.to_string()).collect();
    CalcProgram::new(&names, &types(), exprs, None).unwrap()
}

/// The reference: rows through the row path.
fn row_path(exprs: &[&str], batch: &RecordBatch, kinds: &[RowKind]) -> Rows {
    let conv = RowConverter::from_flink_types(&NAMES, &types()).unwrap();
    let rows = conv.batch_to_rows(batch, Some(kinds), NullLayout::Serializer).unwrap();
    let segs: Vec<&[u8]> = rows.iter().collect();
    let addrs: Vec<RowAddress> =
        segs.iter().enumerate().map(|(i, s)| RowAddress { segment: i, offset: 0, len: s.len() }).collect();
    let mut out = Rows::default();
    program(exprs).process_segments(&segs, &addrs, &mut out).unwrap();
    out
}

/// A column as Java would hand it over: owned arrays.
struct JavaColumn {
    field: usize,
    kind: ColumnKind,
    values: Vec<u8>,
    offsets: Vec<i32>,
    nulls: Vec<u8>,
}

impl JavaColumn {
    fn of(batch: &RecordBatch, field: usize) -> Self {
        let a = batch.column(field);
        let nulls: Vec<u8> = (0..a.len()).map(|i| u8::from(a.is_null(i))).collect();
        let kind = ColumnKind::for_type(a.data_type()).unwrap();
        let (values, offsets) = match kind {
            ColumnKind::Utf8 => {
                let s = a.as_string::<i32>();
                (s.values().to_vec(), s.value_offsets().to_vec())
            }
            ColumnKind::Binary => {
                let s = a.as_binary::<i32>();
                (s.values().to_vec(), s.value_offsets().to_vec())
            }
            _ => (a.to_data().buffers()[0].as_slice().to_vec(), Vec::new()),
        };
        JavaColumn { field, kind, values, offsets, nulls }
    }

    fn slices(&self) -> ColumnSlices<'_> {
        ColumnSlices {
            field: self.field,
            kind: self.kind,
            values: &self.values,
            offsets: &self.offsets,
            nulls: &self.nulls,
        }
    }
}

fn column_path(exprs: &[&str], cols: &[JavaColumn], kinds: &[RowKind], n: usize) -> Result<Rows, String> {
    let slices: Vec<ColumnSlices<'_>> = cols.iter().map(JavaColumn::slices).collect();
    let bytes: Vec<u8> = kinds.iter().map(|k| k.to_byte()).collect();
    let mut out = Rows::default();
    program(exprs).process_columns(&slices, &bytes, n, &mut out).map_err(|e| e.to_string())?;
    Ok(out)
}

#[test]
fn column_kinds_mark_read_unread_and_unsupported_fields() {
    assert_eq!(
        program(&["md5(s)"]).column_kinds(),
        vec![ColumnKind::Utf8 as i32, NOT_NEEDED, NOT_NEEDED, NOT_NEEDED, NOT_NEEDED]
    );
    assert_eq!(
        program(&["sha2(t, w)", "id", "b"]).column_kinds(),
        vec![
            NOT_NEEDED,
            ColumnKind::Utf8 as i32,
            ColumnKind::Int32 as i32,
            ColumnKind::Int64 as i32,
            ColumnKind::Binary as i32
        ]
    );
    let names = vec!["s".to_string(), "ts".to_string()];
    let types = vec![FlinkType::string(), FlinkType::new(TypeKind::Timestamp(6))];
    let p = CalcProgram::new(&names, &types, &["md5(s)", "ts"], None).unwrap();
    assert_eq!(p.column_kinds(), vec![ColumnKind::Utf8 as i32, UNSUPPORTED]);
}

/// TIMESTAMP(3) and TIMESTAMP_LTZ(3) travel as epoch milliseconds (`long[]`)
/// and give the rows the row path gives (NULLs, negative and zero values).
#[test]
fn millisecond_timestamps_match_the_row_path() {
    let names = vec!["ts".to_string(), "ltz".to_string()];
    let types = vec![FlinkType::new(TypeKind::Timestamp(3)), FlinkType::new(TypeKind::TimestampLtz(3))];
    let conv = RowConverter::from_flink_types(&["ts", "ltz"], &types).unwrap();
    let ts = TimestampMillisecondArray::from(vec![Some(0), None, Some(-1_234), Some(1_700_000_000_123)]);
    let ltz = TimestampMillisecondArray::from(vec![None, Some(5), Some(i64::MAX / 1_000_000), None]);
    let batch = RecordBatch::try_new(Arc::clone(conv.schema()), vec![Arc::new(ts), Arc::new(ltz)]).unwrap();
    let kinds = [RowKind::Insert; 4];
    let rows = conv.batch_to_rows(&batch, Some(&kinds), NullLayout::Serializer).unwrap();
    let segs: Vec<&[u8]> = rows.iter().collect();
    let addrs: Vec<RowAddress> =
        segs.iter().enumerate().map(|(i, s)| RowAddress { segment: i, offset: 0, len: s.len() }).collect();
    let mut program = CalcProgram::new(&names, &types, &["ltz", "ts"], None).unwrap();
    assert_eq!(program.column_kinds(), vec![ColumnKind::TimestampMs as i32; 2]);
    let mut want = Rows::default();
    program.process_segments(&segs, &addrs, &mut want).unwrap();
    let cols: Vec<JavaColumn> = (0..2).map(|f| JavaColumn::of(&batch, f)).collect();
    let slices: Vec<ColumnSlices<'_>> = cols.iter().map(JavaColumn::slices).collect();
    let mut got = Rows::default();
    program.process_columns(&slices, &[0; 4], 4, &mut got).unwrap();
    assert_eq!((got.offsets, got.data), (want.offsets, want.data));
}

#[test]
fn columns_give_the_same_rows_as_the_row_path() {
    let (batch, kinds) = input();
    let exprs = [
        "md5(s)",
        "sha2(s, w) AS h",
        "id",
        "concat(s, '-', t)",
        "concat_ws('|', t, s)",
        "POSITION('l' IN s)",
        "b",
        "t",
    ];
    let want = row_path(&exprs, &batch, &kinds);
    let cols: Vec<JavaColumn> = (0..5).map(|f| JavaColumn::of(&batch, f)).collect();
    let got = column_path(&exprs, &cols, &kinds, batch.num_rows()).unwrap();
    assert_eq!(got.offsets, want.offsets);
    assert_eq!(got.data, want.data);
    // Only the read columns: unread ones are placeholders, as in the row path.
    let exprs = ["sha1(t)"];
    let got = column_path(&exprs, &cols[1..2], &kinds, batch.num_rows()).unwrap();
    let want = row_path(&exprs, &batch, &kinds);
    assert_eq!((got.offsets, got.data), (want.offsets, want.data));
}

#[test]
fn a_batch_prefix_and_misaligned_fixed_values_work() {
    let (batch, kinds) = input();
    // Row 4's t is empty: its start offset is the end of the values.
    let exprs = ["sha2(t, w)", "id"];
    // Values arrays longer than the batch (Java reuses grown arrays).
    let mut cols: Vec<JavaColumn> = (1..4).map(|f| JavaColumn::of(&batch, f)).collect();
    for c in &mut cols {
        c.nulls.extend([1, 1, 1]);
        // Stale bytes after the values (a continuation byte right at the end).
        c.values.extend([0x80; 9]);
    }
    let want = row_path(&exprs, &batch.slice(0, 5), &kinds[..5]);
    let got = column_path(&exprs, &cols, &kinds[..5], 5).unwrap();
    assert_eq!((got.offsets, got.data), (want.offsets.clone(), want.data.clone()));
    // An int column one byte off its alignment is copied, not borrowed.
    let mut shifted = vec![0u8];
    shifted.extend_from_slice(&cols[1].values);
    let slices = [cols[0].slices(), ColumnSlices { values: &shifted[1..], ..cols[1].slices() }, cols[2].slices()];
    assert_ne!(slices[1].values.as_ptr().align_offset(4), 0);
    let bytes: Vec<u8> = kinds[..5].iter().map(|k| k.to_byte()).collect();
    let mut out = Rows::default();
    program(&exprs).process_columns(&slices, &bytes, 5, &mut out).unwrap();
    assert_eq!((out.offsets, out.data), (want.offsets, want.data));
}

#[test]
fn malformed_columns_fail_with_messages() {
    let (batch, kinds) = input();
    let n = batch.num_rows();
    let col = || JavaColumn::of(&batch, 0);
    let run = |c: JavaColumn| column_path(&["md5(s)"], &[c], &kinds, n).unwrap_err();
    let mut bad = col();
    bad.values[0] = 0xFF; // row 0 "abc" → invalid UTF-8
    assert_eq!(run(bad), sluice_transpose::Error::InvalidUtf8 { row: 0, field: "s".into() }.to_string());
    let mut bad = col();
    bad.values[18] = 0xA9; // inside row 2: the 'é' lead byte at 'h' + 1 … make a continuation start
    let e = run(bad);
    assert!(e.contains("row 2"), "{e}");
    let mut bad = col();
    bad.offsets[3] = 1; // decreasing
    assert!(run(bad).contains("offsets decrease at row 2"));
    let mut bad = col();
    *bad.offsets.last_mut().unwrap() = 10_000;
    assert!(run(bad).contains("beyond"));
    let mut bad = col();
    bad.offsets.truncate(3);
    assert!(run(bad).contains("offsets for 7 rows"));
    let mut bad = col();
    bad.kind = ColumnKind::Binary;
    assert!(run(bad).contains("Binary values for Utf8"));
    assert!(column_path(&["md5(s)"], &[], &kinds, n).unwrap_err().contains("field s is read but was not given"));
    assert!(column_path(&["md5(s)"], &[col(), col()], &kinds, n).unwrap_err().contains("given twice"));
    assert!(column_path(&["md5(s)"], &[col()], &kinds[..3], n).unwrap_err().contains("row kinds"));
    let mut id = JavaColumn::of(&batch, 3);
    id.nulls[4] = 1;
    let e = column_path(&["id"], &[id], &kinds, n).unwrap_err();
    assert!(e.contains("NULL") && e.contains("id"), "{e}");
}

#[test]
fn int_results_and_nulls_decode_back() {
    let (batch, kinds) = input();
    let cols = [JavaColumn::of(&batch, 0)];
    let out = column_path(&["POSITION('l' IN s)"], &cols, &kinds, batch.num_rows()).unwrap();
    let conv = RowConverter::from_flink_types(&["p"], &[FlinkType::new(TypeKind::Int)]).unwrap();
    let (b, k) = conv.rows_to_batch(&out.data, &out.offsets).unwrap();
    assert_eq!(k, kinds);
    let pos: Vec<Option<i32>> = b.column(0).as_primitive::<Int32Type>().iter().collect();
    assert_eq!(pos, vec![Some(0), None, Some(3), Some(0), Some(0), Some(0), Some(0)]);
}
