//! [`JoinOperator`]: the spec grammar, a LEFT join over a changelog with its
//! hand-computed changelog, per-key-group snapshots and every refusal.

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use arrow_array::{Array, ArrayRef, Int64Array, RecordBatch, StringArray, StructArray};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use sluice_keyed::{CmpOp, CondTerm, JoinLine, JoinType, RowKind};

use super::join::{parse_join, JoinOperator};
use crate::error::Error;
use RowKind::{Delete, Insert, UpdateAfter, UpdateBefore};

fn orders() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int64, false),
        Field::new("item", DataType::Utf8, false),
        Field::new("qty", DataType::Int64, false),
    ]))
}

fn items() -> SchemaRef {
    Arc::new(Schema::new(vec![Field::new("item", DataType::Utf8, false), Field::new("price", DataType::Int64, true)]))
}

fn order_batch(rows: &[(i64, &str, i64)]) -> RecordBatch {
    let cols: Vec<ArrayRef> = vec![
        Arc::new(Int64Array::from(rows.iter().map(|r| r.0).collect::<Vec<_>>())),
        Arc::new(StringArray::from(rows.iter().map(|r| r.1).collect::<Vec<_>>())),
        Arc::new(Int64Array::from(rows.iter().map(|r| r.2).collect::<Vec<_>>())),
    ];
    RecordBatch::try_new(orders(), cols).unwrap()
}

fn item_batch(rows: &[(&str, Option<i64>)]) -> RecordBatch {
    let cols: Vec<ArrayRef> = vec![
        Arc::new(StringArray::from(rows.iter().map(|r| r.0).collect::<Vec<_>>())),
        Arc::new(Int64Array::from(rows.iter().map(|r| r.1).collect::<Vec<_>>())),
    ];
    RecordBatch::try_new(items(), cols).unwrap()
}

/// `(kind, order id, item name on the right, price)`.
type OutRow = (RowKind, Option<i64>, Option<String>, Option<i64>);

/// The [`OutRow`]s of an output batch.
fn out(b: &RecordBatch, kinds: &[RowKind]) -> Vec<OutRow> {
    let id = b.column(0).as_primitive::<Int64Type>();
    let item = b.column(3).as_string::<i32>();
    let price = b.column(4).as_primitive::<Int64Type>();
    (0..b.num_rows())
        .map(|i| {
            (
                kinds[i],
                id.is_valid(i).then(|| id.value(i)),
                item.is_valid(i).then(|| item.value(i).to_string()),
                price.is_valid(i).then(|| price.value(i)),
            )
        })
        .collect()
}

#[test]
fn parses_the_join_grammar() {
    let (l, r) = (orders(), items());
    let o = parse_join(
        "join type=full left_keys=item right_keys=0 left_unique=id right_unique=item null_safe=0 \
         condition=qty>price,qty<>1 line=flink1 replaced_adds=false max_parallelism=256 budget=4096",
        &l,
        &r,
    )
    .unwrap();
    assert_eq!(o.join_type, JoinType::Full);
    assert_eq!((o.left.key_columns.clone(), o.right.key_columns.clone()), (vec![1], vec![0]));
    assert_eq!((o.left.unique_key.clone(), o.right.unique_key.clone()), (Some(vec![0]), Some(vec![0])));
    assert_eq!(o.filter_null_keys, vec![false]);
    assert_eq!(
        o.condition,
        vec![CondTerm { left: 2, op: CmpOp::Gt, right: 1 }, CondTerm { left: 2, op: CmpOp::Ne, right: 1 }]
    );
    assert_eq!((o.line, o.replaced_record_adds_association), (JoinLine::Flink1, false));
    assert_eq!((o.max_parallelism, o.state_budget), (256, Some(4096)));
    let d = parse_join("join type=inner left_keys=1 right_keys=item", &l, &r).unwrap();
    assert_eq!((d.line, d.replaced_record_adds_association, d.max_parallelism), (JoinLine::Flink2, true, 128));
}

#[test]
fn bad_specs_name_the_offending_text() {
    let (l, r) = (orders(), items());
    for (spec, needle) in [
        ("", "empty spec"),
        ("dedup keys=0", "unknown operator `dedup`"),
        ("join left_keys=1 right_keys=0", "join needs `type=`"),
        ("join type=outer left_keys=1 right_keys=0", "type=`outer`"),
        ("join type=inner right_keys=0", "join needs `left_keys=`"),
        ("join type=inner left_keys=1,0 right_keys=0", "left_keys has 2 columns, right_keys 1"),
        ("join type=inner left_keys=nope right_keys=0", "no field named `nope`"),
        ("join type=inner left_keys=1 right_keys=5", "column 5 is out of range"),
        ("join type=inner left_keys=1 right_keys=0 keys=0", "unknown option `keys`"),
        ("join type=inner left_keys=1 right_keys=0 type=left", "`type` given twice"),
        ("join type=inner left_keys=1 right_keys=0 null_safe=1", "null_safe: `1`"),
        ("join type=inner left_keys=1 right_keys=0 condition=qty~price", "condition term `qty~price`"),
        ("join type=inner left_keys=1 right_keys=0 line=flink3", "line=`flink3`"),
        ("join type=inner left_keys=1 right_keys=0 max_parallelism=0", "max_parallelism=`0`"),
    ] {
        let e = parse_join(spec, &l, &r).unwrap_err();
        assert!(e.to_string().contains(needle), "{spec:?}: {e}");
    }
    // Key types that differ are the join's own refusal.
    let e = JoinOperator::new(l.clone(), r.clone(), "join type=inner left_keys=0 right_keys=0").unwrap_err();
    assert!(matches!(e, Error::Keyed(_)), "{e}");
}

/// LEFT join of orders with a changelog of item prices (unique key = join
/// key): the padding is retracted with `-D` when the item arrives; an
/// update of the item retracts the joined row with the input's own `-U` (the
/// item side is inner), brings the padding back and takes it away again
/// before the new joined `+I`; its delete brings the padding back (Flink's
/// `StreamingJoinOperator` with an outer left side).
#[test]
fn left_join_over_a_changelog() {
    let mut j = JoinOperator::new(orders(), items(), "join type=left left_keys=item right_keys=item right_unique=item")
        .unwrap();
    assert_eq!(j.output_schema().fields().len(), 5);
    assert!(j.output_schema().field(4).is_nullable());
    assert!(j.output_schema().field(0).metadata().contains_key("flink.type"));
    let (b, k) = j.push_left(&order_batch(&[(1, "apple", 2), (2, "pear", 1)]), &[Insert, Insert]).unwrap();
    assert_eq!(out(&b, &k), vec![(Insert, Some(1), None, None), (Insert, Some(2), None, None)]);
    let (b, k) = j.push_right(&item_batch(&[("apple", Some(10))]), &[Insert]).unwrap();
    assert_eq!(out(&b, &k), vec![(Delete, Some(1), None, None), (Insert, Some(1), Some("apple".into()), Some(10))]);
    let (b, k) =
        j.push_right(&item_batch(&[("apple", Some(10)), ("apple", Some(12))]), &[UpdateBefore, UpdateAfter]).unwrap();
    assert_eq!(
        out(&b, &k),
        vec![
            (UpdateBefore, Some(1), Some("apple".into()), Some(10)),
            (Insert, Some(1), None, None),
            (Delete, Some(1), None, None),
            (Insert, Some(1), Some("apple".into()), Some(12)),
        ]
    );
    let (b, k) = j.push_right(&item_batch(&[("apple", Some(12))]), &[Delete]).unwrap();
    assert_eq!(out(&b, &k), vec![(Delete, Some(1), Some("apple".into()), Some(12)), (Insert, Some(1), None, None)]);
    assert_eq!(j.num_keys(), (2, 0));
}

#[test]
fn snapshots_round_trip_per_key_group() {
    let spec = "join type=inner left_keys=item right_keys=item";
    let mut j = JoinOperator::new(orders(), items(), spec).unwrap();
    let rows: Vec<(i64, String, i64)> = (0..40).map(|i| (i, format!("item {}", i % 13), i)).collect();
    let r: Vec<(i64, &str, i64)> = rows.iter().map(|(a, b, c)| (*a, b.as_str(), *c)).collect();
    j.push_left(&order_batch(&r), &[Insert; 40]).unwrap();
    let all = j.key_group_range(0, 127).unwrap();
    let blobs = j.snapshot_key_groups(all).unwrap();
    assert_eq!(blobs.len(), 128);
    let refs: Vec<&[u8]> = blobs.iter().map(|b| b.as_slice()).collect();
    let mut again = JoinOperator::new(orders(), items(), spec).unwrap();
    again.restore(&refs, all).unwrap();
    assert_eq!((again.num_keys(), again.size()), (j.num_keys(), j.size()));
    let one = j.snapshot(all).unwrap();
    let mut third = JoinOperator::new(orders(), items(), spec).unwrap();
    third.restore(&[&one], all).unwrap();
    // Same output from the restored joins.
    let probe = item_batch(&[("item 3", Some(1))]);
    let a = j.push_right(&probe, &[Insert]).unwrap();
    let b = again.push_right(&probe, &[Insert]).unwrap();
    assert_eq!(out(&a.0, &a.1), out(&b.0, &b.1));
    assert_eq!(a.0.num_rows(), 3);
    // A blob twice is a key already in state; garbage is an error naming the blob.
    assert!(matches!(third.restore(&[&one], all), Err(Error::Keyed(_))));
    let garbage: &[u8] = b"SLKS not a snapshot";
    assert!(matches!(third.restore(&[&one[..0], garbage], all), Err(Error::Restore { blob: 1, .. })));
    assert!(j.key_group_range(5, 4).is_err());
    assert!(j.key_group_range(0, 128).is_err());
}

#[test]
fn struct_batches_with_row_kind_bytes() {
    let mut j = JoinOperator::new(orders(), items(), "join type=inner left_keys=1 right_keys=0").unwrap();
    let s = StructArray::from(order_batch(&[(1, "a", 1)]));
    j.push_struct(true, &s, None).unwrap();
    let r = StructArray::from(item_batch(&[("a", Some(5)), ("a", Some(5))]));
    let (b, k) = j.push_struct(false, &r, Some(&[0, 3])).unwrap();
    assert_eq!(k, vec![Insert, Delete]);
    assert_eq!(b.num_rows(), 2);
    assert!(j.push_struct(false, &r, Some(&[0, 9])).is_err());
    assert!(j.push_struct(false, &r, Some(&[0])).is_err());
    // A batch of the other side's schema is refused.
    assert!(j.push_left(&item_batch(&[("a", None)]), &[Insert]).is_err());
}

/// The rows-in / rows-out join emits exactly the rows of the batch join's
/// output, and files each input row under the key group of its join key.
#[test]
fn rows_in_rows_out_match_the_batch_join() {
    use sluice_transpose::{FlinkType, NullLayout, RowAddress, RowConverter, Rows};

    use super::join_rows::{JoinRowOperator, RowSchema};

    let spec = "join type=left left_keys=item right_keys=item right_unique=item";
    let mut batches = JoinOperator::new(orders(), items(), spec).unwrap();
    let types = |s: &SchemaRef| s.fields().iter().map(|f| FlinkType::from_arrow_field(f).unwrap()).collect::<Vec<_>>();
    let (lt, rt) = (types(&orders()), types(&items()));
    let (ln, rn) = (["id", "item", "qty"], ["item", "price"]);
    let left = RowSchema { names: &ln, types: &lt };
    let right = RowSchema { names: &rn, types: &rt };
    let mut rows = JoinRowOperator::new(left, right, spec).unwrap();
    assert_eq!(rows.output_types().count(), 5);
    let exit = RowConverter::new(batches.output_schema().clone()).unwrap();
    let steps = [
        (true, order_batch(&[(1, "apple", 2), (2, "pear", 1)]), vec![Insert, Insert]),
        (false, item_batch(&[("apple", Some(10))]), vec![Insert]),
        (false, item_batch(&[("apple", Some(10)), ("apple", Some(12))]), vec![UpdateBefore, UpdateAfter]),
        (true, order_batch(&[(1, "apple", 2)]), vec![Delete]),
    ];
    for (is_left, batch, kinds) in steps {
        let (want_batch, want_kinds) = batches.push(is_left, &batch, &kinds).unwrap();
        let mut want = Rows::default();
        exit.batch_to_rows_into(&want_batch, Some(&want_kinds), NullLayout::Serializer, &mut want).unwrap();
        let entry = RowConverter::new(if is_left { orders() } else { items() }).unwrap();
        let mut input = Rows::default();
        entry.batch_to_rows_into(&batch, Some(&kinds), NullLayout::Serializer, &mut input).unwrap();
        let addrs: Vec<RowAddress> = input
            .offsets
            .windows(2)
            .map(|w| RowAddress { segment: 0, offset: w[0] as usize, len: (w[1] - w[0]) as usize })
            .collect();
        let mut got = Rows::default();
        rows.process_segments(is_left, &[&input.data], &addrs, &mut got).unwrap();
        assert_eq!((got.data, got.offsets), (want.data, want.offsets));
        let groups = rows.key_groups_segments(is_left, &[&input.data], &addrs).unwrap();
        let (mut expect, mut channels) = (vec![0; batch.num_rows()], vec![0; batch.num_rows()]);
        let key = if is_left { 1 } else { 0 };
        sluice_keyed::key_groups(&batch, &[key], 128, 1, &mut expect, &mut channels).unwrap();
        assert_eq!(groups, expect);
    }
    assert_eq!(rows.join().num_keys(), batches.num_keys());
}
