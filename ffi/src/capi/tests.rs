//! Unit tests of the boundary itself: panics, last_error per thread,
//! ownership of moved-in arrays on error paths.

use std::ffi::CStr;
use std::ptr;
use std::sync::atomic::{AtomicUsize, Ordering};

use arrow_array::ffi::{FFI_ArrowArray, FFI_ArrowSchema};
use arrow_schema::{DataType, Field};

use crate::capi::arrow_c::take_array;
use crate::capi::error::{sluice_last_error, sluice_status};

/// A hidden, test-only entry point whose body panics after taking an
/// array, exactly like a real entry point would if a kernel panicked.
unsafe extern "C" fn sluice_test_panic(input: *mut FFI_ArrowArray) -> i32 {
    // SAFETY: test contract.
    ffi_boundary!("sluice_test_panic", unsafe {
        let _owned = take_array(input, "in")?;
        panic!("boom {}", 42)
    })
}

extern "C" fn sluice_test_ok() -> i32 {
    ffi_boundary!("sluice_test_ok", Ok(()))
}

fn last_error() -> String {
    // SAFETY: sluice_last_error never returns NULL and the string is valid
    // until this thread's next call.
    unsafe { CStr::from_ptr(sluice_last_error()) }.to_string_lossy().into_owned()
}

/// Layout-identical stand-in for `struct ArrowArray` with a counting
/// release callback.
#[repr(C)]
struct CountedArray {
    length: i64,
    null_count: i64,
    offset: i64,
    n_buffers: i64,
    n_children: i64,
    buffers: *mut *const u8,
    children: *mut *mut CountedArray,
    dictionary: *mut CountedArray,
    release: Option<unsafe extern "C" fn(*mut CountedArray)>,
    private_data: *mut std::ffi::c_void,
}

unsafe extern "C" fn count_release(a: *mut CountedArray) {
    // SAFETY: called by the consumer on a live struct whose private_data is
    // the test's counter, which outlives the array.
    unsafe {
        (*(*a).private_data.cast::<AtomicUsize>()).fetch_add(1, Ordering::SeqCst);
        (*a).release = None;
    }
}

/// An empty Int32 array whose releases are counted in `counter`.
fn counted_empty_int32(counter: &'static AtomicUsize) -> FFI_ArrowArray {
    let c = CountedArray {
        length: 0,
        null_count: 0,
        offset: 0,
        n_buffers: 2,
        n_children: 0,
        buffers: ptr::null_mut(),
        children: ptr::null_mut(),
        dictionary: ptr::null_mut(),
        release: Some(count_release),
        private_data: ptr::from_ref(counter).cast_mut().cast(),
    };
    // SAFETY: same size and C layout as FFI_ArrowArray.
    unsafe { std::mem::transmute::<CountedArray, FFI_ArrowArray>(c) }
}

#[test]
fn a_panic_becomes_sluice_err_panic_with_its_message_and_releases_inputs() {
    static RELEASED: AtomicUsize = AtomicUsize::new(0);
    let before = 0;
    let mut a = counted_empty_int32(&RELEASED);
    // SAFETY: `a` is a live array we give up.
    let rc = unsafe { sluice_test_panic(&mut a) };
    assert_eq!(rc, sluice_status::SLUICE_ERR_PANIC as i32);
    let msg = last_error();
    assert!(msg.starts_with("sluice_test_panic: panic inside sluice"), "{msg}");
    assert!(msg.ends_with("boom 42"), "{msg}");
    assert!(a.is_released(), "the caller's struct is marked moved");
    assert_eq!(RELEASED.load(Ordering::SeqCst), before + 1, "released exactly once during unwinding");
    assert_eq!(sluice_test_ok(), 0);
    assert_eq!(last_error(), "", "a success clears the message");
}

#[test]
fn last_error_is_per_thread() {
    // SAFETY: NULL input is an error path that touches nothing.
    let rc = unsafe { crate::sluice_md5(ptr::null_mut(), ptr::null(), ptr::null_mut(), ptr::null_mut()) };
    assert_eq!(rc, sluice_status::SLUICE_ERR_NULL_POINTER as i32);
    assert_eq!(last_error(), "sluice_md5: in is NULL");
    let other = std::thread::spawn(|| {
        let fresh = last_error();
        // SAFETY: as above.
        let rc = unsafe { crate::sluice_sha1(ptr::null_mut(), ptr::null(), ptr::null_mut(), ptr::null_mut()) };
        (fresh, rc, last_error())
    })
    .join()
    .unwrap();
    assert_eq!(other, (String::new(), 1, "sluice_sha1: in is NULL".to_string()));
    assert_eq!(last_error(), "sluice_md5: in is NULL", "another thread's error does not leak here");
}

#[test]
fn an_input_is_released_once_when_a_later_argument_is_bad() {
    static RELEASED: AtomicUsize = AtomicUsize::new(0);
    let before = 0;
    let mut a = counted_empty_int32(&RELEASED);
    // NULL in_schema: the array was non-NULL, so it is taken and released.
    // SAFETY: `a` is live; the NULLs are the error under test.
    let rc = unsafe { crate::sluice_md5(&mut a, ptr::null(), ptr::null_mut(), ptr::null_mut()) };
    assert_eq!(rc, sluice_status::SLUICE_ERR_NULL_POINTER as i32);
    assert_eq!(last_error(), "sluice_md5: in_schema is NULL");
    assert!(a.is_released());
    assert_eq!(RELEASED.load(Ordering::SeqCst), before + 1);

    // Passing the (now released) struct again is refused without a release.
    let schema = FFI_ArrowSchema::try_from(Field::new("s", DataType::Utf8, true)).unwrap();
    let (mut out, mut out_schema) = (FFI_ArrowArray::empty(), FFI_ArrowSchema::empty());
    // SAFETY: all pointers valid.
    let rc = unsafe { crate::sluice_md5(&mut a, &schema, &mut out, &mut out_schema) };
    assert_eq!(rc, sluice_status::SLUICE_ERR_INVALID_ARGUMENT as i32);
    assert!(last_error().contains("already released"), "{}", last_error());
    assert_eq!(RELEASED.load(Ordering::SeqCst), before + 1);
}

#[test]
fn a_wrong_type_is_refused_and_the_input_released() {
    static RELEASED: AtomicUsize = AtomicUsize::new(0);
    let before = 0;
    let mut a = counted_empty_int32(&RELEASED);
    let schema = FFI_ArrowSchema::try_from(Field::new("i", DataType::Int32, true)).unwrap();
    let (mut out, mut out_schema) = (FFI_ArrowArray::empty(), FFI_ArrowSchema::empty());
    // SAFETY: all pointers valid.
    let rc = unsafe { crate::sluice_md5(&mut a, &schema, &mut out, &mut out_schema) };
    assert_eq!(rc, sluice_status::SLUICE_ERR_UNSUPPORTED_TYPE as i32);
    assert_eq!(last_error(), "sluice_md5: in must be Utf8, LargeUtf8 or Utf8View (or a binary type), got Int32");
    assert!(out.is_released(), "outputs are not written on error");
    assert_eq!(RELEASED.load(Ordering::SeqCst), before + 1);
}
