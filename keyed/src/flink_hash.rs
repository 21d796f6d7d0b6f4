//! Flink's key hashing and key-group assignment, bit for bit.
//!
//! * [`hash_binary_row`] is `BinaryRowData.hashCode()`: `MurmurHashUtils.hashBytesByWords`
//!   (`flink-table-common/.../data/binary/MurmurHashUtils.java`) over the whole
//!   row, header byte and padding included, seed 42, little-endian 4-byte words,
//!   finished with `fmix(h ^ len)`.
//! * [`murmur_hash`] is `MathUtils.murmurHash(int)` (`flink-core/.../util/MathUtils.java`).
//! * [`key_group_for_hash`], [`operator_index_for_key_group`] and
//!   [`key_group_range_for_operator`] follow `KeyGroupRangeAssignment`
//!   (`flink-runtime/.../state/KeyGroupRangeAssignment.java`).
//! * [`default_max_parallelism`] is `KeyGroupRangeAssignment.computeDefaultMaxParallelism`.

use crate::error::{invalid_arg, Result};

const C1: u32 = 0xcc9e_2d51;
const C2: u32 = 0x1b87_3593;
/// `MurmurHashUtils.DEFAULT_SEED`.
const DEFAULT_SEED: u32 = 42;

/// Flink's largest max parallelism (`Transformation.UPPER_BOUND_MAX_PARALLELISM`, `1 << 15`).
pub const UPPER_BOUND_MAX_PARALLELISM: i32 = 1 << 15;
/// Flink's smallest default max parallelism (`DEFAULT_LOWER_BOUND_MAX_PARALLELISM`, `1 << 7`).
pub const DEFAULT_LOWER_BOUND_MAX_PARALLELISM: i32 = 1 << 7;

#[inline(always)]
fn mix_k1(k: u32) -> u32 {
    k.wrapping_mul(C1).rotate_left(15).wrapping_mul(C2)
}

#[inline(always)]
fn mix_h1(h: u32, k: u32) -> u32 {
    (h ^ k).rotate_left(13).wrapping_mul(5).wrapping_add(0xe654_6b64)
}

#[inline(always)]
fn fmix(mut h: u32) -> u32 {
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^= h >> 16;
    h
}

/// `BinaryRowData.hashCode()` of a row whose size is a multiple of 8 (every
/// `BinaryRowData` is). Internal fast path: the caller guarantees the length.
#[inline]
pub(crate) fn hash_row_words(row: &[u8]) -> i32 {
    debug_assert!(row.len().is_multiple_of(8));
    let mut h = DEFAULT_SEED;
    let mut chunks = row.chunks_exact(8);
    for c in &mut chunks {
        let mut w = [0u8; 8];
        w.copy_from_slice(c);
        let v = u64::from_le_bytes(w);
        h = mix_h1(h, mix_k1(v as u32));
        h = mix_h1(h, mix_k1((v >> 32) as u32));
    }
    // A multiple of 8 leaves no remainder; a multiple of 4 leaves one word.
    let rem = chunks.remainder();
    if rem.len() >= 4 {
        let v = u32::from_le_bytes([rem[0], rem[1], rem[2], rem[3]]);
        h = mix_h1(h, mix_k1(v));
    }
    fmix(h ^ row.len() as u32) as i32
}

/// `hash_row_words` for a row size known at compile time (the loop unrolls).
#[inline(always)]
fn hash_row_const<const S: usize>(row: &[u8]) -> i32 {
    let mut h = DEFAULT_SEED;
    let row = &row[..S];
    for w in 0..S / 4 {
        let v = u32::from_le_bytes([row[4 * w], row[4 * w + 1], row[4 * w + 2], row[4 * w + 3]]);
        h = mix_h1(h, mix_k1(v));
    }
    fmix(h ^ S as u32) as i32
}

/// Hashes every row of a block of equal-size rows (`data.len()` a multiple of
/// `stride`), calling `f(row, hash)`; common sizes get an unrolled loop.
#[inline]
pub(crate) fn hash_fixed_rows(data: &[u8], stride: usize, mut f: impl FnMut(usize, i32)) {
    macro_rules! go {
        ($s:literal) => {
            for (i, r) in data.chunks_exact($s).enumerate() {
                f(i, hash_row_const::<$s>(r))
            }
        };
    }
    match stride {
        8 => go!(8),
        16 => go!(16),
        24 => go!(24),
        32 => go!(32),
        40 => go!(40),
        _ => {
            for (i, r) in data.chunks_exact(stride.max(1)).enumerate() {
                f(i, hash_row_words(r))
            }
        }
    }
}

/// Key group and channel of a key hash for one (max parallelism,
/// parallelism) pair, with the two Java `int` divisions of
/// `KeyGroupRangeAssignment` replaced by a mask (power-of-two max
/// parallelism; `murmurHash` is never negative, so `%` equals the mask) and
/// a key group → channel table.
#[derive(Clone, Debug)]
pub struct ChannelAssigner {
    max_parallelism: i32,
    mask: Option<i32>,
    channels: Box<[u16]>,
}

impl ChannelAssigner {
    /// Precomputes the key group → channel table (`max_parallelism` entries).
    ///
    /// # Errors
    /// Flink's bounds: `0 < parallelism <= max_parallelism <= 32768`.
    pub fn new(max_parallelism: i32, parallelism: i32) -> Result<Self> {
        check_parallelism(max_parallelism, parallelism)?;
        let channels = (0..max_parallelism)
            .map(|kg| operator_index_for_key_group(max_parallelism, parallelism, kg) as u16)
            .collect();
        let mask = (max_parallelism.count_ones() == 1).then_some(max_parallelism - 1);
        Ok(ChannelAssigner { max_parallelism, mask, channels })
    }

    /// `computeKeyGroupForKeyHash(hash, maxP)`.
    #[inline(always)]
    pub fn key_group(&self, key_hash: i32) -> i32 {
        let m = murmur_hash(key_hash);
        match self.mask {
            Some(mask) => m & mask,
            None => m % self.max_parallelism,
        }
    }

    /// The channel of a key group (`kg * p / maxP`), by table.
    #[inline(always)]
    pub fn channel(&self, key_group: i32) -> usize {
        self.channels.get(key_group as usize).copied().unwrap_or(0) as usize
    }
}

/// `MurmurHashUtils.hashBytesByWords` (seed 42): the hash Flink's
/// `BinaryRowData`, `BinaryArrayData` and `BinaryMapData` use as `hashCode()`.
///
/// # Errors
/// `bytes.len()` must be a multiple of 4, as Flink requires.
pub fn hash_bytes_by_words(bytes: &[u8]) -> Result<i32> {
    if !bytes.len().is_multiple_of(4) {
        return Err(invalid_arg(format!("hashBytesByWords needs a multiple of 4 bytes, got {}", bytes.len())));
    }
    Ok(hash_row_words(bytes))
}

/// `BinaryRowData.hashCode()` for the bytes of one row (header byte included).
///
/// # Errors
/// A `BinaryRowData` is always a multiple of 8 bytes; other lengths are refused.
pub fn hash_binary_row(row: &[u8]) -> Result<i32> {
    if !row.len().is_multiple_of(8) {
        return Err(invalid_arg(format!("a BinaryRowData is a multiple of 8 bytes, got {}", row.len())));
    }
    Ok(hash_row_words(row))
}

/// `MathUtils.murmurHash(int)`: one Murmur3 round of the 4-byte code with
/// seed 0 and length 4, mapped to a non-negative `i32`.
#[inline]
pub fn murmur_hash(code: i32) -> i32 {
    let mut h = mix_h1(0, mix_k1(code as u32));
    h ^= 4;
    let h = fmix(h) as i32;
    if h >= 0 {
        h
    } else if h != i32::MIN {
        -h
    } else {
        0
    }
}

/// `KeyGroupRangeAssignment.computeKeyGroupForKeyHash(hash, maxP)`.
#[inline]
pub fn key_group_for_hash(key_hash: i32, max_parallelism: i32) -> i32 {
    murmur_hash(key_hash) % max_parallelism
}

/// `KeyGroupRangeAssignment.computeOperatorIndexForKeyGroup(maxP, p, kg)`:
/// `kg * p / maxP` in Java `int` arithmetic (cannot overflow for legal
/// arguments: `kg < maxP <= 32768`, `p <= maxP`).
#[inline]
pub fn operator_index_for_key_group(max_parallelism: i32, parallelism: i32, key_group: i32) -> i32 {
    key_group * parallelism / max_parallelism
}

/// An inclusive range of key groups (`KeyGroupRange`), `start > end` is empty.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct KeyGroupRange {
    /// First key group in the range.
    pub start: i32,
    /// Last key group in the range (inclusive).
    pub end: i32,
}

impl KeyGroupRange {
    /// `[start, end]`, inclusive.
    pub const fn new(start: i32, end: i32) -> Self {
        KeyGroupRange { start, end }
    }

    /// Every key group of an operator with `max_parallelism` key groups.
    pub const fn all(max_parallelism: i32) -> Self {
        KeyGroupRange { start: 0, end: max_parallelism - 1 }
    }

    /// Whether `key_group` is inside.
    #[inline]
    pub fn contains(&self, key_group: i32) -> bool {
        key_group >= self.start && key_group <= self.end
    }
}

/// `KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex(maxP, p, i)`.
///
/// # Errors
/// Flink's argument checks: `0 < p <= maxP <= 32768`, `0 <= i < p`.
pub fn key_group_range_for_operator(
    max_parallelism: i32,
    parallelism: i32,
    operator_index: i32,
) -> Result<KeyGroupRange> {
    check_parallelism(max_parallelism, parallelism)?;
    if operator_index < 0 || operator_index >= parallelism {
        return Err(invalid_arg(format!("operator index {operator_index} outside 0..{parallelism}")));
    }
    // i64 to keep the products exact; results fit i32.
    let (m, p, i) = (max_parallelism as i64, parallelism as i64, operator_index as i64);
    let start = (i * m + p - 1) / p;
    let end = ((i + 1) * m - 1) / p;
    Ok(KeyGroupRange::new(start as i32, end as i32))
}

/// `KeyGroupRangeAssignment.computeDefaultMaxParallelism(p)`:
/// `min(max(roundUpToPowerOfTwo(p + p/2), 128), 32768)`.
pub fn default_max_parallelism(parallelism: i32) -> i32 {
    let p = parallelism.max(1) as i64;
    let x = (p + p / 2) as u64;
    let pow = x.next_power_of_two() as i64;
    pow.clamp(DEFAULT_LOWER_BOUND_MAX_PARALLELISM as i64, UPPER_BOUND_MAX_PARALLELISM as i64) as i32
}

pub(crate) fn check_parallelism(max_parallelism: i32, parallelism: i32) -> Result<()> {
    if !(1..=UPPER_BOUND_MAX_PARALLELISM).contains(&max_parallelism) {
        return Err(invalid_arg(format!(
            "max parallelism {max_parallelism} outside 1..={UPPER_BOUND_MAX_PARALLELISM}"
        )));
    }
    if parallelism < 1 || parallelism > max_parallelism {
        return Err(invalid_arg(format!(
            "parallelism {parallelism} outside 1..={max_parallelism} (the max parallelism)"
        )));
    }
    Ok(())
}

/// The key group of an encoded Flink key row.
#[inline]
pub(crate) fn key_group_of_row(row: &[u8], max_parallelism: i32) -> i32 {
    key_group_for_hash(hash_row_words(row), max_parallelism)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn murmur_of_row_hash_matches_flink_vectors() {
        // docs/flink-semantics.md §5.6 (Flink classes executed): hashCode → kg.
        for (h, kg128, kg32768) in
            [(907821237, 69, 24261), (1465514398, 94, 11102), (-940380553, 92, 25820), (-1670924195, 11, -1)]
        {
            assert_eq!(key_group_for_hash(h, 128), kg128, "{h}");
            if kg32768 >= 0 {
                assert_eq!(key_group_for_hash(h, 32768), kg32768, "{h}");
            }
        }
    }

    #[test]
    fn default_max_parallelism_table() {
        // KeyGroupRangeAssignment.computeDefaultMaxParallelism, docs/flink-semantics.md §5.4.
        for (p, m) in
            [(1, 128), (85, 128), (86, 256), (171, 256), (172, 512), (5462, 16384), (10924, 32768), (100000, 32768)]
        {
            assert_eq!(default_max_parallelism(p), m, "p={p}");
        }
    }

    #[test]
    fn ranges_cover_all_groups_once() {
        for (m, p) in [(128, 1), (128, 3), (128, 7), (32768, 5), (10, 10)] {
            let mut next = 0;
            for i in 0..p {
                let r = key_group_range_for_operator(m, p, i).unwrap();
                assert_eq!(r.start, next);
                for kg in r.start..=r.end {
                    assert_eq!(operator_index_for_key_group(m, p, kg), i);
                }
                next = r.end + 1;
            }
            assert_eq!(next, m);
        }
    }
}
