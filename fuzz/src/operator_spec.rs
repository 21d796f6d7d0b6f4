//! `sluice_engine::keyed::spec`: the one-line keyed operator spec
//! (`group_agg keys=0 aggs=count(*),sum(2) max_parallelism=128`, `dedup
//! keep=last order=proctime`, `normalize keys=id`, `topn keys=0 order=1:desc
//! strategy=append n=3`).
//!
//! `operator_spec`: arbitrary text against a small arbitrary schema (names
//! that are digits, `*`, `count(*)`, option names, empty or duplicated;
//! types a key or aggregate may or may not support):
//! * `spec::parse` is `Ok` or an error that starts with `bad operator spec: `
//!   and names part of the text (a word, option name or value of it; "empty
//!   spec" for blank text), never a panic;
//! * a parsed spec has its columns inside the schema and its
//!   `max_parallelism` in 1..=32768; printed back in canonical form (below:
//!   column indices, every option spelled out) it parses to the same spec;
//! * `KeyedOperator::new` on the text succeeds or fails exactly as
//!   `KeyedOperator::from_spec` on the parsed spec, never a panic; an
//!   operator that exists takes a small generated changelog batch (`Ok` or
//!   an error), and its snapshot restores into an operator created from the
//!   printed spec with the same number of keys (a `budget=` included: the
//!   operator's own snapshot always restores under its budget).

use std::sync::Arc;

use arbitrary::Arbitrary;
use arrow_array::{
    ArrayRef, BinaryArray, BooleanArray, Date32Array, Float64Array, Int32Array, Int64Array, RecordBatch, StringArray,
    TimestampMillisecondArray,
};
use arrow_schema::{DataType, Field, Schema, SchemaRef, TimeUnit};
use sluice_engine::keyed::spec::{self, OperatorSpec, SpecKind};
use sluice_engine::keyed::KeyedOperator;
use sluice_keyed::{
    AggKind, AggSpec, DedupOrder, Keep, OverFrame, OverTime, RowKind, SortColumn, StateBackendKind, TopNStrategy,
    WindowKind,
};

use crate::calc::Gen;

/// Field names: plain ones, a digit string (an index wins over it), `*`,
/// `count(*)`, an option name, one with `=`, the empty name, a duplicate.
pub const NAMES: [&str; 12] = ["id", "name", "n", "ts", "v", "7", "*", "count(*)", "keys", "x=y", "", "id"];

/// One input field.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub struct FieldSpec {
    /// Index into [`NAMES`].
    pub name: u8,
    /// Index into the type table.
    pub ty: u8,
    /// Nullable.
    pub nullable: bool,
}

/// Input of `operator_spec`.
#[derive(Arbitrary, Debug, Clone)]
pub struct Input {
    /// How many of `fields` the schema has (mod 6).
    pub fields: u8,
    /// The fields.
    pub cols: [FieldSpec; 5],
    /// Rows of the pushed batch (mod 8).
    pub rows: u8,
    /// Seed of its values and RowKinds.
    pub seed: u32,
    /// The spec text.
    pub text: String,
}

fn data_type(ty: u8) -> DataType {
    match ty % 9 {
        0 | 8 => DataType::Int64,
        1 => DataType::Utf8,
        2 => DataType::Int32,
        3 => DataType::Float64,
        4 => DataType::Boolean,
        5 => DataType::Timestamp(TimeUnit::Millisecond, None),
        6 => DataType::Binary,
        _ => DataType::Date32,
    }
}

/// The schema of `input`.
pub fn schema(input: &Input) -> SchemaRef {
    let fields: Vec<Field> = input.cols[..input.fields as usize % 6]
        .iter()
        .map(|f| Field::new(NAMES[f.name as usize % NAMES.len()], data_type(f.ty), f.nullable))
        .collect();
    Arc::new(Schema::new(fields))
}

fn agg_name(k: AggKind) -> &'static str {
    match k {
        AggKind::CountStar | AggKind::Count => "count",
        AggKind::Sum => "sum",
        AggKind::Sum0 => "sum0",
        AggKind::Min => "min",
        AggKind::Max => "max",
        AggKind::Avg => "avg",
        AggKind::FirstValue => "first_value",
        AggKind::LastValue => "last_value",
    }
}

fn list(v: &[usize]) -> String {
    v.iter().map(usize::to_string).collect::<Vec<_>>().join(",")
}

/// The canonical text of a parsed spec: columns by index, every option.
pub fn print(s: &OperatorSpec) -> String {
    let op = match s.kind {
        SpecKind::GroupAgg { .. } => "group_agg",
        SpecKind::Normalize { .. } => "normalize",
        SpecKind::Dedup { .. } => "dedup",
        SpecKind::TopN { .. } => "topn",
        SpecKind::Over(_) => "over",
        SpecKind::Window { .. } => "window",
    };
    let mut out =
        format!("{op} keys={} max_parallelism={} update_before={}", list(&s.keys), s.max_parallelism, s.update_before);
    if let Some(b) = s.budget {
        out.push_str(&format!(" budget={b}"));
    }
    match &s.kind {
        SpecKind::GroupAgg { aggs, retractable } => {
            out.push_str(&format!(" aggs={} retractable={retractable}", agg_list(aggs)));
        }
        SpecKind::Over(o) => {
            let order = match o.time {
                OverTime::ProcTime => "proctime".to_string(),
                OverTime::RowTime { column } => format!("rowtime({column})"),
            };
            let frame = match o.frame {
                OverFrame::RowsUnbounded => "rows preceding=unbounded".to_string(),
                OverFrame::RangeUnbounded => "range preceding=unbounded".to_string(),
                OverFrame::Rows(n) => format!("rows preceding={n}"),
                OverFrame::Range(ms) => format!("range preceding={ms}"),
            };
            out.push_str(&format!(" order={order} frame={frame} aggs={}", agg_list(&o.aggs)));
        }
        SpecKind::Window { window, rowtime, aggs, window_time } => {
            let w = match window.kind {
                WindowKind::Tumble { size } => format!("tumble({size})"),
                WindowKind::Hop { size, slide } => format!("hop({size},{slide})"),
                WindowKind::Cumulate { max_size, step } => format!("cumulate({max_size},{step})"),
            };
            out.push_str(&format!(
                " rowtime={rowtime} window={w} offset={} aggs={} window_time={window_time}",
                window.offset,
                agg_list(aggs)
            ));
        }
        SpecKind::Normalize { drop_equal_update_after } => {
            let v = if *drop_equal_update_after { "drop" } else { "emit" };
            out.push_str(&format!(" equal_update_after={v}"));
        }
        SpecKind::Dedup { keep, order, insert, backend } => {
            let keep = match keep {
                Keep::First => "first",
                Keep::Last => "last",
            };
            let order = match order {
                DedupOrder::ProcTime => "proctime".to_string(),
                DedupOrder::RowTime { column } => format!("rowtime({column})"),
            };
            let backend = match backend {
                StateBackendKind::HashMap => "hashmap",
                StateBackendKind::RocksDb => "rocksdb",
            };
            out.push_str(&format!(" keep={keep} order={order} insert={insert} backend={backend}"));
        }
        SpecKind::TopN { strategy, order, rank_start, rank_end, rank_number, row_key } => {
            let strategy = match strategy {
                TopNStrategy::AppendOnly => "append",
                TopNStrategy::Retract => "retract",
                TopNStrategy::FastTop1 => "top1",
                TopNStrategy::Update => "update",
            };
            out.push_str(&format!(
                " strategy={strategy} order={} rank_start={rank_start} rank_end={rank_end} rank_number={rank_number}",
                sort_list(order)
            ));
            if strategy == "update" {
                out.push_str(&format!(" row_key={}", list(row_key)));
            }
        }
    }
    out
}

/// `aggs=` spelled out.
fn agg_list(aggs: &[AggSpec]) -> String {
    let one = |a: &AggSpec| {
        let call = match (a.kind, a.column) {
            (AggKind::CountStar, _) | (_, None) => "count(*)".to_string(),
            (k, Some(c)) => format!("{}({c})", agg_name(k)),
        };
        let distinct = if a.distinct { ":distinct" } else { "" };
        let filter = a.filter.map(|f| format!(":filter({f})")).unwrap_or_default();
        format!("{call}{distinct}{filter}")
    };
    aggs.iter().map(one).collect::<Vec<_>>().join(",")
}

/// `order=` spelled out: `column:asc|desc:nulls_first|nulls_last` per entry.
fn sort_list(order: &[SortColumn]) -> String {
    let entry = |s: &SortColumn| {
        let dir = if s.descending { "desc" } else { "asc" };
        let nulls = if s.nulls_first { "nulls_first" } else { "nulls_last" };
        format!("{}:{dir}:{nulls}", s.column)
    };
    order.iter().map(entry).collect::<Vec<_>>().join(",")
}

/// Whether `message` names part of `text`: a whole word of it, a list
/// entry of a value, or a name or value inside a word.
fn names_the_text(message: &str, text: &str) -> bool {
    if text.split_ascii_whitespace().next().is_none() {
        return message.contains("empty spec");
    }
    let words = text.split_ascii_whitespace();
    let entries = text.split(|c: char| c.is_ascii_whitespace() || "=,".contains(c));
    let parts = text.split(|c: char| c.is_ascii_whitespace() || "=,()".contains(c));
    words.chain(entries).chain(parts).filter(|f| !f.is_empty()).any(|f| message.contains(f))
}

/// A batch of `schema` with small values (so that keys repeat), or `None`
/// for a type this generator lacks.
fn batch(schema: &SchemaRef, rows: usize, g: &mut Gen) -> Option<RecordBatch> {
    let mut columns: Vec<ArrayRef> = Vec::with_capacity(schema.fields().len());
    for f in schema.fields() {
        let nullable = f.is_nullable();
        let v = |g: &mut Gen| {
            let x = g.next_u32();
            (!(nullable && x.is_multiple_of(5))).then_some((x / 5 % 4) as i32 - 1)
        };
        let a: ArrayRef = match f.data_type() {
            DataType::Int64 => Arc::new((0..rows).map(|_| v(g).map(i64::from)).collect::<Int64Array>()),
            DataType::Int32 => Arc::new((0..rows).map(|_| v(g)).collect::<Int32Array>()),
            DataType::Float64 => Arc::new((0..rows).map(|_| v(g).map(f64::from)).collect::<Float64Array>()),
            DataType::Boolean => Arc::new((0..rows).map(|_| v(g).map(|x| x > 0)).collect::<BooleanArray>()),
            DataType::Date32 => Arc::new((0..rows).map(|_| v(g)).collect::<Date32Array>()),
            DataType::Timestamp(TimeUnit::Millisecond, None) => {
                Arc::new((0..rows).map(|_| v(g).map(i64::from)).collect::<TimestampMillisecondArray>())
            }
            DataType::Utf8 => {
                Arc::new((0..rows).map(|_| v(g).map(|x| "ab".repeat(x.max(0) as usize))).collect::<StringArray>())
            }
            DataType::Binary => {
                Arc::new((0..rows).map(|_| v(g).map(|x| vec![0xffu8; x.max(0) as usize])).collect::<BinaryArray>())
            }
            _ => return None,
        };
        columns.push(a);
    }
    let opts = arrow_array::RecordBatchOptions::new().with_row_count(Some(rows));
    Some(RecordBatch::try_new_with_options(Arc::clone(schema), columns, &opts).expect("generated batch"))
}

/// Runs the check on one input; panics on a mismatch.
pub fn check(input: &Input) {
    let schema = schema(input);
    let text = input.text.as_str();
    let parsed = match spec::parse(text, &schema) {
        Ok(s) => s,
        Err(e) => {
            let message = e.to_string();
            assert!(message.starts_with("bad operator spec: "), "{text:?}: {message}");
            assert!(names_the_text(&message, text), "{text:?}: the error names none of it: {message}");
            assert!(KeyedOperator::new(Arc::clone(&schema), text).is_err(), "{text:?}: new accepts it");
            return;
        }
    };

    // What a parsed spec holds.
    let n = schema.fields().len();
    assert!(parsed.keys.iter().all(|k| *k < n), "{text:?}: keys {:?}", parsed.keys);
    assert!((1..=1 << 15).contains(&parsed.max_parallelism), "{text:?}");
    match &parsed.kind {
        SpecKind::GroupAgg { aggs, .. } | SpecKind::Window { aggs, .. } => {
            assert!(!aggs.is_empty(), "{text:?}: no aggregate");
            for a in aggs {
                assert_eq!(a.column.is_none(), a.kind == AggKind::CountStar, "{text:?}: {a:?}");
                assert!(a.column.is_none_or(|c| c < n), "{text:?}: {a:?}");
                assert!(a.filter.is_none_or(|c| c < n), "{text:?}: {a:?}");
                assert!(!(a.distinct && a.column.is_none()), "{text:?}: {a:?}");
            }
        }
        SpecKind::Normalize { .. } => assert!(!parsed.keys.is_empty(), "{text:?}: no key"),
        SpecKind::Dedup { order, .. } => {
            assert!(!parsed.keys.is_empty(), "{text:?}: no key");
            if let DedupOrder::RowTime { column } = order {
                assert!(*column < n, "{text:?}: rowtime column {column}");
            }
        }
        SpecKind::TopN { order, rank_start, rank_end, row_key, .. } => {
            assert!(!order.is_empty() && order.iter().all(|s| s.column < n), "{text:?}: order {order:?}");
            assert!(row_key.iter().all(|c| *c < n), "{text:?}: row_key {row_key:?}");
            assert!(1 <= *rank_start && rank_start <= rank_end, "{text:?}: ranks {rank_start}..={rank_end}");
        }
        SpecKind::Over(o) => {
            assert!(!o.aggs.is_empty() && o.aggs.iter().all(|a| a.column.is_none_or(|c| c < n)), "{text:?}");
            if let OverTime::RowTime { column } = o.time {
                assert!(column < n, "{text:?}: rowtime column {column}");
            }
            let proctime_range = o.time == OverTime::ProcTime && matches!(o.frame, OverFrame::Range(_));
            assert!(!proctime_range, "{text:?}: proctime RANGE INTERVAL accepted");
        }
    }

    // The canonical text parses to the same spec.
    let printed = print(&parsed);
    let again = spec::parse(&printed, &schema)
        .unwrap_or_else(|e| panic!("{text:?} printed as {printed:?} does not parse: {e}"));
    assert_eq!(again, parsed, "{text:?} printed as {printed:?}");

    // The operator: from the text exactly as from the parsed spec.
    let from_text = KeyedOperator::new(Arc::clone(&schema), text);
    let from_spec = KeyedOperator::from_spec(Arc::clone(&schema), parsed.clone());
    let (mut op, from_text) = match (from_spec, from_text) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(a), Err(b)) => {
            assert_eq!(a.to_string(), b.to_string(), "{text:?}");
            return;
        }
        (a, b) => panic!("{text:?}: from_spec {:?}, new {:?}", a.err(), b.err()),
    };
    assert_eq!(from_text.spec(), &parsed);
    assert_eq!(op.input_schema(), &schema);

    // A small changelog, a snapshot and its restore.
    let mut g = Gen::new(input.seed);
    let rows = input.rows as usize % 8;
    let Some(b) = batch(&schema, rows, &mut g) else {
        return;
    };
    let kinds: Vec<RowKind> = (0..rows)
        .map(|_| match g.next_u32() % 8 {
            5 => RowKind::UpdateBefore,
            6 => RowKind::Delete,
            7 => RowKind::UpdateAfter,
            _ => RowKind::Insert,
        })
        .collect();
    if let Ok((out, out_kinds)) = op.push(&b, &kinds) {
        assert_eq!(out.num_rows(), out_kinds.len(), "{text:?}: output rows vs kinds");
        assert_eq!(out.schema().fields().len(), op.output_schema().fields().len(), "{text:?}");
    }
    let range = op.key_group_range(0, parsed.max_parallelism - 1).expect("the full key group range");
    let snap = op.snapshot(range).expect("snapshot");
    let mut restored = KeyedOperator::new(Arc::clone(&schema), &printed).unwrap_or_else(|e| panic!("{printed:?}: {e}"));
    match restored.restore(&[&snap], range) {
        Ok(()) => assert_eq!(restored.num_keys(), op.num_keys(), "{text:?}: keys after restore"),
        Err(e) => panic!("{text:?}: restore of its own snapshot: {e}"),
    }
}
