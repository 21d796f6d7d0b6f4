//! The `digest` hex kernels through the multi-buffer path, at every forced
//! dispatch level, against the streaming RustCrypto hashers + `hex`.
//!
//! `force_level` is process-wide, so this binary keeps every level switch
//! inside one test (tests in it run on several threads).

mod support;

use std::sync::Mutex;
use support::reference_hex as reference;

use arrow_array::{Array, BinaryArray};
use proptest::prelude::*;
use sluice_kernels::alloc_count::{count_allocs, CountingAlloc};
use sluice_kernels::digest::{digest_hex, DigestAlgorithm};
use sluice_kernels::multibuffer::force_level;
use sluice_kernels::Level;

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc::system();

/// Serialises the tests of this binary around the process-wide level.
static LEVEL_LOCK: Mutex<()> = Mutex::new(());

fn levels() -> Vec<Level> {
    Level::testable()
}

/// Strings whose UTF-8 lengths straddle the padding boundaries.
fn row_text() -> impl Strategy<Value = String> {
    prop_oneof![
        support::text(40),
        (0usize..300).prop_map(|n| "x".repeat(n)),
        prop::sample::select(vec![55usize, 56, 63, 64, 111, 112, 127, 128])
            .prop_map(|n| "€".repeat(n / 3) + &"y".repeat(n % 3)),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn digest_hex_every_level_layout_and_slice(
        rows in support::rows(60, row_text()),
        layout in 0u8..3,
        pad in 0usize..5,
    ) {
        let _g = LEVEL_LOCK.lock().unwrap_or_else(|e| e.into_inner());
        let input = support::strings(&rows, layout, pad);
        for level in levels() {
            force_level(Some(level));
            for alg in DigestAlgorithm::ALL {
                let out = digest_hex(&input, alg).unwrap();
                prop_assert_eq!(out.offset(), 0);
                let got = support::read_strings(&out);
                let want: Vec<Option<String>> =
                    rows.iter().map(|r| r.as_ref().map(|s| reference(alg, s.as_bytes()))).collect();
                prop_assert_eq!(got, want, "{:?} {}", level, alg);
            }
        }
        force_level(None);
    }
}

#[test]
fn binary_rows_with_invalid_utf8_every_level() {
    let _g = LEVEL_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let rows: Vec<Option<Vec<u8>>> =
        (0..200).map(|i| (i % 9 != 4).then(|| (0..i).map(|k| (k * 37 + i) as u8 | 0x80).collect())).collect();
    let input = BinaryArray::from_iter(rows.iter().map(|r| r.as_deref()));
    for level in levels() {
        force_level(Some(level));
        for alg in DigestAlgorithm::ALL {
            let out = digest_hex(&input, alg).unwrap();
            for (i, r) in rows.iter().enumerate() {
                match r {
                    None => assert!(out.is_null(i)),
                    Some(b) => assert_eq!(out.value(i), reference(alg, b), "{level:?} {alg} row {i}"),
                }
            }
        }
    }
    force_level(None);
}

#[test]
fn allocations_do_not_grow_with_rows_on_any_level() {
    let _g = LEVEL_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let make = |n: usize| {
        arrow_array::StringArray::from_iter(
            (0..n).map(|i| (i % 5 != 0).then(|| format!("row-{i}-{}", "z".repeat(i % 150)))),
        )
    };
    let (small, big) = (make(100), make(20_000));
    for level in levels() {
        force_level(Some(level));
        for alg in DigestAlgorithm::ALL {
            let (a_small, _) = count_allocs(|| digest_hex(&small, alg).unwrap());
            let (a_big, _) = count_allocs(|| digest_hex(&big, alg).unwrap());
            assert_eq!(a_small, a_big, "{level:?} {alg}");
            assert!(a_big <= 6, "{level:?} {alg}: {a_big} allocations");
        }
    }
    force_level(None);
}
