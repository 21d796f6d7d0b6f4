//! Output columns of the GROUP BY: each aggregate's emitted values gathered
//! from its per-row before/after [`Pairs`], one typed pass per column.

use std::sync::Arc;

use arrow_array::{ArrayRef, Float64Array, Int64Array, StringArray};
use arrow_buffer::{Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};

use crate::agg::VType;
use crate::agg_update::Pairs;
use crate::error::{Error, Result};

/// The output column of type `t` whose row `o` is `pairs` entry `src[o]`
/// (`2 * row` = the value before input row `row`, `2 * row + 1` = after).
pub(crate) fn gather_column(pairs: &Pairs, src: &[u32], t: VType) -> Result<ArrayRef> {
    let valid_at = |j: u32| pairs.valid.get(j as usize).copied().unwrap_or(false);
    let nulls = if src.iter().all(|&j| valid_at(j)) {
        None
    } else {
        Some(NullBuffer::from(src.iter().map(|&j| valid_at(j)).collect::<Vec<bool>>()))
    };
    let bits = |j: u32| pairs.vals.get(j as usize).copied().unwrap_or(0);
    Ok(match t {
        VType::I64 => {
            let v: Vec<i64> = src.iter().map(|&j| bits(j) as i64).collect();
            Arc::new(Int64Array::new(ScalarBuffer::from(v), nulls))
        }
        VType::F64 => {
            let v: Vec<f64> = src.iter().map(|&j| f64::from_bits(bits(j))).collect();
            Arc::new(Float64Array::new(ScalarBuffer::from(v), nulls))
        }
        VType::Str => {
            let span = |j: u32| {
                if !valid_at(j) {
                    return &[][..];
                }
                let start = bits(j) as usize;
                let end = pairs.ends.get(j as usize).copied().unwrap_or(start);
                pairs.arena.get(start..end).unwrap_or(&[])
            };
            let total: usize = src.iter().map(|&j| span(j).len()).sum();
            if total > i32::MAX as usize {
                return Err(Error::OffsetOverflow { needed: total, limit: i32::MAX as usize });
            }
            let mut offsets = Vec::with_capacity(src.len() + 1);
            offsets.push(0i32);
            let mut data = Vec::with_capacity(total);
            for &j in src {
                data.extend_from_slice(span(j));
                offsets.push(data.len() as i32);
            }
            Arc::new(StringArray::try_new(OffsetBuffer::new(ScalarBuffer::from(offsets)), Buffer::from_vec(data), nulls)?)
        }
    })
}
