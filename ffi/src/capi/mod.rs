//! The C ABI: one module per C concept, after rustls-ffi.
//!
//! The helpers come first: [`error`] (stable codes, `sluice_last_error`,
//! the one mapping of engine errors to codes), `panic` (the boundary
//! macros), [`arrow_c`] (taking and giving C Data Interface structs; [`byte_import`]
//! its direct import of the byte-array layouts),
//! [`args`] (the one argument importer and offsets validator). Then one
//! module per function family: [`buffer`], [`concat`](mod@concat), [`digest`],
//! [`encode`], [`join`], [`key_groups`], [`keyed_operator`], [`row_converter`],
//! [`rows`], [`search`], [`version`]. Each entry point checks and imports its
//! C arguments and calls `sluice-engine` (or, for the row and key-group
//! conversions, `sluice-transpose` and `sluice-keyed`); no operator logic
//! lives here.

#[macro_use]
pub(crate) mod panic;

pub mod args;
pub mod arrow_c;
pub mod buffer;
pub mod byte_import;
pub mod concat;
pub mod digest;
pub mod encode;
pub mod error;
pub(crate) mod handle;
pub mod join;
pub mod key_groups;
pub mod keyed_operator;
pub mod row_converter;
pub mod rows;
pub mod search;
pub mod validate;
pub mod version;

// mimalloc's purge delay, set once at load (see the module docs).
#[cfg(all(feature = "mimalloc", target_os = "linux"))]
mod alloc_policy;

#[cfg(test)]
mod tests;
