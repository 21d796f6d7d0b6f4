//! Portable implementations, used on every target and as the per-block
//! fallback of the SIMD paths.

pub(crate) mod encode;
