//! A plainly written model of Flink's `StreamingJoinOperator` for the join
//! tests: rows as cells, one list of records per join key and side, every
//! match found by a nested loop over the other side's records, each rule
//! transcribed from the pseudo code in `StreamingJoinOperator.processElement`.
#![allow(dead_code)]

use std::collections::BTreeMap;

use sluice_keyed::{CmpOp, CondTerm, JoinLine, JoinType, RowKind, ViewKind};

use crate::common::Cell;

#[derive(Clone, Debug)]
struct Rec {
    row: Vec<Cell>,
    count: u32,
    assoc: i32,
}

/// One side of the model.
pub struct MSide {
    pub keys: Vec<usize>,
    pub uk: Option<Vec<usize>>,
    pub kind: ViewKind,
    pub outer: bool,
    pub width: usize,
    state: BTreeMap<Vec<Cell>, Vec<Rec>>,
}

impl MSide {
    pub fn new(keys: Vec<usize>, uk: Option<Vec<usize>>, kind: ViewKind, outer: bool, width: usize) -> Self {
        MSide { keys, uk, kind, outer, width, state: BTreeMap::new() }
    }

    fn key(&self, row: &[Cell]) -> Vec<Cell> {
        self.keys.iter().map(|&k| row[k].clone()).collect()
    }

    fn same(&self, a: &[Cell], b: &[Cell]) -> bool {
        match (self.kind, &self.uk) {
            (ViewKind::InputSideHasUniqueKey, Some(uk)) => uk.iter().all(|&c| a[c] == b[c]),
            (ViewKind::JoinKeyContainsUniqueKey, _) => true,
            _ => a == b,
        }
    }

    fn has(&self, row: &[Cell]) -> bool {
        self.state.get(&self.key(row)).is_some_and(|recs| recs.iter().any(|r| self.same(&r.row, row)))
    }

    fn add(&mut self, row: &[Cell], assoc: i32) {
        let key = self.key(row);
        let kind = self.kind;
        let pos = self.state.get(&key).and_then(|recs| recs.iter().position(|r| self.same(&r.row, row)));
        let recs = self.state.entry(key).or_default();
        match pos {
            Some(p) if kind == ViewKind::InputSideHasNoUniqueKey => {
                recs[p].count += 1;
                recs[p].assoc = assoc;
            }
            Some(p) => recs[p] = Rec { row: row.to_vec(), count: 1, assoc },
            None => recs.push(Rec { row: row.to_vec(), count: 1, assoc }),
        }
    }

    fn retract(&mut self, row: &[Cell]) {
        let key = self.key(row);
        let pos = self.state.get(&key).and_then(|recs| recs.iter().position(|r| self.same(&r.row, row)));
        if let (Some(p), Some(recs)) = (pos, self.state.get_mut(&key)) {
            if recs[p].count > 1 {
                recs[p].count -= 1;
            } else {
                recs.swap_remove(p);
            }
            if recs.is_empty() {
                self.state.remove(&key);
            }
        }
    }
}

/// The model join.
pub struct Model {
    pub left: MSide,
    pub right: MSide,
    pub line: JoinLine,
    pub cond: Vec<CondTerm>,
    pub filter_nulls: bool,
    pub replaced_adds: bool,
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

pub type Change = (RowKind, Vec<Cell>);

impl Model {
    pub fn new(t: JoinType, left: MSide, right: MSide, line: JoinLine) -> Self {
        let (mut left, mut right) = (left, right);
        left.outer = t.left_is_outer();
        right.outer = t.right_is_outer();
        Model { left, right, line, cond: Vec::new(), filter_nulls: true, replaced_adds: true }
    }

    fn joined(&self, input_is_left: bool, input: Option<&[Cell]>, other: Option<&[Cell]>) -> Vec<Cell> {
        let (l, r) = if input_is_left { (input, other) } else { (other, input) };
        let mut out: Vec<Cell> = l.map_or_else(|| vec![Cell::Null; self.left.width], |x| x.to_vec());
        out.extend(r.map_or_else(|| vec![Cell::Null; self.right.width], |x| x.to_vec()));
        out
    }

    /// One input row through `processElement`; appends its output to `out`.
    pub fn step(&mut self, input_is_left: bool, kind: RowKind, row: &[Cell], out: &mut Vec<Change>) {
        let (inp, oth) = if input_is_left { (&self.left, &self.right) } else { (&self.right, &self.left) };
        let key = inp.key(row);
        let key_null = self.filter_nulls && key.contains(&Cell::Null);
        // Nested loop over every stored record of the other side.
        let mut ms: Vec<(usize, Rec)> = Vec::new();
        if !key_null {
            for (k, recs) in &oth.state {
                if *k != key {
                    continue;
                }
                for (j, r) in recs.iter().enumerate() {
                    let (l, rr) = if input_is_left { (row, &r.row[..]) } else { (&r.row[..], row) };
                    if self.cond.iter().all(|t| holds(t.op, &l[t.left], &rr[t.right])) {
                        ms.push((j, r.clone()));
                    }
                }
            }
        }
        let (inp_outer, oth_outer) = (inp.outer, oth.outer);
        let reps = |ms: &[(usize, Rec)]| -> Vec<(usize, Rec)> {
            ms.iter().flat_map(|(j, r)| std::iter::repeat_n((*j, r.clone()), r.count as usize)).collect()
        };
        let all = reps(&ms);
        let mut emit = Vec::new();
        let mut assoc_updates: Vec<(usize, i32)> = Vec::new();
        if kind.is_accumulate() {
            let additional = self.replaced_adds || (inp.kind != ViewKind::JoinKeyContainsUniqueKey && !inp.has(row));
            if inp_outer && all.is_empty() {
                out.push((RowKind::Insert, self.joined(input_is_left, Some(row), None)));
                self.side(input_is_left).add(row, 0);
                return;
            }
            let joined_kind = if inp_outer || oth_outer { RowKind::Insert } else { kind };
            let mut pads = Vec::new();
            let mut rows = Vec::new();
            for (j, r) in &all {
                let mut p = None;
                if oth_outer {
                    if r.assoc == 0 {
                        p = Some((RowKind::Delete, self.joined(input_is_left, None, Some(&r.row))));
                    }
                    if r.assoc == 0 || additional {
                        assoc_updates.push((*j, r.assoc + 1));
                    }
                }
                let jr = (joined_kind, self.joined(input_is_left, Some(row), Some(&r.row)));
                match self.line {
                    JoinLine::Flink2 => {
                        emit.extend(p);
                        emit.push(jr);
                    }
                    JoinLine::Flink1 => {
                        pads.extend(p);
                        rows.push(jr);
                    }
                }
            }
            emit.extend(pads);
            emit.extend(rows);
            if inp_outer {
                self.side(input_is_left).add(row, all.len() as i32);
            } else {
                self.side(input_is_left).add(row, -1);
            }
        } else {
            self.side(input_is_left).retract(row);
            if all.is_empty() {
                if inp_outer {
                    out.push((RowKind::Delete, self.joined(input_is_left, Some(row), None)));
                }
                return;
            }
            let joined_kind = if inp_outer { RowKind::Delete } else { kind };
            let mut rows = Vec::new();
            let mut pads = Vec::new();
            for (j, r) in &all {
                let jr = (joined_kind, self.joined(input_is_left, Some(row), Some(&r.row)));
                let mut p = None;
                if oth_outer {
                    if r.assoc == 1 {
                        p = Some((RowKind::Insert, self.joined(input_is_left, None, Some(&r.row))));
                    }
                    assoc_updates.push((*j, r.assoc - 1));
                }
                match self.line {
                    JoinLine::Flink2 => {
                        emit.push(jr);
                        emit.extend(p);
                    }
                    JoinLine::Flink1 => {
                        rows.push(jr);
                        pads.extend(p);
                    }
                }
            }
            emit.extend(rows);
            emit.extend(pads);
        }
        let oth = self.side(!input_is_left);
        if let Some(recs) = oth.state.get_mut(&key) {
            for (j, v) in assoc_updates {
                recs[j].assoc = v;
            }
        }
        out.extend(emit);
    }

    fn side(&mut self, left: bool) -> &mut MSide {
        if left {
            &mut self.left
        } else {
            &mut self.right
        }
    }
}
