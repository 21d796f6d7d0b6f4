//! Keyed streaming operators over Arrow batches that agree with Flink SQL on
//! key groups and on the changelog they emit.
//!
//! * [`key_groups`] / [`KeyedExchange`]: Flink's key group and channel per
//!   row (`KeyGroupRangeAssignment`), and the per-channel split of a batch.
//! * [`GroupAggregate`]: GROUP BY over a changelog (`GroupAggFunction`).
//! * [`ChangelogNormalize`]: upsert stream → full changelog
//!   (`ProcTimeDeduplicateKeepLastRowFunction` on a changelog).
//! * [`StreamingJoin`]: the updating INNER / LEFT / RIGHT / FULL join of two
//!   changelogs (`StreamingJoinOperator`).
//! * [`Deduplicate`]: ROW_NUMBER() = 1 keep-first / keep-last, by
//!   arrival order or by an event-time column (`ProcTimeDeduplicate*`,
//!   `RowTimeDeduplicateFunction`).
//! * [`TopN`]: ROW_NUMBER Top-N over a changelog, with each of Flink's
//!   ranking functions (`AppendOnlyTopNFunction`, `RetractableTopNFunction`,
//!   `FastTop1Function`, `UpdatableTopNFunction`).
//! * [`OverAggregate`]: `agg OVER (PARTITION BY … ORDER BY time ROWS|RANGE …)`,
//!   unbounded or bounded preceding, rowtime or proctime (the
//!   `RowTime*PrecedingFunction`s and `ProcTime*PrecedingFunction`s).
//! * [`WindowAggregate`]: the window TVF aggregate over TUMBLE, HOP and
//!   CUMULATE on rowtime (`WindowAggOperator` with the slicing processors).
//!
//! # Borrow before owning
//! State is keyed by the encoded key bytes ([`ByteKeyMap`]); the key rows of a
//! batch are encoded once into a reused [`KeyBlock`] and every probe borrows
//! its bytes from there. A row whose key is already in state allocates
//! nothing; a key is copied once, when it first enters state. Keep-last
//! payloads are `Arc<[u8]>`, so the `-U` of a replaced row moves the stored
//! payload out instead of copying it.
//!
//! # Keys
//! State keys and key groups use Flink's `BinaryRowData` key bytes
//! ([`FlinkKeyEncoder`], behind the [`KeyEncoder`] seam), so snapshots can be
//! grouped by Flink key group and a restore at another parallelism takes just
//! its key-group range. Stored rows (keep-last / normalize payloads) use
//! arrow-row, decoded once per batch on emission.

pub mod agg;
pub mod dedup;
pub mod error;
pub mod exchange;
pub mod flink_hash;
pub mod group_agg;
pub mod join;
pub mod key_encoder;
mod keyed_rows;
pub mod normalize;
pub mod over;
mod payload;
pub mod row_kind;
mod rowtime;
#[cfg(feature = "public_imp")]
mod scalar_value;
pub mod snapshot;
pub mod state;
pub mod topn;
pub mod window;

pub use agg::{AggKind, AggSpec};
pub use dedup::{DedupOptions, DedupOrder, Deduplicate, Keep, StateBackendKind};
pub use error::{Error, Result};
pub use exchange::{key_groups, KeyedExchange};
pub use flink_hash::{
    default_max_parallelism, hash_binary_row, hash_bytes_by_words, key_group_for_hash, key_group_range_for_operator,
    murmur_hash, operator_index_for_key_group, ChannelAssigner, KeyGroupRange,
};
pub use group_agg::{GroupAggOptions, GroupAggregate};
pub use join::{CmpOp, CondTerm, JoinLine, JoinOptions, JoinSide, JoinType, StreamingJoin, ViewKind};
pub use key_encoder::{FlinkKeyEncoder, KeyBlock, KeyEncoder, TransposeKeyEncoder};
pub use normalize::{ChangelogNormalize, NormalizeOptions};
pub use over::{OverAggregate, OverFrame, OverOptions, OverTime};
pub use row_kind::RowKind;
pub use state::{ByteKeyMap, KeyProbe};
pub use topn::{SortColumn, TopN, TopNOptions, TopNStrategy};
pub use window::{WindowAggOptions, WindowAggregate, WindowKind, WindowSpec};
