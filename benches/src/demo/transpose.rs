//! Demo cases for the entry transpose: Flink `BinaryRowData` rows of
//! (BIGINT, VARCHAR) into Arrow, beside a row decoder written plainly from
//! the layout in Flink's `BinaryRowData` / `BinarySegmentUtils`.

use std::sync::Arc;

use arrow_array::builder::StringBuilder;
use arrow_array::{ArrayRef, Int64Array, RecordBatch};
use arrow_schema::{DataType, Field, Schema};
use sluice_transpose::{NullLayout, RowConverter, Rows};

use super::{Case, Config};
use sluice_benches::data;

/// Bytes of the null-bit region of a row of `arity` fields
/// (`BinaryRowData.calculateBitSetWidthInBytes`).
fn null_bits_width(arity: usize) -> usize {
    (arity + 63 + 8) / 64 * 8
}

/// Rows of (BIGINT NOT NULL, VARCHAR) decoded plainly: the RowKind byte, the
/// BIGINT slot, and the VARCHAR with its null bit (`field + 8`); a slot with
/// bit 63 set holds up to 7 bytes inline, otherwise `(offset << 32) | len`
/// from the row start. Returns the VARCHAR column (the BIGINTs and kinds are
/// decoded too, so both sides do the same work).
fn naive_varchar(rows: &Rows, field: usize, arity: usize) -> ArrayRef {
    let mut builder = StringBuilder::new();
    let mut ids = Vec::with_capacity(rows.offsets.len());
    let mut kinds = Vec::with_capacity(rows.offsets.len());
    let nb = null_bits_width(arity);
    let slot_at = nb + 8 * field;
    for w in rows.offsets.windows(2) {
        let row = &rows.data[w[0] as usize..w[1] as usize];
        kinds.push(row[0]);
        ids.push(i64::from_le_bytes(row[nb..nb + 8].try_into().expect("8-byte slot")));
        let bit = field + 8;
        if row[bit / 8] >> (bit % 8) & 1 == 1 {
            builder.append_null();
            continue;
        }
        let slot = &row[slot_at..slot_at + 8];
        let word = u64::from_le_bytes(slot.try_into().expect("8-byte slot"));
        let bytes = if word >> 63 == 1 {
            &slot[..((word >> 56) & 0x7f) as usize]
        } else {
            let (off, len) = ((word >> 32) as usize, (word & 0xffff_ffff) as usize);
            &row[off..off + len]
        };
        builder.append_value(std::str::from_utf8(bytes).expect("Flink rows hold UTF-8 here"));
    }
    std::hint::black_box((ids, kinds));
    Arc::new(builder.finish())
}

pub fn cases(cfg: &Config, cases: &mut Vec<Case>) {
    let schema =
        Arc::new(Schema::new(vec![Field::new("id", DataType::Int64, false), Field::new("name", DataType::Utf8, true)]));
    let converter = Arc::new(RowConverter::new(schema.clone()).expect("a supported schema"));
    for len in [16usize, 64] {
        let strings = data::ascii_batches(41, cfg.rows, cfg.batch, len, 5);
        // The input rows are written by the exit transpose once, up front.
        let rows: Arc<Vec<Rows>> = Arc::new(
            strings
                .iter()
                .enumerate()
                .map(|(b, s)| {
                    let ids = Int64Array::from_iter_values((0..s.len() as i64).map(|i| i + (b * cfg.batch) as i64));
                    let batch =
                        RecordBatch::try_new(schema.clone(), vec![Arc::new(ids), s.clone()]).expect("schema matches");
                    converter.batch_to_rows(&batch, None, NullLayout::Serializer).expect("rows")
                })
                .collect(),
        );
        let bytes = rows.iter().map(|r| r.data.len() as u64).sum();
        let (r1, r2, conv) = (rows.clone(), rows.clone(), converter.clone());
        cases.push(Case {
            name: format!("entry transpose (BIGINT, VARCHAR {len} B)"),
            reference_name: "plain per-row decoder + StringBuilder",
            batches: rows.len(),
            rows: cfg.rows,
            bytes,
            kernel: Box::new(move |i| {
                let (batch, _kinds) = conv.rows_to_batch(&r1[i].data, &r1[i].offsets).expect("valid rows");
                batch.column(1).clone()
            }),
            reference: Box::new(move |i| naive_varchar(&r2[i], 1, 2)),
        });
    }
}
