//! `sluice_keyed_*`: an opaque handle over one keyed operator
//! ([`KeyedOperator`]): create from a spec, push changelog batches, advance
//! the watermark, snapshot by Flink key group, restore, free.
//!
//! A handle is used by one thread at a time (it may move between threads);
//! calls on distinct handles are independent.

use std::ffi::c_char;
use std::ptr;

use arrow_array::ffi::{FFI_ArrowArray, FFI_ArrowSchema};
use arrow_array::RecordBatch;

use ::sluice_keyed::RowKind;
use sluice_engine::keyed::KeyedOperator;

use crate::capi::arrow_c::OutSlot;
use crate::capi::buffer::sluice_buffer;
use crate::capi::error::FfiResult;
use crate::capi::handle::{self, live, push_batch, struct_schema, write_output, PushArgs};

/// A keyed operator (GROUP BY aggregate, changelog normalize or
/// deduplication) with its state. Opaque: create with
/// [`sluice_keyed_create`], release with [`sluice_keyed_free`].
pub struct sluice_keyed {
    op: KeyedOperator,
}

/// # Safety
/// `h` is NULL or a handle from `sluice_keyed_create` not yet freed, used
/// by no other thread during the call.
unsafe fn op<'a>(h: *mut sluice_keyed) -> FfiResult<&'a mut KeyedOperator> {
    // SAFETY: forwarded contract.
    Ok(unsafe { &mut live(h, "sluice_keyed")?.op })
}

/// Creates a keyed operator from `spec` over batches of `schema`.
///
/// `spec` (NUL-terminated UTF-8) names the operator and its options, e.g.
/// `"group_agg keys=0,2 aggs=count(*),sum(3),max(1) budget=1048576"`,
/// `"normalize keys=0"`, `"dedup keys=0 keep=last order=rowtime(3)"`; the
/// grammar is in ffi/README.md (Keyed operators). `schema` (borrowed) is a
/// struct schema: the row's fields, as for `sluice_rows_to_arrow`; columns
/// in the spec are field indices or names. On success `*out` receives the
/// handle; on error it is not written.
///
/// # Safety
/// As in the header.
#[no_mangle]
pub unsafe extern "C" fn sluice_keyed_create(
    spec: *const c_char,
    schema: *const FFI_ArrowSchema,
    out: *mut *mut sluice_keyed,
) -> i32 {
    // SAFETY: the caller's contract, checked as far as possible inside.
    ffi_boundary!("sluice_keyed_create", unsafe {
        handle::create(spec, out, |spec| {
            Ok(sluice_keyed { op: KeyedOperator::new(struct_schema(schema, "schema")?, spec)? })
        })
    })
}

/// Frees a handle and its state. NULL is a no-op.
///
/// # Safety
/// `h` is NULL or a handle from `sluice_keyed_create` not yet freed; it is
/// invalid afterwards.
#[no_mangle]
pub unsafe extern "C" fn sluice_keyed_free(h: *mut sluice_keyed) {
    // SAFETY: forwarded contract.
    unsafe { handle::free(h) }
}

/// Pushes one changelog batch through the operator.
///
/// `batch` (moved in) is a struct array whose field types match the
/// operator's input schema; `schema` (borrowed) describes it. `row_kinds`
/// is NULL (every row `+I`) or one Flink RowKind byte per row (`+I` 0, `-U`
/// 1, `+U` 2, `-D` 3). On success `out` / `out_schema` receive the emitted
/// rows (a struct array, every field with `flink.type`) and `out_row_kinds`
/// one RowKind byte per emitted row (free with `sluice_buffer_free`). On
/// error nothing is written. After `SLUICE_ERR_STATE_BUDGET` (or another
/// error in the middle of a batch) the rows before the failing one stay
/// applied and their output is lost: restore the handle from a snapshot.
///
/// # Safety
/// As in the header.
#[no_mangle]
pub unsafe extern "C" fn sluice_keyed_push(
    h: *mut sluice_keyed,
    batch: *mut FFI_ArrowArray,
    schema: *const FFI_ArrowSchema,
    row_kinds: *const i8,
    out: *mut FFI_ArrowArray,
    out_schema: *mut FFI_ArrowSchema,
    out_row_kinds: *mut sluice_buffer,
) -> i32 {
    // SAFETY: the caller's contract, checked as far as possible inside.
    ffi_boundary!("sluice_keyed_push", unsafe {
        let args = PushArgs { batch, schema, row_kinds, out, out_schema, out_row_kinds };
        push_batch(args, || op(h), KeyedOperator::push_struct, KeyedOperator::output_field)
    })
}

/// The field [`sluice_keyed_push_appended`] exports its result under. The
/// push fails for an operator without appended columns, so the fallback (the
/// whole output) is never exported.
fn appended_field(o: &KeyedOperator) -> &arrow_schema::Field {
    o.appended_field().unwrap_or(o.output_field())
}

/// Pushes one batch through an operator whose output is each input row at
/// once followed by its aggregate values (a proctime `over` with
/// `preceding=unbounded`: Flink's `ProcTimeUnboundedPrecedingFunction`) and
/// returns only the aggregate values: row `i` of `out` belongs to input row
/// `i`, every `out_row_kinds` byte is `+I`. A caller that keeps its input
/// rows joins them itself instead of receiving them back. Arguments and
/// ownership as [`sluice_keyed_push`]; the operator reads only the
/// partition and aggregate argument columns of `batch`, and its state is
/// the same as after `sluice_keyed_push` (snapshots interchange).
/// `SLUICE_ERR_INVALID_ARGUMENT` for any other operator.
///
/// # Safety
/// As in the header.
#[no_mangle]
pub unsafe extern "C" fn sluice_keyed_push_appended(
    h: *mut sluice_keyed,
    batch: *mut FFI_ArrowArray,
    schema: *const FFI_ArrowSchema,
    row_kinds: *const i8,
    out: *mut FFI_ArrowArray,
    out_schema: *mut FFI_ArrowSchema,
    out_row_kinds: *mut sluice_buffer,
) -> i32 {
    // SAFETY: the caller's contract, checked as far as possible inside.
    ffi_boundary!("sluice_keyed_push_appended", unsafe {
        let args = PushArgs { batch, schema, row_kinds, out, out_schema, out_row_kinds };
        push_batch(args, || op(h), KeyedOperator::push_appended_struct, appended_field)
    })
}

/// Advances the operator's event-time watermark (epoch milliseconds) and
/// returns what it emits, like [`sluice_keyed_push`]'s outputs. For the
/// three operators of this version the output is always empty: with state
/// TTL off, none of them registers event-time timers (each emits while
/// processing its rows). A watermark older than the current one is ignored.
///
/// # Safety
/// As in the header.
#[no_mangle]
pub unsafe extern "C" fn sluice_keyed_advance_watermark(
    h: *mut sluice_keyed,
    watermark: i64,
    out: *mut FFI_ArrowArray,
    out_schema: *mut FFI_ArrowSchema,
    out_row_kinds: *mut sluice_buffer,
) -> i32 {
    // SAFETY: the caller's contract, checked as far as possible inside.
    ffi_boundary!("sluice_keyed_advance_watermark", unsafe {
        advance_clock(h, out, out_schema, out_row_kinds, |op| op.advance_watermark(watermark))
    })
}

/// Advances the operator's processing-time clock (epoch milliseconds) and
/// returns what it emits, like [`sluice_keyed_push`]'s outputs. Only a
/// proctime `over` with `frame=range preceding=N` fires on processing time
/// (Flink's `ProcTimeRangeBoundedPrecedingFunction`): `sluice_keyed_push`
/// buffers its rows stamped with the last time given here (and fails
/// before any), and a call with a later time emits the rows of every
/// earlier stamp, each with its frame's values. Every other operator
/// ignores processing time and emits nothing.
///
/// # Safety
/// As in the header.
#[no_mangle]
pub unsafe extern "C" fn sluice_keyed_advance_processing_time(
    h: *mut sluice_keyed,
    now: i64,
    out: *mut FFI_ArrowArray,
    out_schema: *mut FFI_ArrowSchema,
    out_row_kinds: *mut sluice_buffer,
) -> i32 {
    // SAFETY: the caller's contract, checked as far as possible inside.
    ffi_boundary!("sluice_keyed_advance_processing_time", unsafe {
        advance_clock(h, out, out_schema, out_row_kinds, |op| op.advance_processing_time(now))
    })
}

/// Moves one of the operator's clocks (`advance`) and writes what it emits
/// into the caller's outputs, as [`sluice_keyed_push`] does.
///
/// # Safety
/// `h` as for [`op`]; `out`, `out_schema`, `out_row_kinds` as in the header.
unsafe fn advance_clock(
    h: *mut sluice_keyed,
    out: *mut FFI_ArrowArray,
    out_schema: *mut FFI_ArrowSchema,
    out_row_kinds: *mut sluice_buffer,
    advance: impl FnOnce(&mut KeyedOperator) -> sluice_engine::Result<(RecordBatch, Vec<RowKind>)>,
) -> FfiResult<()> {
    // SAFETY: forwarded contract.
    let op = unsafe { op(h)? };
    let slot = OutSlot::new(out, out_schema)?;
    check_not_null!(out_row_kinds, "out_row_kinds");
    let (b, k) = advance(op)?;
    // SAFETY: forwarded contract.
    unsafe { write_output(op.output_field(), b, &k, slot, out_row_kinds, &[]) }
}

/// Serialises the state of key groups `first_key_group..=last_key_group`
/// (Flink key groups of the `BinaryRowData` key, `0 <= first <= last <
/// max_parallelism`) into `out` (free with `sluice_buffer_free`).
///
/// # Safety
/// As in the header.
#[no_mangle]
pub unsafe extern "C" fn sluice_keyed_snapshot(
    h: *mut sluice_keyed,
    first_key_group: i32,
    last_key_group: i32,
    out: *mut sluice_buffer,
) -> i32 {
    // SAFETY: the caller's contract, checked as far as possible inside.
    ffi_boundary!("sluice_keyed_snapshot", unsafe { handle::snapshot(op(h)?, first_key_group, last_key_group, out) })
}

/// Serialises the state of key groups `first_key_group..=last_key_group`
/// as one blob per key group, in one pass over the state (Flink's raw
/// keyed state writes one stream per key group). Blob `i` (key group
/// `first_key_group + i`) is `out_data[offsets[i] .. offsets[i + 1]]`;
/// `out_offsets` receives `last - first + 2` `int64_t` offsets. A key
/// group without state has an empty blob. Each non-empty blob restores on
/// its own with [`sluice_keyed_restore`].
///
/// # Safety
/// As in the header.
#[no_mangle]
pub unsafe extern "C" fn sluice_keyed_snapshot_key_groups(
    h: *mut sluice_keyed,
    first_key_group: i32,
    last_key_group: i32,
    out_data: *mut sluice_buffer,
    out_offsets: *mut sluice_buffer,
) -> i32 {
    // SAFETY: the caller's contract, checked as far as possible inside.
    ffi_boundary!("sluice_keyed_snapshot_key_groups", unsafe {
        handle::snapshot_key_groups(op(h)?, first_key_group, last_key_group, out_data, out_offsets)
    })
}

/// Adds the state in `bytes` (a blob of [`sluice_keyed_snapshot`] or one of
/// [`sluice_keyed_snapshot_key_groups`], of this or another handle with the
/// same spec and schema) whose key group is in
/// `first_key_group..=last_key_group`. Call once per blob; `len == 0` is a
/// no-op (an empty key group). A blob is restored all or nothing:
/// `SLUICE_ERR_CORRUPT_SNAPSHOT` (truncated, corrupt, another operator
/// kind, spec, schema or max parallelism) and `SLUICE_ERR_STATE_BUDGET`
/// leave the state unchanged.
///
/// # Safety
/// As in the header.
#[no_mangle]
pub unsafe extern "C" fn sluice_keyed_restore(
    h: *mut sluice_keyed,
    bytes: *const u8,
    len: i64,
    first_key_group: i32,
    last_key_group: i32,
) -> i32 {
    // SAFETY: the caller's contract, checked as far as possible inside.
    ffi_boundary!("sluice_keyed_restore", unsafe {
        handle::restore(op(h)?, bytes, len, first_key_group, last_key_group)
    })
}

/// Writes the operator's retained state bytes (the quantity its `budget=`
/// bounds) to `*out_bytes` and its number of keys to `*out_keys` (either
/// may be NULL).
///
/// # Safety
/// As in the header.
#[no_mangle]
pub unsafe extern "C" fn sluice_keyed_state_size(h: *mut sluice_keyed, out_bytes: *mut i64, out_keys: *mut i64) -> i32 {
    // SAFETY: the caller's contract, checked as far as possible inside.
    ffi_boundary!("sluice_keyed_state_size", unsafe {
        let op = op(h)?;
        if !out_bytes.is_null() {
            ptr::write_unaligned(out_bytes, op.size() as i64);
        }
        if !out_keys.is_null() {
            ptr::write_unaligned(out_keys, op.num_keys() as i64);
        }
        Ok(())
    })
}
