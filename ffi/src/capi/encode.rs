//! `sluice_utf16_to_utf8`: Java `String`s (UTF-16 code units, as a JVM or
//! any UTF-16 host holds them) to an Arrow `Utf8` array, encoded exactly as
//! Flink's `BinaryStringData.fromString` (an unpaired surrogate becomes `?`).

use std::slice;

use arrow_array::ffi::{FFI_ArrowArray, FFI_ArrowSchema};
use arrow_array::Array;
use arrow_buffer::{BooleanBuffer, Buffer, NullBuffer};
use arrow_schema::DataType;

use sluice_engine::flink_type::{output_field, STRING};

use crate::capi::args::read_offsets_unordered;
use crate::capi::arrow_c::OutSlot;
use crate::capi::error::FfiError;

/// Encodes `n_rows` UTF-16 strings to one `Utf8` array.
///
/// `offsets`: `n_rows + 1` non-decreasing entries ≥ 0, in code units into
/// `units` (which may be NULL when `offsets[n_rows] == 0`); `validity`: an
/// Arrow validity bitmap of `n_rows` bits starting at bit 0, or NULL for
/// all valid. Output: `Utf8`, `flink.type` `VARCHAR(2147483647)`.
///
/// # Safety
/// `units` holds `offsets[n_rows]` units, `offsets` `n_rows + 1` entries,
/// `validity` (if not NULL) `ceil(n_rows / 8)` bytes; `out`/`out_schema`
/// are writable.
#[no_mangle]
pub unsafe extern "C" fn sluice_utf16_to_utf8(
    units: *const u16,
    offsets: *const i64,
    validity: *const u8,
    n_rows: i64,
    out: *mut FFI_ArrowArray,
    out_schema: *mut FFI_ArrowSchema,
) -> i32 {
    ffi_boundary!("sluice_utf16_to_utf8", {
        let slot = OutSlot::new(out, out_schema)?;
        // The kernel checks the order (and `offsets[n_rows] <= units`)
        // before it reads a unit.
        // SAFETY: the caller's contract (this function's `# Safety`).
        let offs = unsafe { read_offsets_unordered(offsets, n_rows) }?;
        let n = offs.len() - 1;
        let total = usize::try_from(offs[n]).map_err(|_| FfiError::invalid("offsets[n_rows] does not fit usize"))?;
        let units: &[u16] = if total == 0 {
            &[]
        } else {
            check_not_null!(units, "units");
            if !units.is_aligned() {
                return Err(FfiError::invalid("units is not aligned to 2 bytes"));
            }
            // SAFETY: non-NULL, aligned, `offsets[n_rows]` units per the contract.
            unsafe { slice::from_raw_parts(units, total) }
        };
        let nulls = if validity.is_null() {
            None
        } else {
            // SAFETY: `ceil(n / 8)` readable bytes per the contract.
            let bits = unsafe { slice::from_raw_parts(validity, n.div_ceil(8)) };
            Some(NullBuffer::new(BooleanBuffer::new(Buffer::from_slice_ref(bits), 0, n)))
        };
        let result = sluice_kernels::encode::utf16_to_utf8(units, offs, nulls.as_ref())?;
        let nullable = nulls.is_some() || result.null_count() > 0;
        let field = output_field("utf8", DataType::Utf8, STRING, nullable);
        // SAFETY: the caller's contract (this function's `# Safety`).
        unsafe { slot.write(&result, &field, &[]) }
    })
}
