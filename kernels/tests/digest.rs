//! Digest kernels against published vectors, the RustCrypto streaming hashers
//! plus `hex::encode` (per row, the reference), and Flink's SHA2 rules.

mod support;

use std::sync::Arc;
use support::reference_hex as reference;

use arrow_array::cast::AsArray;
use arrow_array::{
    Array, ArrayRef, BinaryArray, BinaryViewArray, Int32Array, Int64Array, LargeBinaryArray, LargeStringArray,
    NullArray, Scalar, StringArray, StringViewArray,
};
use proptest::prelude::*;
use sluice_kernels::alloc_count::{count_allocs, CountingAlloc};
use sluice_kernels::digest::{self, digest_hex, DigestAlgorithm};
use sluice_kernels::Error;

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc::system();

/// The same rows in all six accepted layouts.
fn layouts(rows: &[Option<&[u8]>]) -> Vec<ArrayRef> {
    let all_utf8 = rows.iter().flatten().all(|b| std::str::from_utf8(b).is_ok());
    let mut out: Vec<ArrayRef> = vec![
        Arc::new(BinaryArray::from_iter(rows.iter().copied())),
        Arc::new(LargeBinaryArray::from_iter(rows.iter().copied())),
        Arc::new(BinaryViewArray::from_iter(rows.iter().copied())),
    ];
    if all_utf8 {
        let s: Vec<Option<&str>> = rows.iter().map(|r| r.map(|b| std::str::from_utf8(b).unwrap())).collect();
        out.push(Arc::new(StringArray::from(s.clone())));
        out.push(Arc::new(LargeStringArray::from(s.clone())));
        out.push(Arc::new(StringViewArray::from(s)));
    }
    out
}

fn check_against_reference(input: &dyn Array, rows: &[Option<&[u8]>], alg: DigestAlgorithm) {
    let out = digest_hex(input, alg).unwrap();
    out.to_data().validate_full().unwrap();
    assert_eq!(out.len(), rows.len());
    assert_eq!(out.value_offsets()[0], 0);
    for (i, r) in rows.iter().enumerate() {
        match r {
            None => {
                assert!(out.is_null(i), "{alg} {}: row {i} should be NULL", input.data_type());
                assert_eq!(out.value_length(i), 0, "a NULL row takes no bytes");
            }
            Some(b) => assert_eq!(out.value(i), reference(alg, b), "{alg} {} row {i}", input.data_type()),
        }
    }
}

// ---- published vectors ---------------------------------------------------

/// RFC 1321 appendix A.5 test suite.
#[test]
fn md5_rfc1321_suite() {
    let v: &[(&str, &str)] = &[
        ("", "d41d8cd98f00b204e9800998ecf8427e"),
        ("a", "0cc175b9c0f1b6a831c399e269772661"),
        ("abc", "900150983cd24fb0d6963f7d28e17f72"),
        ("message digest", "f96b697d7cb7938d525a2f31aaf161d0"),
        ("abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b"),
        ("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", "d174ab98d277d9f5a5611c2c9f419d9f"),
        (
            "12345678901234567890123456789012345678901234567890123456789012345678901234567890",
            "57edf4a22be3c955ac49da2e2107b67a",
        ),
    ];
    let rows: Vec<Option<&[u8]>> = v.iter().map(|(m, _)| Some(m.as_bytes())).collect();
    for a in layouts(&rows) {
        let out = digest_hex(&a, DigestAlgorithm::Md5).unwrap();
        for (i, (_, want)) in v.iter().enumerate() {
            assert_eq!(out.value(i), *want, "{} row {i}", a.data_type());
        }
    }
}

/// FIPS 180-2/180-4 examples (NIST CSRC "Examples with intermediate values"):
/// "abc", the empty string, the 448-bit and the 896-bit messages.
#[test]
fn sha_fips180_vectors() {
    const M448: &str = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    const M896: &str = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu";
    let msgs = ["abc", "", M448, M896];
    let want: &[(DigestAlgorithm, [&str; 4])] = &[
        (DigestAlgorithm::Sha1, [
            "a9993e364706816aba3e25717850c26c9cd0d89d",
            "da39a3ee5e6b4b0d3255bfef95601890afd80709",
            "84983e441c3bd26ebaae4aa1f95129e5e54670f1",
            "a49b2446a02c645bf419f995b67091253a04a259",
        ]),
        (DigestAlgorithm::Sha224, [
            "23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7",
            "d14a028c2a3a2bc9476102bb288234c415a2b01f828ea62ac5b3e42f",
            "75388b16512776cc5dba5da1fd890150b0c6455cb4f58b1952522525",
            "c97ca9a559850ce97a04a96def6d99a9e0e0e2ab14e6b8df265fc0b3",
        ]),
        (DigestAlgorithm::Sha256, [
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
            "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1",
        ]),
        (DigestAlgorithm::Sha384, [
            "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7",
            "38b060a751ac96384cd9327eb1b1e36a21fdb71114be07434c0cc7bf63f6e1da274edebfe76f65fbd51ad2f14898b95b",
            "3391fdddfc8dc7393707a65b1b4709397cf8b1d162af05abfe8f450de5f36bc6b0455a8520bc4e6f5fe95b1fe3c8452b",
            "09330c33f71147e83d192fc782cd1b4753111b173b3b05d22fa08086e3b0f712fcc7c71a557e2db966c3e9fa91746039",
        ]),
        (DigestAlgorithm::Sha512, [
            "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f",
            "cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e",
            "204a8fc6dda82f0a0ced7beb8e08a41657c16ef468b228a8279be331a703c33596fd15c13b1b07f9aa1d3bea57789ca031ad85c7a71dd70354ec631238ca3445",
            "8e959b75dae313da8cf4f72814fc143f8f7779c6eb9f7fa17299aeadb6889018501d289e4900f7e4331b99dec4b5433ac7d329eeb6dd26545e96e55b874be909",
        ]),
    ];
    let rows: Vec<Option<&[u8]>> = msgs.iter().map(|m| Some(m.as_bytes())).collect();
    for a in layouts(&rows) {
        for (alg, w) in want {
            let out = digest_hex(&a, *alg).unwrap();
            for (i, want) in w.iter().enumerate() {
                assert_eq!(out.value(i), *want, "{alg} {} msg {i}", a.data_type());
            }
        }
    }
}

/// FIPS 180 "one million a" long-message vectors (many blocks per row).
#[test]
fn million_a() {
    let m = "a".repeat(1_000_000);
    let a = StringArray::from(vec![m.as_str()]);
    assert_eq!(
        digest_hex(&a, DigestAlgorithm::Sha256).unwrap().value(0),
        "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"
    );
    assert_eq!(digest_hex(&a, DigestAlgorithm::Sha1).unwrap().value(0), "34aa973cd4c4daa4f61eeb2bdbad27316534016f");
    assert_eq!(digest_hex(&a, DigestAlgorithm::Md5).unwrap().value(0), "7707d6ae4e027c70eea2a935c2296f21");
}

/// Flink hashes the stored bytes, invalid UTF-8 included
/// (`BinaryStringDataUtil.hash`: `md.digest(str.toBytes())`).
#[test]
fn raw_bytes_are_hashed_as_stored() {
    let rows: Vec<Option<&[u8]>> = vec![Some(&[0xff, 0xfe, 0x00, 0x80]), Some(b"\xed\xa0\x80"), None];
    for a in layouts(&rows) {
        for alg in DigestAlgorithm::ALL {
            check_against_reference(&a, &rows, alg);
        }
    }
}

// ---- property test -------------------------------------------------------

fn row_strategy() -> impl Strategy<Value = Option<String>> {
    let ch = prop_oneof![
        4 => prop::char::range('a', 'z'),
        1 => prop::sample::select(vec!['\0', 'é', 'ß', '€', '中', '😀', '\u{10FFFF}']),
        1 => any::<char>(),
    ];
    prop::option::weighted(0.8, prop::collection::vec(ch, 0..150).prop_map(|v| v.into_iter().collect()))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]
    #[test]
    fn matches_reference(rows in prop::collection::vec(row_strategy(), 0..40), cut in any::<(u8, u8)>()) {
        let bytes: Vec<Option<&[u8]>> = rows.iter().map(|r| r.as_deref().map(str::as_bytes)).collect();
        let n = bytes.len();
        let off = if n == 0 { 0 } else { cut.0 as usize % (n + 1) };
        let len = if n - off == 0 { 0 } else { cut.1 as usize % (n - off + 1) };
        for a in layouts(&bytes) {
            let sliced = a.slice(off, len);
            for alg in DigestAlgorithm::ALL {
                check_against_reference(&sliced, &bytes[off..off + len], alg);
            }
        }
    }
}

// ---- API shape -----------------------------------------------------------

#[test]
fn scalar_in_scalar_out_and_named_functions() {
    let s = Scalar::new(StringArray::from(vec!["abc"]));
    type Unary = fn(&dyn arrow_array::Datum) -> sluice_kernels::Result<ArrayRef>;
    let fns: [(Unary, DigestAlgorithm); 6] = [
        (digest::md5, DigestAlgorithm::Md5),
        (digest::sha1, DigestAlgorithm::Sha1),
        (digest::sha224, DigestAlgorithm::Sha224),
        (digest::sha256, DigestAlgorithm::Sha256),
        (digest::sha384, DigestAlgorithm::Sha384),
        (digest::sha512, DigestAlgorithm::Sha512),
    ];
    for (f, alg) in fns {
        let out = f(&s).unwrap();
        assert_eq!(out.len(), 1);
        assert_eq!(out.as_string::<i32>().value(0), reference(alg, b"abc"));
        assert_eq!(out.as_string::<i32>().value(0).len(), alg.hex_len());
        // NULL scalar → NULL scalar.
        let out = f(&Scalar::new(StringArray::new_null(1))).unwrap();
        assert_eq!((out.len(), out.null_count()), (1, 1));
    }
}

#[test]
fn wrong_types_and_scalars_are_errors() {
    let ints = Int32Array::from(vec![1, 2]);
    assert!(matches!(digest_hex(&ints, DigestAlgorithm::Md5), Err(Error::InvalidArgument(_))));
    assert!(matches!(digest::md5(&ints), Err(Error::InvalidArgument(_))));
    let two = StringArray::from(vec!["a", "b"]);
    // A custom Datum claiming to be a scalar with 2 rows.
    struct Bad<'a>(&'a StringArray);
    impl arrow_array::Datum for Bad<'_> {
        fn get(&self) -> (&dyn Array, bool) {
            (self.0, true)
        }
    }
    assert!(matches!(digest::md5(&Bad(&two)), Err(Error::InvalidArgument(_))));
}

#[test]
fn empty_and_sliced_keep_contracts() {
    let a = StringArray::from(vec![Some("x"), None, Some("yy"), None, Some("")]);
    let e = digest_hex(&a.slice(2, 0), DigestAlgorithm::Md5).unwrap();
    assert_eq!((e.len(), e.value_offsets(), e.values().len()), (0, &[0][..], 0));
    let s = digest_hex(&a.slice(1, 3), DigestAlgorithm::Sha256).unwrap();
    assert_eq!(s.value_offsets(), &[0, 0, 64, 64]);
    assert_eq!(s.iter().map(|v| v.is_some()).collect::<Vec<_>>(), [false, true, false]);
    assert_eq!(s.value(1), reference(DigestAlgorithm::Sha256, b"yy"));
}

#[test]
fn algorithm_names_parse() {
    for (name, alg) in [
        ("md5", DigestAlgorithm::Md5),
        ("MD5", DigestAlgorithm::Md5),
        ("sha", DigestAlgorithm::Sha1),
        ("SHA-1", DigestAlgorithm::Sha1),
        ("sha224", DigestAlgorithm::Sha224),
        ("SHA-256", DigestAlgorithm::Sha256),
        ("Sha384", DigestAlgorithm::Sha384),
        ("sha512", DigestAlgorithm::Sha512),
    ] {
        assert_eq!(name.parse::<DigestAlgorithm>().unwrap(), alg, "{name}");
    }
    for alg in DigestAlgorithm::ALL {
        assert_eq!(alg.to_string().parse::<DigestAlgorithm>().unwrap(), alg);
    }
    let err = "sha3".parse::<DigestAlgorithm>().unwrap_err().to_string();
    assert!(err.contains("\"sha3\"") && err.contains("md5, sha1, sha224, sha256, sha384, sha512"), "{err}");
    assert!("averyveryverylongname".parse::<DigestAlgorithm>().is_err());
}

// ---- SHA2 width rules ----------------------------------------------------
// StringCallGen.generateSha2 (PS/codegen/calls/StringCallGen.scala),
// CodeGeneratorContext.addReusableSha2MessageDigest, BinaryStringDataUtil.hash;
// observed on Flink 2.2.1 / 1.20.5 (docs/flink-semantics.md §6.1, §11).

fn lit(w: Option<i32>) -> Scalar<Int32Array> {
    Scalar::new(Int32Array::from(vec![w]))
}

fn strs(out: &ArrayRef) -> Vec<Option<String>> {
    out.as_string::<i32>().iter().map(|v| v.map(str::to_owned)).collect()
}

#[test]
fn sha2_literal_widths() {
    let input = StringArray::from(vec![Some("abc"), None, Some("")]);
    for (w, alg) in [
        (224, DigestAlgorithm::Sha224),
        (256, DigestAlgorithm::Sha256),
        (384, DigestAlgorithm::Sha384),
        (512, DigestAlgorithm::Sha512),
    ] {
        let out = digest::sha2(&input, &lit(Some(w))).unwrap();
        assert_eq!(strs(&out), vec![Some(reference(alg, b"abc")), None, Some(reference(alg, b""))]);
        // Same as the one-argument function (§11: literal, column and SHAxxx() agree).
        assert_eq!(out.as_string::<i32>(), &digest_hex(&input, alg).unwrap());
    }
}

/// A NULL literal leaves Flink's reusable digest null: every row NULL.
#[test]
fn sha2_null_literal_gives_all_null() {
    let input = StringArray::from(vec![Some("abc"), None, Some("x")]);
    let out = digest::sha2(&input, &lit(None)).unwrap();
    assert_eq!((out.len(), out.null_count()), (3, 3));
    let out = digest::sha2(&input, &Scalar::new(NullArray::new(1))).unwrap();
    assert_eq!((out.len(), out.null_count()), (3, 3));
    let out = digest::sha2(&Scalar::new(StringArray::from(vec!["abc"])), &lit(None)).unwrap();
    assert_eq!((out.len(), out.null_count()), (1, 1));
}

/// Any other literal throws `RuntimeException("Unsupported algorithm.")` at
/// operator start-up (addReusableSha2MessageDigest), even with no rows or
/// only NULL inputs — including 1, which a width *column* accepts.
#[test]
fn sha2_invalid_literal_fails_even_without_rows() {
    let inputs: Vec<ArrayRef> = vec![
        Arc::new(StringArray::from(vec!["abc"])),
        Arc::new(StringArray::from(Vec::<&str>::new())),
        Arc::new(StringArray::new_null(4)),
        Arc::new(BinaryArray::from(vec![b"x".as_ref()])),
    ];
    for w in [0, 1, 128, 160, 223, 257, 1024, -1, -256, i32::MIN, i32::MAX] {
        for input in &inputs {
            match digest::sha2(input, &lit(Some(w))) {
                Err(Error::Flink(m)) => assert_eq!(m, "Unsupported algorithm."),
                other => panic!("width {w}: {other:?}"),
            }
        }
    }
}

/// Column widths: per row `MessageDigest.getInstance("SHA-" + width)`.
#[test]
fn sha2_width_column_valid_mix() {
    let input = StringArray::from(vec![
        Some("abc"),
        Some("abc"),
        Some("abc"),
        Some("abc"),
        Some("abc"),
        Some("abc"),
        None,
        None,
        Some(""),
    ]);
    let widths = Int32Array::from(vec![
        Some(1),
        Some(224),
        Some(256),
        Some(384),
        Some(512),
        None,
        Some(256),
        Some(160),
        Some(512),
    ]);
    let out = digest::sha2(&input, &widths).unwrap();
    out.to_data().validate_full().unwrap();
    let want = vec![
        // width 1 → SHA-1 (40 hex chars): the JDK resolves "SHA-1".
        Some(reference(DigestAlgorithm::Sha1, b"abc")),
        Some(reference(DigestAlgorithm::Sha224, b"abc")),
        Some(reference(DigestAlgorithm::Sha256, b"abc")),
        Some(reference(DigestAlgorithm::Sha384, b"abc")),
        Some(reference(DigestAlgorithm::Sha512, b"abc")),
        None, // NULL width
        None, // NULL input
        None, // NULL input with an invalid width: the NULL guard runs first
        Some(reference(DigestAlgorithm::Sha512, b"")),
    ];
    assert_eq!(strs(&out), want);
    assert_eq!(out.as_string::<i32>().value(0).len(), 40);
}

/// Other widths meeting a non-NULL input fail the task with the JDK's
/// NoSuchAlgorithmException message; they never become NULL.
#[test]
fn sha2_width_column_invalid_fails() {
    for w in [-1, 0, 2, 128, 160, 257, 1024, i32::MIN] {
        let input = StringArray::from(vec![Some("abc"), Some("x")]);
        let widths = Int32Array::from(vec![Some(256), Some(w)]);
        match digest::sha2(&input, &widths) {
            Err(Error::Flink(m)) => assert_eq!(m, format!("SHA-{w} MessageDigest not available")),
            other => panic!("width {w}: {other:?}"),
        }
    }
    let input = StringArray::from(vec!["abc"]);
    let err = digest::sha2(&input, &Int32Array::from(vec![-1])).unwrap_err();
    assert_eq!(err.to_string(), "SHA--1 MessageDigest not available");
}

#[test]
fn sha2_width_column_with_scalar_input() {
    let s = Scalar::new(StringArray::from(vec!["abc"]));
    let widths = Int32Array::from(vec![Some(256), None, Some(1), Some(512)]);
    let out = digest::sha2(&s, &widths).unwrap();
    assert_eq!(
        strs(&out),
        vec![
            Some(reference(DigestAlgorithm::Sha256, b"abc")),
            None,
            Some(reference(DigestAlgorithm::Sha1, b"abc")),
            Some(reference(DigestAlgorithm::Sha512, b"abc")),
        ]
    );
    // NULL scalar input: NULL whatever the widths, even invalid ones.
    let null_s = Scalar::new(StringArray::new_null(1));
    let out = digest::sha2(&null_s, &Int32Array::from(vec![7, 160, -1])).unwrap();
    assert_eq!((out.len(), out.null_count()), (3, 3));
    // A NULL width column (type Null) is all NULL.
    let out = digest::sha2(&StringArray::from(vec!["a", "b"]), &NullArray::new(2)).unwrap();
    assert_eq!((out.len(), out.null_count()), (2, 2));
}

#[test]
fn sha2_width_column_sliced() {
    let input = StringArray::from(vec![Some("q"), Some("abc"), None, Some("zz"), Some("w")]);
    let widths = Int32Array::from(vec![Some(9), Some(384), Some(-5), None, Some(224)]);
    let out = digest::sha2(&input.slice(1, 4), &widths.slice(1, 4)).unwrap();
    out.to_data().validate_full().unwrap();
    assert_eq!(
        strs(&out),
        vec![
            Some(reference(DigestAlgorithm::Sha384, b"abc")),
            None,
            None,
            Some(reference(DigestAlgorithm::Sha224, b"w"))
        ]
    );
    assert_eq!(out.as_string::<i32>().value_offsets()[0], 0);
}

#[test]
fn sha2_bad_arguments_are_errors_not_panics() {
    let input = StringArray::from(vec!["a", "b"]);
    // Mismatched lengths.
    assert!(matches!(digest::sha2(&input, &Int32Array::from(vec![256])), Err(Error::InvalidArgument(_))));
    // Wrong width type.
    assert!(matches!(digest::sha2(&input, &Int64Array::from(vec![256, 256])), Err(Error::InvalidArgument(_))));
    assert!(matches!(digest::sha2(&input, &Scalar::new(Int64Array::from(vec![256]))), Err(Error::InvalidArgument(_))));
    // Wrong input type, with every width kind.
    let ints = Int32Array::from(vec![1, 2]);
    assert!(matches!(digest::sha2(&ints, &lit(Some(256))), Err(Error::InvalidArgument(_))));
    assert!(matches!(digest::sha2(&ints, &lit(None)), Err(Error::InvalidArgument(_))));
    assert!(matches!(digest::sha2(&ints, &Int32Array::from(vec![256, 1])), Err(Error::InvalidArgument(_))));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]
    /// Width columns over random rows and widths against the reference.
    #[test]
    fn sha2_column_matches_reference(
        rows in prop::collection::vec((row_strategy(), prop::option::weighted(0.8, prop::sample::select(vec![1, 224, 256, 384, 512]))), 0..30),
        off in 0usize..4,
    ) {
        let off = off.min(rows.len());
        let input = StringViewArray::from(rows.iter().map(|r| r.0.clone()).collect::<Vec<_>>());
        let widths = Int32Array::from(rows.iter().map(|r| r.1).collect::<Vec<_>>());
        let n = rows.len() - off;
        let out = digest::sha2(&input.slice(off, n), &widths.slice(off, n)).unwrap();
        out.to_data().validate_full().unwrap();
        let got = strs(&out);
        for (i, (s, w)) in rows[off..].iter().enumerate() {
            let want = match (s, w) {
                (Some(s), Some(w)) => {
                    let alg = if *w == 1 { DigestAlgorithm::Sha1 } else { format!("sha{w}").parse().unwrap() };
                    Some(reference(alg, s.as_bytes()))
                }
                _ => None,
            };
            prop_assert_eq!(&got[i], &want);
        }
    }
}

/// Enough rows of every width that each algorithm runs in its vector lanes
/// (the per-algorithm multi-buffer pass), rows of mixed lengths across the
/// block boundaries, NULL values and NULL widths; and a scalar input with a
/// width column (one digest per algorithm, copied).
#[test]
fn sha2_width_column_in_lanes_matches_reference() {
    let n = 3000;
    let widths = [1, 224, 256, 384, 512];
    let rows: Vec<Option<String>> =
        (0..n).map(|i| if i % 11 == 0 { None } else { Some(format!("{i}:{}", "ab\u{e9}".repeat(i % 90))) }).collect();
    let w: Vec<Option<i32>> = (0..n).map(|i| if i % 13 == 0 { None } else { Some(widths[(i * 7) % 5]) }).collect();
    let alg = |w: i32| if w == 1 { DigestAlgorithm::Sha1 } else { format!("sha{w}").parse().unwrap() };
    let input = StringArray::from(rows.clone());
    let out: ArrayRef =
        Arc::new(digest::sha2(&input.slice(5, n - 5), &Int32Array::from(w.clone()).slice(5, n - 5)).unwrap());
    out.to_data().validate_full().unwrap();
    let got = strs(&out);
    for (i, (r, w)) in rows[5..].iter().zip(&w[5..]).enumerate() {
        let want = match (r, w) {
            (Some(r), Some(w)) => Some(reference(alg(*w), r.as_bytes())),
            _ => None,
        };
        assert_eq!(got[i], want, "row {}", i + 5);
    }
    let scalar = Scalar::new(StringArray::from(vec!["sluice"]));
    let out: ArrayRef = Arc::new(digest::sha2(&scalar, &Int32Array::from(w.clone())).unwrap());
    let got = strs(&out);
    for (i, w) in w.iter().enumerate() {
        assert_eq!(got[i], w.map(|w| reference(alg(w), b"sluice")), "scalar row {i}");
    }
}

// ---- allocation discipline -----------------------------------------------

/// Allocation calls do not grow with the row count: two buffers per batch.
#[test]
fn no_allocation_per_row() {
    let make =
        |n: usize| StringArray::from_iter((0..n).map(|i| if i % 5 == 0 { None } else { Some(format!("row-{i}")) }));
    let (small, big) = (make(100), make(20_000));
    for alg in DigestAlgorithm::ALL {
        let (a_small, _) = count_allocs(|| digest_hex(&small, alg).unwrap());
        let (a_big, _) = count_allocs(|| digest_hex(&big, alg).unwrap());
        assert_eq!(a_small, a_big, "{alg}");
        assert!(a_big <= 6, "{alg}: {a_big} allocations");
    }
    let w_small = Int32Array::from_iter((0..100).map(|i| [Some(1), Some(224), None, Some(512)][i % 4]));
    let w_big = Int32Array::from_iter((0..20_000).map(|i| [Some(1), Some(224), None, Some(512)][i % 4]));
    let (a_small, _) = count_allocs(|| digest::sha2(&small, &w_small).unwrap());
    let (a_big, _) = count_allocs(|| digest::sha2(&big, &w_big).unwrap());
    assert_eq!(a_small, a_big);
    let (a_small, _) = count_allocs(|| digest::sha2(&small, &lit(Some(384))).unwrap());
    let (a_big, _) = count_allocs(|| digest::sha2(&big, &lit(Some(384))).unwrap());
    assert_eq!(a_small, a_big);
}

/// Outputs past the streaming-store threshold (256 KiB) take another write
/// path; check it row by row against the reference, with and without NULLs.
#[test]
fn large_batches_match_reference() {
    let rows: Vec<Option<String>> = (0..9000).map(|i| Some(format!("{i}-{}", "x".repeat(i % 70)))).collect();
    let with_nulls: Vec<Option<String>> =
        rows.iter().enumerate().map(|(i, r)| if i % 3 == 0 { None } else { r.clone() }).collect();
    for data in [&rows, &with_nulls] {
        let a = StringArray::from(data.clone());
        for alg in DigestAlgorithm::ALL {
            let bytes: Vec<Option<&[u8]>> = data.iter().map(|r| r.as_deref().map(str::as_bytes)).collect();
            check_against_reference(&a, &bytes, alg);
            check_against_reference(&a.slice(1, 8000), &bytes[1..8001], alg);
        }
    }
}
