//! The operators C and Java bind to, as plain Rust.
//!
//! `sluice-engine` sits between the building blocks (`sluice-kernels`,
//! `sluice-transpose`, `sluice-keyed`) and the bindings (`sluice-ffi`: the C
//! ABI and the JNI entry points of the Flink jar). Everything here takes and
//! returns Rust values; pointers, Java arrays and ownership rules live in
//! the bindings, so Rust programs, fuzz targets and every binding run the
//! same code.
//!
//! * [`calc`]: a native Calc, a projection list of string functions
//!   compiled once ([`CalcProgram`]) and evaluated over batches of Flink
//!   rows or columns.
//! * [`keyed`]: the keyed operators (group aggregate, changelog normalize,
//!   deduplicate) created from a one-line spec ([`KeyedOperator`] over Arrow
//!   batches, [`KeyedRowOperator`] over Flink rows), with Flink key-group
//!   snapshots.
//! * [`function`]: the string functions, their Flink output types, and the
//!   call into the kernels.
//! * [`flink_type`]: Flink types carried as Arrow field metadata.
//! * [`Error`]: the one error type.
//!
//! # A Calc program
//!
//! Compiled once from the input columns' names and Flink types and one
//! expression per output column (the grammar is [`calc::spec`]'s), then run
//! over Flink `BinaryRowData` rows: entry transpose, the kernels, exit
//! transpose, RowKinds kept.
//!
//! ```
//! use std::sync::Arc;
//!
//! use arrow_array::cast::AsArray;
//! use arrow_array::{Array, ArrayRef, Int64Array, RecordBatch, StringArray};
//! use sluice_engine::CalcProgram;
//! use sluice_transpose::{FlinkType, NullLayout, RowAddress, RowConverter, RowKind, Rows, TypeKind};
//!
//! let names = ["name".to_string(), "id".to_string()];
//! let types = [FlinkType::string(), FlinkType::new(TypeKind::BigInt).with_nullable(false)];
//! let mut program = CalcProgram::new(&names, &types, &["MD5(name) AS h", "CONCAT(name, '!')", "id"], None)?;
//! assert_eq!(program.output_names(), ["h", "EXPR$1", "id"]);
//! let out_types: Vec<String> = program.output_types().iter().map(ToString::to_string).collect();
//! assert_eq!(out_types, ["CHAR(32)", "VARCHAR(2147483647)", "BIGINT NOT NULL"]);
//!
//! // Two input rows as Flink serialises them, each in its own segment.
//! let input = RowConverter::from_flink_types(&["name", "id"], &types)?;
//! let columns: Vec<ArrayRef> =
//!     vec![Arc::new(StringArray::from(vec![Some("abc"), None])), Arc::new(Int64Array::from(vec![1, 2]))];
//! let batch = RecordBatch::try_new(Arc::clone(input.schema()), columns)?;
//! let rows = input.batch_to_rows(&batch, Some(&[RowKind::Insert, RowKind::Delete]), NullLayout::Serializer)?;
//! let segments: Vec<&[u8]> = rows.iter().collect();
//! let addresses: Vec<RowAddress> =
//!     segments.iter().enumerate().map(|(i, s)| RowAddress { segment: i, offset: 0, len: s.len() }).collect();
//!
//! let mut out = Rows::default();
//! program.process_segments(&segments, &addresses, &mut out)?;
//!
//! let names: Vec<&str> = program.output_names().iter().map(String::as_str).collect();
//! let (projected, kinds) = RowConverter::from_flink_types(&names, program.output_types())?
//!     .rows_to_batch(&out.data, &out.offsets)?;
//! assert_eq!(kinds, [RowKind::Insert, RowKind::Delete]);
//! let h = projected.column(0).as_string::<i32>();
//! assert_eq!(h.value(0), "900150983cd24fb0d6963f7d28e17f72"); // MD5("abc")
//! assert!(h.is_null(1));
//! assert_eq!(projected.column(1).as_string::<i32>().value(0), "abc!");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # A keyed operator: push, snapshot, restore
//!
//! A `GROUP BY` aggregate over Arrow batches. Its state is snapshotted by
//! Flink key group, and a fresh operator of the same spec restored from the
//! snapshot carries on where the first one stopped.
//!
//! ```
//! use std::sync::Arc;
//!
//! use arrow_array::cast::AsArray;
//! use arrow_array::types::Int64Type;
//! use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray};
//! use arrow_schema::{DataType, Field, Schema};
//! use sluice_engine::KeyedOperator;
//! use sluice_keyed::{KeyGroupRange, RowKind};
//!
//! let schema = Arc::new(Schema::new(vec![
//!     Field::new("k", DataType::Utf8, false),
//!     Field::new("v", DataType::Int64, true),
//! ]));
//! let batch = |keys: Vec<&str>, values: Vec<i64>| {
//!     let columns: Vec<ArrayRef> = vec![Arc::new(StringArray::from(keys)), Arc::new(Int64Array::from(values))];
//!     RecordBatch::try_new(Arc::clone(&schema), columns)
//! };
//! let spec = "group_agg keys=k aggs=count(*),sum(v)";
//! let mut op = KeyedOperator::new(Arc::clone(&schema), spec)?;
//!
//! // +I a, +I b: each key's first row emits +I.
//! let (out, kinds) = op.push(&batch(vec!["a", "b"], vec![1, 2])?, &[RowKind::Insert; 2])?;
//! assert_eq!(kinds, [RowKind::Insert, RowKind::Insert]);
//! let column = |b: &RecordBatch, i: usize| b.column(i).as_primitive::<Int64Type>().values().to_vec();
//! assert_eq!(column(&out, 2), [1, 2]); // sum(v) of a and b
//!
//! // Snapshot every key group, restore into a new operator.
//! let all = KeyGroupRange::all(op.max_parallelism());
//! let snapshot = op.snapshot(all)?;
//! let mut restored = KeyedOperator::new(Arc::clone(&schema), spec)?;
//! restored.restore(&[&snapshot], all)?;
//! assert_eq!(restored.num_keys(), 2);
//!
//! // Another row of key a retracts the old result (-U) and emits the new one (+U).
//! let (out, kinds) = restored.push(&batch(vec!["a"], vec![10])?, &[RowKind::Insert])?;
//! assert_eq!(kinds, [RowKind::UpdateBefore, RowKind::UpdateAfter]);
//! assert_eq!(column(&out, 1), [1, 2]); // count(*): before, after
//! assert_eq!(column(&out, 2), [1, 11]); // sum(v): before, after
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod calc;
pub mod error;
pub mod flink_type;
pub mod function;
pub mod keyed;

pub use calc::CalcProgram;
pub use error::{Error, Result};
pub use keyed::{KeyedOperator, KeyedRowOperator};
