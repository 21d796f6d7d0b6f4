//! What the append-only, retracting and Top-1 rankers charge to state
//! accounting per stored row and per sort key bucket, besides the bytes
//! themselves.

/// Bytes charged per stored row on top of its payload (the `Arc` header and
/// the bucket slot). An estimate, documented as such.
pub(super) const ROW_OVERHEAD: usize = 24;
/// Bytes charged per sort key bucket on top of its key bytes (B-tree slot,
/// the bucket `Vec` header). An estimate.
pub(super) const BUCKET_OVERHEAD: usize = 48;
