//! The SIMD levels a CI machine has are tested, not skipped.
//!
//! Every level loop in these tests runs the levels this CPU has
//! (`Level::testable`). With `SLUICE_REQUIRE_LEVELS=avx2,avx512` in the
//! environment (CI sets it where the CPU has both), a level the run would
//! otherwise skip fails it here, and in every test that loops over levels.

use sluice_kernels::Level;

#[test]
fn required_levels_are_available() {
    let levels = Level::testable();
    assert_eq!(levels.first(), Some(&Level::Scalar), "the portable level always runs");
    assert!(levels.windows(2).all(|w| w[0] < w[1]), "lowest first, no repeats: {levels:?}");
    assert_eq!(levels.last(), Some(&Level::detected()));
    if let Ok(list) = std::env::var("SLUICE_REQUIRE_LEVELS") {
        for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            assert!(levels.iter().any(|l| l.name() == name), "{name} required but not tested: {levels:?}");
        }
    }
}
