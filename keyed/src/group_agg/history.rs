//! Retractable `FIRST_VALUE` / `LAST_VALUE`: the non-NULL values of a group
//! in arrival order (`FirstLastValueWithRetractAggFunctionBase`). A
//! retraction removes the earliest arrival of an equal value; the result is
//! the earliest (FIRST) or latest (LAST) remaining one.

use std::collections::VecDeque;

use arrow_array::ArrayRef;

use super::accumulator::{elem_size, expect_tag, required, slot_mut, with_str_input, GroupsAccumulator, Num, ENTRY};
use super::drive::{drive_in_place, drive_str, OutBuf, Plan};
use crate::agg::{AggKind, VType};
use crate::error::Result;
use crate::snapshot::{Reader, Writer};

/// Snapshot tag of every history accumulator (the values carry their own tag).
const TAG: u8 = 9;

/// Removes the earliest arrival equal to the retracted value.
#[inline(always)]
fn hist_remove<T>(h: &mut VecDeque<T>, eq: impl Fn(&T) -> bool, extra: usize) -> isize {
    match h.iter().position(eq) {
        Some(p) => {
            h.remove(p);
            -((ENTRY + extra) as isize)
        }
        None => 0,
    }
}

fn write_hist<T>(w: &mut Writer, h: Option<&VecDeque<T>>, val: impl Fn(&mut Writer, &T)) {
    w.u8(TAG);
    let Some(h) = h else { return w.u32(0) };
    w.u32(h.len() as u32);
    for x in h {
        val(w, x);
    }
}

fn read_hist<T>(r: &mut Reader<'_>, tag: u8, val: impl Fn(&mut Reader<'_>) -> Result<T>) -> Result<VecDeque<T>> {
    expect_tag(r, TAG)?;
    let n = r.count("history size", 5)?;
    let mut h = VecDeque::with_capacity(n);
    for _ in 0..n {
        let t = r.u8("value tag")?;
        if t != tag {
            return Err(if t > 2 {
                r.corrupt(format!("unknown value tag {t}"))
            } else {
                r.corrupt("history value of another type than the aggregate input")
            });
        }
        h.push_back(val(r)?);
    }
    Ok(h)
}

/// Retractable FIRST/LAST of BIGINT or DOUBLE.
pub(crate) struct History<V: Num> {
    hists: Vec<VecDeque<V>>,
    first: bool,
}

impl<V: Num> History<V> {
    pub(crate) fn new(kind: AggKind) -> Self {
        History { hists: Vec::new(), first: kind == AggKind::FirstValue }
    }
}

impl<V: Num> GroupsAccumulator for History<V> {
    fn push_group(&mut self) {
        self.hists.push(VecDeque::new());
    }

    fn truncate(&mut self, len: usize) {
        self.hists.truncate(len);
    }

    fn update_batch(
        &mut self,
        input: Option<&ArrayRef>,
        plan: &Plan<'_>,
        out: &mut OutBuf,
        changed: &mut [bool],
    ) -> Result<isize> {
        let kind = if self.first { AggKind::FirstValue } else { AggKind::LastValue };
        let st = &mut self.hists[..];
        let inp = V::input(required(input, kind)?)?;
        let apply = |h: &mut VecDeque<V>, x: Option<V>, acc: bool| {
            let Some(v) = x else { return 0 };
            if acc {
                h.push_back(v);
                ENTRY as isize
            } else {
                hist_remove(h, |y| y.key() == v.key(), 0)
            }
        };
        let clear = |h: &mut VecDeque<V>| {
            let n = h.len() * ENTRY;
            h.clear();
            n
        };
        Ok(if self.first {
            drive_in_place(st, plan, out, changed, inp, apply, |h| h.front().map(|v| v.bits()), V::same, clear)
        } else {
            drive_in_place(st, plan, out, changed, inp, apply, |h| h.back().map(|v| v.bits()), V::same, clear)
        })
    }

    fn output_type(&self) -> VType {
        V::VTYPE
    }

    fn write_state(&self, slot: usize, w: &mut Writer) {
        write_hist(w, self.hists.get(slot), |w, x| {
            w.u8(V::HISTORY_VALUE_TAG);
            x.write(w)
        })
    }

    fn read_state(&mut self, slot: usize, r: &mut Reader<'_>) -> Result<()> {
        let h = read_hist(r, V::HISTORY_VALUE_TAG, V::read)?;
        *slot_mut(&mut self.hists, slot)? = h;
        Ok(())
    }

    fn slot_bytes(&self) -> usize {
        elem_size(&self.hists)
    }

    fn heap_size(&self, slot: usize) -> usize {
        self.hists.get(slot).map_or(0, |h| h.len() * ENTRY)
    }

    fn has_heap(&self) -> bool {
        true
    }
}

/// Retractable FIRST/LAST of strings.
pub(crate) struct HistoryStr {
    hists: Vec<VecDeque<Box<[u8]>>>,
    first: bool,
}

impl HistoryStr {
    pub(crate) fn new(kind: AggKind) -> Self {
        HistoryStr { hists: Vec::new(), first: kind == AggKind::FirstValue }
    }
}

fn earliest(h: &VecDeque<Box<[u8]>>) -> Option<&[u8]> {
    h.front().map(|k| &**k)
}

fn latest(h: &VecDeque<Box<[u8]>>) -> Option<&[u8]> {
    h.back().map(|k| &**k)
}

fn heap_s(h: &VecDeque<Box<[u8]>>) -> usize {
    h.iter().map(|s| s.len() + ENTRY).sum()
}

impl GroupsAccumulator for HistoryStr {
    fn push_group(&mut self) {
        self.hists.push(VecDeque::new());
    }

    fn truncate(&mut self, len: usize) {
        self.hists.truncate(len);
    }

    fn update_batch(
        &mut self,
        input: Option<&ArrayRef>,
        plan: &Plan<'_>,
        out: &mut OutBuf,
        changed: &mut [bool],
    ) -> Result<isize> {
        let kind = if self.first { AggKind::FirstValue } else { AggKind::LastValue };
        let (first, st) = (self.first, &mut self.hists[..]);
        let clear = |h: &mut VecDeque<Box<[u8]>>| {
            let n = heap_s(h);
            h.clear();
            n
        };
        Ok(with_str_input!(required(input, kind)?, inp => {
            let apply = |h: &mut VecDeque<Box<[u8]>>, x: Option<&[u8]>, acc: bool| {
                let Some(v) = x else { return 0 };
                if acc {
                    h.push_back(Box::from(v));
                    (v.len() + ENTRY) as isize
                } else {
                    // Retractions compare borrowed bytes.
                    hist_remove(h, |y| **y == *v, v.len())
                }
            };
            if first {
                drive_str(st, plan, out, changed, inp, apply, earliest, clear)
            } else {
                drive_str(st, plan, out, changed, inp, apply, latest, clear)
            }
        }))
    }

    fn output_type(&self) -> VType {
        VType::Str
    }

    fn write_state(&self, slot: usize, w: &mut Writer) {
        write_hist(w, self.hists.get(slot), |w, x| {
            w.u8(2);
            w.bytes(x)
        })
    }

    fn read_state(&mut self, slot: usize, r: &mut Reader<'_>) -> Result<()> {
        let h = read_hist(r, 2, |r| Ok(Box::<[u8]>::from(r.bytes("value")?)))?;
        *slot_mut(&mut self.hists, slot)? = h;
        Ok(())
    }

    fn slot_bytes(&self) -> usize {
        elem_size(&self.hists)
    }

    fn heap_size(&self, slot: usize) -> usize {
        self.hists.get(slot).map_or(0, heap_s)
    }

    fn has_heap(&self) -> bool {
        true
    }
}
