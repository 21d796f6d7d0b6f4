//! CPU feature detection and the one instruction-set [`Level`] ladder that
//! every dispatching kernel shares: the UTF-16 encoder, the encode cache's
//! hit path and the multi-buffer digests.
//!
//! Detection runs once per process (the first call of [`Level::detected`])
//! and is cached in an atomic; forcing a level (tests, benches, fuzzing) can
//! only go down the ladder, never above what the CPU has.

use core::sync::atomic::{AtomicU8, Ordering};

/// An instruction-set level, lowest first. Each level implies the ones
/// below it, and means the same features for every kernel.
///
/// | level | features | encoder | cache hit path | multi-buffer digests |
/// | --- | --- | --- | --- | --- |
/// | `Scalar` | none | portable (SWAR ASCII) | word at a time | single-stream |
/// | `Sse2` | SSE2 (the x86-64 baseline) | 16 units per step | 16-byte vectors | single-stream |
/// | `Avx2` | AVX2 | 32 units per step | 32-byte vectors | 8 × 32 / 4 × 64-bit lanes |
/// | `Avx512` | AVX-512F, AVX-512BW, AVX-512VBMI2, BMI2 | 64 ASCII / 16 mixed units per step | 64-byte vectors | 16 × 32 / 8 × 64-bit lanes |
///
/// `Avx512` asks for VBMI2 (byte compress) because the encoder needs it; a
/// CPU with AVX-512F/BW but not VBMI2 (Skylake-X) runs every kernel at
/// `Avx2`. Ice Lake, Zen 4 and later have all four.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    /// Portable code only.
    Scalar,
    /// SSE2.
    Sse2,
    /// AVX2.
    Avx2,
    /// AVX-512F + AVX-512BW + AVX-512VBMI2 + BMI2.
    Avx512,
}

// Without `public_imp` only the dispatch uses the levels.
#[cfg_attr(not(feature = "public_imp"), allow(dead_code))]
impl Level {
    /// Every level, lowest first.
    pub const ALL: [Level; 4] = [Level::Scalar, Level::Sse2, Level::Avx2, Level::Avx512];

    /// The best level this build and CPU support, detected once and cached.
    #[inline]
    pub fn detected() -> Level {
        static CACHE: AtomicU8 = AtomicU8::new(u8::MAX);
        match CACHE.load(Ordering::Relaxed) {
            u8::MAX => {
                let l = detect();
                CACHE.store(l as u8, Ordering::Relaxed);
                l
            }
            v => Level::from_u8(v),
        }
    }

    /// Whether this build and CPU can run the level.
    #[inline]
    pub fn is_available(self) -> bool {
        self <= Level::detected()
    }

    /// The level's name as `SLUICE_REQUIRE_LEVELS` spells it (`scalar`,
    /// `sse2`, `avx2`, `avx512`).
    pub fn name(self) -> &'static str {
        match self {
            Level::Scalar => "scalar",
            Level::Sse2 => "sse2",
            Level::Avx2 => "avx2",
            Level::Avx512 => "avx512",
        }
    }

    /// The levels a test should run at: every level this CPU has.
    ///
    /// A test that loops over these skips the levels the CPU lacks. So that
    /// a skipped level cannot go unnoticed where it matters, the environment
    /// variable `SLUICE_REQUIRE_LEVELS` (a comma-separated list of
    /// [`name`](Self::name)s, e.g. `avx2,avx512`, set by CI on a CPU that has
    /// them) names levels that must be available: if one is not, or a name
    /// is unknown, this panics and the test fails instead of passing at
    /// fewer levels.
    #[cfg(feature = "public_imp")]
    pub fn testable() -> Vec<Level> {
        Level::require_from_env();
        Level::ALL.into_iter().filter(|l| l.is_available()).collect()
    }

    /// For a test that runs one level only when the CPU has it: panics when
    /// `SLUICE_REQUIRE_LEVELS` requires `self` and this CPU lacks it (see
    /// [`testable`](Self::testable)); otherwise returns whether to run it.
    #[cfg(any(test, feature = "public_imp"))]
    pub fn testable_level(self) -> bool {
        Level::require_from_env();
        self.is_available()
    }

    /// Panics unless every level `SLUICE_REQUIRE_LEVELS` names is available.
    #[cfg(any(test, feature = "public_imp"))]
    fn require_from_env() {
        let Ok(list) = std::env::var("SLUICE_REQUIRE_LEVELS") else { return };
        for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            let level = Level::ALL.into_iter().find(|l| l.name().eq_ignore_ascii_case(name));
            match level {
                Some(l) => assert!(
                    l.is_available(),
                    "SLUICE_REQUIRE_LEVELS requires {name}, which this CPU or build does not have (detected: {})",
                    Level::detected().name()
                ),
                None => {
                    panic!("SLUICE_REQUIRE_LEVELS names an unknown level {name:?} (known: scalar, sse2, avx2, avx512)")
                }
            }
        }
    }

    /// The inverse of `as u8`.
    pub(crate) fn from_u8(v: u8) -> Level {
        match v {
            3 => Level::Avx512,
            2 => Level::Avx2,
            1 => Level::Sse2,
            _ => Level::Scalar,
        }
    }
}

/// Runs the feature checks (uncached).
fn detect() -> Level {
    #[cfg(target_arch = "x86_64")]
    {
        if has_avx512() {
            Level::Avx512
        } else if std::is_x86_feature_detected!("avx2") {
            Level::Avx2
        } else {
            Level::Sse2
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        Level::Scalar
    }
}

/// Whether the CPU has what [`Level::Avx512`] means.
#[cfg(target_arch = "x86_64")]
fn has_avx512() -> bool {
    std::is_x86_feature_detected!("avx512f")
        && std::is_x86_feature_detected!("avx512bw")
        && std::is_x86_feature_detected!("avx512vbmi2")
        && std::is_x86_feature_detected!("bmi2")
}

/// Whether the CPU has the SHA extensions the `sha1`/`sha2` crates use for
/// single-stream SHA-1 and SHA-256 (outside the level ladder: it decides
/// between lanes and single-stream, not which lanes).
pub(crate) fn has_sha_ni() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::is_x86_feature_detected!("sha") && std::is_x86_feature_detected!("sse4.1")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}
