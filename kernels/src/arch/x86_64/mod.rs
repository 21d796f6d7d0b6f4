//! x86_64 implementations and their runtime dispatch.
//!
//! Like memchr's `unsafe_ifunc!`, the chosen implementation is cached as a
//! function pointer in an `AtomicPtr`: it starts out pointing at `detect`,
//! which runs CPU feature detection once, stores the best implementation and
//! forwards the call. Later calls are one relaxed load and an indirect call.
//! Callers keep a short-input scalar path in front of the load (as simdutf8
//! does), so tiny strings never pay for the indirect call.

pub(crate) mod avx2;
pub(crate) mod avx512;
pub(crate) mod encode;

use core::sync::atomic::{AtomicPtr, Ordering};

use crate::arch::{EncodeFn, Level};

/// The best UTF-16 → UTF-8 encoder for this CPU.
pub(crate) fn best_encode() -> EncodeFn {
    match Level::detected() {
        Level::Avx512 => encode::encode_avx512,
        Level::Avx2 => encode::encode_avx2,
        _ => encode::encode_sse2,
    }
}

static ENCODE: AtomicPtr<()> = AtomicPtr::new(detect_encode as *mut ());

/// First call through [`ENCODE`]: detect, cache, forward.
///
/// # Safety
///
/// The [`EncodeFn`] contract.
unsafe fn detect_encode(src: *const u16, len: usize, dst: *mut u8) -> usize {
    let f = best_encode();
    ENCODE.store(f as *mut (), Ordering::Relaxed);
    // SAFETY: `best_encode` only returns implementations whose target
    // features the CPU has; the pointer contract is the caller's.
    unsafe { f(src, len, dst) }
}

/// The cached encoder (after the first call, the best one for this CPU).
#[inline]
pub(crate) fn encode_fn() -> EncodeFn {
    let p = ENCODE.load(Ordering::Relaxed);
    // SAFETY: ENCODE only ever holds `detect_encode` or a value returned by
    // `best_encode`, all of type `EncodeFn`; function pointers round-trip
    // through `*mut ()` on every platform Rust supports.
    unsafe { core::mem::transmute::<*mut (), EncodeFn>(p) }
}
