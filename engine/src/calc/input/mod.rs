//! The three ways a [`CalcProgram`](super::CalcProgram) takes its input
//! batch; each decodes into the same Arrow batch and ends in the same
//! evaluation and exit transpose.
//!
//! * [`rows`]: Flink `BinaryRowData` rows in heap segments (how Java's
//!   `io.sluice.jni.RowBatch` hands them over). Only the fields the
//!   expressions read are decoded.
//! * [`utf16`]: the same rows, with CHAR / VARCHAR fields whose values
//!   arrive as UTF-16 code units (a lazy `BinaryStringData` still holding a
//!   `java.lang.String`), encoded through a per-field cache.
//! * [`columns`]: the fields the program reads as plain arrays, borrowed
//!   without copying (Java's `io.sluice.jni.ColumnBatch`).

pub mod columns;
pub mod rows;
pub mod utf16;
