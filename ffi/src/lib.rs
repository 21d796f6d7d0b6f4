//! The C ABI of sluice: `libsluice.so` / `libsluice.a` + `include/sluice.h`.
//!
//! Every kernel of `sluice-kernels` is reachable from C, C++ or any language
//! with a C FFI through the [Arrow C Data Interface]: inputs and outputs are
//! `struct ArrowArray` / `struct ArrowSchema`, so an engine hands its columns
//! over without copying them and gets Arrow columns back.
//!
//! The contract, stated once (and at the top of `include/sluice.h`):
//!
//! * every call returns an `int32_t` status, [`sluice_status::SLUICE_OK`] (0)
//!   on success; on error [`sluice_last_error`] returns the calling thread's
//!   message until that thread's next call;
//! * each input `struct ArrowArray *` is **moved** into the callee, on success
//!   and on error, as soon as it is known to be non-NULL; the caller's struct
//!   is left marked released (`release == NULL`); each input
//!   `const struct ArrowSchema *` is borrowed;
//! * outputs are moved out to the caller, who releases them; on error nothing
//!   is written to them;
//! * no panic unwinds across the boundary ([`sluice_status::SLUICE_ERR_PANIC`]);
//! * Flink types travel as field metadata `flink.type`
//!   (`LogicalType#asSerializableString()`), honoured on inputs and set on
//!   every output field.
//!
//! # Features
//!
//! * `mimalloc` (default): mimalloc is the global allocator of the library,
//!   with the purge policy of `alloc_policy` (freed batch outputs stay
//!   mapped for the next batch). This is what the C library is built with. A Rust program that links
//!   this crate's rlib and wants its own allocator depends on it with
//!   `default-features = false`.
//!
//! # Layout
//!
//! Bindings only: [`capi`] (the C ABI, one module per C concept) and `jni`
//! (the Java entry points, one module per Java class, with the `jni`
//! feature). Both call `sluice-engine`, where the Calc programs and keyed
//! operators live; the symbols are re-exported here.
//!
//! [Arrow C Data Interface]: https://arrow.apache.org/docs/format/CDataInterface.html

#![allow(non_camel_case_types)]

pub mod capi;
#[cfg(feature = "jni")]
pub mod jni;

pub use capi::buffer::{sluice_buffer, sluice_buffer_free};
pub use capi::concat::{sluice_concat, sluice_concat_ws};
pub use capi::digest::{sluice_md5, sluice_sha1, sluice_sha2};
pub use capi::encode::sluice_utf16_to_utf8;
pub use capi::error::{sluice_last_error, sluice_status};
pub use capi::key_groups::sluice_key_groups;
pub use capi::keyed_operator::{
    sluice_keyed, sluice_keyed_advance_processing_time, sluice_keyed_advance_watermark, sluice_keyed_create,
    sluice_keyed_free, sluice_keyed_push, sluice_keyed_restore, sluice_keyed_snapshot,
    sluice_keyed_snapshot_key_groups, sluice_keyed_state_size,
};
pub use capi::row_converter::{
    sluice_row_converter, sluice_row_converter_arrow_to_rows, sluice_row_converter_create, sluice_row_converter_free,
    sluice_row_converter_rows_to_arrow,
};
pub use capi::rows::{sluice_arrow_to_rows, sluice_rows_to_arrow};
pub use capi::search::{sluice_like, sluice_locate, sluice_position, sluice_replace, sluice_split_index};
pub use capi::version::sluice_version;

#[cfg(feature = "mimalloc")]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
