//! The per-row algorithm of `StreamingJoinOperator.processElement`
//! (`flink-table-runtime/.../join/stream/StreamingJoinOperator.java`), and
//! the batch's output assembly.
//!
//! For an input row on side S (the other side O):
//!
//! * accumulate, S outer: no match → `+I[row+null]`, add with 0
//!   associations; else per match: if O is outer and the match has 0
//!   associations `-D[null+other]`, set the match's associations to
//!   `old + 1`; `+I[row+other]`; then add the row with the number of matches.
//! * accumulate, S inner: add the row; per match: O outer → as above; O
//!   inner → `[row+other]` with the input's RowKind (`+I`/`+U`).
//! * retract: retract the row; no match → `-D[row+null]` if S is outer; else
//!   per match `[row+other]` as `-D` (S outer) or with the input's RowKind
//!   (S inner), and, O outer, `+I[null+other]` if the match had 1 association,
//!   set its associations to `old − 1`.
//!
//! "Per match" is per stored record and per appearance of it
//! (`InputSideHasNoUniqueKey` repeats a record `count` times, each with the
//! associations read when the record was reached). [`JoinLine::Flink1`]
//! runs the padding changes of every match before the joined rows
//! (1.20's two loops over `AssociatedRecords`); [`JoinLine::Flink2`] emits
//! each match's rows together (2.x's lazy iterator).

use arrow_array::{RecordBatch, RecordBatchOptions};
use bumpalo::collections::Vec as BVec;
use bumpalo::Bump;

use super::state::{Bucket, Rec, SideState, ViewKind};
use super::{JoinLine, SideBatch, StreamingJoin};
use crate::error::Result;
use crate::row_kind::{check_kinds_len, RowKind};
use crate::state::{Accounting, KeyProbe};

/// One matching stored record of the other side.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Match<'a> {
    at: u32,
    count: u32,
    assoc: i32,
    /// The record's bytes, copied into the batch arena.
    row: &'a [u8],
}

/// The rows a batch emits, as borrowed row bytes per side.
struct Out<'a> {
    left: BVec<'a, &'a [u8]>,
    right: BVec<'a, &'a [u8]>,
    kinds: Vec<RowKind>,
    input_is_left: bool,
}

impl<'a> Out<'a> {
    #[inline]
    fn push(&mut self, kind: RowKind, input: &'a [u8], other: &'a [u8]) {
        let (l, r) = if self.input_is_left { (input, other) } else { (other, input) };
        self.left.push(l);
        self.right.push(r);
        self.kinds.push(kind);
    }
}

/// What one row needs besides the two states.
struct RowCtx<'a> {
    inp: &'a SideBatch,
    oth: &'a SideBatch,
    inp_outer: bool,
    oth_outer: bool,
    line: JoinLine,
    replaced_adds: bool,
}

/// One input row on its way through the join: its RowKind, its state
/// record, its encoded row and the other side's matches.
struct Step<'a, 'm> {
    kind: RowKind,
    rec: Rec<'m>,
    row: &'a [u8],
    ms: &'m [Match<'a>],
}

/// The state a row updates: its own side's, the other side's (association
/// counts) and the byte accounting.
struct States<'s> {
    inp: &'s mut SideState,
    oth: &'s mut SideState,
    acct: &'s mut Accounting,
}

impl StreamingJoin {
    pub(super) fn process(
        &mut self,
        input_is_left: bool,
        batch: &RecordBatch,
        kinds: &[RowKind],
    ) -> Result<(RecordBatch, Vec<RowKind>)> {
        check_kinds_len(kinds, batch.num_rows())?;
        let Self {
            left,
            right,
            left_state,
            right_state,
            cond,
            null_filtered,
            acct,
            arena,
            packed,
            opts,
            out_schema,
            owned_rows,
            ..
        } = self;
        let (inp, oth, inp_state, oth_state) =
            if input_is_left { (left, right, left_state, right_state) } else { (right, left, right_state, left_state) };
        inp.encode(batch)?;
        if input_is_left {
            cond.left.encode(batch)?;
        } else {
            cond.right.encode(batch)?;
        }
        let side_cond = if input_is_left { &cond.left } else { &cond.right };
        arena.reset();
        let arena: &Bump = arena;
        let (inp, oth): (&SideBatch, &SideBatch) = (inp, oth);
        let (lo, ro) = (opts.join_type.left_is_outer(), opts.join_type.right_is_outer());
        let ctx = RowCtx {
            inp,
            oth,
            inp_outer: if input_is_left { lo } else { ro },
            oth_outer: if input_is_left { ro } else { lo },
            line: opts.line,
            replaced_adds: opts.replaced_record_adds_association,
        };
        let mut out = Out { left: BVec::new_in(arena), right: BVec::new_in(arena), kinds: Vec::new(), input_is_left };
        let mut ms: BVec<'_, Match<'_>> = BVec::new_in(arena);
        let owned_rows = *owned_rows;
        for (i, &kind) in kinds.iter().enumerate() {
            let (key, row) = (inp.keys.row(i), inp.codec.row(i));
            let cond_bytes: &[u8] = if side_cond.is_empty() {
                &[]
            } else {
                side_cond.pack(i, packed);
                &packed[..]
            };
            let owned: (Box<[u8]>, Box<[u8]>);
            let rec = if owned_rows {
                owned = (Box::from(key), Box::from(row));
                Rec { key: &owned.0, row: &owned.1, uk: inp.uk(i), cond: cond_bytes }
            } else {
                Rec { key, row, uk: inp.uk(i), cond: cond_bytes }
            };
            // JoinConditionWithNullFilters: a NULL in a `=` key field matches nothing.
            let key_null = null_filtered.iter().any(|&b| key.get(b >> 3).is_some_and(|&by| by & (1 << (b & 7)) != 0));
            ms.clear();
            if !key_null {
                if let Some(b) = oth_state.bucket(rec.key) {
                    for (j, e) in b.entries.iter().enumerate() {
                        if cond.is_empty() || cond.matches(input_is_left, i, &e.cond) {
                            let row = arena.alloc_slice_copy(&e.row);
                            ms.push(Match { at: j as u32, count: e.count, assoc: e.assoc, row });
                        }
                    }
                }
            }
            if kind.is_accumulate() {
                acct.check(rec.worst_case_bytes())?;
                let st = States { inp: inp_state, oth: oth_state, acct };
                accumulate(&ctx, Step { kind, rec, row, ms: &ms }, st, &mut out);
            } else {
                let st = States { inp: inp_state, oth: oth_state, acct };
                retract(&ctx, Step { kind, rec, row, ms: &ms }, st, &mut out);
            }
        }
        let n = out.kinds.len();
        let (lc, rc) = if input_is_left { (&inp.codec, &oth.codec) } else { (&oth.codec, &inp.codec) };
        let mut cols = lc.decode(out.left.iter().copied())?;
        cols.extend(rc.decode(out.right.iter().copied())?);
        let batch = RecordBatch::try_new_with_options(
            out_schema.clone(),
            cols,
            &RecordBatchOptions::new().with_row_count(Some(n)),
        )?;
        Ok((batch, out.kinds))
    }
}

/// The other side's bucket for association updates (outer other side only).
#[inline]
fn other_bucket<'s>(oth_state: &'s mut SideState, key: &[u8], oth_outer: bool) -> Option<&'s mut Bucket> {
    if oth_outer {
        oth_state.map.get_mut(&KeyProbe(key))
    } else {
        None
    }
}

#[inline]
fn set_assoc(b: &mut Option<&mut Bucket>, at: u32, v: i32) {
    if let Some(e) = b.as_mut().and_then(|b| b.entries.get_mut(at as usize)) {
        e.assoc = v;
    }
}

/// Emits the rows of matches `ms` for an accumulating input row: the
/// padding retractions and association increments of an outer other side,
/// and the joined rows as `joined_kind`.
fn emit_accumulate<'a>(
    ctx: &RowCtx<'a>,
    joined_kind: RowKind,
    row: &'a [u8],
    ms: &[Match<'a>],
    additional: bool,
    ob: &mut Option<&mut Bucket>,
    out: &mut Out<'a>,
) {
    let pad = |m: &Match<'a>, ob: &mut Option<&mut Bucket>, out: &mut Out<'a>| {
        if ctx.oth_outer {
            if m.assoc == 0 {
                out.push(RowKind::Delete, ctx.inp.null_row.as_ref(), m.row);
            }
            if m.assoc == 0 || additional {
                set_assoc(ob, m.at, m.assoc + 1);
            }
        }
    };
    each_match(ctx.line, ms, |m, first| {
        if first {
            pad(m, ob, out);
        } else {
            out.push(joined_kind, row, m.row);
        }
    });
}

fn accumulate<'a>(ctx: &RowCtx<'a>, step: Step<'a, '_>, st: States<'_>, out: &mut Out<'a>) {
    let Step { kind, rec, row, ms } = step;
    let States { inp: inp_state, oth: oth_state, acct } = st;
    // isAdditionalMatch: every accumulate counts on the released lines.
    let additional =
        ctx.replaced_adds || (inp_state.kind != ViewKind::JoinKeyContainsUniqueKey && !inp_state.has_record(rec));
    if ctx.inp_outer {
        if ms.is_empty() {
            out.push(RowKind::Insert, row, ctx.oth.null_row.as_ref());
            inp_state.add(rec, 0, acct);
            return;
        }
        let mut ob = other_bucket(oth_state, rec.key, ctx.oth_outer);
        emit_accumulate(ctx, RowKind::Insert, row, ms, additional, &mut ob, out);
        let n: u32 = ms.iter().map(|m| m.count).sum();
        inp_state.add(rec, n as i32, acct);
    } else {
        inp_state.add(rec, -1, acct);
        let mut ob = other_bucket(oth_state, rec.key, ctx.oth_outer);
        // An outer other side turns the row into `+I`; an inner one forwards `+I`/`+U`.
        let joined = if ctx.oth_outer { RowKind::Insert } else { kind };
        emit_accumulate(ctx, joined, row, ms, additional, &mut ob, out);
    }
}

fn retract<'a>(ctx: &RowCtx<'a>, step: Step<'a, '_>, st: States<'_>, out: &mut Out<'a>) {
    let Step { kind, rec, row, ms } = step;
    let States { inp: inp_state, oth: oth_state, acct } = st;
    inp_state.retract(rec, acct);
    if ms.is_empty() {
        if ctx.inp_outer {
            out.push(RowKind::Delete, row, ctx.oth.null_row.as_ref());
        }
        return;
    }
    let joined = if ctx.inp_outer { RowKind::Delete } else { kind };
    let mut ob = other_bucket(oth_state, rec.key, ctx.oth_outer);
    let unpad = |m: &Match<'a>, ob: &mut Option<&mut Bucket>, out: &mut Out<'a>| {
        if ctx.oth_outer {
            if m.assoc == 1 {
                out.push(RowKind::Insert, ctx.inp.null_row.as_ref(), m.row);
            }
            set_assoc(ob, m.at, m.assoc - 1);
        }
    };
    each_match(ctx.line, ms, |m, first| {
        if first {
            out.push(joined, row, m.row);
        } else {
            unpad(m, &mut ob, out);
        }
    });
}

/// Runs `f(m, true)` then `f(m, false)` for every appearance of every match:
/// per match ([`JoinLine::Flink2`], the lazy iterator) or all first steps
/// before all second steps ([`JoinLine::Flink1`], two loops over
/// `AssociatedRecords`).
fn each_match<'a>(line: JoinLine, ms: &[Match<'a>], mut f: impl FnMut(&Match<'a>, bool)) {
    let reps = |m: &Match<'a>| 0..m.count;
    match line {
        JoinLine::Flink2 => {
            for m in ms {
                for _ in reps(m) {
                    f(m, true);
                    f(m, false);
                }
            }
        }
        JoinLine::Flink1 => {
            for first in [true, false] {
                for m in ms {
                    for _ in reps(m) {
                        f(m, first);
                    }
                }
            }
        }
    }
}
