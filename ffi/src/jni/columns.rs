//! `io.sluice.jni.CalcNative` column handover: a `ColumnBatch`'s arrays in,
//! rows out ([`sluice_engine::calc::input::columns`]).
//!
//! Java passes, per input field the program reads, its values array, its
//! offsets (`int[]`, string kinds; else null) and its NULL flags
//! (`byte[]`), plus one RowKind byte per row. Every array is checked
//! (non-null, the element type its field needs, long enough) and then all
//! are pinned with `GetPrimitiveArrayCritical`; the program borrows them as
//! Arrow buffers without copying, and no JNI call happens until every pin is
//! released (as in [`super::rows::with_row_batch`]).

use std::ffi::c_void;
use std::ptr;
use std::sync::OnceLock;

use jni::objects::{GlobalRef, JByteArray, JClass, JIntArray, JObject, JObjectArray};
use jni::sys::{jarray, jboolean, jint, jintArray, jlong, jobject, JNI_ABORT};
use jni::JNIEnv;

use super::calc::CalcHandle;
use super::handle::handle_mut;
use super::rows::row_block;
use crate::error::{FfiError, FfiResult};
use sluice_engine::calc::input::columns::{ColumnKind, ColumnSlices};

/// `static native int[] columnKinds(long handle)`: per input field, the
/// `ColumnBatch` kind code, -1 (not read) or -2 (use the row path).
#[no_mangle]
pub extern "system" fn Java_io_sluice_jni_CalcNative_columnKinds<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> jintArray {
    jni_boundary!(env, "CalcNative.columnKinds", ptr::null_mut(), {
        // SAFETY: a live CalcHandle from `create`; Java serialises calls.
        let h = unsafe { handle_mut::<CalcHandle>(handle, "CalcNative") }?;
        let kinds = h.program.column_kinds();
        let arr = env.new_int_array(kinds.len() as i32)?;
        env.set_int_array_region(&arr, 0, &kinds)?;
        Ok(arr.into_raw())
    })
}

/// Arrays pinned with `GetPrimitiveArrayCritical`, released on drop.
struct Pins {
    raw: *mut jni::sys::JNIEnv,
    pinned: Vec<(jarray, *mut c_void)>,
}

impl Pins {
    /// Pins `arr` (a live local reference to a primitive array of `bytes`
    /// bytes) and returns its bytes.
    ///
    /// # Safety
    /// No JNI call may happen until `self` is dropped, and the returned
    /// slice must not outlive `self`.
    unsafe fn pin<'p>(&mut self, arr: jarray, bytes: usize) -> FfiResult<&'p [u8]> {
        // SAFETY: `raw` is the current thread's valid JNIEnv.
        let table = unsafe { &**self.raw };
        let (Some(get), Some(_)) = (table.GetPrimitiveArrayCritical, table.ReleasePrimitiveArrayCritical) else {
            return Err(FfiError::invalid("JNI: GetPrimitiveArrayCritical missing"));
        };
        // SAFETY: `arr` is a live primitive array reference (checked by the
        // caller); critical regions nest; no other JNI call until released.
        let p = unsafe { get(self.raw, arr, ptr::null_mut::<jboolean>()) };
        if p.is_null() {
            return Err(FfiError::invalid("JNI: GetPrimitiveArrayCritical returned NULL (out of memory)"));
        }
        self.pinned.push((arr, p));
        // SAFETY: the JVM guarantees the array's `bytes` bytes at `p` until
        // the release in `drop`, which the caller keeps after every use.
        Ok(unsafe { std::slice::from_raw_parts(p.cast::<u8>(), bytes) })
    }
}

impl Drop for Pins {
    fn drop(&mut self) {
        // SAFETY: as in `pin`.
        let table = unsafe { &**self.raw };
        if let Some(release) = table.ReleasePrimitiveArrayCritical {
            for &(arr, p) in self.pinned.iter().rev() {
                // SAFETY: `p` came from GetPrimitiveArrayCritical on `arr`
                // and is released exactly once; JNI_ABORT: nothing to copy back.
                unsafe { release(self.raw, arr, p, JNI_ABORT) };
            }
        }
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

/// The primitive array classes a column may use, looked up once per JVM
/// (`FindClass` on every batch costs microseconds, which shows at 32 rows
/// per batch).
static ARRAY_CLASSES: OnceLock<Vec<(&'static str, GlobalRef)>> = OnceLock::new();

/// The class of `sig` arrays (`[B`, `[I`, ...).
fn array_class(env: &mut JNIEnv<'_>, sig: &str) -> FfiResult<&'static GlobalRef> {
    if ARRAY_CLASSES.get().is_none() {
        let mut classes = Vec::with_capacity(6);
        for name in ["[B", "[S", "[I", "[J", "[F", "[D"] {
            let c = env.find_class(name)?;
            classes.push((name, env.new_global_ref(&c)?));
        }
        // A racing thread may have set it first; both hold the same classes.
        let _ = ARRAY_CLASSES.set(classes);
    }
    ARRAY_CLASSES
        .get()
        .and_then(|v| v.iter().find(|(n, _)| *n == sig).map(|(_, c)| c))
        .ok_or_else(|| FfiError::invalid(format!("JNI: no array class {sig}")))
}

/// Fetches element `i` of `arr`, checks it is a `sig` array (e.g. `[I`) and
/// returns it with its size in bytes.
fn element(
    env: &mut JNIEnv<'_>,
    arr: &JObjectArray<'_>,
    i: usize,
    sig: &str,
    elem: usize,
    what: &str,
) -> FfiResult<(jarray, usize)> {
    let o: JObject<'_> = env.get_object_array_element(arr, i as i32)?;
    if o.is_null() {
        return Err(FfiError::null(&format!("{what}[{i}]")));
    }
    let class: &JClass<'_> = array_class(env, sig)?.as_obj().into();
    if !env.is_instance_of(&o, class)? {
        return Err(FfiError::invalid(format!("{what}[{i}] is not a {sig} array")));
    }
    let raw = o.into_raw();
    // SAFETY: `raw` is a live local reference to a primitive array (checked
    // just above); the wrapper does not delete it.
    let len = env.get_array_length(&unsafe { JByteArray::from_raw(raw) })? as usize;
    Ok((raw, len * elem))
}

/// `static native RowBlock processColumns(long handle, int[] fields,
/// Object[] values, Object[] offsets, Object[] nulls, byte[] rowKinds, int
/// numRows)`.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub extern "system" fn Java_io_sluice_jni_CalcNative_processColumns<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
    fields: JIntArray<'l>,
    values: JObjectArray<'l>,
    offsets: JObjectArray<'l>,
    nulls: JObjectArray<'l>,
    row_kinds: JByteArray<'l>,
    num_rows: jint,
) -> jobject {
    jni_boundary!(env, "CalcNative.processColumns", ptr::null_mut(), {
        // SAFETY: a live CalcHandle from `create`; Java serialises calls.
        let h = unsafe { handle_mut::<CalcHandle>(handle, "CalcNative") }?;
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
            let mut checked = Vec::with_capacity(m);
            for (j, &f) in field_ids.iter().enumerate() {
                let field =
                    usize::try_from(f).map_err(|_| FfiError::invalid(format!("fields[{j}] is negative ({f})")))?;
                let code = kinds
                    .get(field)
                    .copied()
                    .ok_or_else(|| FfiError::invalid(format!("fields[{j}] = {f}: no such field")))?;
                let kind = [
                    ColumnKind::Utf8,
                    ColumnKind::Binary,
                    ColumnKind::Boolean,
                    ColumnKind::Int8,
                    ColumnKind::Int16,
                    ColumnKind::Int32,
                    ColumnKind::Int64,
                    ColumnKind::Float32,
                    ColumnKind::Float64,
                    ColumnKind::Date32,
                ]
                .into_iter()
                .find(|k| *k as i32 == code)
                .ok_or_else(|| {
                    FfiError::invalid(format!(
                        "fields[{j}] = {f}: the program does not read it as a column (kind {code})"
                    ))
                })?;
                let v = element(env, &values, j, kind.java_array(), kind.element_size(), "values")?;
                let o = if kind.has_offsets() { Some(element(env, &offsets, j, "[I", 4, "offsets")?) } else { None };
                let nl = element(env, &nulls, j, "[B", 1, "nulls")?;
                checked.push(Checked { field, kind, values: v, offsets: o, nulls: nl });
            }
            let mut pins = Pins { raw: env.get_raw(), pinned: Vec::with_capacity(3 * m + 1) };
            let mut slices = Vec::with_capacity(m);
            // SAFETY (every pin below): no JNI call happens until `pins` is
            // dropped at the end of this closure, after the last use of the
            // slices (`process_columns` returns before it).
            for c in &checked {
                // SAFETY: see above.
                let values = unsafe { pins.pin(c.values.0, c.values.1) }?;
                let offsets: &[i32] = match c.offsets {
                    Some((arr, bytes)) => {
                        // SAFETY: see above.
                        let b = unsafe { pins.pin(arr, bytes) }?;
                        if b.as_ptr().align_offset(4) != 0 {
                            return Err(FfiError::invalid("JNI: an int[] is not 4-byte aligned"));
                        }
                        // SAFETY: an int[]'s pinned elements, aligned (checked).
                        unsafe { std::slice::from_raw_parts(b.as_ptr().cast::<i32>(), bytes / 4) }
                    }
                    None => &[],
                };
                // SAFETY: see above.
                let nulls = unsafe { pins.pin(c.nulls.0, c.nulls.1) }?;
                slices.push(ColumnSlices { field: c.field, kind: c.kind, values, offsets, nulls });
            }
            // SAFETY: see above.
            let kinds = unsafe { pins.pin(row_kinds.as_raw(), kinds_len) }?;
            let r = program.process_columns(&slices, kinds, n, rows).map_err(FfiError::from);
            drop(slices);
            drop(pins);
            r
        })?;
        row_block(&mut env, rows)
    })
}
