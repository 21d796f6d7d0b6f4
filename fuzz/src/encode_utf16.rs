//! `sluice_kernels::encode`: UTF-16 → UTF-8 at every dispatch level.
//!
//! Reference: `char::decode_utf16` with each unpaired surrogate unit mapped
//! to `?` (the JDK's `String.getBytes(UTF_8)`, which Flink's
//! `StringUtf8Utils.encodeUTF8` defers to), written plainly below. Checked:
//! `utf8_len`, `encode_utf16_into` (appending after existing bytes), each
//! forced level, and the batch forms (`Utf8`/`LargeUtf8`, both sizings, a
//! lowered offset limit, NULL rows with units under them, and arbitrary
//! invalid offsets, which must be an error exactly when a plain validity
//! check says so).

use arbitrary::Arbitrary;
use arrow_array::cast::AsArray;
use arrow_array::Array;
use arrow_buffer::NullBuffer;
use arrow_schema::DataType;
use sluice_kernels::encode::{self, forced};
use sluice_kernels::Error;
use sluice_kernels::Level;

/// Pieces a UTF-16 buffer is assembled from, biased towards what the SIMD
/// paths branch on: ASCII runs longer than a vector, multibyte BMP text,
/// surrogate pairs and unpaired surrogates at any position.
#[derive(Arbitrary, Debug, Clone)]
pub enum Piece {
    /// `len` ASCII units (varying from `first`).
    Ascii {
        /// Number of units.
        len: u8,
        /// First unit (low 7 bits).
        first: u8,
    },
    /// Any single unit: ASCII, BMP, or a lone surrogate.
    Unit(u16),
    /// A string's UTF-16 form.
    Text(String),
    /// A valid surrogate pair built from the low bits.
    Pair(u16, u16),
    /// A lone high surrogate (`0xD800 | low bits`).
    High(u16),
    /// A lone low surrogate (`0xDC00 | low bits`).
    Low(u16),
}

/// Appends a piece's units.
pub fn push_piece(p: &Piece, out: &mut Vec<u16>) {
    match p {
        Piece::Ascii { len, first } => {
            out.extend((0..*len as u16).map(|i| (*first as u16 + i) & 0x7F));
        }
        Piece::Unit(u) => out.push(*u),
        Piece::Text(s) => out.extend(s.encode_utf16()),
        Piece::Pair(h, l) => out.extend([0xD800 | (h & 0x3FF), 0xDC00 | (l & 0x3FF)]),
        Piece::High(h) => out.push(0xD800 | (h & 0x3FF)),
        Piece::Low(l) => out.push(0xDC00 | (l & 0x3FF)),
    }
}

/// One row of a batch.
#[derive(Arbitrary, Debug, Clone)]
pub struct RowSpec {
    /// The row's units.
    pub pieces: Vec<Piece>,
    /// `false`: NULL (its units stay in the buffer).
    pub valid: bool,
}

/// A batch plus the knobs of the forced entry points.
#[derive(Arbitrary, Debug, Clone)]
pub struct Input {
    /// Units before row 0 (the first offset is their count).
    pub lead: Vec<Piece>,
    /// The rows.
    pub rows: Vec<RowSpec>,
    /// Units after the last row.
    pub tail: Vec<Piece>,
    /// Attach a NULL mask.
    pub masked: bool,
    /// Bytes already in the output `Vec` before an append.
    pub prefix: Vec<u8>,
    /// A lowered offset limit for `forced::utf16_to_utf8`.
    pub limit: u16,
    /// Arbitrary offsets (often invalid) for the error contract.
    pub raw_offsets: Vec<i64>,
    /// The forced level this input runs (modulo the available ones): one
    /// per input keeps executions fast; the fuzzer covers all of them.
    pub level: u8,
    /// Forced sizing: `Exact` rather than `UpperBound`.
    pub exact: bool,
}

/// The reference: JDK `String.getBytes(UTF_8)` semantics.
pub fn reference(units: &[u16]) -> Vec<u8> {
    let mut out = Vec::with_capacity(units.len() * 3);
    for r in char::decode_utf16(units.iter().copied()) {
        match r {
            Ok(c) => {
                let mut buf = [0u8; 4];
                out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            }
            Err(_) => out.push(b'?'),
        }
    }
    out
}

/// The `k`-th (modulo) of the levels this CPU runs.
pub fn level(k: u8) -> Level {
    let levels: Vec<Level> = Level::ALL.into_iter().filter(|l| l.is_available()).collect();
    levels[k as usize % levels.len()]
}

/// Runs the check on one input; panics on a mismatch.
pub fn check(input: &Input) {
    let mut units = Vec::new();
    for p in &input.lead {
        push_piece(p, &mut units);
    }
    let mut offsets = vec![units.len() as i64];
    for row in &input.rows {
        for p in &row.pieces {
            push_piece(p, &mut units);
        }
        offsets.push(units.len() as i64);
    }
    for p in &input.tail {
        push_piece(p, &mut units);
    }
    let nulls: Option<NullBuffer> = input.masked.then(|| input.rows.iter().map(|r| r.valid).collect());
    let valid = |i: usize| nulls.as_ref().is_none_or(|n| n.is_valid(i));

    // One value at a time: every row, and the whole buffer as one value.
    let whole = 0..units.len();
    let spans = offsets.windows(2).map(|w| w[0] as usize..w[1] as usize);
    let mut expected_rows = Vec::new();
    for span in spans.clone().chain(std::iter::once(whole)) {
        let value = &units[span];
        let want = reference(value);
        assert_eq!(encode::utf8_len(value), want.len(), "utf8_len of {value:04x?}");
        let mut out = input.prefix.clone();
        encode::encode_utf16_into(value, &mut out);
        assert_eq!(&out[..input.prefix.len()], &input.prefix[..], "prefix kept");
        assert_eq!(&out[input.prefix.len()..], &want[..], "encode_utf16_into of {value:04x?}");
        let level = level(input.level);
        let mut out = input.prefix.clone();
        forced::encode_utf16_into(level, value, &mut out).expect("available level");
        assert_eq!(&out[input.prefix.len()..], &want[..], "{level:?} of {value:04x?}");
        expected_rows.push(want);
    }
    expected_rows.pop(); // the whole-buffer value

    // Batches.
    let total: usize = expected_rows.iter().enumerate().filter(|(i, _)| valid(*i)).map(|(_, r)| r.len()).sum();
    let check_batch = |what: &str, arr: &dyn Array| {
        // The slot's bytes, read under the NULL mask too.
        let value = |i: usize| match arr.data_type() {
            DataType::Utf8 => arr.as_string::<i32>().value(i).as_bytes(),
            _ => arr.as_string::<i64>().value(i).as_bytes(),
        };
        assert_eq!(arr.len(), input.rows.len(), "{what}: rows");
        for (i, want) in expected_rows.iter().enumerate() {
            assert_eq!(arr.is_valid(i), valid(i), "{what}: validity of row {i}");
            if valid(i) {
                assert_eq!(value(i), &want[..], "{what}: row {i}");
            } else {
                assert_eq!(value(i), b"", "{what}: NULL row {i} produces no bytes");
            }
        }
    };
    let a = encode::utf16_to_utf8(&units, &offsets, nulls.as_ref()).expect("valid batch");
    check_batch("utf16_to_utf8", &a);
    let a = encode::utf16_to_large_utf8(&units, &offsets, nulls.as_ref()).expect("valid batch");
    check_batch("utf16_to_large_utf8", &a);
    let limit = input.limit as usize;
    let level = level(input.level);
    let sizing = if input.exact { forced::Sizing::Exact } else { forced::Sizing::UpperBound };
    let what = format!("forced {level:?} {sizing:?}");
    let a = forced::utf16_to_large_utf8(level, sizing, &units, &offsets, nulls.as_ref()).expect("valid batch");
    check_batch(&what, &a);
    match forced::utf16_to_utf8(level, sizing, limit, &units, &offsets, nulls.as_ref()) {
        Ok(a) => {
            assert!(total <= limit, "{what}: {total} bytes accepted under limit {limit}");
            check_batch(&what, &a);
        }
        Err(Error::OffsetOverflow { needed, limit: l }) => {
            assert!(total > limit, "{what}: {total} bytes fit limit {limit} but overflowed");
            assert_eq!(l, limit, "{what}: reported limit");
            assert!(needed > limit, "{what}: needed {needed} <= limit {limit}");
        }
        Err(e) => panic!("{what}: unexpected error {e}"),
    }

    // Arbitrary offsets: Ok exactly when a plain check accepts them.
    let raw = &input.raw_offsets;
    let acceptable = raw.is_empty()
        || (raw[0] >= 0 && raw.windows(2).all(|w| w[0] <= w[1]) && raw[raw.len() - 1] as u64 <= units.len() as u64);
    match encode::utf16_to_utf8(&units, raw, None) {
        Ok(a) => {
            assert!(acceptable, "accepted invalid offsets {raw:?} over {} units", units.len());
            assert_eq!(a.len(), raw.len().saturating_sub(1));
            for (i, w) in raw.windows(2).enumerate() {
                let want = reference(&units[w[0] as usize..w[1] as usize]);
                assert_eq!(a.value(i).as_bytes(), &want[..], "raw offsets row {i}");
            }
        }
        Err(Error::InvalidArgument(_)) => {
            assert!(!acceptable, "rejected valid offsets {raw:?} over {} units", units.len())
        }
        Err(e) => panic!("raw offsets: unexpected error {e}"),
    }
    // A mask of the wrong length is an error, never a panic.
    let wrong: NullBuffer = std::iter::repeat_n(true, input.rows.len() + 1).collect();
    assert!(encode::utf16_to_utf8(&units, &offsets, Some(&wrong)).is_err(), "mask length");
}
