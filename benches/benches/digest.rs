//! MD5 / SHA hex digests: sluice vs a naive per-row reference (RustCrypto
//! digest + `hex::encode` + builder) vs a digest-only loop over the same rows
//! (the floor: what the hash alone costs), in one group per shape.
//!
//! Run: `cargo bench -p sluice-benches --bench digest -- --warm-up-time 1 --measurement-time 3`

use std::hint::black_box;

use arrow_array::builder::StringBuilder;
use arrow_array::{Array, StringArray};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use md5::Digest as _;
use sluice_kernels::digest::{digest_hex, digest_raw, DigestAlgorithm};

const TOTAL_ROWS: usize = 2 * 1024 * 1024;
const BATCH: usize = 8192;

fn column(rows: usize, len: usize, seed: u64) -> StringArray {
    sluice_benches::data::ascii_column(rows, len, seed, 0)
}

fn naive(col: &StringArray, alg: DigestAlgorithm) -> StringArray {
    let mut b = StringBuilder::new();
    for v in col.iter() {
        match v {
            None => b.append_null(),
            Some(s) => {
                let h = match alg {
                    DigestAlgorithm::Md5 => hex::encode(md5::Md5::digest(s.as_bytes())),
                    DigestAlgorithm::Sha1 => hex::encode(sha1::Sha1::digest(s.as_bytes())),
                    DigestAlgorithm::Sha224 => hex::encode(sha2::Sha224::digest(s.as_bytes())),
                    DigestAlgorithm::Sha256 => hex::encode(sha2::Sha256::digest(s.as_bytes())),
                    DigestAlgorithm::Sha384 => hex::encode(sha2::Sha384::digest(s.as_bytes())),
                    DigestAlgorithm::Sha512 => hex::encode(sha2::Sha512::digest(s.as_bytes())),
                };
                b.append_value(h)
            }
        }
    }
    b.finish()
}

fn bench(c: &mut Criterion) {
    let cases: &[(DigestAlgorithm, &[usize])] = &[
        (DigestAlgorithm::Md5, &[16, 64, 256]),
        (DigestAlgorithm::Sha256, &[16, 64, 256]),
        (DigestAlgorithm::Sha1, &[64]),
        (DigestAlgorithm::Sha512, &[64]),
    ];
    for &(alg, lens) in cases {
        for &len in lens {
            let whole = column(TOTAL_ROWS, len, len as u64);
            let batches: Vec<StringArray> = (0..TOTAL_ROWS / BATCH).map(|k| whole.slice(k * BATCH, BATCH)).collect();
            // Give each batch its own buffers (as a real pipeline would).
            let batches: Vec<StringArray> = batches.iter().map(|b| b.iter().collect()).collect();
            let mut g = c.benchmark_group(format!("{alg}_{len}B_2M_rows"));
            g.throughput(Throughput::Elements(TOTAL_ROWS as u64));
            g.sample_size(10);
            g.bench_function("sluice_batches_8192", |bn| {
                bn.iter(|| {
                    for b in &batches {
                        black_box(digest_hex(black_box(b), alg).unwrap());
                    }
                })
            });
            g.bench_function("sluice_one_batch", |bn| {
                bn.iter(|| black_box(digest_hex(black_box(&whole), alg).unwrap()))
            });
            g.bench_function("digest_only_same_rows", |bn| {
                bn.iter(|| {
                    let mut out = [0u8; 64];
                    for b in &batches {
                        for i in 0..b.len() {
                            black_box(digest_raw(alg, black_box(b.value(i).as_bytes()), &mut out));
                            black_box(&out);
                        }
                    }
                })
            });
            g.bench_function("naive_batches_8192", |bn| {
                bn.iter(|| {
                    for b in &batches {
                        black_box(naive(black_box(b), alg));
                    }
                })
            });
            g.finish();
        }
    }

    // Hex alone: SSE2 path vs the 512-byte pair table vs the `hex` crate,
    // on 32-byte digests.
    let digests: Vec<[u8; 32]> = (0..BATCH as u32)
        .map(|i| {
            let mut d = [0u8; 32];
            for (j, b) in d.iter_mut().enumerate() {
                *b = (i as u8).wrapping_mul(31).wrapping_add(j as u8 * 7);
            }
            d
        })
        .collect();
    let mut out = vec![0u8; 64 * BATCH];
    let mut g = c.benchmark_group("hex_32B_x8192");
    g.throughput(Throughput::Elements(BATCH as u64));
    g.bench_function("sluice_sse2", |bn| {
        bn.iter(|| {
            for (d, o) in digests.iter().zip(out.chunks_exact_mut(64)) {
                sluice_kernels::hex::encode_lower(black_box(d), o).unwrap();
            }
        })
    });
    g.bench_function("pair_table", |bn| {
        bn.iter(|| {
            for (d, o) in digests.iter().zip(out.chunks_exact_mut(64)) {
                sluice_kernels::hex::encode_lower_table(black_box(d), o).unwrap();
            }
        })
    });
    g.bench_function("hex_crate_encode_to_slice", |bn| {
        bn.iter(|| {
            for (d, o) in digests.iter().zip(out.chunks_exact_mut(64)) {
                hex::encode_to_slice(black_box(d), o).unwrap();
            }
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
