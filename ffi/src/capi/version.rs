//! `sluice_version`.

use std::ffi::c_char;

/// `"sluice <crate version>"`, NUL-terminated, static.
static VERSION: &str = concat!("sluice ", env!("CARGO_PKG_VERSION"), "\0");

/// The library's version string, e.g. `"sluice 0.1.0"`. Static storage;
/// never NULL; does not touch `sluice_last_error`.
#[no_mangle]
pub extern "C" fn sluice_version() -> *const c_char {
    VERSION.as_ptr().cast()
}
