//! AVX2 implementations (256-bit registers).

pub(crate) mod lanes;
