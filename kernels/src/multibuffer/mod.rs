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
//! share the lanes. NULL rows never enter a lane. When no rows are left to
//! start and only a few lanes are busy, those are finished single-stream from
//! their current state, so a long row at the end of a batch costs no more
//! than hashing it alone (uniform 4 KiB rows still hash ~8× faster in the
//! lanes than single-stream, so long rows are not sent single-stream up
//! front).
//!
//! The functions here are bit-exact with the single-stream RustCrypto
//! crates (`md-5`, `sha1`, `sha2`), which are also the portable fallback.
//!
//! # Dispatch
//!
//! The instruction set is detected once and cached (`Level::detected`, in
//! `arch::cpu`, shared with the encoder); for
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

/// Defines an algorithm module's `compress_avx512` and `compress_avx2`: its
/// generic `compress_body` over words `$w`, instantiated inside a function
/// compiled for each instruction set with that set's vector type
/// (`arch::x86_64::<isa>::lanes::$v512` / `$v2`), so every lane operation
/// inlines as that set's instructions.
macro_rules! lane_kernels {
    ($w:ty, $v512:ident, $v2:ident) => {
        /// `compress_body` over the AVX-512 lanes.
        ///
        /// # Safety
        ///
        /// The CPU has AVX-512F and AVX-512BW; `blocks[..lanes]` each address
        /// one readable block.
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx512f,avx512bw")]
        pub(crate) unsafe fn compress_avx512(st: &mut State<$w>, blocks: &[*const u8; 16]) {
            // SAFETY: this function's contract; features enabled above.
            unsafe { compress_body::<crate::arch::x86_64::avx512::lanes::$v512>(st, blocks) }
        }

        /// `compress_body` over the AVX2 lanes.
        ///
        /// # Safety
        ///
        /// The CPU has AVX2; `blocks[..lanes]` each address one readable block.
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx2")]
        pub(crate) unsafe fn compress_avx2(st: &mut State<$w>, blocks: &[*const u8; 16]) {
            // SAFETY: this function's contract; features enabled above.
            unsafe { compress_body::<crate::arch::x86_64::avx2::lanes::$v2>(st, blocks) }
        }
    };
}

/// Declares each `$algo` and implements the scheduler's [`Algo`] for it:
/// state words `$w` (a block is 16 of them, the length field 2), a digest
/// of the first `$n` state bytes in the byte order `big_endian` (the length
/// field's too), the initial state `$iv`, `$single` the one-shot digest of
/// a row and `$scalar` one lane's single-stream compression of whole blocks.
macro_rules! algos {
    ($($(#[$doc:meta])* $algo:ident: $w:ty, $n:literal bytes, big_endian = $be:literal, iv = $iv:expr,
     single = $single:path, scalar = $scalar:path;)*) => {$(
        $(#[$doc])*
        pub(crate) struct $algo;

        impl Algo for $algo {
            type W = $w;
            type Out = [u8; $n];
            const BLOCK: usize = 16 * size_of::<$w>();
            const LEN_BYTES: usize = 2 * size_of::<$w>();
            const LEN_BE: bool = $be;
            const IV: [$w; 8] = $iv;
            #[inline(always)]
            fn out(st: &State<$w>, lane: usize) -> [u8; $n] {
                digest(st, lane, $be)
            }
            #[inline]
            fn single(bytes: &[u8]) -> [u8; $n] {
                $single(bytes)
            }
            #[inline]
            fn compress_scalar(st: &mut [$w; 8], blocks: &[u8]) {
                $scalar(st, blocks.as_chunks::<{ 16 * size_of::<$w>() }>().0);
            }
        }
    )*};
}

/// The SHA-2 compression rounds (FIPS 180-4 §6.2.2 for SHA-256, §6.4.2 for
/// SHA-512) over every lane of `$V`, on the state `$st` and the message
/// schedule `$w` (the block's 16 words, already byte-swapped): the two
/// functions differ only in word width, the rotation and shift amounts of
/// σ0, σ1, Σ0 and Σ1, and the round count (64 or 80: `$base` lists the first
/// round of each run of eight). `rotr!(x, n)` must be in scope at the call
/// site (each word width rotates its own way). Expands to unsafe lane calls:
/// invoke it inside the caller's `unsafe` block.
macro_rules! sha2_rounds {
    (
        $V:ident, $st:ident, $w:expr, $k:ident,
        sigma0 = ($s0a:literal, $s0b:literal, $s0c:literal),
        sigma1 = ($s1a:literal, $s1b:literal, $s1c:literal),
        big_sigma0 = ($b0a:literal, $b0b:literal, $b0c:literal),
        big_sigma1 = ($b1a:literal, $b1b:literal, $b1c:literal),
        rounds = [$($base:literal),*]
    ) => {{
        let mut w = $w;
        let mut s = [$V::splat(0); 8];
        for (v, row) in s.iter_mut().zip($st.iter()) {
            *v = $V::load(row.as_ptr());
        }
        let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut h] = s;
        // One round, fully unrolled with constant indices: `d += T1` becomes
        // the new `e` and `h = T1 + T2` the new `a`; the next round takes
        // the names rotated by one instead of moving eight registers.
        macro_rules! round {
            ($a:ident, $b:ident, $c:ident, $d:ident, $e:ident, $f:ident, $g:ident, $h:ident, $t:expr) => {{
                let j = $t & 15;
                if $t >= 16 {
                    let w15 = w[(j + 1) & 15];
                    let w2 = w[(j + 14) & 15];
                    let s0 = $V::xor3(rotr!(w15, $s0a), rotr!(w15, $s0b), w15.shr($s0c));
                    let s1 = $V::xor3(rotr!(w2, $s1a), rotr!(w2, $s1b), w2.shr($s1c));
                    w[j] = w[j].add(s0).add(w[(j + 9) & 15]).add(s1);
                }
                let s1 = $V::xor3(rotr!($e, $b1a), rotr!($e, $b1b), rotr!($e, $b1c));
                let t1 = $h.add(s1).add($V::ch($e, $f, $g)).add($V::splat($k[$t]).add(w[j]));
                let s0 = $V::xor3(rotr!($a, $b0a), rotr!($a, $b0b), rotr!($a, $b0c));
                $d = $d.add(t1);
                $h = t1.add(s0).add($V::maj($a, $b, $c));
            }};
        }
        $(
            round!(a, b, c, d, e, f, g, h, $base);
            round!(h, a, b, c, d, e, f, g, $base + 1);
            round!(g, h, a, b, c, d, e, f, $base + 2);
            round!(f, g, h, a, b, c, d, e, $base + 3);
            round!(e, f, g, h, a, b, c, d, $base + 4);
            round!(d, e, f, g, h, a, b, c, $base + 5);
            round!(c, d, e, f, g, h, a, b, $base + 6);
            round!(b, c, d, e, f, g, h, a, $base + 7);
        )*
        for (i, v) in [a, b, c, d, e, f, g, h].into_iter().enumerate() {
            v.add(s[i]).store($st[i].as_mut_ptr());
        }
    }};
}

mod md5;
mod sched;
mod sha1;
mod sha256;
mod sha512;

use sched::{digest, Algo, Compress, State};

use crate::digest::oneshot;
use sha2::block_api::{compress256, compress512};

use crate::arch::cpu::has_sha_ni;
use crate::arch::Level;

algos! {
    /// MD5, for the scheduler.
    Md5: u32, 16 bytes, big_endian = false, iv = md5::IV, single = oneshot::md5, scalar = md5::compress_lane;
    /// SHA-1, for the scheduler.
    Sha1: u32, 20 bytes, big_endian = true, iv = sha1::IV, single = oneshot::sha1, scalar = sha1::compress_lane;
    /// SHA-224 (SHA-256 with another IV, truncated), for the scheduler.
    Sha224: u32, 28 bytes, big_endian = true, iv = oneshot::SHA224_IV, single = oneshot::sha224, scalar = compress256;
    /// SHA-256, for the scheduler.
    Sha256: u32, 32 bytes, big_endian = true, iv = oneshot::SHA256_IV, single = oneshot::sha256, scalar = compress256;
    /// SHA-384 (SHA-512 with another IV, truncated), for the scheduler.
    Sha384: u64, 48 bytes, big_endian = true, iv = oneshot::SHA384_IV, single = oneshot::sha384, scalar = compress512;
    /// SHA-512, for the scheduler.
    Sha512: u64, 64 bytes, big_endian = true, iv = oneshot::SHA512_IV, single = oneshot::sha512, scalar = compress512;
}

/// A multi-buffer kernel: how many lanes, and its compression function.
type Kernel<W> = (usize, Compress<W>);

/// Runs `A` at `level` (clamped to what the CPU has) with the compression
/// function `pick` chooses, or single-stream when it chooses none.
#[inline(always)]
fn dispatch<'a, A, R, E>(level: Level, pick: fn(Level) -> Option<Kernel<A::W>>, n: usize, rows: R, emit: E)
where
    A: Algo,
    R: Fn(usize) -> Option<&'a [u8]>,
    E: FnMut(usize, &A::Out),
{
    let level = level.min(Level::detected());
    match pick(level) {
        // SAFETY: `pick` returns only kernels whose features `level`
        // implies, and `level` is clamped to what this CPU has; lanes <= 16.
        Some((lanes, compress)) => unsafe { sched::run::<A, R, E>(lanes, compress, n, rows, emit) },
        None => sched::run_single::<A, R, E>(n, rows, emit),
    }
}

/// The multi-buffer compression function of `$algo` at `level`, if any.
macro_rules! pick {
    ($name:ident, $w:ty, $module:ident, $avx512_lanes:expr, $avx2_lanes:expr) => {
        fn $name(level: Level) -> Option<Kernel<$w>> {
            match level {
                #[cfg(target_arch = "x86_64")]
                Level::Avx512 => Some(($avx512_lanes, $module::compress_avx512 as Compress<$w>)),
                #[cfg(target_arch = "x86_64")]
                Level::Avx2 => Some(($avx2_lanes, $module::compress_avx2 as Compress<$w>)),
                _ => None,
            }
        }
    };
}
pick!(pick_md5, u32, md5, 16, 8);
pick!(pick_sha1, u32, sha1, 16, 8);
pick!(pick_sha256, u32, sha256, 16, 8);
pick!(pick_sha512, u64, sha512, 8, 4);

/// The level the `*_many` entry of each algorithm runs at: the detected
/// level (or the one [`force_level`] set), except where single-stream is
/// faster on such a CPU.
///
/// Measured on this project's AMD EPYC (Zen 4, `benches/benches/multibuffer.rs`):
/// 16 AVX-512 lanes beat single-stream SHA-NI for SHA-1 and SHA-256, 8 AVX2
/// lanes do not, so with SHA-NI those two take the lanes only at AVX-512.
fn auto_level(family: Family) -> Level {
    let level = match FORCED.load(Ordering::Relaxed) {
        u8::MAX => Level::detected(),
        v => Level::from_u8(v).min(Level::detected()),
    };
    match family {
        Family::Sha1 | Family::Sha256 if level < Level::Avx512 && has_sha_ni() => Level::Scalar,
        _ => level,
    }
}

/// Process-wide override of the level the `*_many` functions (and through
/// them the [`crate::digest`] hex kernels) run at; `None` restores
/// detection. For benches and tests that must measure each level through
/// the public kernels; it is clamped to what the CPU has.
#[cfg(feature = "public_imp")]
pub fn force_level(level: Option<Level>) {
    FORCED.store(level.map_or(u8::MAX, |l| l as u8), Ordering::Relaxed);
}

static FORCED: AtomicU8 = AtomicU8::new(u8::MAX);

/// Below this many non-NULL rows a batch is hashed one-shot: with one or
/// two rows the idle lanes cost more than the lanes save.
const MIN_ROWS: usize = 3;

/// Whether the [`crate::digest`] hex kernels should hash a batch of `rows`
/// non-NULL rows of an algorithm of `family` through the lanes (the
/// `*_many` functions) on this CPU.
pub(crate) fn prefer_many(family: Family, rows: usize) -> bool {
    rows >= MIN_ROWS && auto_level(family) >= Level::Avx2
}

/// The algorithms that share a compression function (and so a speed
/// profile): SHA-224 is SHA-256's, SHA-384 is SHA-512's.
#[derive(Clone, Copy)]
pub(crate) enum Family {
    /// MD5.
    Md5,
    /// SHA-1.
    Sha1,
    /// SHA-224 and SHA-256.
    Sha256,
    /// SHA-384 and SHA-512.
    Sha512,
}

macro_rules! many {
    ($(#[$doc:meta])* $name:ident, $with_level:ident, $algo:ty, $n:expr, $pick:ident, $family:expr) => {
        $(#[$doc])*
        ///
        /// `rows(i)` is row `i`'s bytes or `None` for a NULL row (NULL rows
        /// never enter a lane); `emit(i, digest)` is called once per
        /// non-NULL row `i < n`, in completion order (see the
        /// [module docs](self)).
        ///
        /// # Performance
        ///
        /// No allocation; the lanes are refilled row by row, so rows of mixed
        /// lengths keep them busy; the last few rows of a batch are finished
        /// single-stream.
        pub fn $name<'a>(
            n: usize,
            rows: impl Fn(usize) -> Option<&'a [u8]>,
            emit: impl FnMut(usize, &[u8; $n]),
        ) {
            dispatch::<$algo, _, _>(auto_level($family), $pick, n, rows, emit)
        }

        #[doc = concat!("[`", stringify!($name), "`] at a forced [`Level`] (clamped to what the CPU has).")]
        #[cfg(feature = "public_imp")]
        pub fn $with_level<'a>(
            level: Level,
            n: usize,
            rows: impl Fn(usize) -> Option<&'a [u8]>,
            emit: impl FnMut(usize, &[u8; $n]),
        ) {
            dispatch::<$algo, _, _>(level, $pick, n, rows, emit)
        }
    };
}

many!(
    /// MD5 (RFC 1321) of many rows at once.
    md5_many, md5_many_with_level, Md5, 16, pick_md5, Family::Md5
);
many!(
    /// SHA-1 of many rows at once.
    sha1_many, sha1_many_with_level, Sha1, 20, pick_sha1, Family::Sha1
);
many!(
    /// SHA-224 of many rows at once.
    sha224_many, sha224_many_with_level, Sha224, 28, pick_sha256, Family::Sha256
);
many!(
    /// SHA-256 of many rows at once.
    sha256_many, sha256_many_with_level, Sha256, 32, pick_sha256, Family::Sha256
);
many!(
    /// SHA-384 of many rows at once.
    sha384_many, sha384_many_with_level, Sha384, 48, pick_sha512, Family::Sha512
);
many!(
    /// SHA-512 of many rows at once.
    sha512_many, sha512_many_with_level, Sha512, 64, pick_sha512, Family::Sha512
);
