//! The row writers: one `BinaryRowData` per row, field by field, with
//! variable-length parts appended after the fixed part as
//! `BinaryRowWriter` lays them out.

use arrow_array::Array;
use arrow_schema::TimeUnit;

use super::acc::{Acc, Vals};
use crate::converter::Node;
use crate::error::{Error, Result};
use crate::layout::{
    array_header_size, array_null_bit, decimal_fits, decimal_to_be_bytes, null_bits_width, round8, row_null_bit,
    MAX_COMPACT_DECIMAL_PRECISION, MAX_COMPACT_TIMESTAMP_PRECISION, MAX_INLINE,
};
use crate::types::TypeKind;

/// How a NULL non-compact DECIMAL (p > 18) or TIMESTAMP / TIMESTAMP_LTZ
/// (p > 3) is laid out in a row's fixed part. Flink has two writers that
/// disagree (docs/flink-semantics.md §2.4, §11).
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

#[inline(always)]
pub(super) fn put<const N: usize>(out: &mut [u8], pos: usize, b: [u8; N]) {
    if let Some(d) = out.get_mut(pos..pos + N) {
        d.copy_from_slice(&b);
    } else {
        debug_assert!(false, "slot {pos} outside the reserved fixed part");
    }
}

#[inline(always)]
pub(super) fn set_bit(out: &mut [u8], pos: usize, mask: u8) {
    if let Some(b) = out.get_mut(pos) {
        *b |= mask;
    }
}

#[cold]
pub(super) fn bad_index(node: &Node, row: usize) -> Error {
    Error::InvalidArgument(format!("row {row}, field {}: Arrow offsets out of bounds", node.path))
}

#[inline(always)]
pub(super) fn range<O: Copy + TryInto<usize>>(offsets: &[O], i: usize) -> Option<(usize, usize)> {
    let s = (*offsets.get(i)?).try_into().ok()?;
    let e = (*offsets.get(i + 1)?).try_into().ok()?;
    (s <= e).then_some((s, e))
}

/// Offset of the next variable-part item relative to `base`, checked to fit
/// the 31 usable bits of the slot's offset half.
#[inline(always)]
pub(super) fn var_offset(out: &[u8], base: usize) -> Result<u64> {
    let off = out.len() - base;
    if off > i32::MAX as usize {
        return Err(Error::OffsetOverflow { needed: off, limit: i32::MAX as usize });
    }
    Ok(off as u64)
}

/// Appends `b` to the variable part (zero-padded to 8) and returns the
/// `(offset << 32) | len` word (`writeBytesToVarLenPart`).
#[inline(always)]
pub(super) fn append_var(out: &mut Vec<u8>, base: usize, b: &[u8]) -> Result<u64> {
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
pub(super) fn zero_words(out: &mut Vec<u8>, n: usize) {
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
pub(super) fn write_bytes(out: &mut Vec<u8>, base: usize, pos: usize, b: &[u8]) -> Result<()> {
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
pub(super) fn ts_from_arrow(v: i64, unit: TimeUnit) -> Option<(i64, u32)> {
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
pub(super) fn write_value(
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
pub(super) fn write_fast(
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
pub(super) fn write_nested(
    out: &mut Vec<u8>,
    base: usize,
    pos: usize,
    f: impl FnOnce(&mut Vec<u8>) -> Result<()>,
) -> Result<()> {
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
pub(super) fn write_array(out: &mut Vec<u8>, node: &Node, acc: &Acc<'_>, s: usize, e: usize, row: usize) -> Result<()> {
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
