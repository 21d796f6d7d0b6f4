//! The exit transpose of flat batches: every column a fixed-width number
//! (BIGINT, DOUBLE, INT, DATE, TIME(1..=3), FLOAT, SMALLINT, TINYINT) or a
//! `Utf8` / `Binary` string.
//!
//! A first pass over the columns sums the exact output size (fixed parts +
//! every out-of-line string rounded up to 8 bytes) and checks each string
//! column's offsets once (in bounds, non-decreasing); the output buffer is
//! reserved once at that size. Then each row is written with unchecked
//! stores at precomputed slot positions: the fixed part zeroed with word
//! stores, the RowKind byte, null bits, slots, and each out-of-line string
//! with one copy into its zero-padded place. Byte-identical to the general
//! writer (and to Flink's `BinaryRowWriter`), which the tests compare.

use arrow_buffer::NullBuffer;

use crate::error::{Error, Result};
use crate::layout::{null_bits_width, round8, row_null_bit, MAX_INLINE};
use crate::row_kind::RowKind;

use super::{Acc, Rows, Vals};

/// One column of a flat batch as the row loop reads it.
enum Src<'a> {
    W8(&'a [u64]),
    W4(&'a [u32]),
    W2(&'a [u16]),
    W1(&'a [u8]),
    Bytes { offsets: &'a [i32], values: &'a [u8] },
}

/// A column with its slot position and null bit.
struct Col<'a> {
    src: Src<'a>,
    nulls: Option<&'a NullBuffer>,
    pos: usize,
    byte: usize,
    mask: u8,
}

/// The columns as [`Col`]s when every one is flat and holds `n` values,
/// else `None` (the batch goes through the general writer).
fn plan<'a>(accs: &'a [Acc<'a>], n: usize) -> Option<Vec<Col<'a>>> {
    let nb = null_bits_width(accs.len());
    accs.iter()
        .enumerate()
        .map(|(j, acc)| {
            let src = match &acc.vals {
                Vals::I64(v) => Src::W8(bytemuck_u64(v)),
                Vals::F64(v) => Src::W8(bytemuck_f64(v)),
                Vals::I32(v) => Src::W4(bytemuck_i32(v)),
                Vals::F32(v) => Src::W4(bytemuck_f32(v)),
                Vals::I16(v) => Src::W2(bytemuck_i16(v)),
                Vals::I8(v) => Src::W1(bytemuck_i8(v)),
                Vals::Bytes32 { offsets, values } => Src::Bytes { offsets, values },
                _ => return None,
            };
            let len_ok = match &src {
                Src::W8(v) => v.len() == n,
                Src::W4(v) => v.len() == n,
                Src::W2(v) => v.len() == n,
                Src::W1(v) => v.len() == n,
                Src::Bytes { offsets, .. } => offsets.len() == n + 1,
            };
            let nulls_ok = acc.nulls.is_none_or(|b| b.len() == n);
            let (byte, mask) = row_null_bit(j);
            (len_ok && nulls_ok).then_some(Col { src, nulls: acc.nulls, pos: nb + 8 * j, byte, mask })
        })
        .collect()
}

macro_rules! reinterpret {
    ($name:ident, $from:ty, $to:ty) => {
        /// The same values as unsigned integers of the same width.
        #[inline(always)]
        fn $name(v: &[$from]) -> &[$to] {
            // SAFETY: both types have the same size and alignment and every
            // bit pattern is valid for the target type; same length.
            unsafe { std::slice::from_raw_parts(v.as_ptr().cast::<$to>(), v.len()) }
        }
    };
}
reinterpret!(bytemuck_u64, i64, u64);
reinterpret!(bytemuck_f64, f64, u64);
reinterpret!(bytemuck_i32, i32, u32);
reinterpret!(bytemuck_f32, f32, u32);
reinterpret!(bytemuck_i16, i16, u16);
reinterpret!(bytemuck_i8, i8, u8);

/// An integer stored little-endian at `p`.
trait Le: Copy {
    fn to_le_at(self, p: *mut u8);
}

macro_rules! le {
    ($($t:ty),*) => {$(
        impl Le for $t {
            #[inline(always)]
            fn to_le_at(self, p: *mut u8) {
                // SAFETY: only called through `put`, whose caller guarantees
                // `size_of::<Self>()` writable bytes at `p`.
                unsafe { p.cast::<$t>().write_unaligned(self.to_le()) }
            }
        }
    )*};
}
le!(u64);

/// Stores `v` little-endian at `p`.
///
/// # Safety
/// `p` must be valid for writes of `size_of::<T>()` bytes.
#[inline(always)]
unsafe fn put<T: Le>(p: *mut u8, v: T) {
    v.to_le_at(p)
}

#[inline(always)]
fn is_null(nulls: Option<&NullBuffer>, i: usize) -> bool {
    nulls.is_some_and(|b| b.is_null(i))
}

/// Writes the rows of a flat batch into `out` (cleared by the caller).
/// Returns `Ok(false)`, having written nothing, when the batch is not flat.
pub(super) fn write_rows(accs: &[Acc<'_>], n: usize, kinds: Option<&[RowKind]>, out: &mut Rows) -> Result<bool> {
    let Some(cols) = plan(accs, n) else { return Ok(false) };
    if kinds.is_some_and(|k| k.len() != n) {
        return Ok(false);
    }
    let nb = null_bits_width(cols.len());
    let fixed = nb + 8 * cols.len();
    // Exact output size; string offsets checked once.
    let mut total = n * fixed;
    for c in &cols {
        let Src::Bytes { offsets, values } = c.src else { continue };
        let (Some(&first), Some(&last)) = (offsets.first(), offsets.last()) else { return Ok(false) };
        let mut ordered = true;
        let mut var = 0usize;
        for (i, w) in offsets.windows(2).enumerate() {
            ordered &= w[0] <= w[1];
            let len = w[1].wrapping_sub(w[0]) as u32 as usize;
            let out_of_line = len > MAX_INLINE && !is_null(c.nulls, i);
            var += if out_of_line { round8(len) } else { 0 };
        }
        if !ordered || first < 0 || last as usize > values.len() {
            return Err(Error::InvalidArgument("string column offsets out of bounds".into()));
        }
        total += var;
    }
    out.data.reserve(total);
    out.offsets.reserve(n + 1);
    let start = out.data.len();
    let base = out.data.as_mut_ptr();
    let offs = out.offsets.as_mut_ptr();
    let offs_len = out.offsets.len();
    let end = start + total;
    let mut row = start;
    for i in 0..n {
        // SAFETY: `n + 1` offsets were reserved after `offs_len`.
        unsafe { offs.add(offs_len + i).write(row as i64) };
        // The row's var part starts after its fixed part; `total` counted
        // every byte this row writes, so `row + fixed + var <= end`.
        let mut var = row + fixed;
        if var > end {
            return Err(Error::InvalidArgument("internal: flat exit size mismatch".into()));
        }
        // Only the header + null-bit words are zeroed: every slot is
        // written below (a NULL one with 0). One store for arity <= 56; a
        // loop would become a `memset` call per row.
        let kind = kinds.and_then(|k| k.get(i)).copied().unwrap_or_default().to_byte();
        // SAFETY: `row .. row + fixed` is inside the reserved `total` bytes
        // (checked just above) and `nb <= fixed` is a multiple of 8.
        unsafe {
            let p = base.add(row);
            p.cast::<u64>().write_unaligned(u64::from(kind));
            let mut k = 8;
            while k < nb {
                p.add(k).cast::<u64>().write_unaligned(0);
                k += 8;
            }
        }
        for c in &cols {
            // SAFETY: `row + fixed <= end` (checked above), inside the
            // reserved buffer. Below, `c.byte` < null-bits width and
            // `c.pos + 8 <= fixed` (from `plan`): the null byte and the slot
            // are in this row's fixed part.
            let p = unsafe { base.add(row) };
            if is_null(c.nulls, i) {
                // SAFETY: see above.
                unsafe {
                    *p.add(c.byte) |= c.mask;
                    p.add(c.pos).cast::<u64>().write_unaligned(0);
                }
                continue;
            }
            // SAFETY (the four fixed-width arms): `i < n` = the source's
            // length (`plan`); the slot is in the fixed part (see above).
            // Narrow values are zero-extended: the whole slot is written.
            match c.src {
                // SAFETY: as above.
                Src::W8(v) => unsafe { put(p.add(c.pos), *v.get_unchecked(i)) },
                // SAFETY: as above.
                Src::W4(v) => unsafe { put(p.add(c.pos), u64::from(*v.get_unchecked(i))) },
                // SAFETY: as above.
                Src::W2(v) => unsafe { put(p.add(c.pos), u64::from(*v.get_unchecked(i))) },
                // SAFETY: as above.
                Src::W1(v) => unsafe { put(p.add(c.pos), u64::from(*v.get_unchecked(i))) },
                Src::Bytes { offsets, values } => {
                    // SAFETY: `i + 1 < offsets.len()` (`plan`); offsets are
                    // non-decreasing, >= 0 and end inside `values` (checked above).
                    let (s, e) =
                        unsafe { (*offsets.get_unchecked(i) as usize, *offsets.get_unchecked(i + 1) as usize) };
                    // SAFETY: as just above, `s <= e <= values.len()`.
                    let b = unsafe { values.get_unchecked(s..e) };
                    let len = b.len();
                    if len <= MAX_INLINE {
                        let mut w = [0u8; 8];
                        // SAFETY: `len <= 7` bytes into an 8-byte local.
                        unsafe { crate::copy::copy_short(b, w.as_mut_ptr()) };
                        w[7] = 0x80 | len as u8;
                        // SAFETY: the slot is in the fixed part (see above).
                        unsafe { p.add(c.pos).cast::<[u8; 8]>().write_unaligned(w) };
                    } else {
                        let padded = round8(len);
                        if var + padded > end || var - row > i32::MAX as usize || len > i32::MAX as usize {
                            return Err(Error::OffsetOverflow { needed: var - row + padded, limit: i32::MAX as usize });
                        }
                        // SAFETY: `var .. var + padded` is inside the reserved
                        // `total` bytes (checked just above); the last word is
                        // zeroed (Flink's padding) before the string bytes
                        // (from `values`, which cannot overlap `out`) go in.
                        unsafe {
                            let d = base.add(var);
                            d.add(padded - 8).cast::<u64>().write_unaligned(0);
                            crate::copy::copy_short(b, d);
                            let word = ((var - row) as u64) << 32 | len as u64;
                            p.add(c.pos).cast::<u64>().write_unaligned(word.to_le());
                        }
                        var += padded;
                    }
                }
            }
        }
        if var - row > i32::MAX as usize {
            return Err(Error::OffsetOverflow { needed: var - row, limit: i32::MAX as usize });
        }
        row = var;
    }
    if row != end {
        return Err(Error::InvalidArgument("internal: flat exit size mismatch".into()));
    }
    // SAFETY: every byte of `start .. end` was written above (fixed parts
    // zeroed then filled, var parts padded and filled, rows back to back up
    // to `end`, checked just above); `n + 1` offsets were written (the last one here).
    unsafe {
        offs.add(offs_len + n).write(end as i64);
        out.data.set_len(end);
        out.offsets.set_len(offs_len + n + 1);
    }
    Ok(true)
}
