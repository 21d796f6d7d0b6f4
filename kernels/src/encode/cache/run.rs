//! The cache's state while a batch runs (see [`super::batch`]).

/// The cache's state during one batch, written back by
/// [`CachedEncoder::commit`](super::CachedEncoder::commit).
pub(crate) struct Run {
    pub(crate) hits: u64,
    pub(crate) misses: u64,
    pub(crate) ineligible: u64,
    pub(crate) consecutive: u32,
    /// Eight consecutive misses happened: release the cache for good.
    pub(crate) bypassed: bool,
    /// The previous eligible value's units (`prev_len` of them; `usize::MAX`
    /// when there is none, which no eligible length equals).
    pub(crate) prev_units: *const u16,
    pub(crate) prev_len: usize,
    /// Its UTF-8 bytes.
    pub(crate) prev_bytes: *const u8,
    pub(crate) prev_bytes_len: usize,
    /// Whether `prev_*` point into this batch (input units and output
    /// values) rather than into the encoder's own buffers.
    pub(crate) in_batch: bool,
}
