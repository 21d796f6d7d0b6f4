//! No allocation per row: the batch encoders allocate a fixed number of
//! buffers per batch whatever its row count, and a cache hit allocates
//! nothing. Uses the counting allocator (counts are per thread).

use arrow_buffer::NullBuffer;
use sluice_kernels::alloc_count::{count_allocs, CountingAlloc};
use sluice_kernels::encode::{
    encode_utf16_into, utf16_to_large_utf8, utf16_to_utf8, utf16_to_utf8_cached, CachedEncoder,
};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc::system();

/// `rows` rows cycling through ASCII, 2-/3-byte, supplementary and lone
/// surrogate values of different lengths.
fn batch(rows: usize) -> (Vec<u16>, Vec<i64>, NullBuffer) {
    let samples: Vec<Vec<u16>> = [
        "plain ascii text here",
        "ünïcödé",
        "中文字符",
        "\u{1F600}x",
        "",
        "a much longer ascii value that spans a few SIMD blocks .........",
    ]
    .iter()
    .map(|s| s.encode_utf16().collect())
    .chain([vec![0xD800u16, 0x41]])
    .collect();
    let mut units = Vec::new();
    let mut offsets = vec![0i64];
    for r in 0..rows {
        units.extend_from_slice(&samples[r % samples.len()]);
        offsets.push(units.len() as i64);
    }
    let nulls = NullBuffer::from((0..rows).map(|r| r % 5 != 3).collect::<Vec<_>>());
    (units, offsets, nulls)
}

#[test]
fn batch_allocations_do_not_grow_with_rows() {
    let (su, so, sn) = batch(10);
    let (lu, lo, ln) = batch(10_000);
    for nulls in [false, true] {
        let (small, _) = count_allocs(|| utf16_to_utf8(&su, &so, nulls.then_some(&sn)).unwrap());
        let (large, _) = count_allocs(|| utf16_to_utf8(&lu, &lo, nulls.then_some(&ln)).unwrap());
        assert_eq!(small, large, "utf16_to_utf8 allocations grow with rows (nulls: {nulls})");
        assert!(large <= 6, "{large} allocations for one batch");
        let (small, _) = count_allocs(|| utf16_to_large_utf8(&su, &so, nulls.then_some(&sn)).unwrap());
        let (large, _) = count_allocs(|| utf16_to_large_utf8(&lu, &lo, nulls.then_some(&ln)).unwrap());
        assert_eq!(small, large, "utf16_to_large_utf8 allocations grow with rows");
    }
}

#[test]
fn cached_batch_allocations_do_not_grow_with_rows() {
    // Runs of equal values: after the cache's buffers have grown once,
    // neither hits nor misses allocate.
    let value: Vec<u16> = "répété".encode_utf16().collect();
    let make = |rows: usize| {
        let units: Vec<u16> = (0..rows).flat_map(|_| value.iter().copied()).collect();
        let offsets: Vec<i64> = (0..=rows).map(|r| (r * value.len()) as i64).collect();
        (units, offsets)
    };
    let (su, so) = make(10);
    let (lu, lo) = make(10_000);
    let mut c = CachedEncoder::new();
    utf16_to_utf8_cached(&su, &so, None, &mut c).unwrap(); // warm the cache buffers
    let (small, _) = count_allocs(|| utf16_to_utf8_cached(&su, &so, None, &mut c).unwrap());
    let (large, _) = count_allocs(|| utf16_to_utf8_cached(&lu, &lo, None, &mut c).unwrap());
    assert_eq!(small, large);
    assert_eq!(c.stats().hits, 10 + 10 + 10_000 - 1);
}

#[test]
fn cache_hits_do_not_allocate() {
    let mut c = CachedEncoder::new();
    let v: Vec<u16> = "kéy \u{1F600}".encode_utf16().collect();
    let mut out = Vec::with_capacity(1 << 16);
    c.encode_into(&v, &mut out); // miss: the cache copies the value
    let (allocs, _) = count_allocs(|| {
        for _ in 0..1000 {
            c.encode_into(&v, &mut out);
        }
    });
    assert_eq!(allocs, 0);
    assert_eq!(c.stats().hits, 1000);
    assert_eq!(out.len(), 1001 * "kéy \u{1F600}".len());
}

#[test]
fn per_value_encode_does_not_allocate_with_room() {
    let v: Vec<u16> = "ascii and ünïcödé and \u{1F600} and more ascii to pass one block".encode_utf16().collect();
    let mut out = Vec::with_capacity(1 << 16);
    let (allocs, _) = count_allocs(|| {
        for _ in 0..100 {
            encode_utf16_into(&v, &mut out);
        }
    });
    assert_eq!(allocs, 0);
}
