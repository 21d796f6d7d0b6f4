//! `sluice_join_*`: an opaque handle over the two-input updating join
//! ([`JoinOperator`], Flink's `StreamingJoinOperator`): create from a spec
//! and the two input schemas, push changelog batches of either side,
//! snapshot by Flink key group, restore, free. The calls mirror
//! `sluice_keyed_*` (status code + `sluice_last_error`, no panic crosses).
//!
//! A handle is used by one thread at a time (it may move between threads).

use std::ffi::c_char;
use std::ptr;

use arrow_array::ffi::{FFI_ArrowArray, FFI_ArrowSchema};

use sluice_engine::keyed::JoinOperator;

use crate::capi::buffer::sluice_buffer;
use crate::capi::error::{FfiError, FfiResult};
use crate::capi::handle::{self, live, push_batch, struct_schema, PushArgs};

/// The left input of a join (`side` of [`sluice_join_push`]).
pub const SLUICE_JOIN_LEFT: i32 = 0;
/// The right input of a join.
pub const SLUICE_JOIN_RIGHT: i32 = 1;

/// An updating join with the state of both inputs. Opaque: create with
/// [`sluice_join_create`], release with [`sluice_join_free`].
pub struct sluice_join {
    op: JoinOperator,
}

/// # Safety
/// `h` is NULL or a handle from `sluice_join_create` not yet freed, used by
/// no other thread during the call.
unsafe fn op<'a>(h: *mut sluice_join) -> FfiResult<&'a mut JoinOperator> {
    // SAFETY: forwarded contract.
    Ok(unsafe { &mut live(h, "sluice_join")?.op })
}

/// Creates a join from `spec` over batches of `left_schema` and
/// `right_schema` (borrowed struct schemas, as for `sluice_keyed_create`).
///
/// `spec` (NUL-terminated UTF-8), e.g. `"join type=left left_keys=1
/// right_keys=0 right_unique=0"`; the grammar is in ffi/README.md (Joins).
/// On success `*out` receives the handle; on error it is not written.
///
/// # Safety
/// As in the header.
#[no_mangle]
pub unsafe extern "C" fn sluice_join_create(
    spec: *const c_char,
    left_schema: *const FFI_ArrowSchema,
    right_schema: *const FFI_ArrowSchema,
    out: *mut *mut sluice_join,
) -> i32 {
    // SAFETY: the caller's contract, checked as far as possible inside.
    ffi_boundary!("sluice_join_create", unsafe {
        handle::create(spec, out, |spec| {
            let left = struct_schema(left_schema, "left_schema")?;
            let right = struct_schema(right_schema, "right_schema")?;
            Ok(sluice_join { op: JoinOperator::new(left, right, spec)? })
        })
    })
}

/// Frees a handle and its state. NULL is a no-op.
///
/// # Safety
/// `h` is NULL or a handle from `sluice_join_create` not yet freed; it is
/// invalid afterwards.
#[no_mangle]
pub unsafe extern "C" fn sluice_join_free(h: *mut sluice_join) {
    // SAFETY: forwarded contract.
    unsafe { handle::free(h) }
}

/// Pushes one changelog batch of input `side` ([`SLUICE_JOIN_LEFT`] or
/// [`SLUICE_JOIN_RIGHT`]) through the join.
///
/// Arguments and outputs as `sluice_keyed_push`: `batch` (moved in) is a
/// struct array of the side's schema, `row_kinds` NULL (all `+I`) or one
/// Flink RowKind byte per row; `out` / `out_schema` receive the joined rows
/// (left fields then right fields) and `out_row_kinds` their RowKind bytes.
/// On error nothing is written; after an error in the middle of a batch the
/// rows before the failing one stay applied.
///
/// # Safety
/// As in the header.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn sluice_join_push(
    h: *mut sluice_join,
    side: i32,
    batch: *mut FFI_ArrowArray,
    schema: *const FFI_ArrowSchema,
    row_kinds: *const i8,
    out: *mut FFI_ArrowArray,
    out_schema: *mut FFI_ArrowSchema,
    out_row_kinds: *mut sluice_buffer,
) -> i32 {
    // SAFETY: the caller's contract, checked as far as possible inside.
    ffi_boundary!("sluice_join_push", unsafe {
        let side_op = || {
            let op = op(h)?;
            match side {
                SLUICE_JOIN_LEFT | SLUICE_JOIN_RIGHT => Ok(op),
                s => Err(FfiError::invalid(format!("side is {s}, expected 0 (left) or 1 (right)"))),
            }
        };
        let left = side == SLUICE_JOIN_LEFT;
        let args = PushArgs { batch, schema, row_kinds, out, out_schema, out_row_kinds };
        push_batch(args, side_op, |op, s, kinds| op.push_struct(left, s, kinds), JoinOperator::output_field)
    })
}

/// Serialises both inputs' state of key groups
/// `first_key_group..=last_key_group` (of the join key) into `out`.
///
/// # Safety
/// As in the header.
#[no_mangle]
pub unsafe extern "C" fn sluice_join_snapshot(
    h: *mut sluice_join,
    first_key_group: i32,
    last_key_group: i32,
    out: *mut sluice_buffer,
) -> i32 {
    // SAFETY: the caller's contract, checked as far as possible inside.
    ffi_boundary!("sluice_join_snapshot", unsafe { handle::snapshot(op(h)?, first_key_group, last_key_group, out) })
}

/// One blob per key group, laid out as `sluice_keyed_snapshot_key_groups`.
///
/// # Safety
/// As in the header.
#[no_mangle]
pub unsafe extern "C" fn sluice_join_snapshot_key_groups(
    h: *mut sluice_join,
    first_key_group: i32,
    last_key_group: i32,
    out_data: *mut sluice_buffer,
    out_offsets: *mut sluice_buffer,
) -> i32 {
    // SAFETY: the caller's contract, checked as far as possible inside.
    ffi_boundary!("sluice_join_snapshot_key_groups", unsafe {
        handle::snapshot_key_groups(op(h)?, first_key_group, last_key_group, out_data, out_offsets)
    })
}

/// Adds the state in `bytes` (a blob of [`sluice_join_snapshot`] or
/// [`sluice_join_snapshot_key_groups`] of a join with the same spec and
/// schemas) whose key group is in the range; `len == 0` is a no-op. All or
/// nothing: `SLUICE_ERR_CORRUPT_SNAPSHOT` and `SLUICE_ERR_STATE_BUDGET` leave
/// the state unchanged.
///
/// # Safety
/// As in the header.
#[no_mangle]
pub unsafe extern "C" fn sluice_join_restore(
    h: *mut sluice_join,
    bytes: *const u8,
    len: i64,
    first_key_group: i32,
    last_key_group: i32,
) -> i32 {
    // SAFETY: the caller's contract, checked as far as possible inside.
    ffi_boundary!("sluice_join_restore", unsafe {
        handle::restore(op(h)?, bytes, len, first_key_group, last_key_group)
    })
}

/// Writes the join's retained state bytes to `*out_bytes` and its join
/// keys in the left and right state to `*out_left_keys` / `*out_right_keys`
/// (each may be NULL).
///
/// # Safety
/// As in the header.
#[no_mangle]
pub unsafe extern "C" fn sluice_join_state_size(
    h: *mut sluice_join,
    out_bytes: *mut i64,
    out_left_keys: *mut i64,
    out_right_keys: *mut i64,
) -> i32 {
    // SAFETY: the caller's contract, checked as far as possible inside.
    ffi_boundary!("sluice_join_state_size", unsafe {
        let op = op(h)?;
        let (l, r) = op.num_keys();
        for (p, v) in [(out_bytes, op.size()), (out_left_keys, l), (out_right_keys, r)] {
            if !p.is_null() {
                ptr::write_unaligned(p, v as i64);
            }
        }
        Ok(())
    })
}
