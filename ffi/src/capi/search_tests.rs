//! The search entry points through the C ABI on the classes of issue 20:
//! every argument type the header documents is accepted, and the results
//! are Flink's (`SqlFunctionUtils.splitIndex(String, int, int)`,
//! `SqlLikeUtils.sqlToRegexLike` / `LikeCallGen` for the escape).

use std::ffi::{CStr, CString};

use arrow_array::ffi::{from_ffi, FFI_ArrowArray, FFI_ArrowSchema};
use arrow_array::{make_array, Array, ArrayRef, BooleanArray, Int32Array, StringArray};
use arrow_schema::Field;

use super::{sluice_like, sluice_split_index};
use crate::capi::error::{sluice_last_error, sluice_status};

fn export(a: &dyn Array) -> (FFI_ArrowArray, FFI_ArrowSchema) {
    let field = Field::new("a", a.data_type().clone(), true);
    (FFI_ArrowArray::new(&a.to_data()), FFI_ArrowSchema::try_from(&field).unwrap())
}

fn import(out: FFI_ArrowArray, schema: &FFI_ArrowSchema) -> ArrayRef {
    // SAFETY: `out` and `schema` were just written by a sluice entry point.
    make_array(unsafe { from_ffi(out, schema) }.unwrap())
}

fn last_error() -> String {
    // SAFETY: never NULL, valid until the next call on this thread.
    unsafe { CStr::from_ptr(sluice_last_error()) }.to_string_lossy().into_owned()
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
    let esc_ptr = esc.as_ref().map_or(std::ptr::null(), |e| e.as_ptr());
    // SAFETY: valid exported arrays and schemas, fresh output slots, the
    // escape NUL-terminated or NULL.
    let rc = unsafe { sluice_like(&mut a, &sa, &mut b, &sb, esc_ptr, &mut out, &mut out_schema) };
    if rc != 0 {
        return Err((rc, last_error()));
    }
    let r = import(out, &out_schema);
    Ok(r.as_any().downcast_ref::<BooleanArray>().unwrap().iter().collect())
}

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
