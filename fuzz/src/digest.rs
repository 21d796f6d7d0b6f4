//! `sluice_kernels::digest`: hex digests of every byte layout, and `SHA2`
//! with arbitrary width columns.
//!
//! Reference: RustCrypto's `md-5`, `sha1`, `sha2` one-shot `Digest::digest`
//! of each row's bytes, rendered with `hex::encode` (lowercase, as Flink's
//! `EncodingUtils.hex`). Width rules of `SHA2(s, w)` are replayed plainly
//! from Flink (see `sluice_kernels::digest::sha2`): a literal width outside
//! 224/256/384/512 fails even with no rows; a width column gives NULL for a
//! NULL input or width, SHA-1 for 1, and fails on any other width that meets
//! a non-NULL input.

use arbitrary::Arbitrary;
use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, Datum, Int32Array, NullArray, Scalar};
use md5::Digest as _;
use sluice_kernels::digest::{self, DigestAlgorithm};
use sluice_kernels::Error;

use crate::arrays::ByteColumn;

/// A width, biased to the ones with a meaning.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum Width {
    /// One of 1, 224, 256, 384, 512, 160, 0, -1.
    Known(u8),
    /// Anything.
    Any(i32),
}

impl Width {
    fn value(self) -> i32 {
        match self {
            Width::Known(k) => [1, 224, 256, 384, 512, 160, 0, -1][k as usize % 8],
            Width::Any(w) => w,
        }
    }
}

/// The width argument of `SHA2`.
#[derive(Arbitrary, Debug, Clone)]
pub enum WidthArg {
    /// A literal (`None`: NULL).
    Scalar(Option<Width>),
    /// A column; the row count is the input's unless `extra` adds rows
    /// (a length mismatch, which must be an error).
    Column {
        /// Widths, cycled over the rows.
        widths: Vec<Option<Width>>,
        /// Extra rows past the input's length (mostly 0).
        extra: u8,
    },
    /// A `Null`-typed array.
    NullType,
}

/// One input.
#[derive(Arbitrary, Debug, Clone)]
pub struct Input {
    /// The rows to hash.
    pub column: ByteColumn,
    /// Use only the column's first row as a scalar `Datum`.
    pub scalar: bool,
    /// `SHA2`'s width.
    pub width: WidthArg,
    /// The algorithm of the unary functions (index into `ALL`).
    pub alg: u8,
}

fn hex_of(alg: DigestAlgorithm, data: &[u8]) -> String {
    match alg {
        DigestAlgorithm::Md5 => hex::encode(md5::Md5::digest(data)),
        DigestAlgorithm::Sha1 => hex::encode(sha1::Sha1::digest(data)),
        DigestAlgorithm::Sha224 => hex::encode(sha2::Sha224::digest(data)),
        DigestAlgorithm::Sha256 => hex::encode(sha2::Sha256::digest(data)),
        DigestAlgorithm::Sha384 => hex::encode(sha2::Sha384::digest(data)),
        DigestAlgorithm::Sha512 => hex::encode(sha2::Sha512::digest(data)),
    }
}

fn sha2_alg(w: i32) -> Option<DigestAlgorithm> {
    Some(match w {
        224 => DigestAlgorithm::Sha224,
        256 => DigestAlgorithm::Sha256,
        384 => DigestAlgorithm::Sha384,
        512 => DigestAlgorithm::Sha512,
        _ => return None,
    })
}

fn assert_rows(what: &str, out: &dyn Array, want: &[Option<String>]) {
    assert_eq!(out.len(), want.len(), "{what}: rows");
    let out = out.as_string::<i32>();
    for (i, w) in want.iter().enumerate() {
        assert_eq!(out.is_valid(i).then(|| out.value(i)), w.as_deref(), "{what}: row {i}");
    }
}

/// Runs the check on one input; panics on a mismatch.
pub fn check(input: &Input) {
    let array = input.column.array();
    let rows = input.column.expected();
    // The input as a `Datum`: the sliced array, or its first row as a scalar.
    let (datum, rows): (Box<dyn Datum>, Vec<Option<Vec<u8>>>) = if input.scalar {
        if array.is_empty() {
            return;
        }
        (Box::new(Scalar::new(array.slice(0, 1))), rows[..1].to_vec())
    } else {
        (Box::new(array.clone()), rows)
    };

    // One algorithm per input keeps executions fast; the fuzzer covers all.
    let alg = DigestAlgorithm::ALL[input.alg as usize % DigestAlgorithm::ALL.len()];
    let want: Vec<Option<String>> = rows.iter().map(|r| r.as_deref().map(|b| hex_of(alg, b))).collect();
    if !input.scalar {
        let out = digest::digest_hex(array.as_ref(), alg).expect("byte layouts are accepted");
        assert_eq!(out.offset(), 0);
        assert_rows(&format!("digest_hex {alg}"), &out, &want);
    }
    let f = match alg {
        DigestAlgorithm::Md5 => digest::md5,
        DigestAlgorithm::Sha1 => digest::sha1,
        DigestAlgorithm::Sha224 => digest::sha224,
        DigestAlgorithm::Sha256 => digest::sha256,
        DigestAlgorithm::Sha384 => digest::sha384,
        DigestAlgorithm::Sha512 => digest::sha512,
    };
    let out = f(datum.as_ref()).expect("byte layouts are accepted");
    assert_rows(&format!("{alg}(datum)"), out.as_ref(), &want);

    check_sha2(input, datum.as_ref(), &rows);
}

fn check_sha2(input: &Input, datum: &dyn Datum, rows: &[Option<Vec<u8>>]) {
    let result = match &input.width {
        WidthArg::Scalar(w) => {
            let w = w.map(Width::value);
            let width = Scalar::new(Int32Array::from(vec![w]));
            let got = digest::sha2(datum, &width);
            match w {
                None => {
                    let want = vec![None; rows.len()];
                    assert_rows("sha2(s, NULL)", got.expect("NULL width").as_ref(), &want);
                }
                Some(w) => match sha2_alg(w) {
                    Some(alg) => {
                        let want: Vec<_> = rows.iter().map(|r| r.as_deref().map(|b| hex_of(alg, b))).collect();
                        assert_rows(&format!("sha2(s, {w})"), got.expect("valid width").as_ref(), &want);
                    }
                    None => match got {
                        Err(Error::Flink(m)) => {
                            assert_eq!(m, "Unsupported algorithm.", "sha2(s, {w})")
                        }
                        other => panic!("sha2(s, {w}) literal must fail, got {other:?}"),
                    },
                },
            }
            return;
        }
        WidthArg::NullType => {
            let n = if input.scalar { 1 } else { rows.len() };
            let width: ArrayRef = std::sync::Arc::new(NullArray::new(n));
            digest::sha2(datum, &width)
        }
        WidthArg::Column { widths, extra } => {
            let n = if input.scalar { widths.len().max(1) } else { rows.len() };
            let extra = if *extra > 250 { (*extra - 250) as usize } else { 0 };
            let ws: Vec<Option<i32>> = (0..n + extra)
                .map(|i| if widths.is_empty() { None } else { widths[i % widths.len()].map(Width::value) })
                .collect();
            let width = Int32Array::from(ws.clone());
            let got = digest::sha2(datum, &width);
            if extra > 0 && !input.scalar {
                assert!(got.is_err(), "width column longer than the input must fail");
                return;
            }
            // Reference, row by row (a scalar input is broadcast).
            let mut want = Vec::new();
            let mut failures = Vec::new();
            for (i, w) in ws.iter().enumerate() {
                let r = if input.scalar { &rows[0] } else { &rows[i] };
                match (r, w) {
                    (None, _) | (_, None) => want.push(None),
                    (Some(b), Some(1)) => want.push(Some(hex_of(DigestAlgorithm::Sha1, b))),
                    (Some(b), Some(w)) => match sha2_alg(*w) {
                        Some(alg) => want.push(Some(hex_of(alg, b))),
                        None => failures.push(format!("SHA-{w} MessageDigest not available")),
                    },
                }
            }
            match got {
                Ok(out) => {
                    assert!(failures.is_empty(), "sha2 column widths must fail: {failures:?}");
                    assert_rows("sha2(s, column)", out.as_ref(), &want);
                }
                Err(Error::Flink(m)) => {
                    assert!(failures.contains(&m), "sha2 failed with {m:?}, expected one of {failures:?}")
                }
                Err(e) => panic!("sha2 column: unexpected error {e}"),
            }
            return;
        }
    };
    // `Null`-typed width: every row NULL.
    let n = if input.scalar { 1 } else { rows.len() };
    assert_rows("sha2(s, NULL column)", result.expect("Null width").as_ref(), &vec![None; n]);
}
