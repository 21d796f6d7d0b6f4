#![no_main]
//! See `sluice_fuzz::concat`.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: sluice_fuzz::concat::Input| sluice_fuzz::concat::check(&input));
