#![no_main]
//! See `sluice_fuzz::search`.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: sluice_fuzz::search::Input| sluice_fuzz::search::check(&input));
