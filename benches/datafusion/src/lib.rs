//! Comparison benches only; see `benches/vs_datafusion.rs`.
