//! UTF-16 → UTF-8 encoding: Flink vectors, a naive reference, every forced
//! dispatch level, and the batch contracts (offsets, NULLs, overflow).

use arrow_array::{Array, StringArray};
use arrow_buffer::NullBuffer;
use proptest::prelude::*;
use sluice_kernels::encode::forced::{self, Sizing};
use sluice_kernels::encode::{encode_utf16_into, utf16_to_large_utf8, utf16_to_utf8, utf8_len};
use sluice_kernels::Error;
use sluice_kernels::Level;

/// Independent reference: Rust's own UTF-16 decoder, with each unpaired
/// surrogate (each `Err`) replaced by `?` as the JDK's `String.getBytes(UTF_8)`
/// does, then Rust's own UTF-8 encoder.
fn naive(units: &[u16]) -> Vec<u8> {
    let mut out = Vec::new();
    for r in char::decode_utf16(units.iter().copied()) {
        match r {
            Ok(c) => out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes()),
            Err(_) => out.push(b'?'),
        }
    }
    out
}

fn levels() -> impl Iterator<Item = Level> {
    Level::testable().into_iter()
}

/// Encodes `units` with every available level, the dispatched entry point
/// and the batch kernel, asserting they all agree with `expected`.
fn check_all(units: &[u16], expected: &[u8]) {
    assert_eq!(utf8_len(units), expected.len(), "utf8_len of {units:04x?}");
    let mut out = b"prefix".to_vec();
    encode_utf16_into(units, &mut out);
    assert_eq!(&out[6..], expected, "dispatched, units {units:04x?}");
    for level in levels() {
        let mut out = Vec::new();
        forced::encode_utf16_into(level, units, &mut out).unwrap();
        assert_eq!(out, expected, "level {level:?}, units {units:04x?}");
        for sizing in [Sizing::Optimistic, Sizing::Exact, Sizing::UpperBound] {
            let arr =
                forced::utf16_to_utf8(level, sizing, i32::MAX as usize, units, &[0, units.len() as i64], None).unwrap();
            assert_eq!(arr.value(0).as_bytes(), expected, "batch {level:?} {sizing:?}");
        }
    }
}

/// The table of docs/flink-semantics.md §4.2, produced by running Flink's own
/// `org.apache.flink.table.data.binary.StringUtf8Utils.encodeUTF8` (via
/// `BinaryStringData.fromString(s).toBytes()`) and JDK 17
/// `String.getBytes(UTF_8)`, which agree; §11 confirms the same on released
/// Flink 2.2.1 and 1.20.5.
#[test]
fn flink_string_utf8_utils_vectors() {
    let cases: &[(&[u16], &[u8])] = &[
        (&[0x0000], &[0x00]),                           // U+0000 is 00, not C0 80
        (&[0xD83D, 0xDE00], &[0xF0, 0x9F, 0x98, 0x80]), // U+1F600
        (&[0x61, 0xD800, 0x62], &[0x61, 0x3F, 0x62]),   // lone high mid-string
        (&[0x78, 0xD800], &[0x78, 0x3F]),               // lone high at end
        (&[0x61, 0xDC00, 0x62], &[0x61, 0x3F, 0x62]),   // lone low
        (&[0xDC00, 0xD800], &[0x3F, 0x3F]),             // reversed pair
        (&[0xD800, 0xD800, 0xDC00], &[0x3F, 0xF0, 0x90, 0x80, 0x80]),
    ];
    for (units, expected) in cases {
        check_all(units, expected);
    }
}

/// Further hand-checked vectors: boundaries of each UTF-8 length.
#[test]
fn boundary_code_points() {
    let cases: &[(&[u16], &[u8])] = &[
        (&[], &[]),
        (&[0x7F], &[0x7F]),
        (&[0x80], &[0xC2, 0x80]),
        (&[0x7FF], &[0xDF, 0xBF]),
        (&[0x800], &[0xE0, 0xA0, 0x80]),
        (&[0xD7FF], &[0xED, 0x9F, 0xBF]),
        (&[0xE000], &[0xEE, 0x80, 0x80]),
        (&[0xFFFF], &[0xEF, 0xBF, 0xBF]),
        (&[0xD800, 0xDC00], &[0xF0, 0x90, 0x80, 0x80]), // U+10000
        (&[0xDBFF, 0xDFFF], &[0xF4, 0x8F, 0xBF, 0xBF]), // U+10FFFF
        (&[0xDBFF], &[0x3F]),
        (&[0xDFFF, 0xDFFF], &[0x3F, 0x3F]),
    ];
    for (units, expected) in cases {
        check_all(units, expected);
    }
}

/// ASCII runs around every block size with one non-ASCII unit (or a pair,
/// or a lone surrogate) at every position: exercises the SIMD block loop,
/// the per-block scalar fallback, the resume and every tail path.
#[test]
fn ascii_runs_with_one_non_ascii_at_every_position() {
    let specials: &[&[u16]] = &[&[0xE9], &[0x20AC], &[0xD800], &[0xDC00], &[0xD83D, 0xDE00], &[0x7F], &[0x80]];
    for len in [1usize, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 95, 127, 128, 129, 200] {
        for pos in 0..len {
            for special in specials {
                let mut units: Vec<u16> = (0..len).map(|i| b'a' as u16 + (i % 26) as u16).collect();
                units.splice(pos..pos, special.iter().copied());
                check_all(&units, &naive(&units));
            }
        }
        let ascii: Vec<u16> = (0..len as u16).map(|i| i % 128).collect();
        check_all(&ascii, &naive(&ascii));
    }
}

/// A surrogate pair split by every block boundary (the high half ends a
/// block, the low half starts the next): must stay one 4-byte character.
#[test]
fn pairs_straddling_block_boundaries() {
    for len in [14usize, 15, 16, 30, 31, 32, 62, 63, 64, 126, 127] {
        let mut units: Vec<u16> = vec![b'x' as u16; len];
        units.extend_from_slice(&[0xD83D, 0xDE00]);
        units.extend(std::iter::repeat_n(b'y' as u16, 70));
        check_all(&units, &naive(&units));
    }
}

fn unit() -> impl Strategy<Value = u16> {
    prop_oneof![
        6 => 0u16..0x80,
        2 => 0x80u16..0x800,
        2 => 0x800u16..0xD800,
        2 => 0xD800u16..0xDC00,
        2 => 0xDC00u16..0xE000,
        1 => 0xE000u16..=0xFFFF,
        1 => Just(0u16),
    ]
}

/// Units as ASCII runs near block sizes interleaved with random units.
fn text() -> impl Strategy<Value = Vec<u16>> {
    let run_len = prop::sample::select(vec![0usize, 1, 15, 16, 17, 31, 32, 33, 63, 64, 65, 128]);
    let piece = prop_oneof![
        (run_len, 0u16..0x80).prop_map(|(n, c)| vec![c; n]),
        prop::collection::vec(unit(), 0..8),
        Just(vec![0xD800u16, 0xDC00]),
    ];
    prop::collection::vec(piece, 0..12).prop_map(|v| v.concat())
}

#[derive(Debug, Clone)]
struct Batch {
    units: Vec<u16>,
    offsets: Vec<i64>,
    nulls: Option<NullBuffer>,
}

/// Rows cut at random points (empty rows included), starting at a random
/// offset into `units` (like a sliced array), with a random validity mask
/// whose NULL rows still span units.
fn batch() -> impl Strategy<Value = Batch> {
    (text(), 0usize..5, prop::collection::vec(any::<prop::sample::Index>(), 0..12), any::<bool>())
        .prop_flat_map(|(units, skip, cuts, with_nulls)| {
            let len = units.len();
            let skip = skip.min(len);
            let mut offsets: Vec<i64> = cuts.iter().map(|c| (skip + c.index(len - skip + 1)) as i64).collect();
            offsets.push(skip as i64);
            offsets.push(len as i64);
            offsets.sort_unstable();
            let rows = offsets.len() - 1;
            let mask = prop::collection::vec(any::<bool>(), rows);
            (Just(units), Just(offsets), mask, Just(with_nulls))
        })
        .prop_map(|(units, offsets, mask, with_nulls)| Batch {
            units,
            offsets,
            nulls: with_nulls.then(|| NullBuffer::from(mask)),
        })
}

fn check_batch(b: &Batch, arr: &dyn Array, value: impl Fn(usize) -> Vec<u8>) {
    arr.to_data().validate_full().unwrap();
    assert_eq!(arr.len(), b.offsets.len() - 1);
    for r in 0..arr.len() {
        let valid = b.nulls.as_ref().is_none_or(|n| n.is_valid(r));
        assert_eq!(arr.is_valid(r), valid, "row {r}");
        let v = value(r);
        if valid {
            let row = &b.units[b.offsets[r] as usize..b.offsets[r + 1] as usize];
            assert_eq!(v, naive(row), "row {r}");
        } else {
            assert!(v.is_empty(), "NULL row {r} has bytes");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn per_value_matches_naive(units in text()) {
        let expected = naive(&units);
        prop_assert_eq!(utf8_len(&units), expected.len());
        let mut out = Vec::new();
        encode_utf16_into(&units, &mut out);
        prop_assert_eq!(&out, &expected);
        for level in levels() {
            let mut out = vec![1, 2, 3];
            forced::encode_utf16_into(level, &units, &mut out).unwrap();
            prop_assert_eq!(&out[3..], &expected[..], "{:?}", level);
        }
    }

    #[test]
    fn random_units_match_naive(units in prop::collection::vec(unit(), 0..300)) {
        let expected = naive(&units);
        prop_assert_eq!(utf8_len(&units), expected.len());
        for level in levels() {
            let mut out = Vec::new();
            forced::encode_utf16_into(level, &units, &mut out).unwrap();
            prop_assert_eq!(&out, &expected, "{:?}", level);
        }
    }

    #[test]
    fn batch_matches_naive(b in batch()) {
        let nulls = b.nulls.as_ref();
        let arr = utf16_to_utf8(&b.units, &b.offsets, nulls).unwrap();
        check_batch(&b, &arr, |r| arr.value(r).as_bytes().to_vec());
        let large = utf16_to_large_utf8(&b.units, &b.offsets, nulls).unwrap();
        check_batch(&b, &large, |r| large.value(r).as_bytes().to_vec());
        for level in levels() {
            for sizing in [Sizing::Optimistic, Sizing::Exact, Sizing::UpperBound] {
                let arr = forced::utf16_to_utf8(level, sizing, i32::MAX as usize, &b.units, &b.offsets, nulls).unwrap();
                check_batch(&b, &arr, |r| arr.value(r).as_bytes().to_vec());
                let large = forced::utf16_to_large_utf8(level, sizing, &b.units, &b.offsets, nulls).unwrap();
                check_batch(&b, &large, |r| large.value(r).as_bytes().to_vec());
            }
        }
    }
}

#[test]
fn empty_batches() {
    for offsets in [&[][..], &[0][..], &[3][..]] {
        let arr = utf16_to_utf8(&[1, 2, 3], offsets, None).unwrap();
        assert_eq!(arr.len(), 0);
        arr.to_data().validate_full().unwrap();
    }
    let arr = utf16_to_utf8(&[], &[0, 0, 0], Some(&NullBuffer::from(vec![true, false]))).unwrap();
    assert_eq!(arr.len(), 2);
    assert_eq!(arr.value(0), "");
    assert!(arr.is_null(1));
    arr.to_data().validate_full().unwrap();
}

/// NULL rows produce no bytes even when their offsets span units, and the
/// output keeps the input's validity.
#[test]
fn null_rows_take_no_bytes() {
    let units: Vec<u16> = "aaabbbccc".encode_utf16().collect();
    let nulls = NullBuffer::from(vec![true, false, true]);
    let arr = utf16_to_utf8(&units, &[0, 3, 6, 9], Some(&nulls)).unwrap();
    assert_eq!(arr.value_offsets(), &[0, 3, 3, 6]);
    assert_eq!(arr.nulls(), Some(&nulls));
    assert_eq!(arr.value(2), "ccc");
}

fn assert_invalid(r: sluice_kernels::Result<StringArray>, needle: &str) {
    match r {
        Err(Error::InvalidArgument(msg)) => assert!(msg.contains(needle), "{msg:?} lacks {needle:?}"),
        other => panic!("expected InvalidArgument, got {other:?}"),
    }
}

#[test]
fn bad_offsets_are_errors_naming_the_row() {
    let units = [0x61u16; 4];
    assert_invalid(utf16_to_utf8(&units, &[0, 2, 1, 3], None), "row 1");
    assert_invalid(utf16_to_utf8(&units, &[0, 2, 5], None), "past the end");
    assert_invalid(utf16_to_utf8(&units, &[-1, 2], None), "negative");
    assert_invalid(utf16_to_utf8(&units, &[0, 2], Some(&NullBuffer::new_null(2))), "validity");
    assert!(matches!(utf16_to_large_utf8(&units, &[3, 2], None), Err(Error::InvalidArgument(_))));
}

/// The i32 limit: the checker on a fabricated length (no 2 GiB buffer), and
/// the batch path with the limit lowered so the same code runs on a few bytes.
#[test]
fn offset_overflow_detected() {
    let needed = i32::MAX as usize + 1;
    assert!(matches!(
        forced::check_output_len::<i32>(needed),
        Err(Error::OffsetOverflow { needed: n, limit }) if n == needed && limit == i32::MAX as usize
    ));
    assert!(forced::check_output_len::<i32>(i32::MAX as usize).is_ok());
    assert!(forced::check_output_len::<i64>(needed).is_ok());

    // 10 × 'é' = 20 bytes; the 3-bytes-per-unit bound (30) exceeds a limit
    // of 20 and 19, so the exact length decides.
    let units = vec![0xE9u16; 10];
    for sizing in [Sizing::Optimistic, Sizing::Exact, Sizing::UpperBound] {
        let ok = forced::utf16_to_utf8(Level::Scalar, sizing, 20, &units, &[0, 5, 10], None).unwrap();
        assert_eq!(ok.value(1), "ééééé");
        let err = forced::utf16_to_utf8(Level::Scalar, sizing, 19, &units, &[0, 5, 10], None).unwrap_err();
        assert!(matches!(err, Error::OffsetOverflow { needed: 20, limit: 19 }), "{sizing:?}: {err:?}");
        // NULL rows do not count towards the limit.
        let nulls = NullBuffer::from(vec![true, false]);
        let ok = forced::utf16_to_utf8(Level::Scalar, sizing, 10, &units, &[0, 5, 10], Some(&nulls)).unwrap();
        assert_eq!(ok.value(0), "ééééé");
    }
    // The optimistic guess (1 byte per unit) is overtaken mid-batch: the
    // exact pass over the remaining rows must include the rows already
    // written in the total it checks.
    let mut units: Vec<u16> = vec![b'a' as u16; 8];
    units.extend([0x20ACu16; 4]); // 12 bytes
    let offsets = [0, 4, 8, 12];
    let ok = forced::utf16_to_utf8(Level::Scalar, Sizing::Optimistic, 20, &units, &offsets, None).unwrap();
    assert_eq!(ok.value(2), "€€€€");
    let err = forced::utf16_to_utf8(Level::Scalar, Sizing::Optimistic, 19, &units, &offsets, None).unwrap_err();
    assert!(matches!(err, Error::OffsetOverflow { needed: 20, limit: 19 }), "{err:?}");
}

/// Per row, not across rows: a high surrogate ending one row and a low one
/// starting the next are two '?' (Flink encodes each value separately; see
/// docs/flink-semantics.md §11 on CONCAT).
#[test]
fn rows_are_encoded_independently() {
    let units = [0x61, 0xD83D, 0xDE00, 0x62];
    let arr = utf16_to_utf8(&units, &[0, 2, 4], None).unwrap();
    assert_eq!(arr.value(0), "a?");
    assert_eq!(arr.value(1), "?b");
}
