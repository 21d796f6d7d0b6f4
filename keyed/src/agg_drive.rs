//! The row loop shared by every aggregate of the GROUP BY: walk the planned
//! rows of a batch in order, apply each to its group slot's accumulator, and
//! write the aggregate's value before and after the row straight to the
//! output positions the operator assigned to that row.
//!
//! The drivers are generic over the accumulator and the input accessor and
//! `#[inline(always)]`, so each aggregate kind gets its own monomorphised
//! loop with no per-row dispatch.

use std::ops::Range;

use crate::agg::VType;

/// Per-row operation codes decided by the operator's lifecycle pass.
pub(crate) mod op {
    /// Row leaves state untouched (a retraction for a key without state).
    pub(crate) const SKIP: u8 = 0;
    /// Accumulate row that creates the group (its slot is empty).
    pub(crate) const NEW: u8 = 1;
    /// Accumulate row of an existing group.
    pub(crate) const ACC: u8 = 2;
    /// Retraction that leaves a positive record count.
    pub(crate) const RET: u8 = 3;
    /// Retraction that brings the record count to 0: the accumulators are
    /// cleared (only the value before the row is emitted).
    pub(crate) const DEL: u8 = 4;
}

/// Output position of a value that is not emitted.
pub(crate) const NOWHERE: u32 = u32::MAX;

/// The rows of a batch an aggregate pass covers: their slots, ops, and the
/// output positions `[before, after]` of each row's values ([`NOWHERE`] when
/// not emitted); `len` output rows are assigned so far.
pub(crate) struct Plan<'a> {
    pub(crate) slots: &'a [u32],
    pub(crate) ops: &'a [u8],
    pub(crate) dst: &'a [[u32; 2]],
    pub(crate) rows: Range<usize>,
    pub(crate) len: usize,
}

/// One aggregate's output column under construction, in output-row order:
/// raw i64/f64 bits in `vals`, or string spans `arena[vals[j]..ends[j]]`.
#[derive(Default)]
pub(crate) struct OutBuf {
    pub(crate) vals: Vec<u64>,
    pub(crate) valid: Vec<bool>,
    pub(crate) ends: Vec<usize>,
    pub(crate) arena: Vec<u8>,
}

impl OutBuf {
    /// Starts a batch expecting up to `cap` output rows of type `t`.
    pub(crate) fn start(&mut self, cap: usize, t: VType) {
        // `vals` and `valid` are handed to the output arrays, so they are
        // fresh per batch; the string arena and spans are reused.
        self.vals = Vec::with_capacity(cap);
        self.valid = Vec::with_capacity(cap);
        self.ends.clear();
        self.arena.clear();
        if t == VType::Str {
            self.ends.reserve(cap);
        }
    }

    /// Grows the buffers to `len` output rows.
    fn grow(&mut self, len: usize, strings: bool) {
        if self.vals.len() < len {
            self.vals.resize(len, 0);
            self.valid.resize(len, false);
            if strings {
                self.ends.resize(len, 0);
            }
        }
    }
}

#[inline(always)]
fn put(vals: &mut [u64], valid: &mut [bool], at: u32, v: Option<u64>) {
    if let (Some(x), Some(ok)) = (vals.get_mut(at as usize), valid.get_mut(at as usize)) {
        *x = v.unwrap_or(0);
        *ok = v.is_some();
    }
}

/// The numeric driver: applies each planned row to its slot's accumulator
/// and writes the values before/after the row to its output positions.
/// Returns the change in heap bytes.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(crate) fn drive<S, X>(
    st: &mut [S],
    plan: &Plan<'_>,
    out: &mut OutBuf,
    changed: &mut [bool],
    input: impl Fn(usize) -> X,
    apply: impl Fn(&mut S, X, bool) -> isize,
    value: impl Fn(&S) -> Option<u64>,
    same: impl Fn(u64, u64) -> bool,
    clear: impl Fn(&mut S) -> usize,
) -> isize {
    out.grow(plan.len, false);
    let r = plan.rows.clone();
    let OutBuf { vals, valid, .. } = out;
    let (Some(ops), Some(slots), Some(dst), Some(ch)) =
        (plan.ops.get(r.clone()), plan.slots.get(r.clone()), plan.dst.get(r.clone()), changed.get_mut(r.clone()))
    else {
        debug_assert!(false, "plan longer than the batch buffers");
        return 0;
    };
    let mut delta = 0isize;
    for (k, (((&o, &slot), &[b, a]), ch)) in ops.iter().zip(slots).zip(dst).zip(ch.iter_mut()).enumerate() {
        if o == op::SKIP {
            continue;
        }
        let Some(s) = st.get_mut(slot as usize) else { continue };
        let before = value(s);
        put(vals, valid, b, before);
        if o == op::DEL {
            delta -= clear(s) as isize;
            continue;
        }
        delta += apply(s, input(r.start + k), o != op::RET);
        let after = value(s);
        put(vals, valid, a, after);
        let same = match (before, after) {
            (Some(x), Some(y)) => same(x, y),
            (None, None) => true,
            _ => false,
        };
        *ch |= !same && o != op::NEW;
    }
    delta
}

#[inline(always)]
fn copy_in(arena: &mut Vec<u8>, x: &[u8]) -> (usize, usize) {
    let start = arena.len();
    arena.extend_from_slice(x);
    (start, arena.len())
}

#[inline(always)]
fn put_span(vals: &mut [u64], valid: &mut [bool], ends: &mut [usize], at: u32, v: Option<(usize, usize)>) {
    if let (Some(x), Some(ok), Some(e)) =
        (vals.get_mut(at as usize), valid.get_mut(at as usize), ends.get_mut(at as usize))
    {
        (*x, *e, *ok) = v.map_or((0, 0, false), |(s, z)| (s as u64, z, true));
    }
}

/// The string driver: as [`drive`], with values copied into the output's
/// arena (a value equal to the one before the row is not copied twice).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(crate) fn drive_str<S, X, V>(
    st: &mut [S],
    plan: &Plan<'_>,
    out: &mut OutBuf,
    changed: &mut [bool],
    input: impl Fn(usize) -> X,
    apply: impl Fn(&mut S, X, bool) -> isize,
    value: V,
    clear: impl Fn(&mut S) -> usize,
) -> isize
where
    V: for<'s> Fn(&'s S) -> Option<&'s [u8]>,
{
    out.grow(plan.len, true);
    let r = plan.rows.clone();
    let OutBuf { vals, valid, ends, arena } = out;
    let (Some(ops), Some(slots), Some(dst), Some(ch)) =
        (plan.ops.get(r.clone()), plan.slots.get(r.clone()), plan.dst.get(r.clone()), changed.get_mut(r.clone()))
    else {
        debug_assert!(false, "plan longer than the batch buffers");
        return 0;
    };
    let mut delta = 0isize;
    for (k, (((&o, &slot), &[b, a]), ch)) in ops.iter().zip(slots).zip(dst).zip(ch.iter_mut()).enumerate() {
        if o == op::SKIP {
            continue;
        }
        let Some(s) = st.get_mut(slot as usize) else { continue };
        // The value before the row is needed to emit it or to compare.
        let before = if o == op::NEW { None } else { value(s).map(|x| copy_in(arena, x)) };
        put_span(vals, valid, ends, b, before);
        if o == op::DEL {
            delta -= clear(s) as isize;
            continue;
        }
        delta += apply(s, input(r.start + k), o != op::RET);
        let after = value(s);
        let same = match (before, after) {
            (Some((x, z)), Some(y)) => arena.get(x..z) == Some(y),
            (None, None) => true,
            _ => false,
        };
        let after = if same { before } else { after.map(|x| copy_in(arena, x)) };
        put_span(vals, valid, ends, a, after);
        *ch |= !same && o != op::NEW;
    }
    delta
}
