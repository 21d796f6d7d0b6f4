//! Multi-buffer digests: many rows hashed at once, one row per vector lane.
//!
//! MD5, SHA-1 and SHA-2 are serial inside one message: every step of the
//! compression function waits for the previous one, so a single stream runs
//! at a few cycles per byte no matter how wide the machine is. A column of
//! strings, though, is many *independent* messages. The multi-buffer
//! technique (Intel's isa-l_crypto `md5_mb`/`sha*_mb`, the Linux kernel's
//! `sha*-mb`) puts one message in each 32-bit lane of a vector register
//! (one per 64-bit lane for SHA-512) and runs the compression function on
//! all lanes at once: 16 messages with AVX-512, 8 with AVX2.
//!
//! A lane scheduler feeds each lane its row's next block, builds each
//! message's final padded block(s) on the stack, retires a lane when its row
//! is done and refills it with the next row, so rows of different lengths
//! share the lanes. NULL rows never enter a lane; rows longer than
//! a few KiB take the single-stream path.
//!
//! The functions here are bit-exact with the single-stream RustCrypto
//! crates (`md-5`, `sha1`, `sha2`), which are also the portable fallback.
//!
//! # Dispatch
//!
//! The instruction set is detected once and cached ([`Level::detect`]); for
//! each algorithm the faster of the multi-buffer and the single-stream path
//! on such a CPU is used (SHA-1/SHA-256 single-stream use SHA-NI where the
//! CPU has it). `*_with_level` functions force a level, for tests and
//! benches.
//!
//! # Output order
//!
//! `emit(row, digest)` is called exactly once per non-NULL row, in
//! *completion* order: rows in the same batch of lanes finish together, but
//! a short row may finish before a long row that started earlier. Callers
//! that write to a per-row position (as the hex kernels do) do not care.
//!
//! # Example
//!
//! ```
//! use sluice_kernels::multibuffer::md5_many;
//! let rows: [Option<&[u8]>; 3] = [Some(b"a"), None, Some(b"abc")];
//! let mut out = [[0u8; 16]; 3];
//! md5_many(rows.len(), |i| rows[i], |i, d| out[i] = *d);
//! assert_eq!(out[2][..4], [0x90, 0x01, 0x50, 0x98]); // 900150983cd24fb0…
//! assert_eq!(out[1], [0; 16]); // NULL rows are not emitted
//! ```

use std::sync::atomic::{AtomicU8, Ordering};

mod md5;
mod sched;
mod simd;

use sched::{Algo, Compress};

/// An instruction-set level the multi-buffer kernels can run at.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    /// Single-stream RustCrypto crates (which still use SHA-NI for SHA-1
    /// and SHA-256 when the CPU has it).
    Portable,
    /// 8 × 32-bit / 4 × 64-bit lanes (AVX2).
    Avx2,
    /// 16 × 32-bit / 8 × 64-bit lanes (AVX-512F + AVX-512BW).
    Avx512,
}

impl Level {
    /// All levels, lowest first.
    pub const ALL: [Level; 3] = [Level::Portable, Level::Avx2, Level::Avx512];

    /// The best level this CPU supports, detected once and cached.
    pub fn detect() -> Level {
        static CACHE: AtomicU8 = AtomicU8::new(u8::MAX);
        match CACHE.load(Ordering::Relaxed) {
            u8::MAX => {
                let l = Level::detect_uncached();
                CACHE.store(l as u8, Ordering::Relaxed);
                l
            }
            v => Level::from_u8(v),
        }
    }

    /// Whether this CPU can run `self`.
    pub fn is_available(self) -> bool {
        self <= Level::detect()
    }

    fn from_u8(v: u8) -> Level {
        match v {
            2 => Level::Avx512,
            1 => Level::Avx2,
            _ => Level::Portable,
        }
    }

    fn detect_uncached() -> Level {
        #[cfg(target_arch = "x86_64")]
        {
            if std::is_x86_feature_detected!("avx512f") && std::is_x86_feature_detected!("avx512bw")
            {
                return Level::Avx512;
            }
            if std::is_x86_feature_detected!("avx2") {
                return Level::Avx2;
            }
        }
        Level::Portable
    }
}

/// Runs `A` at `level` (clamped to what the CPU has) with the compression
/// function `pick` chooses, or single-stream when it chooses none.
#[inline(always)]
fn dispatch<'a, A, R, E>(
    level: Level,
    pick: fn(Level) -> Option<(usize, Compress<A::W>)>,
    long: usize,
    n: usize,
    rows: R,
    emit: E,
) where
    A: Algo,
    R: Fn(usize) -> Option<&'a [u8]>,
    E: FnMut(usize, &A::Out),
{
    let level = level.min(Level::detect());
    match pick(level) {
        // SAFETY: `pick` returns only kernels whose features `level`
        // implies, and `level` is clamped to what this CPU has; lanes <= 16.
        Some((lanes, compress)) => unsafe { sched::run::<A, R, E>(lanes, compress, long, n, rows, emit) },
        None => sched::run_single::<A, R, E>(n, rows, emit),
    }
}

fn pick_md5(level: Level) -> Option<(usize, Compress<u32>)> {
    match level {
        #[cfg(target_arch = "x86_64")]
        Level::Avx512 => Some((16, md5::compress_avx512 as Compress<u32>)),
        #[cfg(target_arch = "x86_64")]
        Level::Avx2 => Some((8, md5::compress_avx2 as Compress<u32>)),
        _ => None,
    }
}

/// Rows longer than this many bytes skip the MD5 lanes (see the crossover
/// bench in `benches/benches/multibuffer.rs`).
const MD5_LONG: usize = 8 << 10;

/// MD5 of rows `0..n`: `rows(i)` is row `i`'s bytes or `None` for NULL;
/// `emit(i, digest)` is called once per non-NULL row, in completion order.
///
/// # Performance
///
/// With AVX-512, 16 rows per compression; for short rows several times the
/// single-stream throughput. No allocation.
pub fn md5_many<'a>(
    n: usize,
    rows: impl Fn(usize) -> Option<&'a [u8]>,
    emit: impl FnMut(usize, &[u8; 16]),
) {
    md5_many_with_level(Level::detect(), n, rows, emit)
}

/// [`md5_many`] at a forced [`Level`] (clamped to what the CPU has).
#[doc(hidden)]
pub fn md5_many_with_level<'a>(
    level: Level,
    n: usize,
    rows: impl Fn(usize) -> Option<&'a [u8]>,
    emit: impl FnMut(usize, &[u8; 16]),
) {
    dispatch::<md5::Md5, _, _>(level, pick_md5, MD5_LONG, n, rows, emit)
}
