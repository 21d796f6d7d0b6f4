//! The repeated-value encode cache (`CachedEncoder`): same bytes as the
//! plain encoder, and the policy of seed 000 "Repeated lazy-string
//! encodings": ≤ 1,024 units eligible, 8 consecutive eligible misses →
//! release + bypass for good, a hit resets the miss counter, NULLs untouched;
//! and values that narrow (ASCII: UTF-8 as long as the UTF-16) are never
//! cached, because re-narrowing them is cheaper than a hit.

use arrow_array::Array;
use arrow_buffer::NullBuffer;
use proptest::prelude::*;
use sluice_kernels::encode::forced;
use sluice_kernels::encode::{
    encode_utf16_into, utf16_to_utf8, utf16_to_utf8_cached, CachedEncoder, EncodeCacheStats, MAX_CACHED_UNITS,
    MAX_CONSECUTIVE_MISSES, PLAIN_ROWS, QUIET_ROWS,
};
use sluice_kernels::Level;

fn u(s: &str) -> Vec<u16> {
    s.encode_utf16().collect()
}

fn plain(units: &[u16]) -> Vec<u8> {
    let mut v = Vec::new();
    encode_utf16_into(units, &mut v);
    v
}

fn enc(c: &mut CachedEncoder, units: &[u16]) -> Vec<u8> {
    let mut v = Vec::new();
    c.encode_into(units, &mut v);
    v
}

fn stats(hits: u64, misses: u64, bypassed: bool, bypassed_rows: u64, ineligible: u64) -> EncodeCacheStats {
    EncodeCacheStats { hits, misses, bypassed, bypassed_rows, ineligible }
}

#[test]
fn policy_constants() {
    assert_eq!(MAX_CACHED_UNITS, 1024);
    assert_eq!(MAX_CONSECUTIVE_MISSES, 8);
    assert_eq!((QUIET_ROWS, PLAIN_ROWS), (64, 1024));
}

/// A batch's quiet stretch: after 64 ASCII rows the next 1,024 rows are
/// encoded plainly (mixed-script runs included, counted ineligible), then
/// the cache serves the runs again; the bytes are plain encoding's.
#[test]
fn a_quiet_stretch_encodes_plainly_then_looks_again() {
    let mut values: Vec<Vec<u16>> = (0..64).map(|r| u(&format!("ascii value {r:04}"))).collect();
    values.extend((0..2000).map(|r| u(&format!("zürich {:04}", r / 4))));
    let (units, offsets) = (values.concat(), offsets_of(&values));
    for level in Level::testable() {
        let mut c = CachedEncoder::new();
        let got = forced::utf16_to_utf8_cached(level, &units, &offsets, None, &mut c).unwrap();
        assert_eq!(got, utf16_to_utf8(&units, &offsets, None).unwrap(), "{level:?}");
        // Rows 64..1088 plain; 1088.. are 244 runs of 4 (a miss, 3 hits).
        assert_eq!(c.stats(), stats(732, 244, false, 0, 64 + 1024), "{level:?}");
    }
}

#[test]
fn hit_copies_the_cached_bytes() {
    let mut c = CachedEncoder::new();
    let v = u("grüße \u{1F600}");
    assert_eq!(enc(&mut c, &v), "grüße \u{1F600}".as_bytes());
    assert_eq!(enc(&mut c, &v), "grüße \u{1F600}".as_bytes());
    // Unpaired surrogates come out as '?' from the cache too.
    let w = [0xE9, 0xDC00, 0xD800];
    assert_eq!(enc(&mut c, &w), "é??".as_bytes());
    assert_eq!(enc(&mut c, &w), "é??".as_bytes());
    assert_eq!(c.stats(), stats(2, 2, false, 0, 0));
}

#[test]
fn eight_consecutive_misses_bypass_for_good() {
    let mut c = CachedEncoder::new();
    for i in 0..7 {
        enc(&mut c, &u(&format!("v{i}é")));
    }
    assert!(!c.stats().bypassed);
    assert!(c.retained_bytes() > 0);
    enc(&mut c, &u("v7é"));
    assert_eq!(c.stats(), stats(0, 8, true, 0, 0));
    assert_eq!(c.retained_bytes(), 0, "bypass releases the cached value");
    // Repeats are no longer looked up: neither hits nor misses move.
    for _ in 0..5 {
        assert_eq!(enc(&mut c, &u("v7é")), "v7é".as_bytes());
    }
    let long = vec![0x41u16; MAX_CACHED_UNITS + 1];
    enc(&mut c, &long);
    assert_eq!(c.stats(), stats(0, 8, true, 6, 0));
    assert_eq!(c.retained_bytes(), 0);
}

#[test]
fn a_hit_resets_the_miss_counter() {
    let mut c = CachedEncoder::new();
    for i in 0..7 {
        enc(&mut c, &u(&format!("ä{i}")));
    }
    enc(&mut c, &u("ä6")); // hit: counter back to 0
    for i in 0..7 {
        enc(&mut c, &u(&format!("ß{i}")));
    }
    assert_eq!(c.stats(), stats(1, 14, false, 0, 0));
    enc(&mut c, &u("ß7")); // the eighth consecutive miss
    assert_eq!(c.stats(), stats(1, 15, true, 0, 0));
}

#[test]
fn values_over_1024_units_do_not_touch_the_cache() {
    let mut c = CachedEncoder::new();
    let short = u("kéy");
    let at_limit = vec![0xE9u16; MAX_CACHED_UNITS];
    let long = vec![0xE9u16; MAX_CACHED_UNITS + 1];
    enc(&mut c, &short);
    // Long values neither evict nor count as misses, however many.
    for _ in 0..20 {
        assert_eq!(enc(&mut c, &long), plain(&long));
    }
    enc(&mut c, &short);
    assert_eq!(c.stats(), stats(1, 1, false, 0, 20));
    // Exactly 1,024 units is eligible.
    enc(&mut c, &at_limit);
    assert_eq!(enc(&mut c, &at_limit), plain(&at_limit));
    assert_eq!(c.stats(), stats(2, 2, false, 0, 20));
}

#[test]
fn nulls_do_not_touch_the_cache() {
    let mut c = CachedEncoder::new();
    // Rows: "α", NULL (spanning different units), "α", NULL, NULL, "α".
    let units = u("αβγαβγωα");
    let offsets = [0, 1, 3, 4, 6, 7, 8];
    let nulls = NullBuffer::from(vec![true, false, true, false, false, true]);
    let arr = utf16_to_utf8_cached(&units, &offsets, Some(&nulls), &mut c).unwrap();
    arr.to_data().validate_full().unwrap();
    assert_eq!(arr.value_offsets(), &[0, 2, 2, 4, 4, 4, 6]);
    assert_eq!(c.stats(), stats(2, 1, false, 0, 0));

    // Seven misses, then NULLs, then an eighth miss: NULLs neither count
    // nor reset.
    let mut c = CachedEncoder::new();
    let units = u("αβγδεζηθικ");
    let offsets = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    let nulls = NullBuffer::from(vec![true, true, true, true, true, true, true, false, false, true]);
    utf16_to_utf8_cached(&units, &offsets, Some(&nulls), &mut c).unwrap();
    assert_eq!(c.stats(), stats(0, 8, true, 0, 0));
}

#[test]
fn cache_lives_across_batches() {
    let mut c = CachedEncoder::new();
    let units = u("sämesäme");
    utf16_to_utf8_cached(&units, &[0, 4], None, &mut c).unwrap();
    let arr = utf16_to_utf8_cached(&units, &[4, 8, 8], None, &mut c).unwrap();
    assert_eq!(arr.value(0), "säme");
    assert_eq!(arr.value(1), "");
    // "säme" hit; "" narrows (0 bytes for 0 units): never cached.
    assert_eq!(c.stats(), stats(1, 1, false, 0, 1));
}

#[test]
fn errors_leave_the_cache_untouched() {
    let mut c = CachedEncoder::new();
    assert!(utf16_to_utf8_cached(&[0x61], &[0, 2], None, &mut c).is_err());
    assert_eq!(c.stats(), EncodeCacheStats::default());
}

#[test]
fn narrowed_values_are_never_cached_and_keep_the_cached_value() {
    let mut c = CachedEncoder::new();
    let ascii = u("plain ascii value");
    let mixed = u("grüße");
    // An ASCII run: encoded every time, neither a hit nor a miss.
    for _ in 0..20 {
        assert_eq!(enc(&mut c, &ascii), b"plain ascii value");
    }
    assert_eq!(c.stats(), stats(0, 0, false, 0, 20));
    assert_eq!(c.retained_bytes(), 0, "nothing cached for ASCII");
    // A cached value survives narrowed values in between; lone surrogates
    // narrow too ('?' is one byte).
    enc(&mut c, &mixed);
    enc(&mut c, &ascii);
    assert_eq!(enc(&mut c, &[0x61, 0xD800]), b"a?");
    assert_eq!(enc(&mut c, &mixed), "grüße".as_bytes());
    assert_eq!(c.stats(), stats(1, 1, false, 0, 22));
    // Narrowed values do not count towards the bypass either.
    for i in 0..7 {
        enc(&mut c, &u(&format!("é{i}")));
        enc(&mut c, &u(&format!("e{i}")));
    }
    assert!(!c.stats().bypassed);
}

/// The columns of the `encode_cache` bench (ASCII and mixed-script runs,
/// distinct values, long values) at every level: byte-identical to plain
/// encoding, in one batch and split over batches.
#[test]
fn bench_columns_equal_plain_encoding() {
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move |n: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % n
    };
    let mut ascii = || 0x20 + next(0x5F) as u16;
    let ascii_values: Vec<Vec<u16>> = (0..600).map(|i| (0..16 + i % 50).map(|_| ascii()).collect()).collect();
    let mixed =
        |v: &[u16]| -> Vec<u16> { v.iter().map(|&a| if a % 3 == 0 { 0x4E00 + a } else { 0x0410 + a % 64 }).collect() };
    let mixed_values: Vec<Vec<u16>> = ascii_values.iter().map(|v| mixed(v)).collect();
    let long: Vec<Vec<u16>> = ascii_values.iter().map(|v| mixed(&v.repeat(30))).collect();
    let runs = |vals: &[Vec<u16>], run: usize| -> Vec<Vec<u16>> {
        vals.iter().flat_map(|v| std::iter::repeat_n(v.clone(), run)).take(2000).collect()
    };
    let columns = [
        runs(&ascii_values, 8),
        runs(&mixed_values, 8),
        ascii_values.clone(),
        mixed_values.clone(),
        runs(&long[..40], 8),
        runs(&ascii_values.iter().zip(&mixed_values).flat_map(|(a, m)| [a.clone(), m.clone()]).collect::<Vec<_>>(), 3),
    ];
    for values in &columns {
        let units: Vec<u16> = values.concat();
        let mut offsets = vec![0i64];
        for v in values {
            offsets.push(offsets.last().unwrap() + v.len() as i64);
        }
        let want = utf16_to_utf8(&units, &offsets, None).unwrap();
        let reference: Vec<u8> = values.iter().flat_map(|v| plain(v)).collect();
        assert_eq!(want.value_data(), &reference[..]);
        for level in Level::ALL.into_iter().filter(|l| l.is_available()) {
            let mut c = CachedEncoder::new();
            let got = forced::utf16_to_utf8_cached(level, &units, &offsets, None, &mut c).unwrap();
            assert_eq!(got, want, "{level:?}");
            let mut c = CachedEncoder::new();
            let mut rows = 0;
            while rows < values.len() {
                let end = (rows + 301).min(values.len());
                let got = forced::utf16_to_utf8_cached(level, &units, &offsets[rows..=end], None, &mut c).unwrap();
                let part = want.slice(rows, end - rows);
                assert_eq!(got.iter().collect::<Vec<_>>(), part.iter().collect::<Vec<_>>(), "{level:?} rows {rows}..");
                rows = end;
            }
            assert_eq!(
                c.stats().hits + c.stats().misses + c.stats().ineligible + c.stats().bypassed_rows,
                values.len() as u64
            );
        }
    }
}

/// Values drawn from a small pool in runs, so hits, misses, the reset and
/// (sometimes) the bypass all happen.
fn runs() -> impl Strategy<Value = Vec<Vec<u16>>> {
    let unit = prop_oneof![4 => 0u16..0x80, 1 => 0x80u16..0x800, 1 => 0x800u16..0xFFFF, 1 => 0xD800u16..0xE000];
    let pool = prop::collection::vec(
        prop_oneof![
            8 => prop::collection::vec(unit.clone(), 0..40),
            1 => prop::collection::vec(unit, 1020..1030),
        ],
        1..12,
    );
    (pool, prop::collection::vec((any::<prop::sample::Index>(), 1usize..5), 0..40)).prop_map(|(pool, picks)| {
        picks.into_iter().flat_map(|(i, n)| std::iter::repeat_n(pool[i.index(pool.len())].clone(), n)).collect()
    })
}

/// Whether `v`'s UTF-8 is as long as its UTF-16: every code point ASCII or
/// an unpaired surrogate (one `?`).
fn narrows(v: &[u16]) -> bool {
    char::decode_utf16(v.iter().copied()).all(|r| r.map_or(true, |c| c.is_ascii()))
}

/// The policy's plain description, one value at a time: the per-value
/// form's counters, and the batch form's before its quiet rule.
#[derive(Default)]
struct Model {
    s: EncodeCacheStats,
    prev: Option<Vec<u16>>,
    streak: u32,
}

impl Model {
    /// Counts valid value `v`; whether it was a hit or a miss.
    fn value(&mut self, v: &[u16]) -> bool {
        let s = &mut self.s;
        if s.bypassed {
            s.bypassed_rows += 1;
        } else if v.len() > 1024 {
            s.ineligible += 1;
        } else if self.prev.as_deref() == Some(v) {
            s.hits += 1;
            self.streak = 0;
            return true;
        } else if narrows(v) {
            s.ineligible += 1;
        } else {
            s.misses += 1;
            self.streak += 1;
            self.prev = Some(v.to_vec());
            if self.streak == 8 {
                s.bypassed = true;
            }
            return true;
        }
        false
    }

    /// One batch (`valid[i]`: row `i` is not NULL): after `QUIET_ROWS`
    /// rows without a hit or a miss (NULL rows included), the next
    /// `PLAIN_ROWS` rows are encoded plainly and their values count as
    /// ineligible (or as bypassed once the cache is).
    fn batch(&mut self, values: &[Vec<u16>], valid: &[bool]) {
        let (mut quiet, mut plain) = (0, 0);
        for (v, &ok) in values.iter().zip(valid) {
            if plain > 0 && !self.s.bypassed {
                plain -= 1;
                self.s.ineligible += u64::from(ok);
                continue;
            }
            if ok && self.value(v) {
                quiet = 0;
            } else {
                quiet += 1;
                if quiet == QUIET_ROWS {
                    (quiet, plain) = (0, PLAIN_ROWS);
                }
            }
        }
    }
}

/// The per-value form's counters for `values`.
fn model(values: &[Vec<u16>]) -> EncodeCacheStats {
    let mut m = Model::default();
    for v in values {
        m.value(v);
    }
    m.s
}

/// The batch form's counters for consecutive batches through one cache.
fn batch_model<'a>(batches: impl IntoIterator<Item = (&'a [Vec<u16>], &'a [bool])>) -> EncodeCacheStats {
    let mut m = Model::default();
    for (values, valid) in batches {
        m.batch(values, valid);
    }
    m.s
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn cached_equals_plain(values in runs()) {
        let mut c = CachedEncoder::new();
        let mut out = Vec::new();
        let mut expected = Vec::new();
        for v in &values {
            c.encode_into(v, &mut out);
            expected.extend_from_slice(&plain(v));
        }
        prop_assert_eq!(out, expected);
        prop_assert_eq!(c.stats(), model(&values));
    }

    #[test]
    fn cached_batch_equals_plain_batch(values in runs(), mask in prop::collection::vec(any::<bool>(), 200)) {
        let units: Vec<u16> = values.concat();
        let mut offsets = vec![0i64];
        for v in &values {
            offsets.push(offsets.last().unwrap() + v.len() as i64);
        }
        let nulls = NullBuffer::from(mask[..values.len()].to_vec());
        let plain_arr = utf16_to_utf8(&units, &offsets, Some(&nulls)).unwrap();
        let valid: Vec<Vec<u16>> = values.iter().enumerate().filter(|(i, _)| nulls.is_valid(*i)).map(|(_, v)| v.clone()).collect();
        for level in Level::testable().into_iter() {
            let mut c = CachedEncoder::new();
            let arr = forced::utf16_to_utf8_cached(level, &units, &offsets, Some(&nulls), &mut c).unwrap();
            arr.to_data().validate_full().unwrap();
            prop_assert_eq!(&arr, &plain_arr);
            prop_assert_eq!(c.stats(), batch_model([(&values[..], &mask[..values.len()])]));
            let mut c = CachedEncoder::new();
            let mut out = Vec::new();
            for v in &valid {
                forced::cached_encode_into(level, &mut c, v, &mut out).unwrap();
            }
            prop_assert_eq!(out, valid.iter().flat_map(|v| plain(v)).collect::<Vec<u8>>());
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// One cache over consecutive batches (the writer's lifetime): the
    /// value cached at the end of a batch (an owned copy made when the batch
    /// finishes) must hit at the start of the next, at every level, and the
    /// counters follow the policy over all batches together.
    #[test]
    fn cache_state_carries_across_batches(values in runs(), cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..4)) {
        let cuts = batch_cuts(&cuts, values.len());
        for level in Level::testable().into_iter() {
            let mut c = CachedEncoder::new();
            for w in cuts.windows(2) {
                let batch = &values[w[0]..w[1]];
                let units: Vec<u16> = batch.concat();
                let offsets = offsets_of(batch);
                let arr = forced::utf16_to_utf8_cached(level, &units, &offsets, None, &mut c).unwrap();
                let want = utf16_to_utf8(&units, &offsets, None).unwrap();
                prop_assert_eq!(&arr, &want, "{:?}", level);
            }
            let all_valid = vec![true; values.len()];
            let batches = cuts.windows(2).map(|w| (&values[w[0]..w[1]], &all_valid[w[0]..w[1]]));
            prop_assert_eq!(c.stats(), batch_model(batches), "{:?}", level);
            if c.stats().bypassed {
                prop_assert_eq!(c.retained_bytes(), 0);
            }
        }
    }
}

/// One batch through a fresh cache at every level: rows `first..` of
/// `values` (offsets starting past unit 0 when `first > 0`, as a slice of
/// a bigger array), with validity `valid[first..]`, against plain encoding
/// and the policy's model.
fn check_batch(values: &[Vec<u16>], first: usize, valid: &[bool]) {
    let units: Vec<u16> = values.concat();
    let mut offsets = vec![0i64];
    for v in values {
        offsets.push(offsets.last().unwrap() + v.len() as i64);
    }
    let offsets = &offsets[first..];
    let nulls = NullBuffer::from(valid[first..].to_vec());
    let want = utf16_to_utf8(&units, offsets, Some(&nulls)).unwrap();
    let reference: Vec<u8> = (first..values.len()).filter(|&r| valid[r]).flat_map(|r| plain(&values[r])).collect();
    assert_eq!(want.value_data(), &reference[..]);
    for level in Level::testable() {
        let mut c = CachedEncoder::new();
        let got = forced::utf16_to_utf8_cached(level, &units, offsets, Some(&nulls), &mut c).unwrap();
        got.to_data().validate_full().unwrap();
        assert_eq!(got, want, "{level:?} from row {first}");
        assert_eq!(c.stats(), batch_model([(&values[first..], &valid[first..])]), "{level:?} from row {first}");
    }
}

/// The cache's batch paths: whole ASCII batches (the plain loop end to
/// end), batches switching between ASCII stretches and mixed-script runs
/// mid-batch (a cached value surviving an ASCII stretch, an ASCII value as
/// long as the cached one), NULLs inside streaks and stretches, sliced
/// offsets, empty values and batches, and values that make the optimistic
/// values buffer grow while the cached value lives in it.
#[test]
fn batch_paths_equal_plain_encoding() {
    let ascii = |i: usize, len: usize| -> Vec<u16> { (0..len).map(|k| 0x21 + ((i * 7 + k) % 90) as u16).collect() };
    let mixed = |i: usize, len: usize| -> Vec<u16> { (0..len).map(|k| 0x4E00 + ((i * 13 + k) % 500) as u16).collect() };
    // All ASCII, in runs and distinct: no hit, no miss, nothing retained.
    let all_ascii: Vec<Vec<u16>> = (0..300).map(|r| ascii(r / 8, 64)).collect();
    let mut c = CachedEncoder::new();
    let units = all_ascii.concat();
    let offsets: Vec<i64> = (0..=300).map(|r| r * 64).collect();
    let got = utf16_to_utf8_cached(&units, &offsets, None, &mut c).unwrap();
    assert_eq!(got, utf16_to_utf8(&units, &offsets, None).unwrap());
    assert_eq!(c.stats(), stats(0, 0, false, 0, 300));
    assert_eq!(c.retained_bytes(), 0);

    // Switching mid-batch: ASCII stretch, a mixed run, ASCII of the same
    // length as the cached value, the mixed value again (a hit across the
    // stretch), long values, empty values, a lone surrogate.
    let mut switching = Vec::new();
    for block in 0..12 {
        switching.extend((0..5).map(|r| ascii(block * 5 + r, 64)));
        switching.extend(std::iter::repeat_n(mixed(block, 64), 4));
        switching.push(ascii(block, 64));
        switching.push(mixed(block, 64));
        switching.push(Vec::new());
        switching.push(mixed(block, 1100));
        switching.push(mixed(block, 64));
        switching.push(vec![0x61, 0xDC00]);
    }
    let n = switching.len();
    let patterns: [Vec<bool>; 3] =
        [vec![true; n], (0..n).map(|r| r % 3 != 1).collect(), (0..n).map(|r| r % 7 != 0).collect()];
    for valid in &patterns {
        for first in [0, 1, 7, n / 2, n] {
            check_batch(&switching, first, valid);
        }
    }

    // Mixed runs only: every value's UTF-8 is three times its units, so
    // the one-byte-per-unit buffer grows once, inside a streak or a miss.
    let runs: Vec<Vec<u16>> = (0..400).map(|r| mixed(r / 6, 40)).collect();
    check_batch(&runs, 0, &vec![true; 400]);
    check_batch(&runs, 3, &(0..400).map(|r| r % 5 != 2).collect::<Vec<_>>());

    // Empty: no rows, and rows that are all empty values.
    check_batch(&[], 0, &[]);
    check_batch(&vec![Vec::new(); 20], 0, &[true; 20]);
    let mut c = CachedEncoder::new();
    assert_eq!(utf16_to_utf8_cached(&[], &[], None, &mut c).unwrap().len(), 0);
    assert_eq!(c.stats(), EncodeCacheStats::default());
}

/// The offsets of `values` laid end to end.
fn offsets_of(values: &[Vec<u16>]) -> Vec<i64> {
    let mut offsets = vec![0i64];
    for v in values {
        offsets.push(offsets.last().unwrap() + v.len() as i64);
    }
    offsets
}

/// Batch boundaries over `n` rows: 0, the picked rows, `n`, sorted.
fn batch_cuts(picks: &[prop::sample::Index], n: usize) -> Vec<usize> {
    let mut cuts: Vec<usize> = picks.iter().map(|i| i.index(n + 1)).collect();
    cuts.extend([0, n]);
    cuts.sort_unstable();
    cuts
}

/// Long columns of ASCII stretches (quiet) and mixed-script runs, so that
/// quiet stretches start, end at batch boundaries and cover runs.
fn stretches() -> impl Strategy<Value = Vec<Vec<u16>>> {
    let block = (any::<bool>(), 0u16..6, 1usize..150);
    prop::collection::vec(block, 1..30).prop_map(|blocks| {
        let mut values = Vec::new();
        for (ascii, pick, reps) in blocks {
            for r in 0..reps {
                values.push(if ascii {
                    (0..20).map(|k| 0x21 + (r as u16 + k) % 90).collect()
                } else {
                    // Runs of 4 of one of six mixed-script values.
                    let v = pick + (r / 4) as u16;
                    (0..12).map(|k| 0x4E00 + v * 16 + k).collect::<Vec<u16>>()
                });
            }
        }
        values
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn quiet_stretches_follow_the_model(
        values in stretches(),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..4),
        nulls_every in 2usize..40,
    ) {
        let cuts = batch_cuts(&cuts, values.len());
        let valid: Vec<bool> = (0..values.len()).map(|r| r % nulls_every != 0).collect();
        for level in Level::testable() {
            let mut c = CachedEncoder::new();
            for w in cuts.windows(2) {
                let batch = &values[w[0]..w[1]];
                let units: Vec<u16> = batch.concat();
                let offsets = offsets_of(batch);
                let nulls = NullBuffer::from(valid[w[0]..w[1]].to_vec());
                let got = forced::utf16_to_utf8_cached(level, &units, &offsets, Some(&nulls), &mut c).unwrap();
                prop_assert_eq!(&got, &utf16_to_utf8(&units, &offsets, Some(&nulls)).unwrap(), "{:?}", level);
            }
            let batches = cuts.windows(2).map(|w| (&values[w[0]..w[1]], &valid[w[0]..w[1]]));
            prop_assert_eq!(c.stats(), batch_model(batches), "{:?}", level);
        }
    }
}
