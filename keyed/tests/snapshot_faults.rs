//! Damaged snapshots against every keyed operator: a snapshot of another
//! format version, every truncation and every single-bit flip of a
//! per-key-group snapshot must fail the restore with
//! [`Error::CorruptSnapshot`] naming the operator and the key group, and
//! leave the restoring operator's state exactly as it was (its own snapshot
//! and size unchanged), while the undamaged snapshot restores. An intact
//! snapshot of another operator, or of the same operator configured
//! otherwise, is refused the same way.

mod common;

use arrow_array::RecordBatch;
use common::{kvt_schema as schema, KeyedOp as Op};
use sluice_keyed::{
    AggSpec, ChangelogNormalize, DedupOptions, DedupOrder, Deduplicate, Error, GroupAggOptions, GroupAggregate, Keep,
    KeyGroupRange, NormalizeOptions, RowKind,
};

/// Bytes before the first section's key group: magic, version, tag, max
/// parallelism, fingerprint, section count (keyed/src/snapshot.rs).
const HEADER: usize = 4 + 2 + 1 + 4 + 8 + 4;

fn batch(keys: &[String]) -> RecordBatch {
    let rows: Vec<(String, Option<i64>, i64)> =
        keys.iter().zip(0..).map(|(k, i)| (k.clone(), Some(i * 7), i)).collect();
    common::batch_of(schema(), &rows)
}

/// Pushes `keys` as one insert-only batch.
fn push(op: &mut dyn Op, keys: &[String]) {
    op.step(&batch(keys), &vec![RowKind::Insert; keys.len()]).unwrap();
}

const ALL: KeyGroupRange = KeyGroupRange::all(128);

type Make = fn() -> Box<dyn Op>;

fn operators() -> Vec<(&'static str, Make)> {
    fn group_agg() -> Box<dyn Op> {
        let aggs = vec![AggSpec::count_star(), AggSpec::sum(1), AggSpec::max(1), AggSpec::min(1)];
        Box::new(GroupAggregate::new(schema(), vec![0], aggs, GroupAggOptions::default()).unwrap())
    }
    fn dedup_last() -> Box<dyn Op> {
        let o = DedupOptions::new(Keep::Last, DedupOrder::RowTime { column: 2 });
        Box::new(Deduplicate::new(schema(), vec![0], o).unwrap())
    }
    fn dedup_first() -> Box<dyn Op> {
        let o = DedupOptions::new(Keep::First, DedupOrder::ProcTime);
        Box::new(Deduplicate::new(schema(), vec![0], o).unwrap())
    }
    fn normalize() -> Box<dyn Op> {
        Box::new(ChangelogNormalize::new(schema(), vec![0], NormalizeOptions::default()).unwrap())
    }
    vec![
        ("GroupAggregate", group_agg as Make),
        ("Deduplicate", dedup_last as Make),
        ("Deduplicate", dedup_first as Make),
        ("ChangelogNormalize", normalize as Make),
    ]
}

/// FNV-1a 64, written out here as the format's reference (not the crate's).
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| (h ^ b as u64).wrapping_mul(0x0100_0000_01b3))
}

fn keys(prefix: &str, n: usize) -> Vec<String> {
    (0..n).map(|i| format!("{prefix}{i}")).collect()
}

/// The largest per-key-group snapshot of an operator that saw 60 keys.
fn donor_blob(make: Make) -> (i32, Vec<u8>) {
    let mut donor = make();
    push(&mut *donor, &keys("key ", 60));
    donor.snap_kg(ALL).into_iter().max_by_key(|(_, b)| b.len()).unwrap()
}

/// An operator of `make` holding a few keys of its own: the restore target
/// a refused restore must leave as it was.
fn target(make: Make) -> Box<dyn Op> {
    let mut target = make();
    push(&mut *target, &keys("own ", 5));
    target
}

/// Runs `check(name, key group, blob, target)` for every operator: `blob`
/// the largest per-key-group snapshot of a donor of 60 keys (of key group
/// `kg`), `target` an operator of the same kind holding keys of its own.
fn for_each_operator(mut check: impl FnMut(&str, i32, &[u8], &mut dyn Op)) {
    for (name, make) in operators() {
        let (kg, blob) = donor_blob(make);
        let mut target = target(make);
        check(name, kg, &blob, &mut *target);
    }
}

/// Recomputes the trailing checksum of a damaged snapshot, so that the
/// parser gets past it.
fn resum(bad: &mut [u8]) {
    let end = bad.len() - 8;
    let sum = fnv1a(&bad[..end]);
    bad[end..].copy_from_slice(&sum.to_le_bytes());
}

/// Restores `bad` into `target` and checks the refusal and that nothing changed.
fn refused(target: &mut dyn Op, bad: &[u8], name: &str, what: &str) -> String {
    let before = (target.snap(ALL), target.bytes());
    let err = match target.rest(bad, ALL) {
        Err(e @ Error::CorruptSnapshot { .. }) => e.to_string(),
        other => panic!("{name}, {what}: expected CorruptSnapshot, got {other:?}"),
    };
    assert!(err.contains(&format!("{name} restore")), "{what}: {err}");
    assert!(err.contains("key group"), "{what}: {err}");
    assert_eq!((target.snap(ALL), target.bytes()), before, "{name}, {what}: state changed by a failed restore");
    err
}

#[test]
fn a_snapshot_of_another_format_version_is_refused_by_name() {
    for_each_operator(|name, kg, blob, target| {
        for fix_sum in [false, true] {
            let mut bad = blob.to_vec();
            bad[4..6].copy_from_slice(&2u16.to_le_bytes());
            if fix_sum {
                resum(&mut bad);
            }
            let err = refused(target, &bad, name, "version 2");
            assert!(err.contains("snapshot format version 2"), "{err}");
            assert!(err.contains("this build reads version 1"), "{err}");
            assert!(err.contains(&format!("key group {kg}")), "{err}");
        }
    });
}

#[test]
fn every_truncation_is_refused_and_restores_nothing() {
    for_each_operator(|name, kg, blob, target| {
        for cut in 0..blob.len() {
            let err = refused(target, &blob[..cut], name, &format!("cut at {cut}"));
            if cut >= HEADER + 4 {
                assert!(err.contains(&format!("key group {kg}")), "cut at {cut}: {err}");
            }
        }
    });
}

#[test]
fn every_bit_flip_is_refused_and_restores_nothing() {
    for_each_operator(|name, kg, blob, target| {
        for byte in 0..blob.len() {
            for bit in 0..8 {
                let mut bad = blob.to_vec();
                bad[byte] ^= 1 << bit;
                let err = refused(target, &bad, name, &format!("bit {bit} of byte {byte}"));
                if !(HEADER - 4..HEADER + 4).contains(&byte) {
                    assert!(err.contains(&format!("key group {kg}")), "bit {bit} of byte {byte}: {err}");
                }
            }
        }
        // The undamaged snapshot restores into the same operator.
        let size = target.bytes();
        target.rest(blob, ALL).unwrap();
        assert!(target.bytes() > size, "{name}: nothing restored");
    });
}

#[test]
fn a_damaged_section_of_a_multi_group_snapshot_names_its_key_group() {
    // Past the checksum (recomputed), a corrupt entry is reported by the key
    // group of the section it is in, and the sections before it are not kept.
    for (name, make) in operators() {
        let mut donor = make();
        push(&mut *donor, &keys("key ", 60));
        let mut bad = donor.snap(ALL);
        let first_kg = u32::from_le_bytes(bad[HEADER..HEADER + 4].try_into().unwrap());
        let body_len = u64::from_le_bytes(bad[HEADER + 8..HEADER + 16].try_into().unwrap()) as usize;
        // the second section's key group, written past the first's end, set out of order
        let second = HEADER + 16 + body_len;
        let second_kg = u32::from_le_bytes(bad[second..second + 4].try_into().unwrap());
        bad[second..second + 4].copy_from_slice(&first_kg.to_le_bytes());
        resum(&mut bad);
        assert_ne!(first_kg, second_kg);
        let mut target = target(make);
        let err = refused(&mut *target, &bad, name, "out-of-order section");
        assert!(err.contains(&format!("key group {first_kg} out of order")), "{err}");
    }
}

#[test]
fn a_snapshot_of_another_operator_or_configuration_is_refused() {
    // Every operator's intact snapshot restored into each other operator
    // (dedup keep-last by rowtime and keep-first by proctime are two), and a
    // GROUP BY's into one with other aggregates: the header's fingerprint of
    // the operator's configuration refuses it, naming the restoring operator.
    let mut others: Vec<(&str, Make)> = operators();
    fn fewer_aggs() -> Box<dyn Op> {
        let aggs = vec![AggSpec::count_star(), AggSpec::sum(1)];
        Box::new(GroupAggregate::new(schema(), vec![0], aggs, GroupAggOptions::default()).unwrap())
    }
    others.push(("GroupAggregate", fewer_aggs as Make));
    for (i, &(_, from)) in others.iter().enumerate() {
        let (_, blob) = donor_blob(from);
        for (j, &(name, make)) in others.iter().enumerate() {
            if i == j {
                continue;
            }
            let mut target = target(make);
            refused(&mut *target, &blob, name, &format!("operator {i}'s snapshot into operator {j}"));
        }
    }
}
