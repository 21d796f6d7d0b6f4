#![no_main]
//! See `sluice_fuzz::join`.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: sluice_fuzz::join::Input| sluice_fuzz::join::check(&input));
