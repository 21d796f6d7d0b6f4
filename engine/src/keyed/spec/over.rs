//! The `over` spec kind: Flink's `OverAggregate` ([`OverAggregate`]).
//!
//! ```text
//! over:                       agg(..) OVER (PARTITION BY keys ORDER BY time frame) (keys= may
//!                             be empty: no PARTITION BY)
//!   order=rowtime(c)|proctime required; c: Int64 or Timestamp(ms) rowtime column
//!   frame=rows|range          required: ROWS or RANGE BETWEEN … AND CURRENT ROW
//!   preceding=unbounded|N     required: UNBOUNDED PRECEDING, or N rows (frame=rows) / an
//!                             interval of N milliseconds (frame=range)
//!   aggs=agg ( ',' agg )*     required; the aggregates of group_agg
//! ```
//!
//! Output rows: the input row, then one column per aggregate named as
//! `group_agg` names them (`sum_3`); every row is `+I`. The input must be
//! insert-only. A rowtime OVER emits on [`advance_watermark`]; a proctime
//! one on push, except `frame=range preceding=N`, which buffers each push
//! stamped with the processing time the caller gives and emits on
//! [`advance_processing_time`] (Flink's `ProcTimeRangeBoundedPrecedingFunction`
//! fires a processing-time timer one millisecond after each stamp). `update_before=` is accepted and has no effect (OVER emits
//! no updates).
//!
//! Example: `over keys=0 order=rowtime(2) frame=range preceding=60000 aggs=count(*),sum(1)`.
//!
//! [`advance_watermark`]: crate::keyed::KeyedOperator::advance_watermark
//! [`advance_processing_time`]: crate::keyed::KeyedOperator::advance_processing_time

use arrow_schema::{Schema, SchemaRef};
use sluice_keyed::{AggSpec, OverAggregate, OverFrame, OverOptions, OverTime};

use super::{call, column, plain_aggs, spec_err, OperatorSpec};
use crate::error::Result;

/// The options of `over` (besides the common ones).
pub(crate) const OVER_OPTIONS: &[&str] = &["order", "frame", "preceding", "aggs"];

/// A parsed `over` spec.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OverSpec {
    /// ORDER BY time attribute.
    pub time: OverTime,
    /// The frame.
    pub frame: OverFrame,
    /// The aggregate calls, in output order.
    pub aggs: Vec<AggSpec>,
}

/// Parses the `over` options (see the module docs).
///
/// # Errors
/// [`Error::Spec`](crate::error::Error::Spec) naming the offending option.
pub(crate) fn over_kind<'s>(get: &dyn Fn(&str) -> Option<&'s str>, schema: &Schema) -> Result<OverSpec> {
    let require = |name: &str| get(name).ok_or_else(|| spec_err(format!("over needs `{name}=`")));
    let time = match require("order")? {
        "proctime" => OverTime::ProcTime,
        v => match call(v) {
            Some(("rowtime", arg)) => OverTime::RowTime { column: column(arg, schema, "order=rowtime")? },
            _ => return Err(spec_err(format!("order=`{v}` (expected proctime or rowtime(column))"))),
        },
    };
    let rows = match require("frame")? {
        "rows" => true,
        "range" => false,
        v => return Err(spec_err(format!("frame=`{v}` (expected rows or range)"))),
    };
    let frame = match (require("preceding")?, rows) {
        ("unbounded", true) => OverFrame::RowsUnbounded,
        ("unbounded", false) => OverFrame::RangeUnbounded,
        (v, true) => OverFrame::Rows(
            v.parse::<u64>().map_err(|_| spec_err(format!("preceding=`{v}` (expected unbounded or a row count)")))?,
        ),
        (v, false) => {
            let ms = v
                .parse::<i64>()
                .ok()
                .filter(|ms| *ms >= 0)
                .ok_or_else(|| spec_err(format!("preceding=`{v}` (expected unbounded or milliseconds >= 0)")))?;
            OverFrame::Range(ms)
        }
    };
    Ok(OverSpec { time, frame, aggs: require("aggs").and_then(|v| plain_aggs(v, schema, "over"))? })
}

/// The [`OverAggregate`] of an `over` spec.
///
/// # Errors
/// The operator's refusals (column types).
pub(crate) fn over_operator(schema: SchemaRef, spec: &OperatorSpec, over: &OverSpec) -> Result<OverAggregate> {
    let mut o = OverOptions::new(over.time, over.frame);
    o.max_parallelism = spec.max_parallelism;
    o.state_budget = spec.budget;
    Ok(OverAggregate::new(schema, spec.keys.clone(), over.aggs.clone(), o)?)
}

#[cfg(test)]
mod tests {
    use arrow_schema::{DataType, Field};

    use super::*;
    use crate::keyed::spec::{assert_refused, parse, SpecKind};

    fn schema() -> Schema {
        Schema::new(vec![
            Field::new("k", DataType::Utf8, false),
            Field::new("v", DataType::Int64, true),
            Field::new("t", DataType::Int64, false),
        ])
    }

    #[test]
    fn parses_every_frame() {
        let s = schema();
        let o = parse("over keys=k order=rowtime(t) frame=range preceding=5000 aggs=count(*),sum(v)", &s).unwrap();
        assert_eq!(o.keys, vec![0]);
        assert_eq!(
            o.kind,
            SpecKind::Over(OverSpec {
                time: OverTime::RowTime { column: 2 },
                frame: OverFrame::Range(5000),
                aggs: vec![AggSpec::count_star(), AggSpec::sum(1)],
            })
        );
        for (spec, time, frame) in [
            (
                "over keys=0 order=proctime frame=rows preceding=unbounded aggs=max(1)",
                OverTime::ProcTime,
                OverFrame::RowsUnbounded,
            ),
            (
                "over keys=0 order=proctime frame=range preceding=unbounded aggs=max(1)",
                OverTime::ProcTime,
                OverFrame::RangeUnbounded,
            ),
            ("over keys=0 order=proctime frame=rows preceding=2 aggs=max(1)", OverTime::ProcTime, OverFrame::Rows(2)),
            (
                "over keys=0 order=proctime frame=range preceding=1000 aggs=max(1)",
                OverTime::ProcTime,
                OverFrame::Range(1000),
            ),
            (
                "over keys= order=rowtime(2) frame=rows preceding=0 aggs=max(1)",
                OverTime::RowTime { column: 2 },
                OverFrame::Rows(0),
            ),
        ] {
            let SpecKind::Over(o) = parse(spec, &s).unwrap().kind else { panic!("{spec}") };
            assert_eq!((o.time, o.frame), (time, frame), "{spec}");
        }
    }

    #[test]
    fn errors_name_the_offending_text() {
        let s = schema();
        assert_refused(
            &s,
            &[
                ("over keys=0 frame=rows preceding=1 aggs=sum(1)", "over needs `order=`"),
                ("over keys=0 order=eventtime frame=rows preceding=1 aggs=sum(1)", "order=`eventtime`"),
                ("over keys=0 order=proctime frame=groups preceding=1 aggs=sum(1)", "frame=`groups`"),
                ("over keys=0 order=proctime frame=rows preceding=-1 aggs=sum(1)", "preceding=`-1`"),
                ("over keys=0 order=rowtime(2) frame=range preceding=x aggs=sum(1)", "preceding=`x`"),
                ("over keys=0 order=proctime frame=rows preceding=1", "over needs `aggs=`"),
                ("over keys=0 order=proctime frame=rows preceding=1 aggs=median(1)", "unknown aggregate `median`"),
                ("over keys=0 order=proctime frame=rows preceding=1 aggs=sum(1) n=3", "unknown option `n` for over"),
            ],
        );
    }

    fn batch(rows: &[(&str, Option<i64>, i64)]) -> arrow_array::RecordBatch {
        use std::sync::Arc;
        let cols: Vec<arrow_array::ArrayRef> = vec![
            Arc::new(arrow_array::StringArray::from(rows.iter().map(|r| r.0).collect::<Vec<_>>())),
            Arc::new(arrow_array::Int64Array::from(rows.iter().map(|r| r.1).collect::<Vec<_>>())),
            Arc::new(arrow_array::Int64Array::from(rows.iter().map(|r| r.2).collect::<Vec<_>>())),
        ];
        arrow_array::RecordBatch::try_new(Arc::new(schema()), cols).unwrap()
    }

    fn ints(b: &arrow_array::RecordBatch, c: usize) -> Vec<Option<i64>> {
        use arrow_array::cast::AsArray;
        b.column(c).as_primitive::<arrow_array::types::Int64Type>().iter().collect()
    }

    /// Through the operator layer: a rowtime OVER emits on the watermark (in
    /// timestamp order, late rows dropped), snapshots per key group restore,
    /// a proctime OVER emits on push.
    #[test]
    fn keyed_operator_drives_over() {
        use sluice_keyed::RowKind;
        use std::sync::Arc;

        use crate::keyed::KeyedOperator;
        let spec = "over keys=k order=rowtime(t) frame=rows preceding=1 aggs=count(*),sum(v)";
        let mut op = KeyedOperator::new(Arc::new(schema()), spec).unwrap();
        let rows = [("a", Some(3), 30), ("b", Some(5), 10), ("a", Some(1), 10), ("a", None, 20)];
        let (out, kinds) = op.push(&batch(&rows), &[RowKind::Insert; 4]).unwrap();
        assert_eq!((out.num_rows(), kinds.len()), (0, 0));
        let names: Vec<&str> = op.output_schema().fields().iter().map(|f| f.name().as_str()).collect();
        assert_eq!(names, ["k", "v", "t", "countstar_0", "sum_1"]);
        let (out, kinds) = op.advance_watermark(20).unwrap();
        assert!(kinds.iter().all(|k| *k == RowKind::Insert));
        // a@10, b@10, a@20 (NULL value: SUM over {1, NULL} is 1).
        assert_eq!(ints(&out, 2), [Some(10), Some(10), Some(20)]);
        assert_eq!(ints(&out, 3), [Some(1), Some(1), Some(2)]);
        assert_eq!(ints(&out, 4), [Some(1), Some(5), Some(1)]);
        let range = op.key_group_range(0, 127).unwrap();
        let blobs = op.snapshot_key_groups(range).unwrap();
        let mut again = KeyedOperator::new(Arc::new(schema()), spec).unwrap();
        let refs: Vec<&[u8]> = blobs.iter().map(Vec::as_slice).collect();
        again.restore(&refs, range).unwrap();
        assert_eq!(again.num_keys(), 2);
        for o in [&mut op, &mut again] {
            // a@15 is late (a's last timer fired at 20); a@30 fires with its frame [20, 30].
            o.push(&batch(&[("a", Some(9), 15)]), &[RowKind::Insert]).unwrap();
            let (out, _) = o.advance_watermark(40).unwrap();
            assert_eq!((ints(&out, 2), ints(&out, 3), ints(&out, 4)), (vec![Some(30)], vec![Some(2)], vec![Some(3)]));
        }
        let mut p = KeyedOperator::new(
            Arc::new(schema()),
            "over keys= order=proctime frame=rows preceding=unbounded aggs=max(v)",
        )
        .unwrap();
        let (out, _) = p.push(&batch(&rows), &[RowKind::Insert; 4]).unwrap();
        assert_eq!(ints(&out, 3), [Some(3), Some(5), Some(5), Some(5)]);
        let e = p.push(&batch(&rows[..1]), &[RowKind::Delete]).unwrap_err();
        assert!(e.to_string().contains("insert-only"), "{e}");
    }

    /// A proctime RANGE OVER through the operator layer: pushes are stamped
    /// with the processing time given, rows fire one millisecond later with
    /// their frame's values, buffered rows survive a snapshot, and the other
    /// operators ignore processing time.
    #[test]
    fn keyed_operator_drives_proctime_range_over() {
        use sluice_keyed::RowKind;
        use std::sync::Arc;

        use crate::keyed::KeyedOperator;
        let spec = "over keys=k order=proctime frame=range preceding=100 aggs=count(*),sum(v)";
        let mut op = KeyedOperator::new(Arc::new(schema()), spec).unwrap();
        assert!(op.fires_on_processing_time() && !op.fires_on_watermark());
        let e = op.push(&batch(&[("a", Some(1), 0)]), &[RowKind::Insert]).unwrap_err();
        assert!(e.to_string().contains("processing time"), "{e}");
        let (out, _) =
            op.push_at(&batch(&[("a", Some(1), 0), ("b", Some(5), 0)]), &[RowKind::Insert; 2], 1000).unwrap();
        assert_eq!(out.num_rows(), 0);
        // a@1000 and b@1000 fire at 1001; a@1050 at 1051 with a@1000 in its frame.
        let (out, _) = op.push_at(&batch(&[("a", Some(2), 0)]), &[RowKind::Insert], 1050).unwrap();
        assert_eq!(
            (ints(&out, 1), ints(&out, 3), ints(&out, 4)),
            (vec![Some(1), Some(5)], vec![Some(1), Some(1)], vec![Some(1), Some(5)])
        );
        let range = op.key_group_range(0, 127).unwrap();
        let blobs = op.snapshot_key_groups(range).unwrap();
        let mut again = KeyedOperator::new(Arc::new(schema()), spec).unwrap();
        let refs: Vec<&[u8]> = blobs.iter().map(Vec::as_slice).collect();
        again.restore(&refs, range).unwrap();
        for o in [&mut op, &mut again] {
            let (out, kinds) = o.advance_processing_time(1051).unwrap();
            assert_eq!((ints(&out, 3), ints(&out, 4), kinds), (vec![Some(2)], vec![Some(3)], vec![RowKind::Insert]));
        }
        let mut p = KeyedOperator::new(
            Arc::new(schema()),
            "over keys= order=proctime frame=rows preceding=unbounded aggs=max(v)",
        )
        .unwrap();
        assert!(!p.fires_on_processing_time());
        let (out, _) = p.push_at(&batch(&[("a", Some(4), 0)]), &[RowKind::Insert], 7).unwrap();
        assert_eq!(ints(&out, 3), [Some(4)]);
        assert_eq!(p.advance_processing_time(9).unwrap().0.num_rows(), 0);
    }
}
