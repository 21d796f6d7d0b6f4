//! `sluice_kernels::multibuffer`: many-lane MD5 / SHA-1 / SHA-2 at every
//! level vs the single-stream RustCrypto digest of each row.
//!
//! Row lengths are biased to the padding boundaries (55/56 mod 64, 111/112
//! mod 128) and include long rows, and NULL rows are mixed in, so lanes
//! retire and refill at every offset. Checked: each non-NULL row is emitted
//! exactly once with the reference digest, NULL rows never.

use arbitrary::Arbitrary;
use md5::Digest as _;
use sluice_kernels::multibuffer;
use sluice_kernels::Level;

/// Tails around the padding boundaries of 64-byte (MD5, SHA-1, SHA-256)
/// and 128-byte (SHA-512) blocks.
pub const TAILS: [usize; 10] = [0, 1, 55, 56, 57, 63, 111, 112, 119, 127];

/// A row's length, biased to what the lane scheduler branches on.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum Len {
    /// `64 * blocks + tail`, tail one of [`TAILS`].
    Boundary {
        /// Whole blocks (0..=255).
        blocks: u8,
        /// Index into the tails.
        tail: u8,
    },
    /// Short, any length below 256.
    Short(u8),
    /// A long row, 8 KiB - 64 + (d % 128) bytes.
    Long(u8),
}

impl Len {
    fn bytes(self) -> usize {
        match self {
            Len::Boundary { blocks, tail } => 64 * blocks as usize + TAILS[tail as usize % TAILS.len()],
            Len::Short(n) => n as usize,
            Len::Long(d) => 8192 - 64 + (d as usize % 128),
        }
    }
}

/// One batch.
#[derive(Arbitrary, Debug, Clone)]
pub struct Input {
    /// Rows: `None` is NULL; the byte seeds the row's contents.
    pub rows: Vec<Option<(Len, u8)>>,
    /// Algorithm: MD5, SHA-1, SHA-224, SHA-256, SHA-384, SHA-512 (mod 6).
    pub alg: u8,
    /// Level (modulo the available ones).
    pub level: u8,
}

/// Runs `$many` at `level` over `data` and compares with `$reference`.
macro_rules! run {
    ($many:path, $reference:ty, $n:expr, $level:expr, $data:expr) => {{
        let data: &[Option<Vec<u8>>] = $data;
        let n = data.len();
        let mut got: Vec<Option<[u8; $n]>> = vec![None; n];
        let mut emitted = vec![0u32; n];
        $many(
            $level,
            n,
            |i| data[i].as_deref(),
            |i, d: &[u8; $n]| {
                emitted[i] += 1;
                got[i] = Some(*d);
            },
        );
        for i in 0..n {
            let times = u32::from(data[i].is_some());
            assert_eq!(emitted[i], times, "{:?}: row {i} emitted {} times", $level, emitted[i]);
            let want: Option<[u8; $n]> = data[i].as_deref().map(|b| <$reference>::digest(b).into());
            assert_eq!(
                got[i],
                want,
                "{:?} {}: row {i} ({} bytes)",
                $level,
                stringify!($many),
                data[i].as_ref().map_or(0, Vec::len)
            );
        }
    }};
}

/// Runs the check on one input; panics on a mismatch.
pub fn check(input: &Input) {
    let data: Vec<Option<Vec<u8>>> = input
        .rows
        .iter()
        .map(|r| r.map(|(len, seed)| (0..len.bytes()).map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed)).collect()))
        .collect();
    let levels: Vec<Level> = Level::ALL.into_iter().filter(|l| l.is_available()).collect();
    let level = levels[input.level as usize % levels.len()];
    match input.alg % 6 {
        0 => run!(multibuffer::md5_many_with_level, md5::Md5, 16, level, &data),
        1 => run!(multibuffer::sha1_many_with_level, sha1::Sha1, 20, level, &data),
        2 => run!(multibuffer::sha224_many_with_level, sha2::Sha224, 28, level, &data),
        3 => run!(multibuffer::sha256_many_with_level, sha2::Sha256, 32, level, &data),
        4 => run!(multibuffer::sha384_many_with_level, sha2::Sha384, 48, level, &data),
        _ => run!(multibuffer::sha512_many_with_level, sha2::Sha512, 64, level, &data),
    }
}
