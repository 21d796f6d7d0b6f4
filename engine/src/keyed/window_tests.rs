//! The `window` spec kind through [`KeyedOperator`]: parsing and its
//! errors, rows emitted on the watermark against a hand-computed TUMBLE and
//! HOP, and a snapshot round trip.

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{Int64Type, TimestampMillisecondType};
use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray, TimestampMillisecondArray};
use arrow_schema::{DataType, Field, Schema, SchemaRef, TimeUnit};
use sluice_keyed::{AggSpec, RowKind, WindowSpec};

use super::spec::{assert_refused, parse, SpecKind};
use super::KeyedOperator;

fn schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("k", DataType::Utf8, false),
        Field::new("v", DataType::Int64, true),
        Field::new("t", DataType::Timestamp(TimeUnit::Millisecond, None), false),
    ]))
}

fn batch(rows: &[(&str, i64, i64)]) -> RecordBatch {
    let cols: Vec<ArrayRef> = vec![
        Arc::new(StringArray::from(rows.iter().map(|r| r.0).collect::<Vec<_>>())),
        Arc::new(Int64Array::from(rows.iter().map(|r| r.1).collect::<Vec<_>>())),
        Arc::new(TimestampMillisecondArray::from(rows.iter().map(|r| r.2).collect::<Vec<_>>())),
    ];
    RecordBatch::try_new(schema(), cols).unwrap()
}

/// `(key, count, sum, window_start, window_end, window_time)`, sorted.
fn rows(b: &RecordBatch) -> Vec<(String, i64, i64, i64, i64, i64)> {
    let ts = |c: usize, i: usize| b.column(c).as_primitive::<TimestampMillisecondType>().value(i);
    let mut v: Vec<_> = (0..b.num_rows())
        .map(|i| {
            (
                b.column(0).as_string::<i32>().value(i).to_string(),
                b.column(1).as_primitive::<Int64Type>().value(i),
                b.column(2).as_primitive::<Int64Type>().value(i),
                ts(3, i),
                ts(4, i),
                ts(5, i),
            )
        })
        .collect();
    v.sort();
    v
}

#[test]
fn parses_the_window_spec() {
    let s = schema();
    let w = parse("window keys=k rowtime=t window=hop(10000,5000) offset=1000 aggs=count(*),sum(v)", &s).unwrap();
    assert_eq!(w.keys, vec![0]);
    assert_eq!(
        w.kind,
        SpecKind::Window {
            window: WindowSpec::hop(10000, 5000).with_offset(1000),
            rowtime: 2,
            aggs: vec![AggSpec::count_star(), AggSpec::sum(1)],
            window_time: true,
        }
    );
    let g = parse("window keys= rowtime=2 window=cumulate(60,10) aggs=max(v) window_time=false", &s).unwrap();
    assert!(g.keys.is_empty());
    assert!(matches!(g.kind, SpecKind::Window { window_time: false, .. }));
    assert_refused(
        &s,
        &[
            ("window keys=0 window=tumble(5) aggs=count(*)", "window needs `rowtime=`"),
            ("window keys=0 rowtime=t aggs=count(*)", "window needs `window=`"),
            ("window keys=0 rowtime=t window=tumble(5) aggs=", "aggs= is empty"),
            ("window keys=0 rowtime=t window=slide(5) aggs=count(*)", "window=`slide(5)`"),
            ("window keys=0 rowtime=t window=hop(5) aggs=count(*)", "window=`hop(5)`"),
            ("window keys=0 rowtime=t window=tumble(5s) aggs=count(*)", "`5s` is not a size"),
            ("window keys=0 rowtime=t window=tumble(5) offset=x aggs=count(*)", "offset=`x`"),
            ("window keys=0 rowtime=t window=tumble(5) aggs=count(*) n=3", "unknown option `n` for window"),
            ("window keys=0 rowtime=t window=tumble(5) aggs=count(*) window_time=no", "window_time=`no`"),
        ],
    );
    // The operator's own refusals come back from construction.
    let e = KeyedOperator::new(s.clone(), "window keys=0 rowtime=t window=hop(10,3) aggs=count(*)").unwrap_err();
    assert!(e.to_string().contains("integral multiple of slide"), "{e}");
    let e = KeyedOperator::new(s, "window keys=0 rowtime=k window=tumble(10) aggs=count(*)").unwrap_err();
    assert!(e.to_string().contains("rowtime"), "{e}");
}

#[test]
fn tumble_emits_on_the_watermark_and_drops_late_rows() {
    let mut op =
        KeyedOperator::new(schema(), "window keys=k rowtime=t window=tumble(10) aggs=count(*),sum(v)").unwrap();
    let (out, kinds) =
        op.push(&batch(&[("a", 1, 3), ("b", 2, 12), ("a", 3, 9), ("a", 4, 10)]), &[RowKind::Insert; 4]).unwrap();
    assert_eq!((out.num_rows(), kinds.len()), (0, 0));
    let (out, kinds) = op.advance_watermark(9).unwrap();
    assert_eq!(rows(&out), vec![("a".to_string(), 2, 4, 0, 10, 9)]);
    assert_eq!(kinds, vec![RowKind::Insert]);
    assert_eq!(out.schema(), *op.output_schema());
    assert_eq!(op.output_schema().field(3).name(), "window_start");
    // A row of the fired window [0, 10) is late.
    op.push(&batch(&[("a", 100, 5)]), &[RowKind::Insert]).unwrap();
    let (out, _) = op.advance_watermark(19).unwrap();
    assert_eq!(rows(&out), vec![("a".to_string(), 1, 4, 10, 20, 19), ("b".to_string(), 1, 2, 10, 20, 19)]);
    assert_eq!(op.num_keys(), 0);
    let e = op.push(&batch(&[("a", 1, 30)]), &[RowKind::Delete]).unwrap_err();
    assert!(e.to_string().contains("insert-only"), "{e}");
}

#[test]
fn without_aggregates_one_row_per_key_and_window() {
    // GROUP BY k, window_start, window_end with no aggregate call (Nexmark q8):
    // HOP(10, 5) puts a row at t into the two windows that contain it.
    let mut op = KeyedOperator::new(schema(), "window keys=k rowtime=t window=hop(10,5) window_time=false").unwrap();
    let names: Vec<_> = op.output_schema().fields().iter().map(|f| f.name().clone()).collect();
    assert_eq!(names, ["k", "window_start", "window_end"].map(String::from));
    op.push(&batch(&[("a", 1, 3), ("b", 2, 7), ("a", 3, 4)]), &[RowKind::Insert; 3]).unwrap();
    let (out, kinds) = op.advance_watermark(14).unwrap();
    let ts = |c: usize, i: usize| out.column(c).as_primitive::<TimestampMillisecondType>().value(i);
    let mut got: Vec<_> = (0..out.num_rows())
        .map(|i| (out.column(0).as_string::<i32>().value(i).to_string(), ts(1, i), ts(2, i)))
        .collect();
    got.sort();
    let want = [("a", -5, 5), ("a", 0, 10), ("b", 0, 10), ("b", 5, 15)];
    assert_eq!(got, want.map(|(k, s, e)| (k.to_string(), s, e)));
    assert!(kinds.iter().all(|k| *k == RowKind::Insert));
}

#[test]
fn an_attached_window_takes_the_window_end_from_the_row() {
    // The rows of an upstream HOP(10, 5) aggregate: `t` is their window_end.
    let mut op =
        KeyedOperator::new(schema(), "window keys= rowtime=t window=hop(10,5) attached=true aggs=max(v)").unwrap();
    op.push(&batch(&[("a", 3, 10), ("b", 7, 10), ("a", 2, 15)]), &[RowKind::Insert; 3]).unwrap();
    let (out, _) = op.advance_watermark(9).unwrap();
    let ts = |b: &RecordBatch, c: usize, i: usize| b.column(c).as_primitive::<TimestampMillisecondType>().value(i);
    assert_eq!(out.num_rows(), 1);
    let max = out.column(0).as_primitive::<Int64Type>().value(0);
    assert_eq!((max, ts(&out, 1, 0), ts(&out, 2, 0)), (7, 0, 10));
    // A row of the fired window is late and dropped.
    op.push(&batch(&[("c", 100, 10)]), &[RowKind::Insert]).unwrap();
    let (out, _) = op.advance_watermark(14).unwrap();
    let max = out.column(0).as_primitive::<Int64Type>().value(0);
    assert_eq!((out.num_rows(), max, ts(&out, 1, 0), ts(&out, 2, 0)), (1, 2, 5, 15));
    let e = parse("window keys= rowtime=t window=tumble(5) attached=yes aggs=count(*)", &schema()).unwrap_err();
    assert!(e.to_string().contains("attached=`yes`"), "{e}");
}

#[test]
fn window_time_false_leaves_the_column_out() {
    let spec = "window keys=k rowtime=t window=tumble(10) aggs=count(*) window_time=false";
    let mut op = KeyedOperator::new(schema(), spec).unwrap();
    op.push(&batch(&[("a", 1, 3)]), &[RowKind::Insert]).unwrap();
    let (out, _) = op.advance_watermark(9).unwrap();
    let names: Vec<_> = out.schema().fields().iter().map(|f| f.name().clone()).collect();
    assert_eq!(names, ["k", "countstar_0", "window_start", "window_end"].map(String::from));
    assert_eq!(out.num_rows(), 1);
}

#[test]
fn hop_survives_a_snapshot_round_trip() {
    let spec = "window keys=k rowtime=t window=hop(10,5) aggs=count(*),sum(v)";
    let mut op = KeyedOperator::new(schema(), spec).unwrap();
    op.push(&batch(&[("a", 1, 3), ("a", 2, 7), ("b", 5, 8)]), &[RowKind::Insert; 3]).unwrap();
    let (out, _) = op.advance_watermark(4).unwrap();
    assert_eq!(rows(&out), vec![("a".to_string(), 1, 1, -5, 5, 4)]);
    let range = op.key_group_range(0, 127).unwrap();
    let blobs = op.snapshot_key_groups(range).unwrap();
    let mut back = KeyedOperator::new(schema(), spec).unwrap();
    back.restore(&blobs.iter().map(Vec::as_slice).collect::<Vec<_>>(), range).unwrap();
    let (out, _) = back.advance_watermark(i64::MAX).unwrap();
    assert_eq!(
        rows(&out),
        vec![
            ("a".to_string(), 1, 2, 5, 15, 14),
            ("a".to_string(), 2, 3, 0, 10, 9),
            ("b".to_string(), 1, 5, 0, 10, 9),
            ("b".to_string(), 1, 5, 5, 15, 14),
        ]
    );
}
