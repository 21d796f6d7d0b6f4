//! Append-only `MIN` / `MAX` / `FIRST_VALUE` / `LAST_VALUE`: the current
//! value per group (Flink's `MinAggFunction`, `MaxAggFunction`,
//! `FirstValueAggFunction`, `LastValueAggFunction`; NULLs ignored). The
//! input cannot retract, so nothing else needs keeping.

use arrow_array::ArrayRef;

use super::accumulator::{elem_size, expect_tag, required, slot_mut, with_str_input, GroupsAccumulator, Num};
use super::drive::{drive, drive_str, OutBuf, Plan};
use crate::agg::{AggKind, VType};
use crate::error::Result;
use crate::snapshot::{Reader, Writer};

/// Append-only MIN/MAX/FIRST/LAST of BIGINT or DOUBLE.
pub(crate) struct Current<V: Num> {
    values: Vec<Option<V>>,
    kind: AggKind,
}

impl<V: Num> Current<V> {
    pub(crate) fn new(kind: AggKind) -> Self {
        Current { values: Vec::new(), kind }
    }
}

impl<V: Num> GroupsAccumulator for Current<V> {
    fn push_group(&mut self) {
        self.values.push(None);
    }

    fn truncate(&mut self, len: usize) {
        self.values.truncate(len);
    }

    fn update_batch(
        &mut self,
        input: Option<&ArrayRef>,
        plan: &Plan<'_>,
        out: &mut OutBuf,
        changed: &mut [bool],
    ) -> Result<isize> {
        let (kind, st) = (self.kind, &mut self.values[..]);
        let inp = V::input(required(input, kind)?)?;
        let value = |s: &Option<V>| s.map(V::bits);
        let clear = |s: &mut Option<V>| {
            *s = None;
            0
        };
        macro_rules! cur {
            ($f:expr) => {
                drive(
                    st,
                    plan,
                    out,
                    changed,
                    inp,
                    |s: &mut Option<V>, x: Option<V>, _| {
                        if let Some(v) = x {
                            *s = Some(s.map_or(v, |c| $f(c, v)));
                        }
                        0
                    },
                    value,
                    V::same,
                    clear,
                )
            };
        }
        Ok(match kind {
            AggKind::Min => cur!(|c: V, v: V| if v.key() < c.key() { v } else { c }),
            AggKind::Max => cur!(|c: V, v: V| if v.key() > c.key() { v } else { c }),
            AggKind::FirstValue => cur!(|c: V, _v: V| c),
            _ => cur!(|_c: V, v: V| v),
        })
    }

    fn output_type(&self) -> VType {
        V::VTYPE
    }

    fn write_state(&self, slot: usize, w: &mut Writer) {
        let a = self.values.get(slot).copied().flatten();
        w.u8(V::CURRENT_TAG);
        w.u8(a.is_some() as u8);
        match a {
            Some(v) => v.write(w),
            None => w.u64(0),
        }
    }

    fn read_state(&mut self, slot: usize, r: &mut Reader<'_>) -> Result<()> {
        expect_tag(r, V::CURRENT_TAG)?;
        let some = r.u8("flag")? != 0;
        let x = V::read(r)?;
        *slot_mut(&mut self.values, slot)? = some.then_some(x);
        Ok(())
    }

    fn slot_bytes(&self) -> usize {
        elem_size(&self.values)
    }
}

/// Append-only MIN/MAX/FIRST/LAST of strings (compared as unsigned bytes).
pub(crate) struct CurrentStr {
    values: Vec<Option<Box<[u8]>>>,
    kind: AggKind,
}

impl CurrentStr {
    pub(crate) fn new(kind: AggKind) -> Self {
        CurrentStr { values: Vec::new(), kind }
    }
}

fn cur(v: &Option<Box<[u8]>>) -> Option<&[u8]> {
    v.as_deref()
}

fn heap(v: &Option<Box<[u8]>>) -> usize {
    v.as_ref().map_or(0, |s| s.len())
}

impl GroupsAccumulator for CurrentStr {
    fn push_group(&mut self) {
        self.values.push(None);
    }

    fn truncate(&mut self, len: usize) {
        self.values.truncate(len);
    }

    fn update_batch(
        &mut self,
        input: Option<&ArrayRef>,
        plan: &Plan<'_>,
        out: &mut OutBuf,
        changed: &mut [bool],
    ) -> Result<isize> {
        let (kind, st) = (self.kind, &mut self.values[..]);
        let clear = |s: &mut Option<Box<[u8]>>| s.take().map_or(0, |b| b.len());
        Ok(with_str_input!(required(input, kind)?, inp => {
            macro_rules! cur {
                ($replace:expr) => {
                    drive_str(st, plan, out, changed, inp, |s: &mut Option<Box<[u8]>>, x: Option<&[u8]>, _| {
                        let Some(v) = x else { return 0 };
                        if !$replace(s.as_deref(), v) {
                            return 0;
                        }
                        let old = heap(s);
                        *s = Some(Box::from(v));
                        v.len() as isize - old as isize
                    }, cur, clear)
                };
            }
            match kind {
                AggKind::Min => cur!(|c: Option<&[u8]>, v: &[u8]| c.is_none_or(|c| v < c)),
                AggKind::Max => cur!(|c: Option<&[u8]>, v: &[u8]| c.is_none_or(|c| v > c)),
                AggKind::FirstValue => cur!(|c: Option<&[u8]>, _v: &[u8]| c.is_none()),
                _ => cur!(|c: Option<&[u8]>, v: &[u8]| c.is_none_or(|c| v != c)),
            }
        }))
    }

    fn output_type(&self) -> VType {
        VType::Str
    }

    fn write_state(&self, slot: usize, w: &mut Writer) {
        let a = self.values.get(slot).and_then(|x| x.as_deref());
        w.u8(5);
        w.u8(a.is_some() as u8);
        w.bytes(a.unwrap_or(&[]))
    }

    fn read_state(&mut self, slot: usize, r: &mut Reader<'_>) -> Result<()> {
        expect_tag(r, 5)?;
        let some = r.u8("flag")? != 0;
        let x = r.bytes("value")?;
        *slot_mut(&mut self.values, slot)? = some.then(|| Box::from(x));
        Ok(())
    }

    fn slot_bytes(&self) -> usize {
        elem_size(&self.values)
    }

    fn heap_size(&self, slot: usize) -> usize {
        self.values.get(slot).map_or(0, heap)
    }

    fn has_heap(&self) -> bool {
        true
    }
}
