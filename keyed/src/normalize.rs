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

use crate::error::Result;
use crate::flink_hash::KeyGroupRange;
use crate::keyed_rows::{
    admit_key, emit_update, read_stored_row, release_key, replace_stored, KeyedRows, KeyedRowsConfig,
};
use crate::row_kind::RowKind;
use crate::snapshot::{fnv1a, OpTag};
use crate::state::{ByteKeyMap, KeyProbe};

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
    core: KeyedRows,
    opts: NormalizeOptions,
    /// Key bytes → the stored (last) row.
    map: ByteKeyMap<Arc<[u8]>>,
}

impl ChangelogNormalize {
    /// A normalize over batches of `schema` keyed by `key_columns`.
    ///
    /// # Errors
    /// Unsupported key types, bad max parallelism, a schema arrow-row cannot encode.
    pub fn new(schema: SchemaRef, key_columns: Vec<usize>, opts: NormalizeOptions) -> Result<Self> {
        let fingerprint = fnv1a(format!("normalize|{:?}|{key_columns:?}", schema.fields()).as_bytes());
        let core = KeyedRows::new(KeyedRowsConfig {
            schema,
            key_columns,
            tag: OpTag::Normalize,
            max_parallelism: opts.max_parallelism,
            state_budget: opts.state_budget,
            fingerprint,
        })?;
        Ok(ChangelogNormalize { core, opts, map: ByteKeyMap::default() })
    }

    /// Keys in state.
    pub fn num_keys(&self) -> usize {
        self.map.len()
    }

    /// Retained state bytes (keys, stored rows, per-entry overhead estimate).
    pub fn size(&self) -> usize {
        self.core.size()
    }

    /// Processes one upsert/changelog batch; returns rows of the input schema.
    ///
    /// # Errors
    /// Schema or length mismatch, `Error::StateBudgetExceeded`.
    pub fn process(&mut self, batch: &RecordBatch, row_kinds: &[RowKind]) -> Result<(RecordBatch, Vec<RowKind>)> {
        self.core.check(batch, row_kinds)?;
        self.core.encode_keys(batch)?;
        self.core.encode_rows(batch)?;
        let KeyedRows { block, codec, acct, owned_key_probe, .. } = &mut self.core;
        let (map, opts) = (&mut self.map, &self.opts);
        let drop_equal_ua = opts.drop_equal_update_after;
        let mut owned_key = Vec::new();
        for (i, &kind) in row_kinds.iter().enumerate() {
            let key = block.probe_row(i, owned_key_probe.then_some(&mut owned_key));
            if kind.is_accumulate() {
                match map.entry_ref(&KeyProbe(key)) {
                    EntryRef::Vacant(v) => {
                        let cur = codec.row(i);
                        admit_key(acct, key, cur.len())?;
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
                        let prev = replace_stored(acct, e.get_mut(), cur)?;
                        emit_update(codec, prev, i, opts.generate_update_before);
                    }
                }
            } else if let Some((k, prev)) = map.remove_entry(&KeyProbe(key)) {
                release_key(acct, &k, prev.len());
                codec.emit_stored(prev, RowKind::Delete);
            }
        }
        self.core.codec.finish()
    }

    /// Benchmark-only: copy every probe key into a fresh `Vec<u8>` before
    /// probing (the owned-key behaviour the borrowed probe replaced), so the
    /// benches can compare both in one run. Not for production use.
    #[cfg(feature = "public_imp")]
    pub fn set_owned_key_probe(&mut self, on: bool) {
        self.core.owned_key_probe = on;
    }

    /// Serialises the keys whose key group is in `range`.
    ///
    /// # Errors
    /// None today.
    pub fn snapshot(&self, range: KeyGroupRange) -> Result<Vec<u8>> {
        Ok(self.core.format.write(range, self.map.iter().map(|(k, v)| (&**k, v)), |v, w| w.bytes(v)))
    }

    /// One snapshot per non-empty key group of `range` (ascending), written
    /// in one pass over the state; each restores on its own.
    ///
    /// # Errors
    /// None today.
    pub fn snapshot_key_groups(&self, range: KeyGroupRange) -> Result<Vec<(i32, Vec<u8>)>> {
        Ok(self.core.format.write_by_key_group(range, self.map.iter().map(|(k, v)| (&**k, v)), |v, w| w.bytes(v)))
    }

    /// Adds the keys of `bytes` in `range` to the state.
    ///
    /// # Errors
    /// `Error::CorruptSnapshot` (state unchanged), a duplicate key, the budget.
    pub fn restore(&mut self, bytes: &[u8], range: KeyGroupRange) -> Result<()> {
        let map = &self.map;
        let staged = self.core.restore(bytes, range, |k| map.contains_key(k), read_stored_row, |v| v.len())?;
        self.map.extend(staged);
        Ok(())
    }
}
