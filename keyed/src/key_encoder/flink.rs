//! [`FlinkKeyEncoder`]: this crate's row-at-a-time writer of Flink key rows
//! for the compact key types, the `BinaryRowData` limits it and the columnar
//! [`KeyBlock`](super::KeyBlock) fill check ([`null_bits_width`],
//! `MAX_ROW_BYTES`), and the column downcasts both read.

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Date32Type, Decimal128Type, Float32Type, Float64Type, Int16Type, Int32Type, Int64Type, Int8Type,
    Time32MillisecondType, TimestampMillisecondType,
};
use arrow_array::{
    Array, ArrayRef, BinaryViewArray, BooleanArray, GenericBinaryArray, GenericStringArray, StringViewArray,
};
use arrow_buffer::NullBuffer;
use arrow_schema::{DataType, TimeUnit};

use super::encoder::KeyEncoder;
use crate::error::{invalid_arg, Error, Result};

/// The number of null-bit bytes of a `BinaryRowData` of `arity` fields
/// (`BinaryRowData.calculateBitSetWidthInBytes`, 8 header bits included).
pub const fn null_bits_width(arity: usize) -> usize {
    (arity + 63 + 8) / 64 * 8
}

/// Flink's limit for an in-row offset (31 usable bits).
pub(super) const MAX_ROW_BYTES: usize = i32::MAX as usize;

pub(super) enum Col<'a> {
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

pub(super) struct KeyCol<'a> {
    pub(super) col: Col<'a>,
    pub(super) nulls: Option<&'a NullBuffer>,
}

impl KeyCol<'_> {
    /// Whether row `i` is non-NULL.
    #[inline(always)]
    pub(super) fn valid(&self, i: usize) -> bool {
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
    pub(super) cols: Vec<KeyCol<'a>>,
    pub(super) num_rows: usize,
    pub(super) nb: usize,
    pub(super) fixed: usize,
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
