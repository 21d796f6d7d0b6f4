//! Snapshots of [`TopN`]: one entry per partition key, grouped by Flink key
//! group (the shared format of [`crate::snapshot`]).
//!
//! An entry's value is `row count u32 | rows` with every row as
//! `length u32 | arrow-row bytes`, in rank order. Sort keys are not
//! written: a restore decodes the rows (each checked to decode with the
//! operator's schema first, so foreign bytes are an error and never a
//! panic), recomputes their sort keys from the ORDER BY columns and checks
//! that the rows are in order, so a restored partition is exactly the one
//! that was written.

use std::sync::Arc;

use arrow_array::ArrayRef;

use super::rank::Partition;
use super::{TopN, TopNStrategy, ENTRY_OVERHEAD, ROW_OVERHEAD};
use crate::error::{invalid_arg, Error, Result};
use crate::flink_hash::KeyGroupRange;
use crate::snapshot::Writer;

fn write_partition(p: &Partition, w: &mut Writer) {
    w.u32(p.rows as u32);
    for row in p.buckets.values().flat_map(|b| b.iter()) {
        w.bytes(row);
    }
}

impl TopN {
    /// Serialises the partitions whose key group is in `range`.
    ///
    /// # Errors
    /// None today.
    pub fn snapshot(&self, range: KeyGroupRange) -> Result<Vec<u8>> {
        let entries = self.parts.iter().map(|(k, v)| (&**k, v));
        Ok(self.format.write(range, entries, write_partition))
    }

    /// One snapshot per non-empty key group of `range` (ascending), written
    /// in one pass over the state; each restores on its own.
    ///
    /// # Errors
    /// None today.
    pub fn snapshot_key_groups(&self, range: KeyGroupRange) -> Result<Vec<(i32, Vec<u8>)>> {
        let entries = self.parts.iter().map(|(k, v)| (&**k, v));
        Ok(self.format.write_by_key_group(range, entries, write_partition))
    }

    /// Adds the partitions of `bytes` in `range` to the state, all or nothing.
    ///
    /// # Errors
    /// [`Error::CorruptSnapshot`] for damaged, truncated or foreign bytes
    /// (another operator, schema, order or rank range), rows out of sort
    /// order or more rows than the strategy keeps; a partition already in
    /// state; the state budget.
    pub fn restore(&mut self, bytes: &[u8], range: KeyGroupRange) -> Result<()> {
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
            return Err(Error::CorruptSnapshot { offset: 0, reason: "Rank (Top-N) restore: row out of bounds".into() });
        }
        let cols = self.codec.decode(rows.iter().copied())?;
        let sort_cols: Vec<ArrayRef> = self.opts.order.iter().map(|s| cols[s.column].clone()).collect();
        let sort = self.sort_conv.convert_columns(&sort_cols)?;
        let mut staged: Vec<(Box<[u8]>, Partition)> = Vec::with_capacity(keys.len());
        let mut add = 0;
        let mut next = 0;
        for (key, n) in keys {
            if self.parts.contains_key(&key) {
                return Err(invalid_arg("restore: a restored partition is already in state"));
            }
            let mut p = Partition::default();
            for (i, row) in rows.iter().enumerate().skip(next).take(n) {
                if i > next && sort.row(i) < sort.row(i - 1) {
                    return Err(Error::CorruptSnapshot {
                        offset: 0,
                        reason: "Rank (Top-N) restore: a partition's rows are not in sort order".into(),
                    });
                }
                add += p.push(sort.row(i).data(), Arc::from(*row)) + row.len() + ROW_OVERHEAD;
            }
            next += n;
            add += key.len() + ENTRY_OVERHEAD;
            staged.push((key, p));
        }
        self.acct.check(add)?;
        self.acct.charge(add);
        self.parts.extend(staged);
        Ok(())
    }
}
