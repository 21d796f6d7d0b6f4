//! What the keyed classes (`KeyedNative`, `JoinNative`) share at the JNI
//! edge besides rows: the spec and an input's `String[] names, String[]
//! types` read as Flink types, state blobs as `byte[][]` out and in, and the bodies of
//! their `snapshotKeyGroups` / `restore` / `retainedBytes` / `free` methods
//! over any native object with [`KeyGroupState`], written once as the
//! `key_group_entries!` macro that each class module invokes.

use jni::objects::{JByteArray, JObject, JObjectArray, JString};
use jni::sys::{jint, jlong, jobjectArray};
use jni::JNIEnv;
use sluice_engine::keyed::KeyedState;
use sluice_transpose::FlinkType;

use crate::capi::error::{FfiError, FfiResult};
use crate::jni::handle::JavaClass;
use crate::jni::strings::read_required_strings;

/// A native object whose state is snapshotted and restored per Flink key
/// group (the operator behind a `KeyedNative` or `JoinNative` handle).
pub(crate) trait KeyGroupState: JavaClass {
    /// The operator that holds the state.
    type State: KeyedState;
    /// That operator.
    fn state(&mut self) -> &mut Self::State;
}

/// The `snapshotKeyGroups`, `restore`, `retainedBytes` and `free` entry
/// points of a keyed class, the same for every [`KeyGroupState`]: invoked
/// once per class module with the native type, the Java class name and the
/// four JNI symbol names (written out: `macro_rules!` cannot build an
/// identifier, and the symbols stay greppable).
macro_rules! key_group_entries {
    ($ty:ty, $class:literal, $snapshot:ident, $restore:ident, $retained:ident, $free:ident) => {
        jni_entry! {
            #[doc = concat!("`static native byte[][] snapshotKeyGroups(long handle, int firstKeyGroup, int lastKeyGroup)` of `", $class, "`: one blob per key group of the range, in order, from one pass over the state; a key group without state gets `byte[0]`.")]
            fn $snapshot(env, t: &mut $ty, first: jni::sys::jint, last: jni::sys::jint) -> jni::sys::jobjectArray
            = (concat!($class, ".snapshotKeyGroups"), std::ptr::null_mut()) {
                $crate::jni::blobs::snapshot_key_groups(&mut env, t, first, last)
            }
        }

        jni_entry! {
            #[doc = concat!("`static native void restore(long handle, int firstKeyGroup, int lastKeyGroup, byte[][] blobs)` of `", $class, "`: adds the state of every blob (each from `snapshotKeyGroups`, any subtask) whose key group is in the range.")]
            fn $restore(env, t: &mut $ty, first: jni::sys::jint, last: jni::sys::jint, blobs: jni::objects::JObjectArray<'l>)
            = (concat!($class, ".restore"), ()) {
                $crate::jni::blobs::restore_key_groups(&mut env, t, first, last, &blobs)
            }
        }

        jni_entry! {
            #[doc = concat!("`static native long retainedBytes(long handle)` of `", $class, "`: retained state bytes (what `budget=` bounds).")]
            fn $retained(env, t: &mut $ty) -> jni::sys::jlong = (concat!($class, ".retainedBytes"), 0) {
                Ok($crate::jni::blobs::retained_bytes(t))
            }
        }

        jni_entry! {
            #[doc = concat!("`static native void free(long handle)` of `", $class, "`: drops the native object; 0 is a no-op.")]
            fn $free(env, handle: jni::sys::jlong) = (concat!($class, ".free"), ()) {
                // SAFETY: called exactly once per handle by NativeHandle's
                // cleaning action, which zeroes its copy first.
                unsafe { $crate::jni::handle::free_handle::<$ty>(handle) };
                Ok(())
            }
        }
    };
}

/// `snapshotKeyGroups(handle, first, last)`: one `byte[]` per key group.
pub(crate) fn snapshot_key_groups<T: KeyGroupState>(
    env: &mut JNIEnv<'_>,
    t: &mut T,
    first: jint,
    last: jint,
) -> FfiResult<jobjectArray> {
    let state = t.state();
    let blobs = state.snapshot_key_groups(state.key_group_range(first, last)?)?;
    blob_array(env, &blobs)
}

/// `restore(handle, first, last, blobs)`.
pub(crate) fn restore_key_groups<T: KeyGroupState>(
    env: &mut JNIEnv<'_>,
    t: &mut T,
    first: jint,
    last: jint,
    blobs: &JObjectArray<'_>,
) -> FfiResult<()> {
    let state = t.state();
    let range = state.key_group_range(first, last)?;
    let owned = read_blobs(env, blobs)?;
    let refs: Vec<&[u8]> = owned.iter().map(Vec::as_slice).collect();
    Ok(state.restore(&refs, range)?)
}

/// `retainedBytes(handle)`.
pub(crate) fn retained_bytes<T: KeyGroupState>(t: &mut T) -> jlong {
    t.state().size() as jlong
}

/// Reads the operator spec argument of a `create` (not null).
pub(crate) fn read_spec(env: &mut JNIEnv<'_>, spec: &JString<'_>) -> FfiResult<String> {
    if spec.is_null() {
        return Err(FfiError::null("spec"));
    }
    Ok(env.get_string(spec)?.into())
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
    let names = read_required_strings(env, names, &names_arg)?;
    let types = read_required_strings(env, types, &types_arg)?;
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
