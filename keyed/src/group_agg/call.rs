//! `FILTER (WHERE f)` and `DISTINCT` of one aggregate call, as a mask in
//! front of its accumulator: per batch, the call's input column is replaced
//! by the same column with the rows that do not contribute set to NULL (an
//! accumulator ignores a NULL value, so it never learns of them), and
//! `COUNT(*) FILTER` becomes a `COUNT` over a column that is valid exactly
//! where the filter holds. The accumulators themselves are unchanged.
//!
//! Semantics follow Flink's code generation
//! (`flink-table-planner/.../codegen/agg/AggsHandlerCodeGenerator.scala`,
//! `ImperativeAggCodeGen` / `DeclarativeAggCodeGen` for the filter, and
//! `DistinctAggCodeGen.scala` for DISTINCT):
//! * FILTER: accumulate and retract run only when the filter value is true;
//!   a NULL filter reads as false.
//! * DISTINCT over a retracting input (`LongValueWithRetractionGenerator`):
//!   a per-group map value → count. An accumulate row (that passes the
//!   filter) adds 1 and reaches the inner aggregate only when the count
//!   becomes 1; a retraction subtracts 1 and reaches it only when the count
//!   becomes 0. A count of 0 removes the entry; a retraction of a value not
//!   in the map stores -1 (as Flink does), so a later accumulate of it only
//!   brings it back to 0. Over an insert-only input Flink keeps a "seen"
//!   bit instead; a count ≥ 1 is the same thing.
//! * NULL arguments are not stored: every aggregate that takes DISTINCT
//!   ignores a NULL value, so whether Flink's map holds the NULL key changes
//!   no result.
//! * The map lives and dies with its group: a row that deletes the group
//!   (record count 0) clears it, as `GroupAggFunction` clears all state.
//!
//! Each call with DISTINCT has its own map (Flink shares one map among the
//! calls over the same argument, with one count per filter; the results
//! are the same).
//!
//! # State
//! The map of a group is keyed by the value's bytes (a BIGINT's 8
//! little-endian bytes, a DOUBLE's bits after folding every NaN into one,
//! so values are told apart like `Double.equals`; a string's UTF-8 bytes),
//! probed with bytes borrowed from the batch: a value already in the map
//! allocates nothing. Each entry is charged `ENTRY_OVERHEAD + 8 + len` to
//! the state budget. In a snapshot, a call's map follows its accumulator:
//! `u32 n`, then `n × (bytes value, i64 count)` in byte order.

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{Float64Type, Int64Type};
use arrow_array::{Array, ArrayRef, BooleanArray};
use arrow_buffer::{BooleanBuffer, BooleanBufferBuilder, NullBuffer};
use arrow_select::nullif::nullif;

use super::accumulator::{with_str_input, wrong_type};
use super::drive::{op, Plan, RowInput};
use crate::agg::{Resolved, VType};
use crate::error::{invalid_arg, Result};
use crate::snapshot::{Reader, Writer};
use crate::state::{ByteKeyMap, ENTRY_OVERHEAD};

/// Bytes charged per distinct entry besides its value bytes.
const DISTINCT_ENTRY: usize = ENTRY_OVERHEAD + std::mem::size_of::<i64>();

/// The FILTER column and the DISTINCT state of one aggregate call.
pub(crate) struct CallMask {
    filter: Option<usize>,
    distinct: Option<Distinct>,
}

/// Per group slot, value bytes → count (see the module docs).
struct Distinct {
    vtype: VType,
    maps: Vec<ByteKeyMap<i64>>,
}

impl CallMask {
    /// The mask of `r`, or `None` for a call without FILTER and DISTINCT.
    pub(crate) fn of(r: &Resolved) -> Option<Self> {
        if r.filter.is_none() && !r.distinct {
            return None;
        }
        let distinct = r.distinct.then(|| Distinct { vtype: r.vtype, maps: Vec::new() });
        Some(CallMask { filter: r.filter, distinct })
    }

    /// Whether the mask holds state of its own (the distinct maps).
    pub(crate) fn has_state(&self) -> bool {
        self.distinct.is_some()
    }

    pub(crate) fn push_group(&mut self) {
        if let Some(d) = &mut self.distinct {
            d.maps.push(ByteKeyMap::default());
        }
    }

    pub(crate) fn truncate(&mut self, len: usize) {
        if let Some(d) = &mut self.distinct {
            d.maps.truncate(len);
        }
    }

    /// The call's input for the plan's rows with the rows that do not reach
    /// the accumulator set to NULL (for `COUNT(*)`, `column` is `None` and
    /// the result is a column valid where the row counts), and the change in
    /// the distinct maps' bytes. Walks the rows in order, so the distinct
    /// counts see every row of the plan as the row-at-a-time loop would.
    ///
    /// # Errors
    /// A filter column that is not BOOLEAN, an input column missing or of
    /// another type than at construction.
    pub(crate) fn input(
        &mut self,
        columns: &[ArrayRef],
        column: Option<usize>,
        plan: &Plan<'_>,
    ) -> Result<(ArrayRef, isize)> {
        let n = columns.first().map_or(0, |c| c.len());
        let passes = match self.filter {
            Some(f) => {
                Some(filter_bits(columns.get(f).ok_or_else(|| invalid_arg(format!("filter column {f} missing")))?)?)
            }
            None => None,
        };
        let input = match column {
            Some(c) => Some(columns.get(c).ok_or_else(|| invalid_arg(format!("aggregate input column {c} missing")))?),
            None => None,
        };
        let (contrib, delta) = match (&mut self.distinct, input) {
            (Some(d), Some(a)) => d.pass(a, passes.as_ref(), plan, n)?,
            _ => (passes.unwrap_or_else(|| BooleanBuffer::new_set(n)), 0),
        };
        let masked: ArrayRef = match input {
            Some(a) => nullif(a.as_ref(), &BooleanArray::new(!&contrib, None))?,
            None => Arc::new(BooleanArray::new(contrib.clone(), Some(NullBuffer::new(contrib)))),
        };
        Ok((masked, delta))
    }

    /// The distinct map of `slot`, after the accumulator's state.
    pub(crate) fn write_state(&self, slot: usize, w: &mut Writer) {
        let Some(d) = &self.distinct else { return };
        let mut entries: Vec<(&[u8], i64)> =
            d.maps.get(slot).map(|m| m.iter().map(|(k, &c)| (&**k, c)).collect()).unwrap_or_default();
        entries.sort_unstable();
        w.u32(entries.len() as u32);
        for (k, c) in entries {
            w.bytes(k);
            w.i64(c);
        }
    }

    /// Reads the distinct map of `slot` (which must exist).
    pub(crate) fn read_state(&mut self, slot: usize, r: &mut Reader<'_>) -> Result<()> {
        let Some(d) = &mut self.distinct else { return Ok(()) };
        let n = r.count("distinct map size", 12)?;
        let mut m = ByteKeyMap::default();
        for _ in 0..n {
            let k = r.bytes("distinct value")?;
            if d.vtype != VType::Str && k.len() != 8 {
                return Err(r.corrupt(format!("distinct value of {} bytes for a numeric argument", k.len())));
            }
            let c = r.i64("distinct count")?;
            if c == 0 || m.insert(Box::from(k), c).is_some() {
                return Err(r.corrupt("distinct entry with count 0 or stored twice"));
            }
        }
        *d.maps.get_mut(slot).ok_or_else(|| invalid_arg("restore: distinct slot missing"))? = m;
        Ok(())
    }

    /// Bytes the distinct map of `slot` holds (as charged).
    pub(crate) fn heap_size(&self, slot: usize) -> usize {
        let Some(d) = &self.distinct else { return 0 };
        d.maps.get(slot).map_or(0, map_bytes)
    }
}

fn map_bytes(m: &ByteKeyMap<i64>) -> usize {
    m.keys().map(|k| k.len() + DISTINCT_ENTRY).sum()
}

/// Where the BOOLEAN column `a` is true (NULL is false).
fn filter_bits(a: &ArrayRef) -> Result<BooleanBuffer> {
    let b = a.as_boolean_opt().ok_or_else(|| wrong_type(a.data_type()))?;
    Ok(match b.nulls() {
        Some(nulls) => b.values() & nulls.inner(),
        None => b.values().clone(),
    })
}

/// A DISTINCT argument's value as map key bytes.
trait KeyBytes {
    fn with<R>(self, f: impl FnOnce(&[u8]) -> R) -> R;
}

impl KeyBytes for i64 {
    #[inline(always)]
    fn with<R>(self, f: impl FnOnce(&[u8]) -> R) -> R {
        f(&self.to_le_bytes())
    }
}

impl KeyBytes for f64 {
    #[inline(always)]
    fn with<R>(self, f: impl FnOnce(&[u8]) -> R) -> R {
        // One NaN, -0.0 apart from 0.0: `Double.equals` / `doubleToLongBits`.
        let canon = if self.is_nan() { f64::NAN } else { self };
        f(&canon.to_bits().to_le_bytes())
    }
}

impl KeyBytes for &[u8] {
    #[inline(always)]
    fn with<R>(self, f: impl FnOnce(&[u8]) -> R) -> R {
        f(self)
    }
}

/// The non-NULL values of a numeric column.
struct Nums<'a, T> {
    values: &'a [T],
    nulls: Option<&'a NullBuffer>,
}

impl<T: Copy> RowInput for Nums<'_, T> {
    type Item = Option<T>;
    #[inline(always)]
    fn at(&self, i: usize) -> Option<T> {
        if self.nulls.is_some_and(|n| i >= n.len() || n.is_null(i)) {
            return None;
        }
        self.values.get(i).copied()
    }
}

impl Distinct {
    /// Which rows of the plan reach the inner aggregate, updating the maps
    /// in row order; rows outside the plan do not.
    fn pass(
        &mut self,
        a: &ArrayRef,
        passes: Option<&BooleanBuffer>,
        plan: &Plan<'_>,
        n: usize,
    ) -> Result<(BooleanBuffer, isize)> {
        let mut out = BooleanBufferBuilder::new(n);
        out.append_n(n, false);
        let delta = match self.vtype {
            VType::I64 => {
                let p = a.as_primitive_opt::<Int64Type>().ok_or_else(|| wrong_type(a.data_type()))?;
                walk(&mut self.maps, Nums { values: p.values(), nulls: p.nulls() }, passes, plan, &mut out)
            }
            VType::F64 => {
                let p = a.as_primitive_opt::<Float64Type>().ok_or_else(|| wrong_type(a.data_type()))?;
                walk(&mut self.maps, Nums { values: p.values(), nulls: p.nulls() }, passes, plan, &mut out)
            }
            VType::Str => with_str_input!(a, inp => walk(&mut self.maps, inp, passes, plan, &mut out)),
        };
        Ok((out.finish(), delta))
    }
}

/// The distinct pass over one input layout (see [`Distinct::pass`]).
#[inline(always)]
fn walk<K: KeyBytes>(
    maps: &mut [ByteKeyMap<i64>],
    input: impl RowInput<Item = Option<K>>,
    passes: Option<&BooleanBuffer>,
    plan: &Plan<'_>,
    out: &mut BooleanBufferBuilder,
) -> isize {
    let mut delta = 0isize;
    for i in plan.rows.clone() {
        let (Some(&o), Some(&slot)) = (plan.ops.get(i), plan.slots.get(i)) else { continue };
        let Some(m) = maps.get_mut(slot as usize) else { continue };
        match o {
            op::SKIP => continue,
            op::DEL => {
                // The group leaves state: its map with it.
                delta -= map_bytes(m) as isize;
                *m = ByteKeyMap::default();
                continue;
            }
            _ => {}
        }
        if passes.is_some_and(|p| i >= p.len() || !p.value(i)) {
            continue;
        }
        let Some(v) = input.at(i) else { continue };
        let accumulate = o != op::RET;
        let (reaches, d) = v.with(|k| count(m, k, accumulate));
        delta += d;
        if reaches {
            out.set_bit(i, true);
        }
    }
    delta
}

/// Adds (`accumulate`) or subtracts 1 from `k`'s count: whether the row
/// reaches the inner aggregate (count 0 → 1, or 1 → 0), and the byte change.
#[inline(always)]
fn count(m: &mut ByteKeyMap<i64>, k: &[u8], accumulate: bool) -> (bool, isize) {
    let step = if accumulate { 1 } else { -1 };
    let entry = (k.len() + DISTINCT_ENTRY) as isize;
    match m.get_mut(k) {
        Some(c) => {
            *c += step;
            let reaches = if accumulate { *c == 1 } else { *c == 0 };
            if *c == 0 {
                m.remove(k);
                return (reaches, -entry);
            }
            (reaches, 0)
        }
        None => {
            m.insert(Box::from(k), step);
            (accumulate, entry)
        }
    }
}
