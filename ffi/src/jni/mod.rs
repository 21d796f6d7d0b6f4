//! The JNI entry points of the Flink jar (`java/`, artifact `sluice-flink`).
//!
//! One `libsluice` serves C and Java: with the `jni` feature (on by default)
//! the library also exports `Java_io_sluice_jni_*` symbols for the `native`
//! methods of the classes in `java/src/main/java/io/sluice/jni/`.
//!
//! The contract, stated once:
//!
//! * every native error becomes a Java exception, `io.sluice.jni.SluiceException`,
//!   carrying the native message and the C ABI's status code
//!   ([`crate::capi::error::sluice_status`]); the native method then returns a
//!   default value (0 / null) that the Java side never uses;
//! * no panic reaches the JVM: each entry point runs inside `jni_boundary!`,
//!   which catches it and throws a `SluiceException` with
//!   `SLUICE_ERR_PANIC` instead;
//! * native objects behind a Java handle are `Box`es whose address travels as
//!   a `long`; Java frees each exactly once (`NativeHandle.close()`, with a
//!   `java.lang.ref.Cleaner` as the safety net), and every entry point
//!   rejects a zero handle.
//!
//! Modules: one per Java class with native methods ([`sluice_native`]:
//! `SluiceNative`, [`calc_native`]: `CalcNative`, [`keyed_native`]:
//! `KeyedNative`, [`join_native`]: `JoinNative`, [`rows`]: the `RowBatch`
//! rows in and `RowBlock` rows out they share), and the helpers they use:
//! `blobs` (an input's names and types, state blobs in and out),
//! [`boundary`] (exceptions and the panic guard), `arrays` (checked
//! elements of an `Object[]` of primitive arrays), [`handle`] (boxed native
//! objects as `long`s), [`pin`] (the one guard over pinned Java arrays),
//! [`strings`] (`String[]` in and out). The `use` graph has no cycle: the
//! helpers use only `capi::error` and (`rows`) `pin` and `arrays`,
//! (`blobs`) `strings`; the class modules use the helpers; `calc_native`'s
//! children use only their `mod.rs` and the helpers.
//!
//! What every class declares alike is written once, as a macro beside the
//! helper it wraps: `jni_boundary!` ([`boundary`]: the panic guard and
//! exception), `row_batch_entry!` ([`rows`]: a method that takes a
//! `RowBatch`) and `key_group_entries!` (`blobs`: `snapshotKeyGroups`,
//! `restore`, `retainedBytes` and `free` of a keyed class).

mod arrays;
#[macro_use]
mod blobs;
#[macro_use]
pub mod boundary;
#[macro_use]
pub mod rows;
pub mod calc_native;
pub mod handle;
pub mod join_native;
pub mod keyed_native;
pub mod pin;
pub mod sluice_native;
pub mod strings;
