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
use criterion::measurement::WallTime;
use criterion::{criterion_group, criterion_main, BenchmarkGroup, BenchmarkId, Criterion, Throughput};
use sluice_kernels::digest::{digest_hex, digest_raw, DigestAlgorithm};
use sluice_kernels::hex::encode_lower;
use sluice_kernels::multibuffer::{self as mb, force_level};
use sluice_kernels::Level;

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

macro_rules! bench_algo {
    ($c:expr, $group:expr, $col:expr, $alg:expr, $n:expr, $with_level:path) => {{
        let col: &StringArray = $col;
        let alg: DigestAlgorithm = $alg;
        let mut g = $c.benchmark_group($group);
        g.throughput(Throughput::Elements(ROWS as u64));
        // The floor the bars are measured against: the project's one-shot
        // single-stream digest (RustCrypto compression, SHA-NI where
        // present), no hex, no buffers.
        g.bench_function("single_stream_digest_only", |b| {
            let mut out = [0u8; 64];
            b.iter(|| {
                let mut acc = 0u8;
                for i in 0..col.len() {
                    digest_raw(alg, col.value(i).as_bytes(), &mut out);
                    acc ^= out[0];
                }
                black_box(acc)
            })
        });
        let mut hex = vec![0u8; ROWS * 2 * $n];
        for level in Level::ALL.into_iter().filter(|l| l.is_available()) {
            // The lanes with each digest's hex written at its row's place.
            g.bench_function(BenchmarkId::new("many_hex", format!("{level:?}")), |b| {
                b.iter(|| {
                    $with_level(
                        level,
                        col.len(),
                        |i| Some(col.value(i).as_bytes()),
                        |i, d| {
                            let _ = encode_lower(d, &mut hex[i * 2 * $n..(i + 1) * 2 * $n]);
                        },
                    );
                    black_box(&hex);
                })
            });
        }
        // The public kernel (allocating its output) at each level.
        for level in Level::ALL.into_iter().filter(|l| l.is_available()) {
            g.bench_function(BenchmarkId::new("digest_hex_kernel", format!("{level:?}")), |b| {
                force_level(Some(level));
                b.iter(|| black_box(digest_hex(col, alg).unwrap()));
                force_level(None);
            });
        }
        g.finish();
    }};
}

fn md5_single(b: &[u8]) -> [u8; 16] {
    let mut out = [0u8; 64];
    digest_raw(DigestAlgorithm::Md5, b, &mut out);
    let mut d = [0u8; 16];
    d.copy_from_slice(&out[..16]);
    d
}
fn benches(c: &mut Criterion) {
    let c16 = column(|_| 16);
    let c64 = column(|_| 64);
    let mixed = uniform_0_300();
    use DigestAlgorithm as D;
    bench_algo!(c, "md5/16B", &c16, D::Md5, 16, mb::md5_many_with_level);
    bench_algo!(c, "md5/64B", &c64, D::Md5, 16, mb::md5_many_with_level);
    bench_algo!(c, "md5/mixed_0_300B", &mixed, D::Md5, 16, mb::md5_many_with_level);
    bench_algo!(c, "sha512/64B", &c64, D::Sha512, 64, mb::sha512_many_with_level);
    bench_algo!(c, "sha256/64B", &c64, D::Sha256, 32, mb::sha256_many_with_level);
    bench_algo!(c, "sha1/64B", &c64, D::Sha1, 20, mb::sha1_many_with_level);
    bench_algo!(c, "sha256/mixed_0_300B", &mixed, D::Sha256, 32, mb::sha256_many_with_level);
}

/// MD5 of every row of `col`, single-stream and through the AVX-512 lanes,
/// as two benchmarks of `g`.
fn md5_single_vs_lanes(g: &mut BenchmarkGroup<'_, WallTime>, col: &StringArray) {
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
}

/// Where long rows stop paying off in the lanes: uniform lengths, fewer
/// rows so every case hashes the same 8 MiB or so.
fn long_rows(c: &mut Criterion) {
    for len in [1024usize, 4096, 16384] {
        let rows = (8 << 20) / len;
        let col: StringArray = column(|_| len).slice(0, rows);
        let mut g = c.benchmark_group(format!("md5_long/{len}B"));
        g.throughput(Throughput::Bytes((rows * len) as u64));
        md5_single_vs_lanes(&mut g, &col);
        g.finish();
    }
}

/// A batch whose last row is long (8,191 rows of 64 bytes, then 256 KiB):
/// the drain finishes that row single-stream instead of hashing it in one
/// busy lane next to 15 idle ones.
fn long_tail(c: &mut Criterion) {
    let col: StringArray = column(|i| if i == ROWS - 1 { 256 << 10 } else { 64 });
    let mut g = c.benchmark_group("md5_long_tail");
    g.throughput(Throughput::Elements(ROWS as u64));
    md5_single_vs_lanes(&mut g, &col);
    g.finish();
}

criterion_group!(multibuffer, benches, long_rows, long_tail);
criterion_main!(multibuffer);
