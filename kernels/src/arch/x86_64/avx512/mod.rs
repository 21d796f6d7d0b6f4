//! AVX-512 implementations (512-bit registers).

pub(crate) mod lanes;
