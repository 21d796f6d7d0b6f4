//! Retractable `MIN` / `MAX`: a value → count multiset per group, as
//! Flink's `MinWithRetractAggFunction` / `MaxWithRetractAggFunction` keep
//! in their `MapView<T, Long>`; the result is the least / greatest value
//! with a positive count.

use std::collections::BTreeMap;

use arrow_array::ArrayRef;

use super::accumulator::{expect_tag, required, with_str_input, Accumulator, Num, ENTRY};
use super::drive::{drive_str, drive_with, InPlace, Pass};
use crate::agg::{AggKind, VType};
use crate::error::Result;
use crate::snapshot::{Reader, Writer};

/// Multiset add/remove; returns the heap change (`extra` = value bytes).
#[inline(always)]
fn multiset<K: Ord>(m: &mut BTreeMap<K, u64>, v: K, acc: bool, extra: usize) -> isize {
    if acc {
        let c = m.entry(v).or_insert(0);
        *c = c.saturating_add(1);
        if *c == 1 {
            (ENTRY + extra) as isize
        } else {
            0
        }
    } else if let Some(c) = m.get_mut(&v) {
        if *c <= 1 {
            m.remove(&v);
            return -((ENTRY + extra) as isize);
        }
        *c -= 1;
        0
    } else {
        0
    }
}

fn write_set<K>(w: &mut Writer, tag: u8, m: &BTreeMap<K, u64>, key: impl Fn(&mut Writer, &K)) {
    w.u8(tag);
    w.u32(m.len() as u32);
    for (k, c) in m {
        key(w, k);
        w.u64(*c);
    }
}

fn read_set<K: Ord>(
    r: &mut Reader<'_>,
    min_item: usize,
    key: impl Fn(&mut Reader<'_>) -> Result<K>,
) -> Result<BTreeMap<K, u64>> {
    let n = r.count("multiset size", min_item)?;
    let mut m = BTreeMap::new();
    for _ in 0..n {
        let k = key(r)?;
        let c = r.u64("count")?;
        // A stored multiset entry always has a positive count.
        if c == 0 {
            return Err(r.corrupt("multiset entry with count 0"));
        }
        m.insert(k, c);
    }
    Ok(m)
}

/// Retractable MIN/MAX of BIGINT or DOUBLE.
pub(crate) struct Multiset<V: Num> {
    min: bool,
    _value: std::marker::PhantomData<V>,
}

impl<V: Num> Multiset<V> {
    pub(crate) fn new(kind: AggKind) -> Self {
        Multiset { min: kind == AggKind::Min, _value: std::marker::PhantomData }
    }
}

impl<V: Num> Accumulator for Multiset<V> {
    type State = BTreeMap<V::Key, u64>;
    const HAS_HEAP: bool = true;

    fn empty(&self) -> Self::State {
        BTreeMap::new()
    }

    fn output_type(&self) -> VType {
        V::VTYPE
    }

    fn update_batch(&self, st: &mut [Self::State], input: Option<&ArrayRef>, pass: Pass<'_, '_>) -> Result<isize> {
        let kind = if self.min { AggKind::Min } else { AggKind::Max };
        let inp = V::input(required(input, kind)?)?;
        let apply =
            |m: &mut BTreeMap<V::Key, u64>, x: Option<V>, acc: bool| x.map_or(0, |v| multiset(m, v.key(), acc, 0));
        let clear = |m: &mut BTreeMap<V::Key, u64>| {
            let h = m.len() * ENTRY;
            m.clear();
            h
        };
        let bits = |k: &V::Key| V::from_key(*k).bits();
        Ok(if self.min {
            drive_with(InPlace(st), pass, inp, apply, |m| m.keys().next().map(bits), V::same, clear)
        } else {
            drive_with(InPlace(st), pass, inp, apply, |m| m.keys().next_back().map(bits), V::same, clear)
        })
    }

    fn write(&self, m: &Self::State, w: &mut Writer) {
        write_set(w, V::MULTISET_TAG, m, |w, k| V::from_key(*k).write(w))
    }

    fn read(&self, r: &mut Reader<'_>) -> Result<Self::State> {
        expect_tag(r, V::MULTISET_TAG)?;
        read_set(r, 16, |r| Ok(V::read(r)?.key()))
    }

    fn heap(m: &Self::State) -> usize {
        m.len() * ENTRY
    }
}

/// Retractable MIN/MAX of strings (probes borrow the input bytes).
pub(crate) struct MultisetStr {
    min: bool,
}

impl MultisetStr {
    pub(crate) fn new(kind: AggKind) -> Self {
        MultisetStr { min: kind == AggKind::Min }
    }
}

fn least(m: &BTreeMap<Box<[u8]>, u64>) -> Option<&[u8]> {
    m.keys().next().map(|k| &**k)
}

fn greatest(m: &BTreeMap<Box<[u8]>, u64>) -> Option<&[u8]> {
    m.keys().next_back().map(|k| &**k)
}

fn heap_s(m: &BTreeMap<Box<[u8]>, u64>) -> usize {
    m.keys().map(|k| k.len() + ENTRY).sum()
}

impl Accumulator for MultisetStr {
    type State = BTreeMap<Box<[u8]>, u64>;
    const HAS_HEAP: bool = true;

    fn empty(&self) -> Self::State {
        BTreeMap::new()
    }

    fn output_type(&self) -> VType {
        VType::Str
    }

    fn update_batch(&self, st: &mut [Self::State], input: Option<&ArrayRef>, pass: Pass<'_, '_>) -> Result<isize> {
        let kind = if self.min { AggKind::Min } else { AggKind::Max };
        let min = self.min;
        let clear = |m: &mut BTreeMap<Box<[u8]>, u64>| {
            let h = heap_s(m);
            m.clear();
            h
        };
        Ok(with_str_input!(required(input, kind)?, inp => {
            let apply = |m: &mut BTreeMap<Box<[u8]>, u64>, x: Option<&[u8]>, acc: bool| {
                let Some(v) = x else { return 0 };
                // Probes borrow the input bytes; only a new value is copied.
                if let Some(c) = m.get_mut(v) {
                    if acc {
                        *c = c.saturating_add(1);
                        return 0;
                    }
                    if *c <= 1 {
                        m.remove(v);
                        return -((v.len() + ENTRY) as isize);
                    }
                    *c -= 1;
                    0
                } else if acc {
                    m.insert(Box::from(v), 1);
                    (v.len() + ENTRY) as isize
                } else {
                    0
                }
            };
            if min {
                drive_str(st, pass, inp, apply, least, clear)
            } else {
                drive_str(st, pass, inp, apply, greatest, clear)
            }
        }))
    }

    fn write(&self, m: &Self::State, w: &mut Writer) {
        write_set(w, 8, m, |w, k| w.bytes(k))
    }

    fn read(&self, r: &mut Reader<'_>) -> Result<Self::State> {
        expect_tag(r, 8)?;
        read_set(r, 12, |r| Ok(Box::<[u8]>::from(r.bytes("value")?)))
    }

    fn heap(m: &Self::State) -> usize {
        heap_s(m)
    }
}
