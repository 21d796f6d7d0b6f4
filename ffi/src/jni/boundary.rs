//! Java exceptions for native errors, and the panic guard every JNI entry
//! point runs inside.

use std::any::Any;

use jni::objects::{JString, JThrowable};
use jni::JNIEnv;

use crate::capi::error::{sluice_status, FfiError};

/// The Java class every native error is thrown as.
pub const EXCEPTION_CLASS: &str = "io/sluice/jni/SluiceException";

/// Runs `$body` (an expression of type `FfiResult<T>`) with `$env` (a
/// `JNIEnv` binding) usable inside, and returns its value; on `Err` or a
/// panic it throws `SluiceException` and returns `$default`.
///
/// `$name` is the Java method's name, used as the message prefix.
#[macro_export]
#[doc(hidden)]
macro_rules! jni_boundary {
    ($env:ident, $name:expr, $default:expr, $body:expr) => {{
        let result =
            ::std::panic::catch_unwind(::std::panic::AssertUnwindSafe(|| -> $crate::capi::error::FfiResult<_> {
                $body
            }));
        match result {
            Ok(Ok(value)) => value,
            Ok(Err(e)) => {
                $crate::jni::boundary::throw(&mut $env, e.in_function($name));
                $default
            }
            Err(payload) => {
                $crate::jni::boundary::throw_panic(&mut $env, $name, payload);
                $default
            }
        }
    }};
}

/// Declares a native method: `extern "system"`, `#[no_mangle]`, the
/// `JNIEnv` (bound to `$env`) and the unused `JClass` first, then the
/// method's own arguments, and the body inside [`jni_boundary!`], so that
/// every entry point is written alike.
///
/// With `$h: &mut T` as the first argument the method takes the Java
/// `long handle` and the body sees the live `T` behind it as `$h`
/// ([`handle_mut`](crate::jni::handle::handle_mut), named by
/// [`JavaClass::CLASS`](crate::jni::handle::JavaClass) in errors).
macro_rules! jni_entry {
    (
        $(#[$meta:meta])*
        fn $name:ident($env:ident, $h:ident: &mut $ty:ty $(, $arg:ident: $arg_ty:ty)* $(,)?) $(-> $ret:ty)?
        = ($what:expr, $default:expr) $body:block
    ) => {
        jni_entry! {
            $(#[$meta])*
            fn $name($env, handle: jni::sys::jlong $(, $arg: $arg_ty)*) $(-> $ret)? = ($what, $default) {
                // SAFETY: `handle` is 0 or came from this class's `create`;
                // Java frees it once and serialises the calls on it.
                let $h = unsafe {
                    $crate::jni::handle::handle_mut::<$ty>(handle, <$ty as $crate::jni::handle::JavaClass>::CLASS)
                }?;
                $body
            }
        }
    };
    (
        $(#[$meta:meta])*
        fn $name:ident($env:ident $(, $arg:ident: $arg_ty:ty)* $(,)?) $(-> $ret:ty)?
        = ($what:expr, $default:expr) $body:block
    ) => {
        $(#[$meta])*
        #[no_mangle]
        #[allow(clippy::too_many_arguments)]
        pub extern "system" fn $name<'l>(
            mut $env: jni::JNIEnv<'l>,
            _class: jni::objects::JClass<'l>,
            $($arg: $arg_ty,)*
        ) $(-> $ret)? {
            jni_boundary!($env, $what, $default, $body)
        }
    };
}

/// Throws `e` as a `SluiceException(code, message)`.
///
/// When a failed JNI call already left a Java exception pending, a
/// `java.lang.Error` (`OutOfMemoryError`, ...) stays as it is; any other
/// exception becomes the cause of the `SluiceException`, whose message adds
/// its text, so a native method throws nothing else.
pub fn throw(env: &mut JNIEnv<'_>, mut e: FfiError) {
    let mut cause = None;
    if env.exception_check().unwrap_or(false) {
        let Ok(pending) = env.exception_occurred() else { return };
        if env.exception_clear().is_err() {
            return;
        }
        if env.is_instance_of(&pending, "java/lang/Error").unwrap_or(true) {
            let _ = env.throw(pending);
            return;
        }
        if let Some(text) = describe(env, &pending) {
            e.message = format!("{}: {text}", e.message);
        }
        cause = Some(pending);
    }
    let code = e.code as i32;
    let thrown = env.find_class(EXCEPTION_CLASS).and_then(|class| {
        let message = env.new_string(&e.message)?;
        let obj = env.new_object(
            class,
            "(ILjava/lang/String;)V",
            &[jni::objects::JValue::Int(code), jni::objects::JValue::Object(&message)],
        )?;
        if let Some(c) = &cause {
            env.call_method(
                &obj,
                "initCause",
                "(Ljava/lang/Throwable;)Ljava/lang/Throwable;",
                &[jni::objects::JValue::Object(c)],
            )?;
        }
        env.throw(jni::objects::JThrowable::from(obj))
    });
    if thrown.is_err() && !env.exception_check().unwrap_or(false) {
        // The exception class is missing (a foreign caller): a plain
        // RuntimeException still carries the message.
        let _ = env.throw_new("java/lang/RuntimeException", &e.message);
    }
}

/// `t.toString()`, or `None` if that fails (its exception is cleared).
fn describe(env: &mut JNIEnv<'_>, t: &JThrowable<'_>) -> Option<String> {
    let text = env
        .call_method(t, "toString", "()Ljava/lang/String;", &[])
        .and_then(|v| v.l())
        .and_then(|o| env.get_string(&JString::from(o)).map(String::from));
    if text.is_err() && env.exception_check().unwrap_or(false) {
        let _ = env.exception_clear();
    }
    text.ok()
}

/// Throws a caught panic as `SluiceException(SLUICE_ERR_PANIC, ...)`.
pub fn throw_panic(env: &mut JNIEnv<'_>, name: &str, payload: Box<dyn Any + Send>) {
    throw(env, FfiError::new(sluice_status::SLUICE_ERR_PANIC, crate::capi::panic::panic_message(name, payload)));
}

impl From<jni::errors::Error> for FfiError {
    fn from(e: jni::errors::Error) -> Self {
        FfiError::new(sluice_status::SLUICE_ERR_INVALID_ARGUMENT, format!("JNI: {e}"))
    }
}
