//! [`KeyPlan`]: which key writer an operator uses for its key schema.

use super::block::KeyBlock;
use super::flink::{is_supported_key_type, FlinkKeyEncoder};
use super::transpose::TransposeKeyEncoder;
use crate::error::{invalid_arg, Result};

/// How an operator encodes its keys: this crate's columnar writer when it
/// covers every key column, else `sluice-transpose`'s writer over the
/// projected key columns.
pub(crate) struct KeyPlan {
    fallback: Option<sluice_transpose::KeyEncoder>,
}

impl KeyPlan {
    pub(crate) fn new(schema: &arrow_schema::Schema, key_columns: &[usize]) -> Result<Self> {
        let mut fields = Vec::with_capacity(key_columns.len());
        for &k in key_columns {
            let f = schema.fields().get(k).ok_or_else(|| {
                invalid_arg(format!("key column {k} out of range ({} columns)", schema.fields().len()))
            })?;
            fields.push(f.clone());
        }
        if fields.iter().all(|f| is_supported_key_type(f.data_type())) {
            return Ok(KeyPlan { fallback: None });
        }
        let key_schema = std::sync::Arc::new(arrow_schema::Schema::new(fields));
        let conv = sluice_transpose::RowConverter::new(key_schema)?;
        let idx: Vec<usize> = (0..key_columns.len()).collect();
        Ok(KeyPlan { fallback: Some(sluice_transpose::KeyEncoder::new(&conv, &idx)?) })
    }

    /// Encodes the key rows of `batch` into `block`.
    pub(crate) fn fill(
        &self,
        batch: &arrow_array::RecordBatch,
        key_columns: &[usize],
        block: &mut KeyBlock,
    ) -> Result<()> {
        match &self.fallback {
            None => {
                let mut enc = FlinkKeyEncoder::try_new(batch.columns(), key_columns)?;
                // A batch without columns still has rows (a global aggregate
                // over a zero-field row): the count comes from the batch.
                enc.num_rows = batch.num_rows();
                block.fill_flink(&enc)
            }
            Some(k) => {
                let keys = batch.project(key_columns)?;
                let bound = k.bind(&keys)?;
                block.fill(&TransposeKeyEncoder::new(bound, keys.num_rows()))
            }
        }
    }
}
