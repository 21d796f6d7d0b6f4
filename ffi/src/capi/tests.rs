//! The panic boundary, through a hidden entry point that panics (no real
//! one can): the panic becomes `SLUICE_ERR_PANIC` with its message, and a
//! moved-in array is released during unwinding. The rest of the C ABI is
//! tested through its public items in `tests/capi.rs`.

use std::ffi::CStr;

use arrow_array::ffi::FFI_ArrowArray;
use arrow_array::{Array, Int32Array};
use arrow_buffer::{Buffer, ScalarBuffer};

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

#[test]
fn a_panic_becomes_sluice_err_panic_with_its_message_and_releases_inputs() {
    // The values buffer's strong count falls back to 1 once the library
    // has released the array.
    let values = Buffer::from_vec(Vec::<i32>::new());
    let mut a = FFI_ArrowArray::new(&Int32Array::new(ScalarBuffer::new(values.clone(), 0, 0), None).to_data());
    assert_eq!(values.strong_count(), 2);
    // SAFETY: `a` is a live array we give up.
    let rc = unsafe { sluice_test_panic(&mut a) };
    assert_eq!(rc, sluice_status::SLUICE_ERR_PANIC as i32);
    let msg = last_error();
    assert!(msg.starts_with("sluice_test_panic: panic inside sluice"), "{msg}");
    assert!(msg.ends_with("boom 42"), "{msg}");
    assert!(a.is_released(), "the caller's struct is marked moved");
    assert_eq!(values.strong_count(), 1, "released during unwinding");
    assert_eq!(sluice_test_ok(), 0);
    assert_eq!(last_error(), "", "a success clears the message");
}
