//! The lane scheduler: feeds every lane its row's next block, pads each
//! message on the stack, retires finished lanes and refills them.
//!
//! Rows of different lengths share the lanes: a lane whose row is done is
//! refilled with the next row while its neighbours are still in the middle
//! of theirs. The only waste is at the end of a batch, when fewer rows than
//! lanes remain (idle lanes hash a zero block that nobody reads); once only
//! a few lanes are busy they are finished single-stream from their current
//! state, which bounds that waste.

/// Per-lane chaining state in lane-major ("transposed") form: word `i` of
/// lane `l` is `state[i][l]`. Sixteen columns fit every vector width.
pub(crate) type State<W> = [[W; 16]; 8];

/// A multi-buffer compression function: runs one block through every lane.
///
/// # Safety
///
/// `blocks[l]` must address `BLOCK` readable bytes for each lane
/// `l < lanes` of the kernel, and the CPU must have the kernel's features.
pub(crate) type Compress<W> = unsafe fn(&mut State<W>, &[*const u8; 16]);

/// What the scheduler needs to know about a hash algorithm.
pub(crate) trait Algo {
    /// State word.
    type W: Word;
    /// The digest.
    type Out: Copy;
    /// Block size in bytes (64 or 128).
    const BLOCK: usize;
    /// Bytes of the message-length field at the end of the padding.
    const LEN_BYTES: usize;
    /// Whether the length field is big-endian (SHA) or little-endian (MD5).
    const LEN_BE: bool;
    /// Initial chaining value (unused words zero).
    const IV: [Self::W; 8];
    /// The digest of lane `lane` after its last block.
    fn out(st: &State<Self::W>, lane: usize) -> Self::Out;
    /// The portable single-stream digest (the RustCrypto crates).
    fn single(bytes: &[u8]) -> Self::Out;
    /// Single-stream compression of whole blocks (`blocks.len()` a
    /// multiple of `BLOCK`) into one lane's state (first state words).
    fn compress_scalar(st: &mut [Self::W; 8], blocks: &[u8]);
}

/// A zero block for idle lanes to read.
static ZERO_BLOCK: [u8; 128] = [0; 128];

/// A lane's padding scratch: the last partial block plus padding, at most
/// two blocks of 128 bytes.
type Pad = [u8; 256];

/// Writes the final padded block(s) of a message of `len` bytes whose last
/// partial block is `tail` into `buf`; returns how many blocks (1 or 2).
#[inline(always)]
fn pad_message<A: Algo>(buf: &mut Pad, tail: &[u8], len: usize) -> usize {
    let block = A::BLOCK;
    debug_assert!(tail.len() < block);
    let npad = if tail.len() + 1 + A::LEN_BYTES <= block { 1 } else { 2 };
    let end = npad * block;
    // Zero a fixed-size prefix (inlined stores, no memset call), then lay
    // the tail, the 0x80 terminator and the length over it.
    if block == 64 {
        buf[..128].fill(0);
    } else {
        buf.fill(0);
    }
    buf[..tail.len()].copy_from_slice(tail);
    buf[tail.len()] = 0x80;
    let bits = (len as u128).wrapping_mul(8);
    if A::LEN_BYTES == 16 {
        buf[end - 16..end].copy_from_slice(&bits.to_be_bytes());
    } else if A::LEN_BE {
        buf[end - 8..end].copy_from_slice(&(bits as u64).to_be_bytes());
    } else {
        buf[end - 8..end].copy_from_slice(&(bits as u64).to_le_bytes());
    }
    npad
}

/// Hashes the non-NULL rows among `0..n` in `lanes` lanes with `compress`,
/// calling `emit(row, digest)` once per non-NULL row, in completion order
/// (not necessarily row order).
///
/// When no rows are left to start and only a few lanes are still busy (a
/// call costs about two single-stream blocks with 16 lanes), those lanes are
/// finished single-stream from their current state ("drain"), so a long row
/// at the end of a batch costs no more than hashing it alone.
///
/// # Safety
///
/// `compress` must be safe to call on this CPU with `lanes` valid block
/// pointers (it reads `A::BLOCK` bytes from each of the first `lanes`), and
/// `lanes <= 16`.
pub(crate) unsafe fn run<'a, A, R, E>(lanes: usize, compress: Compress<A::W>, n: usize, rows: R, mut emit: E)
where
    A: Algo,
    R: Fn(usize) -> Option<&'a [u8]>,
    E: FnMut(usize, &A::Out),
{
    debug_assert!(lanes <= 16 && A::BLOCK <= 128);
    let lanes = lanes.min(16);
    let mut st: State<A::W> = [[A::W::default(); 16]; 8];
    let mut pad: [Pad; 16] = [[0u8; 256]; 16];
    // Per lane: the full data blocks of its row not yet hashed, how many
    // padding blocks it has and how many of those are left (a lane with no
    // data and no padding left is idle), and its row index.
    let mut rest: [&'a [u8]; 16] = [&[]; 16];
    let mut pad_blocks = [0usize; 16];
    let mut pad_left = [0usize; 16];
    let mut row = [0usize; 16];
    let mut blocks: [*const u8; 16] = [ZERO_BLOCK.as_ptr(); 16];
    let mut next_row = 0usize;
    let mut active = 0usize;
    loop {
        if active < lanes && next_row < n {
            for l in 0..lanes {
                if pad_left[l] != 0 {
                    continue;
                }
                let mut found = None;
                while next_row < n {
                    let r = next_row;
                    next_row += 1;
                    if let Some(b) = rows(r) {
                        found = Some((r, b));
                        break;
                    }
                }
                let Some((r, b)) = found else { break };
                row[l] = r;
                for (s, iv) in st.iter_mut().zip(A::IV) {
                    s[l] = iv;
                }
                let (body, tail) = b.split_at(b.len() - b.len() % A::BLOCK);
                pad_blocks[l] = pad_message::<A>(&mut pad[l], tail, b.len());
                pad_left[l] = pad_blocks[l];
                rest[l] = body;
                active += 1;
            }
        }
        if active == 0 {
            break;
        }
        if next_row >= n && active * 8 <= lanes.max(8) {
            for l in 0..lanes {
                if pad_left[l] != 0 {
                    let mut s = [A::W::default(); 8];
                    for (w, col) in s.iter_mut().zip(&st) {
                        *w = col[l];
                    }
                    A::compress_scalar(&mut s, rest[l]);
                    let from = (pad_blocks[l] - pad_left[l]) * A::BLOCK;
                    A::compress_scalar(&mut s, &pad[l][from..pad_blocks[l] * A::BLOCK]);
                    for (w, col) in s.iter().zip(st.iter_mut()) {
                        col[l] = *w;
                    }
                    emit(row[l], &A::out(&st, l));
                }
            }
            break;
        }
        // Which lanes hash a padding block this round.
        let mut on_pad = [false; 16];
        for l in 0..lanes {
            blocks[l] = if pad_left[l] == 0 {
                ZERO_BLOCK.as_ptr()
            } else if let Some((block, after)) = rest[l].split_at_checked(A::BLOCK) {
                rest[l] = after;
                block.as_ptr()
            } else {
                on_pad[l] = true;
                let i = pad_blocks[l] - pad_left[l];
                pad[l][i * A::BLOCK..].as_ptr()
            };
        }
        // SAFETY: every pointer in `blocks[..lanes]` addresses `A::BLOCK`
        // readable bytes: a full block of a row slice that lives for 'a,
        // a block inside this lane's `pad` buffer (256 bytes, block index
        // < 2 and 2 * BLOCK <= 256), or the static zero block; the caller
        // vouches for `compress` on this CPU.
        unsafe { compress(&mut st, &blocks) };
        for l in 0..lanes {
            if on_pad[l] {
                pad_left[l] -= 1;
                if pad_left[l] == 0 {
                    emit(row[l], &A::out(&st, l));
                    active -= 1;
                }
            }
        }
    }
}

/// The portable path: every non-NULL row through [`Algo::single`], in row
/// order.
pub(crate) fn run_single<'a, A, R, E>(n: usize, rows: R, mut emit: E)
where
    A: Algo,
    R: Fn(usize) -> Option<&'a [u8]>,
    E: FnMut(usize, &A::Out),
{
    for r in 0..n {
        if let Some(b) = rows(r) {
            emit(r, &A::single(b));
        }
    }
}

/// A state word (`u32` or `u64`).
pub(crate) trait Word: Copy + Default {
    /// Its bytes.
    type Bytes: AsRef<[u8]>;
    /// Its bytes, big-endian (SHA-1, SHA-2) or little-endian (MD5).
    fn to_bytes(self, big_endian: bool) -> Self::Bytes;
}

macro_rules! word {
    ($($t:ty),*) => {$(
        impl Word for $t {
            type Bytes = [u8; size_of::<$t>()];
            #[inline(always)]
            fn to_bytes(self, big_endian: bool) -> Self::Bytes {
                if big_endian { self.to_be_bytes() } else { self.to_le_bytes() }
            }
        }
    )*};
}
word!(u32, u64);

/// The digest of `lane`: its first `N` bytes of state words, each in the
/// byte order `big_endian`.
#[inline(always)]
pub(crate) fn digest<W: Word, const N: usize>(st: &State<W>, lane: usize, big_endian: bool) -> [u8; N] {
    let mut out = [0u8; N];
    for (o, s) in out.chunks_exact_mut(size_of::<W>()).zip(st) {
        o.copy_from_slice(s[lane].to_bytes(big_endian).as_ref());
    }
    out
}
