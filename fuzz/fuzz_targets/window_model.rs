#![no_main]
//! See `sluice_fuzz::window`.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: sluice_fuzz::window::Input| sluice_fuzz::window::check(&input));
