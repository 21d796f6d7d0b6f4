//! `sluice_keyed` key bytes and key groups vs independent references.
//!
//! Two crates write Flink's key `BinaryRowData`: `sluice_keyed`'s
//! `FlinkKeyEncoder` (and its batched `KeyBlock`) and `sluice_transpose`'s
//! full row writer (`KeyEncoder`, projection NULL layout). They must agree
//! byte for byte on arbitrary key columns. The key group and channel of each
//! row (`key_groups`) are checked against Flink's hashing written plainly
//! below: `MurmurHashUtil.hashBytesByWords` (seed 42) of the key bytes,
//! `MathUtils.murmurHash`, `% maxParallelism`
//! (`KeyGroupRangeAssignment.computeKeyGroupForKeyHash`) and
//! `keyGroup * parallelism / maxParallelism`
//! (`computeOperatorIndexForKeyGroup`). Parallelism outside Flink's bounds
//! must be an error.

use arbitrary::{Arbitrary, Unstructured};
use arrow_array::{ArrayRef, RecordBatch};
use sluice_keyed::{FlinkKeyEncoder, KeyBlock, KeyEncoder as _};
use sluice_transpose::{FlinkType, KeyEncoder, RowConverter, TypeKind};

use crate::transpose::{decimal_kind, gen, NUMERIC_KINDS};

/// One batch of key columns.
#[derive(Arbitrary, Debug, Clone)]
pub struct Input {
    /// Column types (index into the key-type table, parameter); at most 5.
    pub columns: Vec<(u8, u8, bool)>,
    /// Which columns are the key, in key order (indices modulo the columns).
    pub key: Vec<u8>,
    /// Rows (mod 12).
    pub rows: u8,
    /// Max parallelism (mostly valid: 1 + v % 32768; a few edge values).
    pub max_parallelism: u16,
    /// Parallelism (1 + v % max).
    pub parallelism: u16,
    /// Use the raw values as (possibly invalid) parallelism.
    pub raw_parallelism: Option<(i32, i32)>,
    /// Entropy for the values.
    pub values: Vec<u8>,
}

fn key_kind(k: u8, p: u8) -> TypeKind {
    match k % 14 {
        k @ 0..=6 => NUMERIC_KINDS[usize::from(k)].clone(),
        7 => TypeKind::Date,
        8 => TypeKind::Time(3),
        9 => TypeKind::Timestamp(3),
        10 => decimal_kind(p, 18),
        11 => TypeKind::VarBinary(i32::MAX as u32),
        _ => TypeKind::VarChar(i32::MAX as u32),
    }
}

fn mix_k1(k: i32) -> i32 {
    let k = k.wrapping_mul(0xcc9e2d51_u32 as i32);
    k.rotate_left(15).wrapping_mul(0x1b873593)
}

fn mix_h1(h: i32, k: i32) -> i32 {
    (h ^ k).rotate_left(13).wrapping_mul(5).wrapping_add(0xe6546b64_u32 as i32)
}

fn fmix(mut h: i32) -> i32 {
    h ^= ((h as u32) >> 16) as i32;
    h = h.wrapping_mul(0x85ebca6b_u32 as i32);
    h ^= ((h as u32) >> 13) as i32;
    h = h.wrapping_mul(0xc2b2ae35_u32 as i32);
    h ^ ((h as u32) >> 16) as i32
}

/// `MurmurHashUtil.hashBytesByWords(bytes, seed 42)` = `BinaryRowData.hashCode()`.
pub fn hash_by_words(bytes: &[u8]) -> i32 {
    assert_eq!(bytes.len() % 4, 0, "a BinaryRowData is a whole number of words");
    let mut h = 42i32;
    for w in bytes.chunks_exact(4) {
        h = mix_h1(h, mix_k1(i32::from_le_bytes([w[0], w[1], w[2], w[3]])));
    }
    fmix(h ^ bytes.len() as i32)
}

/// `MathUtils.murmurHash(code)`.
pub fn murmur(code: i32) -> i32 {
    let mut c = mix_k1(code);
    c = c.rotate_left(13).wrapping_mul(5).wrapping_add(0xe6546b64_u32 as i32);
    c = fmix(c ^ 4);
    if c >= 0 {
        c
    } else if c != i32::MIN {
        -c
    } else {
        0
    }
}

/// Runs the check on one input; panics on a mismatch.
pub fn check(input: &Input) {
    if input.columns.is_empty() || input.key.is_empty() {
        return;
    }
    let types: Vec<FlinkType> = input
        .columns
        .iter()
        .take(5)
        .map(|(k, p, not_null)| FlinkType::new(key_kind(*k, *p)).with_nullable(!not_null))
        .collect();
    let keys: Vec<usize> = input.key.iter().take(4).map(|k| *k as usize % types.len()).collect();
    let names: Vec<String> = (0..types.len()).map(|i| format!("c{i}")).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let conv = RowConverter::from_flink_types(&names, &types).expect("key types are supported");
    let n = input.rows as usize % 12;
    let mut u = Unstructured::new(&input.values);
    let cols: Vec<ArrayRef> = types.iter().map(|t| gen(t, n, None, false, &mut u)).collect();
    let batch = RecordBatch::try_new(conv.schema().clone(), cols).expect("generated batch");

    // Key bytes: keyed's encoder, its block, and transpose's row writer.
    let enc = FlinkKeyEncoder::try_new(batch.columns(), &keys).expect("supported key columns");
    let mut block = KeyBlock::new();
    block.fill_flink(&enc).expect("fill_flink");
    let mut generic = KeyBlock::new();
    generic.fill(&enc).expect("fill");
    assert_eq!(block.len(), n);
    let tk = KeyEncoder::new(&conv, &keys).expect("transpose key encoder");
    let bound = tk.bind(&batch).expect("bind");
    let mut ours = Vec::new();
    let mut theirs = Vec::new();
    let mut hashes = Vec::with_capacity(n);
    for i in 0..n {
        ours.clear();
        enc.encode_row(i, &mut ours).expect("encode_row");
        bound.encode(i, &mut theirs).expect("transpose encode");
        assert_eq!(ours, theirs, "row {i}: keyed vs transpose key bytes ({types:?}, key {keys:?})");
        assert_eq!(block.row(i), &ours[..], "row {i}: KeyBlock::fill_flink");
        assert_eq!(generic.row(i), &ours[..], "row {i}: KeyBlock::fill");
        let h = hash_by_words(&ours);
        assert_eq!(sluice_keyed::hash_binary_row(&ours).expect("hash"), h, "row {i}: hash");
        hashes.push(h);
    }

    // Key groups and channels.
    let (max, par) = match input.raw_parallelism {
        Some((m, p)) => (m, p),
        None => {
            let m = i32::from(input.max_parallelism) % 32768 + 1;
            (m, i32::from(input.parallelism) % m + 1)
        }
    };
    let mut kg = vec![-1; n];
    let mut ch = vec![-1; n];
    let got = sluice_keyed::key_groups(&batch, &keys, max, par, &mut kg, &mut ch);
    let valid = 0 < par && par <= max && max <= 32768;
    match got {
        Ok(()) => {
            assert!(valid, "key_groups accepted parallelism {par} / max {max}");
            for i in 0..n {
                let want_kg = murmur(hashes[i]) % max;
                assert_eq!(kg[i], want_kg, "row {i}: key group (max {max})");
                let want_ch = (i64::from(want_kg) * i64::from(par) / i64::from(max)) as i32;
                assert_eq!(ch[i], want_ch, "row {i}: channel ({par} of max {max})");
            }
        }
        Err(e) => assert!(!valid, "key_groups failed for parallelism {par} / max {max}: {e}"),
    }
}
