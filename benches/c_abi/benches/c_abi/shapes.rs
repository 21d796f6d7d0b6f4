//! The data and the variants of every case.

use std::rc::Rc;
use std::sync::Arc;

use arrow_array::builder::StringBuilder;
use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, Datum, Int32Array, RecordBatch, Scalar, StringArray, StructArray};
use arrow_schema::{DataType, Field, Schema};
#[cfg(feature = "datafusion")]
use datafusion_common::{config::ConfigOptions, ScalarValue};
#[cfg(feature = "datafusion")]
use datafusion_expr::{ColumnarValue, ScalarFunctionArgs, ScalarUDF};
use md5::Digest;
use sluice_kernels::{concat, digest, encode, search};
use sluice_transpose::{NullLayout, RowConverter, RowKind, Rows};

use crate::capi::{self, Converter, Input, Lib};
use crate::harness::Variant;
use crate::Case;

/// Rows per batch.
pub const ROWS: usize = 8192;

/// `ROWS` values of `len` lowercase ASCII letters (a `,` every
/// `comma_every` bytes when non-zero).
fn column(len: usize, seed: u64, comma_every: usize) -> StringArray {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut b = StringBuilder::with_capacity(ROWS, ROWS * len);
    let mut s = String::with_capacity(len);
    for _ in 0..ROWS {
        s.clear();
        for j in 0..len {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let c = if comma_every != 0 && j % comma_every == comma_every - 1 { b',' } else { b'a' + (x % 26) as u8 };
            s.push(c as char);
        }
        b.append_value(&s);
    }
    b.finish()
}

fn strings(v: &str) -> ArrayRef {
    Arc::new(StringArray::from(vec![v]))
}

fn ints(v: Vec<i32>) -> ArrayRef {
    Arc::new(Int32Array::from(v))
}

/// A reference variant that needs DataFusion or arrow-string: built with
/// the `datafusion` feature of this crate, `None` without.
#[cfg(feature = "datafusion")]
macro_rules! reference {
    ($e:expr) => {
        Some($e)
    };
}
#[cfg(not(feature = "datafusion"))]
macro_rules! reference {
    ($e:expr) => {
        None
    };
}

/// DataFusion's session config (a unit without DataFusion).
#[cfg(feature = "datafusion")]
type Cfg = Arc<ConfigOptions>;
#[cfg(not(feature = "datafusion"))]
type Cfg = ();

/// Calls a DataFusion UDF the way its physical expression does.
#[cfg(feature = "datafusion")]
fn df(udf: &ScalarUDF, args: Vec<ColumnarValue>, ret: DataType, cfg: &Cfg) -> usize {
    let arg_fields =
        args.iter().enumerate().map(|(i, a)| Arc::new(Field::new(format!("a{i}"), a.data_type(), true))).collect();
    let out = udf
        .invoke_with_args(ScalarFunctionArgs {
            args,
            arg_fields,
            number_rows: ROWS,
            return_field: Arc::new(Field::new("out", ret, true)),
            config_options: Arc::clone(cfg),
        })
        .expect("DataFusion call");
    match out {
        ColumnarValue::Array(a) => a.len(),
        ColumnarValue::Scalar(_) => 1,
    }
}

#[cfg(feature = "datafusion")]
fn arr(a: &ArrayRef) -> ColumnarValue {
    ColumnarValue::Array(Arc::clone(a))
}

#[cfg(feature = "datafusion")]
fn lit(s: &str) -> ColumnarValue {
    ColumnarValue::Scalar(ScalarValue::Utf8(Some(s.into())))
}

/// The single-stream digest of every value, nothing else: no hex, no
/// output array.
fn floor<D: Digest>(a: &ArrayRef) -> usize {
    let mut acc = 0u8;
    for v in a.as_string::<i32>().iter().flatten() {
        acc ^= D::digest(v.as_bytes())[0];
    }
    acc as usize
}

/// Every case at `b` bytes per value.
pub fn cases(lib: &Lib, b: usize) -> Vec<Case<'_>> {
    #[cfg(feature = "datafusion")]
    let cfg: Cfg = Arc::new(ConfigOptions::default());
    #[cfg(not(feature = "datafusion"))]
    let cfg: Cfg = ();
    let mut v = digests(lib, b, &cfg);
    v.extend(concats(lib, b, &cfg));
    v.extend(searches(lib, b, &cfg));
    v.push(utf16(lib, b));
    v.extend(rows(lib, b));
    v
}

fn digests<'a>(lib: &'a Lib, b: usize, cfg: &Cfg) -> Vec<Case<'a>> {
    let col: ArrayRef = Arc::new(column(b, b as u64, 0));
    let input = Rc::new(Input::new("in", Arc::clone(&col)));
    let _ = cfg;
    // DataFusion's SHA-2 (a binary column) then `encode(…, 'hex')`.
    #[cfg(feature = "datafusion")]
    let hex = |name: &'static str, f: fn() -> Arc<ScalarUDF>| {
        let (a, cfg) = (Arc::clone(&col), Arc::clone(cfg));
        let (udf, encode) = (f(), datafusion_functions::encoding::encode());
        Variant::new(name, move || {
            let bin = udf
                .invoke_with_args(ScalarFunctionArgs {
                    args: vec![arr(&a)],
                    arg_fields: vec![Arc::new(Field::new("a", DataType::Utf8, true))],
                    number_rows: ROWS,
                    return_field: Arc::new(Field::new("out", DataType::Binary, true)),
                    config_options: Arc::clone(&cfg),
                })
                .expect("DataFusion digest");
            df(&encode, vec![bin, lit("hex")], DataType::Utf8, &cfg)
        })
    };
    let sha2 = |kernel: &'static str, widths: ArrayRef, reference: Option<Variant<'a>>, fl: Option<Variant<'a>>| {
        let (i, w) = (Rc::clone(&input), Rc::new(Input::new("widths", Arc::clone(&widths))));
        let a = Arc::clone(&col);
        let width: Box<dyn Datum> = if widths.len() == 1 { Box::new(Scalar::new(widths)) } else { Box::new(widths) };
        Case {
            kernel,
            bytes: b,
            c_abi: Variant::new("C", move || capi::binary(lib, lib.sha2, &i, &w).len()),
            in_process: Variant::new("in", move || digest::sha2(&a, width.as_ref()).expect("sha2").len()),
            reference,
            floor: fl,
        }
    };
    let (a1, a2, a3, a4, a5, a6) =
        (Arc::clone(&col), Arc::clone(&col), Arc::clone(&col), Arc::clone(&col), Arc::clone(&col), Arc::clone(&col));
    let (i1, i2) = (Rc::clone(&input), Rc::clone(&input));
    vec![
        Case {
            kernel: "MD5",
            bytes: b,
            c_abi: Variant::new("C", move || capi::unary(lib, lib.md5, &i1).len()),
            in_process: Variant::new("in", move || digest::md5(&a1).expect("md5").len()),
            reference: reference!({
                let (udf, cfg, a) = (datafusion_functions::crypto::md5(), Arc::clone(cfg), Arc::clone(&col));
                Variant::new("DataFusion md5", move || df(&udf, vec![arr(&a)], DataType::Utf8View, &cfg))
            }),
            floor: Some(Variant::new("md-5 digest loop", move || floor::<md5::Md5>(&a2))),
        },
        Case {
            kernel: "SHA1",
            bytes: b,
            c_abi: Variant::new("C", move || capi::unary(lib, lib.sha1, &i2).len()),
            in_process: Variant::new("in", move || digest::sha1(&a3).expect("sha1").len()),
            reference: None,
            floor: Some(Variant::new("sha1 digest loop", move || floor::<sha1::Sha1>(&a4))),
        },
        sha2(
            "SHA-256",
            ints(vec![256]),
            reference!(hex("DataFusion encode(sha256,hex)", datafusion_functions::crypto::sha256)),
            Some(Variant::new("sha2 digest loop (SHA-NI)", move || floor::<sha2::Sha256>(&a5))),
        ),
        sha2(
            "SHA-512",
            ints(vec![512]),
            reference!(hex("DataFusion encode(sha512,hex)", datafusion_functions::crypto::sha512)),
            Some(Variant::new("sha2 digest loop", move || floor::<sha2::Sha512>(&a6))),
        ),
        sha2("SHA2 width column", ints((0..ROWS).map(|r| [224, 256, 384, 512][r % 4]).collect()), None, None),
    ]
}

fn concats<'a>(lib: &'a Lib, b: usize, cfg: &Cfg) -> Vec<Case<'a>> {
    let cols: Vec<ArrayRef> = (1..=3).map(|s| Arc::new(column(b, s, 0)) as ArrayRef).collect();
    let inputs: Rc<Vec<Input>> =
        Rc::new(cols.iter().enumerate().map(|(i, c)| Input::new(&format!("c{i}"), Arc::clone(c))).collect());
    let sep = Rc::new(Input::new("sep", strings(",")));
    let (ins1, ins2) = (Rc::clone(&inputs), Rc::clone(&inputs));
    let (c1, c3) = (cols.clone(), cols.clone());
    let _ = cfg;
    let sep_scalar = Scalar::new(strings(","));
    vec![
        Case {
            kernel: "CONCAT (3 columns)",
            bytes: b,
            c_abi: Variant::new("C", move || capi::concat(lib, None, &ins1.iter().collect::<Vec<_>>()).len()),
            in_process: Variant::new("in", move || {
                concat::concat(&[&c1[0] as &dyn Datum, &c1[1], &c1[2]]).expect("concat").len()
            }),
            reference: reference!({
                let (udf, cfg, c) = (datafusion_functions::string::concat(), Arc::clone(cfg), cols.clone());
                Variant::new("DataFusion concat", move || df(&udf, c.iter().map(arr).collect(), DataType::Utf8, &cfg))
            }),
            floor: None,
        },
        Case {
            kernel: "CONCAT_WS (',', 3 columns)",
            bytes: b,
            c_abi: Variant::new("C", move || capi::concat(lib, Some(&*sep), &ins2.iter().collect::<Vec<_>>()).len()),
            in_process: Variant::new("in", move || {
                concat::concat_ws(&sep_scalar, &[&c3[0] as &dyn Datum, &c3[1], &c3[2]]).expect("concat_ws").len()
            }),
            reference: reference!({
                let (udf, cfg, c) = (datafusion_functions::string::concat_ws(), Arc::clone(cfg), cols.clone());
                Variant::new("DataFusion concat_ws", move || {
                    let mut args = vec![lit(",")];
                    args.extend(c.iter().map(arr));
                    df(&udf, args, DataType::Utf8, &cfg)
                })
            }),
            floor: None,
        },
    ]
}

/// A search case: the C call, the in-process call, a reference.
fn search_case<'a>(
    kernel: &'static str,
    b: usize,
    c_abi: impl FnMut() -> usize + 'a,
    in_process: impl FnMut() -> usize + 'a,
    reference: Option<Variant<'a>>,
) -> Case<'a> {
    Case { kernel, bytes: b, c_abi: Variant::new("C", c_abi), in_process: Variant::new("in", in_process), reference, floor: None }
}

fn searches<'a>(lib: &'a Lib, b: usize, cfg: &Cfg) -> Vec<Case<'a>> {
    let hay: ArrayRef = Arc::new(column(b, 7, 0));
    let csv: ArrayRef = Arc::new(column(b, 9, 8));
    let h = Rc::new(Input::new("haystack", Arc::clone(&hay)));
    let hc = Rc::new(Input::new("str", Arc::clone(&csv)));
    let needle = Rc::new(Input::new("needle", strings("xyz")));
    let from = Rc::new(Input::new("from", ints(vec![2])));
    let pattern = Rc::new(Input::new("pattern", strings("%xyz%")));
    let (old, new) = (Rc::new(Input::new("search", strings("ab"))), Rc::new(Input::new("replacement", strings("XYZ"))));
    let (sep, idx) = (Rc::new(Input::new("sep", strings(","))), Rc::new(Input::new("index", ints(vec![1]))));
    let _ = cfg;
    let mut out = Vec::new();
    {
        let (h, n, a) = (Rc::clone(&h), Rc::clone(&needle), Arc::clone(&hay));
        let s = Scalar::new(strings("xyz"));
        out.push(search_case(
            "POSITION",
            b,
            move || capi::binary(lib, lib.position, &n, &h).len(),
            move || search::position(&s, &a).expect("position").len(),
            reference!({
                let (udf, cfg, a) = (datafusion_functions::unicode::strpos(), Arc::clone(cfg), Arc::clone(&hay));
                Variant::new("DataFusion strpos", move || df(&udf, vec![arr(&a), lit("xyz")], DataType::Int32, &cfg))
            }),
        ));
    }
    {
        let (h, n, f, a) = (Rc::clone(&h), Rc::clone(&needle), Rc::clone(&from), Arc::clone(&hay));
        let (s, fr) = (Scalar::new(strings("xyz")), Scalar::new(ints(vec![2])));
        out.push(search_case(
            "LOCATE (from 2)",
            b,
            move || capi::ternary(lib, lib.locate, &n, &h, Some(&*f)).len(),
            move || search::locate(&s, &a, Some(&fr as &dyn Datum)).expect("locate").len(),
            reference!({
                let (udf, cfg, a) = (datafusion_functions::unicode::strpos(), Arc::clone(cfg), Arc::clone(&hay));
                Variant::new("DataFusion strpos (no start)", move || {
                    df(&udf, vec![arr(&a), lit("xyz")], DataType::Int32, &cfg)
                })
            }),
        ));
    }
    {
        let (h, p, a) = (Rc::clone(&h), Rc::clone(&pattern), Arc::clone(&hay));
        let s = Scalar::new(strings("%xyz%"));
        out.push(search_case(
            "LIKE '%xyz%'",
            b,
            move || capi::like(lib, &h, &p).len(),
            move || search::like(&a, &s, None).expect("like").len(),
            reference!({
                let (a, s) = (Arc::clone(&hay), Scalar::new(strings("%xyz%")));
                Variant::new("arrow-rs like", move || arrow_string::like::like(&a, &s).expect("like").len())
            }),
        ));
    }
    {
        let (h, o, n, a) = (Rc::clone(&h), old, new, Arc::clone(&hay));
        let (s, r) = (Scalar::new(strings("ab")), Scalar::new(strings("XYZ")));
        out.push(search_case(
            "REPLACE ('ab' → 'XYZ')",
            b,
            move || capi::ternary(lib, lib.replace, &h, &o, Some(&*n)).len(),
            move || search::replace(&a, &s, &r).expect("replace").len(),
            reference!({
                let (udf, cfg, a) = (datafusion_functions::string::replace(), Arc::clone(cfg), Arc::clone(&hay));
                Variant::new("DataFusion replace", move || {
                    df(&udf, vec![arr(&a), lit("ab"), lit("XYZ")], DataType::Utf8, &cfg)
                })
            }),
        ));
    }
    {
        let a = Arc::clone(&csv);
        let (s, i) = (Scalar::new(strings(",")), Scalar::new(ints(vec![1])));
        out.push(search_case(
            "SPLIT_INDEX (',', 1)",
            b,
            move || capi::ternary(lib, lib.split_index, &hc, &sep, Some(&*idx)).len(),
            move || search::split_index(&a, &s, &i).expect("split_index").len(),
            reference!({
                let (udf, cfg, a) = (datafusion_functions::string::split_part(), Arc::clone(cfg), Arc::clone(&csv));
                Variant::new("DataFusion split_part", move || {
                    let pos = ColumnarValue::Scalar(ScalarValue::Int64(Some(2)));
                    df(&udf, vec![arr(&a), lit(","), pos], DataType::Utf8, &cfg)
                })
            }),
        ));
    }
    out
}

fn utf16(lib: &Lib, b: usize) -> Case<'_> {
    let col = column(b, 11, 0);
    let units: Rc<Vec<u16>> = Rc::new(col.value_data().iter().map(|&c| u16::from(c)).collect());
    let offsets: Rc<Vec<i64>> = Rc::new(col.value_offsets().iter().map(|&o| i64::from(o)).collect());
    let (u1, o1, u2, o2, u3, o3) =
        (Rc::clone(&units), Rc::clone(&offsets), Rc::clone(&units), Rc::clone(&offsets), units, offsets);
    Case {
        kernel: "UTF-16 → UTF-8",
        bytes: b,
        c_abi: Variant::new("C", move || capi::utf16_to_utf8(lib, &u1, &o1).len()),
        in_process: Variant::new("in", move || encode::utf16_to_utf8(&u2, &o2, None).expect("encode").len()),
        reference: Some(Variant::new("std from_utf16_lossy per row", move || {
            let mut sb = StringBuilder::with_capacity(ROWS, u3.len());
            for w in o3.windows(2) {
                sb.append_value(String::from_utf16_lossy(&u3[w[0] as usize..w[1] as usize]));
            }
            sb.finish().len()
        })),
        floor: None,
    }
}

fn rows(lib: &Lib, b: usize) -> Vec<Case<'_>> {
    let fields = vec![
        Field::new("a", DataType::Int32, true),
        Field::new("b", DataType::Int64, true),
        Field::new("c", DataType::Utf8, true),
        Field::new("d", DataType::Utf8, true),
    ];
    let schema = Arc::new(Schema::new(fields.clone()));
    let ids: Vec<i64> = (0..ROWS as i64).collect();
    let rb = RecordBatch::try_new(
        Arc::clone(&schema),
        vec![
            Arc::new(Int32Array::from((0..ROWS as i32).collect::<Vec<_>>())),
            Arc::new(arrow_array::Int64Array::from(ids)),
            Arc::new(column(b, 21, 0)),
            Arc::new(column(b, 22, 0)),
        ],
    )
    .expect("batch");
    let conv = Rc::new(RowConverter::new(Arc::clone(&schema)).expect("converter"));
    let rows = Rc::new(conv.batch_to_rows(&rb, None, NullLayout::Serializer).expect("rows"));
    let row_field = Field::new("row", DataType::Struct(fields.into()), false);
    let handle = Rc::new(Converter::new(lib, &row_field));
    let batch = Rc::new(Input::with_field(&row_field, Arc::new(StructArray::from(rb.clone()))));

    let (h1, h2, h3, h4) = (Rc::clone(&handle), Rc::clone(&handle), Rc::clone(&handle), handle);
    let (r1, r2, r3) = (Rc::clone(&rows), Rc::clone(&rows), rows);
    let (b1, b2) = (Rc::clone(&batch), batch);
    let (conv1, conv2) = (Rc::clone(&conv), conv);
    let (mut k1, mut k2, mut k3) = (vec![0i8; ROWS], vec![RowKind::Insert; ROWS], vec![0i8; ROWS]);
    let mut scratch = Rows::default();
    vec![
        Case {
            kernel: "rows → Arrow (handle)",
            bytes: b,
            c_abi: Variant::new("C", move || h1.rows_to_arrow(&r1.data, &r1.offsets, &mut k1, false).len()),
            in_process: Variant::new("in", move || {
                conv1.rows_to_batch_into(&r2.data, &r2.offsets, &mut k2).expect("decode").num_rows()
            }),
            reference: Some(Variant::new("C ABI one-shot", move || {
                h2.rows_to_arrow(&r3.data, &r3.offsets, &mut k3, true).len()
            })),
            floor: None,
        },
        Case {
            kernel: "Arrow → rows (handle)",
            bytes: b,
            c_abi: Variant::new("C", move || h3.arrow_to_rows(&b1, false) as usize),
            in_process: Variant::new("in", move || {
                conv2.batch_to_rows_into(&rb, None, NullLayout::Serializer, &mut scratch).expect("encode");
                scratch.data.len()
            }),
            reference: Some(Variant::new("C ABI one-shot", move || h4.arrow_to_rows(&b2, true) as usize)),
            floor: None,
        },
    ]
}
