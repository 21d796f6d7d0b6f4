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

    #[inline]
    pub(crate) fn charge(&mut self, add: usize) {
        self.bytes = self.bytes.saturating_add(add);
    }

    #[inline]
    pub(crate) fn release(&mut self, sub: usize) {
        self.bytes = self.bytes.saturating_sub(sub);
    }
}
