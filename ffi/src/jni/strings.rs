//! Java `String[]` in and out (names, Flink types).

use jni::objects::{JObject, JObjectArray, JString};
use jni::sys::jobjectArray;
use jni::JNIEnv;
use sluice_transpose::FlinkType;

use crate::capi::error::{FfiError, FfiResult};

/// Reads a Java `String[]` (`None` for a null array; a null entry is an
/// error naming `what[i]`).
pub(crate) fn read_strings(env: &mut JNIEnv<'_>, arr: &JObjectArray<'_>, what: &str) -> FfiResult<Option<Vec<String>>> {
    if arr.is_null() {
        return Ok(None);
    }
    let n = env.get_array_length(arr)?;
    let mut out = Vec::with_capacity(n as usize);
    for i in 0..n {
        let obj = env.get_object_array_element(arr, i)?;
        if obj.is_null() {
            return Err(FfiError::null(&format!("{what}[{i}]")));
        }
        let s = JString::from(obj);
        let v: String = env.get_string(&s)?.into();
        env.delete_local_ref(s)?;
        out.push(v);
    }
    Ok(Some(out))
}

/// Reads a Java `String[]` that must not be null (named `what` in errors).
pub(crate) fn read_required_strings(
    env: &mut JNIEnv<'_>,
    arr: &JObjectArray<'_>,
    what: &str,
) -> FfiResult<Vec<String>> {
    read_strings(env, arr, what)?.ok_or_else(|| FfiError::null(what))
}

/// Builds a Java `String[]` of `items`.
pub(crate) fn string_array(
    env: &mut JNIEnv<'_>,
    items: impl ExactSizeIterator<Item = String>,
) -> FfiResult<jobjectArray> {
    let arr = env.new_object_array(items.len() as i32, "java/lang/String", JObject::null())?;
    for (i, s) in items.enumerate() {
        let js = env.new_string(s)?;
        env.set_object_array_element(&arr, i as i32, &js)?;
        env.delete_local_ref(js)?;
    }
    Ok(arr.into_raw())
}

/// Builds a Java `String[]` of Flink types, each as its
/// `LogicalType#asSerializableString()` (an operator's `outputTypes`).
pub(crate) fn type_array<'t>(
    env: &mut JNIEnv<'_>,
    types: impl Iterator<Item = &'t FlinkType>,
) -> FfiResult<jobjectArray> {
    let names: Vec<String> = types.map(ToString::to_string).collect();
    string_array(env, names.into_iter())
}
