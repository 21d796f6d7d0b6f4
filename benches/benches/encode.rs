//! UTF-16 → UTF-8 encoding (`sluice_kernels::encode`), side by side with the
//! obvious Rust alternatives, over batches of 8192 rows.
//!
//! Throughput is UTF-16 *input* bytes (2 per code unit). Groups:
//! - `encode_ascii/<units per row>`: the dispatched batch kernel, each
//!   forced level, exact sizing, `String::from_utf16_lossy` per row (the
//!   common but non-Flink-exact way) and the naive `char::decode_utf16` +
//!   `encode_utf8` (with `?` for unpaired surrogates) into one buffer;
//! - `encode_mixed/64`: Cyrillic/Greek (2-byte) mixed with CJK (3-byte);
//! - `encode_cache/*`: `utf16_to_utf8_cached` vs plain on values repeating in
//!   runs of 8 (64 units; ASCII also at 16 and 512, mixed scripts also at
//!   512 and 2,048, beyond the cache's 1,024-unit limit) and on all-distinct
//!   values, with `equality_floor`: the bare equal-to-previous check a hit
//!   cannot avoid.
//!
//! Run: `cargo bench -p sluice-benches --bench encode -- --warm-up-time 1 --measurement-time 3`
//!
//! Time is the benchmark thread's CPU time (user + system, so page faults
//! count) on Linux, because the shared build machine runs many jobs on two
//! cores and wall time mostly measures the scheduler. Set
//! `SLUICE_BENCH_WALL=1` for criterion's usual wall-clock time.

use sluice_benches::data::Rng;
use std::hint::black_box;

use arrow_array::StringArray;
use arrow_buffer::{Buffer, OffsetBuffer, ScalarBuffer};
use criterion::measurement::{Measurement, ValueFormatter, WallTime};
use criterion::{criterion_group, BenchmarkGroup, BenchmarkId, Criterion, Throughput};
use sluice_kernels::encode::forced::{self, Sizing};
use sluice_kernels::encode::{utf16_to_utf8, utf16_to_utf8_cached, CachedEncoder};
use sluice_kernels::Level;

const ROWS: usize = 8192;

struct Column {
    units: Vec<u16>,
    offsets: Vec<i64>,
}

/// `ROWS` values of `len` units each, produced by `gen` (row index, rng).
fn column(len: usize, mut unit: impl FnMut(usize, &mut Rng) -> u16) -> Column {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut units = Vec::with_capacity(ROWS * len);
    let mut offsets = Vec::with_capacity(ROWS + 1);
    offsets.push(0);
    for r in 0..ROWS {
        for _ in 0..len {
            units.push(unit(r, &mut rng));
        }
        offsets.push(units.len() as i64);
    }
    Column { units, offsets }
}

fn ascii(_: usize, rng: &mut Rng) -> u16 {
    0x20 + rng.below(0x5F) as u16
}

fn mixed(_: usize, rng: &mut Rng) -> u16 {
    match rng.below(3) {
        0 => 0x0410 + rng.below(0x40) as u16,   // Cyrillic, 2 bytes
        1 => 0x03B1 + rng.below(0x18) as u16,   // Greek, 2 bytes
        _ => 0x4E00 + rng.below(0x5000) as u16, // CJK, 3 bytes
    }
}

fn rows(c: &Column) -> impl Iterator<Item = &[u16]> {
    c.offsets.windows(2).map(|w| &c.units[w[0] as usize..w[1] as usize])
}

/// The common Rust way: one `String` per row (U+FFFD for lone surrogates,
/// so not even Flink-exact), copied into an Arrow array.
fn from_utf16_lossy_per_row(c: &Column) -> StringArray {
    let mut values = Vec::new();
    let mut offsets = Vec::with_capacity(ROWS + 1);
    offsets.push(0i32);
    for row in rows(c) {
        let s = String::from_utf16_lossy(row);
        values.extend_from_slice(s.as_bytes());
        offsets.push(values.len() as i32);
    }
    StringArray::new(OffsetBuffer::new(ScalarBuffer::from(offsets)), Buffer::from_vec(values), None)
}

/// The naive Flink-exact encoder: `char::decode_utf16`, `?` for each
/// unpaired surrogate, `encode_utf8` into one pre-sized buffer.
fn naive_decode_encode(c: &Column) -> StringArray {
    let mut values = Vec::with_capacity(c.units.len() * 3);
    let mut offsets = Vec::with_capacity(ROWS + 1);
    offsets.push(0i32);
    for row in rows(c) {
        for r in char::decode_utf16(row.iter().copied()) {
            match r {
                Ok(ch) => values.extend_from_slice(ch.encode_utf8(&mut [0; 4]).as_bytes()),
                Err(_) => values.push(b'?'),
            }
        }
        offsets.push(values.len() as i32);
    }
    StringArray::new(OffsetBuffer::new(ScalarBuffer::from(offsets)), Buffer::from_vec(values), None)
}

fn input_bytes(c: &Column) -> Throughput {
    Throughput::Bytes((c.units.len() * 2) as u64)
}

fn bench_levels<M: Measurement>(g: &mut BenchmarkGroup<'_, M>, c: &Column, p: usize) {
    g.bench_with_input(BenchmarkId::new("sluice", p), c, |b, c| {
        b.iter(|| utf16_to_utf8(black_box(&c.units), &c.offsets, None).unwrap())
    });
    for (name, sizing) in [("sluice_exact_sizing", Sizing::Exact), ("sluice_upper_bound_sizing", Sizing::UpperBound)] {
        g.bench_with_input(BenchmarkId::new(name, p), c, |b, c| {
            b.iter(|| {
                forced::utf16_to_utf8(
                    Level::detected(),
                    sizing,
                    i32::MAX as usize,
                    black_box(&c.units),
                    &c.offsets,
                    None,
                )
                .unwrap()
            })
        });
    }
    for level in Level::ALL.into_iter().filter(|l| l.is_available()) {
        g.bench_with_input(BenchmarkId::new(format!("sluice_{level:?}").to_lowercase(), p), c, |b, c| {
            b.iter(|| {
                forced::utf16_to_utf8(
                    level,
                    Sizing::Optimistic,
                    i32::MAX as usize,
                    black_box(&c.units),
                    &c.offsets,
                    None,
                )
                .unwrap()
            })
        });
    }
    g.bench_with_input(BenchmarkId::new("from_utf16_lossy_per_row", p), c, |b, c| {
        b.iter(|| from_utf16_lossy_per_row(black_box(c)))
    });
    g.bench_with_input(BenchmarkId::new("naive_decode_utf16_encode_utf8", p), c, |b, c| {
        b.iter(|| naive_decode_encode(black_box(c)))
    });
}

fn encode_ascii<M: Measurement>(cr: &mut Criterion<M>) {
    let mut g = cr.benchmark_group("encode_ascii");
    for len in [16usize, 64, 256] {
        let c = column(len, ascii);
        g.throughput(input_bytes(&c));
        bench_levels(&mut g, &c, len);
    }
    g.finish();
}

fn encode_mixed<M: Measurement>(cr: &mut Criterion<M>) {
    let mut g = cr.benchmark_group("encode_mixed");
    let c = column(64, mixed);
    g.throughput(input_bytes(&c));
    bench_levels(&mut g, &c, 64);
    g.finish();
}

fn encode_cache<M: Measurement>(cr: &mut Criterion<M>) {
    let mut g = cr.benchmark_group("encode_cache");
    // Runs of 8 equal values: the value of row r is a function of r / 8.
    // Long values: 512 units (eligible) and 2,048 (over the 1,024-unit
    // limit, so never cached).
    let cases: [(&str, Column); 8] = [
        ("mixed_runs_of_8", run_column(64, 8, mixed)),
        ("ascii_runs_of_8", run_column(64, 8, ascii)),
        ("ascii_runs_of_8_16u", run_column(16, 8, ascii)),
        ("mixed_distinct", column(64, mixed)),
        ("ascii_distinct", column(64, ascii)),
        ("mixed_runs_of_8_512u", run_column(512, 8, mixed)),
        ("mixed_runs_of_8_2048u", run_column(2048, 8, mixed)),
        ("ascii_runs_of_8_512u", run_column(512, 8, ascii)),
    ];
    for (name, c) in &cases {
        g.throughput(input_bytes(c));
        g.bench_with_input(BenchmarkId::new("plain", name), c, |b, c| {
            b.iter(|| utf16_to_utf8(black_box(&c.units), &c.offsets, None).unwrap())
        });
        g.bench_with_input(BenchmarkId::new("cached", name), c, |b, c| {
            // A fresh writer per batch, as the worst case: its first rows
            // always miss (a long-lived writer would carry its state over).
            b.iter(|| {
                let mut cache = CachedEncoder::new();
                utf16_to_utf8_cached(black_box(&c.units), &c.offsets, None, &mut cache).unwrap()
            })
        });
        // The check no hit can skip: each value compared with the one
        // before it (here with `memcmp`), no output written. The share of
        // `plain` it takes bounds what any cache can save on that input.
        g.bench_with_input(BenchmarkId::new("equality_floor", name), c, |b, c| {
            b.iter(|| {
                let units = black_box(&c.units);
                let mut equal = 0usize;
                let mut prev: &[u16] = &[];
                for w in c.offsets.windows(2) {
                    let cur = &units[w[0] as usize..w[1] as usize];
                    equal += usize::from(cur == prev);
                    prev = cur;
                }
                equal
            })
        });
    }
    g.finish();
}

/// `ROWS` values of `len` units in runs of `run` equal values.
fn run_column(len: usize, run: usize, mut unit: impl FnMut(usize, &mut Rng) -> u16) -> Column {
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let mut units = Vec::with_capacity(ROWS * len);
    let mut offsets = vec![0i64];
    let mut value = Vec::new();
    for r in 0..ROWS {
        if r % run == 0 {
            value = (0..len).map(|_| unit(r, &mut rng)).collect();
        }
        units.extend_from_slice(&value);
        offsets.push(units.len() as i64);
    }
    Column { units, offsets }
}

/// Thread CPU time (`CLOCK_THREAD_CPUTIME_ID`), in nanoseconds.
struct CpuTime;

#[cfg(target_os = "linux")]
fn thread_cpu_ns() -> u64 {
    #[repr(C)]
    struct Timespec {
        tv_sec: i64,
        tv_nsec: i64,
    }
    extern "C" {
        fn clock_gettime(clock: i32, ts: *mut Timespec) -> i32;
    }
    const CLOCK_THREAD_CPUTIME_ID: i32 = 3;
    let mut ts = Timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid, writable timespec (64-bit Linux layout) and
    // the clock id is the Linux constant; libc is linked by std.
    unsafe { clock_gettime(CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

#[cfg(not(target_os = "linux"))]
fn thread_cpu_ns() -> u64 {
    use std::sync::OnceLock;
    static START: OnceLock<std::time::Instant> = OnceLock::new();
    START.get_or_init(std::time::Instant::now).elapsed().as_nanos() as u64
}

impl Measurement for CpuTime {
    type Intermediate = u64;
    type Value = u64;
    fn start(&self) -> u64 {
        thread_cpu_ns()
    }
    fn end(&self, start: u64) -> u64 {
        thread_cpu_ns() - start
    }
    fn add(&self, a: &u64, b: &u64) -> u64 {
        a + b
    }
    fn zero(&self) -> u64 {
        0
    }
    fn to_f64(&self, v: &u64) -> f64 {
        *v as f64
    }
    fn formatter(&self) -> &dyn ValueFormatter {
        &CpuFormatter
    }
}

/// Nanoseconds shown as µs/ms, throughput as decimal GB/s (the unit the
/// targets are stated in).
struct CpuFormatter;

impl ValueFormatter for CpuFormatter {
    fn scale_values(&self, typical: f64, values: &mut [f64]) -> &'static str {
        let (f, unit) = if typical < 1e3 {
            (1.0, "ns (cpu)")
        } else if typical < 1e6 {
            (1e-3, "µs (cpu)")
        } else {
            (1e-6, "ms (cpu)")
        };
        values.iter_mut().for_each(|v| *v *= f);
        unit
    }

    fn scale_throughputs(&self, _typical: f64, t: &Throughput, values: &mut [f64]) -> &'static str {
        let per = match *t {
            Throughput::Bytes(b) | Throughput::BytesDecimal(b) => b as f64,
            Throughput::Elements(e) => e as f64,
            Throughput::Bits(b) => b as f64 / 8.0,
            Throughput::ElementsAndBytes { bytes, .. } => bytes as f64,
        };
        values.iter_mut().for_each(|v| *v = per / *v);
        "GB/s"
    }

    fn scale_for_machines(&self, _values: &mut [f64]) -> &'static str {
        "ns"
    }
}

criterion_group! {
    name = cpu_benches;
    config = Criterion::default().with_measurement(CpuTime);
    targets = encode_ascii, encode_mixed, encode_cache
}

criterion_group! {
    name = wall_benches;
    config = Criterion::default().with_measurement(WallTime);
    targets = encode_ascii, encode_mixed, encode_cache
}

fn main() {
    if std::env::var_os("SLUICE_BENCH_WALL").is_some() {
        wall_benches();
    } else {
        cpu_benches();
    }
    Criterion::default().configure_from_args().final_summary();
}
