//! Multi-buffer digests against the single-stream RustCrypto crates and
//! published test vectors, at every dispatch level this CPU has.

use proptest::prelude::*;
use sluice_kernels::alloc_count::{count_allocs, CountingAlloc};
use sluice_kernels::multibuffer as mb;
use sluice_kernels::Level;

#[global_allocator]
static A: CountingAlloc = CountingAlloc::system();

fn levels() -> impl Iterator<Item = Level> {
    Level::testable().into_iter()
}

/// Row lengths that matter: around every padding boundary of 64- and
/// 128-byte blocks, plus a spread of others.
fn interesting_len() -> impl Strategy<Value = usize> {
    prop_oneof![
        3 => 0usize..300,
        2 => prop::sample::select(vec![
            0usize, 1, 54, 55, 56, 57, 63, 64, 65, 110, 111, 112, 113, 119, 120, 121, 127, 128,
            129, 183, 184, 192, 239, 240, 255, 256, 257,
        ]),
        1 => 300usize..1100,
    ]
}

/// Rows: `None` = NULL.
fn rows_strategy() -> impl Strategy<Value = Vec<Option<Vec<u8>>>> {
    prop::collection::vec(
        (any::<bool>(), interesting_len(), any::<u8>()).prop_map(|(null, len, seed)| {
            (!null || len % 7 != 0).then(|| (0..len).map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed)).collect())
        }),
        0..70,
    )
}

macro_rules! algo_tests {
    ($modname:ident, $with_level:path, $auto:path, $n:expr, $reference:expr, $($vec_in:expr => $vec_out:expr),* $(,)?) => {
        mod $modname {
            use super::*;

            /// Digests of `rows` at `level`, indexed by row; checks each
            /// non-NULL row is emitted exactly once and NULL rows never.
            fn run(level: Level, rows: &[Option<Vec<u8>>]) -> Vec<Option<[u8; $n]>> {
                let mut out: Vec<Option<[u8; $n]>> = vec![None; rows.len()];
                $with_level(level, rows.len(), |i| rows[i].as_deref(), |i, d| {
                    assert!(rows[i].is_some(), "NULL row {i} emitted");
                    assert!(out[i].replace(*d).is_none(), "row {i} emitted twice");
                });
                out
            }

            fn reference(rows: &[Option<Vec<u8>>]) -> Vec<Option<[u8; $n]>> {
                let f: fn(&[u8]) -> [u8; $n] = $reference;
                rows.iter().map(|r| r.as_deref().map(f)).collect()
            }

            #[test]
            fn known_vectors() {
                let rows: Vec<Option<Vec<u8>>> = vec![$(Some($vec_in.to_vec())),*];
                let want: Vec<&str> = vec![$($vec_out),*];
                for level in levels() {
                    let got = run(level, &rows);
                    for (g, w) in got.iter().zip(&want) {
                        assert_eq!(hex::encode(g.unwrap()), *w, "{level:?}");
                    }
                }
            }

            #[test]
            fn every_length_to_300_in_one_batch() {
                let rows: Vec<Option<Vec<u8>>> =
                    (0..300).map(|n| Some((0..n).map(|i| (i * 7 + n) as u8).collect())).collect();
                let want = reference(&rows);
                for level in levels() {
                    assert_eq!(run(level, &rows), want, "{level:?}");
                }
            }

            #[test]
            fn long_rows_drained_single_stream_mid_row() {
                let rows: Vec<Option<Vec<u8>>> = (0..20)
                    .map(|n| Some(vec![n as u8; if n % 3 == 0 { 20_000 + n } else { n * 9 }]))
                    .collect();
                let want = reference(&rows);
                for level in levels() {
                    assert_eq!(run(level, &rows), want, "{level:?}");
                }
            }

            #[test]
            fn no_allocation_per_batch() {
                let rows: Vec<Option<Vec<u8>>> = (0..1000).map(|n| Some(vec![n as u8; n % 200])).collect();
                let mut sink = 0u8;
                for level in levels() {
                    let (allocs, ()) = count_allocs(|| {
                        $with_level(level, rows.len(), |i| rows[i].as_deref(), |_, d| sink ^= d[0]);
                    });
                    assert_eq!(allocs, 0, "{level:?}");
                }
                let (allocs, ()) = count_allocs(|| $auto(rows.len(), |i| rows[i].as_deref(), |_, d| sink ^= d[1]));
                assert_eq!(allocs, 0);
                std::hint::black_box(sink);
            }

            proptest! {
                #![proptest_config(ProptestConfig::with_cases(256))]
                #[test]
                fn matches_single_stream(rows in rows_strategy(), start in 0usize..8, len_cut in 0usize..8) {
                    // A "slice" of the rows, as a sliced array would give.
                    let start = start.min(rows.len());
                    let end = rows.len() - len_cut.min(rows.len() - start);
                    let rows = &rows[start..end];
                    let want = reference(rows);
                    for level in levels() {
                        prop_assert_eq!(run(level, rows), want.clone(), "{:?}", level);
                    }
                }
            }
        }
    };
}

algo_tests!(md5_mb, mb::md5_many_with_level, mb::md5_many, 16,
    |b| { use ::md5::Digest as _; ::md5::Md5::digest(b).into() },
    b"" => "d41d8cd98f00b204e9800998ecf8427e",
    b"a" => "0cc175b9c0f1b6a831c399e269772661",
    b"abc" => "900150983cd24fb0d6963f7d28e17f72",
    b"message digest" => "f96b697d7cb7938d525a2f31aaf161d0",
    b"12345678901234567890123456789012345678901234567890123456789012345678901234567890"
        => "57edf4a22be3c955ac49da2e2107b67a",
);

algo_tests!(sha1_mb, mb::sha1_many_with_level, mb::sha1_many, 20,
    |b| { use ::sha1::Digest as _; ::sha1::Sha1::digest(b).into() },
    b"" => "da39a3ee5e6b4b0d3255bfef95601890afd80709",
    b"abc" => "a9993e364706816aba3e25717850c26c9cd0d89d",
    b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"
        => "84983e441c3bd26ebaae4aa1f95129e5e54670f1",
);
algo_tests!(sha224_mb, mb::sha224_many_with_level, mb::sha224_many, 28,
    |b| { use ::sha2::Digest as _; ::sha2::Sha224::digest(b).into() },
    b"abc" => "23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7",
);
algo_tests!(sha256_mb, mb::sha256_many_with_level, mb::sha256_many, 32,
    |b| { use ::sha2::Digest as _; ::sha2::Sha256::digest(b).into() },
    b"" => "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    b"abc" => "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"
        => "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
);
algo_tests!(sha384_mb, mb::sha384_many_with_level, mb::sha384_many, 48,
    |b| { use ::sha2::Digest as _; ::sha2::Sha384::digest(b).into() },
    b"abc" => "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7",
);
algo_tests!(sha512_mb, mb::sha512_many_with_level, mb::sha512_many, 64,
    |b| { use ::sha2::Digest as _; ::sha2::Sha512::digest(b).into() },
    b"abc" => "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f",
);
