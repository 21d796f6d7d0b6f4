//! Memcomparable sort-key bytes as B-tree keys, compared inline.
//!
//! A partition's rows are ordered by their arrow-row sort-key bytes, so the
//! B-tree compares byte strings on every step of a search. `[u8]`'s own
//! `Ord` calls `memcmp` for each comparison, which for the short keys of
//! Top-N (9 bytes for one BIGINT column) costs more than the compare
//! itself. [`SortKey`] orders exactly as `[u8]` does (lexicographically,
//! a prefix first) but compares 8 bytes at a time as big-endian words in
//! line; the stored [`OwnedSortKey`] compares the same way (a new bucket's
//! insert searches with it) and holds short keys inline, so creating a
//! bucket does not allocate for its key.

use std::borrow::Borrow;
use std::cmp::Ordering;

/// Borrowed sort-key bytes, the B-tree's lookup type.
#[derive(Debug, PartialEq, Eq)]
#[repr(transparent)]
pub(crate) struct SortKey([u8]);

impl SortKey {
    /// `bytes` as a sort key.
    #[inline(always)]
    pub(crate) fn new(bytes: &[u8]) -> &SortKey {
        // SAFETY: `SortKey` is `repr(transparent)` over `[u8]`, so a
        // `&[u8]` and a `&SortKey` have the same layout and metadata (the
        // length); the lifetime is carried over unchanged.
        unsafe { &*(bytes as *const [u8] as *const SortKey) }
    }
}

impl Ord for SortKey {
    #[inline(always)]
    fn cmp(&self, other: &Self) -> Ordering {
        cmp_bytes(&self.0, &other.0)
    }
}

impl PartialOrd for SortKey {
    #[inline(always)]
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Keys up to this many bytes are held inline in an [`OwnedSortKey`].
const INLINE: usize = 22;

/// Owned sort-key bytes, the B-tree's key type (copied once, when a sort
/// key first appears in a partition). A key of up to [`INLINE`] bytes (one
/// or two numeric ORDER BY columns, a short string) is held in the B-tree
/// slot itself, so a new sort key allocates nothing; a longer one is boxed.
/// It orders exactly as [`SortKey`] (as `Borrow` requires), through the
/// same inline comparison.
#[derive(Debug)]
pub(crate) enum OwnedSortKey {
    Inline(u8, [u8; INLINE]),
    Heap(Box<[u8]>),
}

impl OwnedSortKey {
    pub(crate) fn new(bytes: &[u8]) -> Self {
        if bytes.len() > INLINE {
            return OwnedSortKey::Heap(Box::from(bytes));
        }
        let mut inline = [0u8; INLINE];
        inline[..bytes.len()].copy_from_slice(bytes);
        OwnedSortKey::Inline(bytes.len() as u8, inline)
    }

    #[inline(always)]
    fn bytes(&self) -> &[u8] {
        match self {
            OwnedSortKey::Inline(n, b) => &b[..*n as usize],
            OwnedSortKey::Heap(b) => b,
        }
    }

    /// Length in bytes.
    pub(crate) fn len(&self) -> usize {
        self.bytes().len()
    }

    /// The key as the B-tree's lookup type.
    #[inline(always)]
    pub(crate) fn as_key(&self) -> &SortKey {
        SortKey::new(self.bytes())
    }
}

impl Ord for OwnedSortKey {
    #[inline(always)]
    fn cmp(&self, other: &Self) -> Ordering {
        cmp_bytes(self.bytes(), other.bytes())
    }
}

impl PartialOrd for OwnedSortKey {
    #[inline(always)]
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for OwnedSortKey {
    fn eq(&self, other: &Self) -> bool {
        self.bytes() == other.bytes()
    }
}

impl Eq for OwnedSortKey {}

impl Borrow<SortKey> for OwnedSortKey {
    #[inline(always)]
    fn borrow(&self) -> &SortKey {
        self.as_key()
    }
}

/// `a.cmp(b)` for byte strings, without a `memcmp` call: the common prefix
/// 8 bytes at a time (big-endian words order as their bytes do), then the
/// tail byte by byte, then the shorter first.
#[inline(always)]
pub(crate) fn cmp_bytes(a: &[u8], b: &[u8]) -> Ordering {
    let n = a.len().min(b.len());
    let (a8, b8) = (a[..n].chunks_exact(8), b[..n].chunks_exact(8));
    let (ta, tb) = (a8.remainder(), b8.remainder());
    for (x, y) in a8.zip(b8) {
        let (mut u, mut v) = ([0u8; 8], [0u8; 8]);
        u.copy_from_slice(x);
        v.copy_from_slice(y);
        let (u, v) = (u64::from_be_bytes(u), u64::from_be_bytes(v));
        if u != v {
            return u.cmp(&v);
        }
    }
    for (x, y) in ta.iter().zip(tb) {
        if x != y {
            return x.cmp(y);
        }
    }
    a.len().cmp(&b.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Orders exactly as `[u8]` does, whatever the lengths (inline and boxed
        /// owned keys alike).
        #[test]
        fn orders_as_byte_slices(a in prop::collection::vec(0u8..4, 0..40), b in prop::collection::vec(0u8..4, 0..40)) {
            prop_assert_eq!(cmp_bytes(&a, &b), a.cmp(&b));
            prop_assert_eq!(SortKey::new(&a).cmp(SortKey::new(&b)), a.cmp(&b));
            let (oa, ob) = (OwnedSortKey::new(&a), OwnedSortKey::new(&b));
            prop_assert_eq!(oa.cmp(&ob), a.cmp(&b));
            prop_assert_eq!(oa == ob, a == b);
            prop_assert_eq!((oa.len(), oa.as_key()), (a.len(), SortKey::new(&a)));
        }
    }
}
