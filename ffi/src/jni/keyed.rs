//! `io.sluice.jni.KeyedNative`: the keyed operators (group aggregate,
//! changelog normalize, dedup) behind Flink's keyBy, with per-key-group
//! snapshots.
