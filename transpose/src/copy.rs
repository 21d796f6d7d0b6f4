//! Short byte copies without a `memcpy` call.
//!
//! Most row strings are a few dozen bytes; for those the call into libc's
//! `memcpy` costs more than the copy. Two overlapping unaligned loads and
//! stores of the largest power-of-two width ≤ the length copy any length
//! in 4..=64 exactly (the technique of memchr's and libc's small-size paths).

/// Longest copy done inline; longer ones call `memcpy` (measured: an
/// inline loop of 32-byte moves lost to `memcpy` on 128..=256-byte strings).
const INLINE_MAX: usize = 64;

/// Copies `n = src.len()` bytes to `dst`.
///
/// Each width class is inclusive at its top (two 8-byte moves copy 8..=16
/// bytes, two 16-byte moves 17..=32, ...), so lengths spread evenly over
/// `[n/2, n]` (a VARCHAR(n) column) take one branch path.
///
/// # Safety
/// `dst` must be valid for writes of `src.len()` bytes and must not overlap
/// `src`.
#[inline(always)]
pub(crate) unsafe fn copy_short(src: &[u8], dst: *mut u8) {
    let n = src.len();
    let s = src.as_ptr();
    // SAFETY: (all branches) every read is inside `src[0..n]` (the second
    // load starts at `n - w` >= 0 for a width w <= n), every write inside
    // `dst[0..n]`, which the caller guarantees is writable and disjoint.
    unsafe {
        if n > 16 {
            if n > 32 {
                if n > INLINE_MAX {
                    std::ptr::copy_nonoverlapping(s, dst, n);
                    return;
                }
                // 33..=64: the first 32 and the last 32 bytes (they overlap)
                let a = s.cast::<u128>().read_unaligned();
                let b = s.add(16).cast::<u128>().read_unaligned();
                let c = s.add(n - 32).cast::<u128>().read_unaligned();
                let d = s.add(n - 16).cast::<u128>().read_unaligned();
                dst.cast::<u128>().write_unaligned(a);
                dst.add(16).cast::<u128>().write_unaligned(b);
                dst.add(n - 32).cast::<u128>().write_unaligned(c);
                dst.add(n - 16).cast::<u128>().write_unaligned(d);
                return;
            }
            // 17..=32
            let a = s.cast::<u128>().read_unaligned();
            let b = s.add(n - 16).cast::<u128>().read_unaligned();
            dst.cast::<u128>().write_unaligned(a);
            dst.add(n - 16).cast::<u128>().write_unaligned(b);
        } else if n >= 8 {
            // 8..=16
            let a = s.cast::<u64>().read_unaligned();
            let b = s.add(n - 8).cast::<u64>().read_unaligned();
            dst.cast::<u64>().write_unaligned(a);
            dst.add(n - 8).cast::<u64>().write_unaligned(b);
        } else if n >= 4 {
            let a = s.cast::<u32>().read_unaligned();
            let b = s.add(n - 4).cast::<u32>().read_unaligned();
            dst.cast::<u32>().write_unaligned(a);
            dst.add(n - 4).cast::<u32>().write_unaligned(b);
        } else {
            for k in 0..n {
                *dst.add(k) = *s.add(k);
            }
        }
    }
}

/// `out.extend_from_slice(b)` with [`copy_short`] for short `b`.
#[inline(always)]
pub(crate) fn append(out: &mut Vec<u8>, b: &[u8]) {
    if b.len() > INLINE_MAX {
        out.extend_from_slice(b);
        return;
    }
    out.reserve(b.len());
    let len = out.len();
    // SAFETY: `reserve` left at least `b.len()` bytes of spare capacity
    // after `len`, which `b` (a shared borrow) cannot overlap; `copy_short`
    // initialises exactly those bytes before `set_len`.
    unsafe {
        copy_short(b, out.as_mut_ptr().add(len));
        out.set_len(len + b.len());
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_short_length() {
        let src: Vec<u8> = (0..300u32).map(|x| (x % 251) as u8).collect();
        for n in 0..=300 {
            let mut out = vec![0xAAu8; 3];
            super::append(&mut out, &src[..n]);
            let mut want = vec![0xAAu8; 3];
            want.extend_from_slice(&src[..n]);
            assert_eq!(out, want, "n = {n}");
        }
    }
}
