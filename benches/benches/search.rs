//! LIKE (prefix / contains / general) and POSITION over 2M rows of 64-byte
//! strings in batches of 8192, beside a naive per-row reference (and
//! arrow-rs `like` for LIKE), all in one criterion group so the ratios are
//! measured side by side.
//!
//! ```text
//! cargo bench -p sluice-benches --bench search -- --warm-up-time 1 --measurement-time 3
//! ```

use sluice_benches::data::Rng;
use std::hint::black_box;

use arrow_array::{Array, BooleanArray, Int32Array, Scalar, StringArray};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use sluice_kernels::search::{like, position};

const ROWS: usize = 2_000_000;
const BATCH: usize = 8192;
const LEN: usize = 64;

/// 64-byte rows: lowercase ASCII and spaces, one in eight rows with a
/// two-byte character, so matches of 2–3 letter needles are common but not
/// universal.
fn batches() -> Vec<StringArray> {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut out = Vec::new();
    let mut left = ROWS;
    while left > 0 {
        let n = left.min(BATCH);
        let rows: Vec<String> = (0..n)
            .map(|_| {
                let mut s = String::with_capacity(LEN);
                if rng.next().is_multiple_of(8) {
                    s.push('é');
                }
                while s.len() < LEN {
                    let r = rng.next() % 32;
                    s.push(if r >= 26 { ' ' } else { (b'a' + r as u8) as char });
                }
                s
            })
            .collect();
        out.push(StringArray::from(rows));
        left -= n;
    }
    out
}

/// Naive LIKE: per row, decode to chars and run the textbook wildcard
/// matcher (what a straightforward per-row implementation does).
fn naive_like(s: &str, p: &[char]) -> bool {
    let s: Vec<char> = s.chars().collect();
    let (mut i, mut j) = (0, 0);
    let (mut star, mut mark) = (None, 0);
    while i < s.len() {
        if j < p.len() && p[j] != '%' && (p[j] == s[i] || (p[j] == '_' && s[i] != '\n')) {
            i += 1;
            j += 1;
        } else if j < p.len() && p[j] == '%' {
            star = Some(j);
            mark = i;
            j += 1;
        } else if let Some(st) = star {
            j = st + 1;
            mark += 1;
            i = mark;
        } else {
            return false;
        }
    }
    while j < p.len() && p[j] == '%' {
        j += 1;
    }
    j == p.len()
}

fn naive_like_batch(a: &StringArray, p: &[char]) -> BooleanArray {
    a.iter().map(|v| v.map(|s| naive_like(s, p))).collect()
}

/// Naive POSITION: `str::find` then count the characters before it.
fn naive_position_batch(a: &StringArray, needle: &str) -> Int32Array {
    a.iter().map(|v| v.map(|s| s.find(needle).map_or(0, |b| s[..b].chars().count() as i32 + 1))).collect()
}

fn bench(c: &mut Criterion) {
    let data = batches();
    let bytes: usize = data.iter().map(|a| a.values().len()).sum();
    let mut g = c.benchmark_group("search");
    g.sample_size(10);
    g.throughput(Throughput::Bytes(bytes as u64));

    for (name, pat) in [("like_prefix", "ab%"), ("like_contains", "%xyz%"), ("like_general", "%ab_d%e%")] {
        let scalar = Scalar::new(StringArray::from(vec![pat]));
        let chars: Vec<char> = pat.chars().collect();
        g.bench_function(format!("{name}/sluice"), |b| {
            b.iter(|| {
                for a in &data {
                    black_box(like(a, &scalar, None).unwrap());
                }
            })
        });
        g.bench_function(format!("{name}/arrow_string"), |b| {
            b.iter(|| {
                for a in &data {
                    black_box(arrow_string::like::like(a, &scalar).unwrap());
                }
            })
        });
        g.bench_function(format!("{name}/naive"), |b| {
            b.iter(|| {
                for a in &data {
                    black_box(naive_like_batch(a, &chars));
                }
            })
        });
    }

    let needle = "xyz";
    let scalar = Scalar::new(StringArray::from(vec![needle]));
    g.bench_function("position/sluice", |b| {
        b.iter(|| {
            for a in &data {
                black_box(position(&scalar, a).unwrap());
            }
        })
    });
    g.bench_function("position/naive", |b| {
        b.iter(|| {
            for a in &data {
                black_box(naive_position_batch(a, needle));
            }
        })
    });
    g.finish();

    // Same answers (checked once, outside the timing).
    for a in data.iter().take(4) {
        assert_eq!(position(&scalar, a).unwrap(), naive_position_batch(a, needle));
        for pat in ["ab%", "%xyz%", "%ab_d%e%"] {
            let chars: Vec<char> = pat.chars().collect();
            let s = Scalar::new(StringArray::from(vec![pat]));
            assert_eq!(like(a, &s, None).unwrap(), naive_like_batch(a, &chars), "{pat}");
        }
        let _ = a.len();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
