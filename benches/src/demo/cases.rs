//! The demo's cases: each kernel beside an independent, plainly written
//! reference over the same generated batches.

use std::sync::Arc;

use arrow_array::builder::StringBuilder;
use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, Datum, Int32Array, Scalar, StringArray};
use md5::{Digest, Md5};
use sha2::Sha256;

use super::{rows_of, Case, Config};
use sluice_benches::data::{self, Text, Utf16Batch};

pub fn all(cfg: &Config) -> Vec<Case> {
    let mut cases = Vec::new();
    encode_cases(cfg, &mut cases);
    digest_cases(cfg, &mut cases);
    concat_cases(cfg, &mut cases);
    super::transpose::cases(cfg, &mut cases);
    cases
}

fn string_bytes(batches: &[ArrayRef]) -> u64 {
    batches.iter().map(|a| a.as_string::<i32>().values().len() as u64).sum()
}

fn encode_cases(cfg: &Config, cases: &mut Vec<Case>) {
    for (label, kind, len) in
        [("ascii", Text::Ascii, 64usize), ("ascii", Text::Ascii, 256), ("mixed 2/3-byte", Text::Mixed, 64)]
    {
        let batches = Arc::new(data::utf16_batches(11, cfg.rows, cfg.batch, len, kind));
        let bytes = batches.iter().map(|b| 2 * b.units.len() as u64).sum();
        let (b1, b2) = (batches.clone(), batches.clone());
        cases.push(Case {
            name: format!("utf16->utf8 {label}, {len} units"),
            reference_name: "decode_utf16 + encode_utf8 per row",
            batches: batches.len(),
            rows: cfg.rows,
            bytes,
            kernel: Box::new(move |i| {
                let b = &b1[i];
                Arc::new(sluice_kernels::encode::utf16_to_utf8(&b.units, &b.offsets, None).expect("valid offsets"))
            }),
            reference: Box::new(move |i| naive_utf16(&b2[i])),
        });
    }
    for (label, kind) in [("runs of 8", Text::Runs), ("distinct", Text::Distinct)] {
        let batches = Arc::new(data::utf16_batches(12, cfg.rows, cfg.batch, 64, kind));
        let bytes = batches.iter().map(|b| 2 * b.units.len() as u64).sum();
        let (b1, b2) = (batches.clone(), batches.clone());
        let mut cache = sluice_kernels::encode::CachedEncoder::new();
        cases.push(Case {
            name: format!("encode cache, {label}, 64 units"),
            reference_name: "plain sluice encode",
            batches: batches.len(),
            rows: cfg.rows,
            bytes,
            kernel: Box::new(move |i| {
                let b = &b1[i];
                Arc::new(
                    sluice_kernels::encode::utf16_to_utf8_cached(&b.units, &b.offsets, None, &mut cache)
                        .expect("valid offsets"),
                )
            }),
            reference: Box::new(move |i| {
                let b = &b2[i];
                Arc::new(sluice_kernels::encode::utf16_to_utf8(&b.units, &b.offsets, None).expect("valid offsets"))
            }),
        });
    }
}

/// Flink's encoding written plainly: each unpaired surrogate becomes `?`.
fn naive_utf16(b: &Utf16Batch) -> ArrayRef {
    let mut builder = StringBuilder::new();
    let mut s = String::new();
    for w in b.offsets.windows(2) {
        s.clear();
        for c in char::decode_utf16(b.units[w[0] as usize..w[1] as usize].iter().copied()) {
            s.push(c.unwrap_or('?'));
        }
        builder.append_value(&s);
    }
    Arc::new(builder.finish())
}

fn digest_cases(cfg: &Config, cases: &mut Vec<Case>) {
    type Kernel = fn(&dyn Datum) -> sluice_kernels::Result<ArrayRef>;
    type Reference = fn(&ArrayRef) -> ArrayRef;
    let algorithms: [(&str, &'static str, Kernel, Reference); 2] = [
        ("md5", "md-5 + hex::encode per row", sluice_kernels::digest::md5, naive_digest::<Md5>),
        ("sha256", "sha2 + hex::encode per row", sluice_kernels::digest::sha256, naive_digest::<Sha256>),
    ];
    for len in [16usize, 64] {
        let batches = Arc::new(data::ascii_batches(21, cfg.rows, cfg.batch, len, 0));
        let bytes = string_bytes(&batches);
        for (alg, reference_name, kernel, reference) in algorithms {
            let (b1, b2) = (batches.clone(), batches.clone());
            cases.push(Case {
                name: format!("{alg} hex, {len} B"),
                reference_name,
                batches: batches.len(),
                rows: rows_of(&batches),
                bytes,
                kernel: Box::new(move |i| kernel(&b1[i]).expect("utf8 input")),
                reference: Box::new(move |i| reference(&b2[i])),
            });
        }
    }
    let batches = Arc::new(data::ascii_batches(22, cfg.rows, cfg.batch, 64, 10));
    let sizes: Vec<usize> = batches.iter().map(|a| a.len()).collect();
    let widths = Arc::new(data::width_batches(23, &sizes));
    let bytes = string_bytes(&batches);
    let (b1, b2, w1, w2) = (batches.clone(), batches.clone(), widths.clone(), widths.clone());
    cases.push(Case {
        name: "sha2 hex, width column, 64 B, 10% NULL".into(),
        reference_name: "sha2 per row by width",
        batches: batches.len(),
        rows: rows_of(&batches),
        bytes,
        kernel: Box::new(move |i| sluice_kernels::digest::sha2(&b1[i], &w1[i]).expect("valid widths")),
        reference: Box::new(move |i| naive_sha2(&b2[i], &w2[i])),
    });
}

fn naive_digest<D: Digest>(a: &ArrayRef) -> ArrayRef {
    let a = a.as_string::<i32>();
    let mut builder = StringBuilder::new();
    for v in a.iter() {
        match v {
            Some(s) => builder.append_value(hex::encode(D::digest(s.as_bytes()))),
            None => builder.append_null(),
        }
    }
    Arc::new(builder.finish())
}

fn naive_sha2(a: &ArrayRef, w: &ArrayRef) -> ArrayRef {
    let a = a.as_string::<i32>();
    let w = w.as_any().downcast_ref::<Int32Array>().expect("Int32 widths");
    let mut builder = StringBuilder::new();
    for (v, w) in a.iter().zip(w.iter()) {
        match (v, w) {
            (Some(s), Some(w)) => builder.append_value(match w {
                224 => hex::encode(sha2::Sha224::digest(s)),
                256 => hex::encode(sha2::Sha256::digest(s)),
                384 => hex::encode(sha2::Sha384::digest(s)),
                _ => hex::encode(sha2::Sha512::digest(s)),
            }),
            _ => builder.append_null(),
        }
    }
    Arc::new(builder.finish())
}

/// Batch `i` of each column, as kernel arguments.
fn datums(cols: &[Vec<ArrayRef>], i: usize) -> Vec<&dyn Datum> {
    cols.iter().map(|b| &b[i] as &dyn Datum).collect()
}

/// Batch `i` of each column, as strings.
fn strings(cols: &[Vec<ArrayRef>], i: usize) -> Vec<&StringArray> {
    cols.iter().map(|b| b[i].as_string::<i32>()).collect()
}

fn concat_cases(cfg: &Config, cases: &mut Vec<Case>) {
    for (len, nulls) in [(16usize, 0u64), (16, 25), (64, 0), (64, 25), (256, 0), (256, 25)] {
        let cols: Arc<Vec<Vec<ArrayRef>>> =
            Arc::new((0..3).map(|c| data::ascii_batches(31 + c, cfg.rows, cfg.batch, len, nulls / 3)).collect());
        let bytes = cols.iter().map(|b| string_bytes(b)).sum();
        let (c1, c2) = (cols.clone(), cols.clone());
        cases.push(Case {
            name: format!("concat 3 x {len} B, {nulls}% NULL rows"),
            reference_name: "arrow-rs concat_elements_utf8_many",
            batches: cols[0].len(),
            rows: rows_of(&cols[0]),
            bytes,
            kernel: Box::new(move |i| {
                let args = datums(&c1, i);
                Arc::new(sluice_kernels::concat::concat(&args).expect("utf8 input"))
            }),
            reference: Box::new(move |i| {
                let arrays = strings(&c2, i);
                Arc::new(arrow_string::concat_elements::concat_elements_utf8_many(&arrays).expect("same lengths"))
            }),
        });
        let (c1, c2) = (cols.clone(), cols.clone());
        let sep = Scalar::new(StringArray::from(vec![","]));
        cases.push(Case {
            name: format!("concat_ws 3 x {len} B, {nulls}% NULL args"),
            reference_name: "String join of non-NULL args per row",
            batches: cols[0].len(),
            rows: rows_of(&cols[0]),
            bytes,
            kernel: Box::new(move |i| {
                let args = datums(&c1, i);
                Arc::new(sluice_kernels::concat::concat_ws(&sep, &args).expect("utf8 input"))
            }),
            reference: Box::new(move |i| {
                let arrays = strings(&c2, i);
                let mut builder = StringBuilder::new();
                let mut parts: Vec<&str> = Vec::with_capacity(arrays.len());
                for r in 0..arrays[0].len() {
                    parts.clear();
                    parts.extend(arrays.iter().filter(|a| a.is_valid(r)).map(|a| a.value(r)));
                    builder.append_value(parts.join(","));
                }
                Arc::new(builder.finish())
            }),
        });
    }
}
