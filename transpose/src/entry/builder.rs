//! The column builders of the entry transpose: one per output column (or
//! nested child), filled block by block from the rows ([`Builder::decode_block`]),
//! with the UTF-8 check of string values done in chunks.

use std::sync::Arc;

use arrow_array::types::*;
use arrow_array::{
    ArrayRef, BinaryArray, BooleanArray, Decimal128Array, FixedSizeBinaryArray, ListArray, MapArray, PrimitiveArray,
    StringArray, StructArray,
};
use arrow_buffer::{BooleanBufferBuilder, Buffer, NullBufferBuilder, OffsetBuffer, ScalarBuffer};
use arrow_schema::{DataType, TimeUnit};

use crate::converter::Node;
use crate::error::{Error, Result};
use crate::layout::{decimal_fits, row_null_bit};
use crate::reader::{
    bytes_at, decimal_at, le_at, nested_at, timestamp_at, u64_at, BinaryArray as BinArr, BinaryMap as BinMap,
    BinaryRow, Fault,
};
use crate::types::TypeKind;

/// Storage of one column (or nested child) under construction.
pub(super) enum Col {
    Bool(BooleanBufferBuilder),
    I8(Vec<i8>),
    I16(Vec<i16>),
    I32(Vec<i32>),
    I64(Vec<i64>),
    F32(Vec<f32>),
    F64(Vec<f64>),
    Dec(Vec<i128>),
    Bytes { offsets: Vec<i32>, values: Vec<u8>, utf8: Utf8Check },
    Fixed { n: usize, values: Vec<u8> },
    List { offsets: Vec<i32>, child: Box<Builder> },
    Map { offsets: Vec<i32>, keys: Box<Builder>, values: Box<Builder> },
    Struct(Vec<Builder>),
}

/// How a string column's bytes are checked to be UTF-8.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Utf8Check {
    /// Binary: not at all.
    None,
    /// Each value on its own before it is appended (nested strings, where
    /// a value index is not a row index).
    PerValue,
    /// Top-level strings: the appended bytes are validated in chunks of
    /// [`UTF8_CHUNK`] while still in cache, one simdutf8 call per chunk plus
    /// a char-boundary test at every value start. `from` is the first
    /// value not yet checked (value index = row index at the top level).
    Chunked { from: usize },
}

/// Bytes appended to a top-level string column between two validations.
pub(super) const UTF8_CHUNK: usize = 64 * 1024;

/// Validates values `from..` of a string column; on failure finds the
/// first bad value (its index is the row at the top level).
#[cold]
pub(super) fn find_bad_utf8(values: &[u8], offsets: &[i32], from: usize, field: &str) -> Error {
    for v in from..offsets.len().saturating_sub(1) {
        let (s, e) = (offsets[v] as usize, offsets[v + 1] as usize);
        if values.get(s..e).is_none_or(|b| simdutf8::basic::from_utf8(b).is_err()) {
            return Error::InvalidUtf8 { row: v, field: field.to_string() };
        }
    }
    Error::InvalidUtf8 { row: from, field: field.to_string() }
}

#[inline]
pub(super) fn check_utf8_from(values: &[u8], offsets: &[i32], from: usize, field: &str) -> Result<()> {
    let start = offsets.get(from).copied().unwrap_or(0) as usize;
    let region = values.get(start..).unwrap_or(&[]);
    let interior = offsets.get(from + 1..offsets.len().saturating_sub(1)).unwrap_or(&[]);
    // A valid region whose every value starts on a char boundary (not a
    // continuation byte 0x80..=0xBF) is valid value by value.
    let ok = simdutf8::basic::from_utf8(region).is_ok()
        && interior.iter().all(|&o| values.get(o as usize).is_none_or(|&b| (b as i8) >= -0x40));
    if ok {
        Ok(())
    } else {
        Err(find_bad_utf8(values, offsets, from, field))
    }
}

/// A column builder: storage + validity.
pub(crate) struct Builder {
    pub(super) col: Col,
    pub(super) nulls: NullBufferBuilder,
    pub(super) nullable: bool,
    pub(super) len: usize,
}

/// How many rows ahead the row loops prefetch.
pub(super) const PREFETCH_AHEAD: usize = 16;

/// Row bytes per decoding block (well inside L1d). Measured against 8 KiB
/// and 32 KiB (with 512 rows at most): neither was faster on the three
/// bench schemas.
pub(super) const BLOCK_BYTES: usize = 16 * 1024;

/// Most rows per decoding block.
pub(super) const BLOCK: usize = 256;

/// Initial capacity of nested / geometric value buffers.
pub(super) const SMALL: usize = 64;

impl Builder {
    pub(super) fn new(node: &Node, cap: usize, top: bool) -> Builder {
        let col = match &node.ty.kind {
            TypeKind::Boolean => Col::Bool(BooleanBufferBuilder::new(cap)),
            TypeKind::TinyInt => Col::I8(Vec::with_capacity(cap)),
            TypeKind::SmallInt => Col::I16(Vec::with_capacity(cap)),
            TypeKind::Int | TypeKind::Date => Col::I32(Vec::with_capacity(cap)),
            TypeKind::Time(p) if *p <= 3 => Col::I32(Vec::with_capacity(cap)),
            TypeKind::Time(_) | TypeKind::BigInt | TypeKind::Timestamp(_) | TypeKind::TimestampLtz(_) => {
                Col::I64(Vec::with_capacity(cap))
            }
            TypeKind::Float => Col::F32(Vec::with_capacity(cap)),
            TypeKind::Double => Col::F64(Vec::with_capacity(cap)),
            TypeKind::Decimal { .. } => Col::Dec(Vec::with_capacity(cap)),
            TypeKind::Char(_) | TypeKind::VarChar(_) | TypeKind::VarBinary(_) => {
                let mut offsets = Vec::with_capacity(cap + 1);
                offsets.push(0);
                Col::Bytes {
                    offsets,
                    values: Vec::with_capacity(SMALL),
                    utf8: match (&node.ty.kind, top) {
                        (TypeKind::VarBinary(_), _) => Utf8Check::None,
                        (_, true) => Utf8Check::Chunked { from: 0 },
                        (_, false) => Utf8Check::PerValue,
                    },
                }
            }
            TypeKind::Binary(n) => Col::Fixed { n: *n as usize, values: Vec::with_capacity(SMALL) },
            TypeKind::Array(_) => {
                let mut offsets = Vec::with_capacity(cap + 1);
                offsets.push(0);
                Col::List { offsets, child: Box::new(Builder::new(&node.children[0], SMALL, false)) }
            }
            TypeKind::Map(..) => {
                let mut offsets = Vec::with_capacity(cap + 1);
                offsets.push(0);
                Col::Map {
                    offsets,
                    // Arrow map keys are never NULL, whatever the Flink key
                    // type says: a NULL key is refused naming its row.
                    keys: Box::new(Builder { nullable: false, ..Builder::new(&node.children[0], SMALL, false) }),
                    values: Box::new(Builder::new(&node.children[1], SMALL, false)),
                }
            }
            TypeKind::Row(_) => Col::Struct(node.children.iter().map(|c| Builder::new(c, cap, false)).collect()),
        };
        Builder { col, nulls: NullBufferBuilder::new(cap), nullable: node.ty.nullable, len: 0 }
    }

    /// Appends the type's default value without touching validity.
    pub(super) fn push_default(&mut self) {
        match &mut self.col {
            Col::Bool(b) => b.append(false),
            Col::I8(v) => v.push(0),
            Col::I16(v) => v.push(0),
            Col::I32(v) => v.push(0),
            Col::I64(v) => v.push(0),
            Col::F32(v) => v.push(0.0),
            Col::F64(v) => v.push(0.0),
            Col::Dec(v) => v.push(0),
            Col::Bytes { offsets, values, .. } => offsets.push(values.len() as i32),
            Col::Fixed { n, values } => values.resize(values.len() + *n, 0),
            Col::List { offsets, child } => offsets.push(child.len as i32),
            Col::Map { offsets, keys, .. } => offsets.push(keys.len as i32),
            Col::Struct(children) => children.iter_mut().for_each(|c| c.append_masked()),
        }
        self.len += 1;
    }

    /// A NULL in the data.
    #[inline]
    pub(super) fn append_null(&mut self, node: &Node, row: usize) -> Result<()> {
        if !self.nullable {
            return Err(Error::NullInNonNullable { row, field: node.path.clone() });
        }
        self.push_default();
        self.nulls.append_null();
        Ok(())
    }

    /// A slot under a NULL parent struct: NULL if allowed, else a default value.
    pub(super) fn append_masked(&mut self) {
        self.push_default();
        if self.nullable {
            self.nulls.append_null();
        } else {
            self.nulls.append_non_null();
        }
    }

    /// Appends the non-NULL value stored at `pos` of `base`.
    #[inline]
    pub(super) fn push(&mut self, node: &Node, base: &[u8], pos: usize, row: usize) -> Result<()> {
        let at = |f: Fault| f.at(row, &node.path);
        match &mut self.col {
            Col::Bool(b) => b.append(le_at::<1>(base, pos).map_err(at)?[0] != 0),
            Col::I8(v) => v.push(i8::from_le_bytes(le_at::<1>(base, pos).map_err(at)?)),
            Col::I16(v) => v.push(i16::from_le_bytes(le_at::<2>(base, pos).map_err(at)?)),
            Col::I32(v) => {
                let x = i32::from_le_bytes(le_at::<4>(base, pos).map_err(at)?);
                // TIME(0) is Time32(SECOND): Java `ms / 1000` (ArrowTimeWriter).
                v.push(if node.ty.kind == TypeKind::Time(0) { x / 1000 } else { x })
            }
            Col::I64(v) => {
                let x = match node.ty.kind {
                    TypeKind::Time(p) => {
                        let ms = i32::from_le_bytes(le_at::<4>(base, pos).map_err(at)?) as i64;
                        if p <= 6 {
                            ms * 1_000
                        } else {
                            ms * 1_000_000
                        }
                    }
                    TypeKind::Timestamp(p) | TypeKind::TimestampLtz(p) => {
                        let (ms, nanos) = timestamp_at(base, pos, p).map_err(at)?;
                        timestamp_to_arrow(ms, nanos, p).ok_or_else(|| Error::ValueOutOfRange {
                            row,
                            field: node.path.clone(),
                            detail: format!("timestamp {ms} ms + {nanos} ns overflows i64 in the Arrow unit"),
                        })?
                    }
                    _ => i64::from_le_bytes(le_at::<8>(base, pos).map_err(at)?),
                };
                v.push(x)
            }
            Col::F32(v) => v.push(f32::from_le_bytes(le_at::<4>(base, pos).map_err(at)?)),
            Col::F64(v) => v.push(f64::from_le_bytes(le_at::<8>(base, pos).map_err(at)?)),
            Col::Dec(v) => {
                let TypeKind::Decimal { precision, .. } = node.ty.kind else { return unreachable_kind() };
                let x = decimal_at(base, pos, precision).map_err(at)?;
                if !decimal_fits(x, precision) {
                    // ArrowDecimalWriter: DecimalData.fromBigDecimal gives null
                    // when the value does not fit the precision.
                    return self.append_null(node, row);
                }
                v.push(x)
            }
            Col::Bytes { offsets, values, utf8 } => {
                let b = bytes_at(base, pos).map_err(at)?;
                match utf8 {
                    Utf8Check::PerValue if simdutf8::basic::from_utf8(b).is_err() => {
                        return Err(Error::InvalidUtf8 { row, field: node.path.clone() });
                    }
                    _ => {}
                }
                values.extend_from_slice(b);
                offsets.push(values.len() as i32);
                if let Utf8Check::Chunked { from } = utf8 {
                    let start = offsets.get(*from).copied().unwrap_or(0) as usize;
                    if values.len() - start >= UTF8_CHUNK {
                        check_utf8_from(values, offsets, *from, &node.path)?;
                        *from = offsets.len() - 1;
                    }
                }
            }
            Col::Fixed { n, values } => {
                let b = bytes_at(base, pos).map_err(at)?;
                if b.len() != *n {
                    return Err(Error::ValueOutOfRange {
                        row,
                        field: node.path.clone(),
                        detail: format!("BINARY({n}) value of {} bytes", b.len()),
                    });
                }
                values.extend_from_slice(b);
            }
            Col::List { offsets, child } => {
                let elem = &node.children[0];
                let arr = nested_at(base, pos).and_then(|b| BinArr::parse(b, elem.width())).map_err(at)?;
                child.push_array(elem, &arr, row)?;
                offsets.push(child.len as i32);
            }
            Col::Map { offsets, keys, values } => {
                let (kn, vn) = (&node.children[0], &node.children[1]);
                let map = nested_at(base, pos).and_then(|b| BinMap::parse(b, kn.width(), vn.width())).map_err(at)?;
                keys.push_array(kn, &map.keys, row)?;
                values.push_array(vn, &map.values, row)?;
                offsets.push(keys.len as i32);
            }
            Col::Struct(children) => {
                let nested =
                    nested_at(base, pos).and_then(|b| BinaryRow::nested(b, node.children.len())).map_err(at)?;
                let bytes = nested.bytes();
                for (j, (c, cn)) in children.iter_mut().zip(&node.children).enumerate() {
                    if nested.is_null(j) {
                        c.append_null(cn, row)?;
                    } else {
                        c.push(cn, bytes, nested.slot(j), row)?;
                    }
                }
            }
        }
        self.nulls.append_non_null();
        self.len += 1;
        Ok(())
    }

    /// Appends field `j` (slot at `pos`) of every row of a block whose
    /// fixed parts were checked; `first` is the batch index of `rows[0]`.
    /// The hot top-level types (BIGINT, DOUBLE, INT, DATE, FLOAT, strings,
    /// binaries) run a loop of their own; the rest go value by value
    /// through [`Builder::push`].
    pub(super) fn decode_block(
        &mut self,
        node: &Node,
        rows: &[&[u8]],
        first: usize,
        j: usize,
        pos: usize,
    ) -> Result<()> {
        let (byte, mask) = row_null_bit(j);
        // `byte` < null-bits width and `pos + 8` <= fixed part <= row.len()
        // for every row of the block (checked by the caller), so the
        // fallbacks below only fire on a bug; they report rather than panic.
        let is_null = |row: &[u8]| row.get(byte).is_some_and(|b| b & mask != 0);
        let word = |row: &[u8]| u64_at(row, pos).unwrap_or(0);
        let Builder { col, nulls, nullable, len } = self;
        // One test for the whole block: the common no-NULL block then runs
        // loops without a per-row validity branch.
        let any_null = rows.iter().fold(0u8, |acc, row| acc | row.get(byte).copied().unwrap_or(0)) & mask != 0;
        macro_rules! fixed_loop {
            ($v:expr, $conv:expr) => {{
                if !any_null {
                    $v.extend(rows.iter().map(|row| $conv(word(row))));
                    nulls.append_n_non_nulls(rows.len());
                    *len += rows.len();
                    return Ok(());
                }
                for (k, row) in rows.iter().enumerate() {
                    if is_null(row) {
                        if !*nullable {
                            return Err(Error::NullInNonNullable { row: first + k, field: node.path.clone() });
                        }
                        $v.push(Default::default());
                        nulls.append_null();
                    } else {
                        $v.push($conv(word(row)));
                        nulls.append_non_null();
                    }
                }
                *len += rows.len();
                return Ok(());
            }};
        }
        match (col, &node.ty.kind) {
            (Col::I64(v), TypeKind::BigInt) => fixed_loop!(v, |w: u64| w as i64),
            (Col::F64(v), _) => fixed_loop!(v, f64::from_bits),
            (Col::I32(v), TypeKind::Int | TypeKind::Date) => fixed_loop!(v, |w: u64| w as u32 as i32),
            (Col::F32(v), _) => fixed_loop!(v, |w: u64| f32::from_bits(w as u32)),
            (Col::Bytes { offsets, values, utf8 }, _) if *utf8 != Utf8Check::PerValue && !any_null => {
                offsets.reserve(rows.len());
                for (k, row) in rows.iter().enumerate() {
                    let b = bytes_at(row, pos).map_err(|f| f.at(first + k, &node.path))?;
                    crate::copy::append(values, b);
                    offsets.push(values.len() as i32);
                }
                nulls.append_n_non_nulls(rows.len());
                // The UTF-8 check runs once per block here (the chunk may end
                // up to one block past UTF8_CHUNK bytes).
                if let Utf8Check::Chunked { from } = utf8 {
                    let start = offsets.get(*from).copied().unwrap_or(0) as usize;
                    if values.len() - start >= UTF8_CHUNK {
                        check_utf8_from(values, offsets, *from, &node.path)?;
                        *from = offsets.len() - 1;
                    }
                }
                *len += rows.len();
                return Ok(());
            }
            (Col::Bytes { offsets, values, utf8 }, _) if *utf8 != Utf8Check::PerValue => {
                for (k, row) in rows.iter().enumerate() {
                    if is_null(row) {
                        if !*nullable {
                            return Err(Error::NullInNonNullable { row: first + k, field: node.path.clone() });
                        }
                        offsets.push(values.len() as i32);
                        nulls.append_null();
                        continue;
                    }
                    let b = bytes_at(row, pos).map_err(|f| f.at(first + k, &node.path))?;
                    crate::copy::append(values, b);
                    offsets.push(values.len() as i32);
                    nulls.append_non_null();
                    if let Utf8Check::Chunked { from } = utf8 {
                        let start = offsets.get(*from).copied().unwrap_or(0) as usize;
                        if values.len() - start >= UTF8_CHUNK {
                            check_utf8_from(values, offsets, *from, &node.path)?;
                            *from = offsets.len() - 1;
                        }
                    }
                }
                *len += rows.len();
                return Ok(());
            }
            _ => {}
        }
        for (k, row) in rows.iter().enumerate() {
            if is_null(row) {
                self.append_null(node, first + k)?;
            } else {
                self.push(node, row, pos, first + k)?;
            }
        }
        Ok(())
    }

    pub(super) fn push_array(&mut self, node: &Node, arr: &BinArr<'_>, row: usize) -> Result<()> {
        for k in 0..arr.len() {
            if arr.is_null(k) {
                self.append_null(node, row)?;
            } else {
                self.push(node, arr.bytes(), arr.pos(k), row)?;
            }
        }
        Ok(())
    }

    pub(super) fn reserve_values(&mut self, bytes: usize) {
        if let Col::Bytes { values, .. } = &mut self.col {
            values.reserve_exact(bytes.saturating_sub(values.len()));
        }
    }

    pub(super) fn finish(self, node: &Node) -> Result<ArrayRef> {
        let Builder { col, mut nulls, len, .. } = self;
        if let Col::Bytes { offsets, values, utf8: Utf8Check::Chunked { from } } = &col {
            check_utf8_from(values, offsets, *from, &node.path)?;
        }
        let nulls = nulls.finish();
        let overflow = |needed: usize| Error::OffsetOverflow { needed, limit: i32::MAX as usize };
        let a: ArrayRef = match (col, &node.arrow) {
            (Col::Bool(mut b), _) => Arc::new(BooleanArray::new(b.finish(), nulls)),
            (Col::I8(v), _) => Arc::new(PrimitiveArray::<Int8Type>::new(v.into(), nulls)),
            (Col::I16(v), _) => Arc::new(PrimitiveArray::<Int16Type>::new(v.into(), nulls)),
            (Col::I32(v), DataType::Date32) => Arc::new(PrimitiveArray::<Date32Type>::new(v.into(), nulls)),
            (Col::I32(v), DataType::Time32(TimeUnit::Second)) => {
                Arc::new(PrimitiveArray::<Time32SecondType>::new(v.into(), nulls))
            }
            (Col::I32(v), DataType::Time32(_)) => {
                Arc::new(PrimitiveArray::<Time32MillisecondType>::new(v.into(), nulls))
            }
            (Col::I32(v), _) => Arc::new(PrimitiveArray::<Int32Type>::new(v.into(), nulls)),
            (Col::I64(v), DataType::Time64(TimeUnit::Microsecond)) => {
                Arc::new(PrimitiveArray::<Time64MicrosecondType>::new(v.into(), nulls))
            }
            (Col::I64(v), DataType::Time64(_)) => {
                Arc::new(PrimitiveArray::<Time64NanosecondType>::new(v.into(), nulls))
            }
            (Col::I64(v), DataType::Timestamp(unit, _)) => match unit {
                TimeUnit::Second => Arc::new(PrimitiveArray::<TimestampSecondType>::new(v.into(), nulls)),
                TimeUnit::Millisecond => Arc::new(PrimitiveArray::<TimestampMillisecondType>::new(v.into(), nulls)),
                TimeUnit::Microsecond => Arc::new(PrimitiveArray::<TimestampMicrosecondType>::new(v.into(), nulls)),
                TimeUnit::Nanosecond => Arc::new(PrimitiveArray::<TimestampNanosecondType>::new(v.into(), nulls)),
            },
            (Col::I64(v), _) => Arc::new(PrimitiveArray::<Int64Type>::new(v.into(), nulls)),
            (Col::F32(v), _) => Arc::new(PrimitiveArray::<Float32Type>::new(v.into(), nulls)),
            (Col::F64(v), _) => Arc::new(PrimitiveArray::<Float64Type>::new(v.into(), nulls)),
            (Col::Dec(v), DataType::Decimal128(p, s)) => {
                Arc::new(Decimal128Array::new(v.into(), nulls).with_precision_and_scale(*p, *s)?)
            }
            (Col::Bytes { offsets, values, utf8 }, _) => {
                if values.len() > i32::MAX as usize {
                    return Err(overflow(values.len()));
                }
                // SAFETY: offsets start at 0 and were pushed as the running
                // length of `values`, so they are monotonic and end at
                // values.len() <= i32::MAX (checked above, so no value wrapped).
                let offsets = unsafe { OffsetBuffer::new_unchecked(ScalarBuffer::from(offsets)) };
                let values = Buffer::from_vec(values);
                if utf8 != Utf8Check::None {
                    // SAFETY: offsets are valid (above) and every value was
                    // checked to be UTF-8 with simdutf8 (one by one, or in
                    // chunks with a char-boundary test at every value start,
                    // the last chunk just above), so each value is UTF-8.
                    Arc::new(unsafe { StringArray::new_unchecked(offsets, values, nulls) })
                } else {
                    Arc::new(BinaryArray::try_new(offsets, values, nulls)?)
                }
            }
            (Col::Fixed { n, values }, _) => {
                if len == 0 {
                    Arc::new(FixedSizeBinaryArray::new_null(n as i32, 0))
                } else {
                    Arc::new(FixedSizeBinaryArray::try_new(n as i32, Buffer::from_vec(values), nulls)?)
                }
            }
            (Col::List { offsets, child }, DataType::List(field)) => {
                if child.len > i32::MAX as usize {
                    return Err(overflow(child.len));
                }
                let child = child.finish(&node.children[0])?;
                Arc::new(ListArray::try_new(field.clone(), OffsetBuffer::new(offsets.into()), child, nulls)?)
            }
            (Col::Map { offsets, keys, values }, DataType::Map(entries, sorted)) => {
                if keys.len > i32::MAX as usize {
                    return Err(overflow(keys.len));
                }
                let DataType::Struct(kv) = entries.data_type() else { return unreachable_kind() };
                let k = keys.finish(&node.children[0])?;
                let v = values.finish(&node.children[1])?;
                let entries_arr = StructArray::try_new(kv.clone(), vec![k, v], None)?;
                Arc::new(MapArray::try_new(
                    entries.clone(),
                    OffsetBuffer::new(offsets.into()),
                    entries_arr,
                    nulls,
                    *sorted,
                )?)
            }
            (Col::Struct(children), DataType::Struct(fields)) => {
                let arrays =
                    children.into_iter().zip(&node.children).map(|(c, n)| c.finish(n)).collect::<Result<Vec<_>>>()?;
                Arc::new(StructArray::try_new_with_length(fields.clone(), arrays, nulls, len)?)
            }
            _ => return unreachable_kind(),
        };
        Ok(a)
    }
}

/// String and binary types whose values go into one Arrow values buffer.
pub(super) fn is_bytes(kind: &TypeKind) -> bool {
    matches!(kind, TypeKind::Char(_) | TypeKind::VarChar(_) | TypeKind::VarBinary(_))
}

#[cold]
pub(super) fn unreachable_kind<T>() -> Result<T> {
    Err(Error::Unsupported("internal: builder and Arrow type disagree".into()))
}

/// Flink (millis, nanoOfMilli) → the Arrow value in the precision's unit
/// (`ArrowTimestampWriter`): seconds truncate toward zero like Java `/`.
#[inline]
pub(crate) fn timestamp_to_arrow(ms: i64, nanos: u32, p: u8) -> Option<i64> {
    match p {
        0 => Some(ms / 1000),
        1..=3 => Some(ms),
        4..=6 => ms.checked_mul(1000)?.checked_add(nanos as i64 / 1000),
        _ => ms.checked_mul(1_000_000)?.checked_add(nanos as i64),
    }
}
