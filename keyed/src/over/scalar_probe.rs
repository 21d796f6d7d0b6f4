//! Benchmark-only (`public_imp`): the proctime running fold keyed the way
//! the OVER loops were before they probed borrowed key bytes, so the
//! benches can print that ratio beside the owned-bytes one.
//!
//! Per input row it builds the partition key as a `Vec` of owned scalar
//! values (one `Vec` allocation, plus a `String` per string column), hashes
//! and compares it as scalars in a map from scalar key to the key's slot,
//! and drops it. The byte-keyed state behind the slot is the operator's
//! own (the batch's byte keys are encoded only when a key is new), so the
//! accumulators, the output and every other cost are the borrowed fold's.

use arrow_array::RecordBatch;
use hashbrown::HashMap;

use super::OverAggregate;
use crate::error::{invalid_arg, Result};
use crate::scalar_value::{scalar, Scalar};

/// Scalar partition key → the key's slot in the operator's state.
#[derive(Default)]
pub(super) struct ScalarProbe {
    index: HashMap<Vec<Scalar>, u32>,
}

impl OverAggregate {
    /// The key slots of a proctime running-fold batch through scalar keys
    /// (into `self.slots`).
    pub(super) fn scalar_slots(&mut self, batch: &RecordBatch) -> Result<()> {
        let Self { scalar_probe, slots, store, key_plan, partition_columns, block, .. } = self;
        let Some(probe) = scalar_probe.as_mut() else { return Err(invalid_arg("no scalar key probe")) };
        slots.clear();
        let mut encoded = false;
        for i in 0..batch.num_rows() {
            let key: Vec<Scalar> =
                partition_columns.iter().map(|&c| scalar(batch.column(c), i)).collect::<Result<_>>()?;
            let slot = match probe.index.get(&key) {
                Some(&s) => s,
                None => {
                    if !encoded {
                        key_plan.fill(batch, partition_columns, block)?;
                        encoded = true;
                    }
                    let s = store.slot(block.row(i))?;
                    probe.index.insert(key, s);
                    s
                }
            };
            slots.push(slot);
        }
        Ok(())
    }
}
