//! Differential checks behind sluice's fuzz targets.
//!
//! Each `fuzz_targets/<name>.rs` is one line: decode an [`arbitrary`] input
//! and call `<name>::check`. The checks live here, in a library, so that a
//! crash input becomes an ordinary regression test in `tests/` that
//! `cargo test` runs without libFuzzer. Every check compares a sluice kernel
//! against an independent reference written plainly in the module (or an
//! established crate), and panics on any difference.

pub mod arrays;
pub mod byte_column;
pub mod calc;
pub mod concat;
pub mod digest;
pub mod encode_cache;
pub mod encode_utf16;
pub mod join;
pub mod key_groups;
pub mod keyed_snapshot;
pub mod multibuffer;
pub mod operator_spec;
pub mod over;
pub mod rows;
pub mod search;
pub mod text;
pub mod topn;
pub mod transpose;
pub mod window;
