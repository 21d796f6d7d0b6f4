//! `io.sluice.jni.SluiceNative`: library identity and the checks the Java
//! loader runs right after `System.load`.

use jni::objects::JClass;
use jni::sys::{jint, jlong, jstring};
use jni::JNIEnv;

use crate::capi::error::{sluice_status, FfiError};

/// The JNI contract version: the Java side refuses a library whose value
/// differs (`NativeLibrary.ABI_VERSION`). Bump on any change of a native
/// method's signature or meaning.
pub const JNI_ABI_VERSION: jint = 1;

jni_entry! {
    /// `static native String version()`: `"sluice <crate version>"`.
    fn Java_io_sluice_jni_SluiceNative_version(env) -> jstring = ("version", std::ptr::null_mut()) {
        let s = env.new_string(concat!("sluice ", env!("CARGO_PKG_VERSION")))?;
        Ok(s.into_raw())
    }
}

/// `static native int abiVersion()`: [`JNI_ABI_VERSION`].
#[no_mangle]
pub extern "system" fn Java_io_sluice_jni_SluiceNative_abiVersion<'l>(_env: JNIEnv<'l>, _class: JClass<'l>) -> jint {
    JNI_ABI_VERSION
}

/// `static native long liveHandles0()`: the native objects behind Java
/// handles alive in this process ([`crate::jni::handle::live_handles`]).
#[no_mangle]
pub extern "system" fn Java_io_sluice_jni_SluiceNative_liveHandles0<'l>(_env: JNIEnv<'l>, _class: JClass<'l>) -> jlong {
    crate::jni::handle::live_handles()
}

jni_entry! {
    /// `static native void selfTest0(int mode)`: proves the boundary from Java.
    /// Mode 0 returns normally, 1 fails with an invalid-argument error, 2
    /// panics (caught and thrown as `SLUICE_ERR_PANIC`).
    fn Java_io_sluice_jni_SluiceNative_selfTest0(env, mode: jint) = ("selfTest", ()) {
        match mode {
            0 => Ok(()),
            1 => Err(FfiError::new(sluice_status::SLUICE_ERR_INVALID_ARGUMENT, "self-test error (mode 1)")),
            2 => panic!("self-test panic (mode 2)"),
            other => Err(FfiError::invalid(format!("unknown self-test mode {other}"))),
        }
    }
}
