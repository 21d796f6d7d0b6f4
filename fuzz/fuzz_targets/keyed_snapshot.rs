#![no_main]
//! See `sluice_fuzz::keyed_snapshot`.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: sluice_fuzz::keyed_snapshot::Input| sluice_fuzz::keyed_snapshot::check(&input));
