#![no_main]
//! See `sluice_fuzz::digest`.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: sluice_fuzz::digest::Input| sluice_fuzz::digest::check(&input));
