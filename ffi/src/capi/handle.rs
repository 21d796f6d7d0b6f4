//! What every opaque operator handle of the C ABI shares: checking and
//! freeing the handle pointer, importing a pushed changelog batch,
//! exporting the emitted one, and the snapshot / restore bodies.
//!
//! `sluice_keyed_*` ([`KeyedOperator`](sluice_engine::keyed::KeyedOperator))
//! and `sluice_join_*` ([`JoinOperator`](sluice_engine::keyed::JoinOperator))
//! differ only in what they build from their spec and how they are pushed;
//! their other entry points are one body each here (state ones generic over
//! [`KeyedState`]), so a C caller sees the same checks and errors on every
//! handle type.

use std::ffi::{c_char, CStr};
use std::ptr;
use std::slice;
use std::sync::Arc;

use arrow_array::ffi::{FFI_ArrowArray, FFI_ArrowSchema};
use arrow_array::{Array, ArrayRef, RecordBatch, StructArray};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use sluice_engine::keyed::KeyedState;
use sluice_keyed::RowKind;

use crate::capi::arrow_c::{import, read_field, take_array, OutSlot};
use crate::capi::buffer::sluice_buffer;
use crate::capi::error::{FfiError, FfiResult};
use crate::capi::rows::require_struct;

/// The live value behind an opaque handle pointer `h`.
///
/// `what` names the C type in the error (e.g. `"sluice_keyed"`).
///
/// # Safety
/// `h` is NULL or a handle of type `T` from its `*_create` not yet freed,
/// used by no other thread during the call.
pub(crate) unsafe fn live<'a, T>(h: *mut T, what: &str) -> FfiResult<&'a mut T> {
    check_not_null!(h, "handle");
    if !h.is_aligned() {
        return Err(FfiError::invalid(format!("handle is not aligned (not a {what})")));
    }
    // SAFETY: non-NULL, aligned, a live handle per the contract.
    Ok(unsafe { &mut *h })
}

/// Frees a handle made by `Box::into_raw`. NULL (and a misaligned pointer,
/// which cannot be a handle) is a no-op. A panic in a destructor would be a
/// bug; it is caught and the memory leaked, so it cannot unwind into C.
///
/// # Safety
/// `h` is NULL or a live handle from `Box::into_raw`; it is invalid
/// afterwards.
pub(crate) unsafe fn free<T>(h: *mut T) {
    if h.is_null() || !h.is_aligned() {
        return;
    }
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        // SAFETY: a live handle from `Box::into_raw` per the contract.
        drop(unsafe { Box::from_raw(h) });
    }));
}

/// Hands a new handle to the caller: `*out = Box::into_raw(value)`.
///
/// # Safety
/// `out` is non-NULL and writable.
pub(crate) unsafe fn give<T>(out: *mut *mut T, value: T) {
    // SAFETY: non-NULL and writable per the contract.
    unsafe { ptr::write_unaligned(out, Box::into_raw(Box::new(value))) };
}

/// The body of every `*_create`: reads `spec` (NUL-terminated UTF-8),
/// builds the handle's value from it with `make` and hands it to `*out`
/// (written only on success).
///
/// # Safety
/// `spec` is NULL or NUL-terminated; `out` is NULL or writable.
pub(crate) unsafe fn create<T>(
    spec: *const c_char,
    out: *mut *mut T,
    make: impl FnOnce(&str) -> FfiResult<T>,
) -> FfiResult<()> {
    check_not_null!(spec, "spec");
    check_not_null!(out, "out");
    // SAFETY: non-NULL and NUL-terminated per the contract.
    let spec =
        unsafe { CStr::from_ptr(spec) }.to_str().map_err(|e| FfiError::invalid(format!("spec is not UTF-8: {e}")))?;
    let value = make(spec)?;
    // SAFETY: non-NULL and writable per the contract.
    unsafe { give(out, value) };
    Ok(())
}

/// The schema of a struct field given over the C Data Interface (an
/// operator's input schema).
///
/// # Safety
/// `schema` is NULL or a valid C Data Interface schema.
pub(crate) unsafe fn struct_schema(schema: *const FFI_ArrowSchema, what: &str) -> FfiResult<SchemaRef> {
    // SAFETY: forwarded contract.
    let field = unsafe { read_field(schema, what)? };
    require_struct(&field, what)?;
    let DataType::Struct(fields) = field.data_type() else {
        return Err(FfiError::unsupported_type(format!("{what} must be a struct schema")));
    };
    Ok(Arc::new(Schema::new(fields.clone())))
}

/// The C arguments of one `*_push` call: the moved-in batch, its schema and
/// row kinds, and the three output slots.
pub(crate) struct PushArgs {
    pub batch: *mut FFI_ArrowArray,
    pub schema: *const FFI_ArrowSchema,
    pub row_kinds: *const i8,
    pub out: *mut FFI_ArrowArray,
    pub out_schema: *mut FFI_ArrowSchema,
    pub out_row_kinds: *mut sluice_buffer,
}

/// The body of every `*_push` entry point: takes the batch first (so it is
/// released on every path, a bad handle included), resolves the handle,
/// imports the batch as a struct array with its RowKind bytes (NULL: all
/// `+I`), runs `push` and exports what it emits as rows of the operator's
/// `output_field`. Nothing is written on error.
///
/// # Safety
/// The pointers of `args` follow the header's contract for `*_push`.
pub(crate) unsafe fn push_batch<'a, O: 'a>(
    args: PushArgs,
    resolve: impl FnOnce() -> FfiResult<&'a mut O>,
    push: impl FnOnce(&mut O, &StructArray, Option<&[u8]>) -> sluice_engine::Result<(RecordBatch, Vec<RowKind>)>,
    output_field: impl FnOnce(&O) -> &Field,
) -> FfiResult<()> {
    // SAFETY: forwarded contract.
    let array = unsafe { take_array(args.batch, "batch")? };
    let op = resolve()?;
    // SAFETY: forwarded contract.
    let field = unsafe { read_field(args.schema, "schema")? };
    require_struct(&field, "schema")?;
    let slot = OutSlot::new(args.out, args.out_schema)?;
    check_not_null!(args.out_row_kinds, "out_row_kinds");
    // SAFETY: `array` was taken from the caller's C Data Interface struct.
    let values: ArrayRef = unsafe { import(array, field.data_type(), "batch")? };
    let Some(s) = values.as_any().downcast_ref::<StructArray>() else {
        return Err(FfiError::unsupported_type("batch must be a struct array"));
    };
    let kinds: Option<&[u8]> = if args.row_kinds.is_null() || s.is_empty() {
        None
    } else {
        // SAFETY: non-NULL, one byte per row per the contract.
        Some(unsafe { slice::from_raw_parts(args.row_kinds.cast::<u8>(), s.len()) })
    };
    let (out_batch, out_kinds) = push(op, s, kinds)?;
    // SAFETY: the slots were checked above.
    unsafe { write_output(output_field(op), out_batch, &out_kinds, slot, args.out_row_kinds, &[values.as_ref()]) }
}

/// Exports `batch` (rows of the operator's output) and its row kinds.
///
/// # Safety
/// `slot`'s pointers are writable; `out_row_kinds` is non-NULL and writable.
pub(crate) unsafe fn write_output(
    output_field: &Field,
    batch: RecordBatch,
    kinds: &[RowKind],
    slot: OutSlot,
    out_row_kinds: *mut sluice_buffer,
    inputs: &[&dyn Array],
) -> FfiResult<()> {
    let bytes: Vec<u8> = kinds.iter().map(|k| k.to_byte()).collect();
    let array = StructArray::from(batch);
    let kinds_buf = sluice_buffer::from_bytes(&bytes)?;
    // SAFETY: forwarded contract.
    if let Err(e) = unsafe { slot.write(&array, output_field, inputs) } {
        let mut k = kinds_buf;
        // SAFETY: a buffer we just filled.
        unsafe { crate::capi::buffer::sluice_buffer_free(&mut k) };
        return Err(e);
    }
    // SAFETY: non-NULL and writable per the contract.
    unsafe { ptr::write_unaligned(out_row_kinds, kinds_buf) };
    Ok(())
}

/// The body of `*_snapshot`: the state of key groups `first..=last` as one
/// buffer in `out`.
///
/// # Safety
/// `out` is NULL or writable.
pub(crate) unsafe fn snapshot(op: &impl KeyedState, first: i32, last: i32, out: *mut sluice_buffer) -> FfiResult<()> {
    check_not_null!(out, "out");
    let range = op.key_group_range(first, last)?;
    let bytes = op.snapshot(range)?;
    // SAFETY: non-NULL and writable per the contract.
    unsafe { ptr::write_unaligned(out, sluice_buffer::from_bytes(&bytes)?) };
    Ok(())
}

/// The body of `*_snapshot_key_groups`: one blob per key group of
/// `first..=last`, as one data buffer and `last - first + 2` offsets.
///
/// # Safety
/// `out_data` and `out_offsets` are NULL or writable.
pub(crate) unsafe fn snapshot_key_groups(
    op: &impl KeyedState,
    first: i32,
    last: i32,
    out_data: *mut sluice_buffer,
    out_offsets: *mut sluice_buffer,
) -> FfiResult<()> {
    check_not_null!(out_data, "out_data");
    check_not_null!(out_offsets, "out_offsets");
    let range = op.key_group_range(first, last)?;
    // SAFETY: both checked non-NULL; writable per the contract.
    unsafe { write_blobs(&op.snapshot_key_groups(range)?, out_data, out_offsets) }
}

/// The body of `*_restore`: adds the state of blob `bytes[..len]` whose key
/// group is in `first..=last`; `len == 0` (an empty key group) is a no-op.
///
/// # Safety
/// `bytes` is NULL or valid for reads of `len` bytes.
pub(crate) unsafe fn restore(
    op: &mut impl KeyedState,
    bytes: *const u8,
    len: i64,
    first: i32,
    last: i32,
) -> FfiResult<()> {
    let range = op.key_group_range(first, last)?;
    // SAFETY: forwarded contract.
    match unsafe { blob_arg(bytes, len)? } {
        Some(blob) => Ok(op.restore(&[blob], range)?),
        None => Ok(()),
    }
}

/// The snapshot blob `bytes[..len]` of a restore call; `None` for `len == 0`
/// (an empty key group).
///
/// # Safety
/// `bytes` is NULL or valid for reads of `len` bytes.
unsafe fn blob_arg<'a>(bytes: *const u8, len: i64) -> FfiResult<Option<&'a [u8]>> {
    let n = usize::try_from(len).map_err(|_| FfiError::invalid(format!("len is negative ({len})")))?;
    if n == 0 {
        return Ok(None);
    }
    check_not_null!(bytes, "bytes");
    // SAFETY: non-NULL and valid for `n` bytes per the contract.
    Ok(Some(unsafe { slice::from_raw_parts(bytes, n) }))
}

/// Writes per-key-group `blobs` as one data buffer and `blobs.len() + 1`
/// `int64_t` offsets.
///
/// # Safety
/// `out_data` and `out_offsets` are non-NULL and writable.
unsafe fn write_blobs(
    blobs: &[Vec<u8>],
    out_data: *mut sluice_buffer,
    out_offsets: *mut sluice_buffer,
) -> FfiResult<()> {
    let mut data = Vec::with_capacity(blobs.iter().map(Vec::len).sum());
    let mut offsets = Vec::with_capacity(blobs.len() + 1);
    offsets.push(0i64);
    for b in blobs {
        data.extend_from_slice(b);
        offsets.push(data.len() as i64);
    }
    let data = sluice_buffer::from_bytes(&data)?;
    let offsets = match sluice_buffer::from_i64s(&offsets) {
        Ok(o) => o,
        Err(e) => {
            let mut data = data;
            // SAFETY: a buffer we just filled.
            unsafe { crate::capi::buffer::sluice_buffer_free(&mut data) };
            return Err(e);
        }
    };
    // SAFETY: non-NULL and writable per the contract.
    unsafe {
        ptr::write_unaligned(out_data, data);
        ptr::write_unaligned(out_offsets, offsets);
    }
    Ok(())
}
