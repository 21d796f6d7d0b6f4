//! Shared pieces of sluice's criterion benches and the `sluice` demo binary:
//! seeded data generators, so every bench and the demo measure the same
//! kind of data the same way.

pub mod data;
