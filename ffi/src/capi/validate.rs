//! Validation of arrays imported over the C Data Interface: what the
//! library checks before a kernel reads an input, and how cheaply.
//!
//! What is validated, and why:
//!
//! | input | checked | why |
//! | --- | --- | --- |
//! | every array | structure against its type (`arrow_c::check_array`), buffer sizes against length and offset (`ArrayData::validate`), NULL count | memory safety: every later read is in bounds |
//! | offsets of `Binary`, `LargeBinary`, `Utf8`, `LargeUtf8` | first ≥ 0, never decreasing, last ≤ values length: one branch-free pass that the compiler vectorises | memory safety: kernels slice values by offsets without re-checking |
//! | views of `Utf8View` / `BinaryView` | each view within its buffer (arrow-rs) | memory safety |
//! | UTF-8 of string inputs that a kernel reads as text (the search kernels, string fields of row batches), and of binary columns read as strings (by `flink.type`) | one `simdutf8` pass over the values span plus a character-boundary check per offset (`sluice_kernels::validate`) | search kernels count and match characters (std's character decoding assumes complete sequences); a binary column promises nothing |
//! | UTF-8 of `Utf8` inputs of CONCAT / CONCAT_WS | not checked (`arrow_c::import_copied_strings`) | the kernel copies whole values as bytes, so it is memory-safe on any bytes, and its output is as much UTF-8 as its inputs: the producer's promise for a declared `Utf8` type (the Arrow format's rule, which arrow-rs and Arrow C++ importers also trust) carries over to the output; re-checking it cost as much as the copy itself |
//! | UTF-8 of digest inputs (MD5, SHA1, SHA2) | not checked (`arrow_c::import_bytes`) | a digest reads bytes (Flink hashes a string's bytes) and its hex output is UTF-8 whatever the input; Binary inputs are accepted as they are |
//!
//! What cannot be validated: that the buffers really hold what the lengths
//! and offsets claim (the C Data Interface contract).
//!
//! Compared with `ArrayData::validate_full`, the byte-array layouts skip
//! arrow-rs's per-offset iterator (a bounds and order check with an error
//! path per value) and, for `Utf8` children of nested arrays,
//! `std::str::from_utf8` plus a `is_char_boundary` per offset; other types
//! are validated by arrow-rs as before.

use arrow_array::make_array;
use arrow_buffer::ArrowNativeType;
use arrow_data::ArrayData;
use arrow_schema::DataType;

use crate::capi::error::{sluice_status, FfiError, FfiResult};

fn invalid_arrow(what: &str, message: impl std::fmt::Display) -> FfiError {
    FfiError::new(sluice_status::SLUICE_ERR_INVALID_ARROW, format!("{what}: {message}"))
}

/// Fully validates `data` and its children (see the module docs).
///
/// # Errors
/// `SLUICE_ERR_INVALID_ARROW` for a structure, an offset or a view out of
/// bounds, `SLUICE_ERR_INVALID_UTF8` for invalid UTF-8 in a nested `Utf8`
/// child (top-level strings are imported as their binary twin and checked
/// by the caller, which names the row).
pub fn validate(data: &ArrayData, what: &str) -> FfiResult<()> {
    match data.data_type() {
        DataType::Binary => byte_offsets::<i32>(data, what)?,
        DataType::LargeBinary => byte_offsets::<i64>(data, what)?,
        DataType::Utf8 | DataType::LargeUtf8 => {
            if matches!(data.data_type(), DataType::Utf8) {
                byte_offsets::<i32>(data, what)?;
            } else {
                byte_offsets::<i64>(data, what)?;
            }
            sluice_kernels::validate::validate_utf8(make_array(data.clone()).as_ref())
                .map_err(|e| FfiError::from(e).in_function(what))?;
        }
        _ => data.validate_data().map_err(|e| invalid_arrow(what, e))?,
    }
    for (i, child) in data.child_data().iter().enumerate() {
        validate(child, &format!("{what} (child {i})"))?;
    }
    Ok(())
}

/// Structure, NULL count and offsets of a byte array, in one pass over
/// the offsets.
fn byte_offsets<O: ArrowNativeType + Into<i64>>(data: &ArrayData, what: &str) -> FfiResult<()> {
    data.validate().map_err(|e| invalid_arrow(what, e))?;
    data.validate_nulls().map_err(|e| invalid_arrow(what, e))?;
    // `validate` checked that buffer 0 holds `offset + len + 1` offsets.
    let Some(offsets) = data.buffer::<O>(0).get(..data.len() + 1) else {
        return Err(invalid_arrow(what, "offsets buffer too short"));
    };
    let values_len = data.buffers().get(1).map_or(0, |b| b.len()) as i64;
    let (first, last): (i64, i64) = (offsets[0].into(), offsets[data.len()].into());
    // Branch-free, so that it vectorises; the row is looked for only on failure.
    let ordered = offsets.windows(2).fold(true, |ok, w| ok & (w[0] <= w[1]));
    if first < 0 || last > values_len || !ordered {
        let row = offsets.windows(2).position(|w| w[0] > w[1]);
        return Err(invalid_arrow(
            what,
            match row {
                Some(r) => format!("offsets decrease at row {r}"),
                None => format!("offsets {first}..{last} are outside the {values_len} value bytes"),
            },
        ));
    }
    Ok(())
}
