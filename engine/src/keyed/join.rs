//! [`JoinOperator`]: the updating join of `sluice-keyed` ([`StreamingJoin`],
//! Flink's `StreamingJoinOperator`) as the bindings drive it: two inputs
//! (`push_left` / `push_right`), one spec line, Flink-key-group snapshots.
//!
//! # Spec grammar
//! ```text
//! spec      := "join" ( ' '+ option )*
//! option    := name '=' value            (no spaces inside an option)
//!
//!   type=inner|left|right|full        required
//!   left_keys=columns                 join key columns of the left input; required
//!   right_keys=columns                of the right input, pairwise of the same type; required
//!   left_unique=columns               a unique key of the left input (Flink's JoinInputSideSpec):
//!                                     contained in left_keys → one record per join key,
//!                                     else records identified by it; default none
//!   right_unique=columns              the same for the right input
//!   null_safe=positions               0-based positions in the key lists compared with
//!                                     IS NOT DISTINCT FROM (NULL matches NULL); default none
//!   condition=term(','term)*          non-equi conjunction; term := left_col op right_col,
//!                                     op := = | <> | < | <= | > | >=; default none
//!   line=flink1|flink2                row order within one input row (Flink 1.20 or 2.x);
//!                                     default flink2
//!   replaced_adds=bool                a record replacing a stored one counts a new
//!                                     association (Flink 1.20.4 / 2.3.0); default true
//!   max_parallelism=1..32768          default 128
//!   budget=bytes                      retained-state budget over both inputs; default none
//! ```
//! Columns are 0-based indices or field names of the side's schema.
//! Output rows: the left fields then the right fields; a side that can be
//! padded with NULLs has every field nullable.
//!
//! Example: `join type=left left_keys=1 right_keys=0 right_unique=0`.

use arrow_array::{Array, RecordBatch, StructArray};
use arrow_schema::{Field, Schema, SchemaRef};
use sluice_keyed::row_kind::row_kinds_from_bytes;
use sluice_keyed::{CmpOp, CondTerm, JoinLine, JoinOptions, JoinSide, JoinType, KeyGroupRange, RowKind, StreamingJoin};

use crate::error::{Error, Result};
use crate::keyed::operator::{check_no_null_rows, checked_range, dense_blobs, output_parts, relabel};
use crate::keyed::spec::{boolean, column, columns, name_values, spec_err};

/// Flink's `KeyGroupRangeAssignment.UPPER_BOUND_MAX_PARALLELISM`.
const MAX_MAX_PARALLELISM: i32 = 1 << 15;

const OPTIONS: [&str; 11] = [
    "type",
    "left_keys",
    "right_keys",
    "left_unique",
    "right_unique",
    "null_safe",
    "condition",
    "line",
    "replaced_adds",
    "max_parallelism",
    "budget",
];

/// Parses a `join` spec against the two input schemas.
///
/// # Errors
/// [`Error::Spec`] naming the offending text.
pub fn parse_join(spec: &str, left: &Schema, right: &Schema) -> Result<JoinOptions> {
    let mut words = spec.split_ascii_whitespace();
    match words.next() {
        Some("join") => {}
        Some(other) => return Err(spec_err(format!("unknown operator `{other}` (expected join)"))),
        None => return Err(spec_err("empty spec (expected join)")),
    }
    let opts = name_values(words, "join", &OPTIONS)?;
    let get = |name: &str| opts.iter().find(|(n, _)| *n == name).map(|(_, v)| *v);
    let require = |name: &str| get(name).ok_or_else(|| spec_err(format!("join needs `{name}=`")));
    let join_type = match require("type")? {
        "inner" => JoinType::Inner,
        "left" => JoinType::Left,
        "right" => JoinType::Right,
        "full" => JoinType::Full,
        v => return Err(spec_err(format!("type=`{v}` (expected inner, left, right or full)"))),
    };
    let mut o = JoinOptions::new(
        join_type,
        columns(require("left_keys")?, left, "left_keys")?,
        columns(require("right_keys")?, right, "right_keys")?,
    );
    if o.left.key_columns.len() != o.right.key_columns.len() {
        return Err(spec_err(format!(
            "left_keys has {} columns, right_keys {}",
            o.left.key_columns.len(),
            o.right.key_columns.len()
        )));
    }
    o.left = JoinSide {
        key_columns: o.left.key_columns,
        unique_key: get("left_unique").map(|v| columns(v, left, "left_unique")).transpose()?,
    };
    o.right = JoinSide {
        key_columns: o.right.key_columns,
        unique_key: get("right_unique").map(|v| columns(v, right, "right_unique")).transpose()?,
    };
    if let Some(v) = get("null_safe") {
        let n = o.left.key_columns.len();
        let mut filter = vec![true; n];
        for p in v.split(',') {
            let i = p
                .parse::<usize>()
                .ok()
                .filter(|i| *i < n)
                .ok_or_else(|| spec_err(format!("null_safe: `{p}` is not a key position in 0..{n}")))?;
            filter[i] = false;
        }
        o.filter_null_keys = filter;
    }
    if let Some(v) = get("condition") {
        o.condition = v.split(',').map(|t| term(t, left, right)).collect::<Result<_>>()?;
    }
    o.line = match get("line") {
        None | Some("flink2") => JoinLine::Flink2,
        Some("flink1") => JoinLine::Flink1,
        Some(v) => return Err(spec_err(format!("line=`{v}` (expected flink1 or flink2)"))),
    };
    o.replaced_record_adds_association = boolean(get("replaced_adds"), "replaced_adds", true)?;
    if let Some(v) = get("max_parallelism") {
        o.max_parallelism =
            v.parse::<i32>().ok().filter(|m| (1..=MAX_MAX_PARALLELISM).contains(m)).ok_or_else(|| {
                spec_err(format!("max_parallelism=`{v}` is not an integer in 1..={MAX_MAX_PARALLELISM}"))
            })?;
    }
    if let Some(v) = get("budget") {
        o.state_budget = Some(v.parse::<usize>().map_err(|_| spec_err(format!("budget=`{v}` is not a byte count")))?);
    }
    Ok(o)
}

/// `left_col op right_col`.
fn term(t: &str, left: &Schema, right: &Schema) -> Result<CondTerm> {
    // Two-character operators first, so `<=` is not read as `<`.
    const OPS: [(&str, CmpOp); 6] =
        [("<=", CmpOp::Le), (">=", CmpOp::Ge), ("<>", CmpOp::Ne), ("=", CmpOp::Eq), ("<", CmpOp::Lt), (">", CmpOp::Gt)];
    for (s, op) in OPS {
        if let Some((l, r)) = t.split_once(s) {
            let what = format!("condition term `{t}`");
            return Ok(CondTerm { left: column(l, left, &what)?, op, right: column(r, right, &what)? });
        }
    }
    Err(spec_err(format!("condition term `{t}` is not left_column op right_column (op: = <> < <= > >=)")))
}

/// The updating join created from a spec line, with the schemas a foreign
/// caller needs and Flink-key-group snapshots.
pub struct JoinOperator {
    join: StreamingJoin,
    opts: JoinOptions,
    left_schema: SchemaRef,
    right_schema: SchemaRef,
    output_schema: SchemaRef,
    output_field: Field,
}

impl std::fmt::Debug for JoinOperator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JoinOperator").field("opts", &self.opts).field("size", &self.join.size()).finish()
    }
}

impl JoinOperator {
    /// Parses `spec` against both schemas and builds the join.
    ///
    /// # Errors
    /// [`Error::Spec`] for a bad spec; the join's own refusals
    /// ([`Error::Keyed`]: key types that differ or are unsupported, a
    /// condition over unsupported types).
    pub fn new(left: SchemaRef, right: SchemaRef, spec: &str) -> Result<Self> {
        let opts = parse_join(spec, &left, &right)?;
        let join = StreamingJoin::new(left.clone(), right.clone(), opts.clone())?;
        let (output_schema, output_field) = output_parts(&join.output_schema())?;
        Ok(JoinOperator { join, opts, left_schema: left, right_schema: right, output_schema, output_field })
    }

    /// The parsed options.
    pub fn options(&self) -> &JoinOptions {
        &self.opts
    }

    /// The schema pushed left batches must have.
    pub fn left_schema(&self) -> &SchemaRef {
        &self.left_schema
    }

    /// The schema pushed right batches must have.
    pub fn right_schema(&self) -> &SchemaRef {
        &self.right_schema
    }

    /// The schema of emitted batches (every field with `flink.type`).
    pub fn output_schema(&self) -> &SchemaRef {
        &self.output_schema
    }

    /// The output as one struct field (`row`), the shape the C ABI exports.
    pub fn output_field(&self) -> &Field {
        &self.output_field
    }

    /// Flink max parallelism of this join.
    pub fn max_parallelism(&self) -> i32 {
        self.opts.max_parallelism
    }

    /// Retained state bytes of both inputs.
    pub fn size(&self) -> usize {
        self.join.size()
    }

    /// Join keys in the left and right state.
    pub fn num_keys(&self) -> (usize, usize) {
        self.join.num_keys()
    }

    /// Processes a changelog batch of one input (`left`: Flink's
    /// `processElement1`, else `processElement2`).
    ///
    /// # Errors
    /// A batch whose column types differ from the side's schema, a
    /// `row_kinds` length mismatch, the state budget (the rows before the
    /// failing one stay applied and their output is lost: restore from a
    /// snapshot).
    pub fn push(
        &mut self,
        left: bool,
        batch: &RecordBatch,
        row_kinds: &[RowKind],
    ) -> Result<(RecordBatch, Vec<RowKind>)> {
        let (out, kinds) =
            if left { self.join.process_left(batch, row_kinds)? } else { self.join.process_right(batch, row_kinds)? };
        Ok((relabel(&self.output_schema, &out)?, kinds))
    }

    /// [`Self::push`] of the left input.
    ///
    /// # Errors
    /// As [`Self::push`].
    pub fn push_left(&mut self, batch: &RecordBatch, row_kinds: &[RowKind]) -> Result<(RecordBatch, Vec<RowKind>)> {
        self.push(true, batch, row_kinds)
    }

    /// [`Self::push`] of the right input.
    ///
    /// # Errors
    /// As [`Self::push`].
    pub fn push_right(&mut self, batch: &RecordBatch, row_kinds: &[RowKind]) -> Result<(RecordBatch, Vec<RowKind>)> {
        self.push(false, batch, row_kinds)
    }

    /// [`Self::push`] of a batch arriving as one struct array with Flink
    /// `RowKind` bytes (`None`: every row `+I`), as the C ABI hands it over.
    ///
    /// # Errors
    /// NULL rows, a byte outside 0..=3, then as [`Self::push`].
    pub fn push_struct(
        &mut self,
        left: bool,
        batch: &StructArray,
        row_kinds: Option<&[u8]>,
    ) -> Result<(RecordBatch, Vec<RowKind>)> {
        check_no_null_rows(batch)?;
        let kinds = match row_kinds {
            Some(b) => row_kinds_from_bytes(b)?,
            None => vec![RowKind::Insert; batch.len()],
        };
        // Field types are checked by the join; names and nullability are not.
        let rb = RecordBatch::from(batch.clone());
        self.push(left, &rb, &kinds)
    }

    /// The key-group range `[first, last]`, checked against the max parallelism.
    ///
    /// # Errors
    /// [`Error::Invalid`] unless `0 <= first <= last < max_parallelism`.
    pub fn key_group_range(&self, first: i32, last: i32) -> Result<KeyGroupRange> {
        checked_range(self.opts.max_parallelism, first, last)
    }

    /// Both inputs' state whose join key's key group is in `range`, as one blob.
    ///
    /// # Errors
    /// None today.
    pub fn snapshot(&self, range: KeyGroupRange) -> Result<Vec<u8>> {
        Ok(self.join.snapshot(range)?)
    }

    /// One blob per key group of `range` (`result[i]` is key group
    /// `range.start + i`; empty for a key group without state).
    ///
    /// # Errors
    /// An empty range.
    pub fn snapshot_key_groups(&self, range: KeyGroupRange) -> Result<Vec<Vec<u8>>> {
        if range.start > range.end || range.start < 0 {
            return dense_blobs(range, Vec::new());
        }
        dense_blobs(range, self.join.snapshot_key_groups(range)?)
    }

    /// Adds the state of every non-empty blob whose key group is in `range`.
    ///
    /// # Errors
    /// As `KeyedOperator::restore`: `CorruptSnapshot` for a corrupt or
    /// foreign blob, a join key already in state, the budget; wrapped in
    /// [`Error::Restore`] naming the blob when there are several.
    pub fn restore(&mut self, blobs: &[&[u8]], range: KeyGroupRange) -> Result<()> {
        for (i, blob) in blobs.iter().enumerate().filter(|(_, b)| !b.is_empty()) {
            self.join.restore(blob, range).map_err(|e| {
                if blobs.len() > 1 {
                    Error::Restore { blob: i, source: e }
                } else {
                    Error::Keyed(e)
                }
            })?;
        }
        Ok(())
    }
}
