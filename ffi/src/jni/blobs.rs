//! What the keyed classes (`KeyedNative`, `JoinNative`) share at the JNI
//! edge besides rows: an input's `String[] names, String[] types` read as
//! Flink types, state blobs as `byte[][]` out and in, and the bodies of
//! their `snapshotKeyGroups` / `restore` / `retainedBytes` methods over any
//! native object with [`KeyGroupState`].

use jni::objects::{JByteArray, JObject, JObjectArray};
use jni::sys::{jint, jlong, jobjectArray};
use jni::JNIEnv;
use sluice_keyed::KeyGroupRange;
use sluice_transpose::FlinkType;

use crate::capi::error::{FfiError, FfiResult};
use crate::jni::handle::handle_mut;
use crate::jni::strings::read_strings;

/// A native object whose state is snapshotted and restored per Flink key
/// group (the operator behind a `KeyedNative` or `JoinNative` handle).
pub(crate) trait KeyGroupState {
    /// The Java class, for errors (`KeyedNative`).
    const CLASS: &'static str;
    /// `[first, last]`, checked against the max parallelism.
    fn range(&self, first: i32, last: i32) -> FfiResult<KeyGroupRange>;
    /// One blob per key group of `range` (empty: no state).
    fn snapshot(&self, range: KeyGroupRange) -> FfiResult<Vec<Vec<u8>>>;
    /// Adds the state of the blobs whose key group is in `range`.
    fn restore(&mut self, blobs: &[&[u8]], range: KeyGroupRange) -> FfiResult<()>;
    /// Retained state bytes.
    fn retained(&self) -> usize;
}

/// `snapshotKeyGroups(handle, first, last)`: one `byte[]` per key group.
///
/// # Safety
/// `handle` is 0 or a live handle of a `T` (see [`handle_mut`]).
pub(crate) unsafe fn snapshot_key_groups<T: KeyGroupState>(
    env: &mut JNIEnv<'_>,
    handle: jlong,
    first: jint,
    last: jint,
) -> FfiResult<jobjectArray> {
    // SAFETY: per this function's contract.
    let t = unsafe { handle_mut::<T>(handle, T::CLASS) }?;
    let blobs = t.snapshot(t.range(first, last)?)?;
    blob_array(env, &blobs)
}

/// `restore(handle, first, last, blobs)`.
///
/// # Safety
/// As [`snapshot_key_groups`].
pub(crate) unsafe fn restore_key_groups<T: KeyGroupState>(
    env: &mut JNIEnv<'_>,
    handle: jlong,
    first: jint,
    last: jint,
    blobs: &JObjectArray<'_>,
) -> FfiResult<()> {
    // SAFETY: per this function's contract.
    let t = unsafe { handle_mut::<T>(handle, T::CLASS) }?;
    let range = t.range(first, last)?;
    let owned = read_blobs(env, blobs)?;
    let refs: Vec<&[u8]> = owned.iter().map(Vec::as_slice).collect();
    t.restore(&refs, range)
}

/// `retainedBytes(handle)`.
///
/// # Safety
/// As [`snapshot_key_groups`].
pub(crate) unsafe fn retained_bytes<T: KeyGroupState>(handle: jlong) -> FfiResult<jlong> {
    // SAFETY: per this function's contract.
    let t = unsafe { handle_mut::<T>(handle, T::CLASS) }?;
    Ok(t.retained() as jlong)
}

/// Reads an input's field names and Flink types
/// (`LogicalType.asSerializableString()`); `what` prefixes the argument
/// names in errors (`""`, `"left"`).
pub(crate) fn read_row_schema(
    env: &mut JNIEnv<'_>,
    names: &JObjectArray<'_>,
    types: &JObjectArray<'_>,
    what: &str,
) -> FfiResult<(Vec<String>, Vec<FlinkType>)> {
    let arg =
        |n: &str| if what.is_empty() { n.to_string() } else { format!("{what}{}{}", &n[..1].to_uppercase(), &n[1..]) };
    let names_arg = arg("names");
    let types_arg = arg("types");
    let names = read_strings(env, names, &names_arg)?.ok_or_else(|| FfiError::null(&names_arg))?;
    let types = read_strings(env, types, &types_arg)?.ok_or_else(|| FfiError::null(&types_arg))?;
    let parsed = types
        .iter()
        .enumerate()
        .map(|(i, t)| {
            FlinkType::parse(t).map_err(|e| FfiError::from(e).in_function(&format!("{types_arg}[{i}] `{t}`")))
        })
        .collect::<FfiResult<Vec<_>>>()?;
    Ok((names, parsed))
}

/// Builds a Java `byte[][]` of `blobs`.
fn blob_array(env: &mut JNIEnv<'_>, blobs: &[Vec<u8>]) -> FfiResult<jobjectArray> {
    let arr = env.new_object_array(blobs.len() as i32, "[B", JObject::null())?;
    for (i, b) in blobs.iter().enumerate() {
        let jb = env.byte_array_from_slice(b)?;
        env.set_object_array_element(&arr, i as i32, &jb)?;
        env.delete_local_ref(jb)?;
    }
    Ok(arr.into_raw())
}

/// Copies a Java `byte[][]` (no null array, no null entry).
fn read_blobs(env: &mut JNIEnv<'_>, blobs: &JObjectArray<'_>) -> FfiResult<Vec<Vec<u8>>> {
    if blobs.is_null() {
        return Err(FfiError::null("blobs"));
    }
    let n = env.get_array_length(blobs)?;
    let mut owned: Vec<Vec<u8>> = Vec::with_capacity(n as usize);
    for i in 0..n {
        let obj = env.get_object_array_element(blobs, i)?;
        if obj.is_null() {
            return Err(FfiError::null(&format!("blobs[{i}]")));
        }
        let jb = JByteArray::from(obj);
        owned.push(env.convert_byte_array(&jb)?);
        env.delete_local_ref(jb)?;
    }
    Ok(owned)
}
