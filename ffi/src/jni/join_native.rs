//! `io.sluice.jni.JoinNative`: the updating (regular) join behind Flink's
//! two keyed inputs, with per-key-group snapshots.
//!
//! One native object per Flink join subtask: a [`JoinRowOperator`] (the
//! engine's rows-in / rows-out join) fed with either input's
//! `BinaryRowData` rows pinned in the Java heap. The calls mirror
//! [`crate::jni::keyed_native`]'s, with a `left` flag naming the input a
//! batch came from.

use jni::objects::{JClass, JIntArray, JObjectArray, JString};
use jni::sys::{jboolean, jint, jintArray, jlong, jobject, jobjectArray, JNI_FALSE};
use jni::JNIEnv;
use sluice_engine::keyed::{JoinRowOperator, RowSchema};
use sluice_keyed::KeyGroupRange;
use sluice_transpose::Rows;

use crate::capi::error::{FfiError, FfiResult};
use crate::jni::blobs::{read_row_schema, restore_key_groups, retained_bytes, snapshot_key_groups, KeyGroupState};
use crate::jni::handle::{free_handle, handle_mut, into_handle};
use crate::jni::rows::{row_block, with_row_batch, JavaRowBatch, RowBatchScratch};
use crate::jni::strings::string_array;

/// The native object behind a `JoinNative` handle.
struct JoinJni {
    join: JoinRowOperator,
    scratch: RowBatchScratch,
    rows: Rows,
}

/// `static native long create(String spec, String[] leftNames, String[] leftTypes,
/// String[] rightNames, String[] rightTypes)`: the join of `spec` (see
/// `sluice_engine::keyed::join`) over left and right rows of the given field
/// names and Flink types (`LogicalType.asSerializableString()`).
#[no_mangle]
pub extern "system" fn Java_io_sluice_jni_JoinNative_create<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    spec: JString<'l>,
    left_names: JObjectArray<'l>,
    left_types: JObjectArray<'l>,
    right_names: JObjectArray<'l>,
    right_types: JObjectArray<'l>,
) -> jlong {
    jni_boundary!(env, "JoinNative.create", 0, {
        if spec.is_null() {
            return Err(FfiError::null("spec"));
        }
        let spec: String = env.get_string(&spec)?.into();
        let (ln, lt) = read_row_schema(&mut env, &left_names, &left_types, "left")?;
        let (rn, rt) = read_row_schema(&mut env, &right_names, &right_types, "right")?;
        let ln: Vec<&str> = ln.iter().map(String::as_str).collect();
        let rn: Vec<&str> = rn.iter().map(String::as_str).collect();
        let left = RowSchema { names: &ln, types: &lt };
        let right = RowSchema { names: &rn, types: &rt };
        let join = JoinRowOperator::new(left, right, &spec)?;
        Ok(into_handle(JoinJni { join, scratch: RowBatchScratch::default(), rows: Rows::default() }))
    })
}

/// `static native String[] outputTypes(long handle)`: the Flink types of the
/// emitted rows (left fields then right fields).
#[no_mangle]
pub extern "system" fn Java_io_sluice_jni_JoinNative_outputTypes<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> jobjectArray {
    jni_boundary!(env, "JoinNative.outputTypes", std::ptr::null_mut(), {
        // SAFETY: a live JoinNative handle (Java serialises calls on it).
        let j = unsafe { handle_mut::<JoinJni>(handle, "JoinNative") }?;
        let types: Vec<String> = j.join.output_types().map(|t| t.to_string()).collect();
        string_array(&mut env, types.into_iter())
    })
}

/// `static native RowBlock process(long handle, boolean left, Object[] segments,
/// int numSegments, int[] rowSegment, int[] rowOffset, int[] rowSize, int numRows)`:
/// pushes a changelog batch of one input (RowKinds from the row headers) and
/// returns the emitted changelog rows.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub extern "system" fn Java_io_sluice_jni_JoinNative_process<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
    left: jboolean,
    segments: JObjectArray<'l>,
    num_segments: jint,
    row_segment: JIntArray<'l>,
    row_offset: JIntArray<'l>,
    row_size: JIntArray<'l>,
    num_rows: jint,
) -> jobject {
    jni_boundary!(env, "JoinNative.process", std::ptr::null_mut(), {
        // SAFETY: a live JoinNative handle (Java serialises calls on it).
        let j = unsafe { handle_mut::<JoinJni>(handle, "JoinNative") }?;
        let batch = JavaRowBatch::new(&segments, num_segments, &row_segment, &row_offset, &row_size, num_rows);
        let JoinJni { join, scratch, rows } = j;
        let left = left != JNI_FALSE;
        with_row_batch(&mut env, &batch, scratch, |segs, addrs| Ok(join.process_segments(left, segs, addrs, rows)?))?;
        row_block(&mut env, rows)
    })
}

/// `static native int[] keyGroups(long handle, boolean left, Object[] segments,
/// int numSegments, int[] rowSegment, int[] rowOffset, int[] rowSize, int numRows)`:
/// the Flink key group of each row's join key, as the join's state and
/// snapshots use it (state unchanged).
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub extern "system" fn Java_io_sluice_jni_JoinNative_keyGroups<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
    left: jboolean,
    segments: JObjectArray<'l>,
    num_segments: jint,
    row_segment: JIntArray<'l>,
    row_offset: JIntArray<'l>,
    row_size: JIntArray<'l>,
    num_rows: jint,
) -> jintArray {
    jni_boundary!(env, "JoinNative.keyGroups", std::ptr::null_mut(), {
        // SAFETY: a live JoinNative handle (Java serialises calls on it).
        let j = unsafe { handle_mut::<JoinJni>(handle, "JoinNative") }?;
        let batch = JavaRowBatch::new(&segments, num_segments, &row_segment, &row_offset, &row_size, num_rows);
        let JoinJni { join, scratch, .. } = j;
        let left = left != JNI_FALSE;
        let groups =
            with_row_batch(&mut env, &batch, scratch, |segs, addrs| Ok(join.key_groups_segments(left, segs, addrs)?))?;
        let arr = env.new_int_array(groups.len() as i32)?;
        env.set_int_array_region(&arr, 0, &groups)?;
        Ok(arr.into_raw())
    })
}

impl KeyGroupState for JoinJni {
    const CLASS: &'static str = "JoinNative";
    fn range(&self, first: i32, last: i32) -> FfiResult<KeyGroupRange> {
        Ok(self.join.join().key_group_range(first, last)?)
    }
    fn snapshot(&self, range: KeyGroupRange) -> FfiResult<Vec<Vec<u8>>> {
        Ok(self.join.join().snapshot_key_groups(range)?)
    }
    fn restore(&mut self, blobs: &[&[u8]], range: KeyGroupRange) -> FfiResult<()> {
        Ok(self.join.join_mut().restore(blobs, range)?)
    }
    fn retained(&self) -> usize {
        self.join.join().size()
    }
}

/// `static native byte[][] snapshotKeyGroups(long handle, int firstKeyGroup,
/// int lastKeyGroup)`: one blob per key group of the range, in order, from
/// one pass over the state; a key group without state gets `byte[0]`.
#[no_mangle]
pub extern "system" fn Java_io_sluice_jni_JoinNative_snapshotKeyGroups<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
    first: jint,
    last: jint,
) -> jobjectArray {
    jni_boundary!(env, "JoinNative.snapshotKeyGroups", std::ptr::null_mut(), {
        // SAFETY: a live JoinNative handle (Java serialises calls on it).
        unsafe { snapshot_key_groups::<JoinJni>(&mut env, handle, first, last) }
    })
}

/// `static native void restore(long handle, int firstKeyGroup, int lastKeyGroup,
/// byte[][] blobs)`: adds the state of every blob (each from
/// `snapshotKeyGroups`, any subtask) whose key group is in the range.
#[no_mangle]
pub extern "system" fn Java_io_sluice_jni_JoinNative_restore<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
    first: jint,
    last: jint,
    blobs: JObjectArray<'l>,
) {
    jni_boundary!(env, "JoinNative.restore", (), {
        // SAFETY: a live JoinNative handle (Java serialises calls on it).
        unsafe { restore_key_groups::<JoinJni>(&mut env, handle, first, last, &blobs) }
    })
}

/// `static native long retainedBytes(long handle)`: retained state bytes
/// (what `budget=` bounds).
#[no_mangle]
pub extern "system" fn Java_io_sluice_jni_JoinNative_retainedBytes<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> jlong {
    jni_boundary!(env, "JoinNative.retainedBytes", 0, {
        // SAFETY: a live JoinNative handle (Java serialises calls on it).
        unsafe { retained_bytes::<JoinJni>(handle) }
    })
}

/// `static native void free(long handle)`: drops the join; 0 is a no-op.
#[no_mangle]
pub extern "system" fn Java_io_sluice_jni_JoinNative_free<'l>(mut env: JNIEnv<'l>, _class: JClass<'l>, handle: jlong) {
    jni_boundary!(env, "JoinNative.free", (), {
        // SAFETY: called exactly once per handle by NativeHandle's cleaning
        // action, which zeroes its copy first.
        unsafe { free_handle::<JoinJni>(handle) };
        Ok(())
    })
}
