//! `io.sluice.jni.JoinNative`: the updating (regular) join behind Flink's
//! two keyed inputs, with per-key-group snapshots.
//!
//! One native object per Flink join subtask: a [`JoinRowOperator`] (the
//! engine's rows-in / rows-out join) fed with either input's
//! `BinaryRowData` rows pinned in the Java heap. The calls mirror
//! [`crate::jni::keyed_native`]'s, with a `left` flag naming the input a
//! batch came from.

use jni::objects::{JObjectArray, JString};
use jni::sys::{jboolean, jintArray, jlong, jobject, jobjectArray, JNI_FALSE};
use sluice_engine::keyed::{JoinOperator, JoinRowOperator, RowSchema};
use sluice_transpose::Rows;

use crate::jni::arrays::int_array;
use crate::jni::blobs::{read_row_schema, read_spec, KeyGroupState};
use crate::jni::handle::{into_handle, JavaClass};
use crate::jni::rows::{row_block, with_row_batch, RowBatchScratch};
use crate::jni::strings::type_array;

/// The native object behind a `JoinNative` handle.
struct JoinJni {
    join: JoinRowOperator,
    scratch: RowBatchScratch,
    rows: Rows,
}

impl JavaClass for JoinJni {
    const CLASS: &'static str = "JoinNative";
}

jni_entry! {
    /// `static native long create(String spec, String[] leftNames, String[] leftTypes,
    /// String[] rightNames, String[] rightTypes)`: the join of `spec` (see
    /// `sluice_engine::keyed::join`) over left and right rows of the given field
    /// names and Flink types (`LogicalType.asSerializableString()`).
    fn Java_io_sluice_jni_JoinNative_create(
        env,
        spec: JString<'l>,
        left_names: JObjectArray<'l>,
        left_types: JObjectArray<'l>,
        right_names: JObjectArray<'l>,
        right_types: JObjectArray<'l>,
    ) -> jlong = ("JoinNative.create", 0) {
        let spec = read_spec(&mut env, &spec)?;
        let (ln, lt) = read_row_schema(&mut env, &left_names, &left_types, "left")?;
        let (rn, rt) = read_row_schema(&mut env, &right_names, &right_types, "right")?;
        let ln: Vec<&str> = ln.iter().map(String::as_str).collect();
        let rn: Vec<&str> = rn.iter().map(String::as_str).collect();
        let left = RowSchema { names: &ln, types: &lt };
        let right = RowSchema { names: &rn, types: &rt };
        let join = JoinRowOperator::new(left, right, &spec)?;
        Ok(into_handle(JoinJni { join, scratch: RowBatchScratch::default(), rows: Rows::default() }))
    }
}

jni_entry! {
    /// `static native String[] outputTypes(long handle)`: the Flink types of the
    /// emitted rows (left fields then right fields).
    fn Java_io_sluice_jni_JoinNative_outputTypes(env, j: &mut JoinJni) -> jobjectArray
    = ("JoinNative.outputTypes", std::ptr::null_mut()) {
        type_array(&mut env, j.join.output_types())
    }
}

row_batch_entry! {
    /// `static native RowBlock process(long handle, boolean left, Object[] segments,
    /// int numSegments, int[] rowSegment, int[] rowOffset, int[] rowSize, int numRows)`:
    /// pushes a changelog batch of one input (RowKinds from the row headers) and
    /// returns the emitted changelog rows.
    fn Java_io_sluice_jni_JoinNative_process(env, j: &mut JoinJni, left: jboolean; batch) -> jobject = ("JoinNative.process", std::ptr::null_mut()) {
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
    fn Java_io_sluice_jni_JoinNative_keyGroups(env, j: &mut JoinJni, left: jboolean; batch) -> jintArray = ("JoinNative.keyGroups", std::ptr::null_mut()) {
        let JoinJni { join, scratch, .. } = j;
        let left = left != JNI_FALSE;
        let groups =
            with_row_batch(&mut env, &batch, scratch, |segs, addrs| Ok(join.key_groups_segments(left, segs, addrs)?))?;
        int_array(&mut env, &groups)
    }
}

impl KeyGroupState for JoinJni {
    type State = JoinOperator;
    fn state(&mut self) -> &mut JoinOperator {
        self.join.join_mut()
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
