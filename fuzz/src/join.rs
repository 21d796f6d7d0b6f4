//! `sluice_keyed::StreamingJoin` against a nested-loop model, with a
//! snapshot round trip in the middle and damaged and arbitrary snapshot bytes.
//!
//! Two arbitrary changelogs over `(k BIGINT, v BIGINT, s VARCHAR)`, each
//! valid for its side's state view (a unique key contained in the join key
//! `k`, the unique key `v`, or none: `+I` of a new unique key, `-U`/`+U` or a
//! bare `+U` replacing the live row of a unique key, `-D` of a live row,
//! `-U`/`+U` pairs without a unique key), go in batches, interleaved
//! arbitrarily, into an INNER / LEFT / RIGHT / FULL equi-join on `k` (`=` or
//! `IS NOT DISTINCT FROM`), optionally with a non-equi condition, on either
//! Flink line and either association rule.
//!
//! The model keeps, per side and join key, a list of records (row, count,
//! associations) and finds the matches of each input row by a loop over the
//! other side's records of the key; what it emits is the pseudo code of
//! Flink's `StreamingJoinOperator.processElement`, rule by rule (see
//! `step`). Flink emits the matches of one row in its state's iteration
//! order, which no contract fixes, so each input row's output is compared
//! up to that order and no further: on Flink 2.x as the set of per-match
//! groups (a padding change with its joined row), on Flink 1.20 as the runs
//! of padding changes and of joined rows in the order they come (1.20 emits
//! all of one kind, then all of the other).
//!
//! Before an arbitrary batch the join is snapshotted and replaced by a fresh
//! one restored from the snapshot; the model goes on unchanged. The
//! snapshot, damaged, and raw arbitrary bytes go into `restore` of other
//! fresh joins: an error (leaving the state empty) or success, never a
//! panic; raw bytes are always an error.

use std::collections::BTreeMap;
use std::sync::Arc;

use arbitrary::Arbitrary;
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use sluice_keyed::{CmpOp, CondTerm, JoinLine, JoinOptions, JoinSide, JoinType, RowKind, StreamingJoin, ViewKind};

use crate::rows::{batch_of, changes_of, restored, Cell, Change, Damage, Row};

/// One change of a side, turned into a valid changelog by [`Live::change`].
#[derive(Arbitrary, Debug, Clone)]
pub enum Action {
    /// A row `(k: % 5 == 4 is NULL, v, s)`: `+I` if its unique key is not
    /// live (always without a unique key), else `+U` replacing the live row,
    /// after a `-U` of it when the flag is set.
    Upsert(u8, u8, u8, bool),
    /// `-D` of the live row `pick` (mod their number).
    Delete(u8),
    /// Without a unique key: `-U` of the live row `pick`, `+U` of a new row.
    Update(u8, u8, u8, u8),
}

/// Input of `join_model`.
#[derive(Arbitrary, Debug, Clone)]
pub struct Input {
    /// INNER, LEFT, RIGHT, FULL (mod 4).
    pub join_type: u8,
    /// Left state view: join key contains the unique key, unique key `v`, none (mod 3).
    pub left_view: u8,
    /// Right state view, as `left_view`.
    pub right_view: u8,
    /// Flink 1.20's order within a row (else 2.x's).
    pub flink1: bool,
    /// Non-equi condition: none, `l.v <= r.v`, `l.s <> r.s AND l.v > r.v` (mod 3).
    pub condition: u8,
    /// `=` on the join key (a NULL key matches nothing); else `IS NOT DISTINCT FROM`.
    pub filter_nulls: bool,
    /// A record replacing a stored one still adds an association (Flink 1.20.4, 2.3.0).
    pub replaced_adds: bool,
    /// Batches: (left side, actions).
    pub batches: Vec<(bool, Vec<Action>)>,
    /// Snapshot and restore before this batch (mod the batch count + 1).
    pub restore_at: u8,
    /// Damage to the snapshot for a second restore.
    pub damage: Damage,
    /// Raw bytes for `restore`.
    pub raw: Vec<u8>,
}

const VIEWS: [ViewKind; 3] =
    [ViewKind::JoinKeyContainsUniqueKey, ViewKind::InputSideHasUniqueKey, ViewKind::InputSideHasNoUniqueKey];

fn schema(prefix: &str) -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new(format!("{prefix}k"), DataType::Int64, true),
        Field::new(format!("{prefix}v"), DataType::Int64, false),
        Field::new(format!("{prefix}s"), DataType::Utf8, false),
    ]))
}

fn unique_key(view: ViewKind) -> Option<Vec<usize>> {
    match view {
        ViewKind::JoinKeyContainsUniqueKey => Some(vec![0]),
        ViewKind::InputSideHasUniqueKey => Some(vec![1]),
        ViewKind::InputSideHasNoUniqueKey => None,
    }
}

/// The live rows of one side, for generating a valid changelog.
struct Live {
    view: ViewKind,
    rows: Vec<Row>,
}

impl Live {
    /// The column that identifies a row under the view's unique key.
    fn id_column(&self) -> Option<usize> {
        unique_key(self.view).map(|uk| uk[0])
    }

    fn change(&mut self, a: &Action, out: &mut Vec<Change>) {
        let row = |k: u8, v: u8, s: u8| -> Row {
            vec![
                Cell::int((k % 5 != 4).then_some(i64::from(k % 5))),
                Cell::I(i64::from(v % 6)),
                Cell::S(format!("s{}", s % 3)),
            ]
        };
        match *a {
            Action::Upsert(k, v, s, with_before) => {
                let new = row(k, v, s);
                let same = self.id_column().and_then(|c| self.rows.iter().position(|r| r[c] == new[c]));
                match same {
                    Some(p) => {
                        if with_before {
                            out.push((RowKind::UpdateBefore, self.rows[p].clone()));
                        }
                        out.push((RowKind::UpdateAfter, new.clone()));
                        self.rows[p] = new;
                    }
                    None => {
                        out.push((RowKind::Insert, new.clone()));
                        self.rows.push(new);
                    }
                }
            }
            Action::Delete(pick) if !self.rows.is_empty() => {
                let r = self.rows.remove(usize::from(pick) % self.rows.len());
                out.push((RowKind::Delete, r));
            }
            Action::Update(pick, k, v, s) if !self.rows.is_empty() && self.id_column().is_none() => {
                let old = self.rows.remove(usize::from(pick) % self.rows.len());
                out.push((RowKind::UpdateBefore, old));
                let new = row(k, v, s);
                out.push((RowKind::UpdateAfter, new.clone()));
                self.rows.push(new);
            }
            _ => {}
        }
    }
}

/// A stored record of the model.
#[derive(Clone, Debug)]
struct Rec {
    row: Row,
    count: u32,
    assoc: i32,
}

/// One side of the model: records per join key.
struct Side {
    view: ViewKind,
    outer: bool,
    state: BTreeMap<Cell, Vec<Rec>>,
}

impl Side {
    /// Whether `a` and `b` are the same record under the view.
    fn same(&self, a: &Row, b: &Row) -> bool {
        match self.view {
            ViewKind::JoinKeyContainsUniqueKey => true,
            ViewKind::InputSideHasUniqueKey => a[1] == b[1],
            ViewKind::InputSideHasNoUniqueKey => a == b,
        }
    }

    fn find(&self, row: &Row) -> Option<usize> {
        self.state.get(&row[0])?.iter().position(|r| self.same(&r.row, row))
    }

    /// `addRecord`: a new record, one more appearance (no unique key), or a
    /// replacement (unique key); the associations are set either way.
    fn add(&mut self, row: &Row, assoc: i32) {
        let at = self.find(row);
        let no_uk = self.view == ViewKind::InputSideHasNoUniqueKey;
        let recs = self.state.entry(row[0].clone()).or_default();
        match at {
            Some(p) if no_uk => {
                recs[p].count += 1;
                recs[p].assoc = assoc;
            }
            Some(p) => recs[p] = Rec { row: row.clone(), count: 1, assoc },
            None => recs.push(Rec { row: row.clone(), count: 1, assoc }),
        }
    }

    /// `retractRecord`: one appearance less.
    fn retract(&mut self, row: &Row) {
        let Some(p) = self.find(row) else { return };
        let recs = self.state.get_mut(&row[0]).expect("the key of a found record");
        if recs[p].count > 1 {
            recs[p].count -= 1;
        } else {
            recs.remove(p);
        }
        if recs.is_empty() {
            self.state.remove(&row[0]);
        }
    }
}

struct Model {
    left: Side,
    right: Side,
    cond: Vec<CondTerm>,
    filter_nulls: bool,
    replaced_adds: bool,
    flink1: bool,
}

fn holds(op: CmpOp, a: &Cell, b: &Cell) -> bool {
    if *a == Cell::Null || *b == Cell::Null {
        return false;
    }
    let o = a.cmp(b);
    match op {
        CmpOp::Eq => o.is_eq(),
        CmpOp::Ne => o.is_ne(),
        CmpOp::Lt => o.is_lt(),
        CmpOp::Le => o.is_le(),
        CmpOp::Gt => o.is_gt(),
        CmpOp::Ge => o.is_ge(),
    }
}

/// `[left + right]`, a missing side as three NULLs.
fn joined(input_is_left: bool, input: Option<&Row>, other: Option<&Row>) -> Row {
    let (l, r) = if input_is_left { (input, other) } else { (other, input) };
    let pad = || vec![Cell::Null; 3];
    let mut out = l.cloned().unwrap_or_else(pad);
    out.extend(r.cloned().unwrap_or_else(pad));
    out
}

impl Model {
    /// One input row through `processElement`: returns what it emits.
    fn step(&mut self, input_is_left: bool, kind: RowKind, row: &Row) -> Vec<Change> {
        let (inp, oth) = if input_is_left { (&self.left, &self.right) } else { (&self.right, &self.left) };
        let (inp_outer, oth_outer) = (inp.outer, oth.outer);
        // The matches: every appearance of every record of the other side
        // under the same key that satisfies the condition, with the
        // associations it had when the row arrived.
        let mut matches: Vec<(usize, Rec)> = Vec::new();
        if !(self.filter_nulls && row[0] == Cell::Null) {
            for (j, r) in oth.state.get(&row[0]).into_iter().flatten().enumerate() {
                let (l, rr) = if input_is_left { (row, &r.row) } else { (&r.row, row) };
                if self.cond.iter().all(|t| holds(t.op, &l[t.left], &rr[t.right])) {
                    matches.extend(std::iter::repeat_n((j, r.clone()), r.count as usize));
                }
            }
        }
        let mut pads: Vec<Vec<Change>> = Vec::new();
        let mut rows: Vec<Change> = Vec::new();
        let mut assoc: Vec<(usize, i32)> = Vec::new();
        let accumulate = matches!(kind, RowKind::Insert | RowKind::UpdateAfter);
        if accumulate {
            // isAdditionalMatch.
            let additional =
                self.replaced_adds || (inp.view != ViewKind::JoinKeyContainsUniqueKey && inp.find(row).is_none());
            if inp_outer && matches.is_empty() {
                self.side(input_is_left).add(row, 0);
                return vec![(RowKind::Insert, joined(input_is_left, Some(row), None))];
            }
            let kind_out = if inp_outer || oth_outer { RowKind::Insert } else { kind };
            for (j, m) in &matches {
                let mut pad = Vec::new();
                if oth_outer {
                    if m.assoc == 0 {
                        pad.push((RowKind::Delete, joined(input_is_left, None, Some(&m.row))));
                    }
                    if m.assoc == 0 || additional {
                        assoc.push((*j, m.assoc + 1));
                    }
                }
                pads.push(pad);
                rows.push((kind_out, joined(input_is_left, Some(row), Some(&m.row))));
            }
            let n = if inp_outer { matches.len() as i32 } else { -1 };
            self.side(input_is_left).add(row, n);
        } else {
            self.side(input_is_left).retract(row);
            if matches.is_empty() {
                return if inp_outer {
                    vec![(RowKind::Delete, joined(input_is_left, Some(row), None))]
                } else {
                    vec![]
                };
            }
            let kind_out = if inp_outer { RowKind::Delete } else { kind };
            for (j, m) in &matches {
                let mut pad = Vec::new();
                if oth_outer {
                    if m.assoc == 1 {
                        pad.push((RowKind::Insert, joined(input_is_left, None, Some(&m.row))));
                    }
                    assoc.push((*j, m.assoc - 1));
                }
                pads.push(pad);
                rows.push((kind_out, joined(input_is_left, Some(row), Some(&m.row))));
            }
        }
        if let Some(recs) = self.side(!input_is_left).state.get_mut(&row[0]) {
            for (j, v) in assoc {
                recs[j].assoc = v;
            }
        }
        // Padding changes go before their joined row on accumulate, after it on retract.
        let group = |pad: Vec<Change>, r: Change| -> Vec<Change> {
            if accumulate {
                pad.into_iter().chain([r]).collect()
            } else {
                [r].into_iter().chain(pad).collect()
            }
        };
        if self.flink1 {
            let all_pads: Vec<Change> = pads.into_iter().flatten().collect();
            if accumulate {
                all_pads.into_iter().chain(rows).collect()
            } else {
                rows.into_iter().chain(all_pads).collect()
            }
        } else {
            pads.into_iter().zip(rows).flat_map(|(p, r)| group(p, r)).collect()
        }
    }

    fn side(&mut self, left: bool) -> &mut Side {
        if left {
            &mut self.left
        } else {
            &mut self.right
        }
    }
}

/// One input row's output up to the order of its matches (see the module
/// docs): 2.x as sorted per-match groups, 1.20 as its runs of padding
/// changes and joined rows, each run sorted.
fn canonical(seg: &[Change], accumulate: bool, flink1: bool) -> Vec<Vec<Change>> {
    let is_pad = |c: &Change| if accumulate { c.0 == RowKind::Delete } else { c.0 == RowKind::Insert };
    let mut groups: Vec<Vec<Change>> = Vec::new();
    for c in seg {
        let attach = match groups.last() {
            None => false,
            Some(g) if flink1 => is_pad(&g[0]) == is_pad(c),
            Some(g) if accumulate => g.len() == 1 && is_pad(&g[0]),
            Some(g) => g.len() == 1 && !is_pad(&g[0]) && is_pad(c),
        };
        match groups.last_mut() {
            Some(g) if attach => g.push(c.clone()),
            _ => groups.push(vec![c.clone()]),
        }
    }
    if flink1 {
        groups.iter_mut().for_each(|g| g.sort());
    } else {
        groups.sort();
    }
    groups
}

fn options(input: &Input) -> JoinOptions {
    let t = [JoinType::Inner, JoinType::Left, JoinType::Right, JoinType::Full][usize::from(input.join_type % 4)];
    let mut o = JoinOptions::new(t, vec![0], vec![0]);
    o.left = JoinSide { key_columns: vec![0], unique_key: unique_key(VIEWS[usize::from(input.left_view % 3)]) };
    o.right = JoinSide { key_columns: vec![0], unique_key: unique_key(VIEWS[usize::from(input.right_view % 3)]) };
    o.line = if input.flink1 { JoinLine::Flink1 } else { JoinLine::Flink2 };
    o.condition = match input.condition % 3 {
        0 => vec![],
        1 => vec![CondTerm { left: 1, op: CmpOp::Le, right: 1 }],
        _ => vec![CondTerm { left: 2, op: CmpOp::Ne, right: 2 }, CondTerm { left: 1, op: CmpOp::Gt, right: 1 }],
    };
    o.filter_null_keys = vec![input.filter_nulls];
    o.replaced_record_adds_association = input.replaced_adds;
    o
}

/// Runs the check on one input; panics on a mismatch.
pub fn check(input: &Input) {
    let opts = options(input);
    let (ls, rs) = (schema("l"), schema("r"));
    let operator = || StreamingJoin::new(ls.clone(), rs.clone(), opts.clone()).expect("join operator");
    let mut op = operator();
    let side = |view: ViewKind, outer: bool| Side { view, outer, state: BTreeMap::new() };
    let (lv, rv) = (opts.left.view_kind(), opts.right.view_kind());
    let mut model = Model {
        left: side(lv, opts.join_type.left_is_outer()),
        right: side(rv, opts.join_type.right_is_outer()),
        cond: opts.condition.clone(),
        filter_nulls: input.filter_nulls,
        replaced_adds: input.replaced_adds,
        flink1: input.flink1,
    };
    let mut live = [Live { view: lv, rows: Vec::new() }, Live { view: rv, rows: Vec::new() }];
    let restore_at = usize::from(input.restore_at) % (input.batches.len() + 1);
    for (n, (is_left, actions)) in input.batches.iter().enumerate() {
        if n == restore_at {
            op = restored(&op, &operator, &input.damage, &input.raw);
        }
        let mut changes = Vec::new();
        for a in actions {
            live[usize::from(!is_left)].change(a, &mut changes);
        }
        let want: Vec<(bool, Vec<Change>)> =
            changes.iter().map(|(k, r)| (k.is_accumulate(), model.step(*is_left, *k, r))).collect();
        let rows: Vec<Row> = changes.iter().map(|c| c.1.clone()).collect();
        let kinds: Vec<RowKind> = changes.iter().map(|c| c.0).collect();
        let out = if *is_left {
            op.process_left(&batch_of(&ls, &rows), &kinds)
        } else {
            op.process_right(&batch_of(&rs, &rows), &kinds)
        };
        let got = changes_of(&out.expect("process"));
        let total: usize = want.iter().map(|w| w.1.len()).sum();
        let all_want: Vec<&Change> = want.iter().flat_map(|w| &w.1).collect();
        assert_eq!(got.len(), total, "batch {n}: emitted {got:?}, model {all_want:?} ({opts:?})");
        let mut at = 0;
        for (i, (accumulate, w)) in want.iter().enumerate() {
            let g = &got[at..at + w.len()];
            at += w.len();
            assert_eq!(
                canonical(g, *accumulate, input.flink1),
                canonical(w, *accumulate, input.flink1),
                "batch {n}, row {i} {:?} ({opts:?})",
                changes[i]
            );
        }
    }
    if restore_at == input.batches.len() {
        restored(&op, &operator, &input.damage, &input.raw);
    }
}
