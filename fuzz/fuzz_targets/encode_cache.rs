#![no_main]
//! See `sluice_fuzz::encode_cache`.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: sluice_fuzz::encode_cache::Input| sluice_fuzz::encode_cache::check(&input));
