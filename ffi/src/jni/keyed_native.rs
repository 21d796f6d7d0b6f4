//! `io.sluice.jni.KeyedNative`: the keyed operators (group aggregate,
//! changelog normalize, dedup, Top-N) behind Flink's keyBy, with per-key-group
//! snapshots.
//!
//! One native object per Flink operator subtask: a [`KeyedRowOperator`]
//! (the engine's rows-in / rows-out operator) fed with the subtask's
//! `BinaryRowData` rows pinned in the Java heap.

use jni::objects::{JClass, JObjectArray, JString};
use jni::sys::{jboolean, jintArray, jlong, jobject, jobjectArray, JNI_FALSE, JNI_TRUE};
use jni::JNIEnv;
use sluice_engine::keyed::KeyedRowOperator;
use sluice_keyed::KeyGroupRange;
use sluice_transpose::Rows;

use crate::capi::error::{FfiError, FfiResult};
use crate::jni::blobs::{read_row_schema, KeyGroupState};
use crate::jni::handle::{handle_mut, into_handle};
use crate::jni::rows::{row_block, with_row_batch, RowBatchScratch};
use crate::jni::strings::string_array;

/// The native object behind a `KeyedNative` handle.
struct KeyedJni {
    operator: KeyedRowOperator,
    scratch: RowBatchScratch,
    rows: Rows,
}

/// `static native long create(String spec, String[] names, String[] types)`:
/// the operator of `spec` (see `sluice_engine::keyed::spec`) over input rows of
/// the given field names and Flink types (`LogicalType.asSerializableString()`).
#[no_mangle]
pub extern "system" fn Java_io_sluice_jni_KeyedNative_create<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    spec: JString<'l>,
    names: JObjectArray<'l>,
    types: JObjectArray<'l>,
) -> jlong {
    jni_boundary!(env, "KeyedNative.create", 0, {
        if spec.is_null() {
            return Err(FfiError::null("spec"));
        }
        let spec: String = env.get_string(&spec)?.into();
        let (names, parsed) = read_row_schema(&mut env, &names, &types, "")?;
        let name_refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let operator = KeyedRowOperator::new(&name_refs, &parsed, &spec)?;
        Ok(into_handle(KeyedJni { operator, scratch: RowBatchScratch::default(), rows: Rows::default() }))
    })
}

/// `static native String[] outputTypes(long handle)`: the Flink types of the
/// emitted rows (`group_agg`: keys then one per aggregate; otherwise the input's).
#[no_mangle]
pub extern "system" fn Java_io_sluice_jni_KeyedNative_outputTypes<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> jobjectArray {
    jni_boundary!(env, "KeyedNative.outputTypes", std::ptr::null_mut(), {
        // SAFETY: a live KeyedNative handle (Java serialises calls on it).
        let k = unsafe { handle_mut::<KeyedJni>(handle, "KeyedNative") }?;
        let types: Vec<String> = k.operator.output_types().map(|t| t.to_string()).collect();
        string_array(&mut env, types.into_iter())
    })
}

row_batch_entry! {
    /// `static native RowBlock process(long handle, Object[] segments, int numSegments,
    /// int[] rowSegment, int[] rowOffset, int[] rowSize, int numRows)`: pushes a
    /// changelog batch (RowKinds from the row headers) and returns the emitted
    /// changelog rows.
    fn Java_io_sluice_jni_KeyedNative_process(env, handle; batch) -> jobject = ("KeyedNative.process", std::ptr::null_mut()) {
        // SAFETY: a live KeyedNative handle (Java serialises calls on it).
        let k = unsafe { handle_mut::<KeyedJni>(handle, "KeyedNative") }?;
        let KeyedJni { operator, scratch, rows } = k;
        with_row_batch(&mut env, &batch, scratch, |segs, addrs| Ok(operator.process_segments(segs, addrs, rows)?))?;
        row_block(&mut env, rows)
    }
}

/// `static native boolean firesOnWatermark(long handle)`: whether
/// `advanceWatermark` can emit rows (a rowtime `over`, a `window`), so the
/// Java operator calls it only then.
#[no_mangle]
pub extern "system" fn Java_io_sluice_jni_KeyedNative_firesOnWatermark<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> jboolean {
    jni_boundary!(env, "KeyedNative.firesOnWatermark", JNI_FALSE, {
        // SAFETY: a live KeyedNative handle (Java serialises calls on it).
        let k = unsafe { handle_mut::<KeyedJni>(handle, "KeyedNative") }?;
        Ok(if k.operator.operator().fires_on_watermark() { JNI_TRUE } else { JNI_FALSE })
    })
}

/// `static native RowBlock advanceWatermark(long handle, long watermark)`:
/// advances the operator's event time to `watermark` (epoch millis) and
/// returns the changelog rows it fires (windows that end, OVER rows whose
/// timers fire).
#[no_mangle]
pub extern "system" fn Java_io_sluice_jni_KeyedNative_advanceWatermark<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
    watermark: jlong,
) -> jobject {
    jni_boundary!(env, "KeyedNative.advanceWatermark", std::ptr::null_mut(), {
        // SAFETY: a live KeyedNative handle (Java serialises calls on it).
        let k = unsafe { handle_mut::<KeyedJni>(handle, "KeyedNative") }?;
        let KeyedJni { operator, rows, .. } = k;
        operator.advance_watermark(watermark, rows)?;
        row_block(&mut env, rows)
    })
}

row_batch_entry! {
    /// `static native int[] keyGroups(long handle, Object[] segments, int numSegments,
    /// int[] rowSegment, int[] rowOffset, int[] rowSize, int numRows)`: the Flink
    /// key group of each row's key, as the operator's state and snapshots use it
    /// (state unchanged).
    fn Java_io_sluice_jni_KeyedNative_keyGroups(env, handle; batch) -> jintArray = ("KeyedNative.keyGroups", std::ptr::null_mut()) {
        // SAFETY: a live KeyedNative handle (Java serialises calls on it).
        let k = unsafe { handle_mut::<KeyedJni>(handle, "KeyedNative") }?;
        let KeyedJni { operator, scratch, .. } = k;
        let groups =
            with_row_batch(&mut env, &batch, scratch, |segs, addrs| Ok(operator.key_groups_segments(segs, addrs)?))?;
        let arr = env.new_int_array(groups.len() as i32)?;
        env.set_int_array_region(&arr, 0, &groups)?;
        Ok(arr.into_raw())
    }
}

impl KeyGroupState for KeyedJni {
    const CLASS: &'static str = "KeyedNative";
    fn range(&self, first: i32, last: i32) -> FfiResult<KeyGroupRange> {
        Ok(self.operator.operator().key_group_range(first, last)?)
    }
    fn snapshot(&self, range: KeyGroupRange) -> FfiResult<Vec<Vec<u8>>> {
        Ok(self.operator.operator().snapshot_key_groups(range)?)
    }
    fn restore(&mut self, blobs: &[&[u8]], range: KeyGroupRange) -> FfiResult<()> {
        Ok(self.operator.operator_mut().restore(blobs, range)?)
    }
    fn retained(&self) -> usize {
        self.operator.operator().size()
    }
}

key_group_entries!(
    KeyedJni,
    "KeyedNative",
    Java_io_sluice_jni_KeyedNative_snapshotKeyGroups,
    Java_io_sluice_jni_KeyedNative_restore,
    Java_io_sluice_jni_KeyedNative_retainedBytes,
    Java_io_sluice_jni_KeyedNative_free
);
