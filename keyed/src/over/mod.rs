//! OVER aggregation (`agg(x) OVER (PARTITION BY … ORDER BY time ROWS|RANGE
//! BETWEEN … PRECEDING AND CURRENT ROW)`): Flink's `OverAggregate` node.
//!
//! Flink's `StreamExecOverAggregate` picks one `KeyedProcessFunction` of
//! `flink-table-runtime/.../operators/over/` per frame and time attribute;
//! [`OverAggregate`] reproduces each, row for row:
//!
//! | time | frame ([`OverFrame`]) | Flink function |
//! | --- | --- | --- |
//! | rowtime | ROWS unbounded | `RowTimeRowsUnboundedPrecedingFunction` |
//! | rowtime | RANGE unbounded | `RowTimeRangeUnboundedPrecedingFunction` |
//! | rowtime | ROWS n PRECEDING | `RowTimeRowsBoundedPrecedingFunction` |
//! | rowtime | RANGE x PRECEDING | `RowTimeRangeBoundedPrecedingFunction` |
//! | proctime | ROWS or RANGE unbounded | `ProcTimeUnboundedPrecedingFunction` |
//! | proctime | ROWS n PRECEDING | `ProcTimeRowsBoundedPrecedingFunction` |
//! | proctime | RANGE x PRECEDING | `ProcTimeRangeBoundedPrecedingFunction` |
//!
//! Processing time is given explicitly: the operator keeps a processing-time
//! clock that only the caller moves
//! ([`advance_processing_time`](OverAggregate::advance_processing_time),
//! [`process_at`](OverAggregate::process_at)), so the output of every frame
//! is a function of the rows and the times the caller supplies.
//!
//! Every output row is the input row followed by the aggregate values
//! (`JoinedRowData(input, aggValue)`), emitted as `+I`; the input must be
//! insert-only (Flink plans OVER only on append-only input) and any other
//! row kind is an error.
//!
//! # When rows are emitted
//! * proctime: on arrival, by [`OverAggregate::process`], in input order.
//!   The bounded frame holds the last `n + 1` rows of the key in arrival
//!   order (Flink's `precedingOffset` is `n + 1` for ROWS).
//! * proctime RANGE x PRECEDING (`ProcTimeRangeBoundedPrecedingFunction`):
//!   [`process`](OverAggregate::process) stamps each row with the current
//!   processing time `t` (Flink's `currentProcessingTime()`) and buffers it;
//!   Flink registers a processing-time timer at `t + 1` and the cleanup
//!   timer of the rowtime RANGE function below (`t + 1.5·x + 1` whenever
//!   `t + x + 1` passes the registered one). Advancing the clock to `t' > t`
//!   fires those timers: per key, the rows stamped more than `x` before `t`
//!   are retracted (`onTimer(t + 1)` retracts stamps `< (t + 1) - 1 - x`),
//!   the rows of `t` are accumulated and all emitted with that one value,
//!   across keys by stamp, then key slot; a cleanup timer that fires with
//!   the key's latest cleanup time drops the key's state. This is the
//!   rowtime RANGE machinery with stamps for timestamps; what differs: no
//!   row is ever late, a row fires at `stamp + 1` rather than at a watermark
//!   reaching its timestamp, and the processing timer and the cleanup timer
//!   of `x = 0` coincide (both at `t + 1`): Flink's `onTimer` checks cleanup
//!   first, so with `INTERVAL '0'` every row is dropped unemitted, and so it
//!   is here. The clock may go back, as Flink's wall clock (and its test
//!   harness) may: rows are stamped with the time given, and each timer
//!   fires once, when the clock first reaches it. One case is not Flink's:
//!   a row stamped, after the clock went back, with a millisecond whose rows
//!   already fired finds Flink's list for that millisecond still present, so
//!   Flink registers no timer and never emits it; here it fires at the next
//!   clock move past its stamp.
//! * rowtime: [`process`](OverAggregate::process) only buffers; a
//!   [`advance_watermark`](OverAggregate::advance_watermark) emits the rows
//!   whose event-time timer fires, per key in timestamp order (ties in
//!   arrival order), and across keys by timestamp, then key slot. Which rows
//!   are late, and when a buffered row fires, is each function's own rule:
//!   * unbounded (`AbstractRowTimeUnboundedPrecedingOver`): a row with
//!     timestamp `<=` the current watermark is dropped; an accepted row
//!     registers a timer at `watermark + 1` (at 0 while the watermark is
//!     negative), and a firing timer emits the key's rows up to the new
//!     watermark and re-registers `watermark + 1` if rows are left. ROWS
//!     emits each row with the aggregate after it; RANGE accumulates all rows
//!     of one timestamp, then emits each with that one value.
//!   * bounded (`RowTimeRowsBoundedPrecedingFunction`,
//!     `RowTimeRangeBoundedPrecedingFunction`): a row is late when its
//!     timestamp is `<=` the key's last fired timer (`lastTriggeringTsState`,
//!     0 for a new key, so rows at `ts <= 0` of a new key are dropped too); an
//!     accepted row registers a timer at its own timestamp. ROWS retracts the
//!     oldest row once the frame holds `n + 1`; RANGE retracts every row more
//!     than `x` older than the firing timestamp, then accumulates the
//!     timestamp's rows and emits them with one value. RANGE also registers
//!     Flink's cleanup timer (`ts + 1.5·x + 1` whenever `ts + x + 1` passes
//!     the registered one); when the latest fires, the key's state is
//!     dropped (the next row of the key starts afresh, with
//!     `lastTriggeringTs` unset), and an outdated one still moves
//!     `lastTriggeringTs` when it fires.
//!
//! A watermark that does not advance is ignored (a Flink operator never sees
//! one). Late rows are counted ([`OverAggregate::late_dropped`], Flink's
//! `numLateRecordsDropped`). State retention (`minRetentionTime`) is off, as
//! in Flink's default.
//!
//! # Aggregates
//! The group aggregate's accumulators (`crate::group_agg`): COUNT,
//! COUNT(*), SUM, $SUM0, AVG, MIN, MAX, FIRST_VALUE, LAST_VALUE, any number
//! in one OVER. Unbounded frames use the append-only ones (Flink generates
//! the unbounded handler without retraction); bounded frames the retracting
//! ones (MIN/MAX over a value multiset, FIRST/LAST_VALUE over the value
//! history), as Flink's `needRetract()` handler does.
//!
//! # Memory
//! Keys are the partition key's Flink `BinaryRowData` bytes, borrowed from
//! the batch's [`KeyBlock`] for the probe and copied once, when a key enters
//! state (`store::KeyTable`: each key hashed once per row, its hash kept
//! beside it). A proctime running fold drives the accumulators straight over the
//! batch's columns and returns them as the output's input columns: a batch
//! whose keys are all in state allocates only its output arrays. Bounded
//! frames keep each key's rows (arrow-row bytes) in one reused buffer
//! (`state::Frame`); rows waiting for the watermark are in one
//! operator-wide buffer. Per-step plans (rows to decode, retracted rows
//! copied out of frames) live in a `bumpalo` arena reset every step.

#[cfg(feature = "public_imp")]
mod scalar_probe;
mod snap;
mod state;
mod step;
mod store;

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::{Field, Schema, SchemaRef};
use bumpalo::Bump;

use crate::agg::{refuse_filter_distinct, resolve, AggSpec};
use crate::error::{invalid_arg, Error, Result};
use crate::flink_hash::check_parallelism;
use crate::group_agg::drive::OutBuf;
use crate::group_agg::{check_schema, Aggregate};
use crate::key_encoder::{KeyBlock, KeyPlan};
use crate::payload::PayloadCodec;
use crate::row_kind::{check_kinds_len, RowKind};
use crate::rowtime::check_rowtime_column;
use crate::snapshot::{fnv1a, OpTag, SnapshotFormat};
use crate::state::Accounting;

use state::{KeyState, Pending};
use store::{KeyTable, Store};

/// The time attribute the OVER orders by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OverTime {
    /// An event-time column (Int64 or `Timestamp(Millisecond)`, epoch
    /// millis, NOT NULL as a Flink rowtime attribute is).
    RowTime {
        /// Column index in the input schema.
        column: usize,
    },
    /// Processing time: arrival order.
    ProcTime,
}

/// The frame, always ending at the current row.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OverFrame {
    /// `ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW`.
    RowsUnbounded,
    /// `RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW`.
    RangeUnbounded,
    /// `ROWS BETWEEN n PRECEDING AND CURRENT ROW` (`n + 1` rows).
    Rows(u64),
    /// `RANGE BETWEEN INTERVAL x PRECEDING AND CURRENT ROW`, `x` in
    /// milliseconds of the time attribute (event or processing time).
    Range(i64),
}

/// Options of [`OverAggregate`].
#[derive(Clone, Debug)]
pub struct OverOptions {
    /// ORDER BY time attribute.
    pub time: OverTime,
    /// The frame.
    pub frame: OverFrame,
    /// Flink max parallelism, for grouping snapshots by key group. Default 128.
    pub max_parallelism: i32,
    /// Retained-bytes budget; a key or row that would exceed it is an error.
    pub state_budget: Option<usize>,
}

impl OverOptions {
    /// `frame` ordered by `time`, default parallelism, no budget.
    pub fn new(time: OverTime, frame: OverFrame) -> Self {
        OverOptions { time, frame, max_parallelism: 128, state_budget: None }
    }
}

/// The Flink function an [`OverAggregate`] reproduces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Mode {
    /// `ProcTimeUnboundedPrecedingFunction`.
    ProcUnbounded,
    /// `ProcTimeRowsBoundedPrecedingFunction`, `precedingOffset` rows.
    ProcRows(u64),
    /// `RowTime{Rows,Range}UnboundedPrecedingFunction` (`range`: RANGE).
    RowUnbounded { range: bool },
    /// `RowTimeRowsBoundedPrecedingFunction`, `precedingOffset` rows.
    RowRows(u64),
    /// `RowTimeRangeBoundedPrecedingFunction`, `precedingOffset` millis.
    RowRange(i64),
    /// `ProcTimeRangeBoundedPrecedingFunction`, `precedingTimeBoundary` millis.
    ProcRange(i64),
}

/// A streaming OVER aggregate (see the module docs).
pub struct OverAggregate {
    schema: SchemaRef,
    output_schema: SchemaRef,
    partition_columns: Vec<usize>,
    key_plan: KeyPlan,
    opts: OverOptions,
    mode: Mode,
    format: SnapshotFormat,
    store: Store,
    outs: Vec<OutBuf>,
    block: KeyBlock,
    codec: PayloadCodec,
    arena: Bump,
    pending: Pending,
    /// Registered cleanup timers of every key (RANGE bounded rowtime):
    /// `(timestamp, slot, slot generation)`, earliest first.
    cleanup_heap: BinaryHeap<Reverse<(i64, u32, u32)>>,
    watermark: i64,
    /// The processing-time clock (`i64::MIN` until the caller first sets it).
    proc_time: i64,
    late: u64,
    owned_key_probe: bool,
    /// Benchmark-only scalar partition keys (`set_scalar_key_probe`).
    #[cfg(feature = "public_imp")]
    scalar_probe: Option<scalar_probe::ScalarProbe>,
    // Per-step buffers, reused.
    slots: Vec<u32>,
    ops: Vec<u8>,
    changed: Vec<bool>,
    out_rows: Vec<u32>,
    out_vals: Vec<u32>,
    ready: Vec<u32>,
    taken: Vec<bool>,
    dead: Vec<bool>,
}

impl OverAggregate {
    /// An OVER aggregate computing `aggs` over batches of `schema`,
    /// partitioned by `partition_columns` (empty: one partition, as Flink
    /// keys an OVER without PARTITION BY by the empty row).
    ///
    /// # Errors
    /// A column out of range; a rowtime column that is not Int64 or
    /// `Timestamp(Millisecond)`; a negative interval; an unsupported partition key or aggregate input type; bad
    /// max parallelism.
    pub fn new(
        schema: SchemaRef,
        partition_columns: Vec<usize>,
        aggs: Vec<AggSpec>,
        opts: OverOptions,
    ) -> Result<Self> {
        check_parallelism(opts.max_parallelism, 1)?;
        let mode = mode_of(&schema, &opts)?;
        let key_plan = KeyPlan::new(&schema, &partition_columns)?;
        let fields = schema.fields();
        refuse_filter_distinct(&aggs, "OVER")?;
        let resolved = aggs.iter().enumerate().map(|(i, a)| resolve(a, fields, i)).collect::<Result<Vec<_>>>()?;
        let retractable = matches!(mode, Mode::ProcRows(_) | Mode::RowRows(_) | Mode::RowRange(_) | Mode::ProcRange(_));
        let states: Vec<Aggregate> = resolved.iter().map(|r| Aggregate::new(r, retractable)).collect();
        let mut out_fields: Vec<Field> = fields.iter().map(|f| f.as_ref().clone()).collect();
        out_fields.extend(resolved.iter().map(|r| r.field.clone()));
        let fingerprint = fnv1a(
            format!("over|{fields:?}|{partition_columns:?}|{aggs:?}|{:?}|{:?}", opts.time, opts.frame).as_bytes(),
        );
        let key_fixed = std::mem::size_of::<KeyState>()
            + std::mem::size_of::<u32>()
            + states.iter().map(|a| a.acc.slot_bytes()).sum::<usize>();
        Ok(OverAggregate {
            output_schema: Arc::new(Schema::new(out_fields)),
            codec: PayloadCodec::new(schema.clone())?,
            schema,
            partition_columns,
            key_plan,
            format: SnapshotFormat { tag: OpTag::Over, max_parallelism: opts.max_parallelism, fingerprint },
            outs: states.iter().map(|_| OutBuf::default()).collect(),
            store: Store {
                map: KeyTable::default(),
                keys: Vec::new(),
                aggs: states,
                free: Vec::new(),
                key_fixed,
                acct: Accounting::new(opts.state_budget),
            },
            opts,
            mode,
            block: KeyBlock::new(),
            arena: Bump::new(),
            pending: Pending::default(),
            cleanup_heap: BinaryHeap::new(),
            watermark: i64::MIN,
            proc_time: i64::MIN,
            late: 0,
            owned_key_probe: false,
            #[cfg(feature = "public_imp")]
            scalar_probe: None,
            slots: Vec::new(),
            ops: Vec::new(),
            changed: Vec::new(),
            out_rows: Vec::new(),
            out_vals: Vec::new(),
            ready: Vec::new(),
            taken: Vec::new(),
            dead: Vec::new(),
        })
    }

    /// The schema of emitted batches: the input's fields, then one field per
    /// aggregate (named as the group aggregate names them, `sum_3`).
    pub fn output_schema(&self) -> SchemaRef {
        self.output_schema.clone()
    }

    /// The options.
    pub fn options(&self) -> &OverOptions {
        &self.opts
    }

    /// Partition keys in state.
    pub fn num_keys(&self) -> usize {
        self.store.map.len()
    }

    /// Rows waiting for the watermark (rowtime) or for their processing-time
    /// timer (proctime RANGE x PRECEDING).
    pub fn num_pending(&self) -> usize {
        self.pending.rows.len()
    }

    /// Rows dropped as late so far (Flink's `numLateRecordsDropped`).
    pub fn late_dropped(&self) -> u64 {
        self.late
    }

    /// The current watermark (`i64::MIN` before the first).
    pub fn watermark(&self) -> i64 {
        self.watermark
    }

    /// The processing-time clock (`i64::MIN` before the caller first sets it).
    pub fn processing_time(&self) -> i64 {
        self.proc_time
    }

    /// Whether [`advance_processing_time`](Self::advance_processing_time)
    /// can emit rows: proctime RANGE x PRECEDING, the one frame that fires
    /// on processing-time timers.
    pub fn fires_on_processing_time(&self) -> bool {
        matches!(self.mode, Mode::ProcRange(_))
    }

    /// Whether every [`process`](Self::process) emits each input row at
    /// once, in input order, followed by its aggregate values, and nothing
    /// else ever fires, while the state holds accumulators only (never the
    /// rows): proctime ROWS / RANGE UNBOUNDED PRECEDING
    /// (`ProcTimeUnboundedPrecedingFunction`). A caller that keeps its own
    /// input rows may then decode only the columns the aggregates and the
    /// partition read and take only the aggregate columns back. The bounded
    /// proctime ROWS frame also emits at once but stores its rows, and the
    /// other frames emit on timers.
    pub fn appends_at_once(&self) -> bool {
        matches!(self.mode, Mode::ProcUnbounded)
    }

    /// Retained state bytes (keys, accumulators, stored rows; an estimate
    /// that includes fixed per-entry overheads).
    pub fn size(&self) -> usize {
        self.store.acct.bytes
    }

    /// Benchmark-only: copy every probe key into a fresh `Vec<u8>` before
    /// probing (the owned-key behaviour the borrowed probe replaced), so the
    /// benches can compare both in one run.
    #[cfg(feature = "public_imp")]
    pub fn set_owned_key_probe(&mut self, on: bool) {
        self.owned_key_probe = on;
    }

    /// Benchmark-only: probe the proctime running fold's state through a
    /// per-row `Vec` of owned scalar key values (the key the OVER loops
    /// built before they probed borrowed bytes; see `over/scalar_probe.rs`),
    /// so the benches can compare both in one run.
    ///
    /// # Errors
    /// Any other OVER than the proctime running fold.
    #[cfg(feature = "public_imp")]
    pub fn set_scalar_key_probe(&mut self, on: bool) -> Result<()> {
        if !matches!(self.mode, Mode::ProcUnbounded) {
            return Err(invalid_arg("the scalar key probe is for the proctime running fold only"));
        }
        self.scalar_probe = on.then(scalar_probe::ScalarProbe::default);
        Ok(())
    }

    /// Whether the benchmark-only scalar key probe is on.
    #[cfg(feature = "public_imp")]
    fn probes_scalar_keys(&self) -> bool {
        self.scalar_probe.is_some()
    }

    #[cfg(not(feature = "public_imp"))]
    fn probes_scalar_keys(&self) -> bool {
        false
    }

    /// Processes one batch of `+I` rows: proctime emits every row with its
    /// aggregate values; rowtime buffers the rows (dropping late ones) and
    /// returns an empty batch; proctime RANGE x PRECEDING buffers them
    /// stamped with the current [processing time](Self::processing_time)
    /// and returns an empty batch.
    ///
    /// # Errors
    /// Schema or length mismatch; a row kind other than `+I`
    /// ([`Error::UnexpectedRowKind`]: OVER input is insert-only); a NULL
    /// rowtime; proctime RANGE before any processing time was given;
    /// [`Error::StateBudgetExceeded`] (the rows before the failing one are in
    /// state, the batch's output is lost: restore from a snapshot).
    pub fn process(&mut self, batch: &RecordBatch, row_kinds: &[RowKind]) -> Result<(RecordBatch, Vec<RowKind>)> {
        self.check_input(batch, row_kinds)?;
        if matches!(self.mode, Mode::ProcRange(_)) && self.proc_time == i64::MIN {
            return Err(invalid_arg(
                "a proctime RANGE OVER stamps rows with the processing time: give one first \
                 (advance_processing_time or process_at)",
            ));
        }
        if !self.probes_scalar_keys() {
            self.key_plan.fill(batch, &self.partition_columns, &mut self.block)?;
        }
        match self.mode {
            Mode::ProcUnbounded => self.proc_unbounded(batch),
            Mode::ProcRows(p) => self.proc_rows(batch, p),
            _ => {
                self.buffer(batch)?;
                Ok((RecordBatch::new_empty(self.output_schema.clone()), Vec::new()))
            }
        }
    }

    /// Advances the processing-time clock to `now` (epoch millis), then
    /// processes `batch` at that time: the rows the clock move fires, or the
    /// rows `batch` emits (at most one of the two is non-empty: only
    /// proctime RANGE x PRECEDING fires on processing time, and it emits
    /// nothing on arrival). The batch is checked before the clock moves.
    ///
    /// # Errors
    /// As [`process`](Self::process) and
    /// [`advance_processing_time`](Self::advance_processing_time).
    pub fn process_at(
        &mut self,
        batch: &RecordBatch,
        row_kinds: &[RowKind],
        now: i64,
    ) -> Result<(RecordBatch, Vec<RowKind>)> {
        self.check_input(batch, row_kinds)?;
        let fired = self.advance_processing_time(now)?;
        let emitted = self.process(batch, row_kinds)?;
        debug_assert!(fired.0.num_rows() == 0 || emitted.0.num_rows() == 0);
        Ok(if emitted.0.num_rows() > 0 { emitted } else { fired })
    }

    /// Advances the processing-time clock to `now` (epoch millis) and emits
    /// the buffered rows whose processing-time timers fire (proctime RANGE x
    /// PRECEDING; see the module docs). Other frames only record the time.
    /// A time at or before the current one sets the clock back and emits
    /// nothing.
    ///
    /// # Errors
    /// A stored row that does not decode (state restored from a damaged
    /// snapshot); string values over the i32 offset range.
    pub fn advance_processing_time(&mut self, now: i64) -> Result<(RecordBatch, Vec<RowKind>)> {
        let before = std::mem::replace(&mut self.proc_time, now);
        // Every timer is after the stamp that registered it, and each clock
        // move fired the timers it reached: a clock that does not pass its
        // previous time reaches no timer.
        if now <= before {
            return Ok((RecordBatch::new_empty(self.output_schema.clone()), Vec::new()));
        }
        match self.mode {
            Mode::ProcRange(_) => self.fire(now),
            _ => Ok((RecordBatch::new_empty(self.output_schema.clone()), Vec::new())),
        }
    }

    /// The checks of an input batch: schema, row kind count, insert-only.
    fn check_input(&self, batch: &RecordBatch, row_kinds: &[RowKind]) -> Result<()> {
        check_schema(&self.schema, batch)?;
        check_kinds_len(row_kinds, batch.num_rows())?;
        if let Some(row) = row_kinds.iter().position(|k| *k != RowKind::Insert) {
            return Err(Error::UnexpectedRowKind {
                row,
                kind: row_kinds[row].to_byte(),
                operator: "OverAggregate (insert-only input)",
            });
        }
        Ok(())
    }

    /// Advances the watermark to `watermark` and emits the buffered rows
    /// whose timers fire (rowtime; see the module docs). Proctime operators
    /// and a watermark at or below the current one emit nothing (a proctime
    /// operator's timers are processing-time ones).
    ///
    /// # Errors
    /// A stored row that does not decode (state restored from a damaged
    /// snapshot); string values over the i32 offset range.
    pub fn advance_watermark(&mut self, watermark: i64) -> Result<(RecordBatch, Vec<RowKind>)> {
        if watermark <= self.watermark {
            return Ok((RecordBatch::new_empty(self.output_schema.clone()), Vec::new()));
        }
        self.watermark = watermark;
        match self.mode {
            Mode::ProcUnbounded | Mode::ProcRows(_) | Mode::ProcRange(_) => {
                Ok((RecordBatch::new_empty(self.output_schema.clone()), Vec::new()))
            }
            _ => self.fire(watermark),
        }
    }
}

/// The Flink function of `opts` over `schema`.
fn mode_of(schema: &Schema, opts: &OverOptions) -> Result<Mode> {
    let rows = |n: u64| n.saturating_add(1);
    match opts.time {
        OverTime::ProcTime => match opts.frame {
            OverFrame::RowsUnbounded | OverFrame::RangeUnbounded => Ok(Mode::ProcUnbounded),
            OverFrame::Rows(n) => Ok(Mode::ProcRows(rows(n))),
            OverFrame::Range(x) if x < 0 => Err(invalid_arg(format!("RANGE interval {x} is negative"))),
            OverFrame::Range(x) => Ok(Mode::ProcRange(x)),
        },
        OverTime::RowTime { column } => {
            check_rowtime_column(schema, column, "a rowtime (Int64 or Timestamp(Millisecond))")?;
            match opts.frame {
                OverFrame::RowsUnbounded => Ok(Mode::RowUnbounded { range: false }),
                OverFrame::RangeUnbounded => Ok(Mode::RowUnbounded { range: true }),
                OverFrame::Rows(n) => Ok(Mode::RowRows(rows(n))),
                OverFrame::Range(x) if x < 0 => Err(invalid_arg(format!("RANGE interval {x} is negative"))),
                OverFrame::Range(x) => Ok(Mode::RowRange(x)),
            }
        }
    }
}
