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
//!   [`Error::UnsupportedType`] rather than write different bytes.
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

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Date32Type, Decimal128Type, Float32Type, Float64Type, Int16Type, Int32Type, Int64Type, Int8Type,
    Time32MillisecondType, TimestampMillisecondType,
};
use arrow_array::{
    Array, ArrayRef, BinaryViewArray, BooleanArray, GenericBinaryArray, GenericStringArray, StringViewArray,
};
use arrow_buffer::{ArrowNativeType, NullBuffer};
use arrow_schema::{DataType, TimeUnit};

use crate::error::{invalid_arg, Error, Result};

/// Appends encoded key rows for the rows of one batch.
///
/// Implementations do all per-batch work (type dispatch, downcasts) when they
/// are built, so that [`encode_row`](KeyEncoder::encode_row) is a tight loop
/// with no allocation other than the amortised growth of `out`.
pub trait KeyEncoder {
    /// Rows in the batch this encoder reads.
    fn num_rows(&self) -> usize;

    /// Appends the key bytes of row `row` to `out` (without clearing it).
    ///
    /// # Errors
    /// `row` out of range, or a value the format cannot hold.
    fn encode_row(&self, row: usize, out: &mut Vec<u8>) -> Result<()>;
}

/// The number of null-bit bytes of a `BinaryRowData` of `arity` fields
/// (`BinaryRowData.calculateBitSetWidthInBytes`, 8 header bits included).
pub const fn null_bits_width(arity: usize) -> usize {
    (arity + 63 + 8) / 64 * 8
}

/// Flink's limit for an in-row offset (31 usable bits).
const MAX_ROW_BYTES: usize = i32::MAX as usize;

enum Col<'a> {
    Bool(&'a BooleanArray),
    I8(&'a [i8]),
    I16(&'a [i16]),
    I32(&'a [i32]),
    I64(&'a [i64]),
    F32(&'a [f32]),
    F64(&'a [f64]),
    Dec(&'a [i128]),
    Utf8(&'a GenericStringArray<i32>),
    LargeUtf8(&'a GenericStringArray<i64>),
    Utf8View(&'a StringViewArray),
    Bin(&'a GenericBinaryArray<i32>),
    LargeBin(&'a GenericBinaryArray<i64>),
    BinView(&'a BinaryViewArray),
}

struct KeyCol<'a> {
    col: Col<'a>,
    nulls: Option<&'a NullBuffer>,
}

impl KeyCol<'_> {
    /// Whether row `i` is non-NULL.
    #[inline(always)]
    fn valid(&self, i: usize) -> bool {
        self.nulls.is_none_or(|n| n.is_valid(i))
    }

    /// Whether the column is a string or binary (a variable-width field).
    fn is_var(&self) -> bool {
        matches!(
            self.col,
            Col::Utf8(_) | Col::LargeUtf8(_) | Col::Utf8View(_) | Col::Bin(_) | Col::LargeBin(_) | Col::BinView(_)
        )
    }
}

/// Flink `BinaryRowData` key rows (projection layout, RowKind 0) for the key
/// columns of one batch.
///
/// ```
/// # use std::sync::Arc;
/// # use arrow_array::{ArrayRef, Int32Array};
/// use sluice_keyed::{FlinkKeyEncoder, KeyEncoder};
/// let cols: Vec<ArrayRef> = vec![Arc::new(Int32Array::from(vec![42]))];
/// let enc = FlinkKeyEncoder::try_new(&cols, &[0]).unwrap();
/// let mut out = Vec::new();
/// enc.encode_row(0, &mut out).unwrap();
/// // Flink's BinaryRowWriter output for INT 42: 8 null-bit bytes, then the slot
/// assert_eq!(out, [0, 0, 0, 0, 0, 0, 0, 0, 0x2a, 0, 0, 0, 0, 0, 0, 0]);
/// ```
pub struct FlinkKeyEncoder<'a> {
    cols: Vec<KeyCol<'a>>,
    num_rows: usize,
    nb: usize,
    fixed: usize,
}

impl<'a> FlinkKeyEncoder<'a> {
    /// Builds the encoder for `key_columns` (indices into `columns`, in key
    /// order; repeats allowed, as Flink allows them).
    ///
    /// # Errors
    /// An index out of range, columns of different lengths, or an
    /// unsupported key type ([`Error::UnsupportedType`]).
    pub fn try_new(columns: &'a [ArrayRef], key_columns: &[usize]) -> Result<Self> {
        let num_rows = columns.first().map_or(0, |c| c.len());
        let mut cols = Vec::with_capacity(key_columns.len());
        for &k in key_columns {
            let a = columns
                .get(k)
                .ok_or_else(|| invalid_arg(format!("key column {k} out of range ({} columns)", columns.len())))?;
            if a.len() != num_rows {
                return Err(invalid_arg(format!("column {k} has {} rows, expected {num_rows}", a.len())));
            }
            cols.push(KeyCol { col: downcast(a.as_ref(), k)?, nulls: a.nulls() });
        }
        let arity = cols.len();
        let nb = null_bits_width(arity);
        Ok(FlinkKeyEncoder { cols, num_rows, nb, fixed: nb + 8 * arity })
    }

    /// Size of the fixed part of every key row (null bits + slots).
    pub fn fixed_size(&self) -> usize {
        self.fixed
    }

    /// Whether every key row has the same size (no variable-length fields).
    pub fn is_fixed_width(&self) -> bool {
        !self.cols.iter().any(KeyCol::is_var)
    }
}

pub(crate) fn is_supported_key_type(dt: &DataType) -> bool {
    matches!(
        dt,
        DataType::Boolean
            | DataType::Int8
            | DataType::Int16
            | DataType::Int32
            | DataType::Int64
            | DataType::Float32
            | DataType::Float64
            | DataType::Date32
            | DataType::Time32(TimeUnit::Millisecond)
            | DataType::Timestamp(TimeUnit::Millisecond, _)
            | DataType::Utf8
            | DataType::LargeUtf8
            | DataType::Utf8View
            | DataType::Binary
            | DataType::LargeBinary
            | DataType::BinaryView
    ) || matches!(dt, DataType::Decimal128(p, _) if *p <= 18)
}

fn downcast(a: &dyn Array, column: usize) -> Result<Col<'_>> {
    Ok(match a.data_type() {
        DataType::Boolean => Col::Bool(a.as_boolean()),
        DataType::Int8 => Col::I8(a.as_primitive::<Int8Type>().values()),
        DataType::Int16 => Col::I16(a.as_primitive::<Int16Type>().values()),
        DataType::Int32 => Col::I32(a.as_primitive::<Int32Type>().values()),
        DataType::Date32 => Col::I32(a.as_primitive::<Date32Type>().values()),
        DataType::Time32(TimeUnit::Millisecond) => Col::I32(a.as_primitive::<Time32MillisecondType>().values()),
        DataType::Int64 => Col::I64(a.as_primitive::<Int64Type>().values()),
        DataType::Timestamp(TimeUnit::Millisecond, _) => {
            Col::I64(a.as_primitive::<TimestampMillisecondType>().values())
        }
        DataType::Float32 => Col::F32(a.as_primitive::<Float32Type>().values()),
        DataType::Float64 => Col::F64(a.as_primitive::<Float64Type>().values()),
        DataType::Decimal128(p, _) if *p <= 18 => Col::Dec(a.as_primitive::<Decimal128Type>().values()),
        DataType::Utf8 => Col::Utf8(a.as_string::<i32>()),
        DataType::LargeUtf8 => Col::LargeUtf8(a.as_string::<i64>()),
        DataType::Utf8View => Col::Utf8View(a.as_string_view()),
        DataType::Binary => Col::Bin(a.as_binary::<i32>()),
        DataType::LargeBinary => Col::LargeBin(a.as_binary::<i64>()),
        DataType::BinaryView => Col::BinView(a.as_binary_view()),
        other => return Err(Error::UnsupportedType { column, data_type: other.clone(), role: "a Flink key" }),
    })
}

#[inline(always)]
fn put8(out: &mut [u8], at: usize, v: u64) {
    out[at..at + 8].copy_from_slice(&v.to_le_bytes());
}

impl KeyEncoder for FlinkKeyEncoder<'_> {
    fn num_rows(&self) -> usize {
        self.num_rows
    }

    #[inline]
    fn encode_row(&self, row: usize, out: &mut Vec<u8>) -> Result<()> {
        if row >= self.num_rows {
            return Err(invalid_arg(format!("row {row} out of range ({} rows)", self.num_rows)));
        }
        let start = out.len();
        // reset(): header byte (RowKind INSERT = 0), null bits and slots all zero.
        out.resize(start + self.fixed, 0);
        for (f, kc) in self.cols.iter().enumerate() {
            let slot = start + self.nb + 8 * f;
            if kc.nulls.is_some_and(|n| n.is_null(row)) {
                // setNullAt: null bit i + 8 (bit 0..7 are the header byte), slot stays 0.
                let bit = f + 8;
                out[start + (bit >> 3)] |= 1 << (bit & 7);
                continue;
            }
            // Slot values are little-endian in their low bytes; the unused high
            // bytes stay 0 (BinaryRowWriter.writeInt/Short/Byte/Boolean).
            match &kc.col {
                Col::Bool(a) => out[slot] = a.value(row) as u8,
                Col::I8(v) => out[slot] = v[row] as u8,
                Col::I16(v) => out[slot..slot + 2].copy_from_slice(&v[row].to_le_bytes()),
                Col::I32(v) => out[slot..slot + 4].copy_from_slice(&v[row].to_le_bytes()),
                Col::F32(v) => out[slot..slot + 4].copy_from_slice(&v[row].to_bits().to_le_bytes()),
                Col::I64(v) => put8(out, slot, v[row] as u64),
                Col::F64(v) => put8(out, slot, v[row].to_bits()),
                // Compact decimal: the unscaled value fits i64 when p <= 18.
                Col::Dec(v) => put8(out, slot, v[row] as i64 as u64),
                Col::Utf8(a) => write_bytes(out, start, slot, a.value(row).as_bytes())?,
                Col::LargeUtf8(a) => write_bytes(out, start, slot, a.value(row).as_bytes())?,
                Col::Utf8View(a) => write_bytes(out, start, slot, a.value(row).as_bytes())?,
                Col::Bin(a) => write_bytes(out, start, slot, a.value(row))?,
                Col::LargeBin(a) => write_bytes(out, start, slot, a.value(row))?,
                Col::BinView(a) => write_bytes(out, start, slot, a.value(row))?,
            }
        }
        Ok(())
    }
}

/// Copies `b` to `data[at..]` (the caller sized `data` for every write).
#[inline(always)]
fn put_at(data: &mut [u8], at: usize, b: &[u8]) {
    if let Some(d) = data.get_mut(at..at + b.len()) {
        d.copy_from_slice(b);
    }
}

/// Copies a long value (more than 7 bytes) to `data[at..]`, whose padding
/// to the next multiple of 8 is zero and in range. Values of up to 16 bytes
/// (most string keys) are two word stores, the second the source's last
/// word shifted down (an overlapping read that leaves the padding zero), so
/// they make no `memcpy` call; longer ones are copied with `memcpy`.
#[inline(always)]
fn put_long(data: &mut [u8], at: usize, b: &[u8]) {
    let len = b.len();
    let padded = len.div_ceil(8) * 8;
    let Some(d) = data.get_mut(at..at + padded) else { return };
    match (d.first_chunk_mut::<16>(), b.first_chunk::<8>(), b.last_chunk::<8>()) {
        (Some(d), Some(first), Some(last)) if len <= 16 => {
            d[..8].copy_from_slice(first);
            let tail = u64::from_le_bytes(*last) >> (8 * (16 - len));
            d[8..].copy_from_slice(&tail.to_le_bytes());
        }
        // 8 bytes exactly (padded to 8, no second word), or more than 16.
        _ => {
            if let Some(d) = d.get_mut(..len) {
                d.copy_from_slice(b);
            }
        }
    }
}

/// Calls `f(row, start)` for every row of a block whose rows end at
/// `ends`, `start` the row's first byte.
#[inline(always)]
fn each_start(ends: &[usize], mut f: impl FnMut(usize, usize)) {
    let mut start = 0;
    for (i, &e) in ends.iter().enumerate() {
        f(i, start);
        start = e;
    }
}

/// Row `i`'s bytes of a string or binary key column (the caller skips NULL
/// rows, whatever bytes their offsets span). One implementation per layout,
/// so the fill loops below are monomorphised and never dispatch per row.
trait VarAt<'a> {
    fn at(&self, i: usize) -> &'a [u8];
}

/// An offsets-and-data column (Utf8, LargeUtf8, Binary, LargeBinary).
struct Offs<'a, O>(&'a [O], &'a [u8]);

impl<'a, O: ArrowNativeType> VarAt<'a> for Offs<'a, O> {
    #[inline(always)]
    fn at(&self, i: usize) -> &'a [u8] {
        match (self.0.get(i), self.0.get(i + 1)) {
            (Some(s), Some(e)) => self.1.get(s.as_usize()..e.as_usize()).unwrap_or(&[]),
            _ => &[],
        }
    }
}

struct StrViews<'a>(&'a StringViewArray);

impl<'a> VarAt<'a> for StrViews<'a> {
    #[inline(always)]
    fn at(&self, i: usize) -> &'a [u8] {
        if i < self.0.len() {
            self.0.value(i).as_bytes()
        } else {
            &[]
        }
    }
}

struct BinViews<'a>(&'a BinaryViewArray);

impl<'a> VarAt<'a> for BinViews<'a> {
    #[inline(always)]
    fn at(&self, i: usize) -> &'a [u8] {
        if i < self.0.len() {
            self.0.value(i)
        } else {
            &[]
        }
    }
}

/// Runs `$body` with `$v` bound to the [`VarAt`] of the variable-width
/// column `$col` (nothing for a fixed-width one).
macro_rules! with_var {
    ($col:expr, $v:ident => $body:expr) => {
        match $col {
            Col::Utf8(a) => {
                let $v = Offs(a.value_offsets(), a.value_data());
                $body
            }
            Col::LargeUtf8(a) => {
                let $v = Offs(a.value_offsets(), a.value_data());
                $body
            }
            Col::Bin(a) => {
                let $v = Offs(a.value_offsets(), a.value_data());
                $body
            }
            Col::LargeBin(a) => {
                let $v = Offs(a.value_offsets(), a.value_data());
                $body
            }
            Col::Utf8View(a) => {
                let $v = StrViews(a);
                $body
            }
            Col::BinView(a) => {
                let $v = BinViews(a);
                $body
            }
            _ => {}
        }
    };
}

/// Adds each non-NULL long value's padded length to its row's size.
fn var_sizes<'a>(v: impl VarAt<'a>, kc: &KeyCol<'_>, sizes: &mut [usize]) {
    for (i, e) in sizes.iter_mut().enumerate() {
        let len = v.at(i).len();
        if len > 7 && kc.valid(i) {
            *e = e.saturating_add(len.div_ceil(8) * 8);
        }
    }
}

/// Writes one variable-width key column into every row (rows ending at
/// `ends`, the slot at `off`): short values inline, long ones at the row's
/// `cursor` (absolute), which moves on past each.
fn var_write<'a>(
    v: impl VarAt<'a>,
    kc: &KeyCol<'_>,
    off: usize,
    ends: &[usize],
    cursor: &mut [usize],
    data: &mut [u8],
) {
    let mut start = 0;
    for (i, (&end, c)) in ends.iter().zip(cursor.iter_mut()).enumerate() {
        let row_start = std::mem::replace(&mut start, end);
        if !kc.valid(i) {
            continue;
        }
        let b = v.at(i);
        let slot = row_start + off;
        let len = b.len();
        if len <= 7 {
            put_at(data, slot, b);
            put_at(data, slot + 7, &[0x80 | len as u8]);
        } else {
            put_long(data, *c, b);
            let rel = (*c - row_start) as u64;
            put_at(data, slot, &((rel << 32) | len as u64).to_le_bytes());
            *c += len.div_ceil(8) * 8;
        }
    }
}

/// `AbstractBinaryWriter.writeString/writeBinary`: ≤ 7 bytes inline with
/// `0x80 | len` in the slot's last byte, longer values appended to the
/// variable part (zero-padded to 8) with `(offset << 32) | len` in the slot.
#[inline(always)]
fn write_bytes(out: &mut Vec<u8>, start: usize, slot: usize, b: &[u8]) -> Result<()> {
    let len = b.len();
    if len <= 7 {
        out[slot..slot + len].copy_from_slice(b);
        out[slot + 7] = 0x80 | len as u8;
        return Ok(());
    }
    let offset = out.len() - start;
    let padded = len.div_ceil(8) * 8;
    if offset + padded > MAX_ROW_BYTES {
        return Err(Error::OffsetOverflow { needed: offset + padded, limit: MAX_ROW_BYTES });
    }
    out.extend_from_slice(b);
    out.resize(start + offset + padded, 0);
    put8(out, slot, ((offset as u64) << 32) | len as u64);
    Ok(())
}

/// `sluice-transpose`'s Flink key writer behind the [`KeyEncoder`] seam:
/// covers every key type transpose maps to a Flink type, including the
/// non-compact DECIMAL/TIMESTAMP whose NULLs need the projection layout.
/// Each row is written into one reused scratch buffer and appended.
pub struct TransposeKeyEncoder<'a> {
    bound: sluice_transpose::BoundKeyEncoder<'a>,
    scratch: std::cell::RefCell<Vec<u8>>,
    rows: usize,
}

impl<'a> TransposeKeyEncoder<'a> {
    /// Wraps a key encoder bound to a batch of `rows` rows.
    pub fn new(bound: sluice_transpose::BoundKeyEncoder<'a>, rows: usize) -> Self {
        TransposeKeyEncoder { bound, scratch: std::cell::RefCell::new(Vec::new()), rows }
    }
}

impl KeyEncoder for TransposeKeyEncoder<'_> {
    fn num_rows(&self) -> usize {
        self.rows
    }

    fn encode_row(&self, row: usize, out: &mut Vec<u8>) -> Result<()> {
        let mut scratch = self.scratch.borrow_mut();
        self.bound.encode(row, &mut scratch)?;
        out.extend_from_slice(&scratch);
        Ok(())
    }
}

/// How an operator encodes its keys: this crate's columnar writer when it
/// covers every key column, else `sluice-transpose`'s writer over the
/// projected key columns.
pub(crate) struct KeyPlan {
    fallback: Option<sluice_transpose::KeyEncoder>,
}

impl KeyPlan {
    pub(crate) fn new(schema: &arrow_schema::Schema, key_columns: &[usize]) -> Result<Self> {
        let mut fields = Vec::with_capacity(key_columns.len());
        for &k in key_columns {
            let f = schema.fields().get(k).ok_or_else(|| {
                invalid_arg(format!("key column {k} out of range ({} columns)", schema.fields().len()))
            })?;
            fields.push(f.clone());
        }
        if fields.iter().all(|f| is_supported_key_type(f.data_type())) {
            return Ok(KeyPlan { fallback: None });
        }
        let key_schema = std::sync::Arc::new(arrow_schema::Schema::new(fields));
        let conv = sluice_transpose::RowConverter::new(key_schema)?;
        let idx: Vec<usize> = (0..key_columns.len()).collect();
        Ok(KeyPlan { fallback: Some(sluice_transpose::KeyEncoder::new(&conv, &idx)?) })
    }

    /// Encodes the key rows of `batch` into `block`.
    pub(crate) fn fill(
        &self,
        batch: &arrow_array::RecordBatch,
        key_columns: &[usize],
        block: &mut KeyBlock,
    ) -> Result<()> {
        match &self.fallback {
            None => {
                let mut enc = FlinkKeyEncoder::try_new(batch.columns(), key_columns)?;
                // A batch without columns still has rows (a global aggregate
                // over a zero-field row): the count comes from the batch.
                enc.num_rows = batch.num_rows();
                block.fill_flink(&enc)
            }
            Some(k) => {
                let keys = batch.project(key_columns)?;
                let bound = k.bind(&keys)?;
                block.fill(&TransposeKeyEncoder::new(bound, keys.num_rows()))
            }
        }
    }
}

/// The encoded keys of one batch, back to back in one reused buffer.
///
/// Operators keep one `KeyBlock` and refill it per batch, so after the first
/// batches (once the buffers reached their working size) encoding a batch
/// allocates nothing. Probes borrow `row(i)` straight out of the block.
///
/// Keys made only of fixed-width fields have one size (`stride`); the block
/// then needs no offsets and [`fill_flink`](KeyBlock::fill_flink) writes it a
/// column at a time.
#[derive(Default, Debug)]
pub struct KeyBlock {
    data: Vec<u8>,
    ends: Vec<usize>,
    /// Scratch of [`fill_flink`](KeyBlock::fill_flink) for variable-width
    /// keys: per row, where its next variable-part byte goes.
    cursor: Vec<usize>,
    /// Row size when every row has the same size, else 0.
    stride: usize,
    len: usize,
}

impl KeyBlock {
    /// An empty block.
    pub fn new() -> Self {
        Self::default()
    }

    /// Replaces the contents with the key rows of every row of `enc`, one
    /// row at a time.
    ///
    /// # Errors
    /// As [`KeyEncoder::encode_row`].
    pub fn fill(&mut self, enc: &dyn KeyEncoder) -> Result<()> {
        self.data.clear();
        self.ends.clear();
        self.stride = 0;
        let n = enc.num_rows();
        self.ends.reserve(n);
        for i in 0..n {
            enc.encode_row(i, &mut self.data)?;
            self.ends.push(self.data.len());
        }
        self.len = n;
        Ok(())
    }

    /// Replaces the contents with the Flink key rows of every row of `enc`.
    /// Fixed-width keys are written a column at a time into a zeroed block of
    /// `rows × fixed size` bytes (no per-row dispatch); keys with strings
    /// fall back to [`fill`](KeyBlock::fill).
    ///
    /// # Errors
    /// As [`KeyEncoder::encode_row`].
    pub fn fill_flink(&mut self, enc: &FlinkKeyEncoder<'_>) -> Result<()> {
        if !enc.is_fixed_width() {
            return self.fill_var(enc);
        }
        let (n, stride) = (enc.num_rows, enc.fixed);
        self.ends.clear();
        self.data.clear();
        self.data.resize(n * stride, 0);
        self.stride = stride;
        self.len = n;
        for (f, kc) in enc.cols.iter().enumerate() {
            let off = enc.nb + 8 * f;
            let rows = self.data.chunks_exact_mut(stride);
            match &kc.col {
                Col::Bool(a) => {
                    for (i, r) in rows.enumerate() {
                        r[off] = a.value(i) as u8;
                    }
                }
                Col::I8(v) => rows.zip(v.iter()).for_each(|(r, x)| r[off] = *x as u8),
                Col::I16(v) => rows.zip(v.iter()).for_each(|(r, x)| r[off..off + 2].copy_from_slice(&x.to_le_bytes())),
                Col::I32(v) => rows.zip(v.iter()).for_each(|(r, x)| r[off..off + 4].copy_from_slice(&x.to_le_bytes())),
                Col::F32(v) => {
                    rows.zip(v.iter()).for_each(|(r, x)| r[off..off + 4].copy_from_slice(&x.to_bits().to_le_bytes()))
                }
                Col::I64(v) => rows.zip(v.iter()).for_each(|(r, x)| r[off..off + 8].copy_from_slice(&x.to_le_bytes())),
                Col::F64(v) => {
                    rows.zip(v.iter()).for_each(|(r, x)| r[off..off + 8].copy_from_slice(&x.to_bits().to_le_bytes()))
                }
                Col::Dec(v) => {
                    rows.zip(v.iter()).for_each(|(r, x)| r[off..off + 8].copy_from_slice(&(*x as i64).to_le_bytes()))
                }
                // Variable-width columns never reach here (is_fixed_width).
                _ => return self.fill(enc),
            }
            if let Some(nulls) = kc.nulls.filter(|n| n.null_count() > 0) {
                let bit = f + 8;
                for (i, r) in self.data.chunks_exact_mut(stride).enumerate() {
                    if nulls.is_null(i) {
                        r[off..off + 8].fill(0);
                        r[bit >> 3] |= 1 << (bit & 7);
                    }
                }
            }
        }
        Ok(())
    }

    /// [`fill_flink`](KeyBlock::fill_flink) for keys with strings or
    /// binaries, a column at a time as well: one pass sizes every row (fixed
    /// part plus each long value padded to 8) into `ends`, the block is
    /// zeroed once at its final size, then each key column is written into
    /// every row, long values appended at the row's variable-part cursor.
    /// The bytes are exactly [`FlinkKeyEncoder::encode_row`]'s (the
    /// `columnar_fill` property test compares them); a row over Flink's
    /// offset limit falls back to the row writer for its exact error.
    fn fill_var(&mut self, enc: &FlinkKeyEncoder<'_>) -> Result<()> {
        let (n, fixed) = (enc.num_rows, enc.fixed);
        self.stride = 0;
        self.len = 0;
        self.ends.clear();
        self.ends.resize(n, fixed);
        for kc in &enc.cols {
            with_var!(&kc.col, v => var_sizes(v, kc, &mut self.ends));
        }
        if self.ends.iter().any(|&e| e > MAX_ROW_BYTES) {
            return self.fill(enc);
        }
        // Sizes to ends; the variable-part cursor of every row starts at its fixed part.
        self.cursor.clear();
        self.cursor.reserve(n);
        let mut at = 0usize;
        for e in &mut self.ends {
            self.cursor.push(at + fixed);
            at += *e;
            *e = at;
        }
        self.data.clear();
        self.data.resize(at, 0);
        for (f, kc) in enc.cols.iter().enumerate() {
            let off = enc.nb + 8 * f;
            let (data, cursor, ends) = (&mut self.data, &mut self.cursor, &self.ends);
            match &kc.col {
                Col::Bool(a) => each_start(ends, |i, s| put_at(data, s + off, &[a.value(i) as u8])),
                Col::I8(v) => each_start(ends, |i, s| put_at(data, s + off, &[v[i] as u8])),
                Col::I16(v) => each_start(ends, |i, s| put_at(data, s + off, &v[i].to_le_bytes())),
                Col::I32(v) => each_start(ends, |i, s| put_at(data, s + off, &v[i].to_le_bytes())),
                Col::F32(v) => each_start(ends, |i, s| put_at(data, s + off, &v[i].to_bits().to_le_bytes())),
                Col::I64(v) => each_start(ends, |i, s| put_at(data, s + off, &v[i].to_le_bytes())),
                Col::F64(v) => each_start(ends, |i, s| put_at(data, s + off, &v[i].to_bits().to_le_bytes())),
                Col::Dec(v) => each_start(ends, |i, s| put_at(data, s + off, &(v[i] as i64).to_le_bytes())),
                var => with_var!(var, v => var_write(v, kc, off, ends, cursor, data)),
            }
            if let Some(nulls) = kc.nulls.filter(|n| n.null_count() > 0) {
                let bit = f + 8;
                for i in 0..n {
                    if nulls.is_null(i) {
                        let start = if i == 0 { 0 } else { self.ends[i - 1] };
                        self.data[start + off..start + off + 8].fill(0);
                        self.data[start + (bit >> 3)] |= 1 << (bit & 7);
                    }
                }
            }
        }
        self.len = n;
        Ok(())
    }

    /// Rows in the block.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the block is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The common row size when all rows have one size, else `None`.
    pub fn stride(&self) -> Option<usize> {
        (self.stride != 0).then_some(self.stride)
    }

    /// The whole encoded block (rows back to back).
    pub fn data(&self) -> &[u8] {
        &self.data
    }

    /// The key bytes of row `i`.
    ///
    /// # Panics
    /// If `i >= self.len()` (operators only index rows they filled).
    #[inline]
    pub fn row(&self, i: usize) -> &[u8] {
        if self.stride != 0 {
            let s = i * self.stride;
            return &self.data[s..s + self.stride];
        }
        let end = self.ends[i];
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.data[start..end]
    }

    /// Row `i`'s key for a state probe: borrowed from the block, or, when
    /// `owned` is given (the benches' owned-key mode, see the operators'
    /// `set_owned_key_probe`), copied into a fresh `Vec` stored there.
    #[inline]
    pub(crate) fn probe_row<'a>(&'a self, i: usize, owned: Option<&'a mut Vec<u8>>) -> &'a [u8] {
        match owned {
            None => self.row(i),
            Some(copy) => {
                *copy = self.row(i).to_vec();
                copy
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{Int32Array, StringArray};
    use std::sync::Arc;

    fn hex(b: &[u8]) -> String {
        b.chunks(8).map(|c| c.iter().map(|x| format!("{x:02x}")).collect::<String>()).collect::<Vec<_>>().join(" ")
    }

    #[test]
    fn rows_match_flink_worked_examples() {
        // docs/flink-semantics.md §2.5 (real Flink output).
        let s: ArrayRef = Arc::new(StringArray::from(vec!["hello", "", "hello world!"]));
        let enc = FlinkKeyEncoder::try_new(std::slice::from_ref(&s), &[0]).unwrap();
        let mut out = Vec::new();
        enc.encode_row(0, &mut out).unwrap();
        assert_eq!(hex(&out), "0000000000000000 68656c6c6f000085");
        out.clear();
        enc.encode_row(1, &mut out).unwrap();
        assert_eq!(hex(&out), "0000000000000000 0000000000000080");
        out.clear();
        enc.encode_row(2, &mut out).unwrap();
        assert_eq!(hex(&out), "0000000000000000 0c00000010000000 68656c6c6f20776f 726c642100000000");

        let cols: Vec<ArrayRef> =
            vec![Arc::new(Int32Array::from(vec![Some(7)])), Arc::new(Int32Array::from(vec![None::<i32>]))];
        let enc = FlinkKeyEncoder::try_new(&cols, &[0, 1]).unwrap();
        out.clear();
        enc.encode_row(0, &mut out).unwrap();
        assert_eq!(hex(&out), "0002000000000000 0700000000000000 0000000000000000");
        assert!(enc.encode_row(1, &mut out).is_err());
    }

    #[test]
    fn null_bit_width() {
        assert_eq!(null_bits_width(0), 8);
        assert_eq!(null_bits_width(56), 8);
        assert_eq!(null_bits_width(57), 16);
        assert_eq!(null_bits_width(120), 16);
        assert_eq!(null_bits_width(121), 24);
    }
}
