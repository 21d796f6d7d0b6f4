//! The encode cache's hit path: compare a value's UTF-16 units with the
//! cached ones and copy the cached UTF-8, inline and with whole vectors (no
//! `memcmp`/`memcpy` call for the short values the cache holds).
//!
//! Both operations work on exactly `n` bytes: the last vector is placed to
//! end at byte `n` (overlapping the one before it) instead of reading or
//! writing past the end, so they need no slack on either side. Lengths
//! below one vector fall back to two overlapping words.

/// Compare and copy at one vector width.
///
/// # Safety (of every method)
///
/// The CPU has the target features of the implementation (see
/// [`Vector`](crate::vector::Vector)); the caller is compiled with them.
pub(super) trait HitOps: Copy {
    /// Whether the `n` bytes at `a` equal the `n` bytes at `b`.
    ///
    /// # Safety
    ///
    /// `a` and `b` readable for `n` bytes.
    unsafe fn eq(a: *const u8, b: *const u8, n: usize) -> bool;

    /// Copies `n` bytes from `src` to `dst`.
    ///
    /// # Safety
    ///
    /// `src` readable and `dst` writable for `n` bytes; no overlap.
    unsafe fn copy(dst: *mut u8, src: *const u8, n: usize);
}

/// Word-at-a-time operations (no vector ISA).
#[derive(Clone, Copy)]
pub(super) struct Portable;

#[inline(always)]
unsafe fn rd<T: Copy>(p: *const u8) -> T {
    // SAFETY: the caller guarantees `size_of::<T>()` readable bytes.
    unsafe { p.cast::<T>().read_unaligned() }
}

/// Equality of `n < 16` bytes: two overlapping words of the widest size
/// that fits.
#[inline(always)]
unsafe fn eq_small(a: *const u8, b: *const u8, n: usize) -> bool {
    // SAFETY: each branch reads within `n` bytes of `a` and `b`.
    unsafe {
        if n >= 8 {
            ((rd::<u64>(a) ^ rd::<u64>(b)) | (rd::<u64>(a.add(n - 8)) ^ rd::<u64>(b.add(n - 8)))) == 0
        } else if n >= 4 {
            ((rd::<u32>(a) ^ rd::<u32>(b)) | (rd::<u32>(a.add(n - 4)) ^ rd::<u32>(b.add(n - 4)))) == 0
        } else if n >= 2 {
            ((rd::<u16>(a) ^ rd::<u16>(b)) | (rd::<u16>(a.add(n - 2)) ^ rd::<u16>(b.add(n - 2)))) == 0
        } else {
            n == 0 || *a == *b
        }
    }
}

/// Copy of `n < 16` bytes as two overlapping words.
#[inline(always)]
unsafe fn copy_small(dst: *mut u8, src: *const u8, n: usize) {
    #[inline(always)]
    unsafe fn two<T: Copy>(dst: *mut u8, src: *const u8, n: usize) {
        let w = core::mem::size_of::<T>();
        // SAFETY: `w <= n`: both words lie within the `n` bytes.
        unsafe {
            let (x, y) = (rd::<T>(src), rd::<T>(src.add(n - w)));
            dst.cast::<T>().write_unaligned(x);
            dst.add(n - w).cast::<T>().write_unaligned(y);
        }
    }
    // SAFETY: each branch stays within `n` bytes.
    unsafe {
        if n >= 8 {
            two::<u64>(dst, src, n)
        } else if n >= 4 {
            two::<u32>(dst, src, n)
        } else if n >= 2 {
            two::<u16>(dst, src, n)
        } else if n == 1 {
            *dst = *src;
        }
    }
}

impl HitOps for Portable {
    #[inline(always)]
    unsafe fn eq(a: *const u8, b: *const u8, n: usize) -> bool {
        if n < 16 {
            // SAFETY: forwarded contract.
            return unsafe { eq_small(a, b, n) };
        }
        type W = [u64; 2];
        #[inline(always)]
        fn diff(x: W, y: W) -> u64 {
            (x[0] ^ y[0]) | (x[1] ^ y[1])
        }
        // SAFETY: every 16-byte read starts at most at `n - 16`.
        unsafe {
            let mut acc = diff(rd(a.add(n - 16)), rd(b.add(n - 16)));
            let mut k = 0;
            while k + 16 < n && acc == 0 {
                acc |= diff(rd(a.add(k)), rd(b.add(k)));
                k += 16;
            }
            acc == 0
        }
    }

    #[inline(always)]
    unsafe fn copy(dst: *mut u8, src: *const u8, n: usize) {
        type C = [u8; 16];
        // SAFETY: every 16-byte access starts at most at `n - 16`.
        unsafe {
            if n < 16 {
                return copy_small(dst, src, n);
            }
            let mut k = 0;
            while k + 16 < n {
                dst.add(k).cast::<C>().write_unaligned(rd(src.add(k)));
                k += 16;
            }
            dst.add(n - 16).cast::<C>().write_unaligned(rd(src.add(n - 16)));
        }
    }
}

/// Whole-register operations with the `Vector` type `V`.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
pub(super) struct Simd<V>(core::marker::PhantomData<V>);

#[cfg(target_arch = "x86_64")]
impl<V: crate::vector::Vector> HitOps for Simd<V> {
    #[inline(always)]
    unsafe fn eq(a: *const u8, b: *const u8, n: usize) -> bool {
        let w = V::BYTES;
        // SAFETY: below one register the portable words; otherwise every
        // register read starts at most at `n - w`. The CPU features are the
        // caller's contract.
        unsafe {
            if n < w {
                return Portable::eq(a, b, n);
            }
            let mut acc = V::load_unaligned(a.add(n - w)).xor(V::load_unaligned(b.add(n - w)));
            let mut k = 0;
            while k + w < n {
                acc = acc.or(V::load_unaligned(a.add(k)).xor(V::load_unaligned(b.add(k))));
                k += w;
                // A miss usually differs early; stop every 4 registers.
                if k % (4 * w) == 0 && !acc.is_zero() {
                    return false;
                }
            }
            acc.is_zero()
        }
    }

    #[inline(always)]
    unsafe fn copy(dst: *mut u8, src: *const u8, n: usize) {
        let w = V::BYTES;
        // SAFETY: as in `eq`; `dst` and `src` do not overlap.
        unsafe {
            if n < w {
                return Portable::copy(dst, src, n);
            }
            let mut k = 0;
            while k + w < n {
                V::load_unaligned(src.add(k)).store_unaligned(dst.add(k));
                k += w;
            }
            V::load_unaligned(src.add(n - w)).store_unaligned(dst.add(n - w));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every length 0..=200 at every start offset 0..8 of both sides, equal
    /// and with one differing byte at each position.
    fn check<H: HitOps>() {
        let a: Vec<u8> = (0..260u32).map(|i| (i * 7 + 3) as u8).collect();
        for n in 0..=200usize {
            for (oa, ob) in [(0usize, 0usize), (1, 3), (7, 2), (5, 5)] {
                let mut b = vec![0u8; 260];
                b[ob..ob + n].copy_from_slice(&a[oa..oa + n]);
                // SAFETY: both ranges are within their vectors.
                assert!(unsafe { H::eq(a.as_ptr().add(oa), b.as_ptr().add(ob), n) }, "n {n}");
                for d in 0..n {
                    b[ob + d] ^= 0x40;
                    // SAFETY: as above.
                    assert!(!unsafe { H::eq(a.as_ptr().add(oa), b.as_ptr().add(ob), n) }, "n {n} diff at {d}");
                    b[ob + d] ^= 0x40;
                }
                let mut out = vec![0xEEu8; 270];
                // SAFETY: `ob + n <= 208 < 270`; distinct vectors.
                unsafe { H::copy(out.as_mut_ptr().add(ob), a.as_ptr().add(oa), n) };
                assert_eq!(&out[ob..ob + n], &a[oa..oa + n], "n {n}");
                assert!(out[..ob].iter().chain(&out[ob + n..]).all(|&x| x == 0xEE), "n {n}: wrote outside");
            }
        }
    }

    #[test]
    fn portable() {
        check::<Portable>();
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn sse2() {
        check::<Simd<core::arch::x86_64::__m128i>>();
    }

    /// A test running [`check`] on `$v` where the CPU has `$level`.
    macro_rules! isa_test {
        ($name:ident, $features:literal, $level:ident, $v:ty) => {
            #[cfg(target_arch = "x86_64")]
            #[test]
            fn $name() {
                #[target_feature(enable = $features)]
                unsafe fn run() {
                    check::<Simd<$v>>();
                }
                if crate::arch::Level::$level.testable_level() {
                    // SAFETY: the level (with `$features` among its
                    // features) detected.
                    unsafe { run() }
                }
            }
        };
    }

    isa_test!(avx2, "avx2", Avx2, core::arch::x86_64::__m256i);
    isa_test!(avx512, "avx512f,avx512bw", Avx512, core::arch::x86_64::__m512i);
}
