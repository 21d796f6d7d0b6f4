//! Parity with real Flink: key bytes, `BinaryRowData.hashCode()`, key group
//! and channel for the test vectors of docs/flink-semantics.md §5.6 (produced by
//! executing Flink's own `BinaryRowWriter`, `MurmurHashUtils`, `MathUtils`
//! and `KeyGroupRangeAssignment`).

use std::sync::Arc;

use arrow_array::{
    ArrayRef, BinaryArray, BinaryViewArray, BooleanArray, Decimal128Array, Float64Array, Int32Array, Int64Array,
    LargeStringArray, RecordBatch, StringArray, StringViewArray, TimestampMicrosecondArray, TimestampMillisecondArray,
    TimestampNanosecondArray,
};
use sluice_keyed::{hash_binary_row, key_groups, FlinkKeyEncoder, KeyEncoder, KeyedExchange};

struct Vector {
    name: &'static str,
    columns: Vec<ArrayRef>,
    hash: i32,
    kg128: i32,
    kg32768: Option<i32>,
}

fn vectors() -> Vec<Vector> {
    let s = |v: &str| -> ArrayRef { Arc::new(StringArray::from(vec![v])) };
    vec![
        Vector {
            name: "INT 42",
            columns: vec![Arc::new(Int32Array::from(vec![42]))],
            hash: 907821237,
            kg128: 69,
            kg32768: Some(24261),
        },
        Vector {
            name: "BIGINT 1",
            columns: vec![Arc::new(Int64Array::from(vec![1i64]))],
            hash: 1465514398,
            kg128: 94,
            kg32768: Some(11102),
        },
        Vector {
            name: "BOOLEAN true",
            columns: vec![Arc::new(BooleanArray::from(vec![true]))],
            hash: 1465514398,
            kg128: 94,
            kg32768: Some(11102),
        },
        Vector { name: "VARCHAR 'hello'", columns: vec![s("hello")], hash: 243722546, kg128: 88, kg32768: Some(17112) },
        Vector { name: "VARCHAR ''", columns: vec![s("")], hash: 302122119, kg128: 102, kg32768: Some(19814) },
        Vector {
            name: "VARCHAR 'hello world!'",
            columns: vec![s("hello world!")],
            hash: 609810467,
            kg128: 70,
            kg32768: Some(27974),
        },
        Vector {
            name: "LargeUtf8 'hello world!'",
            columns: vec![Arc::new(LargeStringArray::from(vec!["hello world!"]))],
            hash: 609810467,
            kg128: 70,
            kg32768: Some(27974),
        },
        Vector {
            name: "Utf8View 'hello world!'",
            columns: vec![Arc::new(StringViewArray::from(vec!["hello world!"]))],
            hash: 609810467,
            kg128: 70,
            kg32768: Some(27974),
        },
        Vector {
            name: "(INT 7, NULL)",
            columns: vec![Arc::new(Int32Array::from(vec![Some(7)])), Arc::new(Int32Array::from(vec![None]))],
            hash: 1642018842,
            kg128: 74,
            kg32768: Some(3402),
        },
        Vector {
            name: "(VARCHAR 'ab', VARCHAR 'éééé')",
            columns: vec![s("ab"), s("éééé")],
            hash: -940380553,
            kg128: 92,
            kg32768: Some(25820),
        },
        Vector {
            name: "DOUBLE 1.5",
            columns: vec![Arc::new(Float64Array::from(vec![1.5]))],
            hash: 1860889473,
            kg128: 69,
            kg32768: Some(19909),
        },
        Vector {
            name: "DECIMAL(10,2) 123.45",
            columns: vec![Arc::new(Decimal128Array::from(vec![12345i128]).with_precision_and_scale(10, 2).unwrap())],
            hash: 767607022,
            kg128: 91,
            kg32768: Some(4955),
        },
        // Non-compact types go through sluice-transpose's key writer
        // (projection NULL layout: reserved zero bytes, docs/flink-semantics.md §11).
        Vector {
            name: "DECIMAL(20,2) -123.45",
            columns: vec![Arc::new(Decimal128Array::from(vec![-12345i128]).with_precision_and_scale(20, 2).unwrap())],
            hash: -605613085,
            kg128: 4,
            kg32768: Some(31492),
        },
        Vector {
            name: "DECIMAL(20,2) NULL, codegen path",
            columns: vec![Arc::new(Decimal128Array::from(vec![None::<i128>]).with_precision_and_scale(20, 2).unwrap())],
            hash: -1380280760,
            kg128: 47,
            kg32768: Some(20271),
        },
        Vector {
            name: "TIMESTAMP(9) 1000 ms + 123456 ns (same bytes as TIMESTAMP(6))",
            columns: vec![Arc::new(TimestampNanosecondArray::from(vec![1_000_123_456i64]))],
            hash: -2057981001,
            kg128: 9,
            kg32768: Some(6793),
        },
        Vector {
            name: "TIMESTAMP(6) NULL, codegen path",
            columns: vec![Arc::new(TimestampMicrosecondArray::from(vec![None::<i64>]))],
            hash: -340882661,
            kg128: 92,
            kg32768: Some(17116),
        },
        Vector {
            name: "TIMESTAMP(3) 1000 ms",
            columns: vec![Arc::new(TimestampMillisecondArray::from(vec![1000i64]))],
            hash: 18631685,
            kg128: 112,
            kg32768: Some(21360),
        },
    ]
}

fn batch_of(columns: Vec<ArrayRef>) -> RecordBatch {
    RecordBatch::try_from_iter(columns.into_iter().enumerate().map(|(i, c)| (format!("c{i}"), c))).unwrap()
}

#[test]
fn hash_code_key_group_and_channel_match_flink() {
    for v in vectors() {
        let keys: Vec<usize> = (0..v.columns.len()).collect();
        let batch = batch_of(v.columns);
        let mut row = Vec::new();
        match FlinkKeyEncoder::try_new(batch.columns(), &keys) {
            Ok(enc) => enc.encode_row(0, &mut row).unwrap(),
            Err(_) => {
                let conv = sluice_transpose::RowConverter::new(batch.schema()).unwrap();
                let k = sluice_transpose::KeyEncoder::new(&conv, &keys).unwrap();
                k.bind(&batch).unwrap().encode(0, &mut row).unwrap();
            }
        }
        assert_eq!(hash_binary_row(&row).unwrap(), v.hash, "hashCode of {}", v.name);

        for (max_p, want) in [(128, Some(v.kg128)), (32768, v.kg32768)] {
            let Some(want) = want else { continue };
            for p in [1, 2, 3, 4, 7, 16, 100, 128] {
                let (mut kg, mut ch) = ([0i32; 1], [0i32; 1]);
                key_groups(&batch, &keys, max_p, p, &mut kg, &mut ch).unwrap();
                assert_eq!(kg[0], want, "key group of {} at maxP {max_p}", v.name);
                // KeyGroupRangeAssignment.computeOperatorIndexForKeyGroup, in Java int arithmetic.
                assert_eq!(ch[0], want * p / max_p, "channel of {} at maxP {max_p} p {p}", v.name);
            }
        }
    }
}

#[test]
fn empty_key_matches_flink() {
    // EmptyRowDataKeySelector → BinaryRowDataUtil.EMPTY_ROW: hash -1670924195, kg 11 @128.
    let batch = batch_of(vec![Arc::new(Int32Array::from(vec![5, 6]))]);
    let (mut kg, mut ch) = ([0i32; 2], [0i32; 2]);
    key_groups(&batch, &[], 128, 4, &mut kg, &mut ch).unwrap();
    assert_eq!(kg, [11, 11]);
    assert_eq!(ch, [0, 0]);
    let enc = FlinkKeyEncoder::try_new(batch.columns(), &[]).unwrap();
    let mut row = Vec::new();
    enc.encode_row(0, &mut row).unwrap();
    assert_eq!(hash_binary_row(&row).unwrap(), -1670924195);
}

#[test]
fn int_42_example_lands_on_subtask_2() {
    // docs/flink-semantics.md §5.6: INT 42 at maxP 128 and parallelism 4 goes to subtask 2.
    let batch = batch_of(vec![Arc::new(Int32Array::from(vec![42]))]);
    let mut ex = KeyedExchange::new(vec![0], 128, 4).unwrap();
    let parts = ex.split(&batch).unwrap();
    assert_eq!(parts.iter().map(|b| b.num_rows()).collect::<Vec<_>>(), [0, 0, 1, 0]);
}

#[test]
fn split_keeps_rows_and_order_and_sliced_input() {
    let keys = Int64Array::from((0..1000i64).map(|i| i % 37).collect::<Vec<_>>());
    let vals = StringArray::from((0..1000).map(|i| format!("v{i}")).collect::<Vec<_>>());
    let batch = batch_of(vec![Arc::new(keys), Arc::new(vals)]).slice(13, 900);
    let mut kg = vec![0; 900];
    let mut ch = vec![0; 900];
    key_groups(&batch, &[0], 128, 5, &mut kg, &mut ch).unwrap();
    let mut ex = KeyedExchange::new(vec![0], 128, 5).unwrap();
    let parts = ex.split(&batch).unwrap();
    let mut seen = 0;
    for (c, part) in parts.iter().enumerate() {
        let want: Vec<usize> = (0..900).filter(|&i| ch[i] == c as i32).collect();
        assert_eq!(part.num_rows(), want.len());
        let got = part.column(1).as_any().downcast_ref::<StringArray>().unwrap();
        for (j, &i) in want.iter().enumerate() {
            assert_eq!(got.value(j), format!("v{}", i + 13));
        }
        seen += want.len();
    }
    assert_eq!(seen, 900);
}

#[test]
fn bad_parallelism_is_an_error() {
    let batch = batch_of(vec![Arc::new(Int32Array::from(vec![1]))]);
    let (mut kg, mut ch) = ([0i32; 1], [0i32; 1]);
    assert!(key_groups(&batch, &[0], 128, 0, &mut kg, &mut ch).is_err());
    assert!(key_groups(&batch, &[0], 128, 129, &mut kg, &mut ch).is_err());
    assert!(key_groups(&batch, &[0], 40000, 1, &mut kg, &mut ch).is_err());
    assert!(key_groups(&batch, &[3], 128, 1, &mut kg, &mut ch).is_err());
    assert!(key_groups(&batch, &[0], 128, 1, &mut [], &mut ch).is_err());
}

mod columnar_fill {
    use super::*;
    use proptest::prelude::*;
    use sluice_keyed::KeyBlock;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// The column-at-a-time fill of fixed-width keys writes exactly the
        /// bytes of the per-row writer, NULLs and sliced input included.
        #[test]
        fn matches_row_writer(
            a in prop::collection::vec(prop::option::of(any::<i64>()), 1..80),
            b in prop::collection::vec(prop::option::of(any::<i32>()), 80),
            c in prop::collection::vec(prop::option::of(any::<bool>()), 80),
            d in prop::collection::vec(prop::option::of(any::<f64>()), 80),
            off in 0usize..5,
        ) {
            let n = a.len();
            let cols: Vec<ArrayRef> = vec![
                Arc::new(Int64Array::from(a)),
                Arc::new(Int32Array::from(b[..n].to_vec())),
                Arc::new(BooleanArray::from(c[..n].to_vec())),
                Arc::new(Float64Array::from(d[..n].to_vec())),
            ];
            let batch = batch_of(cols);
            let off = off.min(n);
            let batch = batch.slice(off, n - off);
            for keys in [vec![0], vec![1, 0], vec![2, 3, 1, 0], vec![3, 3]] {
                let enc = FlinkKeyEncoder::try_new(batch.columns(), &keys).unwrap();
                let mut block = KeyBlock::new();
                block.fill_flink(&enc).unwrap();
                prop_assert_eq!(block.len(), batch.num_rows());
                let conv = sluice_transpose::RowConverter::new(batch.schema()).unwrap();
                let tk = sluice_transpose::KeyEncoder::new(&conv, &keys).unwrap();
                let bound = tk.bind(&batch).unwrap();
                for i in 0..batch.num_rows() {
                    let mut row = Vec::new();
                    enc.encode_row(i, &mut row).unwrap();
                    prop_assert_eq!(block.row(i), &row[..]);
                    // The crate's writer and sluice-transpose's agree byte for byte.
                    let mut t = Vec::new();
                    bound.encode(i, &mut t).unwrap();
                    prop_assert_eq!(&t, &row);
                }
            }
        }

        /// The column-at-a-time fill of keys with strings and binaries
        /// (short values inline, long ones in the variable part, several
        /// variable columns per row) writes exactly the per-row writer's bytes.
        #[test]
        fn matches_row_writer_var_width(
            s in prop::collection::vec(prop::option::of("[a-zé]{0,20}"), 1..60),
            t in prop::collection::vec(prop::option::of(prop::collection::vec(any::<u8>(), 0..19)), 60),
            a in prop::collection::vec(prop::option::of(any::<i64>()), 60),
            off in 0usize..5,
        ) {
            let n = s.len();
            let strs: Vec<Option<&str>> = s.iter().map(|x| x.as_deref()).collect();
            let bins: Vec<Option<&[u8]>> = t[..n].iter().map(|x| x.as_deref()).collect();
            let cols: Vec<ArrayRef> = vec![
                Arc::new(StringArray::from(strs.clone())),
                Arc::new(BinaryArray::from_opt_vec(bins.clone())),
                Arc::new(Int64Array::from(a[..n].to_vec())),
                Arc::new(LargeStringArray::from(strs.clone())),
                Arc::new(StringViewArray::from(strs)),
                Arc::new(BinaryViewArray::from(bins)),
            ];
            let batch = batch_of(cols);
            let off = off.min(n);
            let batch = batch.slice(off, n - off);
            for keys in [vec![0], vec![2, 0], vec![0, 1, 2], vec![3, 4, 5, 0], vec![1, 1]] {
                let enc = FlinkKeyEncoder::try_new(batch.columns(), &keys).unwrap();
                let mut block = KeyBlock::new();
                // Twice: the second fill reuses the first one's buffers.
                block.fill_flink(&enc).unwrap();
                block.fill_flink(&enc).unwrap();
                prop_assert_eq!(block.len(), batch.num_rows());
                for i in 0..batch.num_rows() {
                    let mut row = Vec::new();
                    enc.encode_row(i, &mut row).unwrap();
                    prop_assert_eq!(block.row(i), &row[..]);
                }
            }
        }
    }
}
