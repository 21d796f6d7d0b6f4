//! The state core that [`Deduplicate`](crate::Deduplicate) and
//! [`ChangelogNormalize`](crate::ChangelogNormalize) share: per key, at most
//! one stored input row.
//!
//! Both operators check a batch against their schema, encode its keys once
//! into a reused [`KeyBlock`] (probes borrow from it), encode its rows once
//! with the [`PayloadCodec`] (a stored row is an `Arc<[u8]>` copy of one of
//! them), charge keys and stored rows to one [`Accounting`], and write and
//! restore their state through one [`SnapshotFormat`]. What differs between
//! them is only the decision per row (keep, replace, delete), which stays in
//! their own modules.

use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;

use crate::error::{invalid_arg, Result};
use crate::flink_hash::{check_parallelism, KeyGroupRange};
use crate::group_agg::check_schema;
use crate::key_encoder::{KeyBlock, KeyPlan};
use crate::payload::PayloadCodec;
use crate::row_kind::{check_kinds_len, RowKind};
use crate::snapshot::{OpTag, Reader, SnapshotFormat};
use crate::state::{Accounting, ENTRY_OVERHEAD};

/// What a keyed-row operator is built from (see [`KeyedRows::new`]).
pub(crate) struct KeyedRowsConfig {
    pub(crate) schema: SchemaRef,
    pub(crate) key_columns: Vec<usize>,
    pub(crate) tag: OpTag,
    pub(crate) max_parallelism: i32,
    pub(crate) state_budget: Option<usize>,
    /// The snapshot fingerprint: a hash of the schema, the key columns and
    /// the options that change what the state means.
    pub(crate) fingerprint: u64,
}

/// Key plan, key block, payload codec, accounting and snapshot format of one
/// keyed-row operator. The operator owns its state map(s) beside it.
pub(crate) struct KeyedRows {
    schema: SchemaRef,
    key_columns: Vec<usize>,
    key_plan: KeyPlan,
    /// The batch's encoded keys ([`encode_keys`](Self::encode_keys)).
    pub(crate) block: KeyBlock,
    /// The batch's encoded rows ([`encode_rows`](Self::encode_rows)) and the
    /// emitted changelog.
    pub(crate) codec: PayloadCodec,
    pub(crate) acct: Accounting,
    pub(crate) format: SnapshotFormat,
    /// Benchmark-only owned-key probes (`set_owned_key_probe`).
    pub(crate) owned_key_probe: bool,
}

impl KeyedRows {
    /// # Errors
    /// Bad max parallelism, unsupported key types, a schema arrow-row cannot encode.
    pub(crate) fn new(c: KeyedRowsConfig) -> Result<Self> {
        check_parallelism(c.max_parallelism, 1)?;
        let key_plan = KeyPlan::new(&c.schema, &c.key_columns)?;
        Ok(KeyedRows {
            key_plan,
            codec: PayloadCodec::new(c.schema.clone())?,
            schema: c.schema,
            key_columns: c.key_columns,
            block: KeyBlock::new(),
            acct: Accounting::new(c.state_budget),
            format: SnapshotFormat { tag: c.tag, max_parallelism: c.max_parallelism, fingerprint: c.fingerprint },
            owned_key_probe: false,
        })
    }

    /// Checks `batch` against the operator's schema and `row_kinds` against its length.
    pub(crate) fn check(&self, batch: &RecordBatch, row_kinds: &[RowKind]) -> Result<()> {
        check_schema(&self.schema, batch)?;
        check_kinds_len(row_kinds, batch.num_rows())
    }

    /// Encodes the key rows of `batch` into [`block`](Self::block).
    pub(crate) fn encode_keys(&mut self, batch: &RecordBatch) -> Result<()> {
        self.key_plan.fill(batch, &self.key_columns, &mut self.block)
    }

    /// Encodes the rows of `batch` into [`codec`](Self::codec) (and clears
    /// its emitted rows).
    pub(crate) fn encode_rows(&mut self, batch: &RecordBatch) -> Result<()> {
        self.codec.encode(batch)
    }

    /// Retained state bytes.
    pub(crate) fn size(&self) -> usize {
        self.acct.bytes
    }

    /// Reads the entries of a snapshot in `range` (`read_value` reads one
    /// entry's value, `stored_len` is the bytes it keeps besides its key),
    /// refuses a key that `in_state` already holds or that comes twice, and
    /// charges them to the budget. The caller inserts the returned entries;
    /// on an error nothing is charged and the state is unchanged.
    pub(crate) fn restore<V>(
        &mut self,
        bytes: &[u8],
        range: KeyGroupRange,
        in_state: impl Fn(&[u8]) -> bool,
        mut read_value: impl FnMut(&mut Reader<'_>, &PayloadCodec) -> Result<V>,
        stored_len: impl Fn(&V) -> usize,
    ) -> Result<Vec<(Box<[u8]>, V)>> {
        let mut staged: Vec<(Box<[u8]>, V)> = Vec::new();
        let codec = &self.codec;
        self.format.read(bytes, range, |key, r| {
            staged.push((Box::from(key), read_value(r, codec)?));
            Ok(())
        })?;
        let mut keys: Vec<&[u8]> = staged.iter().map(|(k, _)| &**k).collect();
        keys.sort_unstable();
        if keys.windows(2).any(|w| w[0] == w[1]) || keys.iter().any(|k| in_state(k)) {
            return Err(invalid_arg("restore: a restored key is already in state"));
        }
        let add = staged.iter().map(|(k, v)| k.len() + ENTRY_OVERHEAD + stored_len(v)).sum();
        self.acct.admit(add)?;
        Ok(staged)
    }
}

/// Reads a stored row of a snapshot and checks that it decodes with `codec`'s schema.
pub(crate) fn read_stored_row(r: &mut Reader<'_>, codec: &PayloadCodec) -> Result<Arc<[u8]>> {
    let at = r.pos();
    let p = r.bytes("stored row")?;
    codec.validate(p, at)?;
    Ok(Arc::from(p))
}

/// Charges a new key with its stored row (`stored` bytes) to `acct`.
#[inline]
pub(crate) fn admit_key(acct: &mut Accounting, key: &[u8], stored: usize) -> Result<()> {
    acct.admit(key.len() + stored + ENTRY_OVERHEAD)
}

/// Releases a key and its stored row from `acct`.
#[inline]
pub(crate) fn release_key(acct: &mut Accounting, key: &[u8], stored: usize) {
    acct.release(key.len() + stored + ENTRY_OVERHEAD)
}

/// Replaces the stored row `slot` by `cur`, charging the difference
/// (refused, and `slot` unchanged, if the growth exceeds the budget).
/// Returns the replaced row, moved out of state.
#[inline]
pub(crate) fn replace_stored(acct: &mut Accounting, slot: &mut Arc<[u8]>, cur: &[u8]) -> Result<Arc<[u8]>> {
    let old_len = slot.len();
    if cur.len() > old_len {
        acct.check(cur.len() - old_len)?;
    }
    let prev = std::mem::replace(slot, Arc::from(cur));
    acct.release(old_len);
    acct.charge(cur.len());
    Ok(prev)
}

/// Emits an update of the stored row `prev` by input row `i`: `-U prev` (if
/// `update_before`) then `+U` of row `i`.
#[inline]
pub(crate) fn emit_update(codec: &mut PayloadCodec, prev: Arc<[u8]>, i: usize, update_before: bool) {
    if update_before {
        codec.emit_stored(prev, RowKind::UpdateBefore);
    }
    codec.emit_input(i, RowKind::UpdateAfter);
}
