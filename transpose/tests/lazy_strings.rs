//! VARCHAR columns delivered as UTF-16 (lazy Java strings) land in the same
//! Arrow column as the row path, with Flink's encoding rule.

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, Int64Array, RecordBatch, StringArray};
use arrow_buffer::NullBuffer;
use sluice_kernels::alloc_count::{count_allocs, CountingAlloc};
use sluice_kernels::encode::CachedEncoder;
use sluice_transpose::lazy_strings::Utf16Column;
use sluice_transpose::{Error, FlinkType, NullLayout, RowConverter};

#[global_allocator]
static A: CountingAlloc = CountingAlloc::system();

/// Independent reference for Flink's `StringUtf8Utils.encodeUTF8` (= JDK
/// `String.getBytes(UTF_8)`): every unpaired surrogate unit becomes '?'.
fn flink_utf8(units: &[u16]) -> String {
    char::decode_utf16(units.iter().copied()).map(|r| r.unwrap_or('?')).collect()
}

fn converter(not_null: bool) -> RowConverter {
    let s = if not_null { "STRING NOT NULL" } else { "STRING" };
    RowConverter::from_flink_types(&["id", "s"], &[FlinkType::parse("BIGINT").unwrap(), FlinkType::parse(s).unwrap()])
        .unwrap()
}

fn values(n: usize) -> Vec<Option<Vec<u16>>> {
    let pool: Vec<Vec<u16>> = vec![
        "plain ascii".encode_utf16().collect(),
        "zürich € 中文 😀".encode_utf16().collect(),
        vec![0x61, 0xD800, 0x62], // lone high
        vec![0xDC00, 0xD800],     // reversed pair
        vec![],
        "a long value that is clearly longer than seven bytes".encode_utf16().collect(),
    ];
    (0..n).map(|i| if i % 13 == 5 { None } else { Some(pool[(i / 3) % pool.len()].clone()) }).collect()
}

fn flatten(v: &[Option<Vec<u16>>]) -> (Vec<u16>, Vec<i64>, NullBuffer) {
    let mut units = Vec::new();
    let mut offsets = vec![0i64];
    for x in v {
        if let Some(u) = x {
            units.extend_from_slice(u);
        }
        offsets.push(units.len() as i64);
    }
    (units, offsets, NullBuffer::from(v.iter().map(|x| x.is_some()).collect::<Vec<_>>()))
}

/// Rows whose STRING slot holds junk (the lazy path must not read it).
fn rows_with_junk(conv: &RowConverter, n: usize) -> (Vec<u8>, Vec<i64>) {
    let ids = Int64Array::from_iter_values(0..n as i64);
    let junk = StringArray::from(vec!["not this"; n]);
    let b = RecordBatch::try_new(conv.schema().clone(), vec![Arc::new(ids) as ArrayRef, Arc::new(junk)]).unwrap();
    let mut rows = conv.batch_to_rows(&b, None, NullLayout::Serializer).unwrap();
    for w in rows.offsets.clone().windows(2) {
        // slot 1: an out-of-bounds word, which the row path would refuse
        let p = w[0] as usize + 16;
        rows.data[p..p + 8].copy_from_slice(&((1u64 << 40) | 5).to_le_bytes());
    }
    (rows.data, rows.offsets)
}

#[test]
fn utf16_column_matches_reference_and_row_path() {
    let conv = converter(false);
    let n = 1000;
    let vals = values(n);
    let (units, offs, nulls) = flatten(&vals);
    let (data, row_offs) = rows_with_junk(&conv, n);
    let mut caches = vec![CachedEncoder::new()];
    let col = Utf16Column { field: 1, units: &units, offsets: &offs, nulls: Some(&nulls) };
    let (batch, kinds) = conv.rows_to_batch_with_utf16(&data, &row_offs, &[col], &mut caches).unwrap();
    assert_eq!(kinds.len(), n);
    let got = batch.column(1).as_string::<i32>();
    got.to_data().validate_full().unwrap();
    let expected: StringArray = vals.iter().map(|v| v.as_ref().map(|u| flink_utf8(u))).collect();
    assert_eq!(got, &expected);
    assert_eq!(batch.schema(), *conv.schema());
    assert!(caches[0].stats().hits > 0, "repeated values go through the cache");
    // the row path, given the same strings as UTF-8 in the rows, agrees
    let b2 = RecordBatch::try_new(
        conv.schema().clone(),
        vec![Arc::new(Int64Array::from_iter_values(0..n as i64)) as ArrayRef, Arc::new(expected.clone())],
    )
    .unwrap();
    let rows = conv.batch_to_rows(&b2, None, NullLayout::Serializer).unwrap();
    let (via_rows, _) = conv.rows_to_batch(&rows.data, &rows.offsets).unwrap();
    assert_eq!(via_rows, batch);
}

#[test]
fn utf16_errors() {
    let conv = converter(true);
    let vals = values(20);
    let (units, offs, nulls) = flatten(&vals);
    let (data, row_offs) = rows_with_junk(&conv, 20);
    let mut caches = vec![CachedEncoder::new()];
    let col = Utf16Column { field: 1, units: &units, offsets: &offs, nulls: Some(&nulls) };
    match conv.rows_to_batch_with_utf16(&data, &row_offs, &[col], &mut caches) {
        Err(Error::NullInNonNullable { row: 5, field }) => assert_eq!(field, "s"),
        other => panic!("{other:?}"),
    }
    let conv = converter(false);
    let col = Utf16Column { field: 0, units: &units, offsets: &offs, nulls: None };
    assert!(matches!(conv.utf16_column(&col, &mut caches[0]), Err(Error::Unsupported(_))));
    let short = Utf16Column { field: 1, units: &units, offsets: &offs[..10], nulls: None };
    assert!(matches!(
        conv.rows_to_batch_with_utf16(&data, &row_offs, &[short], &mut caches),
        Err(Error::InvalidArgument(_))
    ));
    let bad = [0i64, 5, 3];
    let col = Utf16Column { field: 1, units: &units, offsets: &bad, nulls: None };
    assert!(matches!(conv.utf16_column(&col, &mut caches[0]), Err(Error::Kernels(_))));
    // without the UTF-16 column, the junk slots are refused by the row path
    assert!(matches!(conv.rows_to_batch(&data, &row_offs), Err(Error::OffsetOutOfBounds { row: 0, .. })));
}

#[test]
fn utf16_entry_allocations_do_not_grow_with_rows() {
    let conv = converter(false);
    let mut counts = Vec::new();
    for n in [10_000, 100_000] {
        let vals = values(n);
        let (units, offs, nulls) = flatten(&vals);
        let (data, row_offs) = rows_with_junk(&conv, n);
        let mut caches = vec![CachedEncoder::new()];
        let col = Utf16Column { field: 1, units: &units, offsets: &offs, nulls: Some(&nulls) };
        let (allocs, r) = count_allocs(|| conv.rows_to_batch_with_utf16(&data, &row_offs, &[col], &mut caches));
        assert_eq!(r.unwrap().0.num_rows(), n);
        counts.push(allocs);
    }
    assert!(counts[1] <= counts[0] + 4, "{counts:?}");
}
