//! Flink SQL key bytes: the `BinaryRowData` projection of the key columns.
//!
//! Flink SQL keys every keyed operator and hash exchange with
//! `KeySelectorUtil.getRowDataSelector`, whose generated projection writes the
//! key fields in order with `BinaryRowWriter` after `reset()` — so the header
//! byte (RowKind) is always 0 — and returns a `BinaryRowData`
//! (`BinaryRowDataKeySelector.java`). State and key groups are both derived
//! from those bytes, so a native operator that must agree with Flink on key
//! groups must produce the same bytes.
//!
//! # The seam
//! [`KeyEncoder`] is the seam between the operators and the row writers: an
//! encoder is built once per batch (schema walk and column downcasts happen
//! there) and then appends one key row per call into a caller-owned,
//! reused buffer. Two writers sit behind it:
//!
//! - [`FlinkKeyEncoder`], this crate's columnar writer, for the compact key
//!   types: Boolean (BOOLEAN), Int8/16/32/64 (TINYINT/SMALLINT/INT/BIGINT),
//!   Float32/64 (FLOAT/DOUBLE, raw bits as `BinaryRowWriter` stores them),
//!   Date32 (DATE), Time32 ms (TIME), Timestamp ms (TIMESTAMP(3), compact
//!   millis), Decimal128 with precision ≤ 18 (compact DECIMAL, unscaled i64),
//!   Utf8/LargeUtf8/Utf8View (VARCHAR), Binary/LargeBinary/BinaryView
//!   (VARBINARY). It refuses every other type with an
//!   [`Error::UnsupportedType`](crate::Error::UnsupportedType) rather than
//!   write different bytes.
//! - [`TransposeKeyEncoder`], `sluice-transpose`'s `BinaryRowData` key writer,
//!   for every type transpose maps to Flink (TIME(p), TIMESTAMP(0/6/9),
//!   DECIMAL(p > 18), ARRAY, MAP, ROW, ...), with
//!   [`NullLayout::Projection`](sluice_transpose::NullLayout): a NULL of a
//!   non-compact DECIMAL or TIMESTAMP keeps its reserved zero bytes in the
//!   variable part, as the planner's key projection (codegen) writes it and
//!   unlike `RowDataSerializer.toBinaryRow`, so bytes, hash and key group match
//!   the projection Flink keys by.
//!
//! The operators pick per key schema (`KeyPlan`): the columnar writer when it
//! covers every key column, else the transpose writer over the projected key
//! columns.
//!
//! # Layout
//! - `encoder`: the [`KeyEncoder`] trait;
//! - `flink`: [`FlinkKeyEncoder`], the row writer, its row-format limits
//!   ([`null_bits_width`], the in-row offset limit), and the column downcasts;
//! - `transpose`: [`TransposeKeyEncoder`];
//! - `plan`: `KeyPlan`, the choice between the two per key schema;
//! - `block`: [`KeyBlock`], one batch's keys, filled row at a time or, from a
//!   [`FlinkKeyEncoder`], column at a time with the helpers of `columnar`.

mod block;
mod columnar;
mod encoder;
mod flink;
mod plan;
mod transpose;

pub use block::KeyBlock;
pub use encoder::KeyEncoder;
pub use flink::{null_bits_width, FlinkKeyEncoder};
pub(crate) use plan::KeyPlan;
pub use transpose::TransposeKeyEncoder;

#[cfg(test)]
mod tests;
