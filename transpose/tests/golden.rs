//! Byte-exact tests against rows written by real Flink.
//!
//! `tests/data/golden_rows.txt` is the output of `java/golden` (Flink 1.20's
//! own `RowDataSerializer.toBinaryRow`, `BinaryRowWriter`,
//! `BinaryArrayWriter`, `BinaryMapData`); regenerate with
//! `mvn -q -f java/golden/pom.xml compile exec:java > transpose/tests/data/golden_rows.txt`.
//! The values of every case are rebuilt here independently, as Arrow arrays,
//! from the documentation in `java/golden/src/main/java/sluice/golden/GoldenRows.java`.
//! Both directions are asserted: Flink bytes → Arrow equals the values, and
//! the values → bytes equals Flink's bytes.

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::*;
use arrow_array::*;
use arrow_buffer::{NullBuffer, OffsetBuffer};
use arrow_schema::DataType;
use sluice_transpose::{FlinkType, KeyEncoder, NullLayout, RowConverter, RowKind, TypeKind};

struct Case {
    name: String,
    layout: NullLayout,
    ty: String,
    kinds: Vec<RowKind>,
    rows: Vec<Vec<u8>>,
}

fn hex(s: &str) -> Vec<u8> {
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
}

fn kind(s: &str) -> RowKind {
    match s {
        "+I" => RowKind::Insert,
        "-U" => RowKind::UpdateBefore,
        "+U" => RowKind::UpdateAfter,
        "-D" => RowKind::Delete,
        _ => panic!("kind {s}"),
    }
}

fn golden() -> (Vec<(String, String)>, Vec<Case>) {
    let text = include_str!("data/golden_rows.txt");
    let mut types = Vec::new();
    let mut cases = Vec::new();
    let mut cur: Option<Case> = None;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("typestr ") {
            let (a, b) = rest.split_once(" => ").unwrap();
            types.push((a.to_string(), b.to_string()));
        } else if let Some(rest) = line.strip_prefix("case ") {
            let (name, layout) = rest.split_once(' ').unwrap();
            let layout = if layout == "projection" { NullLayout::Projection } else { NullLayout::Serializer };
            cur = Some(Case { name: name.into(), layout, ty: String::new(), kinds: vec![], rows: vec![] });
        } else if let Some(rest) = line.strip_prefix("type ") {
            cur.as_mut().unwrap().ty = rest.to_string();
        } else if let Some(rest) = line.strip_prefix("row ") {
            let (k, h) = rest.split_once(' ').unwrap();
            let c = cur.as_mut().unwrap();
            c.kinds.push(kind(k));
            c.rows.push(hex(h));
        } else if line == "end" {
            cases.push(cur.take().unwrap());
        }
    }
    (types, cases)
}

fn case(name: &str, layout: NullLayout) -> Case {
    golden().1.into_iter().find(|c| c.name == name && c.layout == layout).unwrap()
}

fn converter(c: &Case) -> RowConverter {
    let t = FlinkType::parse(&c.ty).unwrap();
    assert_eq!(t.to_string(), c.ty, "printer reproduces Flink's asSerializableString");
    let TypeKind::Row(fields) = t.kind else { panic!() };
    let names: Vec<&str> = fields.iter().map(|f| f.name.as_str()).collect();
    let types: Vec<FlinkType> = fields.iter().map(|f| f.ty.clone()).collect();
    RowConverter::from_flink_types(&names, &types).unwrap()
}

fn concat(rows: &[Vec<u8>]) -> (Vec<u8>, Vec<i64>) {
    let mut data = Vec::new();
    let mut offsets = vec![0i64];
    for r in rows {
        data.extend_from_slice(r);
        offsets.push(data.len() as i64);
    }
    (data, offsets)
}

/// Asserts both directions for a case whose expected columns are `cols`.
fn check_both_ways(c: &Case, cols: Vec<ArrayRef>) {
    let conv = converter(c);
    let expected = RecordBatch::try_new(conv.schema().clone(), cols).unwrap();
    // Flink bytes → Arrow
    let (data, offsets) = concat(&c.rows);
    let (batch, kinds) = conv.rows_to_batch(&data, &offsets).unwrap();
    assert_eq!(kinds, c.kinds, "{}: RowKinds", c.name);
    for (j, (a, e)) in batch.columns().iter().zip(expected.columns()).enumerate() {
        a.to_data().validate_full().unwrap();
        assert_eq!(a.as_ref(), e.as_ref(), "{}: column {j} ({})", c.name, conv.schema().field(j).name());
    }
    // Arrow → Flink bytes
    let rows = conv.batch_to_rows(&expected, Some(&c.kinds), c.layout).unwrap();
    for (i, want) in c.rows.iter().enumerate() {
        assert_eq!(hexs(rows.row(i)), hexs(want), "{}: row {i} bytes", c.name);
    }
    // also with the rows in separate buffers
    let segs: Vec<&[u8]> = c.rows.iter().map(|r| r.as_slice()).collect();
    let addrs: Vec<_> =
        (0..segs.len()).map(|i| sluice_transpose::RowAddress { segment: i, offset: 0, len: segs[i].len() }).collect();
    let (b2, k2) = conv.rows_to_batch_segments(&segs, &addrs).unwrap();
    assert_eq!(b2, batch);
    assert_eq!(k2, c.kinds);
}

fn hexs(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// Five rows of the scalars case: A, B, all NULL, A with even fields NULL,
/// B with odd fields NULL (field 28 is NOT NULL and never masked).
fn five<T: Clone>(j: usize, a: T, b: T) -> Vec<Option<T>> {
    vec![
        Some(a.clone()),
        Some(b.clone()),
        None,
        if !j.is_multiple_of(2) { Some(a) } else { None },
        if j.is_multiple_of(2) { Some(b) } else { None },
    ]
}

fn dec(j: usize, a: i128, b: i128, p: u8, s: i8) -> ArrayRef {
    decimals(five(j, a, b), p, s)
}

/// A DECIMAL(p, s) column of unscaled `values`.
fn decimals(values: Vec<Option<i128>>, p: u8, s: i8) -> ArrayRef {
    Arc::new(Decimal128Array::from(values).with_precision_and_scale(p, s).unwrap())
}

fn scalar_columns() -> Vec<ArrayRef> {
    let long_s = format!("{}中文", "a".repeat(100));
    let seq = |n: u8| (0..n).collect::<Vec<u8>>();
    vec![
        Arc::new(BooleanArray::from(five(0, true, false))),
        Arc::new(Int8Array::from(five(1, 1i8, -128))),
        Arc::new(Int16Array::from(five(2, 2i16, -32768))),
        Arc::new(Int32Array::from(five(3, 42, i32::MIN))),
        Arc::new(Int64Array::from(five(4, 1234567890123i64, i64::MIN))),
        Arc::new(Float32Array::from(five(5, 1.5f32, -0.0))),
        Arc::new(Float64Array::from(five(6, 2.25f64, f64::INFINITY))),
        dec(7, 12345, -1, 10, 2),
        dec(8, 123456789012345678, -999999999999999999, 18, 4),
        dec(9, 1234567890123456789, 0, 19, 0),
        dec(10, -12345678901234567890123456780123456789, 1, 38, 10),
        Arc::new(StringArray::from(five(11, "abcde", "😀é"))),
        Arc::new(StringArray::from(five(12, "hello world!", "éééé"))),
        Arc::new(StringArray::from(five(13, "", long_s.as_str()))),
        Arc::new(
            FixedSizeBinaryArray::try_from_sparse_iter_with_size(
                five(14, vec![1u8, 2, 3], vec![255, 0, 128]).into_iter(),
                3,
            )
            .unwrap(),
        ),
        Arc::new(BinaryArray::from_iter(five(15, vec![], vec![9u8, 8, 7, 6, 5, 4, 3]))),
        Arc::new(BinaryArray::from_iter(five(16, seq(8), seq(20)))),
        Arc::new(Date32Array::from(five(17, 19000, -719162))),
        Arc::new(Time32SecondArray::from(five(18, 3600, 0))),
        Arc::new(Time32MillisecondArray::from(five(19, 45_296_789, 0))),
        Arc::new(Time64MicrosecondArray::from(five(20, 1_000_000, 86_399_999_000))),
        Arc::new(Time64NanosecondArray::from(five(21, 86_399_999_000_000, 1_000_000))),
        Arc::new(TimestampSecondArray::from(five(22, 1_700_000_000, -86_400))),
        Arc::new(TimestampMillisecondArray::from(five(23, 1_700_000_000_123, -1))),
        Arc::new(TimestampMicrosecondArray::from(five(24, 1_000_123, -1000))),
        Arc::new(TimestampNanosecondArray::from(five(25, 1_000_123_456, -1))),
        Arc::new(TimestampMillisecondArray::from(five(26, -1, 253_402_300_799_999))),
        Arc::new(TimestampMicrosecondArray::from(five(27, -1, 1))),
        Arc::new(Int64Array::from(vec![7i64, -7, 0, 7, -7])),
    ]
}

#[test]
fn type_strings_match_flink() {
    let (types, _) = golden();
    assert!(types.len() > 30);
    for (input, flink) in types {
        let t = FlinkType::parse(&input).unwrap_or_else(|e| panic!("{input}: {e}"));
        assert_eq!(t.to_string(), flink, "printing the parse of {input:?}");
        assert_eq!(FlinkType::parse(&flink).unwrap(), t, "re-parsing {flink:?}");
    }
}

#[test]
fn scalars_serializer_layout() {
    check_both_ways(&case("scalars", NullLayout::Serializer), scalar_columns());
}

#[test]
fn scalars_projection_layout() {
    check_both_ways(&case("scalars", NullLayout::Projection), scalar_columns());
}

#[test]
fn layouts_differ_only_where_flink_does() {
    let s = case("scalars", NullLayout::Serializer);
    let p = case("scalars", NullLayout::Projection);
    // rows without NULL non-compact fields are identical
    assert_eq!(s.rows[0], p.rows[0]);
    assert_eq!(s.rows[1], p.rows[1]);
    assert_ne!(s.rows[2], p.rows[2]);
}

#[test]
fn key_encoder_matches_projection_rows() {
    // All columns as the key: the key row is the projection row with RowKind 0.
    let c = case("scalars", NullLayout::Projection);
    let conv = converter(&c);
    let batch = RecordBatch::try_new(conv.schema().clone(), scalar_columns()).unwrap();
    let keys = KeyEncoder::new(&conv, &(0..conv.arity()).collect::<Vec<_>>()).unwrap();
    let bound = keys.bind(&batch).unwrap();
    let mut buf = Vec::new();
    for (i, want) in c.rows.iter().enumerate() {
        bound.encode(i, &mut buf).unwrap();
        let mut want = want.clone();
        want[0] = 0;
        assert_eq!(hexs(&buf), hexs(&want), "key of row {i}");
    }
}

fn offsets(lens: &[Option<usize>]) -> (OffsetBuffer<i32>, Option<NullBuffer>) {
    let o = OffsetBuffer::from_lengths(lens.iter().map(|l| l.unwrap_or(0)));
    let n = NullBuffer::from(lens.iter().map(|l| l.is_some()).collect::<Vec<_>>());
    (o, if n.null_count() > 0 { Some(n) } else { None })
}

fn list(dt: &DataType, lens: &[Option<usize>], values: ArrayRef) -> ArrayRef {
    let DataType::List(f) = dt else { panic!("{dt}") };
    let (o, n) = offsets(lens);
    Arc::new(ListArray::try_new(f.clone(), o, values, n).unwrap())
}

fn map(dt: &DataType, lens: &[Option<usize>], keys: ArrayRef, values: ArrayRef) -> ArrayRef {
    let DataType::Map(f, sorted) = dt else { panic!("{dt}") };
    let DataType::Struct(kv) = f.data_type() else { panic!() };
    let entries = StructArray::try_new(kv.clone(), vec![keys, values], None).unwrap();
    let (o, n) = offsets(lens);
    Arc::new(MapArray::try_new(f.clone(), o, entries, n, *sorted).unwrap())
}

fn strukt(dt: &DataType, children: Vec<ArrayRef>, valid: &[bool]) -> ArrayRef {
    let DataType::Struct(fs) = dt else { panic!("{dt}") };
    let n = NullBuffer::from(valid.to_vec());
    Arc::new(StructArray::try_new(fs.clone(), children, (n.null_count() > 0).then_some(n)).unwrap())
}

fn elem(dt: &DataType) -> DataType {
    match dt {
        DataType::List(f) => f.data_type().clone(),
        _ => panic!(),
    }
}

fn child(dt: &DataType, i: usize) -> DataType {
    match dt {
        DataType::Struct(fs) => fs[i].data_type().clone(),
        DataType::Map(f, _) => child(f.data_type(), i),
        _ => panic!(),
    }
}

#[test]
fn nested_types() {
    let c = case("nested", NullLayout::Serializer);
    let conv = converter(&c);
    let dt = |j: usize| conv.schema().field(j).data_type().clone();
    // row 0 has `j` elements, row 1 is empty, rows 2 and 3 are NULL
    let e = |j: usize| vec![Some(j), Some(0), None, None];
    let ati: Vec<Option<i8>> = (0..40).map(|i| if i % 7 == 0 { None } else { Some(i as i8 - 20) }).collect();
    let cols: Vec<ArrayRef> = vec![
        // ai: [1, NULL, 3]; []; NULL; [NULL]
        list(
            &dt(0),
            &[Some(3), Some(0), None, Some(1)],
            Arc::new(Int32Array::from(vec![Some(1), None, Some(3), None])),
        ),
        // ast: ['a', '0123456789', NULL, '']; []; NULL; NULL
        list(&dt(1), &e(4), Arc::new(StringArray::from(vec![Some("a"), Some("0123456789"), None, Some("")]))),
        // m: {'a'→10, '0123456789'→20, 'k'→NULL}; {}; NULL; {''→0}
        map(
            &dt(2),
            &[Some(3), Some(0), None, Some(1)],
            Arc::new(StringArray::from(vec!["a", "0123456789", "k", ""])),
            Arc::new(Int32Array::from(vec![Some(10), Some(20), None, Some(0)])),
        ),
        // r: (1, 'x'); (NULL, NULL); NULL; NULL
        strukt(
            &dt(3),
            vec![
                Arc::new(Int32Array::from(vec![Some(1), None, None, None])),
                Arc::new(StringArray::from(vec![Some("x"), None, None, None])),
            ],
            &[true, true, false, false],
        ),
        // ar: [(1, 1.23), NULL, (NULL, -123456789012345678.90)]; []; NULL; NULL
        list(
            &dt(4),
            &e(3),
            strukt(
                &elem(&dt(4)),
                vec![
                    Arc::new(Int64Array::from(vec![Some(1), None, None])),
                    decimals(vec![Some(123), None, Some(-12345678901234567890)], 20, 2),
                ],
                &[true, false, true],
            ),
        ),
        // ma: {1→['x', 'longer than seven'], 2→NULL, 3→[]}; {}; NULL; NULL
        map(
            &dt(5),
            &e(3),
            Arc::new(Int32Array::from(vec![1, 2, 3])),
            list(
                &child(&dt(5), 1),
                &[Some(2), None, Some(0)],
                Arc::new(StringArray::from(vec!["x", "longer than seven"])),
            ),
        ),
        // ad: [1.5, NaN, -0.0, NULL]
        list(&dt(6), &e(4), Arc::new(Float64Array::from(vec![Some(1.5), Some(f64::NAN), Some(-0.0), None]))),
        // ab: [true, false, NULL]
        list(&dt(7), &e(3), Arc::new(BooleanArray::from(vec![Some(true), Some(false), None]))),
        // asi: [1, -1, NULL, 300]
        list(&dt(8), &e(4), Arc::new(Int16Array::from(vec![Some(1), Some(-1), None, Some(300)]))),
        // ats (µs): [ts(0, 1000) = 1, NULL, ts(-5, 999000) = -4001]
        list(&dt(9), &e(3), Arc::new(TimestampMicrosecondArray::from(vec![Some(1), None, Some(-4001)]))),
        // adec: [1.234, NULL, -9999999999999999999999.999]
        list(&dt(10), &e(3), decimals(vec![Some(1234), None, Some(-9999999999999999999999999)], 25, 3)),
        // rr: ((7, 'seven chars!'), 12345.67890, ts(123, 456789)); (NULL, NULL, NULL); NULL; (NULL, 0.00001, NULL)
        strukt(
            &dt(11),
            vec![
                strukt(
                    &child(&dt(11), 0),
                    vec![
                        Arc::new(Int32Array::from(vec![Some(7), None, None, None])),
                        Arc::new(StringArray::from(vec![Some("seven chars!"), None, None, None])),
                    ],
                    &[true, false, false, false],
                ),
                decimals(vec![Some(1234567890), None, None, Some(1)], 30, 5),
                Arc::new(TimestampNanosecondArray::from(vec![Some(123_456_789), None, None, None])),
            ],
            &[true, true, false, true],
        ),
        // aai: [[1, 2], NULL, [], [NULL]]
        list(
            &dt(12),
            &e(4),
            list(
                &elem(&dt(12)),
                &[Some(2), None, Some(0), Some(1)],
                Arc::new(Int32Array::from(vec![Some(1), Some(2), None])),
            ),
        ),
        // ati: 40 elements, i % 7 == 0 → NULL else i - 20
        list(&dt(13), &e(40), Arc::new(Int8Array::from(ati))),
        // af: [NaN, 1.0]
        list(&dt(14), &e(2), Arc::new(Float32Array::from(vec![f32::NAN, 1.0]))),
        // ad2: [0, NULL, 19000]
        list(&dt(15), &e(3), Arc::new(Date32Array::from(vec![Some(0), None, Some(19000)]))),
    ];
    check_both_ways(&c, cols);
}

#[test]
fn wide_rows_use_three_null_words() {
    let c = case("wide", NullLayout::Serializer);
    let cols: Vec<ArrayRef> = (0..130)
        .map(|i: i32| {
            Arc::new(Int32Array::from(vec![if i % 5 == 0 { None } else { Some(i * 1000) }, Some(-i)])) as ArrayRef
        })
        .collect();
    check_both_ways(&c, cols);
}

#[test]
fn nan_payload_kept_in_rows_canonical_in_arrays() {
    let c = case("nan", NullLayout::Serializer);
    let conv = converter(&c);
    let d = f64::from_bits(0x7ff8000000000001);
    let f = f32::from_bits(0x7fc00001);
    let batch = RecordBatch::try_new(
        conv.schema().clone(),
        vec![
            Arc::new(Float64Array::from(vec![d])),
            Arc::new(Float32Array::from(vec![f])),
            list(&conv.schema().field(2).data_type().clone(), &[Some(1)], Arc::new(Float64Array::from(vec![d]))),
            list(&conv.schema().field(3).data_type().clone(), &[Some(1)], Arc::new(Float32Array::from(vec![f]))),
        ],
    )
    .unwrap();
    let rows = conv.batch_to_rows(&batch, None, NullLayout::Serializer).unwrap();
    assert_eq!(hexs(rows.row(0)), hexs(&c.rows[0]));
    let (data, offs) = concat(&c.rows);
    let (back, _) = conv.rows_to_batch(&data, &offs).unwrap();
    assert_eq!(back.column(0).as_primitive::<Float64Type>().value(0).to_bits(), 0x7ff8000000000001);
    assert_eq!(back.column(1).as_primitive::<Float32Type>().value(0).to_bits(), 0x7fc00001);
    let ad = back.column(2).as_list::<i32>().value(0);
    assert_eq!(ad.as_primitive::<Float64Type>().value(0).to_bits(), 0x7ff8000000000000);
    let af = back.column(3).as_list::<i32>().value(0);
    assert_eq!(af.as_primitive::<Float32Type>().value(0).to_bits(), 0x7fc00000);
}

#[test]
fn worked_rows_from_the_reference() {
    // docs/flink-semantics.md §2.5, real Flink output.
    let cases: &[(&str, &str)] = &[
        ("ROW<`a` VARCHAR(2147483647)>", "000000000000000068656c6c6f000085"),
        ("ROW<`a` VARCHAR(2147483647)>", "00000000000000000c0000001000000068656c6c6f20776f726c642100000000"),
        (
            "ROW<`a` VARCHAR(2147483647), `b` VARCHAR(2147483647)>",
            "000000000000000061620000000000820800000018000000c3a9c3a9c3a9c3a9",
        ),
        ("ROW<`a` DECIMAL(20, 2)>", "00000000000000000200000010000000cfc70000000000000000000000000000"),
        // §2.5 shows this with TIMESTAMP(6); the layout is that of every p > 3, and only
        // p ≥ 7 keeps the sub-microsecond nanos through Arrow.
        ("ROW<`a` TIMESTAMP(9)>", "000000000000000040e2010010000000e803000000000000"),
        (
            "ROW<`a` ROW<`b` INT, `c` VARCHAR(2147483647)>>",
            "00000000000000001800000010000000000000000000000001000000000000007800000000000081",
        ),
        ("ROW<`a` ARRAY<INT>>", "00000000000000001800000010000000030000000200000001000000000000000300000000000000"),
        ("ROW<`a` INT>", "03000000000000002a00000000000000"),
    ];
    for (ty, h) in cases {
        let c = Case {
            name: ty.to_string(),
            layout: NullLayout::Serializer,
            ty: ty.to_string(),
            kinds: vec![RowKind::Insert],
            rows: vec![hex(h)],
        };
        let conv = converter(&c);
        let (data, offs) = concat(&c.rows);
        let (batch, kinds) = conv.rows_to_batch(&data, &offs).unwrap_or_else(|e| panic!("{ty}: {e}"));
        let rows = conv.batch_to_rows(&batch, Some(&kinds), NullLayout::Serializer).unwrap();
        assert_eq!(hexs(rows.row(0)), *h, "{ty}");
    }
}

#[test]
fn entry_batches_carry_flink_type_on_every_field() {
    let c = case("scalars", NullLayout::Serializer);
    let conv = converter(&c);
    let (data, offs) = concat(&c.rows);
    let (batch, _) = conv.rows_to_batch(&data, &offs).unwrap();
    let TypeKind::Row(fields) = FlinkType::parse(&c.ty).unwrap().kind else { panic!() };
    for (f, want) in batch.schema().fields().iter().zip(&fields) {
        assert_eq!(f.metadata().get(sluice_transpose::FLINK_TYPE_KEY), Some(&want.ty.to_string()), "{}", f.name());
    }
    // and the metadata rules over the Arrow type when a converter is built from it
    let again = RowConverter::new(batch.schema()).unwrap();
    assert_eq!(again.flink_types().collect::<Vec<_>>(), fields.iter().map(|f| &f.ty).collect::<Vec<_>>());
}
