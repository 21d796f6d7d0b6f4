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
use crate::flink_hash::{check_parallelism, hash_row_words, key_group_for_hash, operator_index_for_key_group};
use crate::key_encoder::{FlinkKeyEncoder, KeyEncoder};

/// Writes the Flink key group and target channel of every row of `batch`.
///
/// One pass: each row's key is encoded into one reused buffer, hashed and
/// assigned; nothing is allocated per row.
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
    let enc = FlinkKeyEncoder::try_new(batch.columns(), key_columns)?;
    let mut buf = Vec::with_capacity(enc.fixed_size() + 64);
    for (i, (kg_out, ch_out)) in out_key_groups.iter_mut().zip(out_channels.iter_mut()).take(n).enumerate() {
        buf.clear();
        enc.encode_row(i, &mut buf)?;
        let kg = key_group_for_hash(hash_row_words(&buf), max_parallelism);
        *kg_out = kg;
        *ch_out = operator_index_for_key_group(max_parallelism, parallelism, kg);
    }
    Ok(())
}

/// Splits batches by Flink channel; keeps its index buffers between batches.
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
    max_parallelism: i32,
    parallelism: i32,
    key_buf: Vec<u8>,
    per_channel: Vec<Vec<u32>>,
}

impl KeyedExchange {
    /// An exchange on `key_columns` to `parallelism` channels.
    ///
    /// # Errors
    /// Parallelism out of Flink's bounds.
    pub fn new(key_columns: Vec<usize>, max_parallelism: i32, parallelism: i32) -> Result<Self> {
        check_parallelism(max_parallelism, parallelism)?;
        Ok(KeyedExchange {
            key_columns,
            max_parallelism,
            parallelism,
            key_buf: Vec::new(),
            per_channel: (0..parallelism).map(|_| Vec::new()).collect(),
        })
    }

    /// Fills the per-channel row index lists for `batch` (one pass) and
    /// returns them, indexed by channel.
    ///
    /// # Errors
    /// A bad key column.
    pub fn assign(&mut self, batch: &RecordBatch) -> Result<&[Vec<u32>]> {
        let enc = FlinkKeyEncoder::try_new(batch.columns(), &self.key_columns)?;
        for v in &mut self.per_channel {
            v.clear();
        }
        let n = batch.num_rows();
        if n > u32::MAX as usize {
            return Err(invalid_arg(format!("batch of {n} rows exceeds u32 row indices")));
        }
        for i in 0..n {
            self.key_buf.clear();
            enc.encode_row(i, &mut self.key_buf)?;
            let kg = key_group_for_hash(hash_row_words(&self.key_buf), self.max_parallelism);
            let ch = operator_index_for_key_group(self.max_parallelism, self.parallelism, kg) as usize;
            // ch < parallelism because kg < max_parallelism.
            if let Some(v) = self.per_channel.get_mut(ch) {
                v.push(i as u32);
            }
        }
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
