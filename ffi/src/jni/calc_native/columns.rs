//! `io.sluice.jni.CalcNative` column handover: a `ColumnBatch`'s arrays in,
//! rows out ([`sluice_engine::calc::input::columns`]).
//!
//! Java passes, per input field the program reads, its values array, its
//! offsets (`int[]`, string kinds; else null) and its NULL flags
//! (`byte[]`), plus one RowKind byte per row. Every array is checked
//! (non-null, the element type its field needs, long enough) and then all
//! are pinned with `GetPrimitiveArrayCritical`; the program borrows them as
//! Arrow buffers without copying, and no JNI call happens until every pin is
//! released (the [`Pinned`] guard).

use std::ptr;

use jni::objects::{JByteArray, JIntArray, JObjectArray};
use jni::sys::{jarray, jint, jintArray, jobject};
use jni::JNIEnv;
use sluice_engine::calc::input::columns::{ColumnKind, ColumnSlices};

use super::CalcHandle;
use crate::capi::error::{FfiError, FfiResult};
use crate::jni::arrays;
use crate::jni::pin::Pinned;
use crate::jni::rows::row_block;

jni_entry! {
    /// `static native int[] columnKinds(long handle)`: per input field, the
    /// `ColumnBatch` kind code, -1 (not read) or -2 (use the row path).
    fn Java_io_sluice_jni_CalcNative_columnKinds(env, h: &mut CalcHandle) -> jintArray
    = ("CalcNative.columnKinds", ptr::null_mut()) {
        arrays::int_array(&mut env, &h.program.column_kinds())
    }
}

/// One column's checked arrays (raw local references and their byte sizes).
struct Checked {
    field: usize,
    kind: ColumnKind,
    values: (jarray, usize),
    offsets: Option<(jarray, usize)>,
    nulls: (jarray, usize),
}

/// Element `j` of `arr`, checked to be a `sig` array (e.g. `[I`) of
/// `elem`-byte elements, with its size in bytes.
fn element(
    env: &mut JNIEnv<'_>,
    arr: &JObjectArray<'_>,
    j: usize,
    sig: &str,
    elem: usize,
    what: &str,
) -> FfiResult<(jarray, usize)> {
    let e = arrays::required(env, arr, j, (sig, what))?;
    Ok((e.array.into_raw(), e.len * elem))
}

jni_entry! {
    /// `static native RowBlock processColumns(long handle, int[] fields,
    /// Object[] values, Object[] offsets, Object[] nulls, byte[] rowKinds, int
    /// numRows)`.
    fn Java_io_sluice_jni_CalcNative_processColumns(
        env,
        h: &mut CalcHandle,
        fields: JIntArray<'l>,
        values: JObjectArray<'l>,
        offsets: JObjectArray<'l>,
        nulls: JObjectArray<'l>,
        row_kinds: JByteArray<'l>,
        num_rows: jint,
    ) -> jobject = ("CalcNative.processColumns", ptr::null_mut()) {
        let n =
            usize::try_from(num_rows).map_err(|_| FfiError::invalid(format!("numRows is negative ({num_rows})")))?;
        for (arr, name) in [(&values, "values"), (&offsets, "offsets"), (&nulls, "nulls")] {
            if arr.is_null() {
                return Err(FfiError::null(name));
            }
        }
        if fields.is_null() || row_kinds.is_null() {
            return Err(FfiError::null("fields / rowKinds"));
        }
        let m = env.get_array_length(&fields)? as usize;
        let mut field_ids = vec![0i32; m];
        env.get_int_array_region(&fields, 0, &mut field_ids)?;
        let kinds = h.program.column_kinds();
        let kinds_len = env.get_array_length(&row_kinds)? as usize;
        let frame = i32::try_from(3 * m + 8).map_err(|_| FfiError::invalid("too many columns"))?;
        let CalcHandle { program, rows, .. } = h;
        env.with_local_frame(frame, |env| -> FfiResult<()> {
            let checked = check_columns(env, &field_ids, &kinds, [&values, &offsets, &nulls])?;
            // SAFETY: the current thread's env; no JNI call happens until
            // `pins` is dropped at the end of this closure, after the last
            // use of its slices (`process_columns` returns before it).
            let mut pins = unsafe { Pinned::<u8>::new(env.get_raw(), 3 * m + 1) }?;
            for c in &checked {
                for (array, bytes) in [Some(c.values), c.offsets, Some(c.nulls)].into_iter().flatten() {
                    // SAFETY: a live primitive array of `bytes` bytes
                    // (checked by `element`); see above.
                    unsafe { pins.pin(array, bytes) }?;
                }
            }
            // SAFETY: the live, non-null byte[] of `kinds_len` bytes; see above.
            unsafe { pins.pin(row_kinds.as_raw(), kinds_len) }?;
            let mut pinned = pins.slices().iter().copied();
            let mut next = || pinned.next().ok_or_else(|| FfiError::invalid("JNI: fewer pinned arrays than columns"));
            let mut slices = Vec::with_capacity(m);
            for c in &checked {
                let values = next()?;
                let offsets = if c.offsets.is_some() { as_i32s(next()?)? } else { &[] };
                let nulls = next()?;
                slices.push(ColumnSlices { field: c.field, kind: c.kind, values, offsets, nulls });
            }
            let kinds = next()?;
            Ok(program.process_columns(&slices, kinds, n, rows)?)
        })?;
        row_block(&mut env, rows)
    }
}

/// Checks the arrays of every column `field_ids` names (its kind from
/// `kinds`, the program's `column_kinds`): `[values, offsets, nulls]`.
fn check_columns(
    env: &mut JNIEnv<'_>,
    field_ids: &[i32],
    kinds: &[i32],
    [values, offsets, nulls]: [&JObjectArray<'_>; 3],
) -> FfiResult<Vec<Checked>> {
    let mut checked = Vec::with_capacity(field_ids.len());
    for (j, &f) in field_ids.iter().enumerate() {
        let field = usize::try_from(f).map_err(|_| FfiError::invalid(format!("fields[{j}] is negative ({f})")))?;
        let code =
            kinds.get(field).copied().ok_or_else(|| FfiError::invalid(format!("fields[{j}] = {f}: no such field")))?;
        let kind = ColumnKind::from_code(code).ok_or_else(|| {
            FfiError::invalid(format!("fields[{j}] = {f}: the program does not read it as a column (kind {code})"))
        })?;
        let v = element(env, values, j, kind.java_array(), kind.element_size(), "values")?;
        let o = if kind.has_offsets() { Some(element(env, offsets, j, "[I", 4, "offsets")?) } else { None };
        let nl = element(env, nulls, j, "[B", 1, "nulls")?;
        checked.push(Checked { field, kind, values: v, offsets: o, nulls: nl });
    }
    Ok(checked)
}

/// A pinned `int[]`'s bytes as its elements.
fn as_i32s(bytes: &[u8]) -> FfiResult<&[i32]> {
    if bytes.as_ptr().align_offset(align_of::<i32>()) != 0 {
        return Err(FfiError::invalid("JNI: an int[] is not 4-byte aligned"));
    }
    // SAFETY: aligned (checked), `len / 4` whole elements inside `bytes`,
    // every bit pattern is an i32; the lifetime is carried over.
    Ok(unsafe { std::slice::from_raw_parts(bytes.as_ptr().cast::<i32>(), bytes.len() / 4) })
}
