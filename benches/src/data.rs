//! Deterministic generators for the benches and the demo (no external RNG:
//! the data must be identical run to run so ratios are comparable).

use arrow_array::{ArrayRef, Int32Array, StringArray};
use arrow_buffer::NullBuffer;
use std::sync::Arc;

/// A seeded xorshift (13/7/17): small, fast, good enough for test data.
pub struct Rng(pub u64);

impl Rng {
    /// A generator from any seed (0 is mapped to a non-zero state).
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    /// The next value.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    /// A value in `0..n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// One column of `rows` lowercase ASCII strings of exactly `len` bytes.
/// `null_every`: 0 for no NULLs, `k` for a NULL in about one row in `k`.
pub fn ascii_column(rows: usize, len: usize, seed: u64, null_every: usize) -> StringArray {
    let mut rng = Rng(seed | 1);
    let mut b = arrow_array::builder::StringBuilder::with_capacity(rows, rows * len);
    let mut s = String::with_capacity(len);
    for i in 0..rows {
        if null_every != 0 && (i * 7 + seed as usize).is_multiple_of(null_every) {
            b.append_null();
            continue;
        }
        s.clear();
        for _ in 0..len {
            s.push((b'a' + rng.below(26) as u8) as char);
        }
        b.append_value(&s);
    }
    b.finish()
}

/// `rows` ASCII rows of `len` bytes in batches of `batch` rows, `null_pct`
/// percent of them NULL.
pub fn ascii_batches(seed: u64, rows: usize, batch: usize, len: usize, null_pct: u64) -> Vec<ArrayRef> {
    let mut rng = Rng::new(seed);
    let mut out = Vec::new();
    let mut done = 0;
    while done < rows {
        let n = batch.min(rows - done);
        let mut values = Vec::with_capacity(n * len);
        let mut offsets = Vec::with_capacity(n + 1);
        let mut valid = Vec::with_capacity(n);
        offsets.push(0i32);
        for _ in 0..n {
            let is_valid = rng.below(100) >= null_pct;
            if is_valid {
                for _ in 0..len {
                    values.push(b'a' + rng.below(26) as u8);
                }
            }
            valid.push(is_valid);
            offsets.push(values.len() as i32);
        }
        let nulls = (null_pct > 0).then(|| NullBuffer::from(valid));
        let array = StringArray::try_new(arrow_buffer::OffsetBuffer::new(offsets.into()), values.into(), nulls)
            .expect("generated data is valid");
        out.push(Arc::new(array) as ArrayRef);
        done += n;
    }
    out
}

/// UTF-16 code units + i64 offsets per batch: `len` units per row.
/// `kind` chooses ASCII, mixed 2-/3-byte text, or runs of repeated values.
#[derive(Clone, Copy)]
pub enum Text {
    /// Lowercase ASCII.
    Ascii,
    /// Half 2-byte (Cyrillic), half 3-byte (CJK) characters.
    Mixed,
    /// Values repeat in runs of 8 equal consecutive rows.
    Runs,
    /// Every row distinct.
    Distinct,
}

/// UTF-16 code units of a batch and its `n + 1` offsets (in units).
pub struct Utf16Batch {
    /// All rows' code units, back to back.
    pub units: Vec<u16>,
    /// Row boundaries in `units`.
    pub offsets: Vec<i64>,
}

/// `rows` rows of `len` UTF-16 units in batches of `batch` rows.
pub fn utf16_batches(seed: u64, rows: usize, batch: usize, len: usize, kind: Text) -> Vec<Utf16Batch> {
    let mut rng = Rng::new(seed);
    let mut out = Vec::new();
    let mut done = 0;
    let mut prev: Vec<u16> = Vec::new();
    while done < rows {
        let n = batch.min(rows - done);
        let mut units = Vec::with_capacity(n * len);
        let mut offsets = Vec::with_capacity(n + 1);
        offsets.push(0i64);
        for r in 0..n {
            let row = done + r;
            match kind {
                Text::Ascii | Text::Distinct => {
                    for _ in 0..len {
                        units.push((b'a' + rng.below(26) as u8) as u16);
                    }
                }
                Text::Mixed => {
                    for _ in 0..len {
                        // Half 2-byte (Cyrillic), half 3-byte (CJK) characters.
                        let u = if rng.below(2) == 0 {
                            0x0430 + rng.below(32) as u16
                        } else {
                            0x4E00 + rng.below(2000) as u16
                        };
                        units.push(u);
                    }
                }
                Text::Runs => {
                    if row % 8 == 0 || prev.is_empty() {
                        prev.clear();
                        for _ in 0..len {
                            prev.push((b'a' + rng.below(26) as u8) as u16);
                        }
                    }
                    units.extend_from_slice(&prev);
                }
            }
            offsets.push(units.len() as i64);
        }
        out.push(Utf16Batch { units, offsets });
        done += n;
    }
    out
}

/// SHA-2 widths, one per row, all valid (224/256/384/512).
pub fn width_batches(seed: u64, sizes: &[usize]) -> Vec<ArrayRef> {
    let mut rng = Rng::new(seed);
    sizes
        .iter()
        .map(|&n| {
            let w: Int32Array = (0..n).map(|_| [224, 256, 384, 512][rng.below(4) as usize]).collect();
            Arc::new(w) as ArrayRef
        })
        .collect()
}
