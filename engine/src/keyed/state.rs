//! The key-group state API every keyed operator offers, as one trait: a
//! binding (the C handles, the JNI classes) writes each snapshot / restore
//! entry point once, generic over [`KeyedState`], so every operator kind
//! gets the same checks and errors.

use sluice_keyed::KeyGroupRange;

use crate::error::Result;
use crate::keyed::{JoinOperator, KeyedOperator};

/// Snapshot and restore by Flink key group, and the retained state size,
/// of one keyed operator.
pub trait KeyedState {
    /// `first..=last` as a key-group range of the operator's max
    /// parallelism.
    ///
    /// # Errors
    /// [`Error::Invalid`](crate::Error::Invalid) unless
    /// `0 <= first <= last < max_parallelism`.
    fn key_group_range(&self, first: i32, last: i32) -> Result<KeyGroupRange>;

    /// The state of the key groups of `range` as one blob.
    ///
    /// # Errors
    /// As the operator's `snapshot`.
    fn snapshot(&self, range: KeyGroupRange) -> Result<Vec<u8>>;

    /// The state of the key groups of `range`, one blob per key group (empty
    /// for a key group without state).
    ///
    /// # Errors
    /// An empty range.
    fn snapshot_key_groups(&self, range: KeyGroupRange) -> Result<Vec<Vec<u8>>>;

    /// Adds the state of the `blobs` whose key group is in `range`.
    ///
    /// # Errors
    /// As the operator's `restore`: a corrupt or foreign blob, the budget.
    fn restore(&mut self, blobs: &[&[u8]], range: KeyGroupRange) -> Result<()>;

    /// Retained state bytes (what `budget=` bounds).
    fn size(&self) -> usize;
}

/// Implements [`KeyedState`] by the operators' inherent methods of the same
/// names.
macro_rules! keyed_state {
    ($($t:ty),*) => {$(
        impl KeyedState for $t {
            fn key_group_range(&self, first: i32, last: i32) -> Result<KeyGroupRange> {
                <$t>::key_group_range(self, first, last)
            }
            fn snapshot(&self, range: KeyGroupRange) -> Result<Vec<u8>> {
                <$t>::snapshot(self, range)
            }
            fn snapshot_key_groups(&self, range: KeyGroupRange) -> Result<Vec<Vec<u8>>> {
                <$t>::snapshot_key_groups(self, range)
            }
            fn restore(&mut self, blobs: &[&[u8]], range: KeyGroupRange) -> Result<()> {
                <$t>::restore(self, blobs, range)
            }
            fn size(&self) -> usize {
                <$t>::size(self)
            }
        }
    )*};
}

keyed_state!(KeyedOperator, JoinOperator);
