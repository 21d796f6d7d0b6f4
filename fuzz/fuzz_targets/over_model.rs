#![no_main]
//! See `sluice_fuzz::over`.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: sluice_fuzz::over::Input| sluice_fuzz::over::check(&input));
