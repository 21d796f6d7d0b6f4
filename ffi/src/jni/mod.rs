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
//!   ([`crate::error::sluice_status`]); the native method then returns a
//!   default value (0 / null) that the Java side never uses;
//! * no panic reaches the JVM: each entry point runs inside [`jni_boundary!`],
//!   which catches it and throws a `SluiceException` with
//!   `SLUICE_ERR_PANIC` instead;
//! * native objects behind a Java handle are `Box`es whose address travels as
//!   a `long`; Java frees each exactly once (`NativeHandle.close()`, with a
//!   `java.lang.ref.Cleaner` as the safety net), and every entry point
//!   rejects a zero handle.
//!
//! Modules: [`boundary`] (exceptions and the panic guard), [`handle`]
//! (boxed native objects as `long`s), [`rows`] (a batch of `BinaryRowData`
//! in, rows out), [`columns`] (the Calc's column handover), [`library`] (version), and one
//! module per Java class family ([`calc_lazy`]: the Calc over rows whose strings come as UTF-16).

#[macro_use]
pub mod boundary;
pub mod calc;
pub mod calc_lazy;
pub mod columns;
pub mod handle;
pub mod keyed;
pub mod library;
pub mod rows;
