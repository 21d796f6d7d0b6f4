//! The operators C and Java bind to, as plain Rust.
//!
//! `sluice-engine` sits between the building blocks (`sluice-kernels`,
//! `sluice-transpose`, `sluice-keyed`) and the bindings (`sluice-ffi`: the C
//! ABI and the JNI entry points of the Flink jar). Everything here takes and
//! returns Rust values; pointers, Java arrays and ownership rules live in
//! the bindings, so Rust programs, fuzz targets and every binding run the
//! same code.
//!
//! * [`calc`]: a native Calc, a projection list of string functions
//!   compiled once ([`CalcProgram`]) and evaluated over batches of Flink
//!   rows or columns.
//! * [`keyed`]: the keyed operators (group aggregate, changelog normalize,
//!   deduplicate) created from a one-line spec ([`KeyedOperator`] over Arrow
//!   batches, [`KeyedRowOperator`] over Flink rows), with Flink key-group
//!   snapshots.
//! * [`function`]: the string functions, their Flink output types, and the
//!   call into the kernels.
//! * [`flink_type`]: Flink types carried as Arrow field metadata.
//! * [`Error`]: the one error type.

pub mod calc;
pub mod error;
pub mod flink_type;
pub mod function;
pub mod keyed;

pub use calc::CalcProgram;
pub use error::{Error, Result};
pub use keyed::{KeyedOperator, KeyedRowOperator};
