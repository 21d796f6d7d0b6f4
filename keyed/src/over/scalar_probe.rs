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

use arrow_array::cast::AsArray;
use arrow_array::types::{Int16Type, Int32Type, Int64Type, Int8Type};
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::DataType;
use hashbrown::HashMap;

use super::OverAggregate;
use crate::error::{invalid_arg, Result};

/// One partition key value, owned.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Scalar {
    Null,
    Int(i64),
    Str(String),
}

/// Scalar partition key → the key's slot in the operator's state.
#[derive(Default)]
pub(super) struct ScalarProbe {
    index: HashMap<Vec<Scalar>, u32>,
}

/// Row `i` of `col` as a scalar (the key types the benches use).
fn scalar(col: &ArrayRef, i: usize) -> Result<Scalar> {
    if col.is_null(i) {
        return Ok(Scalar::Null);
    }
    Ok(match col.data_type() {
        DataType::Utf8 => Scalar::Str(col.as_string::<i32>().value(i).to_owned()),
        DataType::LargeUtf8 => Scalar::Str(col.as_string::<i64>().value(i).to_owned()),
        DataType::Int64 => Scalar::Int(col.as_primitive::<Int64Type>().value(i)),
        DataType::Int32 => Scalar::Int(col.as_primitive::<Int32Type>().value(i).into()),
        DataType::Int16 => Scalar::Int(col.as_primitive::<Int16Type>().value(i).into()),
        DataType::Int8 => Scalar::Int(col.as_primitive::<Int8Type>().value(i).into()),
        other => return Err(invalid_arg(format!("the scalar key probe does not handle {other}"))),
    })
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
