use super::*;
use arrow_array::{ArrayRef, Int32Array, StringArray};
use std::sync::Arc;

fn hex(b: &[u8]) -> String {
    b.chunks(8).map(|c| c.iter().map(|x| format!("{x:02x}")).collect::<String>()).collect::<Vec<_>>().join(" ")
}

#[test]
fn rows_match_flink_worked_examples() {
    // docs/flink-semantics.md §2.5 (real Flink output).
    let s: ArrayRef = Arc::new(StringArray::from(vec!["hello", "", "hello world!"]));
    let enc = FlinkKeyEncoder::try_new(std::slice::from_ref(&s), &[0]).unwrap();
    let mut out = Vec::new();
    enc.encode_row(0, &mut out).unwrap();
    assert_eq!(hex(&out), "0000000000000000 68656c6c6f000085");
    out.clear();
    enc.encode_row(1, &mut out).unwrap();
    assert_eq!(hex(&out), "0000000000000000 0000000000000080");
    out.clear();
    enc.encode_row(2, &mut out).unwrap();
    assert_eq!(hex(&out), "0000000000000000 0c00000010000000 68656c6c6f20776f 726c642100000000");

    let cols: Vec<ArrayRef> =
        vec![Arc::new(Int32Array::from(vec![Some(7)])), Arc::new(Int32Array::from(vec![None::<i32>]))];
    let enc = FlinkKeyEncoder::try_new(&cols, &[0, 1]).unwrap();
    out.clear();
    enc.encode_row(0, &mut out).unwrap();
    assert_eq!(hex(&out), "0002000000000000 0700000000000000 0000000000000000");
    assert!(enc.encode_row(1, &mut out).is_err());
}

#[test]
fn null_bit_width() {
    assert_eq!(null_bits_width(0), 8);
    assert_eq!(null_bits_width(56), 8);
    assert_eq!(null_bits_width(57), 16);
    assert_eq!(null_bits_width(120), 16);
    assert_eq!(null_bits_width(121), 24);
}
