//! Deduplication (`ROW_NUMBER() OVER (PARTITION BY key ORDER BY time) = 1`).
//!
//! Each variant follows its Flink function (`flink-table-runtime/.../operators/deduplicate/`,
//! docs/flink-semantics.md §7.2), state TTL off; the input must be insert-only
//! (`DeduplicateFunctionHelper.checkInsertOnly`):
//!
//! | keep / order | Flink function | emits |
//! | --- | --- | --- |
//! | first, proctime | `ProcTimeDeduplicateKeepFirstRowFunction` (`processFirstRowOnProcTime`) | `+I` for the first row of a key, then nothing |
//! | last, proctime | `ProcTimeDeduplicateKeepLastRowFunction` (`processLastRowOnProcTime`) | `+I` first; then `-U prev`/`+U cur`, nothing if `cur` equals `prev`; without update-before and insert: `+U` for every row, stateless |
//! | last, rowtime | `RowTimeDeduplicateFunction(keepLastRow = true)` | replaces when `prev.time <= cur.time` (ties replace): `+I` first, then `-U prev`/`+U cur` |
//! | first, rowtime | `RowTimeDeduplicateFunction(keepLastRow = false)` | replaces when `cur.time < prev.time` (ties keep the first): `+I` first, then `-U prev`/`+U cur` |
//!
//! Rowtime variants decide with `DeduplicateFunctionHelper.isDuplicate` /
//! `shouldKeepCurrentRow` and emit with `updateDeduplicateResult` (no
//! equality check). The time column is read like Flink's `getLong`: an
//! Int64 or `Timestamp(Millisecond)` column; a NULL reads as 0, as the zeroed
//! slot of a NULL field in a `BinaryRowData` does.
//!
//! # Performance
//! Keep-first probes borrow the batch's key bytes and copy a key once; its
//! output is taken from the input batch. Keep-last stores the row as an
//! `Arc<[u8]>`: a replacing row is copied once into state, the `-U` moves the
//! replaced payload out, and an ignored (stale or equal) row allocates nothing.

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{Int64Type, TimestampMillisecondType};
use arrow_array::{Array, ArrayRef, RecordBatch, RecordBatchOptions, UInt32Array};
use arrow_schema::{DataType, SchemaRef, TimeUnit};
use arrow_select::take::take;
use hashbrown::hash_map::EntryRef;

use crate::error::{Error, Result};
use crate::flink_hash::KeyGroupRange;
use crate::keyed_rows::{admit_key, emit_update, read_stored_row, replace_stored, KeyedRows, KeyedRowsConfig};
use crate::row_kind::RowKind;
use crate::rowtime::check_rowtime_column;
use crate::snapshot::{fnv1a, OpTag};
use crate::state::{ByteKeyMap, KeyProbe};

/// Which row of a key survives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Keep {
    /// The first row (`ORDER BY time ASC`).
    First,
    /// The last row (`ORDER BY time DESC`).
    Last,
}

/// What "first" and "last" are measured by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DedupOrder {
    /// Arrival order (processing time).
    ProcTime,
    /// An event-time column (Int64 or `Timestamp(Millisecond)`), compared as
    /// epoch millis.
    RowTime {
        /// Column index of the time attribute.
        column: usize,
    },
}

/// Options of [`Deduplicate`].
#[derive(Clone, Debug)]
pub struct DedupOptions {
    /// First or last row.
    pub keep: Keep,
    /// Arrival order or an event-time column.
    pub order: DedupOrder,
    /// Emit `-U` before `+U` (Flink's `generateUpdateBefore`). Default true.
    pub generate_update_before: bool,
    /// Emit `+I` for the first row of a key (Flink's `generateInsert`,
    /// `table.exec.deduplicate.insert-update-after-sensitive-enabled`). Default true.
    pub generate_insert: bool,
    /// Flink max parallelism, for grouping snapshots by key group. Default 128.
    pub max_parallelism: i32,
    /// Retained-bytes budget; an insert that would exceed it is an error.
    pub state_budget: Option<usize>,
    /// Keep-last by proctime only: which Flink state backend's behaviour on
    /// a row equal to the kept one to reproduce. Default
    /// [`StateBackendKind::HashMap`], Flink's default backend.
    pub backend: StateBackendKind,
}

/// The Flink state backend a keep-last-by-proctime dedup reproduces.
///
/// `DeduplicateFunctionHelper.processLastRowOnProcTime` stores the current
/// row (`state.update(currentRow)`) and *then* sets its RowKind to `+U` when
/// it emits it; an equal next row is dropped only if the generated
/// `RecordEqualiser` says equal, and that compares RowKinds too
/// (`EqualiserCodeGenerator`: `BinaryRowData.equals` over the header byte,
/// or `getRowKind() !=` first). The heap backend keeps the row object, so the
/// stored row carries `+U` after an update and the equal next row (`+I`)
/// is *not* dropped: `-U prev`, `+U cur`. RocksDB serialised the row before
/// the RowKind changed, so every equal row is dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum StateBackendKind {
    /// `hashmap` (Flink's default): the stored row's RowKind is the one
    /// last emitted for it.
    #[default]
    HashMap,
    /// `rocksdb`: the stored row is always `+I`.
    RocksDb,
}

impl DedupOptions {
    /// Defaults (update-before and insert on, max parallelism 128, no budget).
    pub fn new(keep: Keep, order: DedupOrder) -> Self {
        DedupOptions {
            keep,
            order,
            generate_update_before: true,
            generate_insert: true,
            max_parallelism: 128,
            state_budget: None,
            backend: StateBackendKind::HashMap,
        }
    }
}

struct Stored {
    payload: Arc<[u8]>,
    /// Rowtime order: the kept row's time. Proctime order (no time to
    /// keep): [`KEPT_AS_UPDATE`] when the kept row was last emitted as `+U`
    /// (the RowKind Flink's heap backend leaves on the stored row), else 0.
    /// Snapshots carry it in the same slot.
    time: i64,
}

impl Stored {
    /// Writes the snapshot value: time, then the stored row.
    fn write(&self, w: &mut crate::snapshot::Writer) {
        w.i64(self.time);
        w.bytes(&self.payload);
    }
}

/// [`Stored::time`] under proctime order: the kept row's RowKind is `+U`.
const KEPT_AS_UPDATE: i64 = 1;

/// A streaming deduplication.
pub struct Deduplicate {
    core: KeyedRows,
    opts: DedupOptions,
    /// Keep-first by proctime: only "seen".
    seen: ByteKeyMap<()>,
    /// Every other variant: the kept row and its time.
    kept: ByteKeyMap<Stored>,
    emit_rows: Vec<u32>,
}

impl Deduplicate {
    /// A deduplication of batches of `schema` on `key_columns`.
    ///
    /// # Errors
    /// Unsupported key types, a rowtime column that is not Int64 or
    /// `Timestamp(Millisecond)`, bad max parallelism.
    pub fn new(schema: SchemaRef, key_columns: Vec<usize>, opts: DedupOptions) -> Result<Self> {
        let fingerprint =
            fnv1a(format!("dedup|{:?}|{key_columns:?}|{:?}|{:?}", schema.fields(), opts.keep, opts.order).as_bytes());
        let core = KeyedRows::new(KeyedRowsConfig {
            schema: schema.clone(),
            key_columns,
            tag: OpTag::Dedup,
            max_parallelism: opts.max_parallelism,
            state_budget: opts.state_budget,
            fingerprint,
        })?;
        if let DedupOrder::RowTime { column } = opts.order {
            check_rowtime_column(&schema, column, "a rowtime attribute")?;
        }
        Ok(Deduplicate { core, opts, seen: ByteKeyMap::default(), kept: ByteKeyMap::default(), emit_rows: Vec::new() })
    }

    fn first_by_proctime(&self) -> bool {
        self.opts.keep == Keep::First && self.opts.order == DedupOrder::ProcTime
    }

    /// Keys in state.
    pub fn num_keys(&self) -> usize {
        self.seen.len() + self.kept.len()
    }

    /// Retained state bytes (keys, stored rows, per-entry overhead estimate).
    pub fn size(&self) -> usize {
        self.core.size()
    }

    /// Processes one insert-only batch.
    ///
    /// # Errors
    /// A row kind other than `+I` ([`Error::UnexpectedRowKind`]), schema or
    /// length mismatch, [`Error::StateBudgetExceeded`].
    pub fn process(&mut self, batch: &RecordBatch, row_kinds: &[RowKind]) -> Result<(RecordBatch, Vec<RowKind>)> {
        self.core.check(batch, row_kinds)?;
        if let Some(row) = row_kinds.iter().position(|k| *k != RowKind::Insert) {
            return Err(Error::UnexpectedRowKind { row, kind: row_kinds[row].to_byte(), operator: "Deduplicate" });
        }
        if self.opts.keep == Keep::Last
            && self.opts.order == DedupOrder::ProcTime
            && !self.opts.generate_update_before
            && !self.opts.generate_insert
        {
            // processLastRowOnProcTime: stateless, +U for every row.
            return Ok((batch.clone(), vec![RowKind::UpdateAfter; batch.num_rows()]));
        }
        self.core.encode_keys(batch)?;
        if self.first_by_proctime() {
            return self.process_first_proctime(batch);
        }
        self.core.encode_rows(batch)?;
        let times = match self.opts.order {
            DedupOrder::ProcTime => None,
            DedupOrder::RowTime { column } => Some(TimeCol::new(batch.column(column))),
        };
        let first_kind = if self.opts.generate_update_before || self.opts.generate_insert {
            RowKind::Insert
        } else {
            RowKind::UpdateAfter
        };
        let KeyedRows { block, codec, acct, owned_key_probe, .. } = &mut self.core;
        let (kept, opts) = (&mut self.kept, &self.opts);
        let mut owned_key = Vec::new();
        for i in 0..batch.num_rows() {
            let key = block.probe_row(i, owned_key_probe.then_some(&mut owned_key));
            let time = times.as_ref().map_or(0, |t| t.get(i));
            match kept.entry_ref(&KeyProbe(key)) {
                EntryRef::Vacant(v) => {
                    let cur = codec.row(i);
                    admit_key(acct, key, cur.len())?;
                    v.insert_with_key(Box::from(key), Stored { payload: Arc::from(cur), time });
                    codec.emit_input(i, first_kind);
                }
                EntryRef::Occupied(mut e) => {
                    let s = e.get_mut();
                    let replace = match (opts.order, opts.keep) {
                        // processLastRowOnProcTime: a row equal to the kept
                        // one, RowKind included, emits nothing (and is kept,
                        // as `+I`); see StateBackendKind.
                        (DedupOrder::ProcTime, _) => {
                            let kind_differs = opts.backend == StateBackendKind::HashMap && s.time == KEPT_AS_UPDATE;
                            if !kind_differs && *s.payload == *codec.row(i) {
                                s.time = 0;
                                continue;
                            }
                            true
                        }
                        // isDuplicate(keepLastRow = true): prev <= cur.
                        (DedupOrder::RowTime { .. }, Keep::Last) => s.time <= time,
                        // isDuplicate(keepLastRow = false): cur < prev.
                        (DedupOrder::RowTime { .. }, Keep::First) => time < s.time,
                    };
                    if !replace {
                        continue;
                    }
                    let prev = replace_stored(acct, &mut s.payload, codec.row(i))?;
                    s.time = if opts.order == DedupOrder::ProcTime { KEPT_AS_UPDATE } else { time };
                    emit_update(codec, prev, i, opts.generate_update_before);
                }
            }
        }
        self.core.codec.finish()
    }

    fn process_first_proctime(&mut self, batch: &RecordBatch) -> Result<(RecordBatch, Vec<RowKind>)> {
        let KeyedRows { block, acct, owned_key_probe, .. } = &mut self.core;
        let (seen, emit_rows) = (&mut self.seen, &mut self.emit_rows);
        let mut owned_key = Vec::new();
        emit_rows.clear();
        for i in 0..batch.num_rows() {
            let key = block.probe_row(i, owned_key_probe.then_some(&mut owned_key));
            if let EntryRef::Vacant(v) = seen.entry_ref(&KeyProbe(key)) {
                admit_key(acct, key, 0)?;
                v.insert_with_key(Box::from(key), ());
                emit_rows.push(i as u32);
            }
        }
        let n = emit_rows.len();
        if n == batch.num_rows() {
            return Ok((batch.clone(), vec![RowKind::Insert; n]));
        }
        let idx = UInt32Array::from(std::mem::take(emit_rows));
        let cols =
            batch.columns().iter().map(|c| take(c.as_ref(), &idx, None)).collect::<Result<Vec<ArrayRef>, _>>()?;
        let out = RecordBatch::try_new_with_options(
            batch.schema(),
            cols,
            &RecordBatchOptions::new().with_row_count(Some(n)),
        )?;
        Ok((out, vec![RowKind::Insert; n]))
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
        let format = &self.core.format;
        if self.first_by_proctime() {
            return Ok(format.write(range, self.seen.iter().map(|(k, v)| (&**k, v)), |_, _| {}));
        }
        Ok(format.write(range, self.kept.iter().map(|(k, v)| (&**k, v)), Stored::write))
    }

    /// One snapshot per non-empty key group of `range` (ascending), written
    /// in one pass over the state; each restores on its own.
    ///
    /// # Errors
    /// None today.
    pub fn snapshot_key_groups(&self, range: KeyGroupRange) -> Result<Vec<(i32, Vec<u8>)>> {
        let format = &self.core.format;
        if self.first_by_proctime() {
            return Ok(format.write_by_key_group(range, self.seen.iter().map(|(k, v)| (&**k, v)), |_, _| {}));
        }
        Ok(format.write_by_key_group(range, self.kept.iter().map(|(k, v)| (&**k, v)), Stored::write))
    }

    /// Adds the keys of `bytes` in `range` to the state.
    ///
    /// # Errors
    /// [`Error::CorruptSnapshot`] (state unchanged), a duplicate key, the budget.
    pub fn restore(&mut self, bytes: &[u8], range: KeyGroupRange) -> Result<()> {
        let first = self.first_by_proctime();
        let (seen, kept) = (&self.seen, &self.kept);
        let staged = self.core.restore(
            bytes,
            range,
            |k| seen.contains_key(k) || kept.contains_key(k),
            |r, codec| {
                if first {
                    return Ok(None);
                }
                let time = r.i64("row time")?;
                Ok(Some(Stored { payload: read_stored_row(r, codec)?, time }))
            },
            |v| v.as_ref().map_or(0, |s| s.payload.len()),
        )?;
        for (k, v) in staged {
            match v {
                None => {
                    self.seen.insert(k, ());
                }
                Some(s) => {
                    self.kept.insert(k, s);
                }
            }
        }
        Ok(())
    }
}

/// The time attribute, read like `RowData.getLong(rowtimeIndex)`.
struct TimeCol<'a> {
    values: &'a [i64],
    nulls: Option<&'a arrow_buffer::NullBuffer>,
}

impl<'a> TimeCol<'a> {
    fn new(a: &'a ArrayRef) -> Self {
        let values = match a.data_type() {
            DataType::Timestamp(TimeUnit::Millisecond, _) => a.as_primitive::<TimestampMillisecondType>().values(),
            _ => a.as_primitive::<Int64Type>().values(),
        };
        TimeCol { values, nulls: a.nulls() }
    }

    #[inline]
    fn get(&self, i: usize) -> i64 {
        if self.nulls.is_some_and(|n| n.is_null(i)) {
            0
        } else {
            self.values.get(i).copied().unwrap_or(0)
        }
    }
}
