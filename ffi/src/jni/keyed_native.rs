//! `io.sluice.jni.KeyedNative`: the keyed operators (group aggregate,
//! changelog normalize, dedup, Top-N, OVER, window aggregate) behind Flink's
//! keyBy, with event and processing time driven from Java and per-key-group
//! snapshots.
//!
//! One native object per Flink operator subtask: a [`KeyedRowOperator`]
//! (the engine's rows-in / rows-out operator) fed with the subtask's
//! `BinaryRowData` rows pinned in the Java heap.

use jni::objects::{JObjectArray, JString};
use jni::sys::{jboolean, jintArray, jlong, jobject, jobjectArray, JNI_FALSE, JNI_TRUE};
use sluice_engine::keyed::{KeyedOperator, KeyedRowOperator};
use sluice_transpose::Rows;

use crate::jni::arrays::int_array;
use crate::jni::blobs::{read_row_schema, read_spec, KeyGroupState};
use crate::jni::handle::{into_handle, JavaClass};
use crate::jni::rows::{row_block, with_row_batch, RowBatchScratch};
use crate::jni::strings::type_array;

/// The native object behind a `KeyedNative` handle.
struct KeyedJni {
    operator: KeyedRowOperator,
    scratch: RowBatchScratch,
    rows: Rows,
}

impl JavaClass for KeyedJni {
    const CLASS: &'static str = "KeyedNative";
}

jni_entry! {
    /// `static native long create(String spec, String[] names, String[] types)`:
    /// the operator of `spec` (see `sluice_engine::keyed::spec`) over input rows of
    /// the given field names and Flink types (`LogicalType.asSerializableString()`).
    fn Java_io_sluice_jni_KeyedNative_create(env, spec: JString<'l>, names: JObjectArray<'l>, types: JObjectArray<'l>)
        -> jlong = ("KeyedNative.create", 0) {
        let spec = read_spec(&mut env, &spec)?;
        let (names, parsed) = read_row_schema(&mut env, &names, &types, "")?;
        let name_refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let operator = KeyedRowOperator::new(&name_refs, &parsed, &spec)?;
        Ok(into_handle(KeyedJni { operator, scratch: RowBatchScratch::default(), rows: Rows::default() }))
    }
}

jni_entry! {
    /// `static native String[] outputTypes(long handle)`: the Flink types of the
    /// emitted rows (`group_agg`: keys then one per aggregate; otherwise the input's).
    fn Java_io_sluice_jni_KeyedNative_outputTypes(env, k: &mut KeyedJni) -> jobjectArray
    = ("KeyedNative.outputTypes", std::ptr::null_mut()) {
        type_array(&mut env, k.operator.output_types())
    }
}

jni_entry! {
    /// `static native boolean appendOnly(long handle)`: switches an operator whose every push
    /// emits each input row at once followed by its appended columns (a proctime unbounded
    /// `over`) to returning only those columns, one row per input row in input order
    /// (`KeyedRowOperator::append_only`); whether it did.
    fn Java_io_sluice_jni_KeyedNative_appendOnly(env, k: &mut KeyedJni) -> jboolean
    = ("KeyedNative.appendOnly", JNI_FALSE) {
        Ok(if k.operator.append_only()? { JNI_TRUE } else { JNI_FALSE })
    }
}

jni_entry! {
    /// `static native String[] appendedTypes(long handle)`: the Flink types of the rows
    /// `process` returns in appended-columns mode (an empty array outside it).
    fn Java_io_sluice_jni_KeyedNative_appendedTypes(env, k: &mut KeyedJni) -> jobjectArray
    = ("KeyedNative.appendedTypes", std::ptr::null_mut()) {
        match k.operator.appended_types() {
            Some(types) => type_array(&mut env, types),
            None => type_array(&mut env, std::iter::empty()),
        }
    }
}

row_batch_entry! {
    /// `static native RowBlock process(long handle, Object[] segments, int numSegments,
    /// int[] rowSegment, int[] rowOffset, int[] rowSize, int numRows)`: pushes a
    /// changelog batch (RowKinds from the row headers) and returns the emitted
    /// changelog rows.
    fn Java_io_sluice_jni_KeyedNative_process(env, k: &mut KeyedJni; batch) -> jobject = ("KeyedNative.process", std::ptr::null_mut()) {
        let KeyedJni { operator, scratch, rows } = k;
        with_row_batch(&mut env, &batch, scratch, |segs, addrs| Ok(operator.process_segments(segs, addrs, rows)?))?;
        row_block(&mut env, rows)
    }
}

jni_entry! {
    /// `static native boolean firesOnWatermark(long handle)`: whether
    /// `advanceWatermark` can emit rows (a rowtime `over`, a `window`), so the
    /// Java operator calls it only then.
    fn Java_io_sluice_jni_KeyedNative_firesOnWatermark(env, k: &mut KeyedJni) -> jboolean
    = ("KeyedNative.firesOnWatermark", JNI_FALSE) {
        Ok(if k.operator.operator().fires_on_watermark() { JNI_TRUE } else { JNI_FALSE })
    }
}

jni_entry! {
    /// `static native RowBlock advanceWatermark(long handle, long watermark)`:
    /// advances the operator's event time to `watermark` (epoch millis) and
    /// returns the changelog rows it fires (windows that end, OVER rows whose
    /// timers fire).
    fn Java_io_sluice_jni_KeyedNative_advanceWatermark(env, k: &mut KeyedJni, watermark: jlong) -> jobject
    = ("KeyedNative.advanceWatermark", std::ptr::null_mut()) {
        let KeyedJni { operator, rows, .. } = k;
        operator.advance_watermark(watermark, rows)?;
        row_block(&mut env, rows)
    }
}

jni_entry! {
    /// `static native boolean firesOnProcessingTime(long handle)`: whether
    /// `advanceProcessingTime` can emit rows (a proctime `over` with
    /// `frame=range preceding=N`), so the Java operator stamps its pushes and
    /// registers processing-time timers only then.
    fn Java_io_sluice_jni_KeyedNative_firesOnProcessingTime(env, k: &mut KeyedJni) -> jboolean
    = ("KeyedNative.firesOnProcessingTime", JNI_FALSE) {
        Ok(if k.operator.operator().fires_on_processing_time() { JNI_TRUE } else { JNI_FALSE })
    }
}

jni_entry! {
    /// `static native RowBlock advanceProcessingTime(long handle, long now)`:
    /// moves the operator's processing-time clock to `now` (epoch millis;
    /// later pushes are stamped with it) and returns the rows whose
    /// processing-time timers fire.
    fn Java_io_sluice_jni_KeyedNative_advanceProcessingTime(env, k: &mut KeyedJni, now: jlong) -> jobject
    = ("KeyedNative.advanceProcessingTime", std::ptr::null_mut()) {
        let KeyedJni { operator, rows, .. } = k;
        operator.advance_processing_time(now, rows)?;
        row_block(&mut env, rows)
    }
}

row_batch_entry! {
    /// `static native int[] keyGroups(long handle, Object[] segments, int numSegments,
    /// int[] rowSegment, int[] rowOffset, int[] rowSize, int numRows)`: the Flink
    /// key group of each row's key, as the operator's state and snapshots use it
    /// (state unchanged).
    fn Java_io_sluice_jni_KeyedNative_keyGroups(env, k: &mut KeyedJni; batch) -> jintArray = ("KeyedNative.keyGroups", std::ptr::null_mut()) {
        let KeyedJni { operator, scratch, .. } = k;
        let groups =
            with_row_batch(&mut env, &batch, scratch, |segs, addrs| Ok(operator.key_groups_segments(segs, addrs)?))?;
        int_array(&mut env, &groups)
    }
}

impl KeyGroupState for KeyedJni {
    type State = KeyedOperator;
    fn state(&mut self) -> &mut KeyedOperator {
        self.operator.operator_mut()
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
