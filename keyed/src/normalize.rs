//! Changelog normalize: an upsert stream keyed by its primary key → a full
//! changelog.
//!
//! Flink plans it as `ProcTimeDeduplicateKeepLastRowFunction` with
//! `generateInsert = true` on a changelog input, which runs
//! `DeduplicateFunctionHelper.processLastRowOnChangelog`
//! (`flink-table-runtime/.../operators/deduplicate/`; docs/flink-semantics.md §7.4),
//! state TTL off:
//! * `+I`/`+U`: no state → `+I cur`; a row equal to the stored one →
//!   nothing; else `-U prev` (if `generate_update_before`) and `+U cur`;
//!   store `cur`. "Equal" differs by Flink line: 2.x compares an incoming
//!   `+U` as if it were `+I` (`areRowsWithSameContent`), 1.20's
//!   `RecordEqualiser` compares RowKinds and the stored row is always `+I`,
//!   so there an equal `+U` gives `-U prev`, `+U cur`
//!   ([`NormalizeOptions::drop_equal_update_after`]).
//! * `-U`/`-D`: state → `-D prev` (the stored full row, not the possibly
//!   key-only input) and clear; no state → nothing.
//!
//! # Performance
//! Probes borrow the batch's key bytes; the stored row is an `Arc<[u8]>`
//! copied once when it enters state, and the `-U`/`-D` moves it out.

use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use hashbrown::hash_map::EntryRef;

use crate::error::{invalid_arg, Result};
use crate::flink_hash::{check_parallelism, KeyGroupRange};
use crate::group_agg::check_schema;
use crate::key_encoder::{KeyBlock, KeyPlan};
use crate::payload::PayloadCodec;
use crate::row_kind::{check_kinds_len, RowKind};
use crate::snapshot::{fnv1a, read_snapshot, write_snapshot, write_snapshots_by_key_group, OpTag};
use crate::state::{Accounting, ByteKeyMap, KeyProbe, ENTRY_OVERHEAD};

/// A restored (key, stored row) pair.
type Entry = (Box<[u8]>, Arc<[u8]>);

/// Options of [`ChangelogNormalize`].
#[derive(Clone, Debug)]
pub struct NormalizeOptions {
    /// Emit `-U` before each `+U`. Default true.
    pub generate_update_before: bool,
    /// Flink max parallelism, for grouping snapshots by key group. Default 128.
    pub max_parallelism: i32,
    /// Retained-bytes budget; an insert that would exceed it is an error.
    pub state_budget: Option<usize>,
    /// Whether a `+U` whose fields equal the stored row's is dropped like an
    /// equal `+I`. Flink 2.x compares an incoming `+U` as if it were `+I`
    /// (`DeduplicateFunctionHelper.areRowsWithSameContent`): true. Flink 1.20
    /// compares RowKinds too, and the stored row is always `+I`, so an equal
    /// `+U` emits `-U prev`, `+U cur`: false. Default true.
    pub drop_equal_update_after: bool,
}

impl Default for NormalizeOptions {
    fn default() -> Self {
        NormalizeOptions {
            generate_update_before: true,
            max_parallelism: 128,
            state_budget: None,
            drop_equal_update_after: true,
        }
    }
}

/// Upsert → full changelog, keyed by the primary key columns.
pub struct ChangelogNormalize {
    schema: SchemaRef,
    key_columns: Vec<usize>,
    key_plan: KeyPlan,
    opts: NormalizeOptions,
    fingerprint: u64,
    map: ByteKeyMap<Arc<[u8]>>,
    block: KeyBlock,
    codec: PayloadCodec,
    acct: Accounting,
    owned_key_probe: bool,
}

impl ChangelogNormalize {
    /// A normalize over batches of `schema` keyed by `key_columns`.
    ///
    /// # Errors
    /// Unsupported key types, bad max parallelism, a schema arrow-row cannot encode.
    pub fn new(schema: SchemaRef, key_columns: Vec<usize>, opts: NormalizeOptions) -> Result<Self> {
        check_parallelism(opts.max_parallelism, 1)?;
        let key_plan = KeyPlan::new(&schema, &key_columns)?;
        let fingerprint = fnv1a(format!("normalize|{:?}|{key_columns:?}", schema.fields()).as_bytes());
        Ok(ChangelogNormalize {
            key_plan,
            codec: PayloadCodec::new(schema.clone())?,
            schema,
            key_columns,
            acct: Accounting::new(opts.state_budget),
            opts,
            fingerprint,
            map: ByteKeyMap::default(),
            block: KeyBlock::new(),
            owned_key_probe: false,
        })
    }

    /// Keys in state.
    pub fn num_keys(&self) -> usize {
        self.map.len()
    }

    /// Retained state bytes (keys, stored rows, per-entry overhead estimate).
    pub fn size(&self) -> usize {
        self.acct.bytes
    }

    /// Processes one upsert/changelog batch; returns rows of the input schema.
    ///
    /// # Errors
    /// Schema or length mismatch, `Error::StateBudgetExceeded`.
    pub fn process(&mut self, batch: &RecordBatch, row_kinds: &[RowKind]) -> Result<(RecordBatch, Vec<RowKind>)> {
        check_schema(&self.schema, batch)?;
        check_kinds_len(row_kinds, batch.num_rows())?;
        self.key_plan.fill(batch, &self.key_columns, &mut self.block)?;
        self.codec.encode(batch)?;
        let Self { map, block, codec, acct, opts, owned_key_probe, .. } = self;
        let drop_equal_ua = opts.drop_equal_update_after;
        let owned_key_probe = *owned_key_probe;
        let mut owned_key: Vec<u8>;
        for (i, &kind) in row_kinds.iter().enumerate() {
            let key = if owned_key_probe {
                owned_key = block.row(i).to_vec();
                &owned_key[..]
            } else {
                block.row(i)
            };
            if kind.is_accumulate() {
                match map.entry_ref(&KeyProbe(key)) {
                    EntryRef::Vacant(v) => {
                        let cur = codec.row(i);
                        let add = key.len() + cur.len() + ENTRY_OVERHEAD;
                        acct.check(add)?;
                        acct.charge(add);
                        v.insert_with_key(Box::from(key), Arc::from(cur));
                        codec.emit_input(i, RowKind::Insert);
                    }
                    EntryRef::Occupied(mut e) => {
                        let cur = codec.row(i);
                        // TTL off: a row equal to the stored one emits nothing.
                        // Flink's RecordEqualiser compares RowKinds too
                        // (EqualiserCodeGenerator) and the stored row is always
                        // `+I`: an equal `+I` is dropped; an equal `+U` only
                        // where Flink compares it as `+I` (2.x).
                        let comparable = kind == RowKind::Insert || (drop_equal_ua && kind == RowKind::UpdateAfter);
                        if comparable && **e.get() == *cur {
                            continue;
                        }
                        let old_len = e.get().len();
                        if cur.len() > old_len {
                            acct.check(cur.len() - old_len)?;
                        }
                        let prev = std::mem::replace(e.get_mut(), Arc::from(cur));
                        acct.release(old_len);
                        acct.charge(cur.len());
                        if opts.generate_update_before {
                            codec.emit_stored(prev, RowKind::UpdateBefore);
                        }
                        codec.emit_input(i, RowKind::UpdateAfter);
                    }
                }
            } else if let Some((k, prev)) = map.remove_entry(&KeyProbe(key)) {
                acct.release(k.len() + prev.len() + ENTRY_OVERHEAD);
                codec.emit_stored(prev, RowKind::Delete);
            }
        }
        self.codec.finish()
    }

    /// Benchmark-only: copy every probe key into a fresh `Vec<u8>` before
    /// probing (the owned-key behaviour the borrowed probe replaced), so the
    /// benches can compare both in one run. Not for production use.
    #[cfg(feature = "public_imp")]
    pub fn set_owned_key_probe(&mut self, on: bool) {
        self.owned_key_probe = on;
    }

    /// Serialises the keys whose key group is in `range`.
    ///
    /// # Errors
    /// None today.
    pub fn snapshot(&self, range: KeyGroupRange) -> Result<Vec<u8>> {
        Ok(write_snapshot(
            OpTag::Normalize,
            self.opts.max_parallelism,
            self.fingerprint,
            range,
            self.map.iter().map(|(k, v)| (&**k, v)),
            |v, w| w.bytes(v),
        ))
    }

    /// One snapshot per non-empty key group of `range` (ascending), written
    /// in one pass over the state; each restores on its own.
    ///
    /// # Errors
    /// None today.
    pub fn snapshot_key_groups(&self, range: KeyGroupRange) -> Result<Vec<(i32, Vec<u8>)>> {
        Ok(write_snapshots_by_key_group(
            OpTag::Normalize,
            self.opts.max_parallelism,
            self.fingerprint,
            range,
            self.map.iter().map(|(k, v)| (&**k, v)),
            |v, w| w.bytes(v),
        ))
    }

    /// Adds the keys of `bytes` in `range` to the state.
    ///
    /// # Errors
    /// `Error::CorruptSnapshot` (state unchanged), a duplicate key, the budget.
    pub fn restore(&mut self, bytes: &[u8], range: KeyGroupRange) -> Result<()> {
        let mut staged: Vec<Entry> = Vec::new();
        let codec = &self.codec;
        read_snapshot(bytes, OpTag::Normalize, self.opts.max_parallelism, self.fingerprint, range, |key, r| {
            let at = r.pos();
            let p = r.bytes("stored row")?;
            codec.validate(p, at)?;
            staged.push((Box::from(key), Arc::from(p)));
            Ok(())
        })?;
        let mut add = 0;
        for (k, v) in &staged {
            if self.map.contains_key(k) {
                return Err(invalid_arg("restore: a restored key is already in state"));
            }
            add += k.len() + v.len() + ENTRY_OVERHEAD;
        }
        self.acct.check(add)?;
        self.acct.charge(add);
        self.map.extend(staged);
        Ok(())
    }
}
