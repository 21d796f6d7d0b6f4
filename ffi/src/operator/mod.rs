//! The keyed operators of `sluice-keyed` behind one Rust type, for every
//! binding (the C ABI's `sluice_keyed_*`, a JNI layer).
//!
//! * [`spec`]: the one-line text grammar that names an operator and its
//!   options (`group_agg keys=0 aggs=count(*),sum(2)`), parsed with errors
//!   that name the offending text.
//! * [`KeyedOperator`]: create from (input schema, spec), push changelog
//!   batches, advance the watermark, snapshot by Flink key group (one blob,
//!   or one blob per key group in one pass), restore, drop.
//!
//! Key groups are Flink's (`KeyGroupRangeAssignment` over the
//! `BinaryRowData` key of the key columns, `max_parallelism=` of the spec),
//! so the blobs of a key-group range are what a Flink task of that range
//! owns.

pub mod handle;
pub mod spec;

pub use handle::{KeyedOperator, Operator};
pub use spec::{OperatorSpec, SpecKind};

#[cfg(test)]
mod tests;
