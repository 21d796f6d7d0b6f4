//! Retractable `FIRST_VALUE` / `LAST_VALUE`: the non-NULL values of a group
//! in arrival order (`FirstLastValueWithRetractAggFunctionBase`). A
//! retraction removes the earliest arrival of an equal value; the result is
//! the earliest (FIRST) or latest (LAST) remaining one.

use std::collections::VecDeque;

use arrow_array::ArrayRef;

use super::accumulator::{expect_tag, required, with_str_input, Accumulator, Num, ENTRY};
use super::drive::{drive_str, drive_with, InPlace, Pass};
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

fn write_hist<T>(w: &mut Writer, h: &VecDeque<T>, val: impl Fn(&mut Writer, &T)) {
    w.u8(TAG);
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
    first: bool,
    _value: std::marker::PhantomData<V>,
}

impl<V: Num> History<V> {
    pub(crate) fn new(kind: AggKind) -> Self {
        History { first: kind == AggKind::FirstValue, _value: std::marker::PhantomData }
    }
}

impl<V: Num> Accumulator for History<V> {
    type State = VecDeque<V>;
    const HAS_HEAP: bool = true;

    fn empty(&self) -> VecDeque<V> {
        VecDeque::new()
    }

    fn output_type(&self) -> VType {
        V::VTYPE
    }

    fn update_batch(&self, st: &mut [VecDeque<V>], input: Option<&ArrayRef>, pass: Pass<'_, '_>) -> Result<isize> {
        let kind = if self.first { AggKind::FirstValue } else { AggKind::LastValue };
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
            drive_with(InPlace(st), pass, inp, apply, |h| h.front().map(|v| v.bits()), V::same, clear)
        } else {
            drive_with(InPlace(st), pass, inp, apply, |h| h.back().map(|v| v.bits()), V::same, clear)
        })
    }

    fn write(&self, h: &VecDeque<V>, w: &mut Writer) {
        write_hist(w, h, |w, x| {
            w.u8(V::HISTORY_VALUE_TAG);
            x.write(w)
        })
    }

    fn read(&self, r: &mut Reader<'_>) -> Result<VecDeque<V>> {
        read_hist(r, V::HISTORY_VALUE_TAG, V::read)
    }

    fn heap(h: &VecDeque<V>) -> usize {
        h.len() * ENTRY
    }
}

/// Retractable FIRST/LAST of strings.
pub(crate) struct HistoryStr {
    first: bool,
}

impl HistoryStr {
    pub(crate) fn new(kind: AggKind) -> Self {
        HistoryStr { first: kind == AggKind::FirstValue }
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

impl Accumulator for HistoryStr {
    type State = VecDeque<Box<[u8]>>;
    const HAS_HEAP: bool = true;

    fn empty(&self) -> Self::State {
        VecDeque::new()
    }

    fn output_type(&self) -> VType {
        VType::Str
    }

    fn update_batch(&self, st: &mut [Self::State], input: Option<&ArrayRef>, pass: Pass<'_, '_>) -> Result<isize> {
        let kind = if self.first { AggKind::FirstValue } else { AggKind::LastValue };
        let first = self.first;
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
                drive_str(st, pass, inp, apply, earliest, clear)
            } else {
                drive_str(st, pass, inp, apply, latest, clear)
            }
        }))
    }

    fn write(&self, h: &Self::State, w: &mut Writer) {
        write_hist(w, h, |w, x| {
            w.u8(2);
            w.bytes(x)
        })
    }

    fn read(&self, r: &mut Reader<'_>) -> Result<Self::State> {
        read_hist(r, 2, |r| Ok(Box::<[u8]>::from(r.bytes("value")?)))
    }

    fn heap(h: &Self::State) -> usize {
        heap_s(h)
    }
}
