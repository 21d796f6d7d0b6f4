//! `io.sluice.jni.JoinNative`: the updating (regular) join behind Flink's
//! two keyed inputs, with per-key-group snapshots.
//!
//! One native object per Flink join subtask: a [`JoinRowOperator`] (the
//! engine's rows-in / rows-out join) fed with either input's
//! `BinaryRowData` rows pinned in the Java heap. The calls mirror
//! [`crate::jni::keyed_native`]'s, with a `left` flag naming the input a
//! batch came from.

use jni::objects::{JClass, JObjectArray, JString};
use jni::sys::{jboolean, jintArray, jlong, jobject, jobjectArray, JNI_FALSE};
use jni::JNIEnv;
use sluice_engine::keyed::{JoinRowOperator, RowSchema};
use sluice_keyed::KeyGroupRange;
use sluice_transpose::Rows;

use crate::capi::error::{FfiError, FfiResult};
use crate::jni::blobs::{read_row_schema, KeyGroupState};
use crate::jni::handle::{handle_mut, into_handle};
use crate::jni::rows::{row_block, with_row_batch, RowBatchScratch};
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

row_batch_entry! {
    /// `static native RowBlock process(long handle, boolean left, Object[] segments,
    /// int numSegments, int[] rowSegment, int[] rowOffset, int[] rowSize, int numRows)`:
    /// pushes a changelog batch of one input (RowKinds from the row headers) and
    /// returns the emitted changelog rows.
    fn Java_io_sluice_jni_JoinNative_process(env, handle, left: jboolean; batch) -> jobject = ("JoinNative.process", std::ptr::null_mut()) {
        // SAFETY: a live JoinNative handle (Java serialises calls on it).
        let j = unsafe { handle_mut::<JoinJni>(handle, "JoinNative") }?;
        let JoinJni { join, scratch, rows } = j;
        let left = left != JNI_FALSE;
        with_row_batch(&mut env, &batch, scratch, |segs, addrs| Ok(join.process_segments(left, segs, addrs, rows)?))?;
        row_block(&mut env, rows)
    }
}

row_batch_entry! {
    /// `static native int[] keyGroups(long handle, boolean left, Object[] segments,
    /// int numSegments, int[] rowSegment, int[] rowOffset, int[] rowSize, int numRows)`:
    /// the Flink key group of each row's join key, as the join's state and
    /// snapshots use it (state unchanged).
    fn Java_io_sluice_jni_JoinNative_keyGroups(env, handle, left: jboolean; batch) -> jintArray = ("JoinNative.keyGroups", std::ptr::null_mut()) {
        // SAFETY: a live JoinNative handle (Java serialises calls on it).
        let j = unsafe { handle_mut::<JoinJni>(handle, "JoinNative") }?;
        let JoinJni { join, scratch, .. } = j;
        let left = left != JNI_FALSE;
        let groups =
            with_row_batch(&mut env, &batch, scratch, |segs, addrs| Ok(join.key_groups_segments(left, segs, addrs)?))?;
        let arr = env.new_int_array(groups.len() as i32)?;
        env.set_int_array_region(&arr, 0, &groups)?;
        Ok(arr.into_raw())
    }
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

key_group_entries!(
    JoinJni,
    "JoinNative",
    Java_io_sluice_jni_JoinNative_snapshotKeyGroups,
    Java_io_sluice_jni_JoinNative_restore,
    Java_io_sluice_jni_JoinNative_retainedBytes,
    Java_io_sluice_jni_JoinNative_free
);
