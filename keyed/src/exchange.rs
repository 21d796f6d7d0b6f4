//! The keyed exchange: Flink's key group and target channel per row, and the
//! split of a batch into one batch per channel.
//!
//! Follows `KeyGroupStreamPartitioner.selectChannel` →
//! `KeyGroupRangeAssignment.assignKeyToParallelOperator`: the key is the
//! `BinaryRowData` projection of the key columns (see [`crate::key_encoder`]),
//! its `hashCode()` is `MurmurHashUtils.hashBytesByWords` over the row bytes,
//! then `keyGroup = MathUtils.murmurHash(hash) % maxParallelism` and
//! `channel = keyGroup * parallelism / maxParallelism`.

use arrow_array::{ArrayRef, RecordBatch, UInt32Array};
use arrow_select::take::take;

use crate::error::{invalid_arg, Result};
use crate::flink_hash::{
    check_parallelism, hash_fixed_rows, hash_row_words, murmur_hash, operator_index_for_key_group, ChannelAssigner,
};
use crate::key_encoder::{KeyBlock, KeyPlan};

/// Writes the Flink key group and target channel of every row of `batch`.
///
/// One pass: the key rows are encoded into one block (fixed-width keys a
/// column at a time), each row's bytes are hashed in place and assigned;
/// nothing is allocated per row.
///
/// # Errors
/// Parallelism out of Flink's bounds (`0 < parallelism <= max_parallelism <=
/// 32768`), output slices shorter than the batch, a bad key column.
pub fn key_groups(
    batch: &RecordBatch,
    key_columns: &[usize],
    max_parallelism: i32,
    parallelism: i32,
    out_key_groups: &mut [i32],
    out_channels: &mut [i32],
) -> Result<()> {
    check_parallelism(max_parallelism, parallelism)?;
    let n = batch.num_rows();
    if out_key_groups.len() < n || out_channels.len() < n {
        return Err(invalid_arg(format!(
            "output slices hold {} / {} rows, batch has {n}",
            out_key_groups.len(),
            out_channels.len()
        )));
    }
    let mut block = KeyBlock::new();
    KeyPlan::new(&batch.schema(), key_columns)?.fill(batch, key_columns, &mut block)?;
    let mask = (max_parallelism.count_ones() == 1).then_some(max_parallelism - 1);
    for_each_hash(&block, |i, h| {
        let m = murmur_hash(h);
        let kg = match mask {
            Some(mask) => m & mask,
            None => m % max_parallelism,
        };
        out_key_groups[i] = kg;
        out_channels[i] = operator_index_for_key_group(max_parallelism, parallelism, kg);
    });
    Ok(())
}

/// Calls `f(row, BinaryRowData.hashCode())` for every row of `block`.
#[inline]
pub(crate) fn for_each_hash(block: &KeyBlock, mut f: impl FnMut(usize, i32)) {
    match block.stride() {
        Some(stride) => hash_fixed_rows(block.data(), stride, f),
        None => {
            for i in 0..block.len() {
                f(i, hash_row_words(block.row(i)))
            }
        }
    }
}

/// Splits batches by Flink channel; keeps its buffers between batches.
///
/// ```
/// # use std::sync::Arc;
/// # use arrow_array::{ArrayRef, Int64Array, RecordBatch};
/// use sluice_keyed::KeyedExchange;
/// let batch = RecordBatch::try_from_iter([("k", Arc::new(Int64Array::from(vec![1, 2, 3])) as ArrayRef)]).unwrap();
/// let mut ex = KeyedExchange::new(vec![0], 128, 4).unwrap();
/// let parts = ex.split(&batch).unwrap();
/// assert_eq!(parts.len(), 4);
/// assert_eq!(parts.iter().map(|b| b.num_rows()).sum::<usize>(), 3);
/// ```
pub struct KeyedExchange {
    key_columns: Vec<usize>,
    assigner: ChannelAssigner,
    block: KeyBlock,
    per_channel: Vec<Vec<u32>>,
}

impl KeyedExchange {
    /// An exchange on `key_columns` to `parallelism` channels.
    ///
    /// # Errors
    /// Parallelism out of Flink's bounds.
    pub fn new(key_columns: Vec<usize>, max_parallelism: i32, parallelism: i32) -> Result<Self> {
        Ok(KeyedExchange {
            key_columns,
            assigner: ChannelAssigner::new(max_parallelism, parallelism)?,
            block: KeyBlock::new(),
            per_channel: (0..parallelism).map(|_| Vec::new()).collect(),
        })
    }

    /// The key-group / channel arithmetic this exchange uses.
    pub fn assigner(&self) -> &ChannelAssigner {
        &self.assigner
    }

    /// Fills the per-channel row index lists for `batch` (one pass) and
    /// returns them, indexed by channel.
    ///
    /// # Errors
    /// A bad key column.
    pub fn assign(&mut self, batch: &RecordBatch) -> Result<&[Vec<u32>]> {
        let n = batch.num_rows();
        if n > u32::MAX as usize {
            return Err(invalid_arg(format!("batch of {n} rows exceeds u32 row indices")));
        }
        KeyPlan::new(&batch.schema(), &self.key_columns)?.fill(batch, &self.key_columns, &mut self.block)?;
        let Self { assigner, block, per_channel, .. } = self;
        for v in per_channel.iter_mut() {
            v.clear();
        }
        for_each_hash(block, |i, h| {
            let ch = assigner.channel(assigner.key_group(h));
            if let Some(v) = per_channel.get_mut(ch) {
                v.push(i as u32);
            }
        });
        Ok(&self.per_channel)
    }

    /// Splits `batch` into one batch per channel (empty batches for channels
    /// that receive no row), rows in their input order.
    ///
    /// # Errors
    /// A bad key column; an Arrow error from `take`.
    pub fn split(&mut self, batch: &RecordBatch) -> Result<Vec<RecordBatch>> {
        self.assign(batch)?;
        let mut out = Vec::with_capacity(self.per_channel.len());
        for idx in &self.per_channel {
            if idx.len() == batch.num_rows() {
                out.push(batch.clone());
                continue;
            }
            let indices = UInt32Array::from(idx.clone());
            let cols = batch
                .columns()
                .iter()
                .map(|c| take(c.as_ref(), &indices, None))
                .collect::<std::result::Result<Vec<ArrayRef>, _>>()?;
            out.push(RecordBatch::try_new_with_options(
                batch.schema(),
                cols,
                &arrow_array::RecordBatchOptions::new().with_row_count(Some(indices.len())),
            )?);
        }
        Ok(out)
    }
}
