//! The keyed operators of `sluice-keyed` behind one Rust type, for every
//! binding (the C ABI, the JNI layer) and for Rust callers.
//!
//! * [`spec`]: the one-line text grammar that names an operator and its
//!   options (`group_agg keys=0 aggs=count(*),sum(2)`), parsed with errors
//!   that name the offending text.
//! * [`KeyedOperator`]: create from (input schema, spec), push changelog
//!   batches, advance the watermark, snapshot by Flink key group (one blob,
//!   or one blob per key group in one pass), restore, drop.
//! * [`JoinOperator`]: the two-input updating join (`join type=inner
//!   left_keys=0 right_keys=0`, grammar in [`join`]), pushed per side.
//! * [`KeyedRowOperator`]: the same operator between an entry transpose
//!   (Flink `BinaryRowData` rows in heap segments to an Arrow batch plus
//!   RowKinds) and an exit transpose (the emitted changelog back to rows):
//!   what a Flink subtask drives; optionally emitting only the columns an
//!   operator appends to its input rows ([`appended`]).
//! * [`JoinRowOperator`]: the join between two entry transposes and an exit
//!   transpose, what a Flink join subtask drives.
//! * [`KeyedState`]: the key-group snapshot / restore API that
//!   [`KeyedOperator`] and [`JoinOperator`] share, for bindings that write
//!   those entry points once.
//!
//! Key groups are Flink's (`KeyGroupRangeAssignment` over the
//! `BinaryRowData` key of the key columns, `max_parallelism=` of the spec),
//! so the blobs of a key-group range are what a Flink task of that range
//! owns.

pub mod appended;
pub mod join;
pub mod join_rows;
pub mod operator;
pub mod rows;
pub mod spec;
pub mod state;

pub use appended::AppendedShape;
pub use join::{parse_join, JoinOperator};
pub use join_rows::{JoinRowOperator, RowSchema};
pub use operator::{KeyedOperator, Operator};
pub use rows::KeyedRowOperator;
pub use spec::{OperatorSpec, SpecKind};
pub use state::KeyedState;

#[cfg(test)]
mod appended_tests;
#[cfg(test)]
mod join_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod window_tests;
