//! A validating, zero-copy reader over Flink `BinaryRowData`,
//! `BinaryArrayData` and `BinaryMapData` bytes.
//!
//! Every offset and length read from the bytes is checked against the size
//! of the enclosing row / array / map before it is used; a bad one is a
//! fault that becomes an [`Error`] naming the row and field (by the
//! caller), never a panic or an out-of-bounds read.

use crate::error::Error;
use crate::layout::{
    array_header_size, array_null_bit, decimal_from_be_bytes, fixed_part_size, row_null_bit, MAX_INLINE,
};
use crate::row_kind::RowKind;

/// What is wrong with some bytes, without the row/field context.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Fault {
    Offset { offset: usize, size: usize },
    Length { offset: usize, len: usize, size: usize },
    Header(String),
    RowKind(u8),
    Range(String),
}

impl Fault {
    /// Attaches the row index and field path.
    #[cold]
    pub(crate) fn at(self, row: usize, field: &str) -> Error {
        let field = field.to_string();
        match self {
            Fault::Offset { offset, size } => Error::OffsetOutOfBounds { row, field, offset, size },
            Fault::Length { offset, len, size } => Error::LengthOutOfBounds { row, field, offset, len, size },
            Fault::Header(detail) => Error::BadNestedHeader { row, field, detail },
            Fault::RowKind(byte) => Error::BadRowKind { row, field: Some(field), byte },
            Fault::Range(detail) => Error::ValueOutOfRange { row, field, detail },
        }
    }
}

/// Reads 8 little-endian bytes at `pos`; `None` when out of bounds.
#[inline(always)]
pub(crate) fn u64_at(b: &[u8], pos: usize) -> Option<u64> {
    let s = b.get(pos..pos.checked_add(8)?)?;
    let mut a = [0u8; 8];
    a.copy_from_slice(s);
    Some(u64::from_le_bytes(a))
}

#[inline(always)]
fn fixed<const N: usize>(b: &[u8], pos: usize) -> Result<[u8; N], Fault> {
    match pos.checked_add(N).and_then(|end| b.get(pos..end)) {
        Some(s) => {
            let mut a = [0u8; N];
            a.copy_from_slice(s);
            Ok(a)
        }
        None => Err(Fault::Length { offset: pos, len: N, size: b.len() }),
    }
}

/// The bytes an out-of-line `(offset << 32) | len` word points at inside
/// `base`.
#[inline(always)]
pub(crate) fn var_slice(base: &[u8], word: u64) -> Result<&[u8], Fault> {
    let offset = (word >> 32) as usize;
    let len = (word & 0xFFFF_FFFF) as usize;
    if offset > base.len() {
        return Err(Fault::Offset { offset, size: base.len() });
    }
    // offset <= base.len() so the subtraction cannot wrap.
    if len > base.len() - offset {
        return Err(Fault::Length { offset, len, size: base.len() });
    }
    Ok(&base[offset..offset + len])
}

/// A string / binary value stored at `pos` of `base` (inline or out of line).
#[inline(always)]
pub(crate) fn bytes_at(base: &[u8], pos: usize) -> Result<&[u8], Fault> {
    let word = match u64_at(base, pos) {
        Some(w) => w,
        None => return Err(Fault::Length { offset: pos, len: 8, size: base.len() }),
    };
    if word >> 63 == 1 {
        let len = ((word >> 56) & 0x7F) as usize;
        if len > MAX_INLINE {
            return Err(Fault::Range(format!("inline length {len} exceeds {MAX_INLINE}")));
        }
        // pos + 8 <= base.len() was checked by u64_at.
        Ok(&base[pos..pos + len])
    } else {
        var_slice(base, word)
    }
}

/// An out-of-line nested item (array, map, row) stored at `pos` of `base`.
#[inline]
pub(crate) fn nested_at(base: &[u8], pos: usize) -> Result<&[u8], Fault> {
    match u64_at(base, pos) {
        Some(w) => var_slice(base, w),
        None => Err(Fault::Length { offset: pos, len: 8, size: base.len() }),
    }
}

/// A DECIMAL value at `pos` of `base`: the unscaled value.
#[inline]
pub(crate) fn decimal_at(base: &[u8], pos: usize, precision: u8) -> Result<i128, Fault> {
    if precision <= crate::layout::MAX_COMPACT_DECIMAL_PRECISION {
        Ok(i64::from_le_bytes(fixed::<8>(base, pos)?) as i128)
    } else {
        let b = nested_at(base, pos)?;
        decimal_from_be_bytes(b)
            .ok_or_else(|| Fault::Header(format!("non-compact decimal of {} bytes (must be 1..=16)", b.len())))
    }
}

/// A TIMESTAMP value at `pos` of `base`: (epoch millis, nano of milli).
#[inline]
pub(crate) fn timestamp_at(base: &[u8], pos: usize, precision: u8) -> Result<(i64, u32), Fault> {
    let word = u64::from_le_bytes(fixed::<8>(base, pos)?);
    if precision <= crate::layout::MAX_COMPACT_TIMESTAMP_PRECISION {
        Ok((word as i64, 0))
    } else {
        let offset = (word >> 32) as usize;
        let nanos = (word & 0xFFFF_FFFF) as u32;
        let millis = var_slice(base, (offset as u64) << 32 | 8)?;
        if nanos > 999_999 {
            return Err(Fault::Range(format!("nanoOfMillisecond {nanos} outside 0..=999999")));
        }
        let mut a = [0u8; 8];
        a.copy_from_slice(millis);
        Ok((i64::from_le_bytes(a), nanos))
    }
}

/// Reads a fixed-width little-endian value of `N` bytes at `pos`.
#[inline(always)]
pub(crate) fn le_at<const N: usize>(base: &[u8], pos: usize) -> Result<[u8; N], Fault> {
    fixed::<N>(base, pos)
}

/// A `BinaryRowData` viewed in place: the reader half of Flink's
/// `BinaryRowData`, with every access checked.
///
/// ```
/// use sluice_transpose::reader::BinaryRow;
/// // INT 42 (Flink output, docs/flink-semantics.md §2.5)
/// let bytes = [0u8, 0, 0, 0, 0, 0, 0, 0, 42, 0, 0, 0, 0, 0, 0, 0];
/// let row = BinaryRow::new(&bytes, 1).unwrap();
/// assert_eq!(row.get_i32(0).unwrap(), 42);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct BinaryRow<'a> {
    bytes: &'a [u8],
    arity: usize,
}

/// The getters of [`BinaryRow`]'s fixed-width little-endian fields.
macro_rules! le_getters {
    ($($(#[$doc:meta])* $name:ident -> $t:ty;)*) => {
        $(
            $(#[$doc])*
            pub fn $name(&self, i: usize) -> Result<$t, Error> {
                self.field(i, le_at::<{ size_of::<$t>() }>).map(<$t>::from_le_bytes)
            }
        )*
    };
}

impl<'a> BinaryRow<'a> {
    /// Views `bytes` as a row of `arity` fields.
    ///
    /// # Errors
    /// [`Error::TruncatedRow`] when `bytes` is shorter than the fixed part,
    /// [`Error::BadRowKind`] when byte 0 is not a RowKind.
    pub fn new(bytes: &'a [u8], arity: usize) -> Result<Self, Error> {
        let needed = fixed_part_size(arity);
        if bytes.len() < needed {
            return Err(Error::TruncatedRow { row: 0, size: bytes.len(), needed });
        }
        if RowKind::from_byte(bytes[0]).is_none() {
            return Err(Error::BadRowKind { row: 0, field: None, byte: bytes[0] });
        }
        Ok(BinaryRow { bytes, arity })
    }

    /// Checks the fixed part and the header byte; used for nested rows.
    pub(crate) fn nested(bytes: &'a [u8], arity: usize) -> Result<Self, Fault> {
        let needed = fixed_part_size(arity);
        if bytes.len() < needed {
            return Err(Fault::Header(format!(
                "nested row of {} bytes is shorter than its fixed part of {needed} bytes",
                bytes.len()
            )));
        }
        if RowKind::from_byte(bytes[0]).is_none() {
            return Err(Fault::RowKind(bytes[0]));
        }
        Ok(BinaryRow { bytes, arity })
    }

    /// The row's bytes.
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// Size in bytes.
    pub fn size(&self) -> usize {
        self.bytes.len()
    }

    /// Number of fields.
    pub fn arity(&self) -> usize {
        self.arity
    }

    /// The header byte as a [`RowKind`] (checked at construction).
    pub fn row_kind(&self) -> RowKind {
        RowKind::from_byte(self.bytes[0]).unwrap_or_default()
    }

    /// Whether field `i` is NULL (false for `i >= arity`).
    #[inline(always)]
    pub fn is_null(&self, i: usize) -> bool {
        if i >= self.arity {
            return false;
        }
        let (byte, mask) = row_null_bit(i);
        // byte < null_bits_width(arity) <= bytes.len() (checked in new).
        self.bytes.get(byte).is_some_and(|b| b & mask != 0)
    }

    /// Byte position of slot `i`.
    #[inline(always)]
    pub(crate) fn slot(&self, i: usize) -> usize {
        crate::layout::null_bits_width(self.arity) + 8 * i
    }

    /// Reads field `i` with `read(row bytes, slot position)`, after checking
    /// `i` against the arity; a fault names the field.
    #[inline]
    fn field<T>(&self, i: usize, read: impl FnOnce(&'a [u8], usize) -> Result<T, Fault>) -> Result<T, Error> {
        if i >= self.arity {
            return Err(Error::InvalidArgument(format!("field {i} of a row of arity {}", self.arity)));
        }
        read(self.bytes, self.slot(i)).map_err(|f| f.at(0, &i.to_string()))
    }

    /// BOOLEAN field `i`.
    pub fn get_bool(&self, i: usize) -> Result<bool, Error> {
        Ok(self.field(i, le_at::<1>)?[0] != 0)
    }

    le_getters! {
        /// TINYINT field `i`.
        get_i8 -> i8;
        /// SMALLINT field `i`.
        get_i16 -> i16;
        /// INT / DATE / TIME field `i`.
        get_i32 -> i32;
        /// BIGINT field `i`.
        get_i64 -> i64;
        /// FLOAT field `i` (raw bits kept).
        get_f32 -> f32;
        /// DOUBLE field `i` (raw bits kept).
        get_f64 -> f64;
    }

    /// CHAR / VARCHAR / BINARY / VARBINARY field `i`: the stored bytes, in
    /// place (UTF-8 is not checked here).
    pub fn get_bytes(&self, i: usize) -> Result<&'a [u8], Error> {
        self.field(i, bytes_at)
    }
    /// DECIMAL(precision, _) field `i`: the unscaled value.
    pub fn get_decimal(&self, i: usize, precision: u8) -> Result<i128, Error> {
        self.field(i, |b, p| decimal_at(b, p, precision))
    }
    /// TIMESTAMP(precision) / TIMESTAMP_LTZ field `i`: (epoch millis, nano of milli).
    pub fn get_timestamp(&self, i: usize, precision: u8) -> Result<(i64, u32), Error> {
        self.field(i, |b, p| timestamp_at(b, p, precision))
    }
    /// ARRAY field `i` whose elements are `element_width` bytes wide
    /// ([`crate::FlinkType::array_element_width`]).
    pub fn get_array(&self, i: usize, element_width: usize) -> Result<BinaryArray<'a>, Error> {
        self.field(i, |b, p| BinaryArray::parse(nested_at(b, p)?, element_width))
    }
    /// MAP field `i`.
    pub fn get_map(&self, i: usize, key_width: usize, value_width: usize) -> Result<BinaryMap<'a>, Error> {
        self.field(i, |b, p| BinaryMap::parse(nested_at(b, p)?, key_width, value_width))
    }
    /// Nested ROW field `i` of `arity` fields.
    pub fn get_row(&self, i: usize, arity: usize) -> Result<BinaryRow<'a>, Error> {
        self.field(i, |b, p| BinaryRow::nested(nested_at(b, p)?, arity))
    }
}

/// A `BinaryArrayData` viewed in place.
#[derive(Clone, Copy, Debug)]
pub struct BinaryArray<'a> {
    bytes: &'a [u8],
    len: usize,
    width: usize,
    header: usize,
}

impl<'a> BinaryArray<'a> {
    /// Checks the element count and that the elements fit.
    pub(crate) fn parse(bytes: &'a [u8], width: usize) -> Result<Self, Fault> {
        let n = i32::from_le_bytes(
            fixed::<4>(bytes, 0)
                .map_err(|_| Fault::Header(format!("array of {} bytes has no element count", bytes.len())))?,
        );
        if n < 0 {
            return Err(Fault::Header(format!("negative array element count {n}")));
        }
        let len = n as usize;
        let header = array_header_size(len);
        let need = len.checked_mul(width).and_then(|x| x.checked_add(header));
        match need {
            Some(need) if need <= bytes.len() => Ok(BinaryArray { bytes, len, width, header }),
            _ => Err(Fault::Header(format!(
                "array of {len} elements of {width} bytes does not fit in {} bytes",
                bytes.len()
            ))),
        }
    }

    /// Views `bytes` as an array whose elements are `width` bytes wide.
    ///
    /// # Errors
    /// [`Error::BadNestedHeader`] (row 0, field "array") when the header is impossible.
    pub fn new(bytes: &'a [u8], width: usize) -> Result<Self, Error> {
        Self::parse(bytes, width).map_err(|f| f.at(0, "array"))
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The array's bytes.
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// Whether element `i` is NULL.
    #[inline(always)]
    pub fn is_null(&self, i: usize) -> bool {
        let (byte, mask) = array_null_bit(i);
        i < self.len && self.bytes.get(byte).is_some_and(|b| b & mask != 0)
    }

    /// Byte position of element `i` (in bounds for `i < len`).
    #[inline(always)]
    pub(crate) fn pos(&self, i: usize) -> usize {
        self.header + i * self.width
    }

    /// Element `i` as a string / binary.
    pub fn get_bytes(&self, i: usize) -> Result<&'a [u8], Error> {
        bytes_at(self.bytes, self.pos(i)).map_err(|f| f.at(0, &format!("[{i}]")))
    }
}

/// A `BinaryMapData` viewed in place: a key array and a value array of the
/// same length.
#[derive(Clone, Copy, Debug)]
pub struct BinaryMap<'a> {
    /// The keys.
    pub keys: BinaryArray<'a>,
    /// The values.
    pub values: BinaryArray<'a>,
}

impl<'a> BinaryMap<'a> {
    pub(crate) fn parse(bytes: &'a [u8], kw: usize, vw: usize) -> Result<Self, Fault> {
        let kb = i32::from_le_bytes(
            fixed::<4>(bytes, 0)
                .map_err(|_| Fault::Header(format!("map of {} bytes has no key-array size", bytes.len())))?,
        );
        let rest = bytes.len() - 4;
        if kb < 0 || kb as usize > rest {
            return Err(Fault::Header(format!("key array of {kb} bytes in a map of {} bytes", bytes.len())));
        }
        let kb = kb as usize;
        let keys = BinaryArray::parse(&bytes[4..4 + kb], kw)?;
        let values = BinaryArray::parse(&bytes[4 + kb..], vw)?;
        if keys.len != values.len {
            return Err(Fault::Header(format!("map has {} keys but {} values", keys.len, values.len)));
        }
        Ok(BinaryMap { keys, values })
    }

    /// Views `bytes` as a map.
    ///
    /// # Errors
    /// [`Error::BadNestedHeader`] when the key-array size or either array header is impossible.
    pub fn new(bytes: &'a [u8], key_width: usize, value_width: usize) -> Result<Self, Error> {
        Self::parse(bytes, key_width, value_width).map_err(|f| f.at(0, "map"))
    }
}
