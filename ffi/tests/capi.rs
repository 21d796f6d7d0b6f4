//! The C ABI through its public items only, as a C caller sees it: the
//! per-thread last error, ownership of moved-in arrays on error paths, the
//! mapping of engine errors to status codes, the search entry points on
//! Flink's classes (issue 20), the offset-0 export and `sluice_buffer`.

use std::ffi::{CStr, CString};
use std::ptr;
use std::sync::Arc;

use arrow_array::ffi::{from_ffi, FFI_ArrowArray, FFI_ArrowSchema};
use arrow_array::{make_array, Array, ArrayRef, BooleanArray, Int32Array, StringArray, StructArray};
use arrow_buffer::{Buffer, ScalarBuffer};
use arrow_schema::{DataType, Field};
use sluice::capi::arrow_c::offset_zero;
use sluice::capi::buffer::{sluice_buffer, sluice_buffer_free};
use sluice::capi::error::{sluice_last_error, sluice_status, FfiError};
use sluice::{sluice_like, sluice_md5, sluice_sha1, sluice_split_index};

fn last_error() -> String {
    // SAFETY: sluice_last_error never returns NULL and the string is valid
    // until this thread's next call.
    unsafe { CStr::from_ptr(sluice_last_error()) }.to_string_lossy().into_owned()
}

/// An empty Int32 array given to the library, and its values buffer: the
/// buffer's strong count falls back to 1 when the library releases the array.
fn tracked_empty_int32() -> (FFI_ArrowArray, Buffer) {
    let values = Buffer::from_vec(Vec::<i32>::new());
    let array = Int32Array::new(ScalarBuffer::new(values.clone(), 0, 0), None);
    (FFI_ArrowArray::new(&array.to_data()), values)
}

fn export(a: &dyn Array) -> (FFI_ArrowArray, FFI_ArrowSchema) {
    let field = Field::new("a", a.data_type().clone(), true);
    (FFI_ArrowArray::new(&a.to_data()), FFI_ArrowSchema::try_from(&field).unwrap())
}

fn import(out: FFI_ArrowArray, schema: &FFI_ArrowSchema) -> ArrayRef {
    // SAFETY: `out` and `schema` were just written by a sluice entry point.
    make_array(unsafe { from_ffi(out, schema) }.unwrap())
}

#[test]
fn last_error_is_per_thread() {
    // SAFETY: NULL input is an error path that touches nothing.
    let rc = unsafe { sluice_md5(ptr::null_mut(), ptr::null(), ptr::null_mut(), ptr::null_mut()) };
    assert_eq!(rc, sluice_status::SLUICE_ERR_NULL_POINTER as i32);
    assert_eq!(last_error(), "sluice_md5: in is NULL");
    let other = std::thread::spawn(|| {
        let fresh = last_error();
        // SAFETY: as above.
        let rc = unsafe { sluice_sha1(ptr::null_mut(), ptr::null(), ptr::null_mut(), ptr::null_mut()) };
        (fresh, rc, last_error())
    })
    .join()
    .unwrap();
    assert_eq!(other, (String::new(), 1, "sluice_sha1: in is NULL".to_string()));
    assert_eq!(last_error(), "sluice_md5: in is NULL", "another thread's error does not leak here");
}

#[test]
fn an_input_is_released_once_when_a_later_argument_is_bad() {
    let (mut a, values) = tracked_empty_int32();
    // NULL in_schema: the array was non-NULL, so it is taken and released.
    // SAFETY: `a` is live; the NULLs are the error under test.
    let rc = unsafe { sluice_md5(&mut a, ptr::null(), ptr::null_mut(), ptr::null_mut()) };
    assert_eq!(rc, sluice_status::SLUICE_ERR_NULL_POINTER as i32);
    assert_eq!(last_error(), "sluice_md5: in_schema is NULL");
    assert!(a.is_released());
    assert_eq!(values.strong_count(), 1, "released");

    // Passing the (now released) struct again is refused without a release.
    let schema = FFI_ArrowSchema::try_from(Field::new("s", DataType::Utf8, true)).unwrap();
    let (mut out, mut out_schema) = (FFI_ArrowArray::empty(), FFI_ArrowSchema::empty());
    // SAFETY: all pointers valid.
    let rc = unsafe { sluice_md5(&mut a, &schema, &mut out, &mut out_schema) };
    assert_eq!(rc, sluice_status::SLUICE_ERR_INVALID_ARGUMENT as i32);
    assert!(last_error().contains("already released"), "{}", last_error());
    assert_eq!(values.strong_count(), 1);
}

#[test]
fn a_wrong_type_is_refused_and_the_input_released() {
    let (mut a, values) = tracked_empty_int32();
    let schema = FFI_ArrowSchema::try_from(Field::new("i", DataType::Int32, true)).unwrap();
    let (mut out, mut out_schema) = (FFI_ArrowArray::empty(), FFI_ArrowSchema::empty());
    // SAFETY: all pointers valid.
    let rc = unsafe { sluice_md5(&mut a, &schema, &mut out, &mut out_schema) };
    assert_eq!(rc, sluice_status::SLUICE_ERR_UNSUPPORTED_TYPE as i32);
    assert_eq!(last_error(), "sluice_md5: in must be Utf8, LargeUtf8 or Utf8View (or a binary type), got Int32");
    assert!(out.is_released(), "outputs are not written on error");
    assert_eq!(values.strong_count(), 1, "released");
}

/// The codes the C header documents, for each kind of engine error.
#[test]
fn engine_errors_map_to_their_documented_codes() {
    use sluice_engine::Error as E;
    use sluice_status::*;
    let code = |e: E| FfiError::from(e).code;
    let parse = E::Parse { expression: Some(1), text: "md5(".into(), pos: 4, message: "expected".into() };
    assert_eq!(code(parse), SLUICE_ERR_INVALID_ARGUMENT);
    assert_eq!(code(E::bind("unknown column")), SLUICE_ERR_INVALID_ARGUMENT);
    assert_eq!(code(E::Spec("keys=".into())), SLUICE_ERR_INVALID_ARGUMENT);
    assert_eq!(code(E::UnsupportedType("INT".into())), SLUICE_ERR_UNSUPPORTED_TYPE);
    let utf8 = sluice_kernels::Error::InvalidUtf8 { row: 3, valid_up_to: 0 };
    assert_eq!(code(E::Kernel(utf8)), SLUICE_ERR_INVALID_UTF8);
    let bad_field = sluice_transpose::Error::InvalidUtf8 { row: 1, field: "s".into() };
    assert_eq!(code(E::Transpose(bad_field)), SLUICE_ERR_INVALID_UTF8);
    let truncated = sluice_transpose::Error::TruncatedRow { row: 0, size: 4, needed: 8 };
    assert_eq!(code(E::Transpose(truncated)), SLUICE_ERR_MALFORMED_ROW);
    let budget = sluice_keyed::Error::StateBudgetExceeded { needed: 9, budget: 8 };
    assert_eq!(code(E::Keyed(budget)), SLUICE_ERR_STATE_BUDGET);
    let corrupt = sluice_keyed::Error::CorruptSnapshot { offset: 0, reason: "short".into() };
    let e = FfiError::from(E::Restore { blob: 2, source: corrupt });
    assert_eq!(e.code, SLUICE_ERR_CORRUPT_SNAPSHOT);
    assert!(e.message.starts_with("blob 2: "), "{}", e.message);
}

fn split(s: &dyn Array, sep: &dyn Array, idx: &dyn Array) -> Vec<Option<String>> {
    let ((mut a, sa), (mut b, sb), (mut c, sc)) = (export(s), export(sep), export(idx));
    let (mut out, mut out_schema) = (FFI_ArrowArray::empty(), FFI_ArrowSchema::empty());
    // SAFETY: valid exported arrays and schemas, fresh output slots.
    let rc = unsafe { sluice_split_index(&mut a, &sa, &mut b, &sb, &mut c, &sc, &mut out, &mut out_schema) };
    assert_eq!(rc, 0, "{}", last_error());
    let r = import(out, &out_schema);
    let r = r.as_any().downcast_ref::<StringArray>().unwrap();
    r.iter().map(|v| v.map(str::to_string)).collect()
}

fn like(s: &dyn Array, p: &dyn Array, escape: Option<&str>) -> Result<Vec<Option<bool>>, (i32, String)> {
    let ((mut a, sa), (mut b, sb)) = (export(s), export(p));
    let (mut out, mut out_schema) = (FFI_ArrowArray::empty(), FFI_ArrowSchema::empty());
    let esc = escape.map(|e| CString::new(e).unwrap());
    let esc_ptr = esc.as_ref().map_or(ptr::null(), |e| e.as_ptr());
    // SAFETY: valid exported arrays and schemas, fresh output slots, the
    // escape NUL-terminated or NULL.
    let rc = unsafe { sluice_like(&mut a, &sa, &mut b, &sb, esc_ptr, &mut out, &mut out_schema) };
    if rc != 0 {
        return Err((rc, last_error()));
    }
    let r = import(out, &out_schema);
    Ok(r.as_any().downcast_ref::<BooleanArray>().unwrap().iter().collect())
}

/// Flink's `SPLIT_INDEX(String, int, int)`: an Int32 separator is a
/// character code.
#[test]
fn split_index_takes_an_int32_character_code() {
    let s = StringArray::from(vec![Some("a,b,,c"), None, Some("xébé"), Some("")]);
    let idx = Int32Array::from(vec![1]);
    assert_eq!(split(&s, &Int32Array::from(vec![44]), &idx), vec![Some("b".into()), None, None, None]);
    assert_eq!(split(&s, &Int32Array::from(vec![233]), &idx), vec![None, None, Some("b".into()), None]);
    // outside 1..=255, or NULL: NULL
    assert_eq!(split(&s, &Int32Array::from(vec![0]), &idx), vec![None; 4]);
    assert_eq!(split(&s, &Int32Array::from(vec![None]), &idx), vec![None; 4]);
    let codes = Int32Array::from(vec![Some(44), Some(44), Some(256), None]);
    assert_eq!(split(&s, &codes, &Int32Array::from(vec![0])), vec![Some("a".into()), None, None, None]);
}

/// Flink's `SqlLikeUtils.sqlToRegexLike` / `LikeCallGen` for the escape.
#[test]
fn like_invalid_escape_is_per_row_for_a_column_pattern() {
    let s = StringArray::from(vec![Some("a"), None]);
    let p = StringArray::from(vec![None, Some("a")]);
    assert_eq!(like(&s, &p, Some("ab")), Ok(vec![None, None]));
    assert_eq!(like(&s, &p, Some("")), Ok(vec![None, None]));
    let p = StringArray::from(vec![Some("a"), Some("a")]);
    let flink = sluice_status::SLUICE_ERR_FLINK as i32;
    assert_eq!(like(&s, &p, Some("ab")), Err((flink, "sluice_like: Invalid escape character 'ab'".into())));
    // A literal (length-1) pattern fails the call, as Flink's code
    // generation does.
    let lit = StringArray::from(vec!["a"]);
    assert_eq!(like(&s, &lit, Some("")), Err((flink, "sluice_like: Invalid escape character ''".into())));
    assert_eq!(like(&s, &lit, Some("!")), Ok(vec![Some(true), None]));
}

#[test]
fn offset_zero_copies_only_sliced_arrays() {
    let a = StringArray::from(vec![Some("a"), None, Some("ccc"), Some("dd")]);
    let same = offset_zero(a.to_data()).unwrap();
    assert_eq!(same.buffers()[0].as_ptr(), a.to_data().buffers()[0].as_ptr());

    let sliced = a.slice(1, 3);
    let norm = offset_zero(sliced.to_data()).unwrap();
    assert_eq!(norm.offset(), 0);
    assert_eq!(StringArray::from(norm), sliced);
}

#[test]
fn offset_zero_reaches_struct_children() {
    let s = StructArray::from(vec![(
        Arc::new(Field::new("i", DataType::Int32, true)),
        Arc::new(Int32Array::from(vec![1, 2, 3])) as ArrayRef,
    )]);
    let sliced = s.slice(1, 2);
    let norm = offset_zero(sliced.to_data()).unwrap();
    assert!(norm.offset() == 0 && norm.child_data().iter().all(|c| c.offset() == 0));
    assert_eq!(StructArray::from(norm), sliced);
}

#[test]
fn round_trip_and_double_free_is_harmless() {
    let mut b = sluice_buffer::from_i64s(&[0, 5, 9]).unwrap();
    assert_eq!(b.len, 24);
    // SAFETY: b is a live buffer from `from_i64s`.
    let v = unsafe { std::slice::from_raw_parts(b.ptr.cast::<i64>(), 3) };
    assert_eq!(v, &[0, 5, 9]);
    // SAFETY: written by us.
    unsafe { sluice_buffer_free(&mut b) };
    assert!(b.ptr.is_null());
    // SAFETY: now empty.
    unsafe { sluice_buffer_free(&mut b) };
    // SAFETY: NULL is a no-op.
    unsafe { sluice_buffer_free(ptr::null_mut()) };
}

#[test]
fn handed_over_vectors_read_back_and_free() {
    let mut o = sluice_buffer::from_i64_vec(vec![0, 7, 42]);
    assert_eq!((o.len, o.cap % 8), (24, 0));
    // SAFETY: a live buffer of three i64s.
    assert_eq!(unsafe { std::slice::from_raw_parts(o.ptr.cast::<i64>(), 3) }, &[0, 7, 42]);
    let mut v: Vec<u8> = (0..100u8).collect();
    let mut d = sluice_buffer::take_bytes(&mut v).unwrap();
    assert!(d.ptr.addr().is_multiple_of(8), "buffers are aligned to 8");
    // SAFETY: a live buffer of `len` bytes.
    assert_eq!(unsafe { std::slice::from_raw_parts(d.ptr, d.len as usize) }, &(0..100u8).collect::<Vec<_>>()[..]);
    assert_eq!(v.is_empty(), cfg!(feature = "mimalloc"));
    // SAFETY: written by us.
    unsafe {
        sluice_buffer_free(&mut o);
        sluice_buffer_free(&mut d);
    }
    assert!(sluice_buffer::from_i64_vec(Vec::new()).ptr.is_null());
    assert!(sluice_buffer::take_bytes(&mut Vec::new()).unwrap().ptr.is_null());
}
