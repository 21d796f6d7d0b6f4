//! Plain rows for the keyed-operator models (`topn_model`, `over_model`,
//! `join_model`): batches of BIGINT and VARCHAR columns built from
//! [`Cell`]s and read back into them, the snapshot damage every model
//! target (and `keyed_snapshot`) applies before a restore that must fail
//! cleanly or succeed, never panic, and the snapshot round trip
//! ([`restored`]) each model target makes mid-stream.

use std::sync::Arc;

use arbitrary::Arbitrary;
use arrow_array::cast::AsArray;
use arrow_array::types::{Int64Type, TimestampMillisecondType};
use arrow_array::{Array, ArrayRef, Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType, SchemaRef, TimeUnit};
use sluice_keyed::{KeyGroupRange, OverAggregate, RowKind, StreamingJoin, TopN};

/// One value of a row: NULL, a BIGINT (or millisecond timestamp) or a VARCHAR.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Cell {
    /// SQL NULL.
    Null,
    /// A BIGINT or a millisecond timestamp.
    I(i64),
    /// A VARCHAR.
    S(String),
}

impl Cell {
    /// `Some(v)` → `I(v)`, `None` → `Null`.
    pub fn int(v: Option<i64>) -> Cell {
        v.map_or(Cell::Null, Cell::I)
    }

    /// `Some(s)` → `S(s)`, `None` → `Null`.
    pub fn text(s: Option<&str>) -> Cell {
        s.map_or(Cell::Null, |s| Cell::S(s.to_string()))
    }
}

/// A row of cells.
pub type Row = Vec<Cell>;
/// One changelog record.
pub type Change = (RowKind, Row);

/// A batch of `schema` (Int64, Utf8 or Timestamp(Millisecond) fields) holding `rows`.
///
/// # Panics
/// On a cell that does not fit its field (a bug in the calling model).
pub fn batch_of(schema: &SchemaRef, rows: &[Row]) -> RecordBatch {
    let cols: Vec<ArrayRef> = schema
        .fields()
        .iter()
        .enumerate()
        .map(|(c, f)| {
            let ints = || {
                rows.iter().map(|r| match &r[c] {
                    Cell::I(v) => Some(*v),
                    Cell::Null => None,
                    other => panic!("{other:?} in the integer column {c}"),
                })
            };
            match f.data_type() {
                DataType::Int64 => Arc::new(ints().collect::<Int64Array>()) as ArrayRef,
                DataType::Timestamp(TimeUnit::Millisecond, None) => {
                    Arc::new(ints().collect::<arrow_array::TimestampMillisecondArray>())
                }
                DataType::Utf8 => Arc::new(
                    rows.iter()
                        .map(|r| match &r[c] {
                            Cell::S(s) => Some(s.as_str()),
                            Cell::Null => None,
                            other => panic!("{other:?} in the string column {c}"),
                        })
                        .collect::<StringArray>(),
                ),
                other => panic!("rows::batch_of does not write {other}"),
            }
        })
        .collect();
    RecordBatch::try_new(schema.clone(), cols).expect("a batch of the model's rows")
}

/// The rows of `batch` as cells (Int64, Utf8 and Timestamp(Millisecond) columns).
pub fn rows_of(batch: &RecordBatch) -> Vec<Row> {
    (0..batch.num_rows())
        .map(|i| {
            batch
                .columns()
                .iter()
                .map(|c| {
                    if c.is_null(i) {
                        return Cell::Null;
                    }
                    match c.data_type() {
                        DataType::Int64 => Cell::I(c.as_primitive::<Int64Type>().value(i)),
                        DataType::Timestamp(TimeUnit::Millisecond, _) => {
                            Cell::I(c.as_primitive::<TimestampMillisecondType>().value(i))
                        }
                        DataType::Utf8 => Cell::S(c.as_string::<i32>().value(i).to_string()),
                        other => panic!("an operator emitted a {other} column"),
                    }
                })
                .collect()
        })
        .collect()
}

/// An operator's output as a changelog.
pub fn changes_of(out: &(RecordBatch, Vec<RowKind>)) -> Vec<Change> {
    assert_eq!(out.0.num_rows(), out.1.len(), "one RowKind per emitted row");
    out.1.iter().copied().zip(rows_of(&out.0)).collect()
}

/// FNV-1a 64, the snapshot checksum (offset basis 0xcbf29ce484222325,
/// prime 0x100000001b3), written plainly.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf29ce484222325, |h, b| (h ^ u64::from(*b)).wrapping_mul(0x100000001b3))
}

/// Damage done to a valid snapshot: bytes flipped, the tail cut, bytes
/// appended before the trailing checksum, which is recomputed when asked so
/// that the damage reaches the entry parser.
#[derive(Arbitrary, Debug, Clone, Default)]
pub struct Damage {
    /// `(position mod length, xor mask)`.
    pub flips: Vec<(u16, u8)>,
    /// Odd: cut `cut / 2` bytes off the end.
    pub cut: u8,
    /// Bytes appended before the checksum is (maybe) recomputed.
    pub extra: Vec<u8>,
    /// Recompute the checksum after the damage.
    pub fix_checksum: bool,
}

impl Damage {
    /// `snap` with the damage applied.
    pub fn apply(&self, snap: &[u8]) -> Vec<u8> {
        let mut bytes = snap.to_vec();
        if !bytes.is_empty() {
            for (at, x) in &self.flips {
                let i = usize::from(*at) % bytes.len();
                bytes[i] ^= x;
            }
        }
        if self.cut % 2 == 1 {
            bytes.truncate(bytes.len().saturating_sub(usize::from(self.cut / 2)));
        }
        if self.fix_checksum && bytes.len() >= 8 {
            let body = bytes.len() - 8;
            bytes.truncate(body);
            bytes.extend_from_slice(&self.extra);
            let sum = fnv1a(&bytes);
            bytes.extend_from_slice(&sum.to_le_bytes());
        }
        bytes
    }
}

/// Runs `f` (a restore of damaged bytes) with the panic hook silenced, and
/// panics afresh if a panic escapes it.
///
/// The keyed operators decode each restored payload row with arrow-row
/// under `catch_unwind` (`sluice_keyed`'s `payload.rs`: arrow-row panics
/// rather than erroring on foreign bytes) and turn a caught panic into
/// `CorruptSnapshot`. libFuzzer's panic hook aborts the process on every
/// panic, caught or not, so it would count that designed error path as a
/// crash; silenced here, only a panic that escapes the operator fails the
/// check.
pub fn with_caught_panics_silenced<T>(f: impl FnOnce() -> T) -> T {
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    std::panic::set_hook(hook);
    match out {
        Ok(v) => v,
        Err(p) => {
            let msg = p.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| p.downcast_ref::<String>().cloned());
            panic!("a panic escaped restore: {}", msg.unwrap_or_default())
        }
    }
}

/// Every key group of the default max parallelism (128).
pub const ALL: KeyGroupRange = KeyGroupRange::new(0, 127);

/// The snapshot calls the model targets make of a keyed operator, over
/// every key group.
pub trait Snapshots: Sized {
    /// `snapshot(ALL)`.
    fn snapshot_all(&self) -> Vec<u8>;
    /// `restore(bytes, ALL)` succeeded.
    fn restore_all(&mut self, bytes: &[u8]) -> bool;
    /// The operator's state counters (keys, rows, bytes), printed.
    fn state(&self) -> String;
}

macro_rules! snapshots {
    ($($op:ty => |$o:ident| $state:expr;)*) => {$(
        impl Snapshots for $op {
            fn snapshot_all(&self) -> Vec<u8> {
                self.snapshot(ALL).expect("snapshot")
            }
            fn restore_all(&mut self, bytes: &[u8]) -> bool {
                self.restore(bytes, ALL).is_ok()
            }
            fn state(&self) -> String {
                let $o = self;
                format!("{:?}", $state)
            }
        }
    )*};
}

snapshots! {
    TopN => |o| (o.num_partitions(), o.num_rows(), o.size());
    OverAggregate => |o| (o.num_keys(), o.num_pending(), o.size());
    StreamingJoin => |o| (o.num_keys(), o.size());
}

/// A fresh operator restored from `op`'s snapshot, with the same state
/// counters. On the way, the snapshot with `damage` goes into another fresh
/// operator (success, or an error that leaves it as fresh; never a panic)
/// and `raw` into a third (an error unless empty).
pub fn restored<O: Snapshots>(op: &O, fresh: &dyn Fn() -> O, damage: &Damage, raw: &[u8]) -> O {
    let snap = op.snapshot_all();
    let mut again = fresh();
    assert!(again.restore_all(&snap), "restore of a fresh snapshot");
    assert_eq!(again.state(), op.state(), "state after restore");
    let bytes = damage.apply(&snap);
    let mut damaged = fresh();
    if !with_caught_panics_silenced(|| damaged.restore_all(&bytes)) {
        assert_eq!(damaged.state(), fresh().state(), "a failed restore leaves no state");
    }
    assert!(!fresh().restore_all(raw) || raw.is_empty(), "arbitrary bytes restored: {raw:?}");
    again
}
