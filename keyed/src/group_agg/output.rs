//! Output columns of the GROUP BY: an aggregate's [`OutBuf`], already in
//! output-row order, turned into an Arrow array (numbers without a copy).

use std::sync::Arc;

use arrow_array::{ArrayRef, Float64Array, Int64Array, StringArray};
use arrow_buffer::{Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};

use super::drive::OutBuf;
use crate::agg::VType;
use crate::error::{Error, Result};

/// Drops the output rows whose `keep` flag is false (in order).
pub(crate) fn compact<T>(v: &mut Vec<T>, keep: &[bool]) {
    let mut k = keep.iter();
    v.retain(|_| k.next().copied().unwrap_or(true));
}

/// The first `len` rows of `out` as an array of type `t`, taking its value
/// buffer (numeric values move into the array without a copy; validity is
/// packed into a bitmap only when some value is NULL).
pub(crate) fn finish_column(out: &mut OutBuf, len: usize, t: VType) -> Result<ArrayRef> {
    let mut vals = std::mem::take(&mut out.vals);
    vals.resize(len, 0);
    let valid = &mut out.valid;
    valid.resize(len, false);
    // `any_null` may be stale-true after compaction; a bitmap without nulls is still correct.
    let nulls = if out.any_null { Some(NullBuffer::from(&valid[..])) } else { None };
    Ok(match t {
        VType::I64 => {
            let buf = ScalarBuffer::<i64>::new(Buffer::from_vec(vals), 0, len);
            Arc::new(Int64Array::try_new(buf, nulls)?)
        }
        VType::F64 => {
            let buf = ScalarBuffer::<f64>::new(Buffer::from_vec(vals), 0, len);
            Arc::new(Float64Array::try_new(buf, nulls)?)
        }
        VType::Str => {
            let (arena, ends) = (&out.arena, &out.ends);
            let span = |j: usize| -> &[u8] {
                if nulls.as_ref().is_some_and(|n| n.is_null(j)) {
                    return &[];
                }
                let (Some(&start), Some(&end)) = (vals.get(j), ends.get(j)) else { return &[] };
                arena.get(start as usize..end).unwrap_or(&[])
            };
            let total: usize = (0..len).map(|j| span(j).len()).sum();
            if total > i32::MAX as usize {
                return Err(Error::OffsetOverflow { needed: total, limit: i32::MAX as usize });
            }
            let mut offsets = Vec::with_capacity(len + 1);
            offsets.push(0i32);
            let mut data = Vec::with_capacity(total);
            for j in 0..len {
                data.extend_from_slice(span(j));
                offsets.push(data.len() as i32);
            }
            Arc::new(StringArray::try_new(
                OffsetBuffer::new(ScalarBuffer::from(offsets)),
                Buffer::from_vec(data),
                nulls.clone(),
            )?)
        }
    })
}
