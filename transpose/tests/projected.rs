//! The projected entry transpose decodes the needed fields exactly as the
//! full decode does and leaves typed placeholders (never read) elsewhere.

use std::sync::Arc;

use arrow_array::{Array, ArrayRef, Int32Array, Int64Array, RecordBatch, StringArray};
use sluice_transpose::{FlinkType, NullLayout, RowAddress, RowConverter, RowKind};

fn setup() -> (RowConverter, RecordBatch) {
    let names = ["id", "a", "b", "w"];
    let types: Vec<FlinkType> =
        ["BIGINT NOT NULL", "STRING", "STRING NOT NULL", "INT"].iter().map(|t| FlinkType::parse(t).unwrap()).collect();
    let conv = RowConverter::from_flink_types(&names, &types).unwrap();
    let n = 300;
    let id: ArrayRef = Arc::new(Int64Array::from_iter_values(0..n as i64));
    let a: ArrayRef =
        Arc::new(StringArray::from_iter((0..n).map(|i| (i % 7 != 0).then(|| format!("{i}-{}", "é中𝄞".repeat(i % 5))))));
    let b: ArrayRef = Arc::new(StringArray::from_iter_values((0..n).map(|i| "x".repeat(i % 40))));
    let w: ArrayRef = Arc::new(Int32Array::from_iter((0..n).map(|i| (i % 3 != 0).then_some(i as i32))));
    let batch = RecordBatch::try_new(conv.schema().clone(), vec![id, a, b, w]).unwrap();
    (conv, batch)
}

#[test]
fn needed_columns_equal_the_full_decode_and_the_rest_are_placeholders() {
    let (conv, batch) = setup();
    let n = batch.num_rows();
    let rows = conv.batch_to_rows(&batch, None, NullLayout::Serializer).unwrap();
    let needed = [false, true, false, true];
    let mut kinds = vec![RowKind::Delete; n];
    let got = conv.rows_to_batch_projected(&rows.data, &rows.offsets, &mut kinds, &needed).unwrap();
    assert_eq!(kinds, vec![RowKind::Insert; n]);
    assert_eq!(got.schema(), conv.schema().clone());
    assert_eq!(got.column(1).as_ref(), batch.column(1).as_ref());
    assert_eq!(got.column(3).as_ref(), batch.column(3).as_ref());
    // NOT NULL placeholders: zeros / empty strings, no validity; all valid data.
    let id = got.column(0).as_any().downcast_ref::<Int64Array>().unwrap();
    assert_eq!((id.len(), id.null_count(), id.values().iter().all(|&v| v == 0)), (n, 0, true));
    let b = got.column(2).as_any().downcast_ref::<StringArray>().unwrap();
    assert_eq!((b.len(), b.null_count(), b.value_data().len()), (n, 0, 0));
    for c in got.columns() {
        c.to_data().validate_full().unwrap();
    }

    // The segmented form, each row in its own buffer, gives the same batch.
    let bufs: Vec<&[u8]> = rows.offsets.windows(2).map(|w| &rows.data[w[0] as usize..w[1] as usize]).collect();
    let addrs: Vec<RowAddress> = (0..n).map(|i| RowAddress { segment: i, offset: 0, len: bufs[i].len() }).collect();
    let seg = conv.rows_to_batch_segments_projected(&bufs, &addrs, &mut kinds, &needed).unwrap();
    assert_eq!(seg, got);
}

#[test]
fn a_nullable_placeholder_is_all_null_and_skipped_bytes_are_not_read() {
    let (conv, batch) = setup();
    let mut rows = conv.batch_to_rows(&batch, None, NullLayout::Serializer).unwrap();
    // Corrupt column a's slot in row 1 (length far past the row): the full
    // decode must reject it, a projection that skips `a` never reads it.
    let (start, _) = (rows.offsets[1] as usize, rows.offsets[2] as usize);
    let slot = start + 8 + 8; // null bits (8 bytes for 4 fields + header) then id's slot
    rows.data[slot..slot + 8].copy_from_slice(&((1u64 << 32) | 0x7FFF_0000u64).to_le_bytes());
    let n = batch.num_rows();
    let mut kinds = vec![RowKind::Insert; n];
    assert!(conv.rows_to_batch_projected(&rows.data, &rows.offsets, &mut kinds, &[true; 4]).is_err());
    let got = conv.rows_to_batch_projected(&rows.data, &rows.offsets, &mut kinds, &[true, false, true, true]).unwrap();
    assert_eq!(got.column(1).null_count(), n);
    assert_eq!(got.column(0).as_ref(), batch.column(0).as_ref());
    assert_eq!(got.column(2).as_ref(), batch.column(2).as_ref());
}
