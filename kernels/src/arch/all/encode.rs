//! Portable UTF-16 → UTF-8 encoding with Java's `String.getBytes(UTF_8)`
//! rules: well-formed code points become standard UTF-8 (U+0000 is `00`),
//! and every unpaired surrogate code unit becomes `?` (0x3F).
//!
//! This is the scalar level of the dispatch, the per-block fallback of the
//! SIMD levels (via [`encode_range`]) and the length oracle ([`utf8_len`]).

/// Bytes past the true end of the output that [`encode_range`] may write
/// (and later overwrite or leave as spare capacity): a 2-byte character is
/// stored with one unaligned 4-byte write.
pub(crate) const WRITE_SLACK: usize = 2;

/// `0xFF80` in each of four `u16` lanes: a word of four UTF-16 units is all
/// ASCII iff `word & ASCII_MASK == 0`.
const ASCII_MASK: u64 = 0xFF80_FF80_FF80_FF80;

/// Encodes `src[..len]` to `dst` and returns the number of bytes written.
///
/// # Safety
///
/// - `src` must be valid for reads of `len` `u16`s.
/// - `dst` must be valid for writes of `3 * len + WRITE_SLACK` bytes (or of
///   the exact UTF-8 length of the input plus [`WRITE_SLACK`]).
#[inline]
pub(crate) unsafe fn encode(src: *const u16, len: usize, dst: *mut u8) -> usize {
    // SAFETY: forwarded caller contract; `stop == len`.
    unsafe { encode_range(src, len, 0, len, dst, 0).1 }
}

/// Encodes the units from index `i` until at least index `stop` is reached,
/// writing from `dst + o`; returns the new `(i, o)`.
///
/// A high surrogate at `stop - 1` whose low half sits at `stop` is consumed
/// as a pair (the returned `i` is then `stop + 1`): pairs are judged against
/// the whole row `src[..len]`, never against the block boundary.
///
/// # Safety
///
/// - `i <= stop <= len`, and `src` valid for reads of `len` `u16`s.
/// - `dst + o` valid for writes of `3 * (len - i) + WRITE_SLACK` bytes (or
///   the exact UTF-8 length of `src[i..len]` plus [`WRITE_SLACK`]).
#[inline(always)]
pub(crate) unsafe fn encode_range(
    src: *const u16,
    len: usize,
    mut i: usize,
    stop: usize,
    dst: *mut u8,
    mut o: usize,
) -> (usize, usize) {
    debug_assert!(i <= stop && stop <= len);
    while i < stop {
        // Four ASCII units at a time (SWAR). The mask test holds in either
        // byte order; the bytes are then taken unit by unit.
        if i + 4 <= stop {
            // SAFETY: `i + 4 <= len` units are readable.
            let w = unsafe { src.add(i).cast::<u64>().read_unaligned() };
            if w & ASCII_MASK == 0 {
                // SAFETY: four ASCII units write four bytes, within the
                // caller's bound of (at least) one byte per unit.
                unsafe {
                    for k in 0..4 {
                        *dst.add(o + k) = *src.add(i + k) as u8;
                    }
                }
                i += 4;
                o += 4;
                continue;
            }
        }
        // SAFETY: `i < stop <= len`.
        let c = unsafe { *src.add(i) } as u32;
        if c < 0x80 {
            // SAFETY: one byte for one unit, within the caller's bound.
            unsafe { *dst.add(o) = c as u8 };
            i += 1;
            o += 1;
        } else if c & 0xF800 != 0xD800 {
            // Two or three bytes, chosen without a branch so mixed 2-/3-byte
            // text does not mispredict; stored as one 4-byte little-endian
            // word (at most WRITE_SLACK bytes past this character's end).
            let w2 = (0xC0 | (c >> 6)) | ((0x80 | (c & 0x3F)) << 8);
            let w3 = (0xE0 | (c >> 12)) | ((0x80 | ((c >> 6) & 0x3F)) << 8) | ((0x80 | (c & 0x3F)) << 16);
            let three = c >= 0x800;
            let w = if three { w3 } else { w2 };
            // SAFETY: the caller's bound allows 3 bytes for this unit plus
            // WRITE_SLACK, and 4 <= 2 + WRITE_SLACK, 4 <= 3 + WRITE_SLACK.
            unsafe { dst.add(o).cast::<[u8; 4]>().write_unaligned(w.to_le_bytes()) };
            i += 1;
            o += 2 + three as usize;
        } else {
            // A surrogate. A high one followed (inside the row) by a low one
            // is a supplementary code point; anything else is unpaired and
            // becomes '?', like the JDK encoder Flink defers to.
            if c < 0xDC00 && i + 1 < len {
                // SAFETY: `i + 1 < len`.
                let d = unsafe { *src.add(i + 1) } as u32;
                if d & 0xFC00 == 0xDC00 {
                    let cp = 0x10000 + ((c - 0xD800) << 10) + (d - 0xDC00);
                    let w = (0xF0 | (cp >> 18))
                        | ((0x80 | ((cp >> 12) & 0x3F)) << 8)
                        | ((0x80 | ((cp >> 6) & 0x3F)) << 16)
                        | ((0x80 | (cp & 0x3F)) << 24);
                    // SAFETY: two units allow 6 bytes; this writes 4.
                    unsafe { dst.add(o).cast::<[u8; 4]>().write_unaligned(w.to_le_bytes()) };
                    i += 2;
                    o += 4;
                    continue;
                }
            }
            // SAFETY: one byte for one unit.
            unsafe { *dst.add(o) = b'?' };
            i += 1;
            o += 1;
        }
    }
    (i, o)
}

/// Exact UTF-8 length of the encoding of `units` (see [`encode`]).
///
/// Counts 1 + (unit ≥ 0x80) + (unit ≥ 0x800) per unit in a loop the
/// compiler vectorises, which is exact except for surrogates (counted 3);
/// only when surrogates are present does a second, scalar pass correct them:
/// a pair is 4 bytes (counted 6) and an unpaired unit 1 byte (counted 3), so
/// each pair or unpaired unit takes 2 off the count.
pub(crate) fn utf8_len(units: &[u16]) -> usize {
    let mut total = units.len();
    let mut surrogates = 0usize;
    // u16 lane sums (at most 2 per unit) cannot overflow within 2^14 units,
    // which lets the compiler use 8/16 lanes per vector.
    for chunk in units.chunks(1 << 14) {
        let mut extra = 0u16;
        let mut sur = 0u16;
        for &c in chunk {
            extra += (c >= 0x80) as u16 + (c >= 0x800) as u16;
            sur += (c & 0xF800 == 0xD800) as u16;
        }
        total += extra as usize;
        surrogates += sur as usize;
    }
    if surrogates == 0 {
        return total;
    }
    let mut events = 0usize;
    let mut i = 0;
    while i < units.len() {
        let c = units[i];
        if c & 0xF800 == 0xD800 {
            events += 1;
            if c < 0xDC00 && units.get(i + 1).is_some_and(|&d| d & 0xFC00 == 0xDC00) {
                i += 2;
                continue;
            }
        }
        i += 1;
    }
    total - 2 * events
}
