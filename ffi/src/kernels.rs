//! The one place where the C entry points call into `sluice-kernels`,
//! `sluice-transpose` and `sluice-keyed`. A function whose kernel has not
//! landed in this build returns `SLUICE_ERR_NOT_AVAILABLE` here, so the
//! symbol, its argument checks and its ownership rules exist regardless.

use arrow_array::{ArrayRef, StringArray};
use arrow_buffer::NullBuffer;

use crate::args::Arg;
use crate::error::{FfiError, FfiResult};

/// `MD5`.
pub fn md5(input: &Arg) -> FfiResult<ArrayRef> {
    let _ = input;
    Err(FfiError::not_available("MD5", "sluice_kernels::digest"))
}

/// `SHA1`.
pub fn sha1(input: &Arg) -> FfiResult<ArrayRef> {
    let _ = input;
    Err(FfiError::not_available("SHA1", "sluice_kernels::digest"))
}

/// `SHA2`.
pub fn sha2(input: &Arg, width: &Arg) -> FfiResult<ArrayRef> {
    let _ = (input, width);
    Err(FfiError::not_available("SHA2", "sluice_kernels::digest"))
}

/// UTF-16 → UTF-8.
pub fn utf16_to_utf8(units: &[u16], offsets: &[i64], nulls: Option<&NullBuffer>) -> FfiResult<StringArray> {
    let _ = (units, offsets, nulls);
    Err(FfiError::not_available("UTF-16 to UTF-8", "sluice_kernels::encode"))
}

/// `CONCAT`.
pub fn concat(args: &[&Arg]) -> FfiResult<ArrayRef> {
    let _ = args;
    Err(FfiError::not_available("CONCAT", "sluice_kernels::concat"))
}

/// `CONCAT_WS`.
pub fn concat_ws(sep: &Arg, args: &[&Arg]) -> FfiResult<ArrayRef> {
    let _ = (sep, args);
    Err(FfiError::not_available("CONCAT_WS", "sluice_kernels::concat"))
}

/// `POSITION`.
pub fn position(needle: &Arg, haystack: &Arg) -> FfiResult<ArrayRef> {
    let _ = (needle, haystack);
    Err(FfiError::not_available("POSITION", "sluice_kernels::search"))
}

/// `LOCATE`.
pub fn locate(needle: &Arg, haystack: &Arg, from: Option<&Arg>) -> FfiResult<ArrayRef> {
    let _ = (needle, haystack, from);
    Err(FfiError::not_available("LOCATE", "sluice_kernels::search"))
}

/// `LIKE`.
pub fn like(s: &Arg, pattern: &Arg, escape: Option<char>) -> FfiResult<ArrayRef> {
    let _ = (s, pattern, escape);
    Err(FfiError::not_available("LIKE", "sluice_kernels::search"))
}

/// `REPLACE`.
pub fn replace(s: &Arg, search: &Arg, replacement: &Arg) -> FfiResult<ArrayRef> {
    let _ = (s, search, replacement);
    Err(FfiError::not_available("REPLACE", "sluice_kernels::search"))
}

/// `SPLIT_INDEX`.
pub fn split_index(s: &Arg, sep: &Arg, index: &Arg) -> FfiResult<ArrayRef> {
    let _ = (s, sep, index);
    Err(FfiError::not_available("SPLIT_INDEX", "sluice_kernels::search"))
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
