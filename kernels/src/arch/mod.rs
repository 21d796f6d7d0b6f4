//! Per-architecture implementations, memchr style: `all/` is portable code
//! (the scalar fallback, which doubles as the reference the SIMD paths are
//! tested against), `x86_64/` holds the `std::arch` code (`x86_64/<isa>/`
//! per instruction set where an ISA has its own types, as the multi-buffer
//! lanes do) and the runtime dispatch that picks among it. [`cpu`] detects
//! the CPU once for every kernel and names its [`Level`]; [`lanes`] is the
//! vector interface the multi-buffer digests are written against.

pub(crate) mod all;
pub(crate) mod cpu;
pub(crate) mod lanes;
#[cfg(target_arch = "x86_64")]
pub(crate) mod x86_64;

pub use cpu::Level;

/// A UTF-16 → UTF-8 encoder: `f(src, len, dst)` encodes `len` units from
/// `src` to `dst` and returns the bytes written.
///
/// # Safety (of calling one)
///
/// - The CPU supports the implementation's target features (guaranteed for
///   pointers obtained from the dispatch or from [`Level::encoder`]).
/// - `src` is valid for reads of `len` `u16`s.
/// - `dst` is valid for writes of `3 * len + all::encode::WRITE_SLACK` bytes,
///   or of the input's exact UTF-8 length plus `WRITE_SLACK`.
pub(crate) type EncodeFn = unsafe fn(*const u16, usize, *mut u8) -> usize;

/// The best encoder for this CPU (cached after the first call).
#[inline]
pub(crate) fn encode_fn() -> EncodeFn {
    #[cfg(target_arch = "x86_64")]
    {
        x86_64::encode_fn()
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        all::encode::encode
    }
}

impl Level {
    /// The level's encoder, if this build and CPU can run it.
    #[cfg_attr(not(feature = "public_imp"), allow(dead_code))] // the forced entry points' only
    pub(crate) fn encoder(self) -> Option<EncodeFn> {
        if !self.is_available() {
            return None;
        }
        match self {
            Level::Scalar => Some(all::encode::encode),
            #[cfg(target_arch = "x86_64")]
            Level::Sse2 => Some(x86_64::encode::encode_sse2),
            #[cfg(target_arch = "x86_64")]
            Level::Avx2 => Some(x86_64::encode::encode_avx2),
            #[cfg(target_arch = "x86_64")]
            Level::Avx512 => Some(x86_64::encode::encode_avx512),
            #[cfg(not(target_arch = "x86_64"))]
            _ => None,
        }
    }
}
