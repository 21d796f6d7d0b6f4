//! `sluice_kernels::encode::CachedEncoder` vs the uncached encoder.
//!
//! An arbitrary sequence of values drawn from a small pool (so repeats,
//! alternations and long distinct runs all occur) goes through one
//! `CachedEncoder` by every entry point (`encode_into`, forced levels, the
//! cached batch form with NULL rows). Every output must equal the uncached
//! encoding, and the counters must follow the documented policy, replayed by
//! a plain model below: values above `MAX_CACHED_UNITS` and values whose
//! UTF-8 is as long as their UTF-16 (ASCII) are ineligible, a
//! NULL row does not touch the cache, and `MAX_CONSECUTIVE_MISSES`
//! consecutive misses release it for good.

use arbitrary::Arbitrary;
use arrow_array::Array;
use arrow_buffer::NullBuffer;
use sluice_kernels::encode::{self, forced, CachedEncoder, EncodeCacheStats, MAX_CACHED_UNITS, MAX_CONSECUTIVE_MISSES};

use crate::encode_utf16::{push_piece, reference, Piece};

/// A pool value: its pieces repeated `repeat % 64 + 1` times (long enough
/// to cross `MAX_CACHED_UNITS`).
#[derive(Arbitrary, Debug, Clone)]
pub struct PoolValue {
    /// The pieces.
    pub pieces: Vec<Piece>,
    /// Repetitions.
    pub repeat: u8,
}

/// One step of the sequence.
#[derive(Arbitrary, Debug, Clone)]
pub enum Op {
    /// `encode_into` of pool value `i`.
    Value(u8),
    /// `forced::cached_encode_into` at level `l` of pool value `i`.
    Forced(u8, u8),
    /// `utf16_to_utf8_cached` of a batch of pool values (`false` = NULL).
    Batch(Vec<(u8, bool)>),
}

/// A pool and a sequence over it.
#[derive(Arbitrary, Debug, Clone)]
pub struct Input {
    /// Distinct-ish values.
    pub pool: Vec<PoolValue>,
    /// What to encode, in order.
    pub ops: Vec<Op>,
}

/// The documented policy, kept plainly.
#[derive(Default)]
struct Model {
    prev: Option<Vec<u16>>,
    misses_in_a_row: u32,
    stats: EncodeCacheStats,
}

impl Model {
    fn encode(&mut self, units: &[u16]) {
        let s = &mut self.stats;
        if s.bypassed {
            s.bypassed_rows += 1;
        } else if units.len() > MAX_CACHED_UNITS {
            s.ineligible += 1;
        } else if self.prev.as_deref() == Some(units) {
            s.hits += 1;
            self.misses_in_a_row = 0;
        } else if reference(units).len() == units.len() {
            // Narrowed (ASCII, '?' for unpaired surrogates): never cached.
            s.ineligible += 1;
        } else {
            s.misses += 1;
            self.misses_in_a_row += 1;
            if self.misses_in_a_row >= MAX_CONSECUTIVE_MISSES {
                s.bypassed = true;
                self.prev = None;
            } else {
                self.prev = Some(units.to_vec());
            }
        }
    }
}

/// Runs the check on one input; panics on a mismatch.
pub fn check(input: &Input) {
    let pool: Vec<Vec<u16>> = input
        .pool
        .iter()
        .map(|v| {
            let mut one = Vec::new();
            for p in &v.pieces {
                push_piece(p, &mut one);
            }
            one.repeat(v.repeat as usize % 64 + 1)
        })
        .collect();
    if pool.is_empty() {
        return;
    }
    let pick = |i: u8| &pool[i as usize % pool.len()];

    let mut enc = CachedEncoder::new();
    let mut model = Model::default();
    let mut out = Vec::new();
    let mut want = Vec::new();
    for (step, op) in input.ops.iter().enumerate() {
        match op {
            Op::Value(i) => {
                let v = pick(*i);
                enc.encode_into(v, &mut out);
                want.extend(reference(v));
                model.encode(v);
                assert_eq!(out, want, "step {step}: encode_into of {v:04x?}");
            }
            Op::Forced(i, l) => {
                let v = pick(*i);
                let level = crate::encode_utf16::level(*l);
                forced::cached_encode_into(level, &mut enc, v, &mut out).expect("available level");
                want.extend(reference(v));
                model.encode(v);
                assert_eq!(out, want, "step {step}: {level:?} of {v:04x?}");
            }
            Op::Batch(rows) => {
                let mut units = Vec::new();
                let mut offsets = vec![0i64];
                for (i, _) in rows {
                    units.extend_from_slice(pick(*i));
                    offsets.push(units.len() as i64);
                }
                let nulls: NullBuffer = rows.iter().map(|(_, v)| *v).collect();
                let a = encode::utf16_to_utf8_cached(&units, &offsets, Some(&nulls), &mut enc).expect("valid batch");
                assert_eq!(a.len(), rows.len());
                for (r, (i, valid)) in rows.iter().enumerate() {
                    assert_eq!(a.is_valid(r), *valid, "step {step}: validity of row {r}");
                    if *valid {
                        let v = pick(*i);
                        model.encode(v);
                        assert_eq!(a.value(r).as_bytes(), &reference(v)[..], "step {step}: row {r}");
                    }
                }
            }
        }
        assert_eq!(enc.stats(), model.stats, "step {step}: counters");
        if model.stats.bypassed {
            assert_eq!(enc.retained_bytes(), 0, "step {step}: a bypassed cache retains nothing");
        }
    }
}
