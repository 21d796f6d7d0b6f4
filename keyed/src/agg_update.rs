//! The per-batch aggregate loops of the GROUP BY: one typed loop per
//! aggregate over the rows of a batch (column-major), in row order.
//!
//! The operator first resolves every row's group slot, decides its
//! [`op`](crate::agg_drive::op) (new group, accumulate, retract, delete,
//! skip) and assigns its output rows. Each aggregate then walks the rows in
//! order ([`drive`]), applying row `i` to the accumulator of slot `slots[i]`
//! and writing its value before and after the row to the row's output
//! positions. Aggregates are independent of each other, so doing them one at
//! a time gives every row exactly the before/after values of a row-at-a-time
//! loop over all aggregates (Flink's `GroupAggFunction`), while the kind of
//! each aggregate is matched once per batch and its input column is
//! downcast once per batch.

use std::collections::{BTreeMap, VecDeque};

use arrow_array::cast::AsArray;
use arrow_array::types::{Float64Type, Int64Type};
use arrow_array::{Array, ArrayRef};
use arrow_schema::DataType;

use crate::agg::{AggKind, OrdF64};
use crate::agg_drive::{drive, drive_in_place, drive_str, Every, OutBuf, Plan, Prim, Strs, Valid, Views};
use crate::agg_state::{
    empty_sum_f, heap_cur_s, heap_hist, heap_hist_s, heap_set, heap_set_s, AggState, Cols, SumF, SumI, ENTRY,
};
use crate::error::{invalid_arg, Error, Result};

#[inline(always)]
fn sign(acc: bool) -> i64 {
    if acc {
        1
    } else {
        -1
    }
}

#[inline(always)]
fn eq_i(a: u64, b: u64) -> bool {
    a == b
}

/// Flink's generated equaliser on DOUBLE: `==` (NaN never equal, -0.0 == 0.0).
#[inline(always)]
#[allow(clippy::float_cmp)]
fn eq_f(a: u64, b: u64) -> bool {
    f64::from_bits(a) == f64::from_bits(b)
}

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

fn set_min<K>(m: &BTreeMap<K, u64>) -> Option<&K> {
    m.keys().next()
}
fn set_max<K>(m: &BTreeMap<K, u64>) -> Option<&K> {
    m.keys().next_back()
}
fn set_s_min(m: &BTreeMap<Box<[u8]>, u64>) -> Option<&[u8]> {
    m.keys().next().map(|k| &**k)
}
fn set_s_max(m: &BTreeMap<Box<[u8]>, u64>) -> Option<&[u8]> {
    m.keys().next_back().map(|k| &**k)
}
fn hist_s_first(h: &VecDeque<Box<[u8]>>) -> Option<&[u8]> {
    h.front().map(|k| &**k)
}
fn hist_s_last(h: &VecDeque<Box<[u8]>>) -> Option<&[u8]> {
    h.back().map(|k| &**k)
}
fn cur_s(v: &Option<Box<[u8]>>) -> Option<&[u8]> {
    v.as_deref()
}

/// Runs `$body` with `$inp` bound to a `Fn(usize) -> Option<&[u8]>` over the
/// string column `$a` (one instantiation per string layout).
macro_rules! with_str_input {
    ($a:expr, $inp:ident => $body:expr) => {{
        let a: &ArrayRef = $a;
        match a.data_type() {
            DataType::Utf8 => {
                let $inp = Strs(a.as_string::<i32>());
                $body
            }
            DataType::LargeUtf8 => {
                let $inp = Strs(a.as_string::<i64>());
                $body
            }
            DataType::Utf8View => {
                let $inp = Views(a.as_string_view());
                $body
            }
            other => return Err(wrong_type(other)),
        }
    }};
}

fn wrong_type(dt: &DataType) -> Error {
    invalid_arg(format!("aggregate input column of type {dt} does not match the operator's schema"))
}

/// The values of a BIGINT column.
fn i64_input(a: &ArrayRef) -> Result<Prim<'_, i64>> {
    let p = a.as_primitive_opt::<Int64Type>().ok_or_else(|| wrong_type(a.data_type()))?;
    Ok(Prim { values: p.values(), nulls: p.nulls() })
}

/// The values of a DOUBLE column.
fn f64_input(a: &ArrayRef) -> Result<Prim<'_, f64>> {
    let p = a.as_primitive_opt::<Float64Type>().ok_or_else(|| wrong_type(a.data_type()))?;
    Ok(Prim { values: p.values(), nulls: p.nulls() })
}

impl AggState {
    /// Applies the planned rows of one batch (`columns` = the batch's
    /// columns) to this aggregate, writing each row's value before and after
    /// it to its output positions in `out` and OR-ing "value changed" into
    /// `changed[row]`.
    /// Returns the change in heap bytes.
    ///
    /// # Errors
    /// An input column missing or of another type than at construction.
    pub(crate) fn update(
        &mut self,
        columns: &[ArrayRef],
        plan: &Plan<'_>,
        out: &mut OutBuf,
        changed: &mut [bool],
    ) -> Result<isize> {
        let kind = self.r.kind;
        let col = match self.r.column {
            Some(c) => Some(columns.get(c).ok_or_else(|| invalid_arg(format!("aggregate input column {c} missing")))?),
            None => None,
        };
        let b = Batch { kind, col, plan, out, changed };
        let d = match &mut self.cols {
            Cols::Count(st) => st.update_batch(b)?,
            Cols::SumI(st) => st.update_batch(b)?,
            Cols::SumF(st) => st.update_batch(b)?,
            Cols::CurI(st) => st.update_batch(b)?,
            Cols::CurF(st) => st.update_batch(b)?,
            Cols::CurS(st) => st.update_batch(b)?,
            Cols::SetI(st) => st.update_batch(b)?,
            Cols::SetF(st) => st.update_batch(b)?,
            Cols::SetS(st) => st.update_batch(b)?,
            Cols::HistI(st) => st.update_batch(b)?,
            Cols::HistF(st) => st.update_batch(b)?,
            Cols::HistS(st) => st.update_batch(b)?,
        };
        Ok(d)
    }
}

/// The accumulators of one aggregate for every group slot, updated a batch
/// at a time by slot index (DataFusion's `GroupsAccumulator::update_batch`
/// is the model). Each [`Cols`] state vector is one aggregate family; its
/// update is one monomorphised loop over the batch.
trait GroupsUpdate {
    /// Applies the batch's planned rows to their groups, writing each row's
    /// value before and after it; returns the change in heap bytes.
    fn update_batch(&mut self, b: Batch<'_, '_>) -> Result<isize>;
}

macro_rules! groups_update {
    ($($state:ty => $update:ident),* $(,)?) => {
        $(impl GroupsUpdate for Vec<$state> {
            #[inline]
            fn update_batch(&mut self, b: Batch<'_, '_>) -> Result<isize> {
                $update(self, b)
            }
        })*
    };
}

groups_update!(
    i64 => update_count,
    SumI => update_sum_i,
    SumF => update_sum_f,
    Option<i64> => update_cur_i,
    Option<f64> => update_cur_f,
    Option<Box<[u8]>> => update_cur_s,
    BTreeMap<i64, u64> => update_set_i,
    BTreeMap<OrdF64, u64> => update_set_f,
    BTreeMap<Box<[u8]>, u64> => update_set_s,
    VecDeque<i64> => update_hist_i,
    VecDeque<f64> => update_hist_f,
    VecDeque<Box<[u8]>> => update_hist_s,
);

/// One batch as an aggregate's update sees it: its kind, its input column
/// (if any), the planned rows and where their values go.
struct Batch<'a, 'p> {
    kind: AggKind,
    col: Option<&'a ArrayRef>,
    plan: &'a Plan<'p>,
    out: &'a mut OutBuf,
    changed: &'a mut [bool],
}

/// `COUNT(*)` / `COUNT(x)`: a count per group.
fn update_count(st: &mut [i64], b: Batch<'_, '_>) -> Result<isize> {
    let Batch { kind, col, plan, out, changed } = b;
    Ok({
        let apply = |c: &mut i64, x: bool, acc: bool| {
            if x {
                *c += sign(acc);
            }
            0
        };
        let value = |c: &i64| Some(*c as u64);
        let clear = |c: &mut i64| {
            *c = 0;
            0
        };
        match col.filter(|_| kind == AggKind::Count) {
            None => drive(st, plan, out, changed, Every, apply, value, eq_i, clear),
            Some(a) => drive(st, plan, out, changed, Valid(a.nulls()), apply, value, eq_i, clear),
        }
    })
}

/// `SUM` / `AVG` of BIGINT: sum and count of non-NULL values.
fn update_sum_i(st: &mut [SumI], b: Batch<'_, '_>) -> Result<isize> {
    let Batch { kind, col, plan, out, changed } = b;
    let input = || col.ok_or_else(|| invalid_arg(format!("{kind:?} needs an input column")));
    Ok({
        let inp = i64_input(input()?)?;
        let apply = |s: &mut SumI, x: Option<i64>, acc: bool| {
            if let Some(v) = x {
                s.sum = if acc { s.sum.wrapping_add(v) } else { s.sum.wrapping_sub(v) };
                s.n += sign(acc);
            }
            0
        };
        let clear = |s: &mut SumI| {
            *s = SumI::default();
            0
        };
        if kind == AggKind::Avg {
            // Java long division.
            let value = |s: &SumI| (s.n != 0).then(|| s.sum.wrapping_div(s.n) as u64);
            drive(st, plan, out, changed, inp, apply, value, eq_i, clear)
        } else if kind == AggKind::Sum0 {
            // `$SUM0`: never NULL (Sum0AggFunction).
            let value = |s: &SumI| Some(s.sum as u64);
            drive(st, plan, out, changed, inp, apply, value, eq_i, clear)
        } else {
            let value = |s: &SumI| (s.n != 0).then_some(s.sum as u64);
            drive(st, plan, out, changed, inp, apply, value, eq_i, clear)
        }
    })
}

/// `SUM` / `AVG` of DOUBLE.
fn update_sum_f(st: &mut [SumF], b: Batch<'_, '_>) -> Result<isize> {
    let Batch { kind, col, plan, out, changed } = b;
    let input = || col.ok_or_else(|| invalid_arg(format!("{kind:?} needs an input column")));
    Ok({
        let inp = f64_input(input()?)?;
        let apply = |s: &mut SumF, x: Option<f64>, acc: bool| {
            if let Some(v) = x {
                // plus(sum, v) / minus(sum, v), a NULL sum taken as v / 0 - v.
                s.sum = Some(match (s.sum, acc) {
                    (None, true) => v,
                    (None, false) => 0.0 - v,
                    (Some(t), true) => t + v,
                    (Some(t), false) => t - v,
                });
                s.n += sign(acc);
            }
            0
        };
        let empty = empty_sum_f(kind);
        let clear = move |s: &mut SumF| {
            *s = empty;
            0
        };
        if kind == AggKind::Avg {
            let value = |s: &SumF| if s.n == 0 { None } else { s.sum.map(|t| (t / s.n as f64).to_bits()) };
            drive(st, plan, out, changed, inp, apply, value, eq_f, clear)
        } else if kind == AggKind::Sum0 {
            let value = |s: &SumF| Some(s.sum.unwrap_or(0.0).to_bits());
            drive(st, plan, out, changed, inp, apply, value, eq_f, clear)
        } else {
            let value = |s: &SumF| if s.n == 0 { None } else { s.sum.map(f64::to_bits) };
            drive(st, plan, out, changed, inp, apply, value, eq_f, clear)
        }
    })
}

/// Append-only `MIN` / `MAX` / `FIRST_VALUE` / `LAST_VALUE` of BIGINT: the current value.
fn update_cur_i(st: &mut [Option<i64>], b: Batch<'_, '_>) -> Result<isize> {
    let Batch { kind, col, plan, out, changed } = b;
    let input = || col.ok_or_else(|| invalid_arg(format!("{kind:?} needs an input column")));
    Ok({
        let inp = i64_input(input()?)?;
        let value = |s: &Option<i64>| s.map(|v| v as u64);
        let clear = |s: &mut Option<i64>| {
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
                    |s: &mut Option<i64>, x: Option<i64>, _| {
                        if let Some(v) = x {
                            *s = Some(s.map_or(v, |c| $f(c, v)));
                        }
                        0
                    },
                    value,
                    eq_i,
                    clear,
                )
            };
        }
        match kind {
            AggKind::Min => cur!(|c: i64, v: i64| c.min(v)),
            AggKind::Max => cur!(|c: i64, v: i64| c.max(v)),
            AggKind::FirstValue => cur!(|c: i64, _v: i64| c),
            _ => cur!(|_c: i64, v: i64| v),
        }
    })
}

/// Append-only `MIN` / `MAX` / `FIRST_VALUE` / `LAST_VALUE` of DOUBLE.
fn update_cur_f(st: &mut [Option<f64>], b: Batch<'_, '_>) -> Result<isize> {
    let Batch { kind, col, plan, out, changed } = b;
    let input = || col.ok_or_else(|| invalid_arg(format!("{kind:?} needs an input column")));
    Ok({
        let inp = f64_input(input()?)?;
        let value = |s: &Option<f64>| s.map(f64::to_bits);
        let clear = |s: &mut Option<f64>| {
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
                    |s: &mut Option<f64>, x: Option<f64>, _| {
                        if let Some(v) = x {
                            *s = Some(s.map_or(v, |c| $f(c, v)));
                        }
                        0
                    },
                    value,
                    eq_f,
                    clear,
                )
            };
        }
        match kind {
            AggKind::Min => cur!(|c: f64, v: f64| if OrdF64(v) < OrdF64(c) { v } else { c }),
            AggKind::Max => cur!(|c: f64, v: f64| if OrdF64(v) > OrdF64(c) { v } else { c }),
            AggKind::FirstValue => cur!(|c: f64, _v: f64| c),
            _ => cur!(|_c: f64, v: f64| v),
        }
    })
}

/// Append-only `MIN` / `MAX` / `FIRST_VALUE` / `LAST_VALUE` of strings.
fn update_cur_s(st: &mut [Option<Box<[u8]>>], b: Batch<'_, '_>) -> Result<isize> {
    let Batch { kind, col, plan, out, changed } = b;
    let input = || col.ok_or_else(|| invalid_arg(format!("{kind:?} needs an input column")));
    Ok({
        let clear = |s: &mut Option<Box<[u8]>>| s.take().map_or(0, |b| b.len());
        with_str_input!(input()?, inp => {
            macro_rules! cur {
                ($replace:expr) => {
                    drive_str(st, plan, out, changed, inp, |s: &mut Option<Box<[u8]>>, x: Option<&[u8]>, _| {
                        let Some(v) = x else { return 0 };
                        if !$replace(s.as_deref(), v) {
                            return 0;
                        }
                        let old = heap_cur_s(s);
                        *s = Some(Box::from(v));
                        v.len() as isize - old as isize
                    }, cur_s, clear)
                };
            }
            match kind {
                AggKind::Min => cur!(|c: Option<&[u8]>, v: &[u8]| c.is_none_or(|c| v < c)),
                AggKind::Max => cur!(|c: Option<&[u8]>, v: &[u8]| c.is_none_or(|c| v > c)),
                AggKind::FirstValue => cur!(|c: Option<&[u8]>, _v: &[u8]| c.is_none()),
                _ => cur!(|c: Option<&[u8]>, v: &[u8]| c.is_none_or(|c| v != c)),
            }
        })
    })
}

/// Retractable `MIN` / `MAX` of BIGINT: value → count.
fn update_set_i(st: &mut [BTreeMap<i64, u64>], b: Batch<'_, '_>) -> Result<isize> {
    let Batch { kind, col, plan, out, changed } = b;
    let input = || col.ok_or_else(|| invalid_arg(format!("{kind:?} needs an input column")));
    Ok({
        let inp = i64_input(input()?)?;
        let apply = |m: &mut BTreeMap<i64, u64>, x: Option<i64>, acc: bool| x.map_or(0, |v| multiset(m, v, acc, 0));
        let clear = |m: &mut BTreeMap<i64, u64>| {
            let h = heap_set(m);
            m.clear();
            h
        };
        if kind == AggKind::Min {
            drive_in_place(st, plan, out, changed, inp, apply, |m| set_min(m).map(|v| *v as u64), eq_i, clear)
        } else {
            drive_in_place(st, plan, out, changed, inp, apply, |m| set_max(m).map(|v| *v as u64), eq_i, clear)
        }
    })
}

/// Retractable `MIN` / `MAX` of DOUBLE.
fn update_set_f(st: &mut [BTreeMap<OrdF64, u64>], b: Batch<'_, '_>) -> Result<isize> {
    let Batch { kind, col, plan, out, changed } = b;
    let input = || col.ok_or_else(|| invalid_arg(format!("{kind:?} needs an input column")));
    Ok({
        let inp = f64_input(input()?)?;
        let apply =
            |m: &mut BTreeMap<OrdF64, u64>, x: Option<f64>, acc: bool| x.map_or(0, |v| multiset(m, OrdF64(v), acc, 0));
        let clear = |m: &mut BTreeMap<OrdF64, u64>| {
            let h = heap_set(m);
            m.clear();
            h
        };
        if kind == AggKind::Min {
            drive_in_place(st, plan, out, changed, inp, apply, |m| set_min(m).map(|v| v.0.to_bits()), eq_f, clear)
        } else {
            drive_in_place(st, plan, out, changed, inp, apply, |m| set_max(m).map(|v| v.0.to_bits()), eq_f, clear)
        }
    })
}

/// Retractable `MIN` / `MAX` of strings (probes borrow the input bytes).
fn update_set_s(st: &mut [BTreeMap<Box<[u8]>, u64>], b: Batch<'_, '_>) -> Result<isize> {
    let Batch { kind, col, plan, out, changed } = b;
    let input = || col.ok_or_else(|| invalid_arg(format!("{kind:?} needs an input column")));
    Ok({
        let clear = |m: &mut BTreeMap<Box<[u8]>, u64>| {
            let h = heap_set_s(m);
            m.clear();
            h
        };
        let min = kind == AggKind::Min;
        with_str_input!(input()?, inp => {
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
                drive_str(st, plan, out, changed, inp, apply, set_s_min, clear)
            } else {
                drive_str(st, plan, out, changed, inp, apply, set_s_max, clear)
            }
        })
    })
}

/// Retractable `FIRST_VALUE` / `LAST_VALUE` of BIGINT: non-NULL values in arrival order.
fn update_hist_i(st: &mut [VecDeque<i64>], b: Batch<'_, '_>) -> Result<isize> {
    let Batch { kind, col, plan, out, changed } = b;
    let input = || col.ok_or_else(|| invalid_arg(format!("{kind:?} needs an input column")));
    Ok({
        let inp = i64_input(input()?)?;
        let apply = |h: &mut VecDeque<i64>, x: Option<i64>, acc: bool| {
            let Some(v) = x else { return 0 };
            if acc {
                h.push_back(v);
                ENTRY as isize
            } else {
                hist_remove(h, |y| *y == v, 0)
            }
        };
        let clear = |h: &mut VecDeque<i64>| {
            let n = heap_hist(h);
            h.clear();
            n
        };
        if kind == AggKind::FirstValue {
            drive_in_place(st, plan, out, changed, inp, apply, |h| h.front().map(|v| *v as u64), eq_i, clear)
        } else {
            drive_in_place(st, plan, out, changed, inp, apply, |h| h.back().map(|v| *v as u64), eq_i, clear)
        }
    })
}

/// Retractable `FIRST_VALUE` / `LAST_VALUE` of DOUBLE.
fn update_hist_f(st: &mut [VecDeque<f64>], b: Batch<'_, '_>) -> Result<isize> {
    let Batch { kind, col, plan, out, changed } = b;
    let input = || col.ok_or_else(|| invalid_arg(format!("{kind:?} needs an input column")));
    Ok({
        let inp = f64_input(input()?)?;
        let apply = |h: &mut VecDeque<f64>, x: Option<f64>, acc: bool| {
            let Some(v) = x else { return 0 };
            if acc {
                h.push_back(v);
                ENTRY as isize
            } else {
                hist_remove(h, |y| OrdF64(*y) == OrdF64(v), 0)
            }
        };
        let clear = |h: &mut VecDeque<f64>| {
            let n = heap_hist(h);
            h.clear();
            n
        };
        if kind == AggKind::FirstValue {
            drive_in_place(st, plan, out, changed, inp, apply, |h| h.front().map(|v| v.to_bits()), eq_f, clear)
        } else {
            drive_in_place(st, plan, out, changed, inp, apply, |h| h.back().map(|v| v.to_bits()), eq_f, clear)
        }
    })
}

/// Retractable `FIRST_VALUE` / `LAST_VALUE` of strings.
fn update_hist_s(st: &mut [VecDeque<Box<[u8]>>], b: Batch<'_, '_>) -> Result<isize> {
    let Batch { kind, col, plan, out, changed } = b;
    let input = || col.ok_or_else(|| invalid_arg(format!("{kind:?} needs an input column")));
    Ok({
        let clear = |h: &mut VecDeque<Box<[u8]>>| {
            let n = heap_hist_s(h);
            h.clear();
            n
        };
        let first = kind == AggKind::FirstValue;
        with_str_input!(input()?, inp => {
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
                drive_str(st, plan, out, changed, inp, apply, hist_s_first, clear)
            } else {
                drive_str(st, plan, out, changed, inp, apply, hist_s_last, clear)
            }
        })
    })
}
