//! Flink `BinaryRowData` ⇄ Arrow `RecordBatch` (in progress).
