//! Sizes and bit positions of Flink's binary formats, shared by the reader
//! and the writer. Sources: `BinaryRowData.calculateBitSetWidthInBytes`,
//! `calculateFixPartSizeInBytes`, `BinaryArrayData.calculateHeaderInBytes`,
//! `BinaryFormat` (`MAX_FIX_PART_DATA_SIZE`, `HIGHEST_FIRST_BIT`).

/// Strings and binaries of at most this many bytes are stored inline in
/// the 8-byte slot (`BinaryFormat.MAX_FIX_PART_DATA_SIZE`).
pub const MAX_INLINE: usize = 7;

/// Largest precision stored as an unscaled `i64` in the slot
/// (`DecimalData.isCompact`).
pub const MAX_COMPACT_DECIMAL_PRECISION: u8 = 18;

/// Largest precision stored as epoch millis in the slot
/// (`TimestampData.isCompact`).
pub const MAX_COMPACT_TIMESTAMP_PRECISION: u8 = 3;

/// Bytes of header + null bits of a row of `arity` fields.
#[inline]
pub const fn null_bits_width(arity: usize) -> usize {
    ((arity + 63 + 8) / 64) * 8
}

/// Header + null bits + 8 bytes per field.
#[inline]
pub const fn fixed_part_size(arity: usize) -> usize {
    null_bits_width(arity) + 8 * arity
}

/// Bytes of the element count + null bits of an array of `n` elements.
#[inline]
pub const fn array_header_size(n: usize) -> usize {
    4 + n.div_ceil(32) * 4
}

/// `x` rounded up to a multiple of 8 (`roundNumberOfBytesToNearestWord`).
#[inline]
pub const fn round8(x: usize) -> usize {
    (x + 7) & !7
}

/// Byte index and mask of the null bit of row field `i` (bit `i + 8`).
#[inline]
pub const fn row_null_bit(i: usize) -> (usize, u8) {
    ((i + 8) >> 3, 1 << ((i + 8) & 7))
}

/// Byte index and mask of the null bit of array element `i`.
#[inline]
pub const fn array_null_bit(i: usize) -> (usize, u8) {
    (4 + (i >> 3), 1 << (i & 7))
}

/// The minimal big-endian two's-complement bytes of `v`, as Java's
/// `BigInteger.toByteArray()` gives them (1..=16 bytes). Returns the 16-byte
/// big-endian array and the number of leading bytes to skip.
#[inline]
pub fn decimal_to_be_bytes(v: i128) -> ([u8; 16], usize) {
    // bitLength() excludes the sign bit; toByteArray has bitLength/8 + 1 bytes.
    let bit_len = if v < 0 { 128 - (!v).leading_zeros() } else { 128 - v.leading_zeros() } as usize;
    let n = (bit_len / 8 + 1).min(16);
    (v.to_be_bytes(), 16 - n)
}

/// Sign-extends 1..=16 big-endian two's-complement bytes (`new BigInteger(bytes)`).
#[inline]
pub fn decimal_from_be_bytes(b: &[u8]) -> Option<i128> {
    if b.is_empty() || b.len() > 16 {
        return None;
    }
    let fill = if b[0] & 0x80 != 0 { 0xFF } else { 0 };
    let mut buf = [fill; 16];
    buf[16 - b.len()..].copy_from_slice(b);
    Some(i128::from_be_bytes(buf))
}

/// 10^p for p ≤ 38.
#[inline]
pub fn pow10(p: u8) -> i128 {
    10i128.pow(p as u32)
}

/// Whether an unscaled value fits precision `p` (|v| < 10^p), the check of
/// `DecimalData.fromBigDecimal`.
#[inline]
pub fn decimal_fits(v: i128, p: u8) -> bool {
    let lim = pow10(p);
    v > -lim && v < lim
}
