//! Appended-columns output ([`super::appended`]) against a plainly written
//! running fold and against the same operator's full output: which specs
//! have the shape, what the rows-in / rows-out operator writes, that unread
//! columns are never needed, and that the state is the same in both modes.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use arrow_array::{Array, ArrayRef, Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use sluice_keyed::{KeyGroupRange, RowKind};
use sluice_transpose::{FlinkType, NullLayout, RowAddress, RowConverter, Rows};

use super::{AppendedShape, KeyedOperator, KeyedRowOperator};

/// `k` (partition), `p` (payload, never read), `v` (argument), `t` (time).
fn schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("k", DataType::Utf8, true),
        Field::new("p", DataType::Utf8, true),
        Field::new("v", DataType::Int64, true),
        Field::new("t", DataType::Int64, false),
    ]))
}

const FOLD: &str = "over keys=k order=proctime frame=rows preceding=unbounded aggs=count(*),count(v),sum(v)";

/// Rows `from..to`: keys with supplementary characters and a NULL key, NULL arguments.
fn batch(from: i64, to: i64) -> RecordBatch {
    let keys = ["a", "𝄞b", "c😀", "a\u{10FFFF}"];
    let k: Vec<Option<String>> =
        (from..to).map(|i| if i % 11 == 0 { None } else { Some(keys[(i % 4) as usize].to_string()) }).collect();
    let p: Vec<Option<String>> = (from..to).map(|i| Some(format!("payload {i}"))).collect();
    let v: Vec<Option<i64>> = (from..to).map(|i| if i % 5 == 0 { None } else { Some(i * 3 - 100) }).collect();
    let cols: Vec<ArrayRef> = vec![
        Arc::new(StringArray::from(k)),
        Arc::new(StringArray::from(p)),
        Arc::new(Int64Array::from(v)),
        Arc::new(Int64Array::from((from..to).collect::<Vec<_>>())),
    ];
    RecordBatch::try_new(schema(), cols).unwrap()
}

/// The running `count(*), count(v), sum(v)` per key after each row, in row order.
type Fold = Vec<(i64, i64, Option<i64>)>;

/// The plainly written running fold over `batches`, in row order.
fn model(batches: &[RecordBatch]) -> Fold {
    let mut acc: HashMap<Option<String>, (i64, i64, Option<i64>)> = HashMap::new();
    let mut out = Vec::new();
    for b in batches {
        let (k, v) = (b.column(0).as_string::<i32>(), b.column(2).as_primitive::<Int64Type>());
        for i in 0..b.num_rows() {
            let key = k.is_valid(i).then(|| k.value(i).to_string());
            let a = acc.entry(key).or_insert((0, 0, None));
            a.0 += 1;
            if v.is_valid(i) {
                a.1 += 1;
                a.2 = Some(a.2.unwrap_or(0) + v.value(i));
            }
            out.push(*a);
        }
    }
    out
}

/// The three aggregate columns of `b` from column `first` on.
fn fold_of(b: &RecordBatch, first: usize) -> Fold {
    let col = |c: usize| b.column(first + c).as_primitive::<Int64Type>().clone();
    let (c0, c1, s) = (col(0), col(1), col(2));
    (0..b.num_rows()).map(|i| (c0.value(i), c1.value(i), s.is_valid(i).then(|| s.value(i)))).collect()
}

#[test]
fn only_the_proctime_unbounded_over_has_the_shape() {
    for frame in ["rows", "range"] {
        let spec = format!("over keys=k order=proctime frame={frame} preceding=unbounded aggs=count(*),sum(v)");
        let op = KeyedOperator::new(schema(), &spec).unwrap();
        assert_eq!(op.appended_shape(), Some(AppendedShape { read: vec![true, false, true, false], first: 4 }));
        let DataType::Struct(fields) = op.appended_field().unwrap().data_type() else { panic!("struct") };
        assert_eq!(fields[..], op.output_schema().fields()[4..]);
    }
    for spec in [
        "over keys=k order=proctime frame=rows preceding=3 aggs=sum(v)",
        "over keys=k order=proctime frame=range preceding=1000 aggs=sum(v)",
        "over keys=k order=rowtime(t) frame=rows preceding=unbounded aggs=sum(v)",
        "over keys=k order=rowtime(t) frame=range preceding=unbounded aggs=sum(v)",
        "group_agg keys=k aggs=sum(v)",
        "dedup keys=k keep=last order=proctime",
    ] {
        let mut op = KeyedOperator::new(schema(), spec).unwrap();
        assert_eq!(op.appended_shape(), None, "{spec}");
        assert!(op.appended_field().is_none(), "{spec}");
        let b = batch(0, 3);
        assert!(op.push_appended(&b, &[RowKind::Insert; 3]).is_err(), "{spec}");
    }
}

#[test]
fn push_appended_is_the_full_output_without_the_input() {
    let (mut full, mut appended) =
        (KeyedOperator::new(schema(), FOLD).unwrap(), KeyedOperator::new(schema(), FOLD).unwrap());
    let batches = [batch(0, 40), batch(40, 41), batch(41, 200)];
    let mut got = Vec::new();
    for b in &batches {
        let kinds = vec![RowKind::Insert; b.num_rows()];
        let (out, out_kinds) = full.push(b, &kinds).unwrap();
        let a = appended.push_appended(b, &kinds).unwrap();
        assert!(out_kinds.iter().all(|k| *k == RowKind::Insert));
        assert_eq!(a.num_columns(), 3);
        assert_eq!(a.schema().fields()[..], out.schema().fields()[4..]);
        assert_eq!(fold_of(&a, 0), fold_of(&out, 4));
        got.extend(fold_of(&a, 0));
    }
    assert_eq!(got, model(&batches));
    // a refused row kind is the push's error
    assert!(appended.push_appended(&batch(0, 1), &[RowKind::Delete]).is_err());
}

/// `b` as Flink `BinaryRowData` bytes, one segment.
fn rows_of(b: &RecordBatch) -> (Rows, Vec<RowAddress>) {
    let mut rows = Rows::default();
    RowConverter::new(b.schema()).unwrap().batch_to_rows_into(b, None, NullLayout::Serializer, &mut rows).unwrap();
    let addrs = rows
        .offsets
        .windows(2)
        .map(|w| RowAddress { segment: 0, offset: w[0] as usize, len: (w[1] - w[0]) as usize })
        .collect();
    (rows, addrs)
}

fn row_operator(spec: &str) -> KeyedRowOperator {
    let s = schema();
    let types: Vec<FlinkType> = s.fields().iter().map(|f| FlinkType::from_arrow_field(f).unwrap()).collect();
    KeyedRowOperator::new(&["k", "p", "v", "t"], &types, &format!("{spec} max_parallelism=128")).unwrap()
}

#[test]
fn rows_out_are_the_aggregates_alone_and_the_state_is_shared() {
    let mut op = row_operator(FOLD);
    assert!(op.appended_types().is_none());
    assert!(op.append_only().unwrap());
    let types: Vec<String> = op.appended_types().unwrap().map(ToString::to_string).collect();
    assert_eq!(types, ["BIGINT NOT NULL", "BIGINT NOT NULL", "BIGINT"]);
    let appended_schema = Arc::new(op.operator().output_schema().project(&[4, 5, 6]).unwrap());
    let decode = RowConverter::new(appended_schema).unwrap();
    let batches = [batch(0, 64), batch(64, 300)];
    let mut got = Vec::new();
    for b in &batches {
        let (mut rows, addrs) = rows_of(b);
        // The payload column is never read: damage its bytes (the string slots of column 1)
        // by pointing every row's payload past the row; a full decode would refuse them.
        for a in &addrs {
            let slot = a.offset + 8 + 8; // null bits (one word for 4 fields), then field 1
            rows.data[slot..slot + 8].copy_from_slice(&(0x7fff_0000_0000_0000u64 | 0xffff).to_le_bytes());
        }
        let mut out = Rows::default();
        assert!(row_operator(FOLD).process_segments(&[&rows.data], &addrs, &mut out).is_err(), "damaged");
        op.process_segments(&[&rows.data], &addrs, &mut out).unwrap();
        let (a, kinds) = decode.rows_to_batch(&out.data, &out.offsets).unwrap();
        assert!(kinds.iter().all(|k| *k == RowKind::Insert));
        got.extend(fold_of(&a, 0));
    }
    assert_eq!(got, model(&batches));

    // The appended mode's snapshot restores into a full-output operator, which carries on.
    let range = KeyGroupRange::new(0, 127);
    let blob = op.operator().snapshot(range).unwrap();
    let mut full = row_operator(FOLD);
    full.operator_mut().restore(&[&blob], range).unwrap();
    let next = batch(300, 340);
    let (rows, addrs) = rows_of(&next);
    let mut out = Rows::default();
    full.process_segments(&[&rows.data], &addrs, &mut out).unwrap();
    let (b, _) = RowConverter::new(full.operator().output_schema().clone())
        .unwrap()
        .rows_to_batch(&out.data, &out.offsets)
        .unwrap();
    let all = model(&[batches[0].clone(), batches[1].clone(), next]);
    assert_eq!(fold_of(&b, 4), all[300..]);
}

#[test]
fn other_operators_stay_in_full_mode() {
    let mut op = row_operator("over keys=k order=proctime frame=rows preceding=2 aggs=sum(v)");
    assert!(!op.append_only().unwrap());
    assert!(op.appended_types().is_none());
}
