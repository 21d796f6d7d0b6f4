//! Snapshots of [`TopN`]: one entry per partition key, grouped by Flink key
//! group (the shared format of [`crate::snapshot`]).
//!
//! An entry's value is `row count u32 | rows` with every row as
//! `length u32 | arrow-row bytes`, in rank order. Sort keys are not
//! written: a restore decodes the rows (each checked to decode with the
//! operator's schema first, so foreign bytes are an error and never a
//! panic), recomputes their sort keys from the ORDER BY columns and checks
//! that the rows are in order, so a restored partition is exactly the one
//! that was written. The `Update` strategy's partitions are written the
//! same way; a restore recomputes their row keys too (and refuses a row key
//! twice in a partition).

use std::sync::Arc;

use arrow_array::{ArrayRef, RecordBatch, RecordBatchOptions};

use super::cost::ROW_OVERHEAD;
use super::rank::Partition;
use super::update::Ranked;
use super::{TopN, TopNStrategy};
use crate::error::{invalid_arg, Error, Result};
use crate::flink_hash::KeyGroupRange;
use crate::key_encoder::KeyBlock;
use crate::snapshot::Writer;
use crate::state::ENTRY_OVERHEAD;

fn write_partition(p: &Partition, w: &mut Writer) {
    w.u32(p.rows as u32);
    for row in p.buckets.values().flat_map(|b| b.iter()) {
        w.bytes(row);
    }
}

fn write_ranked(p: &Ranked, w: &mut Writer) {
    w.u32(p.rows as u32);
    for slot in p.buckets.values().flatten() {
        w.bytes(&slot.row);
    }
}

fn corrupt(reason: &str) -> Error {
    Error::CorruptSnapshot { offset: 0, reason: format!("Rank (Top-N) restore: {reason}") }
}

impl TopN {
    /// Serialises the partitions whose key group is in `range`.
    ///
    /// # Errors
    /// Only while the benchmark-only scalar ranker is on (`public_imp`).
    pub fn snapshot(&self, range: KeyGroupRange) -> Result<Vec<u8>> {
        self.check_snapshot_state()?;
        if self.opts.strategy == TopNStrategy::Update {
            let entries = self.ranked.iter().map(|(k, v)| (&**k, v));
            return Ok(self.format.write(range, entries, write_ranked));
        }
        let entries = self.parts.iter().map(|(k, v)| (&**k, v));
        Ok(self.format.write(range, entries, write_partition))
    }

    /// One snapshot per non-empty key group of `range` (ascending), written
    /// in one pass over the state; each restores on its own.
    ///
    /// # Errors
    /// Only while the benchmark-only scalar ranker is on (`public_imp`).
    pub fn snapshot_key_groups(&self, range: KeyGroupRange) -> Result<Vec<(i32, Vec<u8>)>> {
        self.check_snapshot_state()?;
        if self.opts.strategy == TopNStrategy::Update {
            let entries = self.ranked.iter().map(|(k, v)| (&**k, v));
            return Ok(self.format.write_by_key_group(range, entries, write_ranked));
        }
        let entries = self.parts.iter().map(|(k, v)| (&**k, v));
        Ok(self.format.write_by_key_group(range, entries, write_partition))
    }

    /// Adds the partitions of `bytes` in `range` to the state, all or nothing.
    ///
    /// # Errors
    /// [`Error::CorruptSnapshot`] for damaged, truncated or foreign bytes
    /// (another operator, schema, order or rank range), rows out of sort
    /// order or more rows than the strategy keeps, a row key twice in an
    /// `Update` partition; a partition already in state; the state budget.
    pub fn restore(&mut self, bytes: &[u8], range: KeyGroupRange) -> Result<()> {
        self.check_snapshot_state()?;
        let mut keys: Vec<(Box<[u8]>, usize)> = Vec::new();
        // Rows as byte ranges of `bytes` (the reader's offsets are offsets into it).
        let mut spans: Vec<(usize, usize)> = Vec::new();
        let codec = &self.codec;
        let top1 = self.opts.strategy == TopNStrategy::FastTop1;
        self.format.read(bytes, range, |key, r| {
            let n = r.count("row count", 4)?;
            if n == 0 || (top1 && n > 1) {
                return Err(r.corrupt(format!("a partition of {n} rows")));
            }
            for _ in 0..n {
                let at = r.pos();
                let row = r.bytes("stored row")?;
                codec.validate(row, at)?;
                spans.push((r.pos() - row.len(), row.len()));
            }
            keys.push((Box::from(key), n));
            Ok(())
        })?;
        if spans.is_empty() {
            return Ok(());
        }
        let rows: Vec<&[u8]> = spans.iter().filter_map(|&(at, len)| bytes.get(at..at + len)).collect();
        if rows.len() != spans.len() {
            return Err(corrupt("row out of bounds"));
        }
        let cols = self.codec.decode(rows.iter().copied())?;
        let sort_cols: Vec<ArrayRef> = self.opts.order.iter().map(|s| cols[s.column].clone()).collect();
        let sort = self.sort_conv.convert_columns(&sort_cols)?;
        if let Some(plan) = &self.row_key_plan {
            let opts = RecordBatchOptions::new().with_row_count(Some(rows.len()));
            let batch = RecordBatch::try_new_with_options(self.schema.clone(), cols, &opts)?;
            let mut row_keys = KeyBlock::new();
            plan.fill(&batch, &self.opts.row_key, &mut row_keys)?;
            let ranked = &self.ranked;
            let (staged, add) = stage(
                &keys,
                &rows,
                &sort,
                |k| ranked.contains_key(k),
                |p: &mut Ranked, i, row| {
                    p.restore_row(sort.row(i).data(), row_keys.row(i), Arc::from(row))
                        .ok_or_else(|| corrupt("a row key twice in a partition"))
                },
            )?;
            self.acct.check(add)?;
            self.acct.charge(add);
            self.ranked.extend(staged);
            return Ok(());
        }
        let parts = &self.parts;
        let (staged, add) = stage(
            &keys,
            &rows,
            &sort,
            |k| parts.contains_key(k),
            |p: &mut Partition, i, row| Ok(p.push(sort.row(i).data(), Arc::from(row)) + row.len() + ROW_OVERHEAD),
        )?;
        self.acct.check(add)?;
        self.acct.charge(add);
        self.parts.extend(staged);
        Ok(())
    }
}

/// Restored partitions by partition key, not yet in state.
type Staged<P> = Vec<(Box<[u8]>, P)>;

/// Builds the partitions of a restore: `keys` (partition key, row count)
/// over `rows` in order, each row checked to be in sort order and added by
/// `push` (returning the bytes it retains). Returns the partitions and the
/// bytes to charge.
fn stage<P: Default>(
    keys: &[(Box<[u8]>, usize)],
    rows: &[&[u8]],
    sort: &arrow_row::Rows,
    in_state: impl Fn(&[u8]) -> bool,
    mut push: impl FnMut(&mut P, usize, &[u8]) -> Result<usize>,
) -> Result<(Staged<P>, usize)> {
    let mut staged = Vec::with_capacity(keys.len());
    let (mut add, mut next) = (0, 0);
    for (key, n) in keys {
        if in_state(key) {
            return Err(invalid_arg("restore: a restored partition is already in state"));
        }
        let mut p = P::default();
        for (i, row) in rows.iter().enumerate().skip(next).take(*n) {
            if i > next && sort.row(i) < sort.row(i - 1) {
                return Err(corrupt("a partition's rows are not in sort order"));
            }
            add += push(&mut p, i, row)?;
        }
        next += n;
        add += key.len() + ENTRY_OVERHEAD;
        staged.push((key.clone(), p));
    }
    Ok((staged, add))
}
