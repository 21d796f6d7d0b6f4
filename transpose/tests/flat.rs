//! The flat fast paths (entry: one checked-and-written loop per column per
//! block; exit: exact sizing + unchecked row writes) against the general
//! paths, which the golden tests pin to Flink's own bytes: same batches,
//! same row bytes, same errors, over seeded random flat schemas.

use std::sync::Arc;

use arrow_array::builder::{
    BinaryBuilder, BooleanBuilder, Date32Builder, Float32Builder, Float64Builder, Int16Builder, Int32Builder,
    Int64Builder, Int8Builder, StringBuilder,
};
use arrow_array::{Array, ArrayRef, RecordBatch};
use sluice_transpose::{FlinkType, NullLayout, RowConverter, RowKind, ValuesSizing};

/// xorshift, seeded: the cases are the same on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Flat types (and BOOLEAN, which the entry sweep leaves to the general
/// path, so mixed schemas are covered too).
const TYPES: [&str; 11] =
    ["BIGINT", "DOUBLE", "INT", "DATE", "FLOAT", "SMALLINT", "TINYINT", "VARCHAR(16)", "STRING", "BYTES", "BOOLEAN"];

fn text(rng: &mut Rng) -> String {
    let len = [0, 3, 7, 8, 15, 16, 40, 70, 200][rng.below(9) as usize];
    let mut s = String::new();
    while s.len() < len {
        s.push(match rng.below(10) {
            0 => 'é',
            1 => '𝄞',
            _ => (b'a' + rng.below(26) as u8) as char,
        });
    }
    s
}

fn column(rng: &mut Rng, ty: &str, nullable: bool, n: usize) -> ArrayRef {
    let null_pct = if nullable { [0, 5, 50][rng.below(3) as usize] } else { 0 };
    let null = |rng: &mut Rng| rng.below(100) < null_pct;
    macro_rules! prim {
        ($b:ty, $v:expr) => {{
            let mut b = <$b>::new();
            for _ in 0..n {
                if null(rng) {
                    b.append_null();
                } else {
                    b.append_value($v(rng.next()));
                }
            }
            Arc::new(b.finish()) as ArrayRef
        }};
    }
    match ty {
        "BIGINT" => prim!(Int64Builder, |x: u64| x as i64),
        "DOUBLE" => prim!(Float64Builder, |x: u64| f64::from_bits(x)),
        "INT" => prim!(Int32Builder, |x: u64| x as i32),
        "DATE" => prim!(Date32Builder, |x: u64| (x % 100_000) as i32),
        "FLOAT" => prim!(Float32Builder, |x: u64| f32::from_bits(x as u32)),
        "SMALLINT" => prim!(Int16Builder, |x: u64| x as i16),
        "TINYINT" => prim!(Int8Builder, |x: u64| x as i8),
        "BOOLEAN" => prim!(BooleanBuilder, |x: u64| x & 1 == 1),
        "BYTES" => {
            let mut b = BinaryBuilder::new();
            for _ in 0..n {
                if null(rng) {
                    b.append_null();
                } else {
                    let len = rng.below(30) as usize;
                    let v: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
                    b.append_value(&v);
                }
            }
            Arc::new(b.finish())
        }
        _ => {
            let mut b = StringBuilder::new();
            for _ in 0..n {
                if null(rng) {
                    b.append_null();
                } else {
                    b.append_value(text(rng));
                }
            }
            Arc::new(b.finish())
        }
    }
}

/// A random flat schema and batch (sometimes sliced) for `seed`.
fn case(seed: u64) -> (RowConverter, RecordBatch, Vec<RowKind>) {
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let arity = 1 + rng.below(if seed.is_multiple_of(7) { 70 } else { 9 }) as usize;
    let n = [0usize, 1, 5, 255, 257, 1000][rng.below(6) as usize];
    let mut names = Vec::new();
    let mut types = Vec::new();
    for j in 0..arity {
        let base = TYPES[rng.below(TYPES.len() as u64) as usize];
        let nullable = rng.below(4) != 0;
        names.push(format!("f{j}"));
        types.push(FlinkType::parse(&format!("{base}{}", if nullable { "" } else { " NOT NULL" })).unwrap());
    }
    let names: Vec<&str> = names.iter().map(|s| s.as_str()).collect();
    let conv = RowConverter::from_flink_types(&names, &types).unwrap();
    let extra = if rng.below(2) == 0 { 3 } else { 0 };
    let cols: Vec<ArrayRef> = types.iter().map(|t| column(&mut rng, &base_name(t), t.nullable, n + extra)).collect();
    let batch = RecordBatch::try_new(conv.schema().clone(), cols).unwrap();
    let batch = if extra > 0 { batch.slice(2, n) } else { batch };
    let kinds = (0..n)
        .map(|_| [RowKind::Insert, RowKind::UpdateBefore, RowKind::UpdateAfter, RowKind::Delete][rng.below(4) as usize])
        .collect();
    (conv, batch, kinds)
}

/// The base name of a parsed type, as in [`TYPES`].
fn base_name(t: &FlinkType) -> String {
    let s = t.to_string().replace(" NOT NULL", "");
    match s.as_str() {
        "VARCHAR(2147483647)" => "STRING".into(),
        "VARBINARY(2147483647)" => "BYTES".into(),
        _ => s,
    }
}

#[test]
fn flat_paths_match_general_paths() {
    for seed in 0..60 {
        let (conv, batch, kinds) = case(seed);
        let general = conv.clone().with_flat_paths(false);
        for layout in [NullLayout::Serializer, NullLayout::Projection] {
            let fast = conv.batch_to_rows(&batch, Some(&kinds), layout).unwrap();
            let slow = general.batch_to_rows(&batch, Some(&kinds), layout).unwrap();
            assert_eq!(fast, slow, "seed {seed}: exit bytes");
        }
        let rows = conv.batch_to_rows(&batch, None, NullLayout::Serializer).unwrap();
        let without_kinds = general.batch_to_rows(&batch, None, NullLayout::Serializer).unwrap();
        assert_eq!(rows, without_kinds, "seed {seed}: exit bytes without RowKinds");
        let rows = conv.batch_to_rows(&batch, Some(&kinds), NullLayout::Serializer).unwrap();
        for sizing in [ValuesSizing::ExactPass, ValuesSizing::Geometric] {
            let (b1, k1) = conv.clone().with_values_sizing(sizing).rows_to_batch(&rows.data, &rows.offsets).unwrap();
            let (b2, k2) = general.clone().with_values_sizing(sizing).rows_to_batch(&rows.data, &rows.offsets).unwrap();
            for c in b1.columns() {
                c.to_data().validate_full().unwrap();
            }
            assert_eq!(b1, b2, "seed {seed}: entry batches");
            assert_eq!(k1, k2);
            assert_eq!(k1, kinds, "seed {seed}: RowKinds");
            for (j, (a, e)) in b1.columns().iter().zip(batch.columns()).enumerate() {
                assert_eq!(a.as_ref(), e.as_ref() as &dyn Array, "seed {seed}: column {j}");
            }
        }
    }
}

#[test]
fn flat_entry_reports_what_the_general_path_reports() {
    let mut rng = Rng(77);
    let mut checked = 0;
    for seed in 0..60 {
        let (conv, batch, _) = case(seed);
        if batch.num_rows() == 0 {
            continue;
        }
        let general = conv.clone().with_flat_paths(false);
        let rows = conv.batch_to_rows(&batch, None, NullLayout::Serializer).unwrap();
        let arity = conv.arity();
        let nb = (arity + 63 + 8) / 64 * 8;
        for _ in 0..20 {
            let mut data = rows.data.clone();
            let i = rng.below(rows.num_rows() as u64) as usize;
            let j = rng.below(arity as u64) as usize;
            let start = rows.offsets[i] as usize;
            let row_len = (rows.offsets[i + 1] - rows.offsets[i]) as u64;
            let pos = start + nb + 8 * j;
            let word = match rng.below(5) {
                0 => (row_len + 1 + rng.below(100)) << 32 | 4,  // offset past the row
                4 => (row_len - 3) << 32 | 4,                   // ends one byte past the row
                1 => (8u64 << 32) | (row_len + rng.below(100)), // length past the row
                2 => (0x80 | (8 + rng.below(100))) << 56,       // inline length > 7
                _ => {
                    // a NULL bit, refused where the field is NOT NULL
                    let bit = j + 8;
                    data[start + bit / 8] |= 1 << (bit % 8);
                    u64::from_le_bytes(data[pos..pos + 8].try_into().unwrap())
                }
            };
            data[pos..pos + 8].copy_from_slice(&word.to_le_bytes());
            let fast = conv.rows_to_batch(&data, &rows.offsets);
            let slow = general.rows_to_batch(&data, &rows.offsets);
            match (fast, slow) {
                (Ok(a), Ok(b)) => assert_eq!(a, b, "seed {seed}: row {i} field {j}"),
                (Err(a), Err(b)) => {
                    assert_eq!(a.to_string(), b.to_string(), "seed {seed}: row {i} field {j}");
                    checked += 1;
                }
                (a, b) => panic!("seed {seed}: row {i} field {j}: flat {a:?} vs general {b:?}"),
            }
        }
    }
    assert!(checked > 100, "only {checked} corrupted batches were refused");
}
