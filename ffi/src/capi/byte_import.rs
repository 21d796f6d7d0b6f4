//! Importing the byte-array layouts the kernels take (`Utf8`, `LargeUtf8`,
//! `Binary`, `LargeBinary`) straight from a `struct ArrowArray`, without
//! arrow-rs's `from_ffi`.
//!
//! Why: `from_ffi` builds an `ArrayData` (a buffer list, a child list, the
//! layout table of the type, an alignment pass) that [`validate`] then
//! re-checks and `make_array` turns into a typed array: ~2 K instructions
//! and several allocations per input, paid on every call whatever the
//! batch size (a third of a 16-byte CONCAT call's fixed cost). Here the
//! C struct is read field by field, checked once, and its buffers are
//! wrapped zero-copy into a typed array: one `Arc` owning the taken struct
//! (its release callback runs when the last buffer is dropped, as with
//! `from_ffi`) and one `Buffer` per buffer.
//!
//! What is checked, all before any buffer is read, and why (the Arrow C
//! Data Interface's layout of these types: buffers `[validity, offsets,
//! values]`, no children):
//!
//! | field | check | why |
//! | --- | --- | --- |
//! | `length`, `offset` | ≥ 0, `offset + length` far from overflow | every size below is computed from them |
//! | `n_buffers`, `n_children` | exactly 3 and 0 | the layout; a wrong count means a wrong type or producer |
//! | `buffers` | non-NULL | three pointers are read from it |
//! | `null_count` | −1 (unknown) or 0..=`length`, and equal to the bitmap's count when known | the kernels trust a NULL count (as arrow-rs's `validate_nulls` did before) |
//! | validity (`buffers[0]`) | may be NULL only when `null_count` is 0 or −1 | the interface's rule; a NULL bitmap with nulls would silently drop them |
//! | offsets (`buffers[1]`) | non-NULL; the `length + 1` offsets from `offset` on are ≥ 0 and never decrease (one branch-free pass, `sluice_kernels::validate::offsets_ordered`) | memory safety: kernels slice the values by offsets without re-checking |
//! | values (`buffers[2]`) | non-NULL when the last offset is > 0 | its size is the last offset (the interface gives no other), so every value lies inside it once the offsets are ordered |
//! | UTF-8 | by the caller's [`Utf8Rule`] | see [`crate::capi::validate`]: only where a `Utf8` output's honesty needs it |
//!
//! An offsets buffer not aligned to its offset width is copied (`length +
//! 1` offsets); values and validity are bytes and need no alignment.
//!
//! What cannot be checked: that the buffers really hold what the lengths
//! and offsets claim (the C Data Interface contract).
//!
//! [`validate`]: crate::capi::validate

use std::mem::size_of;
use std::ptr::{self, NonNull};
use std::sync::Arc;

use arrow_array::ffi::FFI_ArrowArray;
use arrow_array::types::{GenericBinaryType, GenericStringType};
use arrow_array::{ArrayRef, GenericByteArray, OffsetSizeTrait};
use arrow_buffer::{BooleanBuffer, Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow_schema::DataType;

use crate::capi::error::{sluice_status, FfiError, FfiResult};

/// What the bytes of a string-typed import are taken as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Utf8Rule {
    /// Validated (one `simdutf8` pass plus a boundary check per offset);
    /// invalid bytes are `SLUICE_ERR_INVALID_UTF8` naming the row.
    Checked,
    /// Taken at the producer's word (a declared `Utf8` type, copied whole
    /// into an output that is then as much UTF-8 as the input).
    Trusted,
}

/// Whether `dt` is one of the layouts [`import_byte_array`] takes.
pub fn is_byte_layout(dt: &DataType) -> bool {
    matches!(dt, DataType::Utf8 | DataType::LargeUtf8 | DataType::Binary | DataType::LargeBinary)
}

fn invalid(what: &str, message: impl std::fmt::Display) -> FfiError {
    FfiError::new(sluice_status::SLUICE_ERR_INVALID_ARROW, format!("{what}: {message}"))
}

/// Imports a taken array of byte layout `dt` (see [`is_byte_layout`]),
/// checked as the module docs say; the array is released when the result
/// (and every buffer sliced from it) is dropped, or at once on an error.
///
/// # Errors
/// `SLUICE_ERR_INVALID_ARROW` for a structure, NULL count or offsets that
/// break the rules above; `SLUICE_ERR_INVALID_UTF8` for a `Utf8` /
/// `LargeUtf8` `dt` under [`Utf8Rule::Checked`] holding invalid UTF-8;
/// `SLUICE_ERR_INVALID_ARGUMENT` for a `dt` that is not a byte layout.
///
/// # Safety
/// The buffers of `array` hold at least what its length, offset and offsets
/// claim (the C Data Interface contract); under [`Utf8Rule::Trusted`] the
/// values of a string `dt` are UTF-8.
pub unsafe fn import_byte_array(
    array: FFI_ArrowArray,
    dt: &DataType,
    what: &str,
    rule: Utf8Rule,
) -> FfiResult<ArrayRef> {
    match dt {
        // SAFETY: forwarded contract; these layouts have `i32` offsets.
        DataType::Utf8 | DataType::Binary => unsafe { import_offsets::<i32>(array, dt, what, rule) },
        // SAFETY: forwarded contract; these layouts have `i64` offsets.
        DataType::LargeUtf8 | DataType::LargeBinary => unsafe { import_offsets::<i64>(array, dt, what, rule) },
        other => Err(FfiError::invalid(format!("{what}: {other} is not a byte-array layout"))),
    }
}

/// The three buffer pointers of a byte array, after the structure checks.
struct Raw {
    validity: *const u8,
    offsets: *const u8,
    values: *const u8,
    offset: usize,
    len: usize,
}

/// The structure checks of the module docs (no buffer is read).
///
/// # Safety
/// `array` is a live struct whose `buffers` holds `n_buffers` pointers.
unsafe fn check_structure(array: &FFI_ArrowArray, what: &str) -> FfiResult<Raw> {
    if array.length < 0 || array.offset < 0 {
        return Err(invalid(what, format!("negative length ({}) or offset ({})", array.length, array.offset)));
    }
    if array.length.checked_add(array.offset).is_none_or(|end| end >= i64::MAX / 16) {
        return Err(invalid(what, "offset + length overflows"));
    }
    if array.n_buffers != 3 {
        return Err(invalid(what, format!("a byte array needs 3 buffers, it has {}", array.n_buffers)));
    }
    if array.n_children != 0 {
        return Err(invalid(what, format!("a byte array has no children, it has {}", array.n_children)));
    }
    if array.buffers.is_null() {
        return Err(invalid(what, "buffers is NULL with n_buffers = 3"));
    }
    if array.null_count < -1 || array.null_count > array.length {
        return Err(invalid(what, format!("null_count {} is outside -1..={}", array.null_count, array.length)));
    }
    // SAFETY: `buffers` is non-NULL and holds 3 pointers (the contract);
    // read unaligned as C promises no alignment we could check.
    let [validity, offsets, values] =
        unsafe { [0, 1, 2].map(|i| ptr::read_unaligned(array.buffers.add(i)).cast::<u8>()) };
    if validity.is_null() && array.null_count > 0 {
        return Err(invalid(what, format!("the validity buffer is NULL with null_count = {}", array.null_count)));
    }
    // Both fit in usize: non-negative and below i64::MAX / 16 (checked above).
    Ok(Raw { validity, offsets, values, offset: array.offset as usize, len: array.length as usize })
}

/// [`import_byte_array`] for offsets of type `O`.
///
/// # Safety
/// As [`import_byte_array`].
unsafe fn import_offsets<O: OffsetSizeTrait + Into<i64>>(
    array: FFI_ArrowArray,
    dt: &DataType,
    what: &str,
    rule: Utf8Rule,
) -> FfiResult<ArrayRef> {
    // SAFETY: `array` is a live struct (taken by the caller).
    let raw = unsafe { check_structure(&array, what) }?;
    if raw.len == 0 {
        // An empty input needs none of its buffers (and a sliced empty one
        // may point its offsets anywhere): released here.
        drop(array);
        return Ok(arrow_array::new_empty_array(dt));
    }
    let null_count = array.null_count;
    // The owner of every buffer below: dropping the last one releases the
    // caller's array (its release callback), as `from_ffi` does.
    let owner = Arc::new(array);
    // SAFETY: the offsets buffer holds `offset + len + 1` offsets (the
    // contract), `owner` keeps it alive.
    let offsets = unsafe { wrap_offsets::<O>(&owner, &raw, what) }?;
    let first: i64 = offsets[0].into();
    let last: i64 = offsets[raw.len].into();
    if first < 0 || !sluice_kernels::validate::offsets_ordered(&offsets) {
        let row = offsets.windows(2).position(|w| w[0] > w[1]);
        return Err(invalid(
            what,
            match row {
                Some(r) => format!("offsets decrease at row {r}"),
                None => format!("offsets[{}] is negative ({first})", raw.offset),
            },
        ));
    }
    // `last` ≥ `first` ≥ 0 and the interface sizes the values buffer by it.
    let values_len = last as usize;
    // SAFETY: the values buffer holds `last` bytes (the contract).
    let values = unsafe { wrap_bytes(&owner, raw.values, values_len) }
        .ok_or_else(|| invalid(what, format!("the values buffer is NULL with {values_len} value bytes")))?;
    // SAFETY: the validity buffer, if any, holds `offset + len` bits.
    let nulls = unsafe { wrap_validity(&owner, &raw, null_count, what) }?;
    // SAFETY: offsets checked non-negative and ordered, the last one is
    // the values buffer's length.
    let offsets = unsafe { OffsetBuffer::new_unchecked(offsets) };
    if matches!(dt, DataType::Utf8 | DataType::LargeUtf8) && rule == Utf8Rule::Trusted {
        // SAFETY: offsets valid for `values` (above); the bytes are UTF-8
        // by this function's contract under `Trusted`.
        return Ok(Arc::new(unsafe {
            GenericByteArray::<GenericStringType<O>>::new_unchecked(offsets, values, nulls)
        }));
    }
    // SAFETY: offsets valid for `values` (above); binary takes any bytes.
    let binary = unsafe { GenericByteArray::<GenericBinaryType<O>>::new_unchecked(offsets, values, nulls) };
    if matches!(dt, DataType::Binary | DataType::LargeBinary) {
        return Ok(Arc::new(binary));
    }
    sluice_kernels::validate::binary_to_utf8(&binary).map_err(|e| FfiError::from(e).in_function(what))
}

/// The `len + 1` offsets of `raw` from its `offset` on, zero-copy when the
/// buffer is aligned to `O`, else copied.
///
/// # Safety
/// `raw.offsets`, if non-NULL, holds `raw.offset + raw.len + 1` values of
/// `O`, alive while `owner` is.
unsafe fn wrap_offsets<O: OffsetSizeTrait>(
    owner: &Arc<FFI_ArrowArray>,
    raw: &Raw,
    what: &str,
) -> FfiResult<ScalarBuffer<O>> {
    let Some(ptr) = NonNull::new(raw.offsets.cast_mut()) else {
        return Err(invalid(what, format!("the offsets buffer is NULL with length {}", raw.len)));
    };
    let count = raw.offset + raw.len + 1;
    if ptr.as_ptr().cast::<O>().is_aligned() {
        // SAFETY: `count` offsets of `O` (the contract; `count * size_of`
        // is far below isize::MAX by `check_structure`), kept alive by
        // `owner`; aligned, as `ScalarBuffer` requires.
        let buffer = unsafe { Buffer::from_custom_allocation(ptr, count * size_of::<O>(), owner.clone()) };
        return Ok(ScalarBuffer::new(buffer, raw.offset, raw.len + 1));
    }
    let base = ptr.as_ptr().cast::<O>();
    // SAFETY: entries `offset..count` are within the buffer (the contract);
    // read unaligned, as the buffer is not aligned to `O`.
    let copied: Vec<O> = (raw.offset..count).map(|i| unsafe { ptr::read_unaligned(base.add(i)) }).collect();
    Ok(ScalarBuffer::from(copied))
}

/// `len` bytes at `ptr`, kept alive by `owner`; an empty buffer for
/// `len == 0` (the pointer may then be NULL or dangling), `None` for a NULL
/// `ptr` with `len > 0`.
///
/// # Safety
/// `ptr`, if non-NULL and `len > 0`, is readable for `len` bytes while
/// `owner` is alive.
unsafe fn wrap_bytes(owner: &Arc<FFI_ArrowArray>, ptr: *const u8, len: usize) -> Option<Buffer> {
    if len == 0 {
        return Some(Buffer::from_vec(Vec::<u8>::new()));
    }
    let ptr = NonNull::new(ptr.cast_mut())?;
    // SAFETY: forwarded contract.
    Some(unsafe { Buffer::from_custom_allocation(ptr, len, owner.clone()) })
}

/// The NULL mask: `None` for a NULL validity buffer (no NULLs:
/// `check_structure` refused one with `null_count > 0`) or a bitmap with
/// no NULL bit; the bitmap's count must equal a known `null_count`.
///
/// # Safety
/// `raw.validity`, if non-NULL, holds `raw.offset + raw.len` bits, alive
/// while `owner` is.
unsafe fn wrap_validity(
    owner: &Arc<FFI_ArrowArray>,
    raw: &Raw,
    null_count: i64,
    what: &str,
) -> FfiResult<Option<NullBuffer>> {
    let bytes = (raw.offset + raw.len).div_ceil(8);
    // SAFETY: forwarded contract (`bytes` bytes hold the bits).
    let Some(buffer) = (unsafe { wrap_bytes(owner, raw.validity, bytes) }) else {
        return Ok(None);
    };
    let nulls = NullBuffer::new(BooleanBuffer::new(buffer, raw.offset, raw.len));
    if null_count >= 0 && nulls.null_count() as i64 != null_count {
        return Err(invalid(
            what,
            format!("null_count is {null_count} but the validity bitmap has {} NULLs", nulls.null_count()),
        ));
    }
    Ok((nulls.null_count() > 0).then_some(nulls))
}

#[cfg(test)]
mod tests {
    use std::ffi::c_void;

    use arrow_array::{Array, BinaryArray, LargeBinaryArray, LargeStringArray, StringArray};
    use arrow_buffer::Buffer;
    use arrow_schema::DataType;

    use super::*;

    /// An array exported by arrow-rs (the reference producer) for
    /// `import_byte_array` to take.
    fn export(a: &dyn Array) -> FFI_ArrowArray {
        FFI_ArrowArray::new(&a.to_data())
    }

    fn import(c: FFI_ArrowArray, dt: &DataType, rule: Utf8Rule) -> FfiResult<ArrayRef> {
        // SAFETY: every array of these tests is exported by arrow-rs (or
        // hand-built below) with buffers as large as its offsets claim.
        unsafe { import_byte_array(c, dt, "in", rule) }
    }

    /// Overwrites buffer `i` of an exported array (arrow-rs's private data
    /// keeps the real buffers, so its release still frees them).
    fn set_buffer(c: &mut FFI_ArrowArray, i: usize, to: *const c_void) {
        // SAFETY: an arrow-rs export holds `n_buffers` writable pointers.
        unsafe { *c.buffers.add(i) = to };
    }

    fn refused(c: FFI_ArrowArray, dt: &DataType) -> (sluice_status, String) {
        let e = import(c, dt, Utf8Rule::Checked).expect_err("refused");
        (e.code, e.message)
    }

    fn strings() -> StringArray {
        StringArray::from(vec![Some("héllo"), None, Some(""), Some("wörld"), Some("x"), None, Some("yz")])
    }

    /// Every layout, whole and sliced, reads back equal to the exported
    /// array, and the producer's release runs once, when the last imported
    /// buffer is dropped.
    #[test]
    fn every_layout_reads_back_whole_and_sliced() {
        let s = strings();
        let arrays: Vec<ArrayRef> = vec![
            Arc::new(s.clone()),
            Arc::new(LargeStringArray::from_iter(s.iter())),
            Arc::new(BinaryArray::from_iter(s.iter().map(|v| v.map(str::as_bytes)))),
            Arc::new(LargeBinaryArray::from_iter(s.iter().map(|v| v.map(str::as_bytes)))),
        ];
        for a in arrays {
            for (offset, len) in [(0, 7), (2, 4), (3, 0), (6, 1), (1, 1)] {
                let want = a.slice(offset, len);
                for rule in [Utf8Rule::Checked, Utf8Rule::Trusted] {
                    let got = import(export(&want), a.data_type(), rule).expect("valid");
                    assert_eq!(got.to_data(), want.to_data(), "{} at {offset}+{len}", a.data_type());
                    assert_eq!(got.null_count(), want.null_count());
                }
            }
        }
    }

    #[test]
    fn the_release_runs_once_when_the_last_buffer_is_dropped() {
        let values = Buffer::from_vec(b"abcdef".to_vec());
        let a = BinaryArray::new(OffsetBuffer::new(vec![0i32, 3, 6].into()), values.clone(), None);
        let c = export(&a);
        drop(a);
        assert_eq!(values.strong_count(), 2, "held by the export");
        let got = import(c, &DataType::Binary, Utf8Rule::Checked).expect("valid");
        let kept = got.as_any().downcast_ref::<BinaryArray>().expect("binary").values().clone();
        drop(got);
        assert_eq!(values.strong_count(), 2, "a sliced buffer keeps the export alive");
        drop(kept);
        assert_eq!(values.strong_count(), 1, "released");
        // Refused inputs are released too.
        let mut c = export(&BinaryArray::new(OffsetBuffer::new(vec![0i32, 3].into()), values.clone(), None));
        c.n_buffers = 2;
        refused(c, &DataType::Binary);
        assert_eq!(values.strong_count(), 1, "released on error");
    }

    /// Offsets not aligned to their width are copied, not read in place.
    #[test]
    fn misaligned_offsets_are_copied() {
        #[repr(align(8))]
        struct Aligned([u8; 16]);
        let mut raw = Aligned([0; 16]);
        // The offsets 0, 2, 5 one byte past an 8-aligned start.
        for (i, o) in [0i32, 2, 5].iter().enumerate() {
            raw.0[1 + 4 * i..5 + 4 * i].copy_from_slice(&o.to_ne_bytes());
        }
        let aligned = BinaryArray::from(vec![&b"ab"[..], b"cde"]);
        let mut c = export(&aligned);
        set_buffer(&mut c, 1, raw.0[1..].as_ptr().cast());
        let got = import(c, &DataType::Binary, Utf8Rule::Checked).expect("valid");
        assert_eq!(got.to_data(), aligned.to_data());
    }

    #[test]
    fn utf8_is_checked_or_trusted_by_the_rule() {
        let bad = BinaryArray::from(vec![&b"ok"[..], b"\xff"]);
        let mut c = export(&bad);
        let e = import(c, &DataType::Utf8, Utf8Rule::Checked).expect_err("invalid UTF-8");
        assert_eq!(e.code, sluice_status::SLUICE_ERR_INVALID_UTF8);
        assert!(e.message.contains("row 1"), "{}", e.message);
        c = export(&bad);
        let got = import(c, &DataType::Binary, Utf8Rule::Checked).expect("bytes are taken as they are");
        assert_eq!(got.to_data(), bad.to_data());
    }

    /// Each rule of the module docs, with its status and message.
    #[test]
    fn malformed_structures_are_refused_with_their_reason() {
        let s = strings();
        type Spoil = fn(&mut FFI_ArrowArray);
        let cases: [(&str, Spoil, &str); 12] = [
            ("n_buffers 2", |c| c.n_buffers = 2, "in: a byte array needs 3 buffers, it has 2"),
            ("n_buffers 4", |c| c.n_buffers = 4, "in: a byte array needs 3 buffers, it has 4"),
            ("children", |c| c.n_children = 1, "in: a byte array has no children, it has 1"),
            ("NULL buffers", |c| c.buffers = ptr::null_mut(), "in: buffers is NULL with n_buffers = 3"),
            ("negative length", |c| c.length = -1, "in: negative length (-1) or offset (0)"),
            ("negative offset", |c| c.offset = -2, "in: negative length (7) or offset (-2)"),
            ("huge offset", |c| c.offset = i64::MAX - 3, "in: offset + length overflows"),
            ("null_count -2", |c| c.null_count = -2, "in: null_count -2 is outside -1..=7"),
            ("null_count > length", |c| c.null_count = 8, "in: null_count 8 is outside -1..=7"),
            ("null_count wrong", |c| c.null_count = 3, "in: null_count is 3 but the validity bitmap has 2 NULLs"),
            ("NULL offsets", |c| set_buffer(c, 1, ptr::null()), "in: the offsets buffer is NULL with length 7"),
            ("NULL values", |c| set_buffer(c, 2, ptr::null()), "in: the values buffer is NULL with 15 value bytes"),
        ];
        for (name, spoil, message) in cases {
            let mut c = export(&s);
            spoil(&mut c);
            assert_eq!(
                refused(c, &DataType::Utf8),
                (sluice_status::SLUICE_ERR_INVALID_ARROW, message.into()),
                "{name}"
            );
        }
        // A NULL validity buffer with NULLs declared would drop them.
        let mut c = export(&s);
        set_buffer(&mut c, 0, ptr::null());
        let want = "in: the validity buffer is NULL with null_count = 2";
        assert_eq!(refused(c, &DataType::Utf8).1, want);
        // ... and with no NULLs declared (0 or unknown) means no NULLs.
        for null_count in [0, -1] {
            let mut c = export(&s);
            set_buffer(&mut c, 0, ptr::null());
            c.null_count = null_count;
            assert_eq!(import(c, &DataType::Utf8, Utf8Rule::Checked).expect("valid").null_count(), 0);
        }
    }

    #[test]
    fn offsets_that_are_negative_or_decrease_are_refused() {
        let values = Buffer::from_vec(b"abcdef".to_vec());
        let cases: [(Vec<i32>, usize, &str); 4] = [
            (vec![-1, 3, 6], 0, "in: offsets[0] is negative (-1)"),
            (vec![0, 4, 3, 6], 0, "in: offsets decrease at row 1"),
            (vec![0, 6, 2], 0, "in: offsets decrease at row 1"),
            // Sliced past row 0: a decrease inside the slice is found at
            // its row of the slice, one before it is not read at all.
            (vec![5, 0, 4, 2], 1, "in: offsets decrease at row 1"),
        ];
        for (offsets, offset, message) in cases {
            let n = offsets.len() - 1;
            // SAFETY: unchecked on purpose (what a C producer may send);
            // only the importer under test reads it.
            let data = unsafe {
                arrow_data::ArrayData::new_unchecked(
                    DataType::Binary,
                    n,
                    Some(0),
                    None,
                    0,
                    vec![Buffer::from_vec(offsets.clone()), values.clone()],
                    vec![],
                )
            };
            let mut c = FFI_ArrowArray::new(&data);
            c.offset = offset as i64;
            c.length = (n - offset) as i64;
            assert_eq!(refused(c, &DataType::Binary), (sluice_status::SLUICE_ERR_INVALID_ARROW, message.into()));
        }
        // Offsets before the slice are not read: a decrease there is fine.
        // SAFETY: as above; the sliced part is valid.
        let data = unsafe {
            arrow_data::ArrayData::new_unchecked(
                DataType::Binary,
                3,
                Some(0),
                None,
                0,
                vec![Buffer::from_vec(vec![5i32, 0, 2, 6]), values.clone()],
                vec![],
            )
        };
        let mut c = FFI_ArrowArray::new(&data);
        (c.offset, c.length) = (1, 2);
        let got = import(c, &DataType::Binary, Utf8Rule::Checked).expect("valid");
        let got = got.as_any().downcast_ref::<BinaryArray>().expect("binary");
        assert_eq!(got.iter().collect::<Vec<_>>(), [Some(&b"ab"[..]), Some(b"cdef")]);
    }
}
