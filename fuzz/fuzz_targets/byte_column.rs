#![no_main]
//! `sluice_kernels::input::ByteColumn` vs arrow's accessors; see
//! `sluice_fuzz::byte_column`.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: sluice_fuzz::arrays::ByteColumn| sluice_fuzz::byte_column::check(&input));
