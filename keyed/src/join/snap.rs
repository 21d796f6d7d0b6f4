//! Snapshot and restore of both sides' join state, by Flink key group of the
//! join key (the keyed snapshot format of `crate::snapshot`).
//!
//! Each entry is one side's bucket of one join key:
//! `side u8 (0 left, 1 right) | record count u32 | per record: row bytes |
//! unique-key bytes | condition bytes | appear count u32 | associations i32`.
//! A restore stages every bucket and checks it (rows decode with the side's
//! schema, counts and associations fit the side's view and join type, no two
//! records share an identity, no key is already in state) before anything
//! enters state; arbitrary bytes are an error, never a panic.

use crate::error::{invalid_arg, Result};
use crate::flink_hash::KeyGroupRange;
use crate::snapshot::{Reader, Writer};

use super::state::{Bucket, Entry, SideState, ViewKind};
use super::StreamingJoin;

type Staged = (u8, Box<[u8]>, Bucket);

fn write_bucket(v: &(u8, &Bucket), w: &mut Writer) {
    let (side, b) = *v;
    w.u8(side);
    w.u32(b.entries.len() as u32);
    for e in &b.entries {
        w.bytes(&e.row);
        w.bytes(&e.uk);
        w.bytes(&e.cond);
        w.u32(e.count);
        w.u32(e.assoc as u32);
    }
}

impl StreamingJoin {
    fn snapshot_entries(&self) -> Vec<(&[u8], (u8, &Bucket))> {
        let l = self.left_state.map.iter().map(|(k, b)| (&**k, (0u8, b)));
        let r = self.right_state.map.iter().map(|(k, b)| (&**k, (1u8, b)));
        l.chain(r).collect()
    }

    /// Serialises the join keys (both sides) whose key group is in `range`.
    ///
    /// # Errors
    /// None today.
    pub fn snapshot(&self, range: KeyGroupRange) -> Result<Vec<u8>> {
        let entries = self.snapshot_entries();
        Ok(self.format.write(range, entries.iter().map(|(k, v)| (*k, v)), write_bucket))
    }

    /// One snapshot per non-empty key group of `range` (ascending); each
    /// restores on its own.
    ///
    /// # Errors
    /// None today.
    pub fn snapshot_key_groups(&self, range: KeyGroupRange) -> Result<Vec<(i32, Vec<u8>)>> {
        let entries = self.snapshot_entries();
        Ok(self.format.write_by_key_group(range, entries.iter().map(|(k, v)| (*k, v)), write_bucket))
    }

    /// Adds the join keys of `bytes` in `range` to the state.
    ///
    /// # Errors
    /// `Error::CorruptSnapshot` (state unchanged), a key already in state, the budget.
    pub fn restore(&mut self, bytes: &[u8], range: KeyGroupRange) -> Result<()> {
        let mut staged: Vec<Staged> = Vec::new();
        let outer = [self.opts.join_type.left_is_outer(), self.opts.join_type.right_is_outer()];
        let kinds = [self.left_state.kind, self.right_state.kind];
        let (lb, rb) = (&self.left, &self.right);
        let (lc, rc) = (&self.cond.left, &self.cond.right);
        self.format.read(bytes, range, |key, r| {
            let side = r.u8("side")?;
            if side > 1 {
                return Err(r.corrupt(format!("side {side} is neither left (0) nor right (1)")));
            }
            let s = side as usize;
            let (codec, cond) = if s == 0 { (&lb.codec, lc) } else { (&rb.codec, rc) };
            let n = r.count("record count", 4 * 3 + 8)?;
            if n == 0 {
                return Err(r.corrupt("a join key without records"));
            }
            let mut bucket = Bucket::default();
            for _ in 0..n {
                let e = read_entry(r, codec, cond, kinds[s], outer[s])?;
                bucket.entries.push(e);
            }
            staged.push((side, Box::from(key), bucket));
            Ok(())
        })?;
        let mut add = 0;
        let mut seen: hashbrown::HashSet<(u8, Box<[u8]>)> = hashbrown::HashSet::with_capacity(staged.len());
        for (side, key, bucket) in &mut staged {
            let st = if *side == 0 { &self.left_state } else { &self.right_state };
            if !bucket.reindex(st.kind, &st.hasher) {
                return Err(invalid_arg("restore: two records of one join key have the same identity"));
            }
            if st.map.contains_key(&**key) {
                return Err(invalid_arg("restore: a restored join key is already in state"));
            }
            if !seen.insert((*side, key.clone())) {
                return Err(invalid_arg("restore: a join key appears twice in the snapshot"));
            }
            add += SideState::bucket_bytes(key, bucket);
        }
        self.acct.check(add)?;
        for (side, key, bucket) in staged {
            let st = if side == 0 { &mut self.left_state } else { &mut self.right_state };
            st.map.insert(key, bucket);
        }
        self.acct.charge(add);
        Ok(())
    }
}

fn read_entry(
    r: &mut Reader<'_>,
    codec: &crate::payload::PayloadCodec,
    cond: &super::cond::SideCond,
    kind: ViewKind,
    outer: bool,
) -> Result<Entry> {
    let at = r.pos();
    let row = r.bytes("record row")?;
    codec.validate(row, at)?;
    let uk = r.bytes("unique key")?;
    if (kind == ViewKind::InputSideHasUniqueKey) == uk.is_empty() {
        return Err(r.corrupt("unique-key bytes do not fit the side's state view"));
    }
    let c = r.bytes("condition bytes")?;
    if !cond.check_packed(c) {
        return Err(r.corrupt("condition bytes do not hold the side's condition columns"));
    }
    let count = r.u32("appear count")?;
    if count == 0 || (kind != ViewKind::InputSideHasNoUniqueKey && count != 1) {
        return Err(r.corrupt(format!("appear count {count} does not fit the side's state view")));
    }
    let assoc = r.u32("associations")? as i32;
    // An outer record's count can go below zero in Flink too (a retraction
    // after a replacing update counted twice); an inner record has none.
    if !outer && assoc != -1 {
        return Err(r.corrupt(format!("{assoc} associations on an inner side")));
    }
    Ok(Entry { row: row.into(), uk: uk.into(), cond: c.into(), count, assoc })
}
