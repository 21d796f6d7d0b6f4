//! The accumulator seam of the GROUP BY: one [`GroupsAccumulator`] per
//! aggregate call, holding that aggregate's state for every group slot.
//!
//! DataFusion's `GroupsAccumulator` (`datafusion-expr-common`,
//! `groups_accumulator.rs`) is the model: an accumulator stores one state
//! per group index in a typed vector, and is driven a batch at a time by
//! group index, so the aggregate kind is matched once per batch, never per
//! row. What differs here is the changelog: Flink's `GroupAggFunction`
//! emits every row's values before and after it, so update and retraction
//! are one pass ([`update_batch`](GroupsAccumulator::update_batch)) that
//! applies the planned rows in row order and writes those values as it goes;
//! [`evaluate`](GroupsAccumulator::evaluate) then turns them into the output
//! column. Merging two states of one group (DataFusion's `merge_batch`, for
//! multi-phase aggregation) has no use here: a group lives in exactly one
//! operator, and a restore at another parallelism moves whole groups.
//!
//! The implementations, one module per aggregate family:
//!
//! | module | aggregates | state per group | snapshot tag |
//! | --- | --- | --- | --- |
//! | [`count`](super::count) | `COUNT(*)`, `COUNT(x)` | count | 0 |
//! | [`sum`](super::sum) | `SUM`, `$SUM0`, `AVG` | sum, non-NULL count | 1 (BIGINT), 2 (DOUBLE) |
//! | [`current`](super::current) | append-only `MIN`/`MAX`/`FIRST_VALUE`/`LAST_VALUE` | current value | 3, 4, 5 |
//! | [`multiset`](super::multiset) | retractable `MIN`/`MAX` | value → count | 6, 7, 8 |
//! | [`history`](super::history) | retractable `FIRST_VALUE`/`LAST_VALUE` | values in arrival order | 9 |
//!
//! # Snapshot format (per group, per aggregate)
//! A tag byte then the fields, little-endian: `0` COUNT (i64); `1` integer
//! SUM/AVG (sum i64, count i64); `2` double SUM/AVG (flag u8, sum f64,
//! count i64); `3`/`4`/`5` append-only MIN/MAX/FIRST/LAST of BIGINT /
//! DOUBLE / VARCHAR (flag u8, value); `6`/`7`/`8` retractable MIN/MAX
//! multisets (u32 n, n × (value, count u64)); `9` retractable FIRST/LAST
//! history (u32 n, n × (value tag u8: 0 i64 / 1 f64 / 2 bytes, value)).
//! A call with DISTINCT writes its distinct map right after its accumulator
//! (`call.rs`).

use arrow_array::cast::AsArray;
use arrow_array::types::{Float64Type, Int64Type};
use arrow_array::{Array, ArrayRef};
use arrow_schema::DataType;

use super::drive::{OutBuf, Pass, Prim};
use super::output::finish_column;
use crate::agg::{AggKind, OrdF64, VType};
use crate::error::{invalid_arg, Error, Result};
use crate::snapshot::{Reader, Writer};

/// Heap bytes charged per stored multiset / history entry (node share).
pub(crate) const ENTRY: usize = 32;

/// The state of one aggregate for every group slot of a GROUP BY, as the
/// operator drives it (object-safe: the operator holds one boxed per
/// aggregate call). Implemented once, by [`Groups`], over the
/// [`Accumulator`] of each aggregate.
///
/// Slots are dense indices handed out by the operator: a new group appends
/// one ([`push_group`](Self::push_group)), a freed slot is emptied by the
/// row that deletes its group and reused later.
pub(crate) trait GroupsAccumulator: Send + Sync {
    /// Appends one empty accumulator (a new slot).
    fn push_group(&mut self);

    /// Drops the slots from `len` on (rollback of a failed restore).
    fn truncate(&mut self, len: usize);

    /// Update and retract: applies the planned rows of one batch in row
    /// order (accumulate rows add their value, retractions remove it, a
    /// row that deletes its group empties the slot), appending each row's
    /// value before / after it to `out` as the plan says and OR-ing "value
    /// changed" into `changed[row]`. `input` is the aggregate's input
    /// column (`None` for `COUNT(*)`). Returns the change in heap bytes.
    ///
    /// # Errors
    /// An input column missing or of another type than at construction.
    fn update_batch(&mut self, input: Option<&ArrayRef>, pass: Pass<'_, '_>) -> Result<isize>;

    /// Emit: the first `len` values [`update_batch`](Self::update_batch)
    /// appended to `out`, as the aggregate's output column.
    ///
    /// # Errors
    /// String values over the i32 offset range.
    fn evaluate(&self, out: &mut OutBuf, len: usize) -> Result<ArrayRef>;

    /// State, encode: writes slot `slot` in the snapshot format (module
    /// docs); a slot out of range writes the empty accumulator.
    fn write_state(&self, slot: usize, w: &mut Writer);

    /// State, decode: reads one accumulator of the snapshot format into
    /// slot `slot` (which must exist). An accumulator of another shape than
    /// this aggregate's is [`Error::CorruptSnapshot`].
    fn read_state(&mut self, slot: usize, r: &mut Reader<'_>) -> Result<()>;

    /// Size: bytes of one slot's accumulator inside the vector.
    fn slot_bytes(&self) -> usize;

    /// Size: heap bytes owned by slot `slot` (an estimate, see [`ENTRY`]).
    fn heap_size(&self, slot: usize) -> usize;

    /// Whether the accumulators own heap memory that changes with the
    /// values (strings, multisets, histories).
    fn has_heap(&self) -> bool;
}

/// One aggregate function: the state a group keeps and how the rows of a
/// batch change the states of their groups. [`Groups`] turns it into a
/// [`GroupsAccumulator`].
pub(crate) trait Accumulator: Send + Sync + 'static {
    /// One group's state.
    type State: Send + Sync;
    /// Whether a state owns heap memory that changes with the values.
    const HAS_HEAP: bool = false;

    /// The state of a group without values.
    fn empty(&self) -> Self::State;

    /// The value type of the output column.
    fn output_type(&self) -> VType;

    /// [`GroupsAccumulator::update_batch`] over the states of all slots.
    ///
    /// # Errors
    /// An input column missing or of another type than at construction.
    fn update_batch(&self, states: &mut [Self::State], input: Option<&ArrayRef>, pass: Pass<'_, '_>) -> Result<isize>;

    /// Writes a state in the snapshot format, tag first.
    fn write(&self, s: &Self::State, w: &mut Writer);

    /// Reads a state of the snapshot format, tag first.
    ///
    /// # Errors
    /// [`Error::CorruptSnapshot`] for a truncated state or one of another shape.
    fn read(&self, r: &mut Reader<'_>) -> Result<Self::State>;

    /// Heap bytes a state owns (an estimate, see [`ENTRY`]).
    fn heap(_s: &Self::State) -> usize {
        0
    }
}

/// An [`Accumulator`]'s states, one per group slot.
pub(crate) struct Groups<A: Accumulator> {
    acc: A,
    states: Vec<A::State>,
}

impl<A: Accumulator> Groups<A> {
    pub(crate) fn boxed(acc: A) -> Box<dyn GroupsAccumulator> {
        Box::new(Groups { acc, states: Vec::new() })
    }
}

impl<A: Accumulator> GroupsAccumulator for Groups<A> {
    fn push_group(&mut self) {
        self.states.push(self.acc.empty());
    }

    fn truncate(&mut self, len: usize) {
        self.states.truncate(len);
    }

    #[inline]
    fn update_batch(&mut self, input: Option<&ArrayRef>, pass: Pass<'_, '_>) -> Result<isize> {
        self.acc.update_batch(&mut self.states, input, pass)
    }

    fn evaluate(&self, out: &mut OutBuf, len: usize) -> Result<ArrayRef> {
        finish_column(out, len, self.acc.output_type())
    }

    fn write_state(&self, slot: usize, w: &mut Writer) {
        match self.states.get(slot) {
            Some(s) => self.acc.write(s, w),
            None => self.acc.write(&self.acc.empty(), w),
        }
    }

    fn read_state(&mut self, slot: usize, r: &mut Reader<'_>) -> Result<()> {
        let s = self.acc.read(r)?;
        *self.states.get_mut(slot).ok_or_else(|| invalid_arg("restore: accumulator slot missing"))? = s;
        Ok(())
    }

    fn slot_bytes(&self) -> usize {
        std::mem::size_of::<A::State>()
    }

    fn heap_size(&self, slot: usize) -> usize {
        self.states.get(slot).map_or(0, A::heap)
    }

    fn has_heap(&self) -> bool {
        A::HAS_HEAP
    }
}

/// A numeric aggregate input (BIGINT or DOUBLE), with what the accumulators
/// need to know of it. Every method is `#[inline(always)]`, so each
/// accumulator's loop is monomorphised per type.
pub(crate) trait Num: Copy + Send + Sync + 'static {
    /// The type as a multiset key: ordered and compared like Flink
    /// (`Long.compare`, `Double.compareTo`).
    type Key: Ord + Copy + Send + Sync;
    /// The output value type.
    const VTYPE: VType;
    /// Snapshot tag of the append-only accumulator of this type.
    const CURRENT_TAG: u8;
    /// Snapshot tag of the retractable MIN/MAX multiset of this type.
    const MULTISET_TAG: u8;
    /// Value tag of a history entry of this type.
    const HISTORY_VALUE_TAG: u8;
    fn key(self) -> Self::Key;
    fn from_key(k: Self::Key) -> Self;
    /// The raw output bits (`OutBuf::vals`).
    fn bits(self) -> u64;
    /// Flink's generated equaliser on two output values' bits.
    fn same(a: u64, b: u64) -> bool;
    /// The column's values.
    ///
    /// # Errors
    /// A column of another type.
    fn input(a: &ArrayRef) -> Result<Prim<'_, Self>>;
    fn write(self, w: &mut Writer);
    fn read(r: &mut Reader<'_>) -> Result<Self>;
}

impl Num for i64 {
    type Key = i64;
    const VTYPE: VType = VType::I64;
    const CURRENT_TAG: u8 = 3;
    const MULTISET_TAG: u8 = 6;
    const HISTORY_VALUE_TAG: u8 = 0;
    #[inline(always)]
    fn key(self) -> i64 {
        self
    }
    #[inline(always)]
    fn from_key(k: i64) -> i64 {
        k
    }
    #[inline(always)]
    fn bits(self) -> u64 {
        self as u64
    }
    #[inline(always)]
    fn same(a: u64, b: u64) -> bool {
        eq_i(a, b)
    }
    fn input(a: &ArrayRef) -> Result<Prim<'_, i64>> {
        let p = a.as_primitive_opt::<Int64Type>().ok_or_else(|| wrong_type(a.data_type()))?;
        Ok(Prim { values: p.values(), nulls: p.nulls() })
    }
    fn write(self, w: &mut Writer) {
        w.i64(self)
    }
    fn read(r: &mut Reader<'_>) -> Result<i64> {
        r.i64("value")
    }
}

impl Num for f64 {
    type Key = OrdF64;
    const VTYPE: VType = VType::F64;
    const CURRENT_TAG: u8 = 4;
    const MULTISET_TAG: u8 = 7;
    const HISTORY_VALUE_TAG: u8 = 1;
    #[inline(always)]
    fn key(self) -> OrdF64 {
        OrdF64(self)
    }
    #[inline(always)]
    fn from_key(k: OrdF64) -> f64 {
        k.0
    }
    #[inline(always)]
    fn bits(self) -> u64 {
        self.to_bits()
    }
    #[inline(always)]
    fn same(a: u64, b: u64) -> bool {
        eq_f(a, b)
    }
    fn input(a: &ArrayRef) -> Result<Prim<'_, f64>> {
        let p = a.as_primitive_opt::<Float64Type>().ok_or_else(|| wrong_type(a.data_type()))?;
        Ok(Prim { values: p.values(), nulls: p.nulls() })
    }
    fn write(self, w: &mut Writer) {
        w.f64(self)
    }
    fn read(r: &mut Reader<'_>) -> Result<f64> {
        r.f64("value")
    }
}

/// +1 for an accumulate row, -1 for a retraction.
#[inline(always)]
pub(crate) fn sign(acc: bool) -> i64 {
    if acc {
        1
    } else {
        -1
    }
}

/// Flink's generated equaliser on BIGINT: `==`.
#[inline(always)]
pub(crate) fn eq_i(a: u64, b: u64) -> bool {
    a == b
}

/// Flink's generated equaliser on DOUBLE: `==` (NaN never equal, -0.0 == 0.0).
#[inline(always)]
#[allow(clippy::float_cmp)]
pub(crate) fn eq_f(a: u64, b: u64) -> bool {
    f64::from_bits(a) == f64::from_bits(b)
}

pub(crate) fn wrong_type(dt: &DataType) -> Error {
    invalid_arg(format!("aggregate input column of type {dt} does not match the operator's schema"))
}

/// The input column of an aggregate that needs one.
pub(crate) fn required(input: Option<&ArrayRef>, kind: AggKind) -> Result<&ArrayRef> {
    input.ok_or_else(|| invalid_arg(format!("{kind:?} needs an input column")))
}

/// Runs `$body` with `$inp` bound to a [`RowInput`](super::drive::RowInput)
/// over the string column `$a` (one instantiation per string layout).
macro_rules! with_str_input {
    ($a:expr, $inp:ident => $body:expr) => {{
        use arrow_array::cast::AsArray as _;
        let a: &arrow_array::ArrayRef = $a;
        match a.data_type() {
            arrow_schema::DataType::Utf8 => {
                let $inp = $crate::group_agg::drive::Strs(a.as_string::<i32>());
                $body
            }
            arrow_schema::DataType::LargeUtf8 => {
                let $inp = $crate::group_agg::drive::Strs(a.as_string::<i64>());
                $body
            }
            arrow_schema::DataType::Utf8View => {
                let $inp = $crate::group_agg::drive::Views(a.as_string_view());
                $body
            }
            other => return Err($crate::group_agg::accumulator::wrong_type(other)),
        }
    }};
}
pub(crate) use with_str_input;

/// Reads an accumulator's tag and checks it is `want`.
pub(crate) fn expect_tag(r: &mut Reader<'_>, want: u8) -> Result<()> {
    let tag = r.u8("accumulator tag")?;
    if tag == want {
        return Ok(());
    }
    Err(if tag > 9 {
        r.corrupt(format!("unknown accumulator tag {tag}"))
    } else {
        r.corrupt("accumulator kind does not match the operator's aggregate")
    })
}
