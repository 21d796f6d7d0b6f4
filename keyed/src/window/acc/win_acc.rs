//! [`WinAcc`], the trait every window accumulator implements, and the
//! snapshot and output helpers the implementations share.

use std::ops::Range;

use super::col::Col;
use crate::agg::VType;
use crate::error::Result;
use crate::group_agg::drive::OutBuf;
use crate::snapshot::{Reader, Writer};

/// One aggregate's states, one per slice slot.
pub(crate) trait WinAcc: Send + Sync {
    /// Appends one empty slot.
    fn push_slot(&mut self);
    /// Drops the slots from `len` on (rollback of a failed restore).
    fn truncate(&mut self, len: usize);
    /// Empties slot `slot`; returns the heap bytes it released.
    fn clear(&mut self, slot: usize) -> usize;
    /// Folds rows `rows` of `col` into slot `slot`, in row order; returns
    /// the heap bytes it added.
    fn fold(&mut self, slot: usize, col: &Col<'_>, rows: Range<usize>) -> usize;
    /// Merges slot `src` into slot `dst` (`mergeExpressions`); returns the
    /// heap bytes it added.
    fn merge(&mut self, dst: usize, src: usize) -> usize;
    /// Appends the value of slot `slot` to `out`.
    fn emit(&self, slot: usize, out: &mut OutBuf);
    /// The output value type.
    fn vtype(&self) -> VType;
    /// Writes slot `slot` in the snapshot format.
    fn write(&self, slot: usize, w: &mut Writer);
    /// Reads one state into slot `slot`; returns its heap bytes.
    ///
    /// # Errors
    /// [`crate::Error::CorruptSnapshot`] for a truncated or foreign state.
    fn read(&mut self, slot: usize, r: &mut Reader<'_>) -> Result<usize>;
    /// Bytes of one slot inside the state vector.
    fn slot_bytes(&self) -> usize;
    /// Benchmark hook: MIN/MAX of strings copies every candidate string
    /// before comparing it (the behaviour winner selection replaced).
    #[cfg(feature = "public_imp")]
    fn set_copy_every_string(&mut self, _on: bool) {}
}

pub(crate) fn expect_tag(r: &mut Reader<'_>, want: u8) -> Result<()> {
    let tag = r.u8("accumulator tag")?;
    if tag != want {
        return Err(r.corrupt(format!("accumulator tag {tag}, the operator's aggregate has tag {want}")));
    }
    Ok(())
}

pub(crate) fn push_num(out: &mut OutBuf, v: Option<u64>) {
    out.vals.push(v.unwrap_or(0));
    out.valid.push(v.is_some());
    out.any_null |= v.is_none();
}
