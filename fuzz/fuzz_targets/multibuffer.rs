#![no_main]
//! See `sluice_fuzz::multibuffer`.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: sluice_fuzz::multibuffer::Input| sluice_fuzz::multibuffer::check(&input));
