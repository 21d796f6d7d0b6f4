#![no_main]
//! See `sluice_fuzz::encode_utf16`.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: sluice_fuzz::encode_utf16::Input| sluice_fuzz::encode_utf16::check(&input));
