//! Every class of malformed row is a specific error naming the row and the
//! field — never a panic, never an out-of-bounds read.

use std::sync::Arc;

use arrow_array::types::Int32Type;
use arrow_array::{ArrayRef, Int32Array, ListArray, RecordBatch, StringArray};
use proptest::prelude::*;
use sluice_transpose::{Error, FlinkType, NullLayout, RowConverter};

fn conv(types: &[&str]) -> RowConverter {
    let names: Vec<String> = (0..types.len()).map(|i| format!("f{i}")).collect();
    let names: Vec<&str> = names.iter().map(|s| s.as_str()).collect();
    let types: Vec<FlinkType> = types.iter().map(|t| FlinkType::parse(t).unwrap()).collect();
    RowConverter::from_flink_types(&names, &types).unwrap()
}

/// A good (INT, STRING) row: 7, 'hello world!' (out of line, at offset 24).
fn good_row() -> Vec<u8> {
    let mut r = vec![0u8; 8];
    r.extend_from_slice(&7i64.to_le_bytes());
    r.extend_from_slice(&((24u64 << 32) | 12).to_le_bytes());
    r.extend_from_slice(b"hello world!\0\0\0\0");
    r
}

/// Puts `bad` at index 2 of a 4-row batch of good rows and decodes.
fn decode_at_2(c: &RowConverter, good: &[u8], bad: &[u8]) -> Error {
    let mut data = Vec::new();
    let mut offs = vec![0i64];
    for i in 0..4 {
        data.extend_from_slice(if i == 2 { bad } else { good });
        offs.push(data.len() as i64);
    }
    c.rows_to_batch(&data, &offs).expect_err("malformed row must be refused")
}

fn set_word(r: &mut [u8], pos: usize, w: u64) {
    r[pos..pos + 8].copy_from_slice(&w.to_le_bytes());
}

/// [`decode_at_2`] where the bad row is `good` changed by `patch`.
fn decode_patched_at_2(c: &RowConverter, good: &[u8], patch: impl FnOnce(&mut [u8])) -> Error {
    let mut bad = good.to_vec();
    patch(&mut bad);
    decode_at_2(c, good, &bad)
}

/// [`decode_at_2`] where the bad row is `good` with the word at `pos` set
/// to `w`.
fn decode_word_at_2(c: &RowConverter, good: &[u8], pos: usize, w: u64) -> Error {
    decode_patched_at_2(c, good, |bad| set_word(bad, pos, w))
}

#[test]
fn good_row_decodes() {
    let c = conv(&["INT", "STRING"]);
    let r = good_row();
    let (b, _) = c.rows_to_batch(&r, &[0, r.len() as i64]).unwrap();
    assert_eq!(b.num_rows(), 1);
}

#[test]
fn offset_past_end() {
    let c = conv(&["INT", "STRING"]);
    match decode_word_at_2(&c, &good_row(), 16, (1000u64 << 32) | 12) {
        Error::OffsetOutOfBounds { row: 2, field, offset: 1000, size: 40 } => assert_eq!(field, "f1"),
        e => panic!("{e:?}"),
    }
}

#[test]
fn length_past_end() {
    let c = conv(&["INT", "STRING"]);
    match decode_word_at_2(&c, &good_row(), 16, (24u64 << 32) | 17) {
        Error::LengthOutOfBounds { row: 2, field, offset: 24, len: 17, size: 40 } => assert_eq!(field, "f1"),
        e => panic!("{e:?}"),
    }
    // a huge length near u32::MAX must not wrap
    let e = decode_word_at_2(&c, &good_row(), 16, (24u64 << 32) | 0xFFFF_FFFF);
    assert!(matches!(e, Error::LengthOutOfBounds { row: 2, .. }));
}

#[test]
fn inline_length_over_seven() {
    let c = conv(&["INT", "STRING"]);
    assert!(matches!(decode_word_at_2(&c, &good_row(), 16, 0x88u64 << 56), Error::ValueOutOfRange { row: 2, .. }));
}

#[test]
fn truncated_row() {
    let c = conv(&["INT", "STRING"]);
    let good = good_row();
    match decode_at_2(&c, &good, &good[..20]) {
        Error::TruncatedRow { row: 2, size: 20, needed: 24 } => {}
        e => panic!("{e:?}"),
    }
    // fixed part present but the variable part cut off
    match decode_at_2(&c, &good, &good[..30]) {
        Error::LengthOutOfBounds { row: 2, .. } => {}
        e => panic!("{e:?}"),
    }
}

#[test]
fn bad_row_kind_byte() {
    let c = conv(&["INT", "STRING"]);
    match decode_patched_at_2(&c, &good_row(), |bad| bad[0] = 4) {
        Error::BadRowKind { row: 2, field: None, byte: 4 } => {}
        e => panic!("{e:?}"),
    }
}

#[test]
fn bad_row_bounds() {
    let c = conv(&["INT"]);
    let r = [0u8; 16];
    assert!(matches!(c.rows_to_batch(&r, &[0, 16, 8]), Err(Error::BadRowBounds { row: 1, .. })));
    assert!(matches!(c.rows_to_batch(&r, &[0, 24]), Err(Error::BadRowBounds { row: 0, .. })));
    assert!(matches!(c.rows_to_batch(&r, &[-8, 8]), Err(Error::BadRowBounds { row: 0, .. })));
    let segs: [&[u8]; 1] = [&r];
    let addr = [sluice_transpose::RowAddress { segment: 0, offset: 8, len: 16 }];
    assert!(matches!(c.rows_to_batch_segments(&segs, &addr), Err(Error::BadRowBounds { row: 0, .. })));
    let addr = [sluice_transpose::RowAddress { segment: 1, offset: 0, len: 16 }];
    assert!(matches!(c.rows_to_batch_segments(&segs, &addr), Err(Error::InvalidArgument(_))));
}

/// ROW<ARRAY<INT>> with [1, NULL, 3] (docs/flink-semantics.md §2.5).
fn array_row() -> Vec<u8> {
    let mut r = vec![0u8; 8];
    r.extend_from_slice(&((16u64 << 32) | 24).to_le_bytes());
    r.extend_from_slice(&[3, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0]);
    r
}

#[test]
fn bad_array_header() {
    let c = conv(&["ARRAY<INT>"]);
    let good = array_row();
    let mut bad = good.clone();
    bad[16..20].copy_from_slice(&(-1i32).to_le_bytes());
    match decode_at_2(&c, &good, &bad) {
        Error::BadNestedHeader { row: 2, field, .. } => assert_eq!(field, "f0"),
        e => panic!("{e:?}"),
    }
    bad[16..20].copy_from_slice(&1000i32.to_le_bytes());
    assert!(matches!(decode_at_2(&c, &good, &bad), Error::BadNestedHeader { row: 2, .. }));
    bad[16..20].copy_from_slice(&i32::MAX.to_le_bytes());
    assert!(matches!(decode_at_2(&c, &good, &bad), Error::BadNestedHeader { row: 2, .. }));
    // array too short to hold its element count
    assert!(matches!(decode_word_at_2(&c, &good, 8, (16u64 << 32) | 2), Error::BadNestedHeader { row: 2, .. }));
}

#[test]
fn null_element_in_not_null_array() {
    let c = conv(&["ARRAY<INT NOT NULL>"]);
    match decode_at_2(&c, &array_row(), &array_row()) {
        Error::NullInNonNullable { row: 0, field } => assert_eq!(field, "f0.element"),
        e => panic!("{e:?}"),
    }
}

/// ROW<MAP<INT, INT>> with {1 → 2}.
fn map_row() -> Vec<u8> {
    let arr = |v: i32| {
        let mut a = vec![1, 0, 0, 0, 0, 0, 0, 0];
        a.extend_from_slice(&v.to_le_bytes());
        a.extend_from_slice(&[0; 4]);
        a
    };
    let mut m = 16i32.to_le_bytes().to_vec();
    m.extend(arr(1));
    m.extend(arr(2));
    let mut r = vec![0u8; 8];
    r.extend_from_slice(&((16u64 << 32) | m.len() as u64).to_le_bytes());
    r.extend(&m);
    r.resize(16 + 40, 0);
    r
}

#[test]
fn bad_map_header() {
    let c = conv(&["MAP<INT, INT>"]);
    let good = map_row();
    let (b, _) = c.rows_to_batch(&good, &[0, good.len() as i64]).unwrap();
    assert_eq!(b.num_rows(), 1);
    let mut bad = good.clone();
    bad[16..20].copy_from_slice(&100i32.to_le_bytes());
    assert!(matches!(decode_at_2(&c, &good, &bad), Error::BadNestedHeader { row: 2, .. }));
    bad[16..20].copy_from_slice(&(-4i32).to_le_bytes());
    assert!(matches!(decode_at_2(&c, &good, &bad), Error::BadNestedHeader { row: 2, .. }));
    // key and value arrays of different lengths
    let mut bad = good.clone();
    bad[36..40].copy_from_slice(&0i32.to_le_bytes());
    match decode_at_2(&c, &good, &bad) {
        Error::BadNestedHeader { row: 2, detail, .. } => assert!(detail.contains("keys"), "{detail}"),
        e => panic!("{e:?}"),
    }
}

/// ROW<ROW<INT, STRING>> with (1, 'x') (docs/flink-semantics.md §2.5).
fn nested_row() -> Vec<u8> {
    let mut r = vec![0u8; 8];
    r.extend_from_slice(&((16u64 << 32) | 24).to_le_bytes());
    r.extend_from_slice(&[0; 8]);
    r.extend_from_slice(&1i64.to_le_bytes());
    r.extend_from_slice(&[b'x', 0, 0, 0, 0, 0, 0, 0x81]);
    r
}

#[test]
fn bad_nested_row() {
    let c = conv(&["ROW<a INT, b STRING>"]);
    let good = nested_row();
    let mut bad = good.clone();
    bad[16] = 7; // nested RowKind byte
    match decode_at_2(&c, &good, &bad) {
        Error::BadRowKind { row: 2, field: Some(f), byte: 7 } => assert_eq!(f, "f0"),
        e => panic!("{e:?}"),
    }
    // shorter than its fixed part (24)
    assert!(matches!(decode_word_at_2(&c, &good, 8, (16u64 << 32) | 16), Error::BadNestedHeader { row: 2, .. }));
    // a string inside the nested row pointing outside the nested row
    match decode_word_at_2(&c, &good, 32, (20u64 << 32) | 8) {
        Error::LengthOutOfBounds { row: 2, field, size: 24, .. } => assert_eq!(field, "f0.b"),
        e => panic!("{e:?}"),
    }
}

#[test]
fn bad_non_compact_values() {
    // DECIMAL(20, 2): 0 bytes or more than 16 bytes
    let c = conv(&["DECIMAL(20, 2)"]);
    let mut good = vec![0u8; 8];
    good.extend_from_slice(&((16u64 << 32) | 2).to_le_bytes());
    good.extend_from_slice(&[0xcf, 0xc7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    assert!(matches!(decode_word_at_2(&c, &good, 8, 16u64 << 32), Error::BadNestedHeader { row: 2, .. }));
    good.extend_from_slice(&[0; 8]);
    assert!(matches!(decode_word_at_2(&c, &good, 8, (16u64 << 32) | 17), Error::BadNestedHeader { row: 2, .. }));
    // TIMESTAMP(9): nanoOfMillisecond out of range, millis past the end
    let c = conv(&["TIMESTAMP(9)"]);
    let mut good = vec![0u8; 8];
    good.extend_from_slice(&(16u64 << 32).to_le_bytes());
    good.extend_from_slice(&1000i64.to_le_bytes());
    let e = decode_word_at_2(&c, &good, 8, (16u64 << 32) | 1_000_000);
    assert!(matches!(e, Error::ValueOutOfRange { row: 2, .. }));
    assert!(matches!(decode_word_at_2(&c, &good, 8, 20u64 << 32), Error::LengthOutOfBounds { row: 2, .. }));
}

#[test]
fn bad_values() {
    // invalid UTF-8 in a STRING
    let c = conv(&["INT", "STRING"]);
    let mut bad = good_row();
    bad[24] = 0xff;
    match decode_at_2(&c, &good_row(), &bad) {
        Error::InvalidUtf8 { row: 2, field } => assert_eq!(field, "f1"),
        e => panic!("{e:?}"),
    }
    // the same bytes are fine as VARBINARY
    let cb = conv(&["INT", "BYTES"]);
    let (b, _) = cb.rows_to_batch(&bad, &[0, bad.len() as i64]).unwrap();
    assert_eq!(b.num_rows(), 1);
    // BINARY(3) with 12 bytes
    let c3 = conv(&["INT", "BINARY(3)"]);
    assert!(matches!(decode_at_2(&c3, &bad, &bad), Error::ValueOutOfRange { row: 0, .. }));
    // NULL in a NOT NULL field
    let cn = conv(&["INT NOT NULL", "STRING"]);
    match decode_patched_at_2(&cn, &good_row(), |bad| bad[1] = 1) {
        Error::NullInNonNullable { row: 2, field } => assert_eq!(field, "f0"),
        e => panic!("{e:?}"),
    }
}

#[test]
fn exit_refuses_mismatched_columns() {
    let c = conv(&["INT", "STRING"]);
    let schema = Arc::new(arrow_schema::Schema::new(vec![
        arrow_schema::Field::new("a", arrow_schema::DataType::Int32, true),
        arrow_schema::Field::new("b", arrow_schema::DataType::Int32, true),
    ]));
    let batch = RecordBatch::try_new(
        schema,
        vec![Arc::new(Int32Array::from(vec![1])) as ArrayRef, Arc::new(Int32Array::from(vec![2]))],
    )
    .unwrap();
    assert!(matches!(c.batch_to_rows(&batch, None, NullLayout::Serializer), Err(Error::Unsupported(_))));
    let ok = RecordBatch::try_new(
        c.schema().clone(),
        vec![Arc::new(Int32Array::from(vec![1])) as ArrayRef, Arc::new(StringArray::from(vec!["x"]))],
    )
    .unwrap();
    assert!(matches!(c.batch_to_rows(&ok, Some(&[]), NullLayout::Serializer), Err(Error::InvalidArgument(_))));
    let _ = ListArray::from_iter_primitive::<Int32Type, _, _>(vec![Some(vec![Some(1)])]);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Arbitrary corruption of valid rows of a nested schema never panics:
    /// it decodes or returns an error.
    #[test]
    fn corrupted_rows_never_panic(
        which in 0usize..3,
        flips in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..6),
        cut in any::<usize>(),
    ) {
        let (c, good) = match which {
            0 => (conv(&["ARRAY<INT>"]), array_row()),
            1 => (conv(&["MAP<INT, INT>"]), map_row()),
            _ => (conv(&["ROW<a INT, b STRING>"]), nested_row()),
        };
        let mut bad = good.clone();
        for (pos, byte) in flips {
            let p = pos % bad.len();
            bad[p] = byte;
        }
        let keep = if cut % 3 == 0 { cut % (bad.len() + 1) } else { bad.len() };
        bad.truncate(keep);
        let _ = c.rows_to_batch(&bad, &[0, bad.len() as i64]);
    }
}

/// Rows of one STRING each: `strings[i]` raw bytes (out of line when > 7).
fn string_rows(strings: &[Vec<u8>]) -> (Vec<u8>, Vec<i64>) {
    let mut data = Vec::new();
    let mut offs = vec![0i64];
    for s in strings {
        let start = data.len();
        data.extend_from_slice(&[0u8; 16]);
        if s.len() <= 7 {
            let mut w = [0u8; 8];
            w[..s.len()].copy_from_slice(s);
            w[7] = 0x80 | s.len() as u8;
            data[start + 8..start + 16].copy_from_slice(&w);
        } else {
            let w = (16u64 << 32) | s.len() as u64;
            data[start + 8..start + 16].copy_from_slice(&w.to_le_bytes());
            data.extend_from_slice(s);
            data.resize(start + 16 + s.len().div_ceil(8) * 8, 0);
        }
        offs.push(data.len() as i64);
    }
    (data, offs)
}

#[test]
fn invalid_utf8_found_in_large_batches_at_its_row() {
    let c = conv(&["STRING"]);
    for bad_row in [0usize, 4_999, 9_999] {
        let mut strings: Vec<Vec<u8>> = (0..10_000).map(|i| format!("row {i} é 中 😀").into_bytes()).collect();
        strings[bad_row][2] = 0xff;
        let (data, offs) = string_rows(&strings);
        match c.rows_to_batch(&data, &offs) {
            Err(Error::InvalidUtf8 { row, field }) => assert_eq!((row, field.as_str()), (bad_row, "f0")),
            other => panic!("{other:?}"),
        }
    }
}

#[test]
fn utf8_split_across_two_values_is_refused() {
    // 'é' = C3 A9 split between two rows: the concatenation is valid UTF-8,
    // each value is not.
    let c = conv(&["STRING"]);
    let mut strings: Vec<Vec<u8>> = (0..3000).map(|_| b"abcdefghijkl".to_vec()).collect();
    strings[1500].push(0xc3);
    strings[1501].insert(0, 0xa9);
    let (data, offs) = string_rows(&strings);
    match c.rows_to_batch(&data, &offs) {
        Err(Error::InvalidUtf8 { row: 1500, .. }) => {}
        other => panic!("{other:?}"),
    }
    // inline values too
    let strings = vec![b"ab\xc3".to_vec(), b"\xa9cd".to_vec()];
    let (data, offs) = string_rows(&strings);
    assert!(matches!(c.rows_to_batch(&data, &offs), Err(Error::InvalidUtf8 { row: 0, .. })));
}

#[test]
fn null_map_key_is_refused() {
    // MAP<INT, INT>: the Flink key type is nullable, an Arrow map key is not
    let c = conv(&["MAP<INT, INT>"]);
    let good = map_row();
    let mut bad = good.clone();
    bad[24] = 1; // null bit of key 0 (key array at row byte 20, bits at +4)
    match decode_at_2(&c, &good, &bad) {
        Error::NullInNonNullable { row: 2, field } => assert_eq!(field, "f0.key"),
        e => panic!("{e:?}"),
    }
}

/// The entry transpose checks whole blocks of rows at once and redoes a
/// block row by row only when one of its rows is bad: a bad row anywhere
/// (first / middle / last of a block, in a later block) is still reported
/// at its own row, with the error of a row-by-row check.
#[test]
fn bad_row_found_at_its_row_in_any_block() {
    let c = conv(&["INT", "STRING"]);
    let good = good_row();
    let n = 1500;
    for bad_at in [0, 1, 255, 256, 511, 700, 1024, n - 1] {
        let build = |bad: &[u8]| {
            let mut data = Vec::new();
            let mut offs = vec![0i64];
            for i in 0..n {
                data.extend_from_slice(if i == bad_at { bad } else { &good });
                offs.push(data.len() as i64);
            }
            (data, offs)
        };
        let mut kind4 = good.clone();
        kind4[0] = 4;
        let (data, offs) = build(&kind4);
        match c.rows_to_batch(&data, &offs) {
            Err(Error::BadRowKind { row, field: None, byte: 4 }) => assert_eq!(row, bad_at),
            r => panic!("{bad_at}: {:?}", r.map(|_| ())),
        }
        let (data, offs) = build(&good[..20]);
        match c.rows_to_batch(&data, &offs) {
            Err(Error::TruncatedRow { row, size: 20, needed: 24 }) => assert_eq!(row, bad_at),
            r => panic!("{bad_at}: {:?}", r.map(|_| ())),
        }
        // offsets out of order at `bad_at`
        let (data, mut offs) = build(&good);
        offs[bad_at + 1] = offs[bad_at] - 8;
        match c.rows_to_batch(&data, &offs) {
            Err(Error::BadRowBounds { row, .. }) => assert_eq!(row, bad_at),
            r => panic!("{bad_at}: {:?}", r.map(|_| ())),
        }
        // every RowKind byte is read into its row's kind
        let (mut data, offs) = build(&good);
        data[offs[bad_at] as usize] = 3;
        let (_, kinds) = c.rows_to_batch(&data, &offs).unwrap();
        assert!(kinds.iter().enumerate().all(|(i, k)| (k.to_byte() == 3) == (i == bad_at)), "{bad_at}");
    }
}
