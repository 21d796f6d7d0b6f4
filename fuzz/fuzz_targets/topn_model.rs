#![no_main]
//! See `sluice_fuzz::topn`.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: sluice_fuzz::topn::Input| sluice_fuzz::topn::check(&input));
