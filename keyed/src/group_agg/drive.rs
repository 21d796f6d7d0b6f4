//! The row loop shared by every aggregate of the GROUP BY: walk the planned
//! rows of a batch in order, apply each to its group slot's accumulator, and
//! append the aggregate's values before/after the row that the changelog
//! emits straight to the aggregate's output column.
//!
//! The drivers are generic over the accumulator and the input accessor and
//! `#[inline(always)]`, so each aggregate kind gets its own monomorphised
//! loop with no per-row dispatch.

use std::mem::MaybeUninit;
use std::ops::Range;

use arrow_array::{Array, GenericStringArray, OffsetSizeTrait, StringViewArray};
use arrow_buffer::NullBuffer;

/// An aggregate's input column for one batch, read by row index. The
/// implementations are `#[inline(always)]` so the read folds into each
/// aggregate's loop.
pub(crate) trait RowInput {
    type Item;
    fn at(&self, i: usize) -> Self::Item;
}

/// Whether row `i` is valid under `nulls` (rows past the buffer are NULL).
#[inline(always)]
fn is_valid(nulls: Option<&NullBuffer>, i: usize) -> bool {
    nulls.is_none_or(|n| i < n.len() && n.is_valid(i))
}

/// Every row counts (COUNT(*)).
pub(crate) struct Every;

impl RowInput for Every {
    type Item = bool;
    #[inline(always)]
    fn at(&self, _: usize) -> bool {
        true
    }
}

/// Whether the row's value is non-NULL (COUNT(col)).
pub(crate) struct Valid<'a>(pub(crate) Option<&'a NullBuffer>);

impl RowInput for Valid<'_> {
    type Item = bool;
    #[inline(always)]
    fn at(&self, i: usize) -> bool {
        is_valid(self.0, i)
    }
}

/// The non-NULL values of a primitive column (NULL → `None`).
pub(crate) struct Prim<'a, T> {
    pub(crate) values: &'a [T],
    pub(crate) nulls: Option<&'a NullBuffer>,
}

impl<T: Copy> RowInput for Prim<'_, T> {
    type Item = Option<T>;
    #[inline(always)]
    fn at(&self, i: usize) -> Option<T> {
        if is_valid(self.nulls, i) {
            self.values.get(i).copied()
        } else {
            None
        }
    }
}

/// The non-NULL values of a Utf8 / LargeUtf8 column, as bytes.
pub(crate) struct Strs<'a, O: OffsetSizeTrait>(pub(crate) &'a GenericStringArray<O>);

impl<'a, O: OffsetSizeTrait> RowInput for Strs<'a, O> {
    type Item = Option<&'a [u8]>;
    #[inline(always)]
    fn at(&self, i: usize) -> Option<&'a [u8]> {
        let a = self.0;
        (i < a.len() && a.is_valid(i)).then(|| a.value(i).as_bytes())
    }
}

/// The non-NULL values of a Utf8View column, as bytes.
pub(crate) struct Views<'a>(pub(crate) &'a StringViewArray);

impl<'a> RowInput for Views<'a> {
    type Item = Option<&'a [u8]>;
    #[inline(always)]
    fn at(&self, i: usize) -> Option<&'a [u8]> {
        let a = self.0;
        (i < a.len() && a.is_valid(i)).then(|| a.value(i).as_bytes())
    }
}

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

/// The rows of a batch an aggregate pass covers, with their slots and ops.
///
/// Each row's output rows follow in row order, as `GroupAggFunction` emits
/// them if the row changes its group's values: `+I (after)` for
/// [`op::NEW`], `-D (before)` for [`op::DEL`], `-U (before)` (when
/// `update_before`) and `+U (after)` for [`op::ACC`] / [`op::RET`]. The
/// drivers append those values in that order, so every aggregate's output
/// column lines up with the operator's row kinds.
pub(crate) struct Plan<'a> {
    pub(crate) slots: &'a [u32],
    pub(crate) ops: &'a [u8],
    pub(crate) rows: Range<usize>,
    pub(crate) update_before: bool,
    /// A running fold (OVER): every op is [`op::ACC`] and the caller reads
    /// only each row's value after it, never the value before it nor the
    /// "changed" flags. The numeric driver then runs a loop without them;
    /// the values it appends are the same.
    pub(crate) fold: bool,
}

/// One aggregate's pass over a batch: the planned rows and where their
/// values go (the aggregate's output column and the rows' "changed" flags).
pub(crate) struct Pass<'a, 'p> {
    pub(crate) plan: &'a Plan<'p>,
    pub(crate) out: &'a mut OutBuf,
    pub(crate) changed: &'a mut [bool],
}

impl Plan<'_> {
    /// The ops, slots and "changed" flags of the plan's rows (`None` if the
    /// plan is longer than the batch's buffers, which the operator rules out).
    #[inline(always)]
    fn rows_of<'c>(&'c self, changed: &'c mut [bool]) -> Option<(&'c [u8], &'c [u32], &'c mut [bool])> {
        let r = self.rows.clone();
        let got = (self.ops.get(r.clone()), self.slots.get(r.clone()), changed.get_mut(r));
        let (Some(ops), Some(slots), Some(changed)) = got else {
            debug_assert!(false, "plan longer than the batch buffers");
            return None;
        };
        Some((ops, slots, changed))
    }

    /// Whether the value before a row with op `o` is emitted.
    #[inline(always)]
    fn emits_before(&self, o: u8) -> bool {
        o == op::DEL || (self.update_before && o != op::NEW)
    }
}

/// Output rows of a row with op `o` if its values change.
#[inline(always)]
pub(crate) fn outputs_of(o: u8, update_before: bool) -> usize {
    match o {
        op::NEW | op::DEL => 1,
        op::ACC | op::RET => 1 + update_before as usize,
        _ => 0,
    }
}

/// One aggregate's output column under construction, in output-row order:
/// raw i64/f64 bits in `vals`, or string spans `arena[vals[j]..ends[j]]`.
#[derive(Default)]
pub(crate) struct OutBuf {
    pub(crate) vals: Vec<u64>,
    pub(crate) valid: Vec<bool>,
    /// Whether some appended value was NULL (then `valid` becomes a bitmap).
    pub(crate) any_null: bool,
    pub(crate) ends: Vec<usize>,
    pub(crate) arena: Vec<u8>,
}

impl OutBuf {
    /// Starts a batch expecting up to `cap` output rows.
    pub(crate) fn start(&mut self, cap: usize) {
        // `vals` becomes the output array's buffer, so it is fresh per
        // batch; validity, spans and the string arena are reused.
        self.vals = Vec::with_capacity(cap);
        self.valid.clear();
        self.valid.reserve(cap);
        self.any_null = false;
        self.ends.clear();
        self.arena.clear();
    }
}

/// Appends to a vector's spare capacity through a local cursor. Unlike
/// `Vec::push`, whose length the compiler must reload after every store into
/// the buffer, the cursor stays in a register; [`Sink::commit`] sets the
/// length once.
pub(crate) struct Sink<'a, T> {
    spare: &'a mut [MaybeUninit<T>],
    n: usize,
}

impl<'a, T> Sink<'a, T> {
    /// A sink with room for at least `extra` more elements of `v`.
    pub(crate) fn new(v: &'a mut Vec<T>, extra: usize) -> Self {
        v.reserve(extra);
        Sink { spare: v.spare_capacity_mut(), n: 0 }
    }

    /// Appends `x` (dropped if the reserved room is exhausted, which the
    /// callers' reservation rules out).
    #[inline(always)]
    pub(crate) fn push(&mut self, x: T) {
        if let Some(slot) = self.spare.get_mut(self.n) {
            slot.write(x);
            self.n += 1;
        }
    }

    /// Number of elements written.
    pub(crate) fn written(&self) -> usize {
        self.n
    }
}

/// Extends `v`'s length over the `n` elements a [`Sink`] on it wrote.
pub(crate) fn commit<T>(v: &mut Vec<T>, n: usize) {
    let len = v.len() + n;
    debug_assert!(len <= v.capacity());
    // SAFETY: a `Sink` created on `v` (and dropped before this call) wrote
    // exactly the first `n` elements of `v`'s spare capacity, in order, and
    // nothing touched `v` since: elements `v.len()..len` are initialised and
    // `len <= capacity` (the sink never writes past its spare slice).
    unsafe { v.set_len(len) }
}

#[inline(always)]
fn push(vals: &mut Sink<'_, u64>, valid: &mut Sink<'_, bool>, any_null: &mut bool, v: Option<u64>) {
    vals.push(v.unwrap_or(0));
    valid.push(v.is_some());
    *any_null |= v.is_none();
}

/// How a numeric driver reaches the accumulator of a row's slot.
pub(crate) trait SlotAccess<S> {
    /// The accumulator of `slot` (`None`: not a slot, the row is skipped).
    fn get(&mut self, slot: usize) -> Option<&mut S>;
    /// Writes back whatever is held outside the slots.
    fn finish(&mut self) {}
}

/// Accumulators updated where they are.
pub(crate) struct InPlace<'s, S>(pub(crate) &'s mut [S]);

impl<S> SlotAccess<S> for InPlace<'_, S> {
    #[inline(always)]
    fn get(&mut self, slot: usize) -> Option<&mut S> {
        self.0.get_mut(slot)
    }
}

/// The accumulator of the current slot held in a local while consecutive
/// rows hit the same slot (a key repeated in a run keeps its accumulator in
/// registers instead of a store→load chain through memory).
pub(crate) struct Held<'s, S: Copy> {
    st: &'s mut [S],
    /// The held slot (`usize::MAX`, no slot, at the start).
    held: usize,
    acc: S,
}

impl<'s, S: Copy + Default> Held<'s, S> {
    /// Holding no slot yet.
    pub(crate) fn new(st: &'s mut [S]) -> Self {
        // The initial value is replaced before use (no slot is usize::MAX).
        Held { st, held: usize::MAX, acc: S::default() }
    }
}

impl<S: Copy> SlotAccess<S> for Held<'_, S> {
    #[inline(always)]
    fn get(&mut self, slot: usize) -> Option<&mut S> {
        if slot != self.held {
            let next = *self.st.get(slot)?;
            self.finish();
            (self.held, self.acc) = (slot, next);
        }
        Some(&mut self.acc)
    }

    #[inline(always)]
    fn finish(&mut self) {
        if let Some(d) = self.st.get_mut(self.held) {
            *d = self.acc;
        }
    }
}

/// The numeric driver: applies each planned row to its slot's accumulator
/// (reached through `slots`: [`InPlace`] for accumulators that own heap
/// memory, multisets and histories; [`Held`] for small `Copy` ones) and
/// appends the values before/after the row as raw bits. Returns the change
/// in heap bytes.
#[inline(always)]
pub(crate) fn drive_with<S, X>(
    mut slots: impl SlotAccess<S>,
    pass: Pass<'_, '_>,
    input: impl RowInput<Item = X>,
    apply: impl Fn(&mut S, X, bool) -> isize,
    value: impl Fn(&S) -> Option<u64>,
    same: impl Fn(u64, u64) -> bool,
    clear: impl Fn(&mut S) -> usize,
) -> isize {
    let Pass { plan, out, changed } = pass;
    let r = plan.rows.clone();
    // At most two output rows per input row.
    let room = 2 * r.len();
    let (mut vals, mut valid) = (Sink::new(&mut out.vals, room), Sink::new(&mut out.valid, room));
    let mut any_null = false;
    let Some((ops, slot_ids, ch)) = plan.rows_of(changed) else { return 0 };
    let mut delta = 0isize;
    if plan.fold {
        // Every op is ACC (debug-checked): accumulate, append the value after.
        debug_assert!(ops.iter().all(|&o| o == op::ACC));
        for (k, &slot) in slot_ids.iter().enumerate() {
            let Some(s) = slots.get(slot as usize) else { continue };
            delta += apply(s, input.at(r.start + k), true);
            push(&mut vals, &mut valid, &mut any_null, value(s));
        }
        slots.finish();
        let (nv, nb) = (vals.written(), valid.written());
        commit(&mut out.vals, nv);
        commit(&mut out.valid, nb);
        out.any_null |= any_null;
        return delta;
    }
    for (k, ((&o, &slot), ch)) in ops.iter().zip(slot_ids).zip(ch.iter_mut()).enumerate() {
        if o == op::SKIP {
            continue;
        }
        let Some(s) = slots.get(slot as usize) else { continue };
        let before = value(s);
        if plan.emits_before(o) {
            push(&mut vals, &mut valid, &mut any_null, before);
        }
        if o == op::DEL {
            delta -= clear(s) as isize;
            continue;
        }
        delta += apply(s, input.at(r.start + k), o != op::RET);
        let after = value(s);
        push(&mut vals, &mut valid, &mut any_null, after);
        let same = match (before, after) {
            (Some(x), Some(y)) => same(x, y),
            (None, None) => true,
            _ => false,
        };
        *ch |= !same && o != op::NEW;
    }
    slots.finish();
    let (nv, nb) = (vals.written(), valid.written());
    commit(&mut out.vals, nv);
    commit(&mut out.valid, nb);
    out.any_null |= any_null;
    delta
}

#[inline(always)]
fn copy_in(arena: &mut Vec<u8>, x: &[u8]) -> (usize, usize) {
    let start = arena.len();
    arena.extend_from_slice(x);
    (start, arena.len())
}

#[inline(always)]
fn push_span(
    vals: &mut Vec<u64>,
    valid: &mut Vec<bool>,
    ends: &mut Vec<usize>,
    any_null: &mut bool,
    v: Option<(usize, usize)>,
) {
    let (x, e, ok) = v.map_or((0, 0, false), |(s, z)| (s as u64, z, true));
    vals.push(x);
    ends.push(e);
    valid.push(ok);
    *any_null |= !ok;
}

/// The string driver: as [`drive`], with values copied into the output's
/// arena (a value equal to the one before the row is not copied twice).
#[inline(always)]
pub(crate) fn drive_str<S, X, V>(
    st: &mut [S],
    pass: Pass<'_, '_>,
    input: impl RowInput<Item = X>,
    apply: impl Fn(&mut S, X, bool) -> isize,
    value: V,
    clear: impl Fn(&mut S) -> usize,
) -> isize
where
    V: for<'s> Fn(&'s S) -> Option<&'s [u8]>,
{
    let Pass { plan, out, changed } = pass;
    let r = plan.rows.clone();
    let OutBuf { vals, valid, ends, arena, any_null } = out;
    let Some((ops, slots, ch)) = plan.rows_of(changed) else { return 0 };
    let mut delta = 0isize;
    for (k, ((&o, &slot), ch)) in ops.iter().zip(slots).zip(ch.iter_mut()).enumerate() {
        if o == op::SKIP {
            continue;
        }
        let Some(s) = st.get_mut(slot as usize) else { continue };
        // The value before the row is needed to emit it or to compare.
        let before = if o == op::NEW { None } else { value(s).map(|x| copy_in(arena, x)) };
        if plan.emits_before(o) {
            push_span(vals, valid, ends, any_null, before);
        }
        if o == op::DEL {
            delta -= clear(s) as isize;
            continue;
        }
        delta += apply(s, input.at(r.start + k), o != op::RET);
        let after = value(s);
        let same = match (before, after) {
            (Some((x, z)), Some(y)) => arena.get(x..z) == Some(y),
            (None, None) => true,
            _ => false,
        };
        let after = if same { before } else { after.map(|x| copy_in(arena, x)) };
        push_span(vals, valid, ends, any_null, after);
        *ch |= !same && o != op::NEW;
    }
    delta
}
