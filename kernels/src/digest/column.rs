//! The per-batch writer: one offsets allocation, one exactly sized values
//! allocation, each digest on the stack and its hex written in place.

use std::sync::Arc;

use arrow_array::{Array, StringArray};
use arrow_buffer::{Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};

use super::algorithm::DigestAlgorithm;
use super::hasher::{Md5, OneShot, Sha1, Sha224, Sha256, Sha384, Sha512};
use crate::error::Result;
use crate::input::{check_i32_offsets, ByteColumn};

/// Lowercase hex digest of every row of `input`.
///
/// `input` may be `Utf8`, `LargeUtf8`, `Utf8View`, `Binary`, `LargeBinary` or
/// `BinaryView`; the bytes are hashed as stored. NULL rows give NULL. The
/// output always has offset 0 and the input's (sliced) NULL mask.
///
/// # Errors
///
/// [`Error::InvalidArgument`](crate::Error::InvalidArgument) for any other input type;
/// [`Error::OffsetOverflow`](crate::Error::OffsetOverflow) if the hex of all non-NULL rows would exceed
/// `i32::MAX` bytes.
///
/// # Performance
///
/// Two allocations per call (offsets, values), none per row; see the
/// [module docs](super).
pub fn digest_hex(input: &dyn Array, alg: DigestAlgorithm) -> Result<StringArray> {
    crate::with_byte_column!(input, true, |col| match alg {
        DigestAlgorithm::Md5 => hex_column::<_, Md5>(col),
        DigestAlgorithm::Sha1 => hex_column::<_, Sha1>(col),
        DigestAlgorithm::Sha224 => hex_column::<_, Sha224>(col),
        DigestAlgorithm::Sha256 => hex_column::<_, Sha256>(col),
        DigestAlgorithm::Sha384 => hex_column::<_, Sha384>(col),
        DigestAlgorithm::Sha512 => hex_column::<_, Sha512>(col),
    })
}

/// Hashes every non-NULL row of `col` with `H` into a `Utf8` array of
/// lowercase hex. NULL rows stay NULL and take no value bytes.
fn hex_column<C: ByteColumn, H: OneShot>(col: &C) -> Result<StringArray> {
    let n = col.len();
    let nulls = col.nulls().filter(|nb| nb.null_count() > 0).cloned();
    let valid = n - nulls.as_ref().map_or(0, NullBuffer::null_count);
    let total = valid.saturating_mul(H::HEX_LEN);
    check_i32_offsets(total)?;
    if H::prefer_many(valid) {
        return Ok(hex_column_many::<C, H>(col, nulls, total));
    }

    let mut offsets: Vec<i32> = Vec::with_capacity(n + 1);
    let mut values: Vec<u8> = Vec::with_capacity(total);
    let dst = values.as_mut_ptr();
    match &nulls {
        None => {
            // Offsets are arithmetic: every row is HEX_LEN bytes, and
            // `total <= i32::MAX` bounds every product.
            offsets.extend((0..=n).map(|i| (i * H::HEX_LEN) as i32));
            for i in 0..n {
                // SAFETY: `values` has capacity `n * HEX_LEN`; row `i` writes
                // `[i * HEX_LEN, (i + 1) * HEX_LEN)`.
                unsafe { H::hash_hex(col.bytes(i), dst.add(i * H::HEX_LEN)) };
            }
        }
        Some(nb) => {
            offsets.push(0);
            let mut pos = 0usize;
            for i in 0..n {
                if nb.is_valid(i) {
                    // SAFETY: at most `valid` rows are written, each
                    // HEX_LEN bytes, so `pos + HEX_LEN <= total <= capacity`.
                    unsafe { H::hash_hex(col.bytes(i), dst.add(pos)) };
                    pos += H::HEX_LEN;
                }
                offsets.push(pos as i32);
            }
        }
    }
    // SAFETY: every byte of `[0, total)` was written above (the valid rows
    // tile it exactly).
    unsafe { values.set_len(total) };
    Ok(finish(offsets, values, nulls))
}

/// [`hex_column`] through the multi-buffer path: the offsets first (so each
/// row's place is known), then the rows hashed many at once, each digest's
/// hex written at its row's offset as its lane finishes.
///
/// `total` is the checked value length (`HEX_LEN` × non-NULL rows).
fn hex_column_many<C: ByteColumn, H: OneShot>(col: &C, nulls: Option<NullBuffer>, total: usize) -> StringArray {
    let n = col.len();
    let mut offsets: Vec<i32> = Vec::with_capacity(n + 1);
    match &nulls {
        // `total <= i32::MAX` bounds every offset.
        None => offsets.extend((0..=n).map(|i| (i * H::HEX_LEN) as i32)),
        Some(nb) => {
            offsets.push(0);
            let mut pos = 0usize;
            for i in 0..n {
                pos += if nb.is_valid(i) { H::HEX_LEN } else { 0 };
                offsets.push(pos as i32);
            }
        }
    }
    // Zeroed, so that the buffer is initialised whatever order the lanes
    // finish in (the memset is small next to the hashing).
    let mut values = vec![0u8; total];
    let valid = |i: usize| nulls.as_ref().is_none_or(|nb| nb.is_valid(i));
    H::hash_many(
        n,
        |i| valid(i).then(|| col.bytes(i)),
        |i, d| {
            debug_assert_eq!(2 * d.len(), H::HEX_LEN);
            let start = offsets.get(i).map_or(0, |&o| o as usize);
            if let Some(dst) = values.get_mut(start..start + 2 * d.len()) {
                // SAFETY: `dst` holds exactly `2 * d.len()` writable bytes
                // and does not overlap `d` (a stack digest).
                unsafe { crate::hex::encode_lower_raw(d.as_ptr(), d.len(), dst.as_mut_ptr()) };
            }
        },
    );
    finish(offsets, values, nulls)
}

/// Assembles the output array from buffers the caller filled.
///
/// The caller guarantees: `offsets` starts at 0, is non-decreasing, ends at
/// `values.len() <= i32::MAX`, has `len + 1` entries where `len` is the length
/// of `nulls` (if any), and `values` is ASCII hex (valid UTF-8).
pub(super) fn finish(offsets: Vec<i32>, values: Vec<u8>, nulls: Option<NullBuffer>) -> StringArray {
    debug_assert_eq!(offsets.first().copied(), Some(0));
    debug_assert_eq!(offsets.last().map(|&o| o as usize), Some(values.len()));
    debug_assert!(nulls.as_ref().is_none_or(|nb| nb.len() + 1 == offsets.len()));
    debug_assert!(values.is_ascii());
    // SAFETY: see the caller contract above: the offsets are valid for the
    // values, the values are ASCII, and the NULL mask has one bit per row.
    unsafe {
        StringArray::new_unchecked(
            OffsetBuffer::new_unchecked(ScalarBuffer::from(offsets)),
            Buffer::from_vec(values),
            nulls,
        )
    }
}

/// An all-NULL `Utf8` array of `len` rows (offsets allocated once, no values).
pub(super) fn all_null(len: usize) -> StringArray {
    StringArray::new_null(len)
}

/// Convenience for the `ArrayRef` entry points.
pub(super) fn arc(a: StringArray) -> arrow_array::ArrayRef {
    Arc::new(a)
}
