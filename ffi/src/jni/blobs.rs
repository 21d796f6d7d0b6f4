//! What the keyed classes (`KeyedNative`, `JoinNative`) share at the JNI
//! edge besides rows: an input's `String[] names, String[] types` read as
//! Flink types, state blobs as `byte[][]` out and in, and the bodies of
//! their `snapshotKeyGroups` / `restore` / `retainedBytes` / `free` methods
//! over any native object with [`KeyGroupState`], written once as the
//! `key_group_entries!` macro that each class module invokes.

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

/// The `snapshotKeyGroups`, `restore`, `retainedBytes` and `free` entry
/// points of a keyed class, the same for every [`KeyGroupState`]: invoked
/// once per class module with the native type, the Java class name and the
/// four JNI symbol names (written out: `macro_rules!` cannot build an
/// identifier, and the symbols stay greppable).
macro_rules! key_group_entries {
    ($ty:ty, $class:literal, $snapshot:ident, $restore:ident, $retained:ident, $free:ident) => {
        #[doc = concat!("`static native byte[][] snapshotKeyGroups(long handle, int firstKeyGroup, int lastKeyGroup)` of `", $class, "`: one blob per key group of the range, in order, from one pass over the state; a key group without state gets `byte[0]`.")]
        #[no_mangle]
        pub extern "system" fn $snapshot<'l>(
            mut env: jni::JNIEnv<'l>,
            _class: jni::objects::JClass<'l>,
            handle: jni::sys::jlong,
            first: jni::sys::jint,
            last: jni::sys::jint,
        ) -> jni::sys::jobjectArray {
            jni_boundary!(env, concat!($class, ".snapshotKeyGroups"), std::ptr::null_mut(), {
                // SAFETY: a live handle of this class (Java serialises calls on it).
                unsafe { $crate::jni::blobs::snapshot_key_groups::<$ty>(&mut env, handle, first, last) }
            })
        }

        #[doc = concat!("`static native void restore(long handle, int firstKeyGroup, int lastKeyGroup, byte[][] blobs)` of `", $class, "`: adds the state of every blob (each from `snapshotKeyGroups`, any subtask) whose key group is in the range.")]
        #[no_mangle]
        pub extern "system" fn $restore<'l>(
            mut env: jni::JNIEnv<'l>,
            _class: jni::objects::JClass<'l>,
            handle: jni::sys::jlong,
            first: jni::sys::jint,
            last: jni::sys::jint,
            blobs: jni::objects::JObjectArray<'l>,
        ) {
            jni_boundary!(env, concat!($class, ".restore"), (), {
                // SAFETY: a live handle of this class (Java serialises calls on it).
                unsafe { $crate::jni::blobs::restore_key_groups::<$ty>(&mut env, handle, first, last, &blobs) }
            })
        }

        #[doc = concat!("`static native long retainedBytes(long handle)` of `", $class, "`: retained state bytes (what `budget=` bounds).")]
        #[no_mangle]
        pub extern "system" fn $retained<'l>(
            mut env: jni::JNIEnv<'l>,
            _class: jni::objects::JClass<'l>,
            handle: jni::sys::jlong,
        ) -> jni::sys::jlong {
            jni_boundary!(env, concat!($class, ".retainedBytes"), 0, {
                // SAFETY: a live handle of this class (Java serialises calls on it).
                unsafe { $crate::jni::blobs::retained_bytes::<$ty>(handle) }
            })
        }

        #[doc = concat!("`static native void free(long handle)` of `", $class, "`: drops the native object; 0 is a no-op.")]
        #[no_mangle]
        pub extern "system" fn $free<'l>(
            mut env: jni::JNIEnv<'l>,
            _class: jni::objects::JClass<'l>,
            handle: jni::sys::jlong,
        ) {
            jni_boundary!(env, concat!($class, ".free"), (), {
                // SAFETY: called exactly once per handle by NativeHandle's
                // cleaning action, which zeroes its copy first.
                unsafe { $crate::jni::handle::free_handle::<$ty>(handle) };
                Ok(())
            })
        }
    };
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
