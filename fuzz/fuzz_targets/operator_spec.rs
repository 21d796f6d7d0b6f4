#![no_main]
//! See `sluice_fuzz::operator_spec`.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: sluice_fuzz::operator_spec::Input| sluice_fuzz::operator_spec::check(&input));
