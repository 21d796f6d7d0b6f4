//! Multi-buffer digests vs the single-stream RustCrypto loop, side by side,
//! over batches of 8,192 rows.
//!
//! `cargo bench -p sluice-benches --bench multibuffer -- --warm-up-time 1 --measurement-time 3`
//!
//! For SHA-1/SHA-256 without SHA-NI, run the same bench with the crates'
//! soft backends forced (the multi-buffer kernels are unaffected):
//! `RUSTFLAGS='--cfg sha2_backend="soft" --cfg sha1_backend="soft"' cargo bench ...`

use std::hint::black_box;

use arrow_array::{Array, StringArray};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use sluice_kernels::multibuffer::{self as mb, Level};

const ROWS: usize = 8192;

/// `ROWS` rows of pseudo-random ASCII whose lengths `len(i)` gives.
fn column(len: impl Fn(usize) -> usize) -> StringArray {
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    (0..ROWS)
        .map(|i| {
            let n = len(i);
            Some((0..n).map(|_| char::from(b'a' + (next() % 26) as u8)).collect::<String>())
        })
        .collect()
}

fn uniform_0_300() -> StringArray {
    let mut x = 12345u64;
    let lens: Vec<usize> = (0..ROWS)
        .map(|_| {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((x >> 33) % 301) as usize
        })
        .collect();
    column(|i| lens[i])
}

/// Lowercase hex of `d` into `out` (2 * d.len() bytes).
#[inline(always)]
fn hex_into(out: &mut [u8], d: &[u8]) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    for (o, b) in out.chunks_exact_mut(2).zip(d) {
        o[0] = HEX[(b >> 4) as usize];
        o[1] = HEX[(b & 15) as usize];
    }
}

macro_rules! bench_algo {
    ($c:expr, $group:expr, $col:expr, $n:expr, $with_level:path, $single:expr) => {{
        let col: &StringArray = $col;
        let mut g = $c.benchmark_group($group);
        g.throughput(Throughput::Elements(ROWS as u64));
        let single: fn(&[u8]) -> [u8; $n] = $single;
        g.bench_function("single_stream_digest_only", |b| {
            b.iter(|| {
                let mut acc = 0u8;
                for i in 0..col.len() {
                    acc ^= single(col.value(i).as_bytes())[0];
                }
                black_box(acc)
            })
        });
        let mut hex = vec![0u8; ROWS * 2 * $n];
        for level in Level::ALL.into_iter().filter(|l| l.is_available()) {
            g.bench_function(BenchmarkId::new("hex", format!("{level:?}")), |b| {
                b.iter(|| {
                    $with_level(
                        level,
                        col.len(),
                        |i| Some(col.value(i).as_bytes()),
                        |i, d| hex_into(&mut hex[i * 2 * $n..(i + 1) * 2 * $n], d),
                    );
                    black_box(&hex);
                })
            });
        }
        g.finish();
    }};
}

fn md5_single(b: &[u8]) -> [u8; 16] {
    use md5::Digest as _;
    md5::Md5::digest(b).into()
}
fn sha1_single(b: &[u8]) -> [u8; 20] {
    use sha1::Digest as _;
    sha1::Sha1::digest(b).into()
}
fn sha256_single(b: &[u8]) -> [u8; 32] {
    use sha2::Digest as _;
    sha2::Sha256::digest(b).into()
}
fn sha512_single(b: &[u8]) -> [u8; 64] {
    use sha2::Digest as _;
    sha2::Sha512::digest(b).into()
}

fn benches(c: &mut Criterion) {
    let c16 = column(|_| 16);
    let c64 = column(|_| 64);
    let mixed = uniform_0_300();
    bench_algo!(c, "md5/16B", &c16, 16, mb::md5_many_with_level, md5_single);
    bench_algo!(c, "md5/64B", &c64, 16, mb::md5_many_with_level, md5_single);
    bench_algo!(c, "md5/mixed_0_300B", &mixed, 16, mb::md5_many_with_level, md5_single);
    bench_algo!(c, "sha512/64B", &c64, 64, mb::sha512_many_with_level, sha512_single);
    bench_algo!(c, "sha256/64B", &c64, 32, mb::sha256_many_with_level, sha256_single);
    bench_algo!(c, "sha1/64B", &c64, 20, mb::sha1_many_with_level, sha1_single);
    bench_algo!(c, "sha256/mixed_0_300B", &mixed, 32, mb::sha256_many_with_level, sha256_single);
}

/// Where long rows stop paying off in the lanes: uniform lengths, fewer
/// rows so every case hashes the same 8 MiB or so.
fn long_rows(c: &mut Criterion) {
    for len in [1024usize, 4096, 16384] {
        let rows = (8 << 20) / len;
        let col: StringArray = column(|_| len).slice(0, rows);
        let mut g = c.benchmark_group(format!("md5_long/{len}B"));
        g.throughput(Throughput::Bytes((rows * len) as u64));
        g.bench_function("single_stream", |b| {
            b.iter(|| {
                let mut acc = 0u8;
                for i in 0..col.len() {
                    acc ^= md5_single(col.value(i).as_bytes())[0];
                }
                black_box(acc)
            })
        });
        g.bench_function("Avx512", |b| {
            b.iter(|| {
                let mut acc = 0u8;
                mb::md5_many_with_level(Level::Avx512, col.len(), |i| Some(col.value(i).as_bytes()), |_, d| acc ^= d[0]);
                black_box(acc)
            })
        });
        g.finish();
    }
}

criterion_group!(multibuffer, benches, long_rows);
criterion_main!(multibuffer);
