//! Array builders shared by the kernel tests (sliced layouts, junk around the rows).
//! build it as a test binary of its own).
#![allow(dead_code)]

use std::sync::Arc;

use arrow_array::{Array, ArrayRef, Int32Array, LargeStringArray, StringArray, StringViewArray};
use proptest::prelude::*;

/// Builds `rows` in layout `layout` (0 = Utf8, 1 = LargeUtf8, 2 = Utf8View)
/// as a slice at offset `pad` of a larger array (junk rows around it).
pub fn strings(rows: &[Option<String>], layout: u8, pad: usize) -> ArrayRef {
    let mut all: Vec<Option<String>> = Vec::new();
    for k in 0..pad {
        all.push(if k % 2 == 0 { Some(format!("junk{k}-😀")) } else { None });
    }
    all.extend(rows.iter().cloned());
    all.push(Some("tail-junk".into()));
    let full: ArrayRef = match layout % 3 {
        0 => Arc::new(StringArray::from(all)),
        1 => Arc::new(LargeStringArray::from(all)),
        _ => Arc::new(StringViewArray::from_iter(all)),
    };
    full.slice(pad, rows.len())
}

/// Int32 rows as a sliced array.
pub fn ints(rows: &[Option<i32>], pad: usize) -> ArrayRef {
    let mut all: Vec<Option<i32>> = (0..pad).map(|k| Some(k as i32 * 7 - 3)).collect();
    all.extend(rows.iter().cloned());
    all.push(Some(99));
    let full: ArrayRef = Arc::new(Int32Array::from(all));
    full.slice(pad, rows.len())
}

/// Characters that make matches, boundaries and Flink quirks likely:
/// ASCII, 2/3/4-byte characters, LIKE metacharacters, the escape
/// candidates, line terminators and Java whitespace (and non-whitespace
/// look-alikes).
pub const ALPHABET: &[char] = &[
    'a', 'b', 'a', 'b', 'c', 'ñ', '€', '😀', '𝄞', '\n', '\r', '_', '%', '\\', '!', ' ', '\t', '\u{85}', '\u{2028}',
    '\u{2029}', '\u{3000}', '\u{a0}', '\u{2007}', '\u{1680}', ',',
];

pub fn text(max: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(ALPHABET), 0..=max).prop_map(|v| v.into_iter().collect())
}

/// Short strings over a small alphabet so that needles occur often.
pub fn small_text(alpha: &'static [char], max: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(alpha), 0..=max).prop_map(|v| v.into_iter().collect())
}

pub fn opt<S: Strategy>(s: S) -> impl Strategy<Value = Option<S::Value>> {
    prop::option::weighted(0.85, s)
}

/// Rows of `Option<String>`.
pub fn rows(n: usize, s: impl Strategy<Value = String>) -> impl Strategy<Value = Vec<Option<String>>> {
    prop::collection::vec(opt(s), 0..=n)
}

/// Reads a string-ish array back as `Vec<Option<String>>`.
pub fn read_strings(a: &dyn Array) -> Vec<Option<String>> {
    let s = a.as_any().downcast_ref::<StringArray>().expect("Utf8 output");
    (0..s.len()).map(|i| s.is_valid(i).then(|| s.value(i).to_string())).collect()
}

/// The reference digest: the streaming RustCrypto hasher and `hex::encode`.
pub fn reference_hex(alg: sluice_kernels::digest::DigestAlgorithm, b: &[u8]) -> String {
    use sha2::Digest as _;
    use sluice_kernels::digest::DigestAlgorithm;
    match alg {
        DigestAlgorithm::Md5 => hex::encode(md5::Md5::digest(b)),
        DigestAlgorithm::Sha1 => hex::encode(sha1::Sha1::digest(b)),
        DigestAlgorithm::Sha224 => hex::encode(sha2::Sha224::digest(b)),
        DigestAlgorithm::Sha256 => hex::encode(sha2::Sha256::digest(b)),
        DigestAlgorithm::Sha384 => hex::encode(sha2::Sha384::digest(b)),
        DigestAlgorithm::Sha512 => hex::encode(sha2::Sha512::digest(b)),
    }
}
