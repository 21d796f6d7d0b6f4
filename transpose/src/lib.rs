//! Flink `BinaryRowData` ⇄ Arrow `RecordBatch`, byte-exact with Flink.
//!
//! Flink keeps SQL rows as `BinaryRowData`: a RowKind byte, null bits,
//! one 8-byte slot per field and a variable part. sluice-transpose turns a
//! batch of such rows into an Arrow [`RecordBatch`](arrow_array::RecordBatch)
//! (the *entry* transpose) and back (the *exit* transpose), and encodes
//! key columns as Flink's key `BinaryRowData` for hashing.
//!
//! * [`RowConverter`] — built once per schema (arrow-row style):
//!   [`RowConverter::rows_to_batch`], [`RowConverter::rows_to_batch_segments`]
//!   (+ `_into` variants writing RowKinds into a caller slice),
//!   [`RowConverter::batch_to_rows`] with a [`NullLayout`].
//! * [`KeyEncoder`] — columns of row *i* as a key row into a reused buffer.
//! * [`reader`] — a validating, zero-copy reader over one row / array / map.
//! * [`FlinkType`] — Flink logical types, parsed from and printed as
//!   `LogicalType.asSerializableString()`; carried in Arrow field metadata
//!   under [`FLINK_TYPE_KEY`] (`flink.type`).
//!
//! Every offset and length read from a row is checked against the row's
//! size: a malformed row is an [`Error`] naming the row and the field, never
//! a panic or undefined behaviour. String bytes are copied exactly once
//! (row → Arrow values buffer on entry, Arrow → row buffer on exit), and no
//! allocation happens per row.
//!
//! # Byte order
//! Flink's format is native-endian; sluice reads and writes little-endian,
//! which is what every x86-64 and aarch64 JVM writes. Big-endian hosts are
//! unsupported.
//!
//! # Type mapping
//!
//! As flink-python's `ArrowUtils` (`LogicalTypeToArrowTypeConverter`,
//! `ArrowWriter`s, `Arrow*ColumnVector`s). With `flink.type` metadata on a
//! field the Flink type rules; without it the Arrow type decides (right
//! column).
//!
//! | Flink type | Arrow type produced | row slot | Arrow type without `flink.type` → Flink |
//! | --- | --- | --- | --- |
//! | BOOLEAN | Boolean | byte | Boolean → BOOLEAN |
//! | TINYINT / SMALLINT / INT / BIGINT | Int8 / Int16 / Int32 / Int64 | LE int | same |
//! | FLOAT / DOUBLE | Float32 / Float64 (raw bits kept) | LE bits | same |
//! | DECIMAL(p, s) | Decimal128(p, s); a value that does not fit p becomes NULL (`DecimalData.fromBigDecimal`) | p ≤ 18: unscaled i64; else 16 reserved bytes, big-endian minimal two's complement | Decimal128(p, s) → DECIMAL(p, s) |
//! | CHAR(n) / VARCHAR(n) | Utf8 (no padding) | ≤ 7 bytes inline, else var part | Utf8 / LargeUtf8 / Utf8View → VARCHAR(2147483647) |
//! | BINARY(n) | FixedSizeBinary(n) | as strings | FixedSizeBinary(n) → BINARY(n) |
//! | VARBINARY(n) | Binary | as strings | Binary / LargeBinary / BinaryView → VARBINARY(2147483647) |
//! | DATE | Date32 | i32 days | Date32 → DATE |
//! | TIME(0) | Time32(Second) = ms / 1000 | i32 ms of day | Time32(s) → TIME(0) |
//! | TIME(1..=3) | Time32(Millisecond) | | Time32(ms) → TIME(3) |
//! | TIME(4..=6) | Time64(Microsecond) = ms · 1000 | | Time64(µs) → TIME(6) |
//! | TIME(7..=9) | Time64(Nanosecond) = ms · 10⁶ | | Time64(ns) → TIME(9) |
//! | TIMESTAMP(p) | Timestamp(unit(p), None): p = 0 s (ms / 1000, truncating), 1..=3 ms, 4..=6 µs, 7..=9 ns | p ≤ 3: epoch ms; else (offset, nano-of-ms) + 8-byte ms | Timestamp(unit, None) → TIMESTAMP(0/3/6/9) |
//! | TIMESTAMP(p) WITH LOCAL TIME ZONE | same as TIMESTAMP(p) (time zone None, like Flink) | same | Timestamp(unit, Some(_)) → TIMESTAMP_LTZ(0/3/6/9) |
//! | ARRAY&lt;T&gt; | List, child `element` | BinaryArrayData | List / LargeList → ARRAY |
//! | MAP&lt;K, V&gt; | Map(keysSorted = false), `items`: Struct(`key` non-null, `value`) | BinaryMapData | Map → MAP |
//! | ROW&lt;...&gt; | Struct, children named after the fields | nested BinaryRowData | Struct → ROW |
//!
//! Deviations from `ArrowUtils`, each where Flink itself fails: a MAP whose
//! key type is nullable is accepted (Flink's Arrow path refuses the schema);
//! only an actual NULL key is an error. Arrow → Flink timestamps use floor
//! division, so pre-1970 sub-millisecond values read correctly where
//! Flink's truncating division yields a negative nano-of-millisecond that
//! `TimestampData` rejects. Timestamps that overflow i64 in the Arrow unit
//! are an error, not a silent wrap. The RowKind byte of a nested row is
//! checked but not kept (Arrow has nowhere to put it); written nested rows
//! carry `+I`.
//!
//! # Performance
//!
//! Entry checks each block of up to 256 rows once (bounds, fixed part,
//! RowKind; a contiguous batch's offsets are checked inside the presizing
//! pass below, so they are read once for both), prefetching every cache
//! line of the rows ahead. The flat top-level columns (fixed-width
//! numbers, strings, binaries) then run one loop each over the block that
//! checks and writes at once into reserved capacity, committed only when
//! the whole block passed; a block that fails, and every other column, goes
//! through the checked per-column path, which names the bad row and field.
//! A row-major sweep (each row's slots read once, every column written per
//! row) measured slower than the per-column loops. String bytes go
//! from the row into the Arrow values buffer (short ones without a
//! `memcpy` call), validated as UTF-8 in 64 KiB chunks while still in
//! cache. Value buffers of top-level strings are sized by a first pass over
//! the slots (`ValuesSizing::ExactPass`, the default; one pass sums up to
//! four string columns), so each is allocated once at its final size and
//! every string byte is written exactly once. Growing geometrically instead
//! (`ValuesSizing::Geometric`: no first pass, re-copies on growth)
//! measured slower and is kept only as a benchmark option. Exit writes a
//! flat batch into one buffer sized exactly by a first pass over
//! the string offsets, with unchecked stores at precomputed slot positions
//! (other batches: fixed parts and padding with word stores into a buffer
//! sized from the input value buffers). Neither direction allocates per
//! row. Benchmarks: `benches/benches/transpose.rs`; figures in
//! `benches/RESULTS.md` ("Transpose").
//!
//! # Lazy Java strings
//! [`lazy_strings`]: CHAR / VARCHAR columns delivered as UTF-16 (what a JNI
//! caller holding `java.lang.String`s has) go through `sluice_kernels::encode`
//! and its repeated-value cache into the same `Utf8` column
//! ([`RowConverter::rows_to_batch_with_utf16`], [`RowConverter::utf16_column`]).

mod converter;
mod copy;
mod entry;
mod error;
mod exit;
mod key;
pub mod layout;
pub mod lazy_strings;
pub mod reader;
mod row_kind;
mod types;

pub use converter::RowConverter;
#[cfg(feature = "public_imp")]
pub use converter::ValuesSizing;
pub use entry::RowAddress;
pub use error::{Error, Result};
pub use exit::{NullLayout, Rows};
pub use key::{BoundKeyEncoder, KeyEncoder};
pub use row_kind::RowKind;
pub use types::{FlinkType, RowField, TypeKind, FLINK_TYPE_KEY, MAX_LENGTH};
