//! The non-equi part of a join condition, in a restricted form.
//!
//! Flink evaluates the residual condition of a regular join on each candidate
//! pair that the join key matched (`AbstractStreamingJoinOperator`: the
//! generated `JoinCondition` inside `JoinConditionWithNullFilters`). sluice
//! supports a conjunction of comparisons between one left and one right
//! column of the same type, `left[i] OP right[j]` with `OP` one of
//! `= <> < <= > >=` ([`CondTerm`]). A comparison with a NULL operand is
//! UNKNOWN, so the pair does not match, as in SQL.
//!
//! Each side's condition columns are encoded per batch with one arrow-row
//! converter per column; an arrow-row field encoding orders like the values
//! (memcomparable), so a comparison is a byte comparison and needs no
//! decode. A stored record keeps its condition columns' encodings
//! ([`SideCond::pack`]: `len u32 | bytes` per column) next to its row.
//!
//! Supported column types: Boolean, signed and unsigned integers, Date32/64,
//! Time, Timestamp, Duration, Decimal128/256, Utf8/LargeUtf8/Utf8View and the
//! binary types (strings compare by UTF-8 bytes, as Flink's
//! `BinaryStringData.compareTo` does). Floats are refused: arrow-row orders
//! NaN and −0.0 by total order, SQL comparisons do not.

use std::cmp::Ordering;

use arrow_array::RecordBatch;
use arrow_row::{RowConverter, Rows, SortField};
use arrow_schema::{DataType, Schema};

use crate::error::{invalid_arg, Error, Result};

/// A comparison operator of a [`CondTerm`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpOp {
    /// `=`
    Eq,
    /// `<>`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

impl CmpOp {
    #[inline]
    fn holds(self, o: Ordering) -> bool {
        match self {
            CmpOp::Eq => o == Ordering::Equal,
            CmpOp::Ne => o != Ordering::Equal,
            CmpOp::Lt => o == Ordering::Less,
            CmpOp::Le => o != Ordering::Greater,
            CmpOp::Gt => o == Ordering::Greater,
            CmpOp::Ge => o != Ordering::Less,
        }
    }
}

/// `left[left] OP right[right]`: column indices into the left and right
/// input schemas.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CondTerm {
    /// Column of the left input.
    pub left: usize,
    /// The comparison.
    pub op: CmpOp,
    /// Column of the right input.
    pub right: usize,
}

fn is_comparable(t: &DataType) -> bool {
    use DataType::*;
    matches!(
        t,
        Boolean
            | Int8
            | Int16
            | Int32
            | Int64
            | UInt8
            | UInt16
            | UInt32
            | UInt64
            | Date32
            | Date64
            | Time32(_)
            | Time64(_)
            | Timestamp(_, _)
            | Duration(_)
            | Decimal128(_, _)
            | Decimal256(_, _)
            | Utf8
            | LargeUtf8
            | Utf8View
            | Binary
            | LargeBinary
            | BinaryView
            | FixedSizeBinary(_)
    )
}

/// One side's condition columns and their per-batch encodings.
pub(crate) struct SideCond {
    cols: Vec<usize>,
    converters: Vec<RowConverter>,
    rows: Vec<Rows>,
}

impl SideCond {
    fn new(schema: &Schema, cols: Vec<usize>) -> Result<Self> {
        let mut converters = Vec::with_capacity(cols.len());
        for &c in &cols {
            let t = schema.field(c).data_type().clone();
            converters.push(RowConverter::new(vec![SortField::new(t)])?);
        }
        let rows = converters.iter().map(|c| c.empty_rows(0, 0)).collect();
        Ok(SideCond { cols, converters, rows })
    }

    /// Encodes the condition columns of `batch`.
    pub(crate) fn encode(&mut self, batch: &RecordBatch) -> Result<()> {
        for ((c, conv), rows) in self.cols.iter().zip(&self.converters).zip(&mut self.rows) {
            rows.clear();
            conv.append(rows, &[batch.column(*c).clone()])?;
        }
        Ok(())
    }

    /// Whether the side has condition columns at all.
    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.cols.is_empty()
    }

    /// Writes row `i`'s condition columns (`len u32 | bytes` each) into `out`.
    pub(crate) fn pack(&self, i: usize, out: &mut Vec<u8>) {
        out.clear();
        for rows in &self.rows {
            let b = rows.row(i).data();
            out.extend_from_slice(&(b.len() as u32).to_le_bytes());
            out.extend_from_slice(b);
        }
    }

    #[inline]
    fn field(&self, k: usize, i: usize) -> &[u8] {
        self.rows[k].row(i).data()
    }

    /// Checks that restored condition bytes hold this side's columns.
    pub(crate) fn check_packed(&self, packed: &[u8]) -> bool {
        let mut at = 0;
        for _ in &self.cols {
            match packed_len(packed, at) {
                Some(n) => at += 4 + n,
                None => return false,
            }
        }
        at == packed.len()
    }
}

fn packed_len(packed: &[u8], at: usize) -> Option<usize> {
    let b = packed.get(at..at + 4)?;
    let n = u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize;
    packed.get(at + 4..at + 4 + n).map(|_| n)
}

/// Field `k` of packed condition bytes (checked on restore, so a short
/// buffer reads as empty rather than panicking).
#[inline]
fn packed_field(packed: &[u8], k: usize) -> &[u8] {
    let mut at = 0;
    for _ in 0..k {
        match packed_len(packed, at) {
            Some(n) => at += 4 + n,
            None => return &[],
        }
    }
    match packed_len(packed, at) {
        Some(n) => &packed[at + 4..at + 4 + n],
        None => &[],
    }
}

/// A compiled condition: each term as positions in the sides' column lists.
pub(crate) struct Condition {
    pub(crate) left: SideCond,
    pub(crate) right: SideCond,
    terms: Vec<(usize, CmpOp, usize)>,
}

impl Condition {
    pub(crate) fn new(left: &Schema, right: &Schema, terms: &[CondTerm]) -> Result<Self> {
        let mut lcols: Vec<usize> = Vec::new();
        let mut rcols: Vec<usize> = Vec::new();
        let mut compiled = Vec::with_capacity(terms.len());
        for t in terms {
            let lf = left
                .fields()
                .get(t.left)
                .ok_or_else(|| invalid_arg(format!("condition: left column {} out of range", t.left)))?;
            let rf = right
                .fields()
                .get(t.right)
                .ok_or_else(|| invalid_arg(format!("condition: right column {} out of range", t.right)))?;
            if lf.data_type() != rf.data_type() {
                return Err(invalid_arg(format!(
                    "condition: left column {} ({}) and right column {} ({}) differ in type",
                    t.left,
                    lf.data_type(),
                    t.right,
                    rf.data_type()
                )));
            }
            if !is_comparable(lf.data_type()) {
                return Err(Error::UnsupportedType {
                    column: t.left,
                    data_type: lf.data_type().clone(),
                    role: "join condition operand",
                });
            }
            let pos = |cols: &mut Vec<usize>, c: usize| match cols.iter().position(|&x| x == c) {
                Some(p) => p,
                None => {
                    cols.push(c);
                    cols.len() - 1
                }
            };
            compiled.push((pos(&mut lcols, t.left), t.op, pos(&mut rcols, t.right)));
        }
        Ok(Condition { left: SideCond::new(left, lcols)?, right: SideCond::new(right, rcols)?, terms: compiled })
    }

    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }

    /// Whether input row `i` (of the side being processed) and a stored
    /// record of the other side (its packed condition bytes) satisfy every term.
    #[inline]
    pub(crate) fn matches(&self, input_is_left: bool, i: usize, other_packed: &[u8]) -> bool {
        self.terms.iter().all(|&(lp, op, rp)| {
            let (l, r) = if input_is_left {
                (self.left.field(lp, i), packed_field(other_packed, rp))
            } else {
                (packed_field(other_packed, lp), self.right.field(rp, i))
            };
            // arrow-row's first byte of a field is 0 for NULL (nulls first).
            match (l.first(), r.first()) {
                (Some(&a), Some(&b)) if a != 0 && b != 0 => op.holds(l.cmp(r)),
                _ => false,
            }
        })
    }
}
