//! Column-major accumulator state of the GROUP BY aggregate: one typed
//! vector per aggregate, indexed by the group's slot id, plus the snapshot
//! form of one group's accumulator.
//!
//! Keeping each aggregate's accumulators in one typed vector lets
//! [`AggState::update`](crate::agg_update) run one monomorphised loop per
//! aggregate over a whole batch: the aggregate kind is matched once per
//! batch, never per row.
//!
//! # Snapshot format (per group, per aggregate)
//! A tag byte then the fields, little-endian: `0` COUNT (i64); `1` integer
//! SUM/AVG (sum i64, count i64); `2` double SUM/AVG (flag u8, sum f64,
//! count i64); `3`/`4`/`5` append-only MIN/MAX/FIRST/LAST of BIGINT /
//! DOUBLE / VARCHAR (flag u8, value); `6`/`7`/`8` retractable MIN/MAX
//! multisets (u32 n, n × (value, count u64)); `9` retractable FIRST/LAST
//! history (u32 n, n × (value tag u8: 0 i64 / 1 f64 / 2 bytes, value)).

use std::collections::{BTreeMap, VecDeque};

use crate::agg::{AggKind, OrdF64, Resolved, VType};
use crate::error::Result;
use crate::snapshot::{Reader, Writer};

/// Heap bytes charged per stored multiset / history entry (node share).
pub(crate) const ENTRY: usize = 32;

/// An integer SUM/AVG accumulator (`SumWithRetractAggFunction` /
/// `AvgAggFunction`): the sum and the number of non-NULL values.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct SumI {
    pub(crate) sum: i64,
    pub(crate) n: i64,
}

/// A double SUM/AVG accumulator. `sum` starts NULL for SUM (the first value
/// becomes the sum, so SUM(-0.0) is -0.0) and 0.0 for AVG and `$SUM0`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SumF {
    pub(crate) sum: Option<f64>,
    pub(crate) n: i64,
}

/// The accumulators of one aggregate for every slot.
pub(crate) enum Cols {
    Count(Vec<i64>),
    SumI(Vec<SumI>),
    SumF(Vec<SumF>),
    // Append-only MIN/MAX/FIRST/LAST: just the current value.
    CurI(Vec<Option<i64>>),
    CurF(Vec<Option<f64>>),
    CurS(Vec<Option<Box<[u8]>>>),
    // Retractable MIN/MAX: value → count.
    SetI(Vec<BTreeMap<i64, u64>>),
    SetF(Vec<BTreeMap<OrdF64, u64>>),
    SetS(Vec<BTreeMap<Box<[u8]>, u64>>),
    // Retractable FIRST/LAST: non-NULL values in arrival order.
    HistI(Vec<VecDeque<i64>>),
    HistF(Vec<VecDeque<f64>>),
    HistS(Vec<VecDeque<Box<[u8]>>>),
}

/// Runs `$e` with `$v` bound to the typed vector of any [`Cols`] variant.
macro_rules! each_col {
    ($cols:expr, $v:ident => $e:expr) => {
        match $cols {
            Cols::Count($v) => $e,
            Cols::SumI($v) => $e,
            Cols::SumF($v) => $e,
            Cols::CurI($v) => $e,
            Cols::CurF($v) => $e,
            Cols::CurS($v) => $e,
            Cols::SetI($v) => $e,
            Cols::SetF($v) => $e,
            Cols::SetS($v) => $e,
            Cols::HistI($v) => $e,
            Cols::HistF($v) => $e,
            Cols::HistS($v) => $e,
        }
    };
}

/// One aggregate of a GROUP BY: its resolved spec and its accumulators.
pub(crate) struct AggState {
    pub(crate) r: Resolved,
    pub(crate) cols: Cols,
}

/// The empty double SUM/AVG accumulator of `kind`.
pub(crate) fn empty_sum_f(kind: AggKind) -> SumF {
    SumF { sum: matches!(kind, AggKind::Avg | AggKind::Sum0).then_some(0.0), n: 0 }
}

pub(crate) fn heap_cur_s(v: &Option<Box<[u8]>>) -> usize {
    v.as_ref().map_or(0, |s| s.len())
}
pub(crate) fn heap_set<K>(m: &BTreeMap<K, u64>) -> usize {
    m.len() * ENTRY
}
pub(crate) fn heap_set_s(m: &BTreeMap<Box<[u8]>, u64>) -> usize {
    m.keys().map(|k| k.len() + ENTRY).sum()
}
pub(crate) fn heap_hist<T>(h: &VecDeque<T>) -> usize {
    h.len() * ENTRY
}
pub(crate) fn heap_hist_s(h: &VecDeque<Box<[u8]>>) -> usize {
    h.iter().map(|s| s.len() + ENTRY).sum()
}

impl AggState {
    /// An aggregate with no slots. `retractable` picks the multiset /
    /// history accumulators for MIN/MAX/FIRST/LAST.
    pub(crate) fn new(r: Resolved, retractable: bool) -> Self {
        let cols = match (r.kind, r.vtype) {
            (AggKind::CountStar | AggKind::Count, _) => Cols::Count(Vec::new()),
            (AggKind::Sum | AggKind::Sum0 | AggKind::Avg, VType::F64) => Cols::SumF(Vec::new()),
            (AggKind::Sum | AggKind::Sum0 | AggKind::Avg, _) => Cols::SumI(Vec::new()),
            (AggKind::Min | AggKind::Max, t) if retractable => match t {
                VType::I64 => Cols::SetI(Vec::new()),
                VType::F64 => Cols::SetF(Vec::new()),
                VType::Str => Cols::SetS(Vec::new()),
            },
            (_, t) if retractable => match t {
                VType::I64 => Cols::HistI(Vec::new()),
                VType::F64 => Cols::HistF(Vec::new()),
                VType::Str => Cols::HistS(Vec::new()),
            },
            (_, VType::I64) => Cols::CurI(Vec::new()),
            (_, VType::F64) => Cols::CurF(Vec::new()),
            (_, VType::Str) => Cols::CurS(Vec::new()),
        };
        AggState { r, cols }
    }

    /// Whether the accumulators own heap memory that changes with the values
    /// (strings, multisets, histories).
    pub(crate) fn has_heap(&self) -> bool {
        !matches!(self.cols, Cols::Count(_) | Cols::SumI(_) | Cols::SumF(_) | Cols::CurI(_) | Cols::CurF(_))
    }

    /// Appends one empty accumulator (a new slot).
    pub(crate) fn push_empty(&mut self) {
        let kind = self.r.kind;
        match &mut self.cols {
            Cols::Count(v) => v.push(0),
            Cols::SumI(v) => v.push(SumI::default()),
            Cols::SumF(v) => v.push(empty_sum_f(kind)),
            Cols::CurI(v) => v.push(None),
            Cols::CurF(v) => v.push(None),
            Cols::CurS(v) => v.push(None),
            Cols::SetI(v) => v.push(BTreeMap::new()),
            Cols::SetF(v) => v.push(BTreeMap::new()),
            Cols::SetS(v) => v.push(BTreeMap::new()),
            Cols::HistI(v) => v.push(VecDeque::new()),
            Cols::HistF(v) => v.push(VecDeque::new()),
            Cols::HistS(v) => v.push(VecDeque::new()),
        }
    }

    /// Drops the slots from `len` on (rollback of a failed restore).
    pub(crate) fn truncate(&mut self, len: usize) {
        each_col!(&mut self.cols, v => v.truncate(len))
    }

    /// Bytes of one slot's accumulator inside the vector.
    pub(crate) fn slot_bytes(&self) -> usize {
        fn sz<T>(_: &Vec<T>) -> usize {
            std::mem::size_of::<T>()
        }
        each_col!(&self.cols, v => sz(v))
    }

    /// Heap bytes owned by slot `s` (estimate, see [`ENTRY`]).
    pub(crate) fn heap_size(&self, s: usize) -> usize {
        match &self.cols {
            Cols::CurS(v) => v.get(s).map_or(0, heap_cur_s),
            Cols::SetI(v) => v.get(s).map_or(0, heap_set),
            Cols::SetF(v) => v.get(s).map_or(0, heap_set),
            Cols::SetS(v) => v.get(s).map_or(0, heap_set_s),
            Cols::HistI(v) => v.get(s).map_or(0, heap_hist),
            Cols::HistF(v) => v.get(s).map_or(0, heap_hist),
            Cols::HistS(v) => v.get(s).map_or(0, heap_hist_s),
            _ => 0,
        }
    }

    /// Writes slot `s`'s accumulator in the snapshot format (module docs).
    /// A slot out of range writes the empty accumulator.
    pub(crate) fn write(&self, s: usize, w: &mut Writer) {
        match &self.cols {
            Cols::Count(v) => {
                w.u8(0);
                w.i64(v.get(s).copied().unwrap_or(0))
            }
            Cols::SumI(v) => {
                let a = v.get(s).copied().unwrap_or_default();
                w.u8(1);
                w.i64(a.sum);
                w.i64(a.n)
            }
            Cols::SumF(v) => {
                let a = v.get(s).copied().unwrap_or(empty_sum_f(self.r.kind));
                w.u8(2);
                w.u8(a.sum.is_some() as u8);
                w.f64(a.sum.unwrap_or(0.0));
                w.i64(a.n)
            }
            Cols::CurI(v) => {
                let a = v.get(s).copied().flatten();
                w.u8(3);
                w.u8(a.is_some() as u8);
                w.i64(a.unwrap_or(0))
            }
            Cols::CurF(v) => {
                let a = v.get(s).copied().flatten();
                w.u8(4);
                w.u8(a.is_some() as u8);
                w.f64(a.unwrap_or(0.0))
            }
            Cols::CurS(v) => {
                let a = v.get(s).and_then(|x| x.as_deref());
                w.u8(5);
                w.u8(a.is_some() as u8);
                w.bytes(a.unwrap_or(&[]))
            }
            Cols::SetI(v) => write_set(w, 6, v.get(s), |w, k| w.i64(*k)),
            Cols::SetF(v) => write_set(w, 7, v.get(s), |w, k| w.f64(k.0)),
            Cols::SetS(v) => write_set(w, 8, v.get(s), |w, k| w.bytes(k)),
            Cols::HistI(v) => write_hist(w, v.get(s), |w, x| {
                w.u8(0);
                w.i64(*x)
            }),
            Cols::HistF(v) => write_hist(w, v.get(s), |w, x| {
                w.u8(1);
                w.f64(*x)
            }),
            Cols::HistS(v) => write_hist(w, v.get(s), |w, x| {
                w.u8(2);
                w.bytes(x)
            }),
        }
    }

    /// Reads one accumulator of the snapshot format into slot `s` (which
    /// must exist); an accumulator of another shape than this aggregate's
    /// is [`Error::CorruptSnapshot`](crate::Error::CorruptSnapshot).
    pub(crate) fn read(&mut self, s: usize, r: &mut Reader<'_>) -> Result<()> {
        let tag = r.u8("accumulator tag")?;
        let want = match &self.cols {
            Cols::Count(_) => 0,
            Cols::SumI(_) => 1,
            Cols::SumF(_) => 2,
            Cols::CurI(_) => 3,
            Cols::CurF(_) => 4,
            Cols::CurS(_) => 5,
            Cols::SetI(_) => 6,
            Cols::SetF(_) => 7,
            Cols::SetS(_) => 8,
            Cols::HistI(_) | Cols::HistF(_) | Cols::HistS(_) => 9,
        };
        if tag != want {
            return Err(if tag > 9 {
                r.corrupt(format!("unknown accumulator tag {tag}"))
            } else {
                r.corrupt("accumulator kind does not match the operator's aggregate")
            });
        }
        let missing = || crate::error::invalid_arg("restore: accumulator slot missing");
        match &mut self.cols {
            Cols::Count(v) => *v.get_mut(s).ok_or_else(missing)? = r.i64("count")?,
            Cols::SumI(v) => *v.get_mut(s).ok_or_else(missing)? = SumI { sum: r.i64("sum")?, n: r.i64("count")? },
            Cols::SumF(v) => {
                let some = r.u8("flag")? != 0;
                let sum = r.f64("sum")?;
                *v.get_mut(s).ok_or_else(missing)? = SumF { sum: some.then_some(sum), n: r.i64("count")? };
            }
            Cols::CurI(v) => {
                let some = r.u8("flag")? != 0;
                let x = r.i64("value")?;
                *v.get_mut(s).ok_or_else(missing)? = some.then_some(x);
            }
            Cols::CurF(v) => {
                let some = r.u8("flag")? != 0;
                let x = r.f64("value")?;
                *v.get_mut(s).ok_or_else(missing)? = some.then_some(x);
            }
            Cols::CurS(v) => {
                let some = r.u8("flag")? != 0;
                let x = r.bytes("value")?;
                *v.get_mut(s).ok_or_else(missing)? = some.then(|| Box::from(x));
            }
            Cols::SetI(v) => *v.get_mut(s).ok_or_else(missing)? = read_set(r, 16, |r| r.i64("value"))?,
            Cols::SetF(v) => *v.get_mut(s).ok_or_else(missing)? = read_set(r, 16, |r| Ok(OrdF64(r.f64("value")?)))?,
            Cols::SetS(v) => {
                *v.get_mut(s).ok_or_else(missing)? = read_set(r, 12, |r| Ok(Box::<[u8]>::from(r.bytes("value")?)))?
            }
            Cols::HistI(v) => *v.get_mut(s).ok_or_else(missing)? = read_hist(r, 0, |r| r.i64("value"))?,
            Cols::HistF(v) => *v.get_mut(s).ok_or_else(missing)? = read_hist(r, 1, |r| r.f64("value"))?,
            Cols::HistS(v) => {
                *v.get_mut(s).ok_or_else(missing)? = read_hist(r, 2, |r| Ok(Box::<[u8]>::from(r.bytes("value")?)))?
            }
        }
        Ok(())
    }
}

fn write_set<K>(w: &mut Writer, tag: u8, m: Option<&BTreeMap<K, u64>>, key: impl Fn(&mut Writer, &K)) {
    w.u8(tag);
    let Some(m) = m else { return w.u32(0) };
    w.u32(m.len() as u32);
    for (k, c) in m {
        key(w, k);
        w.u64(*c);
    }
}

fn write_hist<T>(w: &mut Writer, h: Option<&VecDeque<T>>, val: impl Fn(&mut Writer, &T)) {
    w.u8(9);
    let Some(h) = h else { return w.u32(0) };
    w.u32(h.len() as u32);
    for x in h {
        val(w, x);
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

fn read_hist<T>(r: &mut Reader<'_>, tag: u8, val: impl Fn(&mut Reader<'_>) -> Result<T>) -> Result<VecDeque<T>> {
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
