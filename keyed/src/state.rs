//! Byte-keyed state maps and state accounting.
//!
//! Every operator keys its state by the encoded key bytes, owned as
//! `Box<[u8]>`. `Box<[u8]>: Borrow<[u8]>`, so a probe hashes and compares
//! the borrowed bytes straight out of the batch's [`KeyBlock`](crate::KeyBlock):
//! a key already in state allocates nothing, and a key is copied exactly once,
//! when it is first inserted.

use crate::error::{Error, Result};

/// A state map keyed by encoded key bytes (hashbrown with its default
/// foldhash hasher).
pub type ByteKeyMap<V> = hashbrown::HashMap<Box<[u8]>, V>;

/// Bookkeeping overhead charged per state entry on top of the key bytes and
/// the value's own size: the hash table slot's control byte and load-factor
/// slack, and the key's heap header. An estimate, documented as such.
pub(crate) const ENTRY_OVERHEAD: usize = 32;

/// Retained-bytes counter with an optional budget.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Accounting {
    pub(crate) bytes: usize,
    pub(crate) budget: Option<usize>,
}

impl Accounting {
    pub(crate) fn new(budget: Option<usize>) -> Self {
        Accounting { bytes: 0, budget }
    }

    /// Checks that `add` more bytes fit the budget, without charging them.
    #[inline]
    pub(crate) fn check(&self, add: usize) -> Result<()> {
        if let Some(budget) = self.budget {
            let needed = self.bytes.saturating_add(add);
            if needed > budget {
                return Err(Error::StateBudgetExceeded { needed, budget });
            }
        }
        Ok(())
    }

    /// [`check`](Self::check)s then [`charge`](Self::charge)s `add` bytes.
    #[inline]
    pub(crate) fn admit(&mut self, add: usize) -> Result<()> {
        self.check(add)?;
        self.charge(add);
        Ok(())
    }

    #[inline]
    pub(crate) fn charge(&mut self, add: usize) {
        self.bytes = self.bytes.saturating_add(add);
    }

    #[inline]
    pub(crate) fn release(&mut self, sub: usize) {
        self.bytes = self.bytes.saturating_sub(sub);
    }
}

/// A borrowed probe key for [`ByteKeyMap`]: hashes exactly like the stored
/// `Box<[u8]>` (both hash as `[u8]`) and compares 8 bytes at a time, since
/// encoded Flink key rows are always a multiple of 8 bytes long (an inline
/// word compare beats a `memcmp` call for 16–32-byte keys).
#[derive(Hash, Clone, Copy, Debug)]
pub struct KeyProbe<'a>(pub &'a [u8]);

impl hashbrown::Equivalent<Box<[u8]>> for KeyProbe<'_> {
    #[inline(always)]
    fn equivalent(&self, key: &Box<[u8]>) -> bool {
        eq_key_bytes(self.0, key)
    }
}

#[inline(always)]
pub(crate) fn eq_key_bytes(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    // Byte loop, not `==`: slice equality would call `memcmp` even for the
    // empty tail of an 8-byte-multiple key.
    let tail_eq = ca.remainder().iter().zip(cb.remainder()).all(|(x, y)| x == y);
    tail_eq
        && ca.zip(cb).all(|(x, y)| {
            let (mut u, mut v) = ([0u8; 8], [0u8; 8]);
            u.copy_from_slice(x);
            v.copy_from_slice(y);
            u64::from_ne_bytes(u) == u64::from_ne_bytes(v)
        })
}
