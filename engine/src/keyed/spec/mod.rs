//! The operator spec: a one-line text description of a keyed operator.
//!
//! ```text
//! spec      := operator ( ' '+ option )*
//! operator  := "group_agg" | "normalize" | "dedup" | "topn"
//! option    := name '=' value            (no spaces inside an option)
//! columns   := column ( ',' column )*
//! column    := index | name              (0-based field index, or a field name)
//! bool      := "true" | "false"
//!
//! every operator:
//!   keys=columns              the key (GROUP BY / primary key / PARTITION BY); required;
//!                             group_agg also takes `keys=` (empty: a global aggregate)
//!   max_parallelism=1..32768  Flink max parallelism: key groups of snapshots; default 128
//!   budget=bytes              retained-state budget; default none
//!   update_before=bool        emit -U before +U (generateUpdateBefore); default true
//! group_agg:
//!   aggs=agg ( ',' agg )*     required; agg := call ( ':distinct' | ':filter(' c ')' )*
//!                             call := count(*) | count(c) | sum(c) | sum0(c)
//!                             | min(c) | max(c) | avg(c) | first_value(c) | last_value(c);
//!                             `:filter(f)` = FILTER (WHERE f), f a BOOLEAN column;
//!                             `:distinct` = DISTINCT (not for count(*)); group_agg only
//!   retractable=bool          input may retract (-U/-D); default true
//! dedup:
//!   keep=first|last           required
//!   order=proctime|rowtime(c) default proctime; c: Int64 or Timestamp(ms) column
//!   insert=bool               emit +I for a key's first row (generateInsert); default true
//!   backend=hashmap|rocksdb   the Flink state backend whose behaviour on a row equal to
//!                             the kept one (keep=last, proctime) to reproduce; default hashmap
//! normalize:
//!   equal_update_after=drop|emit  a +U equal to the stored row: dropped like an equal +I
//!                             (Flink 2.x) or answered with -U prev, +U cur (Flink 1.20);
//!                             default drop
//! over:                       agg OVER (PARTITION BY keys ORDER BY time ROWS|RANGE …): see
//!                             [`over`] for its options
//! topn:                       ROW_NUMBER() OVER (PARTITION BY keys ORDER BY order) in a
//!                             constant rank range (keys= may be empty: no PARTITION BY)
//!   order=sort ( ',' sort )*  required; sort := column [':asc'|':desc'] [':nulls_first'|':nulls_last'];
//!                             default asc; default nulls as Flink orders them (asc: first,
//!                             desc: last)
//!   strategy=append|retract|top1|update  required: Flink's AppendOnlyTopNFunction,
//!                             RetractableTopNFunction, FastTop1Function or
//!                             UpdatableTopNFunction
//!   row_key=columns           the unique key of an update stream (UpdateFastStrategy's
//!                             primary key): required by, and only for, strategy=update
//!   n=N                       shorthand for rank_start=1 rank_end=N
//!   rank_start=1..            first emitted rank; default 1
//!   rank_end=N                last emitted rank; required unless n= is given
//!   rank_number=bool          append the rank (Int64, `rank_number`); default false
//! window:                     the window TVF aggregate; grammar in `window`
//! ```
//!
//! Output rows: `group_agg` emits the key columns (input fields) then one
//! column per aggregate, named `<function>_<input column index>` with the
//! function's name lower-cased without underscores (`sum_3`,
//! `firstvalue_1`; `count(*)` is `countstar_<aggregate position>`);
//! `normalize` and `dedup` emit rows of the input schema; `topn` the input
//! schema plus `rank_number` when `rank_number=true`.
//!
//! Examples: `group_agg keys=0,2 aggs=count(*),sum(3),max(1) budget=1048576`,
//! `normalize keys=id max_parallelism=256`, `dedup keys=0 keep=last order=rowtime(3)`,
//! `topn keys=0 order=2:desc:nulls_last,3 n=3 strategy=retract rank_number=true`,
//! `topn keys=0 order=2:desc n=3 strategy=update row_key=0,1`.
//!
//! Names are case-sensitive; an option given twice, an unknown option, an
//! option of another operator and a malformed value are all errors that
//! name the offending text.

use arrow_schema::Schema;
use sluice_keyed::{AggSpec, DedupOrder, Keep, SortColumn, StateBackendKind, TopNStrategy};

use crate::error::{Error, Result};

pub mod over;
pub(crate) mod window;

/// Flink's `KeyGroupRangeAssignment.UPPER_BOUND_MAX_PARALLELISM`.
const MAX_MAX_PARALLELISM: i32 = 1 << 15;

/// What a spec asks for, with columns resolved against the input schema.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OperatorSpec {
    /// Which operator and its own options.
    pub kind: SpecKind,
    /// Key column indices.
    pub keys: Vec<usize>,
    /// Flink max parallelism (number of key groups).
    pub max_parallelism: i32,
    /// Retained-state budget in bytes.
    pub budget: Option<usize>,
    /// Emit `-U` before `+U`.
    pub update_before: bool,
}

/// The operator-specific part of an [`OperatorSpec`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SpecKind {
    /// `group_agg`.
    GroupAgg {
        /// The aggregate calls, in output order.
        aggs: Vec<AggSpec>,
        /// Whether the input may retract.
        retractable: bool,
    },
    /// `normalize`.
    Normalize {
        /// Drop a `+U` equal to the stored row (Flink 2.x) instead of
        /// emitting `-U`/`+U` (Flink 1.20).
        drop_equal_update_after: bool,
    },
    /// `dedup`.
    Dedup {
        /// First or last row.
        keep: Keep,
        /// Arrival order or an event-time column.
        order: DedupOrder,
        /// Emit `+I` for a key's first row.
        insert: bool,
        /// The Flink state backend whose equal-row behaviour to reproduce.
        backend: StateBackendKind,
    },
    /// `topn`.
    TopN {
        /// The Flink ranking function to reproduce.
        strategy: TopNStrategy,
        /// ORDER BY columns.
        order: Vec<SortColumn>,
        /// First emitted rank (1-based).
        rank_start: u64,
        /// Last emitted rank.
        rank_end: u64,
        /// Append the rank number column.
        rank_number: bool,
        /// The unique key columns (`strategy=update` only; else empty).
        row_key: Vec<usize>,
    },
    /// `over` (see [`over`]).
    Over(over::OverSpec),
    /// `window` (grammar in `engine/src/keyed/spec/window.rs`).
    Window {
        /// The window TVF.
        window: sluice_keyed::WindowSpec,
        /// The rowtime column.
        rowtime: usize,
        /// The aggregate calls, in output order.
        aggs: Vec<AggSpec>,
        /// Emit the `window_time` column (`window_time=`, default true).
        window_time: bool,
    },
}

pub(crate) fn spec_err(message: impl Into<String>) -> Error {
    Error::Spec(message.into())
}

/// The `name=value` words of an `op` spec, in order: each name one of
/// `known`, none given twice.
pub(crate) fn name_values<'a>(
    words: impl Iterator<Item = &'a str>,
    op: &str,
    known: &[&str],
) -> Result<Vec<(&'a str, &'a str)>> {
    let mut opts: Vec<(&str, &str)> = Vec::new();
    for w in words {
        let (name, value) = w.split_once('=').ok_or_else(|| spec_err(format!("`{w}` is not name=value")))?;
        if !known.contains(&name) {
            return Err(spec_err(format!("unknown option `{name}` for {op} (known: {})", known.join(", "))));
        }
        if opts.iter().any(|(n, _)| *n == name) {
            return Err(spec_err(format!("option `{name}` given twice")));
        }
        opts.push((name, value));
    }
    Ok(opts)
}

/// Parses `spec` against `schema` (column names and index bounds).
///
/// # Errors
/// [`Error::Spec`] with a message naming the offending part.
pub fn parse(spec: &str, schema: &Schema) -> Result<OperatorSpec> {
    let mut words = spec.split_ascii_whitespace();
    let op = words.next().ok_or_else(|| spec_err("empty spec (expected group_agg, normalize, dedup or topn)"))?;
    let allowed: &[&str] = match op {
        "group_agg" => &["aggs", "retractable"],
        "normalize" => &["equal_update_after"],
        "dedup" => &["keep", "order", "insert", "backend"],
        "topn" => TOPN_OPTIONS,
        "over" => over::OVER_OPTIONS,
        "window" => window::WINDOW_OPTIONS,
        other => {
            return Err(spec_err(format!("unknown operator `{other}` (expected group_agg, normalize, dedup or topn)")))
        }
    };
    const COMMON: [&str; 4] = ["keys", "max_parallelism", "budget", "update_before"];
    let mut known: Vec<&str> = COMMON.to_vec();
    known.extend_from_slice(allowed);
    let opts = name_values(words, op, &known)?;
    let get = |name: &str| opts.iter().find(|(n, _)| *n == name).map(|(_, v)| *v);
    let require = |name: &str| get(name).ok_or_else(|| spec_err(format!("{op} needs `{name}=`")));

    let keys = match require("keys")? {
        // A global aggregate / a Top-N without PARTITION BY: Flink keys it
        // by the empty row (one group).
        "" if op == "group_agg" || op == "topn" || op == "over" || op == "window" => Vec::new(),
        k => columns(k, schema, "keys")?,
    };
    let max_parallelism =
        match get("max_parallelism") {
            None => 128,
            Some(v) => v.parse::<i32>().ok().filter(|m| (1..=MAX_MAX_PARALLELISM).contains(m)).ok_or_else(|| {
                spec_err(format!("max_parallelism=`{v}` is not an integer in 1..={MAX_MAX_PARALLELISM}"))
            })?,
        };
    let budget = match get("budget") {
        None => None,
        Some(v) => Some(v.parse::<usize>().map_err(|_| spec_err(format!("budget=`{v}` is not a byte count")))?),
    };
    let update_before = boolean(get("update_before"), "update_before", true)?;
    let kind = match op {
        "group_agg" => SpecKind::GroupAgg {
            aggs: require("aggs").and_then(|v| aggs(v, schema))?,
            retractable: boolean(get("retractable"), "retractable", true)?,
        },
        "normalize" => SpecKind::Normalize {
            drop_equal_update_after: match get("equal_update_after") {
                None | Some("drop") => true,
                Some("emit") => false,
                Some(v) => return Err(spec_err(format!("equal_update_after=`{v}` (expected drop or emit)"))),
            },
        },
        "topn" => topn_kind(&get, schema)?,
        "over" => SpecKind::Over(over::over_kind(&get, schema)?),
        "window" => window::window_kind(&get, schema)?,
        _ => SpecKind::Dedup {
            keep: match require("keep")? {
                "first" => Keep::First,
                "last" => Keep::Last,
                v => return Err(spec_err(format!("keep=`{v}` (expected first or last)"))),
            },
            order: match get("order") {
                None | Some("proctime") => DedupOrder::ProcTime,
                Some(v) => match call(v) {
                    Some(("rowtime", arg)) => DedupOrder::RowTime { column: column(arg, schema, "order=rowtime")? },
                    _ => return Err(spec_err(format!("order=`{v}` (expected proctime or rowtime(column))"))),
                },
            },
            insert: boolean(get("insert"), "insert", true)?,
            backend: match get("backend") {
                None | Some("hashmap") => StateBackendKind::HashMap,
                Some("rocksdb") => StateBackendKind::RocksDb,
                Some(v) => return Err(spec_err(format!("backend=`{v}` (expected hashmap or rocksdb)"))),
            },
        },
    };
    Ok(OperatorSpec { kind, keys, max_parallelism, budget, update_before })
}

/// `aggs=` of an operator without FILTER / DISTINCT calls (window, OVER).
pub(crate) fn plain_aggs(s: &str, schema: &Schema, op: &str) -> Result<Vec<AggSpec>> {
    let list = aggs(s, schema)?;
    if list.iter().any(|a| a.filter.is_some() || a.distinct) {
        return Err(spec_err(format!(
            "aggs=`{s}`: {op} aggregates take no :filter(…) or :distinct (only group_agg has them)"
        )));
    }
    Ok(list)
}

/// The options of `topn`.
const TOPN_OPTIONS: &[&str] = &["order", "strategy", "n", "rank_start", "rank_end", "rank_number", "row_key"];

/// The `topn` options (see the module docs).
fn topn_kind<'s>(get: &dyn Fn(&str) -> Option<&'s str>, schema: &Schema) -> Result<SpecKind> {
    let strategy = match get("strategy") {
        Some("append") => TopNStrategy::AppendOnly,
        Some("retract") => TopNStrategy::Retract,
        Some("top1") => TopNStrategy::FastTop1,
        Some("update") => TopNStrategy::Update,
        Some(v) => return Err(spec_err(format!("strategy=`{v}` (expected append, retract, top1 or update)"))),
        None => return Err(spec_err("topn needs `strategy=` (append, retract, top1 or update)")),
    };
    let row_key = match (strategy, get("row_key")) {
        // An empty unique key: the input holds at most one row.
        (TopNStrategy::Update, Some("")) => Vec::new(),
        (TopNStrategy::Update, Some(k)) => columns(k, schema, "row_key")?,
        (TopNStrategy::Update, None) => return Err(spec_err("strategy=update needs `row_key=` (the unique key)")),
        (_, Some(_)) => return Err(spec_err("row_key= is for strategy=update only")),
        (_, None) => Vec::new(),
    };
    let order = sort_columns(get("order").ok_or_else(|| spec_err("topn needs `order=`"))?, schema)?;
    let rank = |name: &str| -> Result<Option<u64>> {
        get(name)
            .map(|v| {
                v.parse::<u64>()
                    .ok()
                    .filter(|n| *n >= 1)
                    .ok_or_else(|| spec_err(format!("{name}=`{v}` is not a rank (an integer >= 1)")))
            })
            .transpose()
    };
    let (rank_start, rank_end) = match (rank("n")?, rank("rank_start")?, rank("rank_end")?) {
        (Some(n), None, None) => (1, n),
        (Some(_), _, _) => return Err(spec_err("topn takes `n=` or `rank_start=`/`rank_end=`, not both")),
        (None, start, Some(end)) => (start.unwrap_or(1), end),
        (None, _, None) => return Err(spec_err("topn needs `n=` or `rank_end=`")),
    };
    if rank_end < rank_start {
        return Err(spec_err(format!("rank_end={rank_end} is below rank_start={rank_start}")));
    }
    if strategy == TopNStrategy::FastTop1 && (rank_start, rank_end) != (1, 1) {
        return Err(spec_err("strategy=top1 needs n=1"));
    }
    Ok(SpecKind::TopN {
        strategy,
        order,
        rank_start,
        rank_end,
        rank_number: boolean(get("rank_number"), "rank_number", false)?,
        row_key,
    })
}

/// `column[:asc|:desc][:nulls_first|:nulls_last]`, comma separated.
fn sort_columns(s: &str, schema: &Schema) -> Result<Vec<SortColumn>> {
    if s.is_empty() {
        return Err(spec_err("order= is empty"));
    }
    s.split(',')
        .map(|item| {
            let mut parts = item.split(':');
            let c = column(parts.next().unwrap_or(""), schema, "order")?;
            let mut sort = SortColumn::asc(c);
            let mut nulls = None;
            for p in parts {
                match p {
                    "asc" => sort = SortColumn::asc(c),
                    "desc" => sort = SortColumn::desc(c),
                    "nulls_first" => nulls = Some(true),
                    "nulls_last" => nulls = Some(false),
                    other => {
                        return Err(spec_err(format!(
                            "order item `{item}`: `{other}` (expected asc, desc, nulls_first or nulls_last)"
                        )))
                    }
                }
            }
            if let Some(n) = nulls {
                sort.nulls_first = n;
            }
            Ok(sort)
        })
        .collect()
}

pub(crate) fn boolean(v: Option<&str>, name: &str, default: bool) -> Result<bool> {
    match v {
        None => Ok(default),
        Some("true") => Ok(true),
        Some("false") => Ok(false),
        Some(v) => Err(spec_err(format!("{name}=`{v}` (expected true or false)"))),
    }
}

/// `name(arg)` → `(name, arg)`.
pub(crate) fn call(s: &str) -> Option<(&str, &str)> {
    let (name, rest) = s.split_once('(')?;
    let arg = rest.strip_suffix(')')?;
    Some((name, arg))
}

pub(crate) fn column(s: &str, schema: &Schema, what: &str) -> Result<usize> {
    let n = schema.fields().len();
    if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) {
        return s
            .parse::<usize>()
            .ok()
            .filter(|i| *i < n)
            .ok_or_else(|| spec_err(format!("{what}: column {s} is out of range (the schema has {n} fields)")));
    }
    schema.index_of(s).map_err(|_| spec_err(format!("{what}: no field named `{s}` (and not a column index)")))
}

pub(crate) fn columns(s: &str, schema: &Schema, what: &str) -> Result<Vec<usize>> {
    if s.is_empty() {
        return Err(spec_err(format!("{what}= is empty")));
    }
    s.split(',').map(|c| column(c, schema, what)).collect()
}

pub(crate) fn aggs(s: &str, schema: &Schema) -> Result<Vec<AggSpec>> {
    if s.is_empty() {
        return Err(spec_err("aggs= is empty"));
    }
    if s.split(',').any(str::is_empty) {
        return Err(spec_err(format!("aggs=`{s}` has an empty aggregate (a stray ',')")));
    }
    s.split(',').map(|a| agg(a, s, schema)).collect()
}

/// One entry of `aggs=`: `function(column)` then its `:distinct` /
/// `:filter(column)` suffixes.
fn agg(entry: &str, list: &str, schema: &Schema) -> Result<AggSpec> {
    // The call ends at the first `):`; a column name holding `):` is not
    // expressible in a spec.
    let (a, suffixes) = match entry.find("):") {
        Some(p) => (&entry[..=p], Some(&entry[p + 2..])),
        None => (entry, None),
    };
    let mut spec = plain_agg(a, list, schema)?;
    for suffix in suffixes.into_iter().flat_map(|x| x.split(':')) {
        match (suffix, call(suffix)) {
            ("distinct", _) if !spec.distinct => spec.distinct = true,
            (_, Some(("filter", f))) if spec.filter.is_none() => {
                spec.filter = Some(column(f, schema, &format!("{entry}: filter"))?)
            }
            _ => {
                return Err(spec_err(format!(
                    "aggregate `{entry}`: suffix `:{suffix}` (expected :distinct or :filter(column), each at most once)"
                )))
            }
        }
    }
    if spec.distinct && spec.column.is_none() {
        return Err(spec_err(format!("aggregate `{entry}`: count(*) cannot be :distinct")));
    }
    if let Some(f) = spec.filter {
        let t = schema.field(f).data_type();
        if t != &arrow_schema::DataType::Boolean {
            return Err(spec_err(format!("aggregate `{entry}`: the filter column is {t}, not Boolean")));
        }
    }
    Ok(spec)
}

/// `function(column)` of an `aggs=` entry.
fn plain_agg(a: &str, s: &str, schema: &Schema) -> Result<AggSpec> {
    let (f, arg) = call(a).ok_or_else(|| spec_err(format!("aggregate `{a}` of aggs=`{s}` is not function(column)")))?;
    if f == "count" && arg == "*" {
        return Ok(AggSpec::count_star());
    }
    let c = || column(arg, schema, a);
    Ok(match f {
        "count" => AggSpec::count(c()?),
        "sum" => AggSpec::sum(c()?),
        "sum0" => AggSpec::sum0(c()?),
        "min" => AggSpec::min(c()?),
        "max" => AggSpec::max(c()?),
        "avg" => AggSpec::avg(c()?),
        "first_value" => AggSpec::first_value(c()?),
        "last_value" => AggSpec::last_value(c()?),
        _ => {
            return Err(spec_err(format!(
                "unknown aggregate `{f}` in `{a}` (count, sum, sum0, min, max, avg, first_value, last_value)"
            )))
        }
    })
}

/// Test support: checks that `parse` refuses every `(spec, needle)` of
/// `cases` over `schema` with a spec error whose message names `needle`.
#[cfg(test)]
pub(crate) fn assert_refused(schema: &Schema, cases: &[(&str, &str)]) {
    for (spec, needle) in cases {
        let e = parse(spec, schema).unwrap_err().to_string();
        assert!(e.contains(needle), "{spec:?}: {e}");
        assert!(e.starts_with("bad operator spec: "), "{spec:?}: {e}");
    }
}

#[cfg(test)]
mod tests {
    use arrow_schema::{DataType, Field};

    use super::*;

    fn schema() -> Schema {
        Schema::new(vec![
            Field::new("id", DataType::Int64, false),
            Field::new("name", DataType::Utf8, true),
            Field::new("n", DataType::Int64, true),
            Field::new("ts", DataType::Int64, false),
        ])
    }

    #[test]
    fn parses_every_operator() {
        let s = schema();
        let g =
            parse("group_agg keys=0,name aggs=count(*),sum(2),max(name) budget=4096 max_parallelism=256", &s).unwrap();
        assert_eq!(g.keys, vec![0, 1]);
        assert_eq!((g.max_parallelism, g.budget, g.update_before), (256, Some(4096), true));
        assert_eq!(
            g.kind,
            SpecKind::GroupAgg {
                aggs: vec![AggSpec::count_star(), AggSpec::sum(2), AggSpec::max(1)],
                retractable: true
            }
        );
        let sum0 = parse("group_agg keys=0 aggs=sum0(2),sum(n)", &s).unwrap();
        assert_eq!(sum0.kind, SpecKind::GroupAgg { aggs: vec![AggSpec::sum0(2), AggSpec::sum(2)], retractable: true });
        let global = parse("group_agg keys= aggs=count(*)", &s).unwrap();
        assert!(global.keys.is_empty());
        let n = parse("  normalize   keys=id update_before=false ", &s).unwrap();
        assert_eq!(
            (n.kind, n.keys, n.max_parallelism, n.budget, n.update_before),
            (SpecKind::Normalize { drop_equal_update_after: true }, vec![0], 128, None, false)
        );
        let n = parse("normalize keys=id equal_update_after=emit", &s).unwrap();
        assert_eq!(n.kind, SpecKind::Normalize { drop_equal_update_after: false });
        let d = parse("dedup keys=1 keep=first order=rowtime(ts) insert=false", &s).unwrap();
        assert_eq!(
            d.kind,
            SpecKind::Dedup {
                keep: Keep::First,
                order: DedupOrder::RowTime { column: 3 },
                insert: false,
                backend: StateBackendKind::HashMap
            }
        );
        for (spec, backend) in [
            ("dedup keys=1 keep=last", StateBackendKind::HashMap),
            ("dedup keys=1 keep=last backend=rocksdb", StateBackendKind::RocksDb),
        ] {
            let d = parse(spec, &s).unwrap();
            let want = SpecKind::Dedup { keep: Keep::Last, order: DedupOrder::ProcTime, insert: true, backend };
            assert_eq!(d.kind, want, "{spec}");
        }
        assert_refused(&s, &[("dedup keys=1 keep=last backend=heap", "backend=`heap`")]);
    }

    #[test]
    fn parses_filter_and_distinct() {
        let s = Schema::new(vec![
            Field::new("id", DataType::Int64, false),
            Field::new("f", DataType::Boolean, true),
            Field::new("n", DataType::Int64, true),
        ]);
        let g =
            parse("group_agg keys=0 aggs=count(*):filter(f),count(n):distinct:filter(1),sum(2):distinct", &s).unwrap();
        let want = vec![
            AggSpec::count_star().with_filter(1),
            AggSpec::count(2).with_distinct().with_filter(1),
            AggSpec::sum(2).with_distinct(),
        ];
        assert_eq!(g.kind, SpecKind::GroupAgg { aggs: want, retractable: true });
        assert_refused(
            &s,
            &[
                ("group_agg keys=0 aggs=count(*):distinct", "count(*) cannot be :distinct"),
                ("group_agg keys=0 aggs=sum(2):filter(2)", "the filter column is Int64, not Boolean"),
                ("group_agg keys=0 aggs=sum(2):filter(x)", "no field named `x`"),
                ("group_agg keys=0 aggs=sum(2):distinct:distinct", "suffix `:distinct`"),
                ("group_agg keys=0 aggs=sum(2):filter(1):filter(1)", "suffix `:filter(1)`"),
                ("group_agg keys=0 aggs=sum(2):sorted", "suffix `:sorted`"),
                ("over keys=0 order=proctime frame=rows preceding=unbounded aggs=sum(2):distinct", "over aggregates"),
            ],
        );
    }

    /// Found by the `operator_spec` fuzz target (30-minute ASan run):
    /// `aggs==` failed with "aggregate `=` is not function(column)"; the
    /// message now quotes the whole `aggs=` value too.
    #[test]
    fn a_malformed_aggregate_names_the_aggs_value() {
        let s = schema();
        assert_refused(
            &s,
            &[
                ("group_agg keys=0 aggs==", "aggs=`=`"),
                ("group_agg keys=0 aggs=count(*),sum(2", "aggregate `sum(2` of aggs=`count(*),sum(2`"),
            ],
        );
    }

    /// Found by the `operator_spec` fuzz target: `aggs=count(*),` failed
    /// with "aggregate `` is not function(column)", which names nothing of
    /// the text.
    #[test]
    fn empty_aggregate_names_the_aggs_list() {
        let s = schema();
        for (spec, list) in [
            ("group_agg keys= aggs=count(*),", "count(*),"),
            ("group_agg keys=0 aggs=,sum(2)", ",sum(2)"),
            ("group_agg keys=0 aggs=sum(2),,max(1)", "sum(2),,max(1)"),
        ] {
            let e = parse(spec, &s).unwrap_err();
            assert_eq!(e.to_string(), format!("bad operator spec: aggs=`{list}` has an empty aggregate (a stray ',')"));
        }
        // A column named by the empty string is still a column.
        let named = Schema::new(vec![Field::new("", DataType::Int64, true)]);
        let g = parse("group_agg keys= aggs=sum()", &named).unwrap();
        assert_eq!(g.kind, SpecKind::GroupAgg { aggs: vec![AggSpec::sum(0)], retractable: true });
    }

    /// Found by the `operator_spec` fuzz target: `aggs=(2)` failed with
    /// "unknown aggregate ``", naming nothing of the text.
    #[test]
    fn unknown_aggregate_names_the_entry() {
        assert_refused(&schema(), &[("group_agg keys= aggs=(2)", "unknown aggregate `` in `(2)`")]);
    }

    #[test]
    fn errors_name_the_offending_text() {
        let s = schema();
        assert_refused(
            &s,
            &[
                ("", "empty spec"),
                ("join keys=0", "unknown operator `join`"),
                ("normalize", "normalize needs `keys=`"),
                ("normalize keys=0 keys=1", "`keys` given twice"),
                ("normalize keys=0 keep=first", "unknown option `keep` for normalize"),
                ("normalize keys=4", "column 4 is out of range (the schema has 4 fields)"),
                ("normalize keys=nope", "no field named `nope`"),
                ("normalize keys=", "keys= is empty"),
                ("dedup keys= keep=first", "keys= is empty"),
                ("normalize keys=0 max_parallelism=0", "max_parallelism=`0`"),
                ("normalize keys=0 max_parallelism=32769", "max_parallelism=`32769`"),
                ("normalize keys=0 budget=-1", "budget=`-1`"),
                ("normalize keys=0 update_before=yes", "update_before=`yes`"),
                ("normalize keys=0 oops", "`oops` is not name=value"),
                ("group_agg keys=0", "group_agg needs `aggs=`"),
                ("group_agg keys=0 aggs=median(2)", "unknown aggregate `median`"),
                ("group_agg keys=0 aggs=sum(2", "`sum(2` is not function(column)"),
                ("group_agg keys=0 aggs=sum(*)", "no field named `*`"),
                ("dedup keys=0", "dedup needs `keep=`"),
                ("dedup keys=0 keep=middle", "keep=`middle`"),
                ("dedup keys=0 keep=last order=eventtime", "order=`eventtime`"),
            ],
        );
    }
}
