//! `SHA2(str, width)` with Flink's two width semantics.
//!
//! Flink compiles SHA2 in `StringCallGen.generateSha2`
//! (`PS/codegen/calls/StringCallGen.scala`):
//!
//! - a **literal** width builds one `MessageDigest` at operator start-up in
//!   `CodeGeneratorContext.addReusableSha2MessageDigest`
//!   (`PS/codegen/CodeGeneratorContext.scala`): 224/256/384/512 give
//!   `SHA-<w>`, a NULL literal gives NULL for every row, and any other literal
//!   throws `RuntimeException("Unsupported algorithm.")` before a row is read;
//! - a **column** width calls `BinaryStringDataUtil.hash(str, "SHA-" + width)`
//!   (`TR/data/binary/BinaryStringDataUtil.java`) per row, behind the
//!   any-NULL-argument-gives-NULL guard: the JDK accepts `SHA-1`, `SHA-224`,
//!   `SHA-256`, `SHA-384` and `SHA-512`; any other width with a non-NULL input
//!   fails the task with the JDK's `SHA-<w> MessageDigest not available`.
//!
//! Both were confirmed on real Flink 2.2.1 and 1.20.5 (flink-formats.md §11).

use arrow_array::cast::AsArray;
use arrow_array::types::Int32Type;
use arrow_array::{Array, Datum, Int32Array, StringArray};
use arrow_buffer::NullBuffer;
use arrow_schema::DataType;

use super::column::{all_null, finish};
use super::oneshot::{digest_into, MAX_DIGEST};
use super::{digest_hex, DigestAlgorithm};
use crate::error::{invalid_arg, Error, Result};
use crate::input::{check_i32_offsets, ByteColumn};

/// The algorithm of a SHA2 width literal (`addReusableSha2MessageDigest`).
fn literal_algorithm(width: i32) -> Result<DigestAlgorithm> {
    match width {
        224 => Ok(DigestAlgorithm::Sha224),
        256 => Ok(DigestAlgorithm::Sha256),
        384 => Ok(DigestAlgorithm::Sha384),
        512 => Ok(DigestAlgorithm::Sha512),
        _ => Err(Error::Flink("Unsupported algorithm.".to_owned())),
    }
}

/// The algorithm `MessageDigest.getInstance("SHA-" + width)` returns.
#[inline]
fn column_algorithm(width: i32) -> Option<DigestAlgorithm> {
    match width {
        1 => Some(DigestAlgorithm::Sha1),
        224 => Some(DigestAlgorithm::Sha224),
        256 => Some(DigestAlgorithm::Sha256),
        384 => Some(DigestAlgorithm::Sha384),
        512 => Some(DigestAlgorithm::Sha512),
        _ => None,
    }
}

/// The JDK `NoSuchAlgorithmException` message Flink's task fails with.
fn not_available(width: i32) -> Error {
    Error::Flink(format!("SHA-{width} MessageDigest not available"))
}

/// Unpacks a datum, checking that a scalar has exactly one row.
pub(super) fn datum<'a>(d: &'a dyn Datum, what: &str) -> Result<(&'a dyn Array, bool)> {
    let (a, scalar) = d.get();
    if scalar && a.len() != 1 {
        return Err(invalid_arg(format!("{what}: a scalar must have 1 row, got {}", a.len())));
    }
    Ok((a, scalar))
}

/// See [`super::sha2`].
pub(super) fn sha2(input: &dyn Datum, width: &dyn Datum) -> Result<StringArray> {
    let (input, input_scalar) = datum(input, "sha2 input")?;
    let (width, width_scalar) = datum(width, "sha2 width")?;
    let widths: Option<&Int32Array> = match width.data_type() {
        DataType::Int32 => Some(width.as_primitive::<Int32Type>()),
        DataType::Null => None,
        other => return Err(invalid_arg(format!("sha2 width: expected Int32, got {other}"))),
    };

    if width_scalar {
        // Literal width: decided once, before any row (and even with none).
        let lit = widths.filter(|w| w.is_valid(0)).map(|w| w.value(0));
        return match lit {
            None => {
                // Still reject an input type SHA2 could never take.
                crate::with_byte_column!(input, true, |_c| Ok(all_null(input.len())))
            }
            Some(w) => digest_hex(input, literal_algorithm(w)?),
        };
    }

    // Width column: one width per row.
    let n = width.len();
    if !input_scalar && input.len() != n {
        return Err(invalid_arg(format!(
            "sha2: input has {} rows but the width column has {n}",
            input.len()
        )));
    }
    let Some(widths) = widths else {
        return crate::with_byte_column!(input, true, |_c| Ok(all_null(n)));
    };
    crate::with_byte_column!(input, true, |col| if input_scalar {
        mixed::<_, true>(col, widths)
    } else {
        mixed::<_, false>(col, widths)
    })
}

/// Per-row widths. With `BROADCAST` the input is a one-row scalar applied to
/// every width.
fn mixed<C: ByteColumn, const BROADCAST: bool>(col: &C, widths: &Int32Array) -> Result<StringArray> {
    let n = widths.len();
    let input_nulls = if BROADCAST {
        if col.is_null(0) {
            // NULL input: NULL whatever the width (ArgsNotNull guard runs
            // before `MessageDigest.getInstance`).
            return Ok(all_null(n));
        }
        None
    } else {
        col.nulls()
    };
    let nulls = NullBuffer::union(input_nulls, widths.nulls()).filter(|nb| nb.null_count() > 0);
    let w = widths.values();

    // Pass 1: check every width that meets a non-NULL input, and lay out the
    // offsets of the surviving digests.
    let mut offsets: Vec<i32> = Vec::with_capacity(n + 1);
    offsets.push(0);
    let mut total = 0usize;
    for (i, &wi) in w.iter().enumerate() {
        if nulls.as_ref().is_none_or(|nb| nb.is_valid(i)) {
            let alg = column_algorithm(wi).ok_or_else(|| not_available(wi))?;
            total += alg.hex_len();
        }
        // Truncation is harmless: `total` is checked before the buffer is
        // used, and it only grows.
        offsets.push(total as i32);
    }
    check_i32_offsets(total)?;

    // Pass 2: hash into the one values allocation.
    let mut values: Vec<u8> = Vec::with_capacity(total);
    let dst = values.as_mut_ptr();
    let mut digest = [0u8; MAX_DIGEST];
    for (i, &wi) in w.iter().enumerate() {
        let (start, end) = (offsets[i] as usize, offsets[i + 1] as usize);
        if start == end {
            continue;
        }
        let Some(alg) = column_algorithm(wi) else { continue };
        let data = col.bytes(if BROADCAST { 0 } else { i });
        let len = digest_into(alg, data, &mut digest);
        debug_assert_eq!(2 * len, end - start);
        // SAFETY: `[start, end)` lies inside the capacity `total` and is
        // exactly `2 * len` bytes (pass 1 reserved `alg.hex_len()` for it).
        unsafe { crate::hex::encode_lower_raw(digest.as_ptr(), len, dst.add(start)) };
    }
    // SAFETY: the non-empty row ranges tile `[0, total)` and each was written.
    unsafe { values.set_len(total) };
    Ok(finish(offsets, values, nulls))
}
