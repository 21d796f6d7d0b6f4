//! Elements of a Java `Object[]` that must be primitive arrays of one type.
//!
//! The native methods take their variable-width arguments as `Object[]`
//! (row segments, column arrays, UTF-16 units), so Java's type system checks
//! nothing inside them. Before any element is read as an array, [`element`]
//! checks that the index is inside the `Object[]` (`GetObjectArrayElement`
//! would otherwise throw `ArrayIndexOutOfBoundsException`, not
//! `SluiceException`) and that the element is an instance of the expected
//! array class: `GetArrayLength`, `Get<Type>ArrayRegion` and
//! `GetPrimitiveArrayCritical` on an object of another class read it as if
//! it were that array (a type confusion the JVM does not check without
//! `-Xcheck:jni`).
//!
//! The other way, [`int_array`] returns an `int[]` (key groups, column
//! kinds).

use std::sync::OnceLock;

use jni::objects::{GlobalRef, JByteArray, JClass, JObject, JObjectArray};
use jni::sys::jintArray;
use jni::JNIEnv;

use crate::capi::error::{FfiError, FfiResult};

/// The JVM descriptors of the primitive array classes an element may be
/// checked against.
const SIGNATURES: [&str; 8] = ["[Z", "[B", "[C", "[S", "[I", "[J", "[F", "[D"];

/// The primitive array classes, looked up once per JVM (`FindClass` on every
/// batch costs microseconds, which shows at 32 rows per batch).
static ARRAY_CLASSES: OnceLock<Vec<(&'static str, GlobalRef)>> = OnceLock::new();

/// The class of `sig` arrays (`[B`, `[I`, ...).
fn array_class(env: &mut JNIEnv<'_>, sig: &str) -> FfiResult<&'static GlobalRef> {
    if ARRAY_CLASSES.get().is_none() {
        let mut classes = Vec::with_capacity(SIGNATURES.len());
        for name in SIGNATURES {
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

/// A checked element: a local reference to a primitive array and its length
/// in elements.
pub(crate) struct Element<'l> {
    /// The array (a local reference in the caller's frame).
    pub(crate) array: JObject<'l>,
    /// Its length in elements (not bytes).
    pub(crate) len: usize,
}

/// What an `Object[]` holds: the JVM descriptor of its elements' array
/// class (e.g. `[I`) and its name in errors.
pub(crate) type Slot<'a> = (&'a str, &'a str);

/// Element `i` of `arr`, checked to be an array of the class `slot` names;
/// `Ok(None)` when the element is null and `nullable`, an error when it is
/// null and not.
pub(crate) fn element<'l>(
    env: &mut JNIEnv<'l>,
    arr: &JObjectArray<'_>,
    i: usize,
    slot: Slot<'_>,
    nullable: bool,
) -> FfiResult<Option<Element<'l>>> {
    let (sig, what) = slot;
    if arr.is_null() {
        return Err(FfiError::null(what));
    }
    let have = env.get_array_length(arr)? as usize;
    let index = i32::try_from(i)
        .ok()
        .filter(|_| i < have)
        .ok_or_else(|| FfiError::invalid(format!("{what} has {have} entries; entry {i} is missing")))?;
    let o: JObject<'l> = env.get_object_array_element(arr, index)?;
    if o.is_null() {
        return if nullable { Ok(None) } else { Err(FfiError::null(&format!("{what}[{i}]"))) };
    }
    let class: &JClass<'_> = array_class(env, sig)?.as_obj().into();
    if !env.is_instance_of(&o, class)? {
        return Err(FfiError::invalid(format!("{what}[{i}] is not a {sig} array")));
    }
    let raw = o.as_raw();
    // SAFETY: `raw` is a live local reference to a primitive array (checked
    // just above), borrowed for this call only; the wrapper, built from a
    // raw pointer, does not delete the reference when dropped.
    let len = env.get_array_length(&unsafe { JByteArray::from_raw(raw) })? as usize;
    Ok(Some(Element { array: o, len }))
}

/// As [`element`] for an element that may not be null.
pub(crate) fn required<'l>(
    env: &mut JNIEnv<'l>,
    arr: &JObjectArray<'_>,
    i: usize,
    slot: Slot<'_>,
) -> FfiResult<Element<'l>> {
    element(env, arr, i, slot, false)?.ok_or_else(|| FfiError::null(&format!("{}[{i}]", slot.1)))
}

/// A new Java `int[]` holding `values`.
pub(crate) fn int_array(env: &mut JNIEnv<'_>, values: &[i32]) -> FfiResult<jintArray> {
    let len = i32::try_from(values.len()).map_err(|_| FfiError::invalid("more than 2^31 - 1 int[] elements"))?;
    let arr = env.new_int_array(len)?;
    env.set_int_array_region(&arr, 0, values)?;
    Ok(arr.into_raw())
}
