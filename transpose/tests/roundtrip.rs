//! Round trips over random schemas and values: Arrow → rows → Arrow is the
//! identity (with `validate_full` on every produced array), and rows →
//! Arrow → rows reproduces the bytes. Inputs include NULLs at every level,
//! long and multibyte strings with supplementary characters, sliced
//! batches, and LargeUtf8 / Utf8View string columns.

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::*;
use arrow_buffer::{i256, NullBuffer, OffsetBuffer};
use arrow_schema::{DataType, Field, Schema, TimeUnit};
use proptest::prelude::*;
use sluice_transpose::{FlinkType, NullLayout, RowConverter, RowField, RowKind, TypeKind, MAX_LENGTH};

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E3779B97F4A7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58476D1CE4E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D049BB133111EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    fn chance(&mut self, pct: u64) -> bool {
        self.below(100) < pct
    }
    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() % ((hi - lo) as u64 + 1)) as i64
    }
}

fn leaf() -> impl Strategy<Value = TypeKind> {
    prop_oneof![
        Just(TypeKind::Boolean),
        Just(TypeKind::TinyInt),
        Just(TypeKind::SmallInt),
        Just(TypeKind::Int),
        Just(TypeKind::BigInt),
        Just(TypeKind::Float),
        Just(TypeKind::Double),
        (1u8..=38)
            .prop_flat_map(|p| (Just(p), 0..=p))
            .prop_map(|(precision, scale)| TypeKind::Decimal { precision, scale }),
        (1u32..10).prop_map(TypeKind::Char),
        Just(TypeKind::VarChar(MAX_LENGTH)),
        (1u32..10).prop_map(TypeKind::Binary),
        Just(TypeKind::VarBinary(MAX_LENGTH)),
        Just(TypeKind::Date),
        (0u8..=9).prop_map(TypeKind::Time),
        (0u8..=9).prop_map(TypeKind::Timestamp),
        (0u8..=9).prop_map(TypeKind::TimestampLtz),
    ]
}

/// A column type: half plain scalars (so the top-level slot encodings of
/// every scalar are exercised), half nested types.
fn column_type() -> impl Strategy<Value = FlinkType> {
    prop_oneof![leaf_type(), flink_type()]
}

fn leaf_type() -> impl Strategy<Value = FlinkType> {
    (leaf(), any::<bool>()).prop_map(|(k, n)| FlinkType { kind: k, nullable: n })
}

fn flink_type() -> impl Strategy<Value = FlinkType> {
    leaf_type().prop_recursive(2, 12, 4, |inner| {
        prop_oneof![
            (inner.clone(), any::<bool>())
                .prop_map(|(e, n)| FlinkType { kind: TypeKind::Array(Box::new(e)), nullable: n }),
            (inner.clone(), inner.clone(), any::<bool>()).prop_map(|(k, v, n)| FlinkType {
                kind: TypeKind::Map(Box::new(k.with_nullable(false)), Box::new(v)),
                nullable: n
            }),
            (proptest::collection::vec(inner, 1..4), any::<bool>()).prop_map(|(fs, n)| FlinkType {
                kind: TypeKind::Row(
                    fs.into_iter()
                        .enumerate()
                        .map(|(i, ty)| RowField { name: format!("c{i}"), ty, description: None })
                        .collect()
                ),
                nullable: n
            }),
        ]
    })
}

fn nulls(rng: &mut Rng, len: usize, nullable: bool) -> Option<NullBuffer> {
    if !nullable || rng.chance(30) {
        return None;
    }
    let v: Vec<bool> = (0..len).map(|_| !rng.chance(25)).collect();
    Some(NullBuffer::from(v))
}

fn string(rng: &mut Rng) -> String {
    const ALPHA: &[&str] = &["a", "Z", "0", " ", "é", "ß", "中", "文", "😀", "𝄞", "\u{0}"];
    let len = match rng.below(10) {
        0 => 0,
        1..=5 => rng.below(8) as usize,
        6..=8 => rng.below(24) as usize,
        _ => 64 + rng.below(200) as usize,
    };
    (0..len).map(|_| ALPHA[rng.below(ALPHA.len() as u64) as usize]).collect()
}

fn bytes(rng: &mut Rng, len: usize) -> Vec<u8> {
    (0..len).map(|_| rng.next() as u8).collect()
}

fn float(rng: &mut Rng) -> f64 {
    match rng.below(12) {
        0 => f64::NAN,
        1 => -0.0,
        2 => f64::INFINITY,
        3 => f64::NEG_INFINITY,
        _ => (rng.next() as i64 as f64) / (1u64 << rng.below(60)) as f64,
    }
}

/// A random array of `dt` with `len` entries.
fn gen(rng: &mut Rng, dt: &DataType, nullable: bool, len: usize) -> ArrayRef {
    let n = nulls(rng, len, nullable);
    match dt {
        DataType::Boolean => Arc::new(BooleanArray::new((0..len).map(|_| rng.chance(50)).collect(), n)),
        DataType::Int8 => Arc::new(Int8Array::new((0..len).map(|_| rng.next() as i8).collect(), n)),
        DataType::Int16 => Arc::new(Int16Array::new((0..len).map(|_| rng.next() as i16).collect(), n)),
        DataType::Int32 => Arc::new(Int32Array::new((0..len).map(|_| rng.next() as i32).collect(), n)),
        DataType::Int64 => Arc::new(Int64Array::new((0..len).map(|_| rng.next() as i64).collect(), n)),
        DataType::Float32 => Arc::new(Float32Array::new((0..len).map(|_| float(rng) as f32).collect(), n)),
        DataType::Float64 => Arc::new(Float64Array::new((0..len).map(|_| float(rng)).collect(), n)),
        DataType::Decimal128(p, s) => {
            let lim = 10i128.pow(*p as u32) - 1;
            let v: Vec<i128> = (0..len)
                .map(|_| match rng.below(4) {
                    0 => lim,
                    1 => -lim,
                    _ => ((rng.next() as i128) << 64 | rng.next() as i128) % (lim + 1),
                })
                .collect();
            let _ = i256::ZERO;
            Arc::new(Decimal128Array::new(v.into(), n).with_precision_and_scale(*p, *s).unwrap())
        }
        DataType::Utf8 => {
            let v: Vec<Option<String>> = (0..len)
                .map(|i| if n.as_ref().is_some_and(|n| n.is_null(i)) { None } else { Some(string(rng)) })
                .collect();
            Arc::new(StringArray::from(v))
        }
        DataType::Binary => {
            let v: Vec<Option<Vec<u8>>> = (0..len)
                .map(|i| {
                    if n.as_ref().is_some_and(|n| n.is_null(i)) {
                        None
                    } else {
                        let l = if rng.chance(50) { rng.below(8) } else { rng.below(100) };
                        Some(bytes(rng, l as usize))
                    }
                })
                .collect();
            Arc::new(BinaryArray::from_iter(v))
        }
        DataType::FixedSizeBinary(w) => {
            let vals = bytes(rng, len * *w as usize);
            Arc::new(FixedSizeBinaryArray::try_new(*w, vals.into(), n).unwrap())
        }
        DataType::Date32 => {
            Arc::new(Date32Array::new((0..len).map(|_| rng.range(-800_000, 3_000_000) as i32).collect(), n))
        }
        DataType::Time32(TimeUnit::Second) => {
            Arc::new(Time32SecondArray::new((0..len).map(|_| rng.range(0, 86_399) as i32).collect(), n))
        }
        DataType::Time32(_) => {
            Arc::new(Time32MillisecondArray::new((0..len).map(|_| rng.range(0, 86_399_999) as i32).collect(), n))
        }
        // Flink keeps TIME as milliseconds: finer units round-trip in whole ms
        DataType::Time64(TimeUnit::Microsecond) => {
            Arc::new(Time64MicrosecondArray::new((0..len).map(|_| rng.range(0, 86_399_999) * 1_000).collect(), n))
        }
        DataType::Time64(_) => {
            Arc::new(Time64NanosecondArray::new((0..len).map(|_| rng.range(0, 86_399_999) * 1_000_000).collect(), n))
        }
        DataType::Timestamp(unit, _) => {
            let lim: i64 = match unit {
                TimeUnit::Second => 100_000_000_000,
                TimeUnit::Millisecond => 100_000_000_000_000,
                TimeUnit::Microsecond => 100_000_000_000_000_000,
                TimeUnit::Nanosecond => i64::MAX / 2,
            };
            let v: Vec<i64> = (0..len).map(|_| rng.range(-lim, lim)).collect();
            match unit {
                TimeUnit::Second => Arc::new(TimestampSecondArray::new(v.into(), n)),
                TimeUnit::Millisecond => Arc::new(TimestampMillisecondArray::new(v.into(), n)),
                TimeUnit::Microsecond => Arc::new(TimestampMicrosecondArray::new(v.into(), n)),
                TimeUnit::Nanosecond => Arc::new(TimestampNanosecondArray::new(v.into(), n)),
            }
        }
        DataType::List(f) => {
            let lens: Vec<usize> = (0..len)
                .map(|i| if n.as_ref().is_some_and(|n| n.is_null(i)) { 0 } else { rng.below(4) as usize })
                .collect();
            let total = lens.iter().sum();
            let child = gen(rng, f.data_type(), f.is_nullable(), total);
            Arc::new(ListArray::try_new(f.clone(), OffsetBuffer::from_lengths(lens), child, n).unwrap())
        }
        DataType::Map(f, sorted) => {
            let DataType::Struct(kv) = f.data_type() else { unreachable!() };
            let lens: Vec<usize> = (0..len)
                .map(|i| if n.as_ref().is_some_and(|n| n.is_null(i)) { 0 } else { rng.below(3) as usize })
                .collect();
            let total = lens.iter().sum();
            let k = gen(rng, kv[0].data_type(), false, total);
            let v = gen(rng, kv[1].data_type(), kv[1].is_nullable(), total);
            let entries = StructArray::try_new(kv.clone(), vec![k, v], None).unwrap();
            Arc::new(MapArray::try_new(f.clone(), OffsetBuffer::from_lengths(lens), entries, n, *sorted).unwrap())
        }
        DataType::Struct(fs) => {
            let children = fs.iter().map(|c| gen(rng, c.data_type(), c.is_nullable(), len)).collect();
            Arc::new(StructArray::try_new_with_length(fs.clone(), children, n, len).unwrap())
        }
        other => panic!("no generator for {other}"),
    }
}

/// The same strings as LargeUtf8 or Utf8View (top-level columns only).
fn restring(a: &ArrayRef, how: u64) -> ArrayRef {
    match (a.data_type(), how % 3) {
        (DataType::Utf8, 1) => Arc::new(LargeStringArray::from_iter(a.as_string::<i32>().iter())),
        (DataType::Utf8, 2) => Arc::new(StringViewArray::from_iter(a.as_string::<i32>().iter())),
        (DataType::Binary, 1) => Arc::new(LargeBinaryArray::from_iter(a.as_binary::<i32>().iter())),
        (DataType::Binary, 2) => Arc::new(BinaryViewArray::from_iter(a.as_binary::<i32>().iter())),
        _ => a.clone(),
    }
}

fn check(types: Vec<FlinkType>, seed: u64, rows: usize, skip: usize, layout: NullLayout) {
    let mut rng = Rng(seed);
    let names: Vec<String> = (0..types.len()).map(|i| format!("f{i}")).collect();
    let names: Vec<&str> = names.iter().map(|s| s.as_str()).collect();
    let conv = RowConverter::from_flink_types(&names, &types).unwrap();
    let schema = conv.schema().clone();
    let cols: Vec<ArrayRef> =
        schema.fields().iter().map(|f| gen(&mut rng, f.data_type(), f.is_nullable(), rows + skip)).collect();
    let full = RecordBatch::try_new(schema.clone(), cols).unwrap();
    let batch = full.slice(skip, rows);
    let kinds: Vec<RowKind> = (0..rows).map(|_| RowKind::ALL[rng.below(4) as usize]).collect();

    // Arrow → rows → Arrow
    let out = conv.batch_to_rows(&batch, Some(&kinds), layout).unwrap();
    assert_eq!(out.num_rows(), rows);
    let (back, back_kinds) = conv.rows_to_batch(&out.data, &out.offsets).unwrap();
    assert_eq!(back_kinds, kinds);
    for (j, (a, e)) in back.columns().iter().zip(batch.columns()).enumerate() {
        a.to_data().validate_full().unwrap();
        assert_eq!(a.as_ref(), e.as_ref(), "column {j}: {}", types[j]);
    }
    // rows → Arrow → rows
    let again = conv.batch_to_rows(&back, Some(&back_kinds), layout).unwrap();
    assert_eq!(again, out);
    // the same rows from other string layouts
    let how = rng.next();
    let other_cols: Vec<ArrayRef> = batch.columns().iter().map(|c| restring(c, how)).collect();
    let other_schema = Arc::new(Schema::new(
        other_cols
            .iter()
            .zip(schema.fields())
            .map(|(c, f)| Field::new(f.name(), c.data_type().clone(), f.is_nullable()))
            .collect::<Vec<_>>(),
    ));
    let other = RecordBatch::try_new(other_schema, other_cols).unwrap();
    assert_eq!(conv.batch_to_rows(&other, Some(&kinds), layout).unwrap(), out);
    // rows in separate buffers
    let segs: Vec<&[u8]> = out.iter().collect();
    let addrs: Vec<_> = segs
        .iter()
        .enumerate()
        .map(|(i, s)| sluice_transpose::RowAddress { segment: i, offset: 0, len: s.len() })
        .collect();
    let (seg_batch, _) = conv.rows_to_batch_segments(&segs, &addrs).unwrap();
    assert_eq!(seg_batch, back);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn random_schemas_round_trip(
        types in proptest::collection::vec(column_type(), 1..6),
        seed in any::<u64>(),
        rows in 0usize..40,
        skip in 0usize..5,
        projection in any::<bool>(),
    ) {
        let layout = if projection { NullLayout::Projection } else { NullLayout::Serializer };
        check(types, seed, rows, skip, layout);
    }

    #[test]
    fn type_strings_round_trip(t in flink_type()) {
        let s = t.to_string();
        prop_assert_eq!(FlinkType::parse(&s).unwrap(), t);
    }
}

#[test]
fn empty_batch_and_zero_columns() {
    check(vec![FlinkType::string()], 1, 0, 0, NullLayout::Serializer);
    let conv = RowConverter::from_flink_types(&[], &[]).unwrap();
    let rows = [0u8; 8];
    let (b, k) = conv.rows_to_batch(&rows, &[0, 8]).unwrap();
    assert_eq!((b.num_rows(), b.num_columns(), k.len()), (1, 0, 1));
    assert_eq!(conv.batch_to_rows(&b, Some(&k), NullLayout::Serializer).unwrap().data, rows);
}
