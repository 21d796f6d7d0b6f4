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
//! Both were confirmed on real Flink 2.2.1 and 1.20.5 (docs/flink-semantics.md §11).

use arrow_array::cast::AsArray;
use arrow_array::types::Int32Type;
use arrow_array::{Array, Datum, Int32Array, StringArray};
use arrow_buffer::NullBuffer;
use arrow_schema::DataType;

use super::algorithm::DigestAlgorithm;
use super::column::{all_null, digest_hex, finish};
use super::hasher::{digest_into, Md5, OneShot, Sha1, Sha224, Sha256, Sha384, Sha512};
use super::oneshot::MAX_DIGEST;
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
        return Err(invalid_arg(format!("sha2: input has {} rows but the width column has {n}", input.len())));
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

    // Pass 2: hash into the one values allocation, one algorithm at a time
    // so that each runs in its vector lanes (multi-buffer) where that wins;
    // a scalar input is hashed once per algorithm and its hex copied.
    let mut values: Vec<u8> = vec![0u8; total];
    let valid = |i: usize| nulls.as_ref().is_none_or(|nb| nb.is_valid(i));
    for alg in [
        DigestAlgorithm::Sha1,
        DigestAlgorithm::Sha224,
        DigestAlgorithm::Sha256,
        DigestAlgorithm::Sha384,
        DigestAlgorithm::Sha512,
    ] {
        let rows = |i: usize| {
            let hit = w.get(i).is_some_and(|&wi| column_algorithm(wi) == Some(alg)) && valid(i);
            hit.then(|| col.bytes(if BROADCAST { 0 } else { i }))
        };
        if BROADCAST {
            fill_broadcast(alg, col.bytes(0), n, &rows, &offsets, &mut values);
        } else {
            fill_lanes(alg, n, &rows, &offsets, &mut values);
        }
    }
    Ok(finish(offsets, values, nulls))
}

/// Writes the hex digest of every row `rows` selects into its slot
/// `values[offsets[i]..offsets[i + 1]]`, through the algorithm's
/// multi-buffer or single-stream path (whichever wins for that many rows).
fn fill_lanes<'a>(
    alg: DigestAlgorithm,
    n: usize,
    rows: &impl Fn(usize) -> Option<&'a [u8]>,
    offsets: &[i32],
    values: &mut [u8],
) {
    fn run<'a, H: OneShot>(n: usize, rows: &impl Fn(usize) -> Option<&'a [u8]>, offsets: &[i32], values: &mut [u8]) {
        let count = (0..n).filter(|&i| rows(i).is_some()).count();
        if count == 0 {
            return;
        }
        let put = |i: usize, d: &[u8]| {
            let start = offsets.get(i).map_or(0, |&o| o as usize);
            if let Some(dst) = values.get_mut(start..start + 2 * d.len()) {
                // SAFETY: `dst` holds exactly `2 * d.len()` writable bytes and
                // does not overlap `d` (a stack digest).
                unsafe { crate::hex::encode_lower_raw(d.as_ptr(), d.len(), dst.as_mut_ptr()) };
            }
        };
        if H::prefer_many(count) {
            H::hash_many(n, rows, put);
        } else {
            for i in 0..n {
                let Some(data) = rows(i) else { continue };
                let start = offsets.get(i).map_or(0, |&o| o as usize);
                if let Some(dst) = values.get_mut(start..start + H::HEX_LEN) {
                    // SAFETY: `dst` holds exactly `HEX_LEN` writable bytes.
                    unsafe { H::hash_hex(data, dst.as_mut_ptr()) };
                }
            }
        }
    }
    match alg {
        DigestAlgorithm::Md5 => run::<Md5>(n, rows, offsets, values),
        DigestAlgorithm::Sha1 => run::<Sha1>(n, rows, offsets, values),
        DigestAlgorithm::Sha224 => run::<Sha224>(n, rows, offsets, values),
        DigestAlgorithm::Sha256 => run::<Sha256>(n, rows, offsets, values),
        DigestAlgorithm::Sha384 => run::<Sha384>(n, rows, offsets, values),
        DigestAlgorithm::Sha512 => run::<Sha512>(n, rows, offsets, values),
    }
}

/// [`fill_lanes`] for a scalar input: one digest, its hex copied into every
/// selected row's slot.
fn fill_broadcast<'a>(
    alg: DigestAlgorithm,
    data: &[u8],
    n: usize,
    rows: &impl Fn(usize) -> Option<&'a [u8]>,
    offsets: &[i32],
    values: &mut [u8],
) {
    let mut digest = [0u8; MAX_DIGEST];
    let mut hex = [0u8; 2 * MAX_DIGEST];
    let mut ready = 0usize;
    for i in 0..n {
        if rows(i).is_none() {
            continue;
        }
        if ready == 0 {
            let len = digest_into(alg, data, &mut digest);
            ready = 2 * len;
            // SAFETY: `hex` has room for `2 * MAX_DIGEST >= 2 * len` bytes.
            unsafe { crate::hex::encode_lower_raw(digest.as_ptr(), len, hex.as_mut_ptr()) };
        }
        let start = offsets.get(i).map_or(0, |&o| o as usize);
        if let (Some(dst), Some(src)) = (values.get_mut(start..start + ready), hex.get(..ready)) {
            dst.copy_from_slice(src);
        }
    }
}
