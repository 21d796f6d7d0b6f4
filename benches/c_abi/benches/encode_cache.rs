//! The encode cache against plain encoding on the columns of the `encode`
//! bench's `encode_cache` group (`benches/benches/encode.rs`), timed like
//! the C ABI bench (thread CPU time, interleaved rounds, median): runs of 8
//! equal values of ASCII or mixed-script text at 16–2,048 units, and
//! distinct values. A fresh `CachedEncoder` per batch, as there.
//!
//! ```text
//! cargo bench --manifest-path benches/c_abi/Cargo.toml --bench encode_cache
//! ```

#[path = "c_abi/harness.rs"]
mod harness;

use arrow_array::Array;
use harness::{measure, Variant};
use sluice_kernels::encode::{utf16_to_utf8, utf16_to_utf8_cached, CachedEncoder};

const ROWS: usize = 8192;

struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

fn ascii(rng: &mut Rng) -> u16 {
    0x20 + rng.below(0x5F) as u16
}

fn mixed(rng: &mut Rng) -> u16 {
    match rng.below(3) {
        0 => 0x0410 + rng.below(0x40) as u16,
        1 => 0x03B1 + rng.below(0x18) as u16,
        _ => 0x4E00 + rng.below(0x5000) as u16,
    }
}

/// `ROWS` values of `len` units in runs of `run` equal values.
fn column(len: usize, run: usize, unit: fn(&mut Rng) -> u16) -> (Vec<u16>, Vec<i64>) {
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let (mut units, mut offsets, mut value) = (Vec::with_capacity(ROWS * len), vec![0i64], Vec::new());
    for r in 0..ROWS {
        if r % run == 0 {
            value = (0..len).map(|_| unit(&mut rng)).collect();
        }
        units.extend_from_slice(&value);
        offsets.push(units.len() as i64);
    }
    (units, offsets)
}

fn main() {
    let cases: [(&str, usize, usize, fn(&mut Rng) -> u16); 8] = [
        ("mixed_runs_of_8", 64, 8, mixed),
        ("ascii_runs_of_8", 64, 8, ascii),
        ("ascii_runs_of_8_16u", 16, 8, ascii),
        ("mixed_distinct", 64, 1, mixed),
        ("ascii_distinct", 64, 1, ascii),
        ("mixed_runs_of_8_512u", 512, 8, mixed),
        ("mixed_runs_of_8_2048u", 2048, 8, mixed),
        ("ascii_runs_of_8_512u", 512, 8, ascii),
    ];
    println!("| column | plain ns/row | cached ns/row | cached speed / plain |");
    println!("| --- | ---: | ---: | ---: |");
    for (name, len, run, unit) in cases {
        let (units, offsets) = column(len, run, unit);
        let mut variants = vec![
            Variant::new("plain", || utf16_to_utf8(&units, &offsets, None).expect("valid").len()),
            Variant::new("cached", || {
                let mut cache = CachedEncoder::new();
                utf16_to_utf8_cached(&units, &offsets, None, &mut cache).expect("valid").len()
            }),
        ];
        let ns = measure(&mut variants, ROWS);
        println!("| {name} | {:.2} | {:.2} | {:.2} |", ns[0], ns[1], ns[0] / ns[1]);
    }
}
