//! `sluice_key_groups`: Flink's key group and target channel per row.

use std::slice;

use arrow_array::ffi::{FFI_ArrowArray, FFI_ArrowSchema};
use arrow_array::Array;
use arrow_schema::DataType;

use crate::capi::arrow_c::{import, read_field, take_array};
use crate::capi::error::FfiError;
use crate::capi::rows::{record_batch, require_struct};

/// Flink's `KeyGroupRangeAssignment.UPPER_BOUND_MAX_PARALLELISM` (2^15).
const UPPER_BOUND_MAX_PARALLELISM: i32 = 1 << 15;

/// Key group and target channel of each row of `batch`, as Flink's
/// `KeyGroupRangeAssignment` computes them for the `BinaryRowData` key
/// projected from `key_columns` (indices into the struct's fields).
///
/// `max_parallelism` in 1..=32768, `parallelism` in 1..=`max_parallelism`;
/// `out_key_groups` / `out_channels` receive one `int32_t` per row.
///
/// # Safety
/// As in the header.
#[no_mangle]
pub unsafe extern "C" fn sluice_key_groups(
    batch: *mut FFI_ArrowArray,
    schema: *const FFI_ArrowSchema,
    key_columns: *const i32,
    n_key_columns: i32,
    max_parallelism: i32,
    parallelism: i32,
    out_key_groups: *mut i32,
    out_channels: *mut i32,
) -> i32 {
    ffi_boundary!("sluice_key_groups", {
        // SAFETY: the caller's contract (this function's `# Safety`).
        let array = unsafe { take_array(batch, "batch") }?;
        // SAFETY: the caller's contract (this function's `# Safety`).
        let field = unsafe { read_field(schema, "schema") }?;
        require_struct(&field, "schema")?;
        let DataType::Struct(fields) = field.data_type() else { unreachable!("checked above") };
        if n_key_columns < 0 {
            return Err(FfiError::invalid(format!("n_key_columns is negative ({n_key_columns})")));
        }
        let keys: &[i32] = if n_key_columns == 0 {
            &[]
        } else {
            check_not_null!(key_columns, "key_columns");
            if !key_columns.is_aligned() {
                return Err(FfiError::invalid("key_columns is not aligned"));
            }
            // SAFETY: non-NULL, aligned, `n_key_columns` entries per the contract.
            unsafe { slice::from_raw_parts(key_columns, n_key_columns as usize) }
        };
        if let Some((i, k)) = keys.iter().enumerate().find(|(_, k)| **k < 0 || **k as usize >= fields.len()) {
            return Err(FfiError::invalid(format!(
                "key_columns[{i}] = {k} is not a field index (the struct has {} fields)",
                fields.len()
            )));
        }
        if !(1..=UPPER_BOUND_MAX_PARALLELISM).contains(&max_parallelism) {
            return Err(FfiError::invalid(format!(
                "max_parallelism must be in 1..={UPPER_BOUND_MAX_PARALLELISM}, got {max_parallelism}"
            )));
        }
        if !(1..=max_parallelism).contains(&parallelism) {
            return Err(FfiError::invalid(format!(
                "parallelism must be in 1..=max_parallelism ({max_parallelism}), got {parallelism}"
            )));
        }
        // SAFETY: the caller's contract (this function's `# Safety`).
        let values = unsafe { import(array, field.data_type(), "batch") }?;
        let n = values.len();
        let (groups, channels): (&mut [i32], &mut [i32]) = if n == 0 {
            (&mut [], &mut [])
        } else {
            check_not_null!(out_key_groups, "out_key_groups");
            check_not_null!(out_channels, "out_channels");
            if !out_key_groups.is_aligned() || !out_channels.is_aligned() {
                return Err(FfiError::invalid("out_key_groups / out_channels are not aligned"));
            }
            // SAFETY: non-NULL, aligned, `n` writable entries each per the contract.
            unsafe { (slice::from_raw_parts_mut(out_key_groups, n), slice::from_raw_parts_mut(out_channels, n)) }
        };
        let rb = record_batch(&values)?;
        // Checked non-negative and in range above.
        let keys: Vec<usize> = keys.iter().map(|k| *k as usize).collect();
        sluice_keyed::key_groups(&rb, &keys, max_parallelism, parallelism, groups, channels)?;
        Ok(())
    })
}
