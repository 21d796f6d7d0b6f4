//! `validate_utf8` / `binary_to_utf8` against `std::str::from_utf8` as the
//! oracle, on sliced arrays with NULL rows and every binary layout.

use std::sync::Arc;

use arrow_array::{Array, ArrayRef, BinaryArray, BinaryViewArray, LargeBinaryArray, StringArray};
use proptest::prelude::*;
use sluice_kernels::validate::{binary_to_utf8, validate_utf8};
use sluice_kernels::Error;

fn binary(rows: &[Option<Vec<u8>>], layout: u8, pad: usize) -> ArrayRef {
    let mut all: Vec<Option<&[u8]>> = (0..pad).map(|_| Some(&b"\xff\xfe"[..])).collect();
    all.extend(rows.iter().map(|r| r.as_deref()));
    all.push(Some(b"\xc3")); // a truncated character right after the slice
    let full: ArrayRef = match layout % 3 {
        0 => Arc::new(BinaryArray::from(all)),
        1 => Arc::new(LargeBinaryArray::from(all)),
        _ => Arc::new(BinaryViewArray::from(all)),
    };
    full.slice(pad, rows.len())
}

/// First invalid row by the standard library (NULL rows included).
fn oracle(rows: &[Option<Vec<u8>>]) -> Option<(usize, usize)> {
    rows.iter().enumerate().find_map(|(i, r)| {
        let b = r.as_deref().unwrap_or(&[]);
        std::str::from_utf8(b).err().map(|e| (i, e.valid_up_to()))
    })
}

fn bytes_strategy() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        // Mostly valid text (multi-byte included) ...
        "[a-zé€😀]{0,12}".prop_map(|s| s.into_bytes()),
        // ... cut at a random byte, which may split a character ...
        ("[é€😀a]{1,6}", any::<prop::sample::Index>()).prop_map(|(s, i)| {
            let b = s.into_bytes();
            let cut = i.index(b.len() + 1);
            b[..cut].to_vec()
        }),
        // ... or arbitrary bytes.
        prop::collection::vec(any::<u8>(), 0..8),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn validate_matches_std(
        rows in prop::collection::vec(prop::option::weighted(0.9, bytes_strategy()), 0..20),
        layout in 0u8..3, pad in 0usize..4,
    ) {
        // A NULL row here holds no bytes (arrow writes none for None).
        let a = binary(&rows, layout, pad);
        let got = validate_utf8(a.as_ref());
        match oracle(&rows) {
            None => {
                prop_assert!(got.is_ok(), "{:?}", got);
                let s = binary_to_utf8(a.as_ref()).unwrap();
                prop_assert_eq!(s.len(), rows.len());
                for (i, r) in rows.iter().enumerate() {
                    prop_assert_eq!(s.is_null(i), r.is_none());
                }
                let s = arrow_array::cast::AsArray::as_string_opt::<i32>(s.as_ref())
                    .map(|s| s.iter().map(|v| v.map(str::to_string)).collect::<Vec<_>>());
                if let Some(vals) = s {
                    let want: Vec<Option<String>> = rows.iter()
                        .map(|r| r.as_ref().map(|b| String::from_utf8(b.clone()).unwrap()))
                        .collect();
                    prop_assert_eq!(vals, want);
                }
            }
            Some((row, valid_up_to)) => match got {
                Err(Error::InvalidUtf8 { row: r, valid_up_to: v }) => {
                    prop_assert_eq!((r, v), (row, valid_up_to));
                }
                other => prop_assert!(false, "expected InvalidUtf8, got {:?}", other),
            },
        }
    }
}

/// Each row valid on its own fails only through the offsets: "é" split
/// across two rows is valid as a span but not per row.
#[test]
fn offsets_inside_a_character_are_caught() {
    let a = BinaryArray::from(vec![&b"a\xc3"[..], b"\xa9b"]);
    match validate_utf8(&a) {
        Err(Error::InvalidUtf8 { row: 0, valid_up_to: 1 }) => {}
        other => panic!("{other:?}"),
    }
}

/// NULL rows are validated too: Arrow requires a Utf8 values buffer to be
/// UTF-8 throughout.
#[test]
fn null_rows_with_invalid_bytes_are_rejected() {
    let valid = BinaryArray::from(vec![&b"ok"[..], b"\xff"]);
    let (offsets, values, _) = valid.into_parts();
    let nulls = arrow_buffer::NullBuffer::from(vec![true, false]);
    let a = BinaryArray::new(offsets, values, Some(nulls));
    assert!(matches!(validate_utf8(&a), Err(Error::InvalidUtf8 { row: 1, valid_up_to: 0 })));
}

#[test]
fn zero_copy_and_types() {
    let b = BinaryArray::from(vec![&b"h\xc3\xa9"[..], b""]);
    let s = binary_to_utf8(&b).unwrap();
    let s = s.as_any().downcast_ref::<StringArray>().unwrap();
    assert_eq!(s.value(0), "hé");
    assert_eq!(s.values().as_ptr(), b.values().as_ptr(), "reinterpreted, not copied");
    let l = binary_to_utf8(&LargeBinaryArray::from(vec![&b"x"[..]])).unwrap();
    assert_eq!(l.data_type(), &arrow_schema::DataType::LargeUtf8);
    let v = binary_to_utf8(&BinaryViewArray::from(vec![&b"a much longer string than twelve"[..]])).unwrap();
    assert_eq!(v.data_type(), &arrow_schema::DataType::Utf8View);
    assert!(matches!(validate_utf8(&arrow_array::Int32Array::from(vec![1])), Err(Error::InvalidArgument(_))));
    assert!(validate_utf8(&BinaryArray::from(Vec::<&[u8]>::new())).is_ok());
}
