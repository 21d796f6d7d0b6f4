#![no_main]
//! See `sluice_fuzz::transpose::check_roundtrip`.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: sluice_fuzz::transpose::Input| sluice_fuzz::transpose::check_roundtrip(&input));
