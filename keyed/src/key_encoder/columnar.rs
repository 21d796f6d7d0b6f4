//! The column-at-a-time helpers of [`KeyBlock::fill_flink`](super::KeyBlock::fill_flink):
//! bounds-safe stores into a pre-sized block and the per-layout readers of
//! string and binary key columns.

use arrow_array::types::ByteArrayType;
use arrow_array::{Array, BinaryViewArray, GenericByteArray, StringViewArray};
use arrow_buffer::ArrowNativeType;

use super::flink::KeyCol;

/// Copies `b` to `data[at..]` (the caller sized `data` for every write).
#[inline(always)]
pub(super) fn put_at(data: &mut [u8], at: usize, b: &[u8]) {
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
pub(super) fn each_start(ends: &[usize], mut f: impl FnMut(usize, usize)) {
    let mut start = 0;
    for (i, &e) in ends.iter().enumerate() {
        f(i, start);
        start = e;
    }
}

/// Row `i`'s bytes of a string or binary key column (the caller skips NULL
/// rows, whatever bytes their offsets span). One implementation per layout,
/// so the fill loops ([`var_sizes`], [`var_write`]) are monomorphised and
/// never dispatch per row.
pub(super) trait VarAt<'a> {
    fn at(&self, i: usize) -> &'a [u8];
}

/// An offsets-and-data column (Utf8, LargeUtf8, Binary, LargeBinary).
pub(super) struct Offs<'a, O>(&'a [O], &'a [u8]);

impl<'a, O: ArrowNativeType> Offs<'a, O> {
    /// The offsets and data of `a`.
    #[inline(always)]
    pub(super) fn of<T: ByteArrayType<Offset = O>>(a: &'a GenericByteArray<T>) -> Self {
        Offs(a.value_offsets(), a.value_data())
    }
}

impl<'a, O: ArrowNativeType> VarAt<'a> for Offs<'a, O> {
    #[inline(always)]
    fn at(&self, i: usize) -> &'a [u8] {
        match (self.0.get(i), self.0.get(i + 1)) {
            (Some(s), Some(e)) => self.1.get(s.as_usize()..e.as_usize()).unwrap_or(&[]),
            _ => &[],
        }
    }
}

pub(super) struct StrViews<'a>(pub(super) &'a StringViewArray);

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

pub(super) struct BinViews<'a>(pub(super) &'a BinaryViewArray);

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
/// column `$col` (nothing for a fixed-width one). Each arm binds its own
/// reader type, so `$body` is monomorphised per layout.
macro_rules! with_var {
    ($col:expr, $v:ident => $body:expr) => {
        with_var!(@arms $col, $v => $body;
            Utf8 => Offs::of, LargeUtf8 => Offs::of, Bin => Offs::of, LargeBin => Offs::of,
            Utf8View => StrViews, BinView => BinViews)
    };
    (@arms $col:expr, $v:ident => $body:expr; $($variant:ident => $reader:expr),*) => {
        match $col {
            $(Col::$variant(a) => {
                let $v = $reader(a);
                $body
            })*
            _ => {}
        }
    };
}
pub(super) use with_var;

/// Adds each non-NULL long value's padded length to its row's size.
pub(super) fn var_sizes<'a>(v: impl VarAt<'a>, kc: &KeyCol<'_>, sizes: &mut [usize]) {
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
pub(super) fn var_write<'a>(
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
