//! The operator layer against plain reference computations: outputs per
//! operator, Flink key groups of the per-key-group snapshot blobs, restore
//! round trips, and every refusal.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray, StructArray};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use sluice_keyed::{key_groups, KeyGroupRange, RowKind};

use super::KeyedOperator;
use crate::error::Error;

fn schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("k", DataType::Utf8, false),
        Field::new("v", DataType::Int64, true),
        Field::new("t", DataType::Int64, false),
    ]))
}

fn batch(rows: &[(&str, Option<i64>, i64)]) -> RecordBatch {
    let cols: Vec<ArrayRef> = vec![
        Arc::new(StringArray::from(rows.iter().map(|r| r.0).collect::<Vec<_>>())),
        Arc::new(Int64Array::from(rows.iter().map(|r| r.1).collect::<Vec<_>>())),
        Arc::new(Int64Array::from(rows.iter().map(|r| r.2).collect::<Vec<_>>())),
    ];
    RecordBatch::try_new(schema(), cols).unwrap()
}

/// Many rows over 50 keys, values `i` at time `1000 - i`.
fn many() -> Vec<(String, Option<i64>, i64)> {
    (0..400i64).map(|i| (format!("key-{}", i % 50), if i % 7 == 0 { None } else { Some(i) }, 1000 - i)).collect()
}

fn owned_batch(rows: &[(String, Option<i64>, i64)]) -> RecordBatch {
    let r: Vec<(&str, Option<i64>, i64)> = rows.iter().map(|(k, v, t)| (k.as_str(), *v, *t)).collect();
    batch(&r)
}

fn strs(b: &RecordBatch, c: usize) -> Vec<String> {
    b.column(c).as_string::<i32>().iter().map(|s| s.unwrap_or("NULL").to_string()).collect()
}

fn ints(b: &RecordBatch, c: usize) -> Vec<Option<i64>> {
    b.column(c).as_primitive::<Int64Type>().iter().collect()
}

#[test]
fn group_agg_matches_a_naive_group_by() {
    let rows = many();
    let mut op =
        KeyedOperator::new(schema(), "group_agg keys=k aggs=count(*),count(v),sum(v),min(v),max(v),avg(v)").unwrap();
    let (out, kinds) = op.push(&owned_batch(&rows), &vec![RowKind::Insert; rows.len()]).unwrap();
    // The last row emitted per key (+I or +U) carries the final aggregates.
    let mut last: BTreeMap<String, usize> = BTreeMap::new();
    for (i, k) in strs(&out, 0).into_iter().enumerate() {
        if matches!(kinds[i], RowKind::Insert | RowKind::UpdateAfter) {
            last.insert(k, i);
        }
    }
    assert_eq!(last.len(), 50);
    for (k, i) in last {
        let vals: Vec<i64> = rows.iter().filter(|r| r.0 == k).filter_map(|r| r.1).collect();
        let n = rows.iter().filter(|r| r.0 == k).count() as i64;
        let sum: i64 = vals.iter().sum();
        assert_eq!(ints(&out, 1)[i], Some(n), "count(*) {k}");
        assert_eq!(ints(&out, 2)[i], Some(vals.len() as i64), "count(v) {k}");
        assert_eq!(ints(&out, 3)[i], Some(sum), "sum {k}");
        assert_eq!(ints(&out, 4)[i], vals.iter().min().copied(), "min {k}");
        assert_eq!(ints(&out, 5)[i], vals.iter().max().copied(), "max {k}");
        assert_eq!(ints(&out, 6)[i], Some(sum / vals.len() as i64), "avg {k}");
    }
    assert_eq!(op.num_keys(), 50);
    // Output fields carry flink.type; COUNT is BIGINT NOT NULL.
    let md = |i: usize| op.output_schema().field(i).metadata().get("flink.type").cloned().unwrap();
    assert_eq!(md(0), "VARCHAR(2147483647) NOT NULL");
    assert_eq!(md(1), "BIGINT NOT NULL");
    assert_eq!(md(3), "BIGINT");
    assert!(op.output_field().metadata().get("flink.type").unwrap().starts_with("ROW<"));
}

/// `keys=` empty: Flink's global aggregate, one group keyed by the empty
/// row, whose key group is that of the 8-byte empty `BinaryRowData`.
#[test]
fn global_aggregate_is_one_group() {
    let rows = many();
    let mut op = KeyedOperator::new(schema(), "group_agg keys= aggs=count(*),sum(v)").unwrap();
    let (out, kinds) = op.push(&owned_batch(&rows), &vec![RowKind::Insert; rows.len()]).unwrap();
    assert_eq!(out.num_columns(), 2);
    let last = kinds.len() - 1;
    assert_eq!(kinds[last], RowKind::UpdateAfter);
    assert_eq!(ints(&out, 0)[last], Some(rows.len() as i64));
    assert_eq!(ints(&out, 1)[last], Some(rows.iter().filter_map(|r| r.1).sum::<i64>()));
    assert_eq!(op.num_keys(), 1);
    let blobs = op.snapshot_key_groups(KeyGroupRange::all(128)).unwrap();
    // Flink: BinaryRowData of arity 0 is 8 zero bytes; hashCode =
    // MurmurHashUtils.hashBytesByWords(8 zero bytes), then murmurHash % 128.
    let kg = sluice_keyed::key_group_for_hash(sluice_keyed::hash_binary_row(&[0u8; 8]).unwrap(), 128);
    let nonempty: Vec<usize> = (0..128).filter(|i| !blobs[*i].is_empty()).collect();
    assert_eq!(nonempty, vec![kg as usize]);
}

#[test]
fn group_agg_retracts_to_delete() {
    let mut op = KeyedOperator::new(schema(), "group_agg keys=0 aggs=sum(1) update_before=true").unwrap();
    let (out, kinds) =
        op.push(&batch(&[("a", Some(5), 0), ("a", Some(5), 0)]), &[RowKind::Insert, RowKind::Delete]).unwrap();
    assert_eq!(kinds, vec![RowKind::Insert, RowKind::Delete]);
    assert_eq!(ints(&out, 1), vec![Some(5), Some(5)]);
    assert_eq!(op.num_keys(), 0);
}

#[test]
fn dedup_keep_first_and_last_by_rowtime() {
    let rows = many();
    let kinds = vec![RowKind::Insert; rows.len()];
    // keep=first by proctime: one +I per key, the key's first arrival.
    let mut first = KeyedOperator::new(schema(), "dedup keys=0 keep=first").unwrap();
    let (out, k) = first.push(&owned_batch(&rows), &kinds).unwrap();
    assert!(k.iter().all(|k| *k == RowKind::Insert));
    let mut seen = BTreeSet::new();
    let want: Vec<i64> = rows.iter().filter(|r| seen.insert(r.0.clone())).map(|r| r.2).collect();
    assert_eq!(ints(&out, 2).into_iter().map(Option::unwrap).collect::<Vec<_>>(), want);
    // keep=last order=rowtime(t): times decrease, so every later row is older
    // and the first row per key stays: +I only, no updates.
    let mut last = KeyedOperator::new(schema(), "dedup keys=k keep=last order=rowtime(t)").unwrap();
    let (out, k) = last.push(&owned_batch(&rows), &kinds).unwrap();
    assert_eq!(out.num_rows(), 50);
    assert!(k.iter().all(|k| *k == RowKind::Insert));
    // keep=first order=rowtime(t): every later (older) row replaces.
    let mut fr = KeyedOperator::new(schema(), "dedup keys=k keep=first order=rowtime(2)").unwrap();
    let (out, k) = fr.push(&owned_batch(&rows), &kinds).unwrap();
    assert_eq!(out.num_rows(), 50 + 2 * (400 - 50));
    assert_eq!(k.iter().filter(|k| **k == RowKind::UpdateBefore).count(), 350);
}

#[test]
fn normalize_emits_full_changelog() {
    let b = batch(&[("a", Some(1), 0), ("a", Some(1), 0), ("a", Some(1), 0), ("a", Some(2), 0), ("a", None, 0)]);
    use RowKind::*;
    let input = [Insert, Insert, UpdateAfter, UpdateAfter, Delete];
    // Flink 2.x (default): equal rows are dropped whatever their RowKind.
    let mut op = KeyedOperator::new(schema(), "normalize keys=0").unwrap();
    let (out, kinds) = op.push(&b, &input).unwrap();
    assert_eq!(kinds, vec![Insert, UpdateBefore, UpdateAfter, Delete]);
    // -D carries the stored full row, not the key-only input.
    assert_eq!(ints(&out, 1), vec![Some(1), Some(1), Some(2), Some(2)]);
    // Flink 1.20: an equal +I is dropped; an equal +U is not "equal" to the
    // stored +I row (its RecordEqualiser compares RowKinds).
    let mut op = KeyedOperator::new(schema(), "normalize keys=0 equal_update_after=emit").unwrap();
    let (out, kinds) = op.push(&b, &input).unwrap();
    assert_eq!(kinds, vec![Insert, UpdateBefore, UpdateAfter, UpdateBefore, UpdateAfter, Delete]);
    assert_eq!(ints(&out, 1), vec![Some(1), Some(1), Some(1), Some(1), Some(2), Some(2)]);
}

/// The blobs of `snapshot_key_groups` sit exactly at the key groups
/// `sluice_keyed::key_groups` (Flink's assignment) gives the keys, and
/// restoring them continues like the original operator.
#[test]
fn per_key_group_blobs_follow_flink_key_groups_and_restore() {
    let rows = many();
    let b = owned_batch(&rows);
    let kinds = vec![RowKind::Insert; rows.len()];
    for spec in [
        "group_agg keys=0 aggs=count(*),sum(1),max(1),first_value(1),last_value(1) max_parallelism=256",
        "normalize keys=0 max_parallelism=256",
        "dedup keys=0 keep=first max_parallelism=256",
        "dedup keys=0 keep=last order=rowtime(2) max_parallelism=256",
    ] {
        let mut op = KeyedOperator::new(schema(), spec).unwrap();
        op.push(&b, &kinds).unwrap();
        let (mut kg, mut ch) = (vec![0; rows.len()], vec![0; rows.len()]);
        key_groups(&b, &[0], 256, 1, &mut kg, &mut ch).unwrap();
        let want: BTreeSet<i32> = kg.into_iter().collect();
        let range = op.key_group_range(0, 255).unwrap();
        let blobs = op.snapshot_key_groups(range).unwrap();
        assert_eq!(blobs.len(), 256);
        let got: BTreeSet<i32> = (0..256).filter(|i| !blobs[*i as usize].is_empty()).collect();
        assert_eq!(got, want, "{spec}");

        // Restore per key group into two operators splitting the range, and
        // into one from the single-blob snapshot: all continue alike.
        let full = op.snapshot(range).unwrap();
        let mut one = KeyedOperator::new(schema(), spec).unwrap();
        one.restore(&[&full], range).unwrap();
        let refs: Vec<&[u8]> = blobs.iter().map(Vec::as_slice).collect();
        let mut lo = KeyedOperator::new(schema(), spec).unwrap();
        lo.restore(&refs, op.key_group_range(0, 127).unwrap()).unwrap();
        let mut hi = KeyedOperator::new(schema(), spec).unwrap();
        hi.restore(&refs[128..], op.key_group_range(128, 255).unwrap()).unwrap();
        assert_eq!(one.num_keys(), op.num_keys());
        assert_eq!(lo.num_keys() + hi.num_keys(), op.num_keys());
        assert_eq!(one.snapshot(range).unwrap(), full);
        // A sub-range gives the same blobs as the full range's slice.
        let sub = op.snapshot_key_groups(op.key_group_range(10, 20).unwrap()).unwrap();
        assert_eq!(sub, blobs[10..=20].to_vec());

        let more = owned_batch(&rows[..60]);
        let k = vec![RowKind::Insert; 60];
        let (a, ak) = op.push(&more, &k).unwrap();
        let (c, ck) = one.push(&more, &k).unwrap();
        assert_eq!((a.num_rows(), &ak), (c.num_rows(), &ck), "{spec}");
        assert_eq!(a, c, "{spec}");
    }
}

#[test]
fn watermark_emits_an_empty_batch_of_the_output_schema() {
    let mut op = KeyedOperator::new(schema(), "group_agg keys=0 aggs=avg(1)").unwrap();
    let (b, k) = op.advance_watermark(100).unwrap();
    assert_eq!((b.num_rows(), k.len()), (0, 0));
    assert_eq!(b.schema(), *op.output_schema());
    op.advance_watermark(50).unwrap();
    assert_eq!(op.current_watermark(), Some(100));
    let avg = op.output_schema().field(1);
    assert_eq!(avg.data_type(), &DataType::Int64);
}

#[test]
fn refusals_carry_their_variants() {
    use sluice_keyed::Error as K;
    let e = KeyedOperator::new(schema(), "dedup keys=0 keep=last order=rowtime(0)").unwrap_err();
    assert!(matches!(e, Error::Keyed(K::UnsupportedType { .. })), "{e}");
    let e = KeyedOperator::new(schema(), "group_agg keys=0 aggs=sum(0)").unwrap_err();
    assert!(matches!(e, Error::Keyed(K::UnsupportedType { .. })), "{e}");

    let mut op = KeyedOperator::new(schema(), "normalize keys=0 budget=200").unwrap();
    let rows = many();
    let e = op.push(&owned_batch(&rows), &vec![RowKind::Insert; rows.len()]).unwrap_err();
    assert!(matches!(e, Error::Keyed(K::StateBudgetExceeded { .. })), "{e}");
    assert!(e.to_string().contains("budget is 200"), "{e}");

    let other = Arc::new(Schema::new(vec![Field::new("k", DataType::Int64, false)]));
    let b = RecordBatch::try_new(other, vec![Arc::new(Int64Array::from(vec![1]))]).unwrap();
    let e = op.push(&b, &[RowKind::Insert]).unwrap_err();
    assert!(matches!(e, Error::Keyed(K::InvalidArgument(_))), "{e}");
    assert!(e.to_string().contains("does not match the operator's input schema"), "{e}");

    let mut d = KeyedOperator::new(schema(), "dedup keys=0 keep=first").unwrap();
    let e = d.push_bytes(&batch(&[("a", None, 0)]), Some(&[3])).unwrap_err();
    assert!(e.to_string().contains("does not accept row kind 3"), "{e}");
    let e = d.push_bytes(&batch(&[("a", None, 0)]), Some(&[9])).unwrap_err();
    assert!(e.to_string().contains("9 is not a Flink RowKind"), "{e}");

    // Corrupt, truncated and foreign snapshots.
    let mut g = KeyedOperator::new(schema(), "group_agg keys=0 aggs=count(*)").unwrap();
    g.push(&batch(&[("a", None, 0), ("b", None, 0)]), &[RowKind::Insert; 2]).unwrap();
    let all = KeyGroupRange::all(128);
    let mut snap = g.snapshot(all).unwrap();
    let mut fresh = KeyedOperator::new(schema(), "group_agg keys=0 aggs=count(*)").unwrap();
    let e = fresh.restore(&[&snap[..snap.len() - 3]], all).unwrap_err();
    assert!(matches!(e, Error::Keyed(K::CorruptSnapshot { .. })), "{e}");
    let last = snap.len() - 9;
    snap[last] ^= 1;
    let e = fresh.restore(&[&[], &snap], all).unwrap_err();
    assert!(matches!(e, Error::Restore { blob: 1, source: K::CorruptSnapshot { .. } }), "{e}");
    assert!(e.to_string().starts_with("blob 1: "), "{e}");
    let e = fresh.restore(&[&d.snapshot(all).unwrap()], all).unwrap_err();
    assert!(matches!(e, Error::Keyed(K::CorruptSnapshot { .. })), "{e}");
    assert_eq!(fresh.num_keys(), 0);

    // A struct batch with a NULL row is refused; without, it is a push.
    let rows = batch(&[("a", Some(1), 0), ("b", Some(2), 0)]);
    let mut n = KeyedOperator::new(schema(), "normalize keys=0").unwrap();
    let with_null = StructArray::try_new(
        rows.schema().fields().clone(),
        rows.columns().to_vec(),
        Some(arrow_buffer::NullBuffer::from(vec![true, false])),
    )
    .unwrap();
    let e = n.push_struct(&with_null, None).unwrap_err();
    assert!(e.to_string().contains("1 NULL rows"), "{e}");
    let (out, k) = n.push_struct(&StructArray::from(rows), Some(&[0, 0])).unwrap();
    assert_eq!((out.num_rows(), k), (2, vec![RowKind::Insert; 2]));

    for (a, b) in [(-1, 3), (5, 4), (0, 128)] {
        assert!(matches!(g.key_group_range(a, b).unwrap_err(), Error::Invalid(_)));
    }
}

/// A ranked Top-N changelog (k, v, t, rank) replayed into (k, rank) → (v,
/// t), checking that every `-U`/`-D` retracts what that rank holds.
fn replay_ranks(out: &RecordBatch, kinds: &[RowKind]) -> BTreeMap<(String, i64), (Option<i64>, i64)> {
    let mut top = BTreeMap::new();
    let (k, v, t, r) = (strs(out, 0), ints(out, 1), ints(out, 2), ints(out, 3));
    for i in 0..out.num_rows() {
        let at = (k[i].clone(), r[i].unwrap());
        match kinds[i] {
            RowKind::Insert | RowKind::UpdateAfter => {
                top.insert(at, (v[i], t[i].unwrap()));
            }
            RowKind::UpdateBefore | RowKind::Delete => {
                assert_eq!(top.remove(&at), Some((v[i], t[i].unwrap())), "retracts what it emitted");
            }
        }
    }
    top
}

/// `topn` through the spec: a retracting Top-2 with rank numbers against a
/// plain sort of the surviving rows, and a per-key-group snapshot that
/// restores into a fresh operator.
#[test]
fn topn_spec_matches_a_plain_sort() {
    let mut op =
        KeyedOperator::new(schema(), "topn keys=k order=v:desc:nulls_last,t n=2 strategy=retract rank_number=true")
            .unwrap();
    assert_eq!(op.output_schema().fields().len(), 4);
    assert_eq!(op.output_schema().field(3).name(), "rank_number");
    let rows = many();
    let (out, kinds) = op.push(&owned_batch(&rows), &vec![RowKind::Insert; rows.len()]).unwrap();
    // Replay the changelog into (key, rank) -> row and compare with a sort.
    let top = replay_ranks(&out, &kinds);
    let mut expected: BTreeMap<(String, i64), (Option<i64>, i64)> = BTreeMap::new();
    let mut by_key: BTreeMap<String, Vec<(Option<i64>, i64)>> = BTreeMap::new();
    for (k, v, t) in &rows {
        by_key.entry(k.clone()).or_default().push((*v, *t));
    }
    for (k, mut vs) in by_key {
        // v DESC NULLS LAST, then t ASC.
        vs.sort_by(|a, b| match (a.0, b.0) {
            (Some(x), Some(y)) => y.cmp(&x).then(a.1.cmp(&b.1)),
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, None) => a.1.cmp(&b.1),
        });
        for (i, r) in vs.into_iter().take(2).enumerate() {
            expected.insert((k.clone(), i as i64 + 1), r);
        }
    }
    assert_eq!(top, expected);
    let all = op.key_group_range(0, 127).unwrap();
    let blobs = op.snapshot_key_groups(all).unwrap();
    let refs: Vec<&[u8]> = blobs.iter().map(Vec::as_slice).collect();
    let mut fresh =
        KeyedOperator::new(schema(), "topn keys=k order=v:desc:nulls_last,t n=2 strategy=retract rank_number=true")
            .unwrap();
    fresh.restore(&refs, all).unwrap();
    assert_eq!((fresh.num_keys(), fresh.size()), (op.num_keys(), op.size()));
}

#[test]
fn topn_spec_refusals() {
    for (spec, needle) in [
        ("topn keys=k order=v n=3", "strategy="),
        ("topn keys=k order=v n=3 strategy=upsert", "strategy=`upsert`"),
        ("topn keys=k order=v n=3 strategy=update", "row_key="),
        ("topn keys=k order=v n=3 strategy=retract row_key=k,t", "strategy=update only"),
        ("topn keys=k order=v n=3 strategy=update row_key=x", "`x`"),
        ("topn keys=k strategy=append n=3", "order="),
        ("topn keys=k order=v:up strategy=append n=3", "`up`"),
        ("topn keys=k order=v strategy=append", "n="),
        ("topn keys=k order=v strategy=append n=3 rank_end=3", "not both"),
        ("topn keys=k order=v strategy=append rank_start=3 rank_end=2", "below"),
        ("topn keys=k order=v strategy=top1 n=2", "n=1"),
        ("topn keys=k order=v strategy=append n=0", "n=`0`"),
    ] {
        let e = KeyedOperator::new(schema(), spec).unwrap_err().to_string();
        assert!(e.contains(needle), "{spec}: {e}");
    }
    let g = KeyedOperator::new(schema(), "topn keys= order=t:asc:nulls_last strategy=top1 n=1").unwrap();
    assert_eq!(g.spec().keys, Vec::<usize>::new());
}

/// `strategy=update`: the spec carries the unique key to the operator, and a
/// Top-2 by `v DESC` over upserts keyed by (k, t) whose `v` only grows
/// keeps, per k, the two rows a plain sort of the last upserts ranks first.
#[test]
fn topn_update_spec_keeps_the_best_upserts() {
    let text = "topn keys=k order=v:desc n=2 strategy=update row_key=k,t rank_number=true";
    let mut op = KeyedOperator::new(schema(), text).unwrap();
    let crate::keyed::spec::SpecKind::TopN { row_key, .. } = &op.spec().kind else { panic!("{:?}", op.spec()) };
    assert_eq!(row_key, &vec![0, 2]);
    // Row key (k, t) for t in 0..5 per k; v grows with every upsert.
    let mut rows = Vec::new();
    let mut last: BTreeMap<(String, i64), i64> = BTreeMap::new();
    for i in 0..300i64 {
        let (k, t) = (format!("key-{}", i % 7), (i * 31) % 5);
        let v = last.get(&(k.clone(), t)).copied().unwrap_or(0) + (i * 13) % 4;
        last.insert((k.clone(), t), v);
        rows.push((k, Some(v), t));
    }
    let kinds: Vec<RowKind> = rows.iter().map(|_| RowKind::UpdateAfter).collect();
    let (out, kinds) = op.push(&owned_batch(&rows), &kinds).unwrap();
    let top = replay_ranks(&out, &kinds);
    let mut by_key: BTreeMap<String, Vec<(i64, i64)>> = BTreeMap::new();
    for ((k, t), v) in &last {
        by_key.entry(k.clone()).or_default().push((*v, *t));
    }
    for (k, vs) in by_key {
        let mut best: Vec<i64> = vs.iter().map(|p| p.0).collect();
        best.sort_unstable_by(|a, b| b.cmp(a));
        let got: Vec<i64> = (1..=2).filter_map(|rank| top.get(&(k.clone(), rank)).and_then(|x| x.0)).collect();
        assert_eq!(got, best[..2].to_vec(), "{k}");
    }
    assert!(op.push(&batch(&[("a", Some(1), 1)]), &[RowKind::Delete]).is_err(), "-D refused");
}
