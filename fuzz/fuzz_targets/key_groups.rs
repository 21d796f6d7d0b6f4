#![no_main]
//! See `sluice_fuzz::key_groups`.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: sluice_fuzz::key_groups::Input| sluice_fuzz::key_groups::check(&input));
