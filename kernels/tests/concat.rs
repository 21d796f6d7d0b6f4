//! CONCAT / CONCAT_WS against plain `String` joins written here, with Flink's
//! NULL rules (`BinaryStringDataUtil.concat` / `concatWs`,
//! TR/data/binary/BinaryStringDataUtil.java; docs/flink-semantics.md §6.2, §11).

use std::sync::Arc;

use arrow_array::{
    Array, ArrayRef, Datum, GenericStringArray, Int32Array, LargeStringArray, OffsetSizeTrait, Scalar, StringArray,
    StringViewArray,
};
use proptest::prelude::*;
use sluice_kernels::alloc_count::{count_allocs, CountingAlloc};
use sluice_kernels::concat::{check_capacity, concat, concat_large, concat_ws, concat_ws_large, forced, NullFill};
use sluice_kernels::Error;

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc::system();

type Col = Vec<Option<String>>;
/// An argument as the test sees it: a column, or (when the first is None) a scalar.
type ArgSpec = (Option<Col>, Option<String>);

/// Builds one column in the layout `kind` (0 Utf8, 1 LargeUtf8, 2 Utf8View),
/// padded with junk rows before and after and then sliced back.
fn build(col: &[Option<String>], kind: u8, pad: usize) -> ArrayRef {
    let mut rows: Vec<Option<String>> =
        (0..pad).map(|i| Some(format!("junk-before-{i}-long-enough-for-views"))).collect();
    rows.extend(col.iter().cloned());
    rows.extend((0..pad).map(|_| None));
    let a: ArrayRef = match kind % 3 {
        0 => Arc::new(StringArray::from(rows)),
        1 => Arc::new(LargeStringArray::from(rows)),
        _ => Arc::new(StringViewArray::from(rows)),
    };
    a.slice(pad, col.len())
}

/// One argument: an array or a scalar.
enum Arg {
    Array(ArrayRef),
    Scalar(Scalar<ArrayRef>),
}

impl Arg {
    fn datum(&self) -> &dyn Datum {
        match self {
            Arg::Array(a) => a,
            Arg::Scalar(s) => s,
        }
    }
}

/// The reference value of argument `k` at row `i`.
fn at(v: &(Option<Col>, Option<String>), i: usize) -> Option<&str> {
    match v {
        (Some(col), _) => col[i].as_deref(),
        (None, s) => s.as_deref(),
    }
}

fn make_arg(v: &(Option<Col>, Option<String>), kind: u8, pad: usize) -> Arg {
    match v {
        (Some(col), _) => Arg::Array(build(col, kind, pad)),
        (None, s) => Arg::Scalar(Scalar::new(build(std::slice::from_ref(s), kind, pad))),
    }
}

fn naive_concat(args: &[(Option<Col>, Option<String>)], rows: usize) -> Vec<Option<String>> {
    (0..rows)
        .map(|i| {
            let mut out = String::new();
            for a in args {
                out.push_str(at(a, i)?);
            }
            Some(out)
        })
        .collect()
}

fn naive_concat_ws(
    sep: &(Option<Col>, Option<String>),
    args: &[(Option<Col>, Option<String>)],
    rows: usize,
) -> Vec<Option<String>> {
    (0..rows)
        .map(|i| {
            let sep = at(sep, i)?;
            let parts: Vec<&str> = args.iter().filter_map(|a| at(a, i)).collect();
            Some(parts.join(sep))
        })
        .collect()
}

fn collect<O: OffsetSizeTrait>(a: &GenericStringArray<O>) -> Vec<Option<String>> {
    a.to_data().validate_full().unwrap();
    assert_eq!(a.value_offsets()[0].as_usize(), 0, "output offsets start at 0");
    for i in 0..a.len() {
        if a.is_null(i) {
            assert_eq!(a.value_length(i).as_usize(), 0, "a NULL row consumes no value bytes");
        }
    }
    a.iter().map(|v| v.map(str::to_owned)).collect()
}

fn text() -> impl Strategy<Value = String> {
    let ch = prop_oneof![
        6 => prop::char::range('a', 'z'),
        1 => prop::sample::select(vec!['\0', 'é', '€', '中', '😀', '\u{10FFFF}', ',']),
    ];
    prop_oneof![
        3 => prop::collection::vec(ch.clone(), 0..12),
        1 => prop::collection::vec(ch, 12..70),
    ]
    .prop_map(|v| v.into_iter().collect())
}

/// An argument: a column of `rows` values (25% NULL) or a scalar (maybe NULL).
fn arg(rows: usize) -> impl Strategy<Value = (Option<Col>, Option<String>)> {
    prop_oneof![
        3 => prop::collection::vec(prop::option::weighted(0.75, text()), rows).prop_map(|c| (Some(c), None)),
        1 => prop::option::weighted(0.85, text()).prop_map(|s| (None, s)),
    ]
}

fn case() -> impl Strategy<Value = (usize, Vec<ArgSpec>, ArgSpec, Vec<u8>, usize)> {
    (0usize..25).prop_flat_map(|rows| {
        (Just(rows), prop::collection::vec(arg(rows), 1..6), arg(rows), prop::collection::vec(0u8..3, 7), 0usize..5)
    })
}

const FILLS: [NullFill; 5] =
    [NullFill::Auto, NullFill::Branchy, NullFill::BranchFree, NullFill::ValidOnly, NullFill::SkipNulls];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]
    #[test]
    fn concat_matches_string_joins((rows, args, sep, kinds, pad) in case()) {
        let built: Vec<Arg> = args.iter().zip(&kinds).map(|(a, &k)| make_arg(a, k, pad)).collect();
        let datums: Vec<&dyn Datum> = built.iter().map(Arg::datum).collect();
        let all_scalar = args.iter().all(|a| a.0.is_none());
        let n = if all_scalar { 1 } else { rows };

        let want = naive_concat(&args, n);
        prop_assert_eq!(collect(&concat(&datums).unwrap()), want.clone());
        prop_assert_eq!(collect(&concat_large(&datums).unwrap()), want.clone());
        for fill in FILLS {
            prop_assert_eq!(collect(&forced::concat(&datums, fill).unwrap()), want.clone(), "{:?}", fill);
            prop_assert_eq!(collect(&forced::concat_large(&datums, fill).unwrap()), want.clone(), "{:?}", fill);
        }

        let sep_arg = make_arg(&sep, kinds[6], pad);
        let ws_n = if all_scalar && sep.0.is_none() { 1 } else { rows };
        let want = naive_concat_ws(&sep, &args, ws_n);
        prop_assert_eq!(collect(&concat_ws(sep_arg.datum(), &datums).unwrap()), want.clone());
        prop_assert_eq!(collect(&concat_ws_large(sep_arg.datum(), &datums).unwrap()), want);
    }
}

/// A column of `rows` values whose NULL share is `null_pct`, with lengths
/// around the copy loops' thresholds (16, 32 and 64 bytes).
fn long_col(rows: usize, null_pct: u32) -> impl Strategy<Value = Col> {
    let value = prop_oneof![
        prop::collection::vec(prop::char::range('a', 'z'), 0..20).prop_map(|v| v.into_iter().collect::<String>()),
        prop::collection::vec(prop::char::range('a', 'z'), 20..90).prop_map(|v| v.into_iter().collect::<String>()),
        Just("😀é".to_string()),
    ];
    prop::collection::vec((0u32..100, value), rows)
        .prop_map(move |v| v.into_iter().map(|(r, s)| (r >= null_pct).then_some(s)).collect())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]
    /// Batches long enough for the 64-row validity words and the unchecked
    /// copy region: every fill strategy, NULL shares from none to all (long
    /// NULL runs included), `Utf8` columns sliced at any bit offset, with and
    /// without a scalar between them.
    #[test]
    fn long_batches_match_string_joins(
        (rows, cols, pad, with_scalar) in (60usize..300, prop::collection::vec(prop::sample::select(vec![0u32, 5, 25, 60, 95, 100]), 1..4), 0usize..9, any::<bool>())
            .prop_flat_map(|(rows, pcts, pad, sc)| {
                let cols: Vec<_> = pcts.into_iter().map(|p| long_col(rows, p)).collect();
                (Just(rows), cols, Just(pad), Just(sc))
            }),
    ) {
        let mut args: Vec<ArgSpec> = cols.into_iter().map(|c| (Some(c), None)).collect();
        if with_scalar {
            args.insert(1, (None, Some("-".to_string())));
        }
        let built: Vec<Arg> = args.iter().map(|a| make_arg(a, 0, pad)).collect();
        let datums: Vec<&dyn Datum> = built.iter().map(Arg::datum).collect();
        let want = naive_concat(&args, rows);
        prop_assert_eq!(collect(&concat(&datums).unwrap()), want.clone());
        for fill in FILLS {
            prop_assert_eq!(collect(&forced::concat(&datums, fill).unwrap()), want.clone(), "{:?}", fill);
            prop_assert_eq!(collect(&forced::concat_large(&datums, fill).unwrap()), want.clone(), "{:?}", fill);
        }
        // CONCAT_WS with a scalar separator and with a column of separators
        // (some NULL): NULL arguments are skipped, NULL separators give NULL.
        let seps: Col = (0..rows).map(|i| (i % 7 != 3).then(|| ["", ",", "--", "ü"][i % 4].to_string())).collect();
        for sep in [(None, Some(",".to_string())), (Some(seps), None)] {
            let sep_arg = make_arg(&sep, 0, pad);
            let want = naive_concat_ws(&sep, &args, rows);
            prop_assert_eq!(collect(&concat_ws(sep_arg.datum(), &datums).unwrap()), want.clone());
            prop_assert_eq!(collect(&concat_ws_large(sep_arg.datum(), &datums).unwrap()), want);
        }
    }
}

// ---- Flink rules, one test each -----------------------------------------

fn s(v: &[Option<&str>]) -> StringArray {
    StringArray::from(v.to_vec())
}

fn lit(v: Option<&str>) -> Scalar<StringArray> {
    Scalar::new(StringArray::from(vec![v]))
}

/// BinaryStringDataUtil.concat: any NULL argument → NULL.
#[test]
fn concat_any_null_gives_null() {
    let a = s(&[Some("a"), None, Some("c"), Some("")]);
    let b = s(&[Some("x"), Some("y"), None, Some("")]);
    let out = concat(&[&a, &b]).unwrap();
    assert_eq!(collect(&out), vec![Some("ax".into()), None, None, Some("".into())]);
    // A NULL scalar makes every row NULL.
    let out = concat(&[&a, &lit(None)]).unwrap();
    assert_eq!((out.len(), out.null_count()), (4, 4));
}

/// Bytes are concatenated per argument, never re-encoded: two halves of a
/// character in separate arguments stay as they are (§11: arguments are
/// encoded separately). Here: multibyte strings join byte-exactly.
#[test]
fn concat_is_bytewise() {
    let a = s(&[Some("é"), Some("😀")]);
    let b = s(&[Some("中"), Some("")]);
    let out = concat(&[&a, &b]).unwrap();
    assert_eq!(out.value(0).as_bytes(), "é中".as_bytes());
    assert_eq!(out.value(1).as_bytes(), "😀".as_bytes());
}

/// BinaryStringDataUtil.concatWs: NULL separator → NULL; NULL arguments are
/// skipped with their separator; empty strings kept; no non-NULL args → ''.
#[test]
fn concat_ws_flink_rules() {
    let a = s(&[Some("a"), None, None, Some(""), Some("a")]);
    let b = s(&[None, None, Some("b"), Some(""), Some("b")]);
    let c = s(&[Some("c"), None, None, Some(""), Some("c")]);
    let out = concat_ws(&lit(Some(",")), &[&a, &b, &c]).unwrap();
    assert_eq!(
        collect(&out),
        vec![Some("a,c".into()), Some("".into()), Some("b".into()), Some(",,".into()), Some("a,b,c".into())]
    );
    let out = concat_ws(&lit(None), &[&a, &b, &c]).unwrap();
    assert_eq!((out.len(), out.null_count()), (5, 5));
    // Column separator, NULL in some rows.
    let sep = s(&[Some("-"), Some("-"), None, Some("<>"), Some("")]);
    let out = concat_ws(&sep, &[&a, &b, &c]).unwrap();
    assert_eq!(collect(&out), vec![Some("a-c".into()), Some("".into()), None, Some("<><>".into()), Some("abc".into())]);
    // NULL scalar arguments are skipped too; no arguments at all → ''.
    let out = concat_ws(&lit(Some(",")), &[&lit(Some("x")), &lit(None), &lit(Some("y"))]).unwrap();
    assert_eq!(collect(&out), vec![Some("x,y".into())]);
    let out = concat_ws(&lit(Some(",")), &[]).unwrap();
    assert_eq!(collect(&out), vec![Some("".into())]);
    let out = concat_ws(&sep, &[]).unwrap();
    assert_eq!(collect(&out), vec![Some("".into()), Some("".into()), None, Some("".into()), Some("".into())]);
}

#[test]
fn scalars_broadcast_and_all_scalar_gives_one_row() {
    let a = s(&[Some("a"), Some("b"), None]);
    let out = concat(&[&lit(Some("<")), &a, &lit(Some(">"))]).unwrap();
    assert_eq!(collect(&out), vec![Some("<a>".into()), Some("<b>".into()), None]);
    let out = concat(&[&lit(Some("x")), &lit(Some("y"))]).unwrap();
    assert_eq!(collect(&out), vec![Some("xy".into())]);
}

#[test]
fn empty_inputs() {
    let e = s(&[]);
    let out = concat(&[&e, &lit(Some("x"))]).unwrap();
    assert_eq!((out.len(), out.value_offsets()), (0, &[0][..]));
    let out = concat_ws(&lit(Some(",")), &[&e, &e]).unwrap();
    assert_eq!(out.len(), 0);
    let a = s(&[Some("abc"), Some("d")]);
    let out = concat(&[&a.slice(1, 0), &e]).unwrap();
    assert_eq!(out.len(), 0);
}

#[test]
fn bad_arguments_are_errors_not_panics() {
    let a = s(&[Some("a"), Some("b")]);
    let b = s(&[Some("a")]);
    assert!(matches!(concat(&[]), Err(Error::InvalidArgument(_))));
    assert!(matches!(concat(&[&a, &b]), Err(Error::InvalidArgument(_))));
    assert!(matches!(concat_ws(&b, &[&a]), Err(Error::InvalidArgument(_))));
    let ints = Int32Array::from(vec![1, 2]);
    assert!(matches!(concat(&[&a, &ints]), Err(Error::InvalidArgument(_))));
    assert!(matches!(concat_ws(&ints, &[&a]), Err(Error::InvalidArgument(_))));
    struct Bad<'a>(&'a StringArray);
    impl Datum for Bad<'_> {
        fn get(&self) -> (&dyn Array, bool) {
            (self.0, true)
        }
    }
    assert!(matches!(concat(&[&Bad(&a)]), Err(Error::InvalidArgument(_))));
}

// ---- offset overflow -----------------------------------------------------

#[test]
fn capacity_check_names_the_limit() {
    assert!(check_capacity(i32::MAX as usize, false).is_ok());
    match check_capacity(i32::MAX as usize + 1, false) {
        Err(Error::OffsetOverflow { needed, limit }) => {
            assert_eq!((needed, limit), (i32::MAX as usize + 1, i32::MAX as usize))
        }
        other => panic!("{other:?}"),
    }
    assert!(check_capacity(i32::MAX as usize + 1, true).is_ok());
}

/// A 1 MiB scalar broadcast over 2049 rows needs 2049 MiB > i32::MAX: the
/// kernel refuses before allocating anything large.
#[test]
fn utf8_output_overflow_is_an_error() {
    let big = "x".repeat(1 << 20);
    let rows = s(&vec![Some(""); 2049]);
    let scalar = lit(Some(&big));
    let (allocs_bytes, r) = {
        let before = sluice_kernels::alloc_count::allocated_bytes();
        let r = concat(&[&rows, &scalar]);
        (sluice_kernels::alloc_count::allocated_bytes() - before, r)
    };
    match r {
        Err(Error::OffsetOverflow { needed, limit }) => {
            assert_eq!(needed, 2049 << 20);
            assert_eq!(limit, i32::MAX as usize);
            let msg = Error::OffsetOverflow { needed, limit }.to_string();
            assert!(msg.contains("2147483647"), "{msg}");
        }
        other => panic!("{other:?}"),
    }
    assert!(allocs_bytes < 8 << 20, "allocated {allocs_bytes} bytes before refusing");
    // CONCAT_WS counts separators too: 2048 rows × (1 MiB + 1 MiB separator).
    let half = "y".repeat(1 << 20);
    let rows = s(&vec![Some(""); 1025]);
    let r = concat_ws(&lit(Some(&half)), &[&rows, &lit(Some(&big))]);
    assert!(matches!(r, Err(Error::OffsetOverflow { .. })), "{r:?}");
    // NULL rows' bytes do not count: 2049 rows, all but one NULL → fits.
    let mut v = vec![None; 2049];
    v[7] = Some("");
    let rows = s(&v);
    let out = concat(&[&rows, &scalar]).unwrap();
    assert_eq!((out.len(), out.null_count(), out.value(7).len()), (2049, 2048, 1 << 20));
}

/// NULL rows whose slots hold bytes (Arrow allows any bytes under a NULL):
/// the branch-free fill copies them and must let the next row overwrite
/// them, at every value length around the 16-/32-byte copy widths.
#[test]
fn bytes_under_null_rows_never_leak() {
    for len in [0usize, 1, 15, 16, 17, 31, 32, 33, 100, 511, 512, 513, 2000] {
        let n = 67;
        let mut offsets = vec![0i32];
        let mut values = Vec::new();
        for i in 0..n {
            // Under NULL: '#' bytes, longer than the valid values.
            let (c, l) = if i % 3 == 1 { (b'#', len + 40) } else { (b'a' + (i % 26) as u8, len + i % 5) };
            values.extend(std::iter::repeat_n(c, l));
            offsets.push(values.len() as i32);
        }
        let valid: Vec<bool> = (0..n).map(|i| i % 3 != 1).collect();
        let a = StringArray::new(
            arrow_buffer::OffsetBuffer::new(offsets.into()),
            values.into(),
            Some(arrow_buffer::NullBuffer::from(valid)),
        );
        let b = StringArray::from_iter_values((0..n).map(|i| "b".repeat(len % 40 + i % 3)));
        let want: Vec<Option<String>> =
            (0..n).map(|i| a.is_valid(i).then(|| format!("{}{}", a.value(i), b.value(i)))).collect();
        for fill in FILLS {
            for args in [[&a as &dyn Datum, &b], [&b as &dyn Datum, &a]] {
                let got = collect(&forced::concat(&args, fill).unwrap());
                let want: Vec<Option<String>> = if std::ptr::eq(args[0], &a as &dyn Datum) {
                    want.clone()
                } else {
                    (0..n).map(|i| a.is_valid(i).then(|| format!("{}{}", b.value(i), a.value(i)))).collect()
                };
                assert_eq!(got, want, "len {len}, {fill:?}");
                assert!(!got.iter().flatten().any(|v| v.contains('#')));
            }
        }
    }
}

// ---- allocation discipline -----------------------------------------------

#[test]
fn no_allocation_per_row() {
    let make = |n: usize, nulls: bool| {
        StringArray::from_iter((0..n).map(|i| if nulls && i % 4 == 0 { None } else { Some(format!("value-{i}")) }))
    };
    for nulls in [false, true] {
        let (small_a, small_b) = (make(100, nulls), make(100, false));
        let (big_a, big_b) = (make(20_000, nulls), make(20_000, false));
        let sep = lit(Some(", "));
        let (x, _) = count_allocs(|| concat(&[&small_a, &sep, &small_b]).unwrap());
        let (y, _) = count_allocs(|| concat(&[&big_a, &sep, &big_b]).unwrap());
        assert_eq!(x, y);
        assert!(y <= 12, "{y} allocations");
        for fill in FILLS {
            let (x, _) = count_allocs(|| forced::concat(&[&small_a, &sep, &small_b], fill).unwrap());
            let (y, _) = count_allocs(|| forced::concat(&[&big_a, &sep, &big_b], fill).unwrap());
            assert_eq!(x, y, "{fill:?}");
        }
        let (x, _) = count_allocs(|| concat_ws(&sep, &[&small_a, &small_b]).unwrap());
        let (y, _) = count_allocs(|| concat_ws(&sep, &[&big_a, &big_b]).unwrap());
        assert_eq!(x, y);
        let big_v = StringViewArray::from_iter(big_a.iter());
        let small_v = StringViewArray::from_iter(small_a.iter());
        let (x, _) = count_allocs(|| concat_large(&[&small_v, &small_b]).unwrap());
        let (y, _) = count_allocs(|| concat_large(&[&big_v, &big_b]).unwrap());
        assert_eq!(x, y);
    }
}
