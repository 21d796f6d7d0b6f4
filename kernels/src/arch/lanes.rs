//! The vector operations the multi-buffer compression functions are written
//! in; the implementations live per instruction set under
//! `arch/x86_64/<isa>/lanes.rs`.
//!
//! Each algorithm's compression body (`multibuffer::md5` and friends) is a
//! generic `#[inline(always)]` function over [`V32`] or [`V64`]. It is
//! instantiated inside a `#[target_feature]` function per instruction set,
//! so every trait method below inlines into code compiled for that set
//! (the same arrangement as memchr's `Vector` trait).
//!
//! A vector holds one 32-bit (or 64-bit) word of *each lane*, i.e. of each
//! message being hashed. [`V32::load_block`] turns one 64-byte block per lane
//! into the 16 message words in that lane-per-element ("transposed") layout.

#![allow(clippy::missing_safety_doc)] // the contract is on the traits
// Only the x86-64 implementations exist so far.
#![cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]

/// A vector of `LANES` words of type [`Word`](Self::Word): the operations
/// every digest's compression is written in, whatever the word size.
///
/// # Safety
///
/// Every method may only be called from code compiled with the target
/// features of the implementing type (for `arch::x86_64::avx512::lanes`:
/// `avx512f` and `avx512bw`; for `arch::x86_64::avx2::lanes`: `avx2`), and
/// only on a CPU that has them.
pub(crate) unsafe trait Lanes: Copy {
    /// The lane word (`u32` or `u64`).
    type Word;
    /// Loads `LANES` words from `p`.
    unsafe fn load(p: *const Self::Word) -> Self;
    /// Stores `LANES` words to `p`.
    unsafe fn store(self, p: *mut Self::Word);
    /// `x` in every lane.
    unsafe fn splat(x: Self::Word) -> Self;
    /// Lane-wise wrapping add.
    unsafe fn add(self, b: Self) -> Self;
    /// Lane-wise xor.
    unsafe fn xor(self, b: Self) -> Self;
    /// Lane-wise and.
    unsafe fn and(self, b: Self) -> Self;
    /// Lane-wise or.
    unsafe fn or(self, b: Self) -> Self;
    /// Lane-wise `!self & b`.
    unsafe fn andnot(self, b: Self) -> Self;
    /// Lane-wise logical shift right by `n`.
    unsafe fn shr(self, n: u32) -> Self;

    /// `(x & y) | (!x & z)` (MD5 F, SHA Ch).
    #[inline(always)]
    unsafe fn ch(x: Self, y: Self, z: Self) -> Self {
        // SAFETY: same target features as the caller's (trait contract).
        unsafe { x.and(y).xor(x.andnot(z)) }
    }
    /// Majority of the three bits (SHA Maj).
    #[inline(always)]
    unsafe fn maj(x: Self, y: Self, z: Self) -> Self {
        // SAFETY: same target features as the caller's (trait contract).
        unsafe { x.and(y).or(z.and(x.or(y))) }
    }
    /// `x ^ y ^ z`.
    #[inline(always)]
    unsafe fn xor3(x: Self, y: Self, z: Self) -> Self {
        // SAFETY: same target features as the caller's (trait contract).
        unsafe { x.xor(y).xor(z) }
    }
}

/// A vector of `LANES` 32-bit words (MD5, SHA-1, SHA-256).
///
/// # Safety
///
/// As for [`Lanes`].
pub(crate) unsafe trait V32: Lanes<Word = u32> {
    /// Lane-wise rotate left by `n` (`0 < n < 32`, a constant after inlining).
    unsafe fn rotl(self, n: u32) -> Self;
    /// Lane-wise shift left by `n`.
    unsafe fn shl(self, n: u32) -> Self;

    /// MD5's I function, `y ^ (x | !z)`.
    #[inline(always)]
    unsafe fn md5_i(x: Self, y: Self, z: Self) -> Self {
        // SAFETY: same target features as the caller's (trait contract).
        unsafe { y.xor(x.or(z.xor(Self::splat(u32::MAX)))) }
    }

    /// Loads word-block `blocks[l]` (64 readable bytes each, lanes
    /// `0..LANES`) and returns its 16 words transposed: `out[w]` lane `l` is
    /// word `w` of lane `l`'s block, little-endian, or big-endian when `BE`.
    unsafe fn load_block<const BE: bool>(blocks: &[*const u8; 16]) -> [Self; 16];
}

/// A vector of `LANES` 64-bit words (SHA-512 family).
///
/// # Safety
///
/// As for [`Lanes`].
pub(crate) unsafe trait V64: Lanes<Word = u64> {
    /// Lane-wise rotate right by `n` (a constant after inlining).
    unsafe fn rotr(self, n: u32) -> Self;

    /// Loads one 128-byte block per lane (`blocks[l]`, lanes `0..LANES`) and
    /// returns its 16 big-endian 64-bit words transposed.
    unsafe fn load_block_be(blocks: &[*const u8; 16]) -> [Self; 16];
}
