//! `sluice_kernels::multibuffer`: many-lane digests at every level vs the
//! single-stream RustCrypto digest of each row.
//!
//! Row lengths are biased to the padding boundaries (55/56/63/64 bytes mod
//! 64) and to the long-row cut-over, and NULL rows are mixed in, so lanes
//! retire and refill at every offset. Checked: each non-NULL row is emitted
//! exactly once with the reference digest, NULL rows never.

use arbitrary::Arbitrary;
use md5::Digest as _;
use sluice_kernels::multibuffer::{self, Level};

/// A row's length, biased to what the lane scheduler branches on.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum Len {
    /// `64 * blocks + tail` with tail one of 0, 1, 55, 56, 57, 63.
    Boundary {
        /// Whole blocks (0..=255).
        blocks: u8,
        /// Index into the tails.
        tail: u8,
    },
    /// Short, any length below 256.
    Short(u8),
    /// Around the 8 KiB single-stream cut-over: 8192 - 64 + (d % 128).
    Long(u8),
}

impl Len {
    fn bytes(self) -> usize {
        match self {
            Len::Boundary { blocks, tail } => {
                64 * blocks as usize + [0, 1, 55, 56, 57, 63][tail as usize % 6]
            }
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
}

/// Runs the check on one input; panics on a mismatch.
pub fn check(input: &Input) {
    let data: Vec<Option<Vec<u8>>> = input
        .rows
        .iter()
        .map(|r| {
            r.map(|(len, seed)| {
                (0..len.bytes()).map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed)).collect()
            })
        })
        .collect();
    let n = data.len();
    let want: Vec<Option<[u8; 16]>> =
        data.iter().map(|r| r.as_deref().map(|b| md5::Md5::digest(b).into())).collect();
    for level in Level::ALL.into_iter().filter(|l| l.is_available()) {
        let mut got: Vec<Option<[u8; 16]>> = vec![None; n];
        let mut emitted = vec![0u32; n];
        multibuffer::md5_many_with_level(
            level,
            n,
            |i| data[i].as_deref(),
            |i, d| {
                emitted[i] += 1;
                got[i] = Some(*d);
            },
        );
        for i in 0..n {
            let times = u32::from(data[i].is_some());
            assert_eq!(emitted[i], times, "{level:?}: row {i} emitted {} times", emitted[i]);
            assert_eq!(got[i], want[i], "{level:?}: md5 of row {i}");
        }
    }
}
