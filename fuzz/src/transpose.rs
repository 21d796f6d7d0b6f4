//! `sluice_transpose`: Flink `BinaryRowData` ⇄ Arrow, on arbitrary schemas.
//!
//! `transpose_roundtrip`: an arbitrary (nested) Flink schema and arbitrary
//! values in their canonical Arrow form → `batch_to_rows` → `rows_to_batch`
//! must give the same batch and RowKinds back, and `FlinkType`'s printed form
//! must parse back to the same type.
//!
//! `row_reader`: those rows with arbitrary bytes flipped, cut short or
//! re-sliced (and raw arbitrary bytes) → `rows_to_batch` is an error or a
//! batch, never a panic or an out-of-bounds read (ASan in `long` runs);
//! from the first write of a parsed batch on, writing and reading are
//! stable (same bytes, same batch). The first write itself may canonicalise
//! NaN payloads inside arrays and maps, as Flink's `BinaryArrayWriter` does. Byte identity with the *mutated* input is not asserted: Flink's
//! format leaves padding and unused slot bits free, so a corrupted row may
//! parse yet not be canonical.

use std::sync::Arc;

use arbitrary::{Arbitrary, Unstructured};
use arrow_array::{
    types::*, Array, ArrayRef, BinaryArray, BooleanArray, FixedSizeBinaryArray, ListArray, MapArray, PrimitiveArray,
    RecordBatch, StringArray, StructArray,
};
use arrow_buffer::{NullBuffer, OffsetBuffer};
use arrow_schema::{DataType, Fields};
use sluice_transpose::{FlinkType, NullLayout, RowConverter, RowField, RowKind, TypeKind};

/// A Flink type, bounded in depth by the generator.
#[derive(Arbitrary, Debug, Clone)]
pub enum TypeSpec {
    /// A scalar type (index into a table of them, with a parameter).
    Scalar(u8, u8),
    /// `ARRAY<T>`.
    Array(Box<TypeSpec>),
    /// `MAP<K, V>` (the key is made a scalar type).
    Map(u8, Box<TypeSpec>),
    /// `ROW<...>`.
    Row(Vec<TypeSpec>),
}

/// A field: its type and whether it is `NOT NULL`.
#[derive(Arbitrary, Debug, Clone)]
pub struct FieldSpec {
    /// The type.
    pub ty: TypeSpec,
    /// `NOT NULL`.
    pub not_null: bool,
}

/// The fixed-width numeric kinds the type tables here and in
/// [`crate::key_groups`] start with (kinds 0 to 6).
pub(crate) const NUMERIC_KINDS: [TypeKind; 7] = [
    TypeKind::Boolean,
    TypeKind::TinyInt,
    TypeKind::SmallInt,
    TypeKind::Int,
    TypeKind::BigInt,
    TypeKind::Float,
    TypeKind::Double,
];

/// A DECIMAL of precision `1..=max_precision` and a scale up to it, from `p`.
pub(crate) fn decimal_kind(p: u8, max_precision: u8) -> TypeKind {
    let precision = p % max_precision + 1;
    TypeKind::Decimal { precision, scale: (p / max_precision) % (precision + 1) }
}

fn scalar_kind(k: u8, p: u8) -> TypeKind {
    match k % 17 {
        k @ 0..=6 => NUMERIC_KINDS[usize::from(k)].clone(),
        7 => decimal_kind(p, 38),
        8 => TypeKind::Char(u32::from(p % 16) + 1),
        9 => TypeKind::VarChar(if p.is_multiple_of(2) { i32::MAX as u32 } else { u32::from(p) + 1 }),
        10 => TypeKind::Binary(u32::from(p % 24) + 1),
        11 => TypeKind::VarBinary(i32::MAX as u32),
        12 => TypeKind::Date,
        13 => TypeKind::Time(p % 10),
        14 => TypeKind::Timestamp(p % 10),
        15 => TypeKind::TimestampLtz(p % 10),
        _ => TypeKind::VarChar(i32::MAX as u32),
    }
}

/// The Flink type of a spec, nested at most `depth` levels.
pub fn flink_type(spec: &TypeSpec, nullable: bool, depth: usize) -> FlinkType {
    let kind = match spec {
        TypeSpec::Scalar(k, p) => scalar_kind(*k, *p),
        _ if depth == 0 => TypeKind::Int,
        TypeSpec::Array(e) => TypeKind::Array(Box::new(flink_type(e, true, depth - 1))),
        TypeSpec::Map(k, v) => TypeKind::Map(
            Box::new(FlinkType::new(scalar_kind(*k, 7)).with_nullable(false)),
            Box::new(flink_type(v, true, depth - 1)),
        ),
        TypeSpec::Row(fields) if fields.is_empty() => TypeKind::BigInt,
        TypeSpec::Row(fields) => TypeKind::Row(
            fields
                .iter()
                .take(4)
                .enumerate()
                .map(|(i, f)| RowField { name: format!("f{i}"), ty: flink_type(f, true, depth - 1), description: None })
                .collect(),
        ),
    };
    FlinkType::new(kind).with_nullable(nullable)
}

fn canon32(v: f32) -> f32 {
    if v.is_nan() {
        f32::NAN
    } else {
        v
    }
}

fn canon64(v: f64) -> f64 {
    if v.is_nan() {
        f64::NAN
    } else {
        v
    }
}

/// Arbitrary Arrow values in the canonical form of `ty` (what the entry
/// transpose produces), `n` rows. Rows under a NULL parent (`under[i]`
/// false) are NULL where the type allows it. `in_array`: an array element or
/// map entry (NaN canonicalised).
pub fn gen(ty: &FlinkType, n: usize, under: Option<&[bool]>, in_array: bool, u: &mut Unstructured) -> ArrayRef {
    let valid: Vec<bool> = (0..n)
        .map(|i| {
            let parent = under.is_none_or(|p| p[i]);
            parent && (!ty.nullable || u.ratio(7u8, 8u8).unwrap_or(true))
        })
        .collect();
    // A NOT NULL child under a NULL parent keeps a value; only nullable
    // types get a mask.
    let nulls = ty.nullable.then(|| NullBuffer::from(valid.clone()));
    let int = |u: &mut Unstructured| i64::arbitrary(u).unwrap_or(0);
    macro_rules! prim {
        ($t:ty, $f:expr) => {{
            let v: Vec<_> = (0..n).map(|_| $f(&mut *u)).collect();
            Arc::new(PrimitiveArray::<$t>::new(v.into(), nulls)) as ArrayRef
        }};
    }
    match &ty.kind {
        TypeKind::Boolean => {
            let v: Vec<bool> = (0..n).map(|_| bool::arbitrary(u).unwrap_or(false)).collect();
            Arc::new(BooleanArray::new(v.into(), nulls))
        }
        TypeKind::TinyInt => prim!(Int8Type, |u| int(u) as i8),
        TypeKind::SmallInt => prim!(Int16Type, |u| int(u) as i16),
        TypeKind::Int => prim!(Int32Type, |u| int(u) as i32),
        TypeKind::BigInt => prim!(Int64Type, int),
        // A row keeps a NaN's payload; `BinaryArrayWriter.writeFloat/Double`
        // (array elements, map keys and values) store Java's canonical NaN,
        // which is Rust's `NAN` (docs/flink-semantics.md, "NaN").
        TypeKind::Float => prim!(Float32Type, |u| {
            let v = f32::from_bits(int(u) as u32);
            if in_array {
                canon32(v)
            } else {
                v
            }
        }),
        TypeKind::Double => prim!(Float64Type, |u| {
            let v = f64::from_bits(int(u) as u64);
            if in_array {
                canon64(v)
            } else {
                v
            }
        }),
        TypeKind::Decimal { precision, scale } => {
            let bound = 10i128.pow(u32::from(*precision));
            let a = prim!(Decimal128Type, |u: &mut Unstructured| { i128::arbitrary(u).unwrap_or(0) % bound });
            let a = a.as_any().downcast_ref::<PrimitiveArray<Decimal128Type>>().unwrap().clone();
            Arc::new(a.with_precision_and_scale(*precision, *scale as i8).expect("valid decimal"))
        }
        TypeKind::Char(_) | TypeKind::VarChar(_) => {
            let v: Vec<String> = (0..n).map(|_| String::arbitrary(u).unwrap_or_default()).collect();
            let (o, b, _) = StringArray::from_iter_values(v).into_parts();
            Arc::new(StringArray::new(o, b, nulls))
        }
        TypeKind::Binary(len) => {
            let len = *len as usize;
            let v: Vec<u8> = (0..n * len).map(|_| u8::arbitrary(u).unwrap_or(0)).collect();
            Arc::new(FixedSizeBinaryArray::new(len as i32, v.into(), nulls))
        }
        TypeKind::VarBinary(_) => {
            let v: Vec<Vec<u8>> = (0..n).map(|_| Vec::arbitrary(u).unwrap_or_default()).collect();
            let (o, b, _) = BinaryArray::from_iter_values(v).into_parts();
            Arc::new(BinaryArray::new(o, b, nulls))
        }
        TypeKind::Date => prim!(Date32Type, |u| int(u) as i32),
        // TIME keeps milliseconds of the day in an i32.
        TypeKind::Time(p) => {
            let ms = |u: &mut Unstructured| (int(u).rem_euclid(86_400_000)) as i32;
            match p {
                0 => prim!(Time32SecondType, |u| ms(u) / 1000),
                1..=3 => prim!(Time32MillisecondType, ms),
                4..=6 => prim!(Time64MicrosecondType, |u| i64::from(ms(u)) * 1000),
                _ => prim!(Time64NanosecondType, |u| i64::from(ms(u)) * 1_000_000),
            }
        }
        TypeKind::Timestamp(p) | TypeKind::TimestampLtz(p) => {
            // Epoch millis must fit an i64 after scaling; keep within ±2^52 ms.
            let ms = |u: &mut Unstructured| int(u) % (1 << 52);
            let sub = |u: &mut Unstructured| int(u).rem_euclid(1_000_000);
            match p {
                0 => prim!(TimestampSecondType, |u| ms(u) / 1000),
                1..=3 => prim!(TimestampMillisecondType, ms),
                4..=6 => {
                    prim!(TimestampMicrosecondType, |u: &mut Unstructured| ms(&mut *u) * 1000 + sub(&mut *u) / 1000)
                }
                _ => prim!(TimestampNanosecondType, |u: &mut Unstructured| (ms(&mut *u) % (1 << 42)) * 1_000_000
                    + sub(&mut *u)),
            }
        }
        TypeKind::Array(e) => {
            let lens: Vec<usize> =
                (0..n).map(|i| if valid[i] { usize::from(u8::arbitrary(u).unwrap_or(0) % 4) } else { 0 }).collect();
            let total = lens.iter().sum();
            let child = gen(e, total, None, true, u);
            let field = Arc::new(e.to_arrow_field("element"));
            Arc::new(ListArray::new(field, OffsetBuffer::from_lengths(lens), child, nulls))
        }
        TypeKind::Map(k, v) => {
            let lens: Vec<usize> =
                (0..n).map(|i| if valid[i] { usize::from(u8::arbitrary(u).unwrap_or(0) % 4) } else { 0 }).collect();
            let total = lens.iter().sum();
            let keys = gen(k, total, None, true, u);
            let values = gen(v, total, None, true, u);
            let DataType::Map(entries_field, _) = ty.to_arrow_type() else { unreachable!() };
            let DataType::Struct(fields) = entries_field.data_type().clone() else { unreachable!() };
            let entries = StructArray::new(fields, vec![keys, values], None);
            Arc::new(MapArray::new(entries_field, OffsetBuffer::from_lengths(lens), entries, nulls, false))
        }
        TypeKind::Row(fields) => {
            let children: Vec<ArrayRef> = fields.iter().map(|f| gen(&f.ty, n, Some(&valid), false, u)).collect();
            let arrow_fields: Fields = fields.iter().map(|f| f.ty.to_arrow_field(&f.name)).collect();
            Arc::new(StructArray::new(arrow_fields, children, nulls))
        }
    }
}

/// Input of `transpose_roundtrip` and `row_reader`.
#[derive(Arbitrary, Debug, Clone)]
pub struct Input {
    /// Top-level fields (at most 6).
    pub fields: Vec<FieldSpec>,
    /// Rows (mod 8).
    pub rows: u8,
    /// RowKind byte of each row (cycled).
    pub kinds: Vec<u8>,
    /// `NullLayout::Projection` rather than `Serializer`.
    pub projection: bool,
    /// Byte flips applied to the written rows (`row_reader`).
    pub flips: Vec<(u16, u8)>,
    /// Bytes cut off the end of the buffer / off one row (`row_reader`).
    pub cut: u8,
    /// Entropy for the values.
    pub values: Vec<u8>,
}

fn kind_of(b: u8) -> RowKind {
    [RowKind::Insert, RowKind::UpdateBefore, RowKind::UpdateAfter, RowKind::Delete][b as usize % 4]
}

/// Builds the converter, the batch and the RowKinds of an input (`None`
/// when the schema is degenerate or the converter refuses it).
fn setup(input: &Input) -> Option<(RowConverter, RecordBatch, Vec<RowKind>)> {
    if input.fields.is_empty() {
        return None;
    }
    let types: Vec<FlinkType> = input.fields.iter().take(6).map(|f| flink_type(&f.ty, !f.not_null, 2)).collect();
    for t in &types {
        // The printed form is Flink's asSerializableString(); it parses back.
        let s = t.to_string();
        let back = FlinkType::parse(&s).unwrap_or_else(|e| panic!("parse({s:?}): {e}"));
        assert_eq!(&back, t, "FlinkType round trip of {s:?}");
    }
    let names: Vec<String> = (0..types.len()).map(|i| format!("c{i}")).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let conv = RowConverter::from_flink_types(&names, &types).ok()?;
    let n = input.rows as usize % 8;
    let mut u = Unstructured::new(&input.values);
    let cols: Vec<ArrayRef> = types.iter().map(|t| gen(t, n, None, false, &mut u)).collect();
    let batch = RecordBatch::try_new(conv.schema().clone(), cols).expect("generated batch fits schema");
    let kinds: Vec<RowKind> = (0..n)
        .map(|i| if input.kinds.is_empty() { RowKind::Insert } else { kind_of(input.kinds[i % input.kinds.len()]) })
        .collect();
    Some((conv, batch, kinds))
}

fn layout(input: &Input) -> NullLayout {
    if input.projection {
        NullLayout::Projection
    } else {
        NullLayout::Serializer
    }
}

/// `transpose_roundtrip`: panics on a mismatch.
pub fn check_roundtrip(input: &Input) {
    let Some((conv, batch, kinds)) = setup(input) else {
        return;
    };
    let rows = conv.batch_to_rows(&batch, Some(&kinds), layout(input)).expect("exit transpose");
    let (back, back_kinds) = conv.rows_to_batch(&rows.data, &rows.offsets).expect("entry transpose of written rows");
    assert_eq!(back_kinds, kinds, "RowKinds");
    for (c, (a, b)) in batch.columns().iter().zip(back.columns()).enumerate() {
        assert_eq!(a.to_data(), b.to_data(), "column {c} ({}) round trip", conv.schema().field(c));
    }
}

/// `row_reader`: panics on a mismatch.
pub fn check_reader(input: &Input) {
    let Some((conv, batch, kinds)) = setup(input) else {
        return;
    };
    let layout = layout(input);
    let rows = conv.batch_to_rows(&batch, Some(&kinds), layout).expect("exit transpose");
    let mut data = rows.data.clone();
    let mut offsets = rows.offsets.clone();
    if !data.is_empty() {
        for (at, x) in &input.flips {
            let i = *at as usize % data.len();
            data[i] ^= x;
        }
    }
    // Cut the buffer short (offsets then point past it) or one row short.
    let cut = input.cut as usize;
    if cut % 3 == 1 {
        data.truncate(data.len().saturating_sub(cut / 3));
    } else if cut % 3 == 2 && offsets.len() > 1 {
        let r = (cut / 3) % (offsets.len() - 1) + 1;
        offsets[r] = (offsets[r] - 1).max(offsets[r - 1]);
    }
    parses_to_fixed_point(&conv, &data, &offsets, layout);
    // Raw arbitrary bytes as one row, and as rows of 8-byte-aligned lengths.
    parses_to_fixed_point(&conv, &input.values, &[0, input.values.len() as i64], layout);
    let fixed = conv.fixed_part_size() as i64;
    let mut offs = vec![0i64];
    while offs.len() <= 4 && *offs.last().unwrap() + fixed <= input.values.len() as i64 {
        offs.push(offs.last().unwrap() + fixed);
    }
    parses_to_fixed_point(&conv, &input.values, &offs, layout);
}

/// Parses `data`; if that succeeds, checks the fixed-point property.
fn parses_to_fixed_point(conv: &RowConverter, data: &[u8], offsets: &[i64], layout: NullLayout) {
    let Ok((parsed, parsed_kinds)) = conv.rows_to_batch(data, offsets) else {
        return;
    };
    // What parses is a batch like any other. Its first write may change it
    // in one known way: NaN payloads inside arrays and maps become Java's
    // canonical NaN (`BinaryArrayWriter.writeFloat/Double`), so stability is
    // checked from the first write on: rows written from a re-read batch
    // are the same bytes, and read back they are the same batch.
    let rows2 = conv.batch_to_rows(&parsed, Some(&parsed_kinds), layout).expect("exit of a parsed batch");
    let (again, again_kinds) = conv.rows_to_batch(&rows2.data, &rows2.offsets).expect("re-entry");
    assert_eq!(again_kinds, parsed_kinds);
    let rows3 = conv.batch_to_rows(&again, Some(&again_kinds), layout).expect("exit");
    assert_eq!(rows3.data, rows2.data, "canonical rows are a fixed point");
    let (third, _) = conv.rows_to_batch(&rows3.data, &rows3.offsets).expect("re-entry");
    for (c, (a, b)) in again.columns().iter().zip(third.columns()).enumerate() {
        assert_eq!(a.to_data(), b.to_data(), "column {c} of a parsed batch, written and read back");
    }
}
