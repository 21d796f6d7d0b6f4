//! The one place where the C entry points call into `sluice-kernels`,
//! `sluice-transpose` and `sluice-keyed`. A function whose kernel has not
//! landed in this build returns `SLUICE_ERR_NOT_AVAILABLE` here, so the
//! symbol, its argument checks and its ownership rules exist regardless.

use std::sync::Arc;

use arrow_array::{ArrayRef, Datum, StringArray};
use arrow_buffer::NullBuffer;
use sluice_kernels::{concat as k_concat, digest, encode, search};

use crate::args::Arg;
use crate::error::{FfiError, FfiResult};

/// `MD5`.
pub fn md5(input: &Arg) -> FfiResult<ArrayRef> {
    Ok(digest::md5(input)?)
}

/// `SHA1`.
pub fn sha1(input: &Arg) -> FfiResult<ArrayRef> {
    Ok(digest::sha1(input)?)
}

/// `SHA2`.
pub fn sha2(input: &Arg, width: &Arg) -> FfiResult<ArrayRef> {
    Ok(digest::sha2(input, width)?)
}

/// UTF-16 → UTF-8.
pub fn utf16_to_utf8(units: &[u16], offsets: &[i64], nulls: Option<&NullBuffer>) -> FfiResult<StringArray> {
    Ok(encode::utf16_to_utf8(units, offsets, nulls)?)
}

fn datums<'a>(args: &'a [&'a Arg]) -> Vec<&'a dyn Datum> {
    args.iter().map(|a| *a as &dyn Datum).collect()
}

/// `CONCAT`.
pub fn concat(args: &[&Arg]) -> FfiResult<ArrayRef> {
    Ok(Arc::new(k_concat::concat(&datums(args))?))
}

/// `CONCAT_WS`.
pub fn concat_ws(sep: &Arg, args: &[&Arg]) -> FfiResult<ArrayRef> {
    Ok(Arc::new(k_concat::concat_ws(sep, &datums(args))?))
}

/// `POSITION`.
pub fn position(needle: &Arg, haystack: &Arg) -> FfiResult<ArrayRef> {
    Ok(Arc::new(search::position(needle, haystack)?))
}

/// `LOCATE`.
pub fn locate(needle: &Arg, haystack: &Arg, from: Option<&Arg>) -> FfiResult<ArrayRef> {
    Ok(Arc::new(search::locate(needle, haystack, from.map(|f| f as &dyn Datum))?))
}

/// `LIKE`.
pub fn like(s: &Arg, pattern: &Arg, escape: Option<char>) -> FfiResult<ArrayRef> {
    Ok(Arc::new(search::like(s, pattern, escape)?))
}

/// `REPLACE`.
pub fn replace(s: &Arg, search_for: &Arg, replacement: &Arg) -> FfiResult<ArrayRef> {
    Ok(Arc::new(search::replace(s, search_for, replacement)?))
}

/// `SPLIT_INDEX`.
pub fn split_index(s: &Arg, sep: &Arg, index: &Arg) -> FfiResult<ArrayRef> {
    Ok(Arc::new(search::split_index(s, sep, index)?))
}

/// Rows → struct array (+ RowKind bytes written into `kinds`).
pub fn rows_to_arrow(
    data: &[u8],
    offsets: &[i64],
    schema: &arrow_schema::Field,
    kinds: &mut [i8],
) -> FfiResult<(ArrayRef, arrow_schema::Field)> {
    let _ = (data, offsets, schema, kinds);
    Err(FfiError::not_available("sluice_rows_to_arrow", "sluice-transpose's row converter"))
}

/// Struct array → rows (bytes, `n + 1` offsets).
pub fn arrow_to_rows(
    batch: &ArrayRef,
    schema: &arrow_schema::Field,
    kinds: Option<&[i8]>,
) -> FfiResult<(Vec<u8>, Vec<i64>)> {
    let _ = (batch, schema, kinds);
    Err(FfiError::not_available("sluice_arrow_to_rows", "sluice-transpose's row converter"))
}

/// Key groups and channels per row.
pub fn key_groups(
    batch: &ArrayRef,
    schema: &arrow_schema::Field,
    key_columns: &[i32],
    max_parallelism: i32,
    parallelism: i32,
    out_key_groups: &mut [i32],
    out_channels: &mut [i32],
) -> FfiResult<()> {
    let _ = (batch, schema, key_columns, max_parallelism, parallelism, out_key_groups, out_channels);
    Err(FfiError::not_available("sluice_key_groups", "the keyed crate (branch `keyed`)"))
}
