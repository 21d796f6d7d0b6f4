//! The search kernels on string bytes nobody checked to be UTF-8 (binary
//! layouts, as the C ABI passes its string inputs): on UTF-8 bytes every
//! kernel gives exactly what it gives on the same values as `Utf8`; on any
//! bytes POSITION / LOCATE / LIKE give a result computed by Flink's
//! lead-byte rule (the `Utf8` kernel on the same bytes, built unchecked, is
//! the reference), and REPLACE / SPLIT_INDEX give a `Utf8` output whose
//! every row is valid UTF-8, or `InvalidUtf8` naming the first output row
//! that is not.

mod support;

use std::sync::Arc;

use arrow_array::{
    Array, ArrayRef, BinaryArray, BinaryViewArray, Datum, Int32Array, LargeBinaryArray, Scalar, StringArray,
};
use proptest::prelude::*;
use sluice_kernels::search::{like, locate, position, replace, split_index};
use sluice_kernels::Error;

use support::*;

/// `rows` as one of the binary layouts (0 Binary, 1 LargeBinary, 2
/// BinaryView), sliced out of junk rows like `support::strings`.
fn binary(rows: &[Option<Vec<u8>>], layout: u8, pad: usize) -> ArrayRef {
    let mut all: Vec<Option<&[u8]>> =
        (0..pad).map(|k| if k % 2 == 0 { Some(&b"junk\xff"[..]) } else { None }).collect();
    all.extend(rows.iter().map(|r| r.as_deref()));
    all.push(Some(b"tail"));
    let full: ArrayRef = match layout % 3 {
        0 => Arc::new(BinaryArray::from(all)),
        1 => Arc::new(LargeBinaryArray::from(all)),
        _ => Arc::new(BinaryViewArray::from_iter(all)),
    };
    full.slice(pad, rows.len())
}

/// The same bytes as a `Utf8` array built unchecked: the kernels read only
/// bytes, so this is the lead-byte reference for bytes that are not UTF-8.
fn unchecked_utf8(rows: &[Option<Vec<u8>>]) -> StringArray {
    let b = BinaryArray::from(rows.iter().map(|r| r.as_deref()).collect::<Vec<_>>());
    let (offsets, values, nulls) = b.into_parts();
    // SAFETY: deliberately unchecked (see above); only bytes are read.
    unsafe { StringArray::new_unchecked(offsets, values, nulls) }
}

fn s1(v: &str) -> Scalar<StringArray> {
    Scalar::new(StringArray::from(vec![v]))
}
fn b1(v: &[u8]) -> Scalar<BinaryArray> {
    Scalar::new(BinaryArray::from(vec![v]))
}

/// Bytes that are often not UTF-8: ASCII, lead bytes of every length,
/// continuation bytes, bytes Flink's rule counts as one character.
fn raw(max: usize) -> impl Strategy<Value = Vec<u8>> {
    let bytes =
        prop::sample::select(vec![b'a', b'b', b',', b'%', 0xC3, 0xA9, 0xE2, 0x82, 0xAC, 0xF0, 0x9F, 0x80, 0xFF, 0xC0]);
    prop::collection::vec(bytes, 0..max)
}

fn rows_of(s: impl Strategy<Value = Vec<u8>>) -> impl Strategy<Value = Vec<Option<Vec<u8>>>> {
    prop::collection::vec(prop::option::weighted(0.9, s), 0..24)
}

/// Every row of a kernel's `Utf8` output is UTF-8 (what `Utf8` promises).
fn assert_rows_utf8(a: &StringArray) {
    for i in 0..a.len() {
        let (s, e) = (a.value_offsets()[i] as usize, a.value_offsets()[i + 1] as usize);
        assert!(std::str::from_utf8(&a.value_data()[s..e]).is_ok(), "row {i}");
    }
}

fn valid_text() -> impl Strategy<Value = Vec<Option<Vec<u8>>>> {
    rows(24, text(12)).prop_map(|r| r.into_iter().map(|v| v.map(String::into_bytes)).collect())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn binary_of_utf8_is_the_same_as_utf8(rows_ in valid_text(), layout in 0u8..3, pad in 0usize..4) {
        let bin = binary(&rows_, layout, pad);
        let text: Vec<Option<String>> = rows_.iter().map(|r| r.clone().map(|v| String::from_utf8(v).unwrap())).collect();
        let utf8 = strings(&text, 0, pad);
        prop_assert_eq!(position(&s1("b"), &bin).unwrap(), position(&s1("b"), &utf8).unwrap());
        let from = Scalar::new(Int32Array::from(vec![2]));
        prop_assert_eq!(
            locate(&b1("a".as_bytes()), &bin, Some(&from as &dyn Datum)).unwrap(),
            locate(&s1("a"), &utf8, Some(&from as &dyn Datum)).unwrap()
        );
        prop_assert_eq!(like(&bin, &s1("%b_%"), None).unwrap(), like(&utf8, &s1("%b_%"), None).unwrap());
        prop_assert_eq!(replace(&bin, &s1("a"), &s1("XY")).unwrap(), replace(&utf8, &s1("a"), &s1("XY")).unwrap());
        let i = Scalar::new(Int32Array::from(vec![1]));
        prop_assert_eq!(split_index(&bin, &s1(","), &i).unwrap(), split_index(&utf8, &s1(","), &i).unwrap());
    }

    #[test]
    fn searches_on_any_bytes_follow_the_lead_byte_rule(
        rows_ in rows_of(raw(16)), needle in raw(3), layout in 0u8..3, pad in 0usize..4,
    ) {
        let bin = binary(&rows_, layout, pad);
        let reference = unchecked_utf8(&rows_);
        let n = BinaryArray::from(vec![needle.as_slice()]);
        let n = Scalar::new(n);
        prop_assert_eq!(position(&n, &bin).unwrap(), position(&n, &reference).unwrap());
        prop_assert_eq!(like(&bin, &s1("%a_b%"), None).unwrap(), like(&reference, &s1("%a_b%"), None).unwrap());
    }

    #[test]
    fn utf8_outputs_of_any_bytes_are_valid_or_an_error(rows_ in rows_of(raw(16)), layout in 0u8..3, pad in 0usize..4) {
        let bin = binary(&rows_, layout, pad);
        let outs = [
            replace(&bin, &s1("a"), &s1("€")),
            replace(&bin, &b1(b"\xC3"), &s1("")),
            split_index(&bin, &s1(","), &Scalar::new(Int32Array::from(vec![1]))),
        ];
        for out in outs {
            match out {
                Ok(a) => assert_rows_utf8(&a),
                Err(Error::InvalidUtf8 { row, .. }) => prop_assert!(row < rows_.len()),
                Err(e) => prop_assert!(false, "unexpected error {e}"),
            }
        }
    }
}

/// An input row that is not UTF-8 and stays so in the output names that
/// row; the rows before it pass.
#[test]
fn replace_names_the_first_invalid_output_row() {
    let bin = BinaryArray::from(vec![&b"ok"[..], b"fine", b"ab\xC3"]);
    let err = replace(&bin, &s1("b"), &s1("c")).unwrap_err();
    assert!(matches!(err, Error::InvalidUtf8 { row: 2, .. }), "{err}");
    // Replacing the bad byte away gives a valid output.
    let out = replace(&bin, &b1(b"\xC3"), &s1("!")).unwrap();
    assert_eq!(out.value(2), "ab!");
}
