//! The updating join (`StreamingJoin`): the full changelog against a plainly
//! written model on random changelogs (every join type, state view, Flink
//! line, batch split and a non-equi condition), cases transcribed from
//! Flink's `StreamingJoinOperatorTest`, snapshots, budget and the
//! allocation bars.

mod common;
mod join_model;

use std::sync::Arc;

use arrow_array::{ArrayRef, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use proptest::prelude::*;
use sluice_kernels::alloc_count::{count_allocs, CountingAlloc};
use sluice_keyed::{
    CmpOp, CondTerm, Error, JoinLine, JoinOptions, JoinSide, JoinType, KeyGroupRange, RowKind, StreamingJoin, ViewKind,
};

use common::{changelog, Cell, TupleRow};
use join_model::{Change, MSide, Model};
use RowKind::{Delete, Insert, UpdateAfter, UpdateBefore};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc::system();

/// `(k, v, s)`: join key, value, string.
type In = (Option<i64>, i64, String);

fn schema(prefix: &str) -> SchemaRef {
    let (k, v, s) = (format!("{prefix}k"), format!("{prefix}v"), format!("{prefix}s"));
    In::schema(&[&k, &v, &s])
}

fn batch(schema: &SchemaRef, rows: &[In]) -> RecordBatch {
    common::batch_of(schema.clone(), rows)
}

// ---------------------------------------------------------------------------
// Random changelogs against the model
// ---------------------------------------------------------------------------

/// A side's unique key for a view: the join key (contained), the value
/// column, or none.
fn unique_key(kind: ViewKind) -> Option<Vec<usize>> {
    match kind {
        ViewKind::JoinKeyContainsUniqueKey => Some(vec![0]),
        ViewKind::InputSideHasUniqueKey => Some(vec![1]),
        ViewKind::InputSideHasNoUniqueKey => None,
    }
}

/// Turns random choices into a changelog that is valid for the side's
/// view: with a unique key, `+I` only for a new unique key, updates as
/// `-U old, +U new` (or a bare `+U`), deletes of the live row; without one,
/// retractions only of live rows.
fn valid_changelog(kind: ViewKind, choices: &[(u8, Option<i64>, i64, u8)]) -> Vec<(RowKind, In)> {
    let mut live: Vec<In> = Vec::new();
    let mut out = Vec::new();
    let uk_of = |r: &In| -> Option<i64> {
        match kind {
            ViewKind::JoinKeyContainsUniqueKey => Some(r.0.unwrap_or(-1)),
            ViewKind::InputSideHasUniqueKey => Some(r.1),
            ViewKind::InputSideHasNoUniqueKey => None,
        }
    };
    for &(action, k, v, s) in choices {
        let row: In = (k, v, format!("s{s}"));
        let existing = uk_of(&row).and_then(|u| live.iter().position(|r| uk_of(r) == Some(u)));
        match action % 4 {
            0 | 1 => match existing {
                None => {
                    out.push((Insert, row.clone()));
                    live.push(row);
                }
                Some(p) => {
                    if action % 2 == 0 {
                        out.push((UpdateBefore, live[p].clone()));
                    }
                    out.push((UpdateAfter, row.clone()));
                    live[p] = row;
                }
            },
            2 if !live.is_empty() => {
                let p = (v as usize) % live.len();
                out.push((Delete, live.swap_remove(p)));
            }
            3 if !live.is_empty() && kind == ViewKind::InputSideHasNoUniqueKey => {
                let p = (v as usize) % live.len();
                out.push((UpdateBefore, live.swap_remove(p)));
                out.push((UpdateAfter, row.clone()));
                live.push(row);
            }
            _ => {
                out.push((Insert, row.clone()));
                if kind == ViewKind::InputSideHasNoUniqueKey || existing.is_none() {
                    live.push(row);
                } else if let Some(p) = existing {
                    // A duplicate `+I` for a live unique key: the planner lets
                    // it through without ChangelogNormalize; it replaces.
                    live[p] = out.last().unwrap().1.clone();
                }
            }
        }
    }
    out
}

const VIEWS: [ViewKind; 3] =
    [ViewKind::JoinKeyContainsUniqueKey, ViewKind::InputSideHasUniqueKey, ViewKind::InputSideHasNoUniqueKey];
const TYPES: [JoinType; 4] = [JoinType::Inner, JoinType::Left, JoinType::Right, JoinType::Full];

struct Case {
    join_type: JoinType,
    views: (ViewKind, ViewKind),
    line: JoinLine,
    cond: Vec<CondTerm>,
    filter_nulls: bool,
    replaced_adds: bool,
}

fn run_case(case: &Case, left: &[(RowKind, In)], right: &[(RowKind, In)], order: &[bool], split: usize) {
    let mut opts = JoinOptions::new(case.join_type, vec![0], vec![0]);
    opts.left = JoinSide { key_columns: vec![0], unique_key: unique_key(case.views.0) };
    opts.right = JoinSide { key_columns: vec![0], unique_key: unique_key(case.views.1) };
    opts.line = case.line;
    opts.condition = case.cond.clone();
    opts.filter_null_keys = vec![case.filter_nulls];
    opts.replaced_record_adds_association = case.replaced_adds;
    let (ls, rs) = (schema("l"), schema("r"));
    let mut op = StreamingJoin::new(ls.clone(), rs.clone(), opts).unwrap();
    let mut model = Model::new(
        case.join_type,
        MSide::new(vec![0], unique_key(case.views.0), case.views.0, false, 3),
        MSide::new(vec![0], unique_key(case.views.1), case.views.1, false, 3),
        case.line,
    );
    model.cond = case.cond.clone();
    model.filter_nulls = case.filter_nulls;
    model.replaced_adds = case.replaced_adds;
    let (mut li, mut ri) = (0, 0);
    let mut got: Vec<Change> = Vec::new();
    let mut want: Vec<Change> = Vec::new();
    // Runs of `order` pick which side's next rows go in; each run is cut
    // into batches of `split` rows.
    for (n, &is_left) in order.iter().enumerate() {
        let (src, at) = if is_left { (left, &mut li) } else { (right, &mut ri) };
        let take = (1 + n % split).min(src.len() - (*at).min(src.len()));
        if take == 0 {
            continue;
        }
        let chunk = &src[*at..*at + take];
        *at += take;
        for (k, r) in chunk {
            model.step(is_left, *k, &r.cells(), &mut want);
        }
        let rows: Vec<In> = chunk.iter().map(|c| c.1.clone()).collect();
        let kinds: Vec<RowKind> = chunk.iter().map(|c| c.0).collect();
        let (b, k) = if is_left {
            op.process_left(&batch(&ls, &rows), &kinds).unwrap()
        } else {
            op.process_right(&batch(&rs, &rows), &kinds).unwrap()
        };
        got.extend(changelog(&b, &k));
    }
    assert_eq!(got, want);
    // Snapshot → restore → the same output for one more probe of every key.
    let snap = op.snapshot(KeyGroupRange::all(128)).unwrap();
    let mut again = StreamingJoin::new(ls.clone(), rs.clone(), op_opts(case)).unwrap();
    again.restore(&snap, KeyGroupRange::all(128)).unwrap();
    assert_eq!(again.num_keys(), op.num_keys());
    assert_eq!(again.size(), op.size());
    let probe: Vec<In> = (0..4).map(|k| (Some(k), 7, "p".to_string())).collect();
    let a = op.process_left(&batch(&ls, &probe), &[Insert; 4]).unwrap();
    let b = again.process_left(&batch(&ls, &probe), &[Insert; 4]).unwrap();
    assert_eq!(changelog(&a.0, &a.1), changelog(&b.0, &b.1));
}

fn op_opts(case: &Case) -> JoinOptions {
    let mut opts = JoinOptions::new(case.join_type, vec![0], vec![0]);
    opts.left.unique_key = unique_key(case.views.0);
    opts.right.unique_key = unique_key(case.views.1);
    opts.line = case.line;
    opts.condition = case.cond.clone();
    opts.filter_null_keys = vec![case.filter_nulls];
    opts.replaced_record_adds_association = case.replaced_adds;
    opts
}

fn choices() -> impl Strategy<Value = Vec<(u8, Option<i64>, i64, u8)>> {
    prop::collection::vec((0u8..8, prop::option::weighted(0.9, 0i64..4), 0i64..6, 0u8..3), 0..60)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 160, ..ProptestConfig::default() })]

    #[test]
    fn join_matches_the_model(
        t in 0usize..4, lv in 0usize..3, rv in 0usize..3, flink1 in any::<bool>(), c in 0usize..3,
        filter_nulls in any::<bool>(), replaced_adds in any::<bool>(),
        lc in choices(), rc in choices(), order in prop::collection::vec(any::<bool>(), 1..40), split in 1usize..6,
    ) {
        let cond = match c {
            0 => vec![],
            1 => vec![CondTerm { left: 1, op: CmpOp::Le, right: 1 }],
            _ => vec![CondTerm { left: 2, op: CmpOp::Ne, right: 2 }, CondTerm { left: 1, op: CmpOp::Gt, right: 1 }],
        };
        let case = Case {
            join_type: TYPES[t],
            views: (VIEWS[lv], VIEWS[rv]),
            line: if flink1 { JoinLine::Flink1 } else { JoinLine::Flink2 },
            cond,
            filter_nulls,
            replaced_adds,
        };
        let (l, r) = (valid_changelog(VIEWS[lv], &lc), valid_changelog(VIEWS[rv], &rc));
        // Feed everything: the run order, then whatever is left.
        let mut order = order;
        order.extend(std::iter::repeat_n([true, false], 80).flatten());
        run_case(&case, &l, &r, &order, split);
    }
}

// ---------------------------------------------------------------------------
// Flink's StreamingJoinOperatorTest, transcribed
// ---------------------------------------------------------------------------

/// `StreamingJoinOperatorTestBase`: orders (order_id, line_order_id,
/// shipping_address) ⋈ line_orders (line_order_id0, line_order_ship_mode) on
/// the line order id; both sides `withUniqueKeyContainedByJoinKey`.
struct Orders {
    op: StreamingJoin,
    left: SchemaRef,
    right: SchemaRef,
}

type Expect<'a> = Vec<(RowKind, [Option<&'a str>; 5])>;

impl Orders {
    fn new(t: JoinType, replaced_adds: bool) -> Self {
        let left = Arc::new(Schema::new(vec![
            Field::new("order_id", DataType::Utf8, false),
            Field::new("line_order_id", DataType::Utf8, false),
            Field::new("shipping_address", DataType::Utf8, true),
        ]));
        let right = Arc::new(Schema::new(vec![
            Field::new("line_order_id0", DataType::Utf8, false),
            Field::new("line_order_ship_mode", DataType::Utf8, true),
        ]));
        let mut opts = JoinOptions::new(t, vec![1], vec![0]);
        opts.left.unique_key = Some(vec![1]);
        opts.right.unique_key = Some(vec![0]);
        opts.replaced_record_adds_association = replaced_adds;
        Orders { op: StreamingJoin::new(left.clone(), right.clone(), opts).unwrap(), left, right }
    }

    fn strings(schema: &SchemaRef, vals: &[&str]) -> RecordBatch {
        let cols = vals.iter().map(|v| Arc::new(StringArray::from(vec![*v])) as ArrayRef).collect();
        RecordBatch::try_new(schema.clone(), cols).unwrap()
    }

    fn left(&mut self, kind: RowKind, vals: [&str; 3], expect: Expect<'_>) {
        let (b, k) = self.op.process_left(&Self::strings(&self.left, &vals), &[kind]).unwrap();
        assert_eq!(changelog(&b, &k), Self::want(expect), "left {kind:?} {vals:?}");
    }

    fn right(&mut self, kind: RowKind, vals: [&str; 2], expect: Expect<'_>) {
        let (b, k) = self.op.process_right(&Self::strings(&self.right, &vals), &[kind]).unwrap();
        assert_eq!(changelog(&b, &k), Self::want(expect), "right {kind:?} {vals:?}");
    }

    fn want(expect: Expect<'_>) -> Vec<Change> {
        expect
            .into_iter()
            .map(|(k, row)| (k, row.iter().map(|c| c.map_or(Cell::Null, |s| Cell::S(s.to_string()))).collect()))
            .collect()
    }
}

/// The output row of `Ord#1`'s line order `line` (shipped to `addr`)
/// joined with the line order's ship `mode`.
fn joined<'a>(line: &'a str, addr: &'a str, mode: &'a str) -> [Option<&'a str>; 5] {
    [Some("Ord#1"), Some(line), Some(addr), Some(line), Some(mode)]
}

/// The output row of `Ord#1`'s line order `line` (shipped to `addr`) with
/// no line order: NULL-padded.
fn padded<'a>(line: &'a str, addr: &'a str) -> [Option<&'a str>; 5] {
    [Some("Ord#1"), Some(line), Some(addr), None, None]
}

const BELLEVUE: &str = "3 Bellevue Drive, Pottstown, PA 19464";
const MANOR: &str = "68 Manor Station Street, Honolulu, HI 96815";

/// `testInnerJoinWithStateRetentionDisabled`.
#[test]
fn flink_inner_join_with_state_retention_disabled() {
    let mut t = Orders::new(JoinType::Inner, true);
    t.left(Insert, ["Ord#1", "LineOrd#1", BELLEVUE], vec![]);
    t.left(Insert, ["Ord#1", "LineOrd#2", BELLEVUE], vec![]);
    t.right(Insert, ["LineOrd#2", "AIR"], vec![(Insert, joined("LineOrd#2", BELLEVUE, "AIR"))]);
    t.left(UpdateAfter, ["Ord#1", "LineOrd#2", MANOR], vec![(UpdateAfter, joined("LineOrd#2", MANOR, "AIR"))]);
    t.right(UpdateAfter, ["LineOrd#2", "SHIP"], vec![(UpdateAfter, joined("LineOrd#2", MANOR, "SHIP"))]);
    t.right(Insert, ["LineOrd#1", "TRUCK"], vec![(Insert, joined("LineOrd#1", BELLEVUE, "TRUCK"))]);
    t.right(Delete, ["LineOrd#2", "SHIP"], vec![(Delete, joined("LineOrd#2", MANOR, "SHIP"))]);
    t.right(Insert, ["LineOrd#2", "RAIL"], vec![(Insert, joined("LineOrd#2", MANOR, "RAIL"))]);
}

/// `testLeftOuterJoinWithStateRetentionDisabled`; its last step as on
/// Flink's main branch (FLINK-40681: the bare `+U` replaced the record, so
/// the delete restores the padding) and as 1.20.4 / 2.3.0 emit it (the
/// replacing `+U` counted a second association, so the padding stays away).
#[test]
fn flink_left_outer_join_with_state_retention_disabled() {
    for replaced_adds in [false, true] {
        let mut t = Orders::new(JoinType::Left, replaced_adds);
        t.left(Insert, ["Ord#1", "LineOrd#1", BELLEVUE], vec![(Insert, padded("LineOrd#1", BELLEVUE))]);
        t.left(Insert, ["Ord#1", "LineOrd#2", BELLEVUE], vec![(Insert, padded("LineOrd#2", BELLEVUE))]);
        t.right(
            Insert,
            ["LineOrd#2", "AIR"],
            vec![(Delete, padded("LineOrd#2", BELLEVUE)), (Insert, joined("LineOrd#2", BELLEVUE, "AIR"))],
        );
        t.left(UpdateAfter, ["Ord#1", "LineOrd#2", MANOR], vec![(Insert, joined("LineOrd#2", MANOR, "AIR"))]);
        t.right(UpdateAfter, ["LineOrd#2", "SHIP"], vec![(Insert, joined("LineOrd#2", MANOR, "SHIP"))]);
        t.right(
            Insert,
            ["LineOrd#1", "TRUCK"],
            vec![(Delete, padded("LineOrd#1", BELLEVUE)), (Insert, joined("LineOrd#1", BELLEVUE, "TRUCK"))],
        );
        let mut last = vec![(Delete, joined("LineOrd#2", MANOR, "SHIP"))];
        if !replaced_adds {
            last.push((Insert, padded("LineOrd#2", MANOR)));
        }
        t.right(Delete, ["LineOrd#2", "SHIP"], last);
    }
}

/// `testRightOuterJoinWithDStateRetentionDisabled`.
#[test]
fn flink_right_outer_join_with_state_retention_disabled() {
    let mut t = Orders::new(JoinType::Right, true);
    t.left(Insert, ["Ord#1", "LineOrd#1", BELLEVUE], vec![]);
    t.left(Insert, ["Ord#1", "LineOrd#2", BELLEVUE], vec![]);
    t.right(Insert, ["LineOrd#2", "AIR"], vec![(Insert, joined("LineOrd#2", BELLEVUE, "AIR"))]);
    t.right(Insert, ["LineOrd#1", "TRUCK"], vec![(Insert, joined("LineOrd#1", BELLEVUE, "TRUCK"))]);
    t.left(UpdateAfter, ["Ord#1", "LineOrd#2", MANOR], vec![(Insert, joined("LineOrd#2", MANOR, "AIR"))]);
}

/// `testLeftOuterJoinInnerSideUpdateAfterThenDeleteRestoresNullPadding` (a
/// FLINK-40681 test of Flink's main branch, so with the fix on).
#[test]
fn flink_left_outer_bare_update_after_then_delete_restores_padding() {
    let mut t = Orders::new(JoinType::Left, false);
    t.left(Insert, ["Ord#1", "LineOrd#1", BELLEVUE], vec![(Insert, padded("LineOrd#1", BELLEVUE))]);
    t.right(
        Insert,
        ["LineOrd#1", "AIR"],
        vec![(Delete, padded("LineOrd#1", BELLEVUE)), (Insert, joined("LineOrd#1", BELLEVUE, "AIR"))],
    );
    t.right(UpdateAfter, ["LineOrd#1", "SHIP"], vec![(Insert, joined("LineOrd#1", BELLEVUE, "SHIP"))]);
    t.right(
        Delete,
        ["LineOrd#1", "SHIP"],
        vec![(Delete, joined("LineOrd#1", BELLEVUE, "SHIP")), (Insert, padded("LineOrd#1", BELLEVUE))],
    );
}

// ---------------------------------------------------------------------------
// Line order, snapshots, errors
// ---------------------------------------------------------------------------

/// FULL join, two left rows of one key, then a right row: 1.20 emits both
/// padding retractions before both joined rows, 2.x pairs them.
#[test]
fn flink_lines_order_rows_within_an_input_row() {
    let (ls, rs) = (schema("l"), schema("r"));
    let lrows = [(Some(1), 1, "a".to_string()), (Some(1), 2, "b".to_string())];
    for (line, want) in
        [(JoinLine::Flink1, [Delete, Delete, Insert, Insert]), (JoinLine::Flink2, [Delete, Insert, Delete, Insert])]
    {
        let mut opts = JoinOptions::new(JoinType::Full, vec![0], vec![0]);
        opts.line = line;
        let mut op = StreamingJoin::new(ls.clone(), rs.clone(), opts).unwrap();
        op.process_left(&batch(&ls, &lrows), &[Insert, Insert]).unwrap();
        let (_, kinds) = op.process_right(&batch(&rs, &[(Some(1), 9, "z".to_string())]), &[Insert]).unwrap();
        assert_eq!(kinds, want, "{line:?}");
    }
}

fn loaded_join() -> (StreamingJoin, SchemaRef, SchemaRef) {
    let (ls, rs) = (schema("l"), schema("r"));
    let mut op =
        StreamingJoin::new(ls.clone(), rs.clone(), JoinOptions::new(JoinType::Full, vec![0], vec![0])).unwrap();
    let rows: Vec<In> = (0..50).map(|i| (Some(i % 20), i, format!("row {i}"))).collect();
    op.process_left(&batch(&ls, &rows), &[Insert; 50]).unwrap();
    op.process_right(&batch(&rs, &rows[..30]), &[Insert; 30]).unwrap();
    (op, ls, rs)
}

#[test]
fn snapshots_split_by_key_group_and_restore_by_range() {
    let (op, ls, rs) = loaded_join();
    let parts = op.snapshot_key_groups(KeyGroupRange::all(128)).unwrap();
    assert!(parts.len() > 1);
    let (lo, hi) = (KeyGroupRange::new(0, 63), KeyGroupRange::new(64, 127));
    let mut a = StreamingJoin::new(ls.clone(), rs.clone(), JoinOptions::new(JoinType::Full, vec![0], vec![0])).unwrap();
    let mut b = StreamingJoin::new(ls.clone(), rs.clone(), JoinOptions::new(JoinType::Full, vec![0], vec![0])).unwrap();
    for (_, p) in &parts {
        a.restore(p, lo).unwrap();
        b.restore(p, hi).unwrap();
    }
    let (ak, bk) = (a.num_keys(), b.num_keys());
    assert_eq!((ak.0 + bk.0, ak.1 + bk.1), op.num_keys());
    assert_eq!(a.size() + b.size(), op.size());
    assert!(
        a.restore(&parts[0].1, KeyGroupRange::all(128)).is_err()
            || b.restore(&parts[0].1, KeyGroupRange::all(128)).is_err()
    );
}

#[test]
fn corrupt_snapshots_are_errors() {
    let (op, ls, rs) = loaded_join();
    let snap = op.snapshot(KeyGroupRange::all(128)).unwrap();
    let fresh =
        || StreamingJoin::new(ls.clone(), rs.clone(), JoinOptions::new(JoinType::Full, vec![0], vec![0])).unwrap();
    for cut in [0, 1, 10, snap.len() / 2, snap.len() - 1] {
        assert!(matches!(fresh().restore(&snap[..cut], KeyGroupRange::all(128)), Err(Error::CorruptSnapshot { .. })));
    }
    for i in (0..snap.len()).step_by(7) {
        let mut bad = snap.clone();
        bad[i] ^= 0x5a;
        let mut j = fresh();
        assert!(j.restore(&bad, KeyGroupRange::all(128)).is_err(), "byte {i}");
        assert_eq!(j.num_keys(), (0, 0));
    }
    // Another join shape refuses the snapshot.
    let mut inner = StreamingJoin::new(ls, rs, JoinOptions::new(JoinType::Inner, vec![0], vec![0])).unwrap();
    assert!(matches!(inner.restore(&snap, KeyGroupRange::all(128)), Err(Error::CorruptSnapshot { .. })));
}

/// FNV-1a 64, the snapshot checksum (offset basis 0xcbf29ce484222325, prime 0x100000001b3).
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf29ce484222325, |h, b| (h ^ u64::from(*b)).wrapping_mul(0x100000001b3))
}

/// Damaged snapshots whose checksum was recomputed reach the entry parser:
/// each restores or fails (leaving the state empty), never panics. (A flip
/// can restore a plausible appear count in the millions, whose next probe
/// legitimately emits that many rows, so accepted ones are not probed.)
#[test]
fn damaged_snapshots_with_a_valid_checksum_never_panic() {
    let (op, ls, rs) = loaded_join();
    let snap = op.snapshot(KeyGroupRange::all(128)).unwrap();
    let body = snap.len() - 8;
    for i in (0..body).step_by(3) {
        for x in [0x01u8, 0xff] {
            let mut bad = snap.clone();
            bad[i] ^= x;
            let sum = fnv1a(&bad[..body]);
            bad[body..].copy_from_slice(&sum.to_le_bytes());
            let mut j =
                StreamingJoin::new(ls.clone(), rs.clone(), JoinOptions::new(JoinType::Full, vec![0], vec![0])).unwrap();
            if j.restore(&bad, KeyGroupRange::all(128)).is_err() {
                assert_eq!((j.num_keys(), j.size()), ((0, 0), 0), "byte {i} ^ {x:#x}");
            }
        }
    }
}

#[test]
fn budget_is_an_error() {
    let (ls, rs) = (schema("l"), schema("r"));
    let mut opts = JoinOptions::new(JoinType::Inner, vec![0], vec![0]);
    opts.state_budget = Some(2000);
    let mut op = StreamingJoin::new(ls.clone(), rs, opts).unwrap();
    let rows: Vec<In> = (0..100).map(|i| (Some(i), i, format!("row {i}"))).collect();
    assert!(matches!(op.process_left(&batch(&ls, &rows), &[Insert; 100]), Err(Error::StateBudgetExceeded { .. })));
    assert!(op.size() <= 2000);
}

#[test]
fn bad_arguments_are_errors() {
    let (ls, rs) = (schema("l"), schema("r"));
    assert!(StreamingJoin::new(ls.clone(), rs.clone(), JoinOptions::new(JoinType::Inner, vec![0], vec![2])).is_err());
    assert!(StreamingJoin::new(ls.clone(), rs.clone(), JoinOptions::new(JoinType::Inner, vec![0, 1], vec![0])).is_err());
    let mut o = JoinOptions::new(JoinType::Inner, vec![0], vec![0]);
    o.condition = vec![CondTerm { left: 1, op: CmpOp::Lt, right: 2 }];
    assert!(StreamingJoin::new(ls.clone(), rs.clone(), o).is_err());
    let mut op =
        StreamingJoin::new(ls.clone(), rs.clone(), JoinOptions::new(JoinType::Inner, vec![0], vec![0])).unwrap();
    assert!(op.process_left(&batch(&rs, &[(Some(1), 1, "a".into())]), &[Insert, Insert]).is_err());
}

// ---------------------------------------------------------------------------
// Allocation bars
// ---------------------------------------------------------------------------

fn allocs(op: &mut StreamingJoin, left: bool, b: &RecordBatch, k: &[RowKind]) -> u64 {
    let step = |op: &mut StreamingJoin| {
        if left {
            op.process_left(b, k).unwrap();
        } else {
            op.process_right(b, k).unwrap();
        }
    };
    step(op);
    step(op);
    count_allocs(|| step(op)).0
}

/// Probes whose keys and records are already in state allocate per batch,
/// not per row: an inner join of a keyed dimension (one record per key) with
/// probe rows that repeat, and a LEFT join of changelog rows (`-U`/`+U`
/// pairs) against it.
#[test]
fn probes_of_keys_in_state_do_not_allocate_per_row() {
    let (ls, rs) = (schema("l"), schema("r"));
    let dim: Vec<In> = (0..64).map(|i| (Some(i), i, format!("dimension row {i}"))).collect();
    let probe =
        |n: usize| -> Vec<In> { (0..n).map(|i| (Some((i % 64) as i64), 5, format!("probe {}", i % 64))).collect() };
    for t in [JoinType::Inner, JoinType::Left] {
        let mut opts = JoinOptions::new(t, vec![0], vec![0]);
        opts.right.unique_key = Some(vec![0]);
        let mut op = StreamingJoin::new(ls.clone(), rs.clone(), opts).unwrap();
        op.process_right(&batch(&rs, &dim), &[Insert; 64]).unwrap();
        let (small, big) = (batch(&ls, &probe(64)), batch(&ls, &probe(4096)));
        let a_small = allocs(&mut op, true, &small, &[Insert; 64]);
        let a_big = allocs(&mut op, true, &big, &vec![Insert; 4096]);
        assert!(
            a_big <= a_small + 8 && a_big < 96,
            "{t:?} insert probes: 4096 rows {a_big} allocations, 64 rows {a_small}"
        );
        // Retract and re-add the same rows: counts go down and up in place.
        let kinds: Vec<RowKind> = (0..4096).map(|i| if i % 2 == 0 { UpdateBefore } else { UpdateAfter }).collect();
        let base = probe(4096);
        let pairs: Vec<In> = (0..4096).map(|i| base[i / 2 * 2].clone()).collect();
        let a_pairs = allocs(&mut op, true, &batch(&ls, &pairs), &kinds);
        assert!(a_pairs < 96, "{t:?} -U/+U probes: {a_pairs} allocations for 4096 rows");
    }
}
