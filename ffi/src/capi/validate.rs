//! Validation of arrays imported over the C Data Interface: what the
//! library checks before a kernel reads an input, and how cheaply.
//!
//! What is validated, and why:
//!
//! | input | checked | why |
//! | --- | --- | --- |
//! | top-level `Binary`, `LargeBinary`, `Utf8`, `LargeUtf8` arrays (the kernels' usual inputs) | read straight from the C struct without `from_ffi` (`crate::capi::byte_import`, whose docs list each check): buffer and child counts, NULL pointers, `null_count` against the bitmap, offsets | memory safety, at a fixed cost per call well below `from_ffi`'s |
//! | every other array | structure against its type (`arrow_c::check_array`), buffer sizes against length and offset (`ArrayData::validate`), NULL count | memory safety: every later read is in bounds |
//! | offsets of `Binary`, `LargeBinary`, `Utf8`, `LargeUtf8` (top-level and nested) | first ≥ 0, never decreasing, last ≤ values length: one branch-free pass (`sluice_kernels::validate::offsets_ordered`, AVX2 where the CPU has it) | memory safety: kernels slice values by offsets without re-checking |
//! | views of `Utf8View` / `BinaryView` | each view within its buffer (arrow-rs) | memory safety |
//! | UTF-8 of binary columns read as strings (by `flink.type`) by CONCAT / CONCAT_WS, and of the `Utf8` children of nested inputs of the keyed operators and key groups | one `simdutf8` pass over the values span plus a character-boundary check per offset (`sluice_kernels::validate`) | a binary column promises nothing; keyed state keeps keys as text |
//! | UTF-8 of the `Utf8` fields of row batches (`sluice_arrow_to_rows`, `sluice_row_converter_arrow_to_rows`) | not checked (`arrow_c::import_copied_rows`) | each string is copied whole into its row as bytes (memory-safe on any bytes), and Flink reads a row's string as the bytes of a `BinaryStringData`: the rows are as much UTF-8 as the declared `Utf8` fields, the producer's promise, as for CONCAT |
//! | UTF-8 of the string inputs of the search kernels (POSITION, LOCATE, LIKE, REPLACE, SPLIT_INDEX) | not checked on input (`Kind::SearchedString`, imported as the binary twin); REPLACE and SPLIT_INDEX validate their **output** rows (the same `simdutf8` pass plus boundary check, over the output), so an output row that is not UTF-8 is `SLUICE_ERR_INVALID_UTF8` naming the row; a column LIKE pattern is checked row by row as it is compiled, the ESCAPE string once | the kernels read strings as bytes (characters by Flink's lead-byte rule, every index bounds-checked), so they are memory-safe on any bytes; an `INT` or `BOOLEAN` output is honest whatever the bytes, a `Utf8` output is honest once validated; validating the input cost a second full read of values the kernel scans once |
//! | UTF-8 of `Utf8` inputs of CONCAT / CONCAT_WS | not checked (`arrow_c::import_copied_strings`) | the kernel copies whole values as bytes, so it is memory-safe on any bytes, and its output is as much UTF-8 as its inputs: the producer's promise for a declared `Utf8` type (the Arrow format's rule, which arrow-rs and Arrow C++ importers also trust) carries over to the output; re-checking it cost as much as the copy itself |
//! | UTF-8 of digest inputs (MD5, SHA1, SHA2) | not checked (`arrow_c::import_bytes`) | a digest reads bytes (Flink hashes a string's bytes) and its hex output is UTF-8 whatever the input; Binary inputs are accepted as they are |
//!
//! Why REPLACE and SPLIT_INDEX keep their output check (it could not be
//! skipped honestly): their output rows are slices of `str` cut at matches
//! plus the replacement, so they are UTF-8 when `str` is, and `str` is not
//! validated (that would be a second full read of the input). Trusting a
//! declared `Utf8` `str` as CONCAT does would drop the header's promise
//! (point 3: "a Utf8 result is only returned once it is valid UTF-8") and
//! turn `SLUICE_ERR_INVALID_UTF8` on a bad row into a silently invalid
//! output: an incompatible change of the contract, not an optimisation. The
//! check is already fused into the kernels' write loop (`Utf8Out::checked`
//! in `sluice_kernels::search`: every 16 KiB of output at a row end, while
//! those bytes are in cache); perf of `sluice_replace` on 256-byte rows
//! (`benches/c_abi/prof_batch.c ... replace`) puts `simdutf8` plus the
//! per-row boundary check at ~5% of the call, the rest being the kernel
//! (`memchr` search and the copies), the same code as in-process.
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
    validate_with(data, what, false)
}

/// [`validate`], except that with `trust_utf8` the bytes of nested `Utf8`
/// / `LargeUtf8` children are not checked (their structure and offsets
/// are): for `sluice_arrow_to_rows`, which copies each string whole into a
/// row (see the module docs).
///
/// # Errors
/// As [`validate`] (no `SLUICE_ERR_INVALID_UTF8` for those children).
pub fn validate_with(data: &ArrayData, what: &str, trust_utf8: bool) -> FfiResult<()> {
    match data.data_type() {
        DataType::Binary => byte_offsets::<i32>(data, what)?,
        DataType::LargeBinary => byte_offsets::<i64>(data, what)?,
        DataType::Utf8 | DataType::LargeUtf8 => {
            if matches!(data.data_type(), DataType::Utf8) {
                byte_offsets::<i32>(data, what)?;
            } else {
                byte_offsets::<i64>(data, what)?;
            }
            if !trust_utf8 {
                sluice_kernels::validate::validate_utf8(make_array(data.clone()).as_ref())
                    .map_err(|e| FfiError::from(e).in_function(what))?;
            }
        }
        _ => data.validate_data().map_err(|e| invalid_arrow(what, e))?,
    }
    for (i, child) in data.child_data().iter().enumerate() {
        validate_with(child, &format!("{what} (child {i})"), trust_utf8)?;
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
    let ordered = sluice_kernels::validate::offsets_ordered(offsets);
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
