//! sluice vs DataFusion 55 (`datafusion-functions`) on the same arrays, one
//! criterion group per shape so the ratios come from one run.
//!
//! - `md5(x)`: DataFusion's `md5` UDF (Utf8View hex output) vs `digest_hex(Md5)`.
//! - `encode(sha256(x), 'hex')`: DataFusion computes a Binary digest column,
//!   then hex-encodes it with `encode`; sluice writes hex directly.
//! - `concat(a, b, c)` and `concat_ws(',', a, b, c)`: DataFusion's UDFs vs
//!   sluice (and arrow-rs `concat_elements_utf8_many` for CONCAT). Note that
//!   DataFusion's `concat` treats NULL as '' (Postgres) where Flink gives NULL;
//!   on the no-NULL shapes both do the same work.
//!
//! Run (from the repo root):
//! `CARGO_TARGET_DIR=/work/targets/digest cargo bench --manifest-path benches/datafusion/Cargo.toml -- --warm-up-time 1 --measurement-time 3`

use std::hint::black_box;
use std::sync::Arc;

use arrow_array::builder::StringBuilder;
use arrow_array::{ArrayRef, Datum, Scalar, StringArray};
use arrow_schema::{DataType, Field};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use datafusion_common::config::ConfigOptions;
use datafusion_common::ScalarValue;
use datafusion_expr::{ColumnarValue, ScalarFunctionArgs, ScalarUDF};
use sluice_kernels::concat::{concat, concat_ws};
use sluice_kernels::digest::{digest_hex, DigestAlgorithm};

const ROWS: usize = 8192;

fn column(len: usize, seed: u64, null_every: usize) -> StringArray {
    let mut x = seed | 1;
    let mut b = StringBuilder::with_capacity(ROWS, ROWS * len);
    let mut s = String::with_capacity(len);
    for i in 0..ROWS {
        if null_every != 0 && (i * 7 + seed as usize).is_multiple_of(null_every) {
            b.append_null();
            continue;
        }
        s.clear();
        for _ in 0..len {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            s.push((b'a' + (x % 26) as u8) as char);
        }
        b.append_value(&s);
    }
    b.finish()
}

/// Calls a DataFusion UDF the way its physical expression does.
fn invoke(udf: &ScalarUDF, args: Vec<ColumnarValue>, ret: DataType, cfg: &Arc<ConfigOptions>) -> ColumnarValue {
    let arg_fields =
        args.iter().enumerate().map(|(i, a)| Arc::new(Field::new(format!("a{i}"), a.data_type(), true))).collect();
    udf.invoke_with_args(ScalarFunctionArgs {
        args,
        arg_fields,
        number_rows: ROWS,
        return_field: Arc::new(Field::new("out", ret, true)),
        config_options: Arc::clone(cfg),
    })
    .unwrap()
}

fn digests(c: &mut Criterion) {
    let cfg = Arc::new(ConfigOptions::default());
    let df_md5 = datafusion_functions::crypto::md5();
    let df_sha256 = datafusion_functions::crypto::sha256();
    let df_encode = datafusion_functions::encoding::encode();
    for len in [16usize, 64, 256] {
        let col = column(len, len as u64, 0);
        let arr: ArrayRef = Arc::new(col.clone());

        let mut g = c.benchmark_group(format!("md5_{len}B_x8192"));
        g.throughput(Throughput::Elements(ROWS as u64));
        g.bench_function("sluice", |b| b.iter(|| digest_hex(black_box(&col), DigestAlgorithm::Md5).unwrap()));
        g.bench_function("datafusion_md5", |b| {
            b.iter(|| {
                invoke(&df_md5, vec![ColumnarValue::Array(Arc::clone(black_box(&arr)))], DataType::Utf8View, &cfg)
            })
        });
        g.finish();

        let mut g = c.benchmark_group(format!("sha256_hex_{len}B_x8192"));
        g.throughput(Throughput::Elements(ROWS as u64));
        g.bench_function("sluice", |b| b.iter(|| digest_hex(black_box(&col), DigestAlgorithm::Sha256).unwrap()));
        g.bench_function("datafusion_encode_sha256_hex", |b| {
            b.iter(|| {
                let bin =
                    invoke(&df_sha256, vec![ColumnarValue::Array(Arc::clone(black_box(&arr)))], DataType::Binary, &cfg);
                invoke(
                    &df_encode,
                    vec![bin, ColumnarValue::Scalar(ScalarValue::Utf8(Some("hex".into())))],
                    DataType::Utf8,
                    &cfg,
                )
            })
        });
        g.finish();
    }
}

fn concats(c: &mut Criterion) {
    let cfg = Arc::new(ConfigOptions::default());
    let df_concat = datafusion_functions::string::concat();
    let df_concat_ws = datafusion_functions::string::concat_ws();
    for len in [16usize, 64, 256] {
        for (tag, null_every) in [("no_nulls", 0usize), ("25pct_null_rows", 4)] {
            let (a, b, d) = (column(len, 1, null_every), column(len, 2, 0), column(len, 3, 0));
            let arrs: Vec<ArrayRef> = vec![Arc::new(a.clone()), Arc::new(b.clone()), Arc::new(d.clone())];
            let cols = [&a, &b, &d];

            let mut g = c.benchmark_group(format!("concat3_{len}B_{tag}"));
            g.throughput(Throughput::Elements(ROWS as u64));
            g.bench_function("sluice", |bn| bn.iter(|| concat(black_box(&[&a as &dyn Datum, &b, &d])).unwrap()));
            g.bench_function("datafusion_concat", |bn| {
                bn.iter(|| {
                    let args = arrs.iter().map(|x| ColumnarValue::Array(Arc::clone(x))).collect();
                    invoke(&df_concat, black_box(args), DataType::Utf8, &cfg)
                })
            });
            g.bench_function("arrow_concat_elements_utf8_many", |bn| {
                bn.iter(|| arrow_string::concat_elements::concat_elements_utf8_many(black_box(&cols)).unwrap())
            });
            g.finish();

            let sep = Scalar::new(StringArray::from(vec![","]));
            let mut g = c.benchmark_group(format!("concat_ws3_{len}B_{tag}"));
            g.throughput(Throughput::Elements(ROWS as u64));
            g.bench_function("sluice", |bn| {
                bn.iter(|| concat_ws(&sep, black_box(&[&a as &dyn Datum, &b, &d])).unwrap())
            });
            g.bench_function("datafusion_concat_ws", |bn| {
                bn.iter(|| {
                    let mut args = vec![ColumnarValue::Scalar(ScalarValue::Utf8(Some(",".into())))];
                    args.extend(arrs.iter().map(|x| ColumnarValue::Array(Arc::clone(x))));
                    invoke(&df_concat_ws, black_box(args), DataType::Utf8, &cfg)
                })
            });
            g.finish();
        }
    }
}

criterion_group!(benches, digests, concats);
criterion_main!(benches);
