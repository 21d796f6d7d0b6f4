//! MIN / MAX accumulators of the window aggregate (`MinAggFunction`,
//! `MaxAggFunction`): numbers keep the current value, strings the winning
//! bytes; see [`super::acc`] for the semantics and snapshot tags.

use std::ops::Range;

use arrow_buffer::NullBuffer;

use super::col::Col;
use super::win_acc::{expect_tag, push_num, WinAcc};
use crate::agg::VType;
use crate::error::{invalid_arg, Result};
use crate::group_agg::drive::OutBuf;
use crate::snapshot::{Reader, Writer};

/// A numeric MIN/MAX input type.
pub(crate) trait Prim: Copy + PartialOrd + Send + Sync + 'static {
    const TAG: u8;
    const VTYPE: VType;
    fn col<'a>(c: &Col<'a>) -> Option<(&'a [Self], Option<&'a NullBuffer>)>;
    fn bits(self) -> u64;
    fn put(self, w: &mut Writer);
    fn get(r: &mut Reader<'_>) -> Result<Self>;
}

/// [`Prim`] for a number type: its snapshot tag, the [`Col`] and [`VType`]
/// variant named `$variant`, its bits, and the snapshot writer/reader call.
macro_rules! impl_prim {
    ($($t:ty: $tag:expr, $variant:ident, |$v:ident| $bits:expr, $io:ident;)*) => {$(
        impl Prim for $t {
            const TAG: u8 = $tag;
            const VTYPE: VType = VType::$variant;
            fn col<'a>(c: &Col<'a>) -> Option<(&'a [$t], Option<&'a NullBuffer>)> {
                if let Col::$variant(v, n) = c {
                    Some((v, *n))
                } else {
                    None
                }
            }
            fn bits(self) -> u64 {
                let $v = self;
                $bits
            }
            fn put(self, w: &mut Writer) {
                w.$io(self)
            }
            fn get(r: &mut Reader<'_>) -> Result<$t> {
                r.$io("value")
            }
        }
    )*};
}

impl_prim! {
    i64: 3, I64, |v| v as u64, i64;
    f64: 4, F64, |v| v.to_bits(), f64;
}

/// Whether candidate `a` replaces the current value `b` (strictly better).
#[inline(always)]
fn better<T: PartialOrd + ?Sized>(min: bool, a: &T, b: &T) -> bool {
    if min {
        a < b
    } else {
        a > b
    }
}

/// MIN / MAX of BIGINT or DOUBLE.
pub(crate) struct MinMax<T> {
    pub(crate) min: bool,
    pub(crate) states: Vec<Option<T>>,
}

impl<T: Prim> WinAcc for MinMax<T> {
    fn push_slot(&mut self) {
        self.states.push(None);
    }
    fn truncate(&mut self, len: usize) {
        self.states.truncate(len);
    }
    fn clear(&mut self, slot: usize) -> usize {
        if let Some(s) = self.states.get_mut(slot) {
            *s = None;
        }
        0
    }
    fn fold(&mut self, slot: usize, col: &Col<'_>, rows: Range<usize>) -> usize {
        let (Some((vals, nulls)), min) = (T::col(col), self.min) else { return 0 };
        let Some(s) = self.states.get_mut(slot) else { return 0 };
        let Some(vs) = vals.get(rows.clone()) else { return 0 };
        let mut best = *s;
        for (i, &v) in rows.zip(vs) {
            if nulls.is_none_or(|n| n.is_valid(i)) && best.is_none_or(|b| better(min, &v, &b)) {
                best = Some(v);
            }
        }
        *s = best;
        0
    }
    fn merge(&mut self, dst: usize, src: usize) -> usize {
        let (Some(&Some(v)), min) = (self.states.get(src), self.min) else { return 0 };
        if let Some(d) = self.states.get_mut(dst) {
            if d.is_none_or(|b| better(min, &v, &b)) {
                *d = Some(v);
            }
        }
        0
    }
    fn emit(&self, slot: usize, out: &mut OutBuf) {
        push_num(out, self.states.get(slot).copied().flatten().map(T::bits));
    }
    fn vtype(&self) -> VType {
        T::VTYPE
    }
    fn write(&self, slot: usize, w: &mut Writer) {
        let v = self.states.get(slot).copied().flatten();
        w.u8(T::TAG);
        w.u8(v.is_some() as u8);
        if let Some(v) = v {
            v.put(w);
        }
    }
    fn read(&mut self, slot: usize, r: &mut Reader<'_>) -> Result<usize> {
        expect_tag(r, T::TAG)?;
        let v = if r.u8("flag")? != 0 { Some(T::get(r)?) } else { None };
        *self.states.get_mut(slot).ok_or_else(|| invalid_arg("restore: slot missing"))? = v;
        Ok(0)
    }
    fn slot_bytes(&self) -> usize {
        std::mem::size_of::<Option<T>>()
    }
}

/// MIN / MAX of VARCHAR: the winning bytes, owned (`None` before the first
/// non-NULL value). A fold picks the winner of its rows by comparing
/// borrowed bytes and copies only that winner, into the slot's reused buffer.
pub(crate) struct MinMaxStr {
    pub(crate) min: bool,
    pub(crate) states: Vec<Option<Vec<u8>>>,
    pub(crate) copy_every: bool,
}

impl MinMaxStr {
    /// Stores `v` in `s` (reusing its buffer); returns the heap bytes added.
    fn store(s: &mut Option<Vec<u8>>, v: &[u8]) -> usize {
        match s {
            Some(b) => {
                let before = b.capacity();
                b.clear();
                b.extend_from_slice(v);
                b.capacity() - before
            }
            None => {
                *s = Some(v.to_vec());
                v.len()
            }
        }
    }
}

impl WinAcc for MinMaxStr {
    fn push_slot(&mut self) {
        self.states.push(None);
    }
    fn truncate(&mut self, len: usize) {
        self.states.truncate(len);
    }
    fn clear(&mut self, slot: usize) -> usize {
        self.states.get_mut(slot).and_then(Option::take).map_or(0, |b| b.capacity())
    }
    fn fold(&mut self, slot: usize, col: &Col<'_>, rows: Range<usize>) -> usize {
        let min = self.min;
        let Some(s) = self.states.get_mut(slot) else { return 0 };
        if self.copy_every {
            // The replaced behaviour: every candidate becomes an owned copy.
            let mut added = 0;
            for i in rows.filter(|&i| col.valid(i)) {
                let owned: Vec<u8> = col.bytes(i).to_vec();
                if s.as_deref().is_none_or(|b| better(min, &owned[..], b)) {
                    added += owned.capacity();
                    if let Some(old) = s.replace(owned) {
                        added = added.saturating_sub(old.capacity());
                    }
                }
            }
            return added;
        }
        let mut best: Option<&[u8]> = None;
        for i in rows.filter(|&i| col.valid(i)) {
            let v = col.bytes(i);
            if best.is_none_or(|b| better(min, v, b)) {
                best = Some(v);
            }
        }
        match best {
            Some(v) if s.as_deref().is_none_or(|b| better(min, v, b)) => Self::store(s, v),
            _ => 0,
        }
    }
    fn merge(&mut self, dst: usize, src: usize) -> usize {
        let Some(v) = self.states.get_mut(src).and_then(Option::take) else { return 0 };
        let min = self.min;
        let added = match self.states.get_mut(dst) {
            Some(d) if d.as_deref().is_none_or(|b| better(min, &v[..], b)) => Self::store(d, &v),
            _ => 0,
        };
        if let Some(s) = self.states.get_mut(src) {
            *s = Some(v);
        }
        added
    }
    fn emit(&self, slot: usize, out: &mut OutBuf) {
        match self.states.get(slot).and_then(Option::as_deref) {
            Some(v) => {
                out.vals.push(out.arena.len() as u64);
                out.arena.extend_from_slice(v);
                out.ends.push(out.arena.len());
                out.valid.push(true);
            }
            None => {
                out.vals.push(out.arena.len() as u64);
                out.ends.push(out.arena.len());
                out.valid.push(false);
                out.any_null = true;
            }
        }
    }
    fn vtype(&self) -> VType {
        VType::Str
    }
    fn write(&self, slot: usize, w: &mut Writer) {
        let v = self.states.get(slot).and_then(Option::as_deref);
        w.u8(5);
        w.u8(v.is_some() as u8);
        if let Some(v) = v {
            w.bytes(v);
        }
    }
    fn read(&mut self, slot: usize, r: &mut Reader<'_>) -> Result<usize> {
        expect_tag(r, 5)?;
        let v = if r.u8("flag")? != 0 {
            let b = r.bytes("value")?;
            std::str::from_utf8(b).map_err(|_| r.corrupt("a MIN/MAX string is not UTF-8"))?;
            Some(b.to_vec())
        } else {
            None
        };
        let heap = v.as_ref().map_or(0, Vec::capacity);
        *self.states.get_mut(slot).ok_or_else(|| invalid_arg("restore: slot missing"))? = v;
        Ok(heap)
    }
    fn slot_bytes(&self) -> usize {
        std::mem::size_of::<Option<Vec<u8>>>()
    }
    #[cfg(feature = "public_imp")]
    fn set_copy_every_string(&mut self, on: bool) {
        self.copy_every = on;
    }
}
