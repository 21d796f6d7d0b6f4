#![no_main]
//! See `sluice_fuzz::calc`.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: sluice_fuzz::calc::Input| sluice_fuzz::calc::check(&input));
