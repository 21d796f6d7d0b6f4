//! The `window` spec kind: Flink's window TVF aggregate
//! ([`sluice_keyed::WindowAggregate`]).
//!
//! ```text
//! window keys=columns rowtime=column window=win [aggs=agg(,agg)*] [offset=ms]
//!        [window_time=true|false] [attached=true|false] [max_parallelism=..] [budget=..]
//! win := tumble(size) | hop(size,slide) | cumulate(max_size,step)   sizes in milliseconds
//! ```
//! `keys=` may be empty (a window aggregate without GROUP BY); `rowtime=`
//! names an Int64 or `Timestamp(Millisecond)` column; `aggs=` takes what
//! `group_agg` takes except `first_value` / `last_value`; without `aggs=` the
//! operator has no aggregates and emits one row per key and window that
//! received a row (`GROUP BY k, window_start, window_end` with no aggregate
//! call, as Nexmark q8 writes it). `attached=true` is a window attached by
//! an upstream window TVF (Flink's `WindowAttachedWindowingStrategy`, e.g.
//! Nexmark q5's second aggregate): `rowtime=` then names the input's
//! `window_end` column and each row belongs to that one window. `update_before=`
//! is accepted and has no effect (the output is insert-only).
//!
//! Output rows (all `+I`, emitted by [`KeyedOperator::advance_watermark`](super::KeyedOperator::advance_watermark)):
//! the key columns, one column per aggregate (named as for `group_agg`),
//! then `window_start`, `window_end`, `window_time` (`TIMESTAMP(3) NOT NULL`);
//! `window_time=false` leaves `window_time` out (a Flink plan carries it only
//! when the query reads it).
//!
//! Example: `window keys=0 rowtime=3 window=hop(10000,5000) aggs=count(*),sum(2)`.

use arrow_schema::{Schema, SchemaRef};
use sluice_keyed::{WindowAggOptions, WindowAggregate, WindowSpec};

use super::{column, plain_aggs, spec_err, OperatorSpec, SpecKind};
use crate::error::{Error, Result};

/// The options of `window`.
pub(crate) const WINDOW_OPTIONS: &[&str] = &["rowtime", "window", "aggs", "offset", "window_time", "attached"];

/// The `window` options (see the module docs).
pub(crate) fn window_kind<'s>(get: &dyn Fn(&str) -> Option<&'s str>, schema: &Schema) -> Result<SpecKind> {
    let rowtime = column(get("rowtime").ok_or_else(|| spec_err("window needs `rowtime=`"))?, schema, "rowtime")?;
    let w = get("window")
        .ok_or_else(|| spec_err("window needs `window=` (tumble(size), hop(size,slide) or cumulate(max_size,step))"))?;
    let (name, args) = w.split_once('(').and_then(|(n, rest)| Some((n, rest.strip_suffix(')')?))).ok_or_else(|| {
        spec_err(format!("window=`{w}` is not tumble(size), hop(size,slide) or cumulate(max_size,step)"))
    })?;
    let nums = args
        .split(',')
        .map(|a| a.parse::<i64>().map_err(|_| spec_err(format!("window=`{w}`: `{a}` is not a size in milliseconds"))))
        .collect::<Result<Vec<_>>>()?;
    let mut window = match (name, nums.as_slice()) {
        ("tumble", [size]) => WindowSpec::tumble(*size),
        ("hop", [size, slide]) => WindowSpec::hop(*size, *slide),
        ("cumulate", [max, step]) => WindowSpec::cumulate(*max, *step),
        _ => {
            return Err(spec_err(format!(
                "window=`{w}` (expected tumble(size), hop(size,slide) or cumulate(max_size,step))"
            )))
        }
    };
    if let Some(o) = get("offset") {
        window =
            window.with_offset(o.parse::<i64>().map_err(|_| spec_err(format!("offset=`{o}` is not milliseconds")))?);
    }
    let aggs = match get("aggs") {
        Some(a) => plain_aggs(a, schema, "window")?,
        None => Vec::new(),
    };
    match get("attached") {
        None | Some("false") => {}
        Some("true") => window = window.attached(),
        Some(v) => return Err(spec_err(format!("attached=`{v}` (expected true or false)"))),
    }
    let window_time = match get("window_time") {
        None | Some("true") => true,
        Some("false") => false,
        Some(v) => return Err(spec_err(format!("window_time=`{v}` (expected true or false)"))),
    };
    Ok(SpecKind::Window { window, rowtime, aggs, window_time })
}

/// The [`WindowAggregate`] of a `window` spec.
pub(crate) fn window_operator(schema: SchemaRef, spec: &OperatorSpec) -> Result<WindowAggregate> {
    let SpecKind::Window { window, rowtime, aggs, window_time } = &spec.kind else {
        return Err(Error::invalid("not a window spec"));
    };
    let mut o = WindowAggOptions::new(*window, *rowtime);
    o.max_parallelism = spec.max_parallelism;
    o.state_budget = spec.budget;
    o.window_time = *window_time;
    Ok(WindowAggregate::new(schema, spec.keys.clone(), aggs.clone(), o)?)
}
