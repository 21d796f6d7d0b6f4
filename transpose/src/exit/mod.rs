//! Exit transpose: Arrow `RecordBatch` (+ RowKinds) → Flink `BinaryRowData`
//! rows, byte-identical to Flink's `BinaryRowWriter` / `BinaryArrayWriter`
//! / `BinaryMapData.valueOf`.

use arrow_array::cast::AsArray;
use arrow_array::types::*;
use arrow_array::{Array, FixedSizeBinaryArray, RecordBatch};
use arrow_buffer::{BooleanBuffer, NullBuffer};
use arrow_schema::{DataType, TimeUnit};

use crate::converter::{Node, RowConverter};
use crate::error::{Error, Result};
use crate::layout::{
    array_header_size, array_null_bit, decimal_fits, decimal_to_be_bytes, null_bits_width, round8, row_null_bit,
    MAX_COMPACT_DECIMAL_PRECISION, MAX_COMPACT_TIMESTAMP_PRECISION, MAX_INLINE,
};
use crate::row_kind::RowKind;
use crate::types::TypeKind;

mod flat;

/// How a NULL non-compact DECIMAL (p > 18) or TIMESTAMP / TIMESTAMP_LTZ
/// (p > 3) is laid out in a row's fixed part. Flink has two writers that
/// disagree (flink-formats.md §2.4, §11).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum NullLayout {
    /// `RowDataSerializer.toBinaryRow`: `setNullAt(i)`, slot 0, no bytes
    /// reserved. What rows on the wire and in state look like.
    #[default]
    Serializer,
    /// The planner's generated projections (`CodeGenUtils.binaryWriterWriteNull`
    /// → `writeDecimal(i, null, p)` / `writeTimestamp(i, null, p)`): 16 / 8
    /// zero bytes reserved, slot `cursor << 32`. How SQL keys are built.
    Projection,
}

/// Rows written by the exit transpose: row `i` is
/// `data[offsets[i] .. offsets[i + 1]]`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Rows {
    /// All row bytes, back to back.
    pub data: Vec<u8>,
    /// `num_rows + 1` offsets into `data`.
    pub offsets: Vec<i64>,
}

impl Rows {
    /// Number of rows.
    pub fn num_rows(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// The bytes of row `i` (empty when `i` is out of range).
    pub fn row(&self, i: usize) -> &[u8] {
        match (self.offsets.get(i), self.offsets.get(i + 1)) {
            (Some(&s), Some(&e)) => self.data.get(s as usize..e as usize).unwrap_or(&[]),
            _ => &[],
        }
    }

    /// Iterates over the rows.
    pub fn iter(&self) -> impl Iterator<Item = &[u8]> + '_ {
        (0..self.num_rows()).map(move |i| self.row(i))
    }

    /// Clears both buffers, keeping their capacity.
    pub fn clear(&mut self) {
        self.data.clear();
        self.offsets.clear();
    }
}

/// Values of one column (or nested child), downcast once per batch.
pub(crate) enum Vals<'a> {
    Bool(&'a BooleanBuffer),
    I8(&'a [i8]),
    I16(&'a [i16]),
    /// INT, DATE, TIME(1..=3) as Time32(ms)
    I32(&'a [i32]),
    /// TIME(0) as Time32(s)
    TimeSec(&'a [i32]),
    /// TIME(p) as Time64: divisor to milliseconds
    Time64(&'a [i64], i64),
    I64(&'a [i64]),
    Ts(&'a [i64], TimeUnit),
    F32(&'a [f32]),
    F64(&'a [f64]),
    Dec(&'a [i128]),
    Bytes32 {
        offsets: &'a [i32],
        values: &'a [u8],
    },
    Bytes64 {
        offsets: &'a [i64],
        values: &'a [u8],
    },
    StrView(&'a arrow_array::StringViewArray),
    BinView(&'a arrow_array::BinaryViewArray),
    Fixed(&'a FixedSizeBinaryArray),
    List32 {
        offsets: &'a [i32],
        child: Box<Acc<'a>>,
    },
    List64 {
        offsets: &'a [i64],
        child: Box<Acc<'a>>,
    },
    Map {
        offsets: &'a [i32],
        keys: Box<Acc<'a>>,
        values: Box<Acc<'a>>,
    },
    Struct(Vec<Acc<'a>>),
}

/// A bound column: validity + values.
pub(crate) struct Acc<'a> {
    nulls: Option<&'a NullBuffer>,
    vals: Vals<'a>,
}

fn mismatch(node: &Node, dt: &DataType) -> Error {
    Error::Unsupported(format!("field {}: Flink type {} cannot be written from Arrow type {dt}", node.path, node.ty))
}

impl<'a> Acc<'a> {
    pub(crate) fn bind(node: &Node, a: &'a dyn Array) -> Result<Acc<'a>> {
        let dt = a.data_type();
        let bad = || mismatch(node, dt);
        let vals = match (&node.ty.kind, dt) {
            (TypeKind::Boolean, DataType::Boolean) => Vals::Bool(a.as_boolean().values()),
            (TypeKind::TinyInt, DataType::Int8) => Vals::I8(a.as_primitive::<Int8Type>().values()),
            (TypeKind::SmallInt, DataType::Int16) => Vals::I16(a.as_primitive::<Int16Type>().values()),
            (TypeKind::Int, DataType::Int32) => Vals::I32(a.as_primitive::<Int32Type>().values()),
            (TypeKind::Date, DataType::Date32) => Vals::I32(a.as_primitive::<Date32Type>().values()),
            (TypeKind::Time(_), DataType::Time32(TimeUnit::Second)) => {
                Vals::TimeSec(a.as_primitive::<Time32SecondType>().values())
            }
            (TypeKind::Time(_), DataType::Time32(TimeUnit::Millisecond)) => {
                Vals::I32(a.as_primitive::<Time32MillisecondType>().values())
            }
            (TypeKind::Time(_), DataType::Time64(TimeUnit::Microsecond)) => {
                Vals::Time64(a.as_primitive::<Time64MicrosecondType>().values(), 1_000)
            }
            (TypeKind::Time(_), DataType::Time64(TimeUnit::Nanosecond)) => {
                Vals::Time64(a.as_primitive::<Time64NanosecondType>().values(), 1_000_000)
            }
            (TypeKind::BigInt, DataType::Int64) => Vals::I64(a.as_primitive::<Int64Type>().values()),
            (TypeKind::Timestamp(_) | TypeKind::TimestampLtz(_), DataType::Timestamp(unit, _)) => {
                let v: &[i64] = match unit {
                    TimeUnit::Second => a.as_primitive::<TimestampSecondType>().values(),
                    TimeUnit::Millisecond => a.as_primitive::<TimestampMillisecondType>().values(),
                    TimeUnit::Microsecond => a.as_primitive::<TimestampMicrosecondType>().values(),
                    TimeUnit::Nanosecond => a.as_primitive::<TimestampNanosecondType>().values(),
                };
                Vals::Ts(v, *unit)
            }
            (TypeKind::Float, DataType::Float32) => Vals::F32(a.as_primitive::<Float32Type>().values()),
            (TypeKind::Double, DataType::Float64) => Vals::F64(a.as_primitive::<Float64Type>().values()),
            (TypeKind::Decimal { scale, .. }, DataType::Decimal128(_, s)) if *s as i32 == *scale as i32 => {
                Vals::Dec(a.as_primitive::<Decimal128Type>().values())
            }
            (TypeKind::Char(_) | TypeKind::VarChar(_), DataType::Utf8) => {
                let s = a.as_string::<i32>();
                Vals::Bytes32 { offsets: s.value_offsets(), values: s.value_data() }
            }
            (TypeKind::Char(_) | TypeKind::VarChar(_), DataType::LargeUtf8) => {
                let s = a.as_string::<i64>();
                Vals::Bytes64 { offsets: s.value_offsets(), values: s.value_data() }
            }
            (TypeKind::Char(_) | TypeKind::VarChar(_), DataType::Utf8View) => Vals::StrView(a.as_string_view()),
            (TypeKind::VarBinary(_), DataType::Binary) => {
                let s = a.as_binary::<i32>();
                Vals::Bytes32 { offsets: s.value_offsets(), values: s.value_data() }
            }
            (TypeKind::VarBinary(_), DataType::LargeBinary) => {
                let s = a.as_binary::<i64>();
                Vals::Bytes64 { offsets: s.value_offsets(), values: s.value_data() }
            }
            (TypeKind::VarBinary(_), DataType::BinaryView) => Vals::BinView(a.as_binary_view()),
            (TypeKind::Binary(n), DataType::FixedSizeBinary(m)) if *n as i32 == *m => {
                Vals::Fixed(a.as_fixed_size_binary())
            }
            (TypeKind::Array(_), DataType::List(_)) => {
                let l = a.as_list::<i32>();
                let child = Acc::bind(&node.children[0], l.values().as_ref())?;
                Vals::List32 { offsets: l.value_offsets(), child: Box::new(child) }
            }
            (TypeKind::Array(_), DataType::LargeList(_)) => {
                let l = a.as_list::<i64>();
                let child = Acc::bind(&node.children[0], l.values().as_ref())?;
                Vals::List64 { offsets: l.value_offsets(), child: Box::new(child) }
            }
            (TypeKind::Map(..), DataType::Map(..)) => {
                let m = a.as_map();
                Vals::Map {
                    offsets: m.value_offsets(),
                    keys: Box::new(Acc::bind(&node.children[0], m.keys().as_ref())?),
                    values: Box::new(Acc::bind(&node.children[1], m.values().as_ref())?),
                }
            }
            (TypeKind::Row(_), DataType::Struct(fs)) if fs.len() == node.children.len() => {
                let s = a.as_struct();
                Vals::Struct(
                    node.children
                        .iter()
                        .zip(s.columns())
                        .map(|(n, c)| Acc::bind(n, c.as_ref()))
                        .collect::<Result<Vec<_>>>()?,
                )
            }
            _ => return Err(bad()),
        };
        Ok(Acc { nulls: a.nulls(), vals })
    }

    #[inline(always)]
    fn is_null(&self, i: usize) -> bool {
        self.nulls.is_some_and(|n| n.is_null(i))
    }
}

#[inline(always)]
fn put<const N: usize>(out: &mut [u8], pos: usize, b: [u8; N]) {
    if let Some(d) = out.get_mut(pos..pos + N) {
        d.copy_from_slice(&b);
    } else {
        debug_assert!(false, "slot {pos} outside the reserved fixed part");
    }
}

#[inline(always)]
fn set_bit(out: &mut [u8], pos: usize, mask: u8) {
    if let Some(b) = out.get_mut(pos) {
        *b |= mask;
    }
}

#[cold]
fn bad_index(node: &Node, row: usize) -> Error {
    Error::InvalidArgument(format!("row {row}, field {}: Arrow offsets out of bounds", node.path))
}

#[inline(always)]
fn range<O: Copy + TryInto<usize>>(offsets: &[O], i: usize) -> Option<(usize, usize)> {
    let s = (*offsets.get(i)?).try_into().ok()?;
    let e = (*offsets.get(i + 1)?).try_into().ok()?;
    (s <= e).then_some((s, e))
}

/// Offset of the next variable-part item relative to `base`, checked to fit
/// the 31 usable bits of the slot's offset half.
#[inline(always)]
fn var_offset(out: &[u8], base: usize) -> Result<u64> {
    let off = out.len() - base;
    if off > i32::MAX as usize {
        return Err(Error::OffsetOverflow { needed: off, limit: i32::MAX as usize });
    }
    Ok(off as u64)
}

/// Appends `b` to the variable part (zero-padded to 8) and returns the
/// `(offset << 32) | len` word (`writeBytesToVarLenPart`).
#[inline(always)]
fn append_var(out: &mut Vec<u8>, base: usize, b: &[u8]) -> Result<u64> {
    let off = var_offset(out, base)?;
    if b.len() > i32::MAX as usize {
        return Err(Error::OffsetOverflow { needed: b.len(), limit: i32::MAX as usize });
    }
    let start = out.len();
    let padded = round8(b.len());
    out.reserve(padded);
    // SAFETY: `reserve` made room for `padded` bytes after `start`. The last
    // 8-byte word of that room is zeroed first (Flink's
    // `zeroOutPaddingBytes`), then `b.len() <= padded` bytes are copied from
    // `b`, which cannot overlap `out`'s spare capacity (the `copy_short`
    // contract); so all `padded` bytes are initialised before `set_len`.
    unsafe {
        let p = out.as_mut_ptr().add(start);
        if padded >= 8 {
            p.add(padded - 8).cast::<u64>().write_unaligned(0);
        }
        crate::copy::copy_short(b, p);
        out.set_len(start + padded);
    }
    Ok(off << 32 | b.len() as u64)
}

/// Appends `n` zero bytes, `n` a multiple of 8 (a fixed part), with word
/// stores rather than a `memset` call for the short lengths rows have.
#[inline(always)]
fn zero_words(out: &mut Vec<u8>, n: usize) {
    debug_assert!(n.is_multiple_of(8));
    let start = out.len();
    out.reserve(n);
    // SAFETY: `reserve` made room for `n` bytes after `start`; the loop
    // writes all `n / 8` words of it (n is a multiple of 8) before `set_len`.
    unsafe {
        let p = out.as_mut_ptr().add(start).cast::<u64>();
        for k in 0..n / 8 {
            p.add(k).write_unaligned(0);
        }
        out.set_len(start + n);
    }
}

/// String / binary: inline when ≤ 7 bytes (`writeBytesToFixLenPart`).
#[inline(always)]
fn write_bytes(out: &mut Vec<u8>, base: usize, pos: usize, b: &[u8]) -> Result<()> {
    if b.len() <= MAX_INLINE {
        let mut w = [0u8; 8];
        w[..b.len()].copy_from_slice(b);
        w[7] = 0x80 | b.len() as u8;
        put(out, pos, w);
    } else {
        let w = append_var(out, base, b)?;
        put(out, pos, w.to_le_bytes());
    }
    Ok(())
}

/// Arrow timestamp → Flink (millis, nanoOfMilli) (`ArrowTimestampColumnVector`),
/// with floor division so pre-1970 sub-millisecond values stay valid where
/// Flink's truncating `/` would produce a negative nano (which Flink rejects).
#[inline(always)]
fn ts_from_arrow(v: i64, unit: TimeUnit) -> Option<(i64, u32)> {
    match unit {
        TimeUnit::Second => Some((v.checked_mul(1000)?, 0)),
        TimeUnit::Millisecond => Some((v, 0)),
        TimeUnit::Microsecond => Some((v.div_euclid(1000), (v.rem_euclid(1000) * 1000) as u32)),
        TimeUnit::Nanosecond => Some((v.div_euclid(1_000_000), v.rem_euclid(1_000_000) as u32)),
    }
}

/// Writes the non-NULL value `i` of `acc` at `pos` (a row slot or an array
/// element of the node's width). Returns `false` when the value must be
/// written as NULL instead (a DECIMAL that does not fit its precision, as
/// `DecimalData.fromBigDecimal` gives null); nothing was written then.
#[inline]
#[allow(clippy::too_many_arguments)]
fn write_value(
    out: &mut Vec<u8>,
    base: usize,
    pos: usize,
    node: &Node,
    acc: &Acc<'_>,
    i: usize,
    in_array: bool,
    row: usize,
) -> Result<bool> {
    let idx = || bad_index(node, row);
    match &acc.vals {
        Vals::Bool(b) => {
            if i >= b.len() {
                return Err(idx());
            }
            put(out, pos, [b.value(i) as u8]);
        }
        Vals::I8(v) => put(out, pos, v.get(i).ok_or_else(idx)?.to_le_bytes()),
        Vals::I16(v) => put(out, pos, v.get(i).ok_or_else(idx)?.to_le_bytes()),
        Vals::I32(v) => put(out, pos, v.get(i).ok_or_else(idx)?.to_le_bytes()),
        Vals::TimeSec(v) => {
            let s = *v.get(i).ok_or_else(idx)?;
            let ms = s.checked_mul(1000).ok_or_else(|| Error::ValueOutOfRange {
                row,
                field: node.path.clone(),
                detail: format!("TIME of {s} s overflows i32 milliseconds"),
            })?;
            put(out, pos, ms.to_le_bytes());
        }
        Vals::Time64(v, div) => {
            // ArrowTimeColumnVector: (int) (value / divisor)
            let ms = (*v.get(i).ok_or_else(idx)? / *div) as i32;
            put(out, pos, ms.to_le_bytes());
        }
        Vals::I64(v) => put(out, pos, v.get(i).ok_or_else(idx)?.to_le_bytes()),
        Vals::Ts(v, unit) => {
            let p = match node.ty.kind {
                TypeKind::Timestamp(p) | TypeKind::TimestampLtz(p) => p,
                _ => 3,
            };
            let raw = *v.get(i).ok_or_else(idx)?;
            let (ms, nanos) = ts_from_arrow(raw, *unit).ok_or_else(|| Error::ValueOutOfRange {
                row,
                field: node.path.clone(),
                detail: format!("timestamp {raw} {unit:?} overflows i64 milliseconds"),
            })?;
            if p <= MAX_COMPACT_TIMESTAMP_PRECISION {
                put(out, pos, ms.to_le_bytes());
            } else {
                let off = var_offset(out, base)?;
                out.extend_from_slice(&ms.to_le_bytes());
                put(out, pos, (off << 32 | nanos as u64).to_le_bytes());
            }
        }
        Vals::F32(v) => {
            let mut x = *v.get(i).ok_or_else(idx)?;
            // BinaryArrayWriter.writeFloat canonicalises NaN; the row writer does not.
            if in_array && x.is_nan() {
                x = f32::NAN;
            }
            put(out, pos, x.to_bits().to_le_bytes());
        }
        Vals::F64(v) => {
            let mut x = *v.get(i).ok_or_else(idx)?;
            if in_array && x.is_nan() {
                x = f64::NAN;
            }
            put(out, pos, x.to_bits().to_le_bytes());
        }
        Vals::Dec(v) => {
            let TypeKind::Decimal { precision, .. } = node.ty.kind else { return Err(idx()) };
            let x = *v.get(i).ok_or_else(idx)?;
            if !decimal_fits(x, precision) {
                return Ok(false);
            }
            if precision <= MAX_COMPACT_DECIMAL_PRECISION {
                put(out, pos, (x as i64).to_le_bytes());
            } else {
                // writeDecimal: 16 zero bytes reserved, toUnscaledBytes at the start.
                let off = var_offset(out, base)?;
                let (be, skip) = decimal_to_be_bytes(x);
                let start = out.len();
                out.resize(start + 16, 0);
                let n = 16 - skip;
                if let (Some(d), Some(s)) = (out.get_mut(start..start + n), be.get(skip..)) {
                    d.copy_from_slice(s);
                }
                put(out, pos, (off << 32 | n as u64).to_le_bytes());
            }
        }
        Vals::Bytes32 { offsets, values } => {
            let (s, e) = range(offsets, i).ok_or_else(idx)?;
            write_bytes(out, base, pos, values.get(s..e).ok_or_else(idx)?)?;
        }
        Vals::Bytes64 { offsets, values } => {
            let (s, e) = range(offsets, i).ok_or_else(idx)?;
            write_bytes(out, base, pos, values.get(s..e).ok_or_else(idx)?)?;
        }
        Vals::StrView(a) => {
            if i >= a.len() {
                return Err(idx());
            }
            write_bytes(out, base, pos, a.value(i).as_bytes())?;
        }
        Vals::BinView(a) => {
            if i >= a.len() {
                return Err(idx());
            }
            write_bytes(out, base, pos, a.value(i))?;
        }
        Vals::Fixed(a) => {
            if i >= a.len() {
                return Err(idx());
            }
            write_bytes(out, base, pos, a.value(i))?;
        }
        Vals::List32 { offsets, child } => {
            let (s, e) = range(offsets, i).ok_or_else(idx)?;
            write_nested(out, base, pos, |out| write_array(out, &node.children[0], child, s, e, row))?;
        }
        Vals::List64 { offsets, child } => {
            let (s, e) = range(offsets, i).ok_or_else(idx)?;
            write_nested(out, base, pos, |out| write_array(out, &node.children[0], child, s, e, row))?;
        }
        Vals::Map { offsets, keys, values } => {
            let (s, e) = range(offsets, i).ok_or_else(idx)?;
            write_nested(out, base, pos, |out| {
                // BinaryMapData.valueOf: [key array size: i32][keys][values]
                let mbase = out.len();
                out.extend_from_slice(&[0u8; 4]);
                write_array(out, &node.children[0], keys, s, e, row)?;
                let kb = out.len() - mbase - 4;
                put(out, mbase, (kb as i32).to_le_bytes());
                write_array(out, &node.children[1], values, s, e, row)
            })?;
        }
        Vals::Struct(children) => {
            write_nested(out, base, pos, |out| {
                write_row(out, &node.children, children, i, 0, NullLayout::Serializer, row)
            })?;
        }
    }
    Ok(true)
}

/// The hot top-level cases (8-byte integers / doubles, 4-byte ints, and
/// `Utf8` / `Binary` strings) without the general dispatch; `None` hands
/// the value to [`write_value`].
#[inline(always)]
fn write_fast(
    out: &mut Vec<u8>,
    base: usize,
    pos: usize,
    node: &Node,
    acc: &Acc<'_>,
    i: usize,
) -> Option<Result<bool>> {
    match (&acc.vals, &node.ty.kind) {
        (Vals::I64(v), _) => put(out, pos, v.get(i)?.to_le_bytes()),
        (Vals::F64(v), _) => put(out, pos, v.get(i)?.to_bits().to_le_bytes()),
        (Vals::I32(v), _) => put(out, pos, v.get(i)?.to_le_bytes()),
        (Vals::Bytes32 { offsets, values }, _) => {
            let (s, e) = range(offsets, i)?;
            return Some(write_bytes(out, base, pos, values.get(s..e)?).map(|()| true));
        }
        _ => return None,
    }
    Some(Ok(true))
}

/// Writes a nested item with `f` at the end of `out`, pads it to 8 and puts
/// `(offset << 32) | unpadded size` at `pos` (`writeSegmentsToVarLenPart`).
#[inline]
fn write_nested(out: &mut Vec<u8>, base: usize, pos: usize, f: impl FnOnce(&mut Vec<u8>) -> Result<()>) -> Result<()> {
    let off = var_offset(out, base)?;
    let start = out.len();
    f(out)?;
    let size = out.len() - start;
    if size > i32::MAX as usize {
        return Err(Error::OffsetOverflow { needed: size, limit: i32::MAX as usize });
    }
    out.resize(start + round8(size), 0);
    put(out, pos, (off << 32 | size as u64).to_le_bytes());
    Ok(())
}

/// A `BinaryArrayData` of elements `s..e` of `acc` (`BinaryArrayWriter`):
/// NULL elements get their bit and a zero slot at their own width, with no
/// reserved bytes for any type (`createNullSetter`).
fn write_array(out: &mut Vec<u8>, node: &Node, acc: &Acc<'_>, s: usize, e: usize, row: usize) -> Result<()> {
    let base = out.len();
    let n = e - s;
    if n > i32::MAX as usize {
        return Err(Error::OffsetOverflow { needed: n, limit: i32::MAX as usize });
    }
    let width = node.width();
    let header = array_header_size(n);
    let fixed = round8(header + n * width);
    out.resize(base + fixed, 0);
    put(out, base, (n as i32).to_le_bytes());
    for k in 0..n {
        let i = s + k;
        let written = !acc.is_null(i) && write_value(out, base, base + header + k * width, node, acc, i, true, row)?;
        if !written {
            let (byte, mask) = array_null_bit(k);
            set_bit(out, base + byte, mask);
        }
    }
    Ok(())
}

/// One `BinaryRowData` of `accs[..][i]` appended to `out`.
#[inline]
pub(crate) fn write_row(
    out: &mut Vec<u8>,
    nodes: &[Node],
    accs: &[Acc<'_>],
    i: usize,
    kind: u8,
    layout: NullLayout,
    row: usize,
) -> Result<()> {
    let base = out.len();
    let nb = null_bits_width(nodes.len());
    zero_words(out, nb + 8 * nodes.len());
    put(out, base, [kind]);
    for (j, (node, acc)) in nodes.iter().zip(accs).enumerate() {
        let pos = base + nb + 8 * j;
        let written = !acc.is_null(i)
            && match write_fast(out, base, pos, node, acc, i) {
                Some(r) => r?,
                None => write_value(out, base, pos, node, acc, i, false, row)?,
            };
        if !written {
            let (byte, mask) = row_null_bit(j);
            set_bit(out, base + byte, mask);
            if layout == NullLayout::Projection {
                let reserve = match node.ty.kind {
                    TypeKind::Decimal { precision, .. } if precision > MAX_COMPACT_DECIMAL_PRECISION => 16,
                    TypeKind::Timestamp(p) | TypeKind::TimestampLtz(p) if p > MAX_COMPACT_TIMESTAMP_PRECISION => 8,
                    _ => 0,
                };
                if reserve > 0 {
                    let off = var_offset(out, base)?;
                    out.resize(out.len() + reserve, 0);
                    put(out, pos, (off << 32).to_le_bytes());
                }
            }
        }
    }
    let size = out.len() - base;
    if size > i32::MAX as usize {
        return Err(Error::OffsetOverflow { needed: size, limit: i32::MAX as usize });
    }
    Ok(())
}

impl RowConverter {
    pub(crate) fn bind<'a>(&self, batch: &'a RecordBatch) -> Result<Vec<Acc<'a>>> {
        if batch.num_columns() != self.fields.len() {
            return Err(Error::InvalidArgument(format!(
                "batch has {} columns, the converter {}",
                batch.num_columns(),
                self.fields.len()
            )));
        }
        self.fields.iter().zip(batch.columns()).map(|(n, c)| Acc::bind(n, c.as_ref())).collect()
    }

    /// Exit transpose: every row of `batch` as a `BinaryRowData`, back to
    /// back in one buffer, byte-identical to Flink's writers.
    ///
    /// `row_kinds` (one per row) sets each header byte; `None` means all
    /// `+I`. `layout` picks the NULL layout of non-compact DECIMAL /
    /// TIMESTAMP fields of the top-level row; nested rows always use
    /// [`NullLayout::Serializer`] (Flink converts nested `RowData` through
    /// `RowDataSerializer.toBinaryRow`), array elements always reserve
    /// nothing (`BinaryArrayWriter.createNullSetter`).
    ///
    /// Strings come from `Utf8`, `LargeUtf8` or `Utf8View`; binaries from
    /// `Binary`, `LargeBinary`, `BinaryView` or `FixedSizeBinary`; sliced
    /// arrays are honoured.
    ///
    /// # Errors
    /// [`Error::Unsupported`] when a column's Arrow type cannot hold its
    /// Flink type, [`Error::InvalidArgument`] for a wrong column count or
    /// RowKind count, [`Error::OffsetOverflow`] when a row exceeds 2^31 bytes.
    ///
    /// # Performance
    /// The output buffer is sized once from the input's value-buffer sizes;
    /// no allocation per row.
    pub fn batch_to_rows(
        &self,
        batch: &RecordBatch,
        row_kinds: Option<&[RowKind]>,
        layout: NullLayout,
    ) -> Result<Rows> {
        let mut rows = Rows::default();
        self.batch_to_rows_into(batch, row_kinds, layout, &mut rows)?;
        Ok(rows)
    }

    /// As [`RowConverter::batch_to_rows`], reusing `out`'s buffers (cleared first).
    ///
    /// # Errors
    /// As [`RowConverter::batch_to_rows`].
    pub fn batch_to_rows_into(
        &self,
        batch: &RecordBatch,
        row_kinds: Option<&[RowKind]>,
        layout: NullLayout,
        out: &mut Rows,
    ) -> Result<()> {
        let n = batch.num_rows();
        if let Some(k) = row_kinds {
            if k.len() != n {
                return Err(Error::InvalidArgument(format!("{} RowKinds for {n} rows", k.len())));
            }
        }
        let accs = self.bind(batch)?;
        out.clear();
        if self.flat && flat::write_rows(&accs, n, row_kinds, out)? {
            return Ok(());
        }
        out.offsets.reserve(n + 1);
        out.data.reserve(self.estimate(batch));
        out.offsets.push(0);
        for i in 0..n {
            let kind = row_kinds.and_then(|k| k.get(i)).copied().unwrap_or_default();
            write_row(&mut out.data, &self.fields, &accs, i, kind.to_byte(), layout, i)?;
            out.offsets.push(out.data.len() as i64);
        }
        Ok(())
    }

    /// Upper-bound-ish output size: fixed parts + value bytes + padding.
    fn estimate(&self, batch: &RecordBatch) -> usize {
        let n = batch.num_rows();
        let mut total = n * self.fixed_size;
        for (node, col) in self.fields.iter().zip(batch.columns()) {
            total += match (&node.ty.kind, col.data_type()) {
                (_, DataType::Utf8) => {
                    let s = col.as_string::<i32>();
                    s.value_offsets().last().copied().unwrap_or(0) as usize
                        - s.value_offsets().first().copied().unwrap_or(0) as usize
                        + 7 * n
                }
                (_, DataType::Binary) => {
                    let s = col.as_binary::<i32>();
                    s.value_offsets().last().copied().unwrap_or(0) as usize
                        - s.value_offsets().first().copied().unwrap_or(0) as usize
                        + 7 * n
                }
                (TypeKind::Decimal { .. }, _) => 16 * n,
                (TypeKind::Timestamp(_) | TypeKind::TimestampLtz(_), _) => 8 * n,
                (
                    TypeKind::Boolean
                    | TypeKind::TinyInt
                    | TypeKind::SmallInt
                    | TypeKind::Int
                    | TypeKind::BigInt
                    | TypeKind::Float
                    | TypeKind::Double
                    | TypeKind::Date
                    | TypeKind::Time(_),
                    _,
                ) => 0,
                _ => col.get_buffer_memory_size() + 16 * n,
            };
        }
        total
    }
}
