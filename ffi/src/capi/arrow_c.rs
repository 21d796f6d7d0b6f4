//! Taking Arrow arrays from C and giving them back, after Comet's
//! `jni_api.rs` / `utils.rs::move_to_spark`.
//!
//! * [`take_array`] moves a caller's `struct ArrowArray` into Rust
//!   (C Data Interface move semantics: the caller's struct is left with
//!   `release == NULL`). From then on the array is released exactly once, by
//!   Rust, whatever happens next.
//! * [`read_field`] borrows a `struct ArrowSchema` after checking every
//!   pointer arrow-rs will follow.
//! * [`import`] hands the byte-array layouts to
//!   [`crate::capi::byte_import`] (no `from_ffi`); for other types it
//!   checks the array's structure against its type (buffer and
//!   child counts, NULL pointers) *before* arrow-rs reads any buffer, then
//!   fully validates the imported data (offsets in bounds and monotonic,
//!   UTF-8 for string types; see [`crate::capi::validate`] for what is checked
//!   and how) so kernels never see a malformed array.
//! * [`OutSlot::write`] exports a result into caller-allocated structs with
//!   offset 0 (Arrow Java ignores `offset`), copying only when needed.
//!
//! The checks read the C structs through arrow-rs's own `FFI_ArrowArray` /
//! `FFI_ArrowSchema` (their public fields are the C layout); arrow-rs then
//! imports and exports them. What sluice adds is the checking: arrow-rs
//! trusts the producer (a NULL pointer is a panic or undefined behaviour
//! there), a C caller's mistake is an error status here.

use std::ptr;

use arrow_array::cast::AsArray;
use arrow_array::ffi::{from_ffi_and_data_type, FFI_ArrowArray, FFI_ArrowSchema};
use arrow_array::{make_array, Array, ArrayRef};
use arrow_data::transform::MutableArrayData;
use arrow_data::{layout, ArrayData};
use arrow_schema::{DataType, Field};

use crate::capi::byte_import::{import_byte_array, is_byte_layout, Utf8Rule};
use crate::capi::error::{sluice_status, FfiError, FfiResult};

/// Nesting deeper than this is refused rather than recursed into.
const MAX_DEPTH: usize = 64;

fn invalid_arrow(message: String) -> FfiError {
    FfiError::new(sluice_status::SLUICE_ERR_INVALID_ARROW, message)
}

/// Moves the caller's `struct ArrowArray` into Rust.
///
/// The caller's struct is overwritten with a released one (`release ==
/// NULL`); the returned value releases the array when dropped.
///
/// # Errors
/// `SLUICE_ERR_NULL_POINTER` if `ptr` is NULL (nothing is taken),
/// `SLUICE_ERR_INVALID_ARGUMENT` if the struct is already released.
///
/// # Safety
/// `ptr` is NULL or points to a readable and writable `struct ArrowArray`
/// (any alignment) that the caller gives up.
pub unsafe fn take_array(ptr: *mut FFI_ArrowArray, what: &str) -> FfiResult<FFI_ArrowArray> {
    check_not_null!(ptr, what);
    // SAFETY: non-NULL, and the caller guarantees a valid struct; unaligned
    // access is used because C gives no alignment promise we could check.
    let taken = unsafe { ptr::read_unaligned(ptr) };
    // SAFETY: as above; marks the caller's copy released (the move).
    unsafe { ptr::write_unaligned(ptr, FFI_ArrowArray::empty()) };
    if taken.is_released() {
        return Err(FfiError::invalid(format!("{what} is already released (release == NULL)")));
    }
    Ok(taken)
}

/// Like [`take_array`] for an optional argument: NULL means absent.
///
/// # Safety
/// As [`take_array`].
pub unsafe fn take_optional_array(ptr: *mut FFI_ArrowArray, what: &str) -> FfiResult<Option<FFI_ArrowArray>> {
    if ptr.is_null() {
        Ok(None)
    } else {
        // SAFETY: forwarded contract.
        unsafe { take_array(ptr, what) }.map(Some)
    }
}

/// Checks a borrowed `struct ArrowSchema` and converts it to a [`Field`]
/// (name, type, nullability, metadata such as `flink.type`).
///
/// `what` names the schema in messages; it is formatted only for one (a
/// call's arguments are named by [`crate::capi::args::SchemaName`] without
/// a per-call `format!`).
///
/// # Errors
/// `SLUICE_ERR_NULL_POINTER` for a NULL `ptr`; `SLUICE_ERR_INVALID_ARGUMENT`
/// for a released or misaligned schema; `SLUICE_ERR_INVALID_ARROW` for
/// NULL format/children pointers or a format arrow-rs does not parse.
///
/// # Safety
/// `ptr` is NULL or points to a `struct ArrowSchema` that stays valid for
/// the duration of the call.
pub unsafe fn read_field(ptr: *const FFI_ArrowSchema, what: impl std::fmt::Display) -> FfiResult<Field> {
    if ptr.is_null() {
        return Err(FfiError::null(&what.to_string()));
    }
    if !ptr.is_aligned() {
        return Err(FfiError::invalid(format!("{what} is not aligned to {} bytes", align_of::<FFI_ArrowSchema>())));
    }
    // SAFETY: non-NULL and aligned, a schema per the caller's contract.
    let schema = unsafe { &*ptr };
    if schema.release.is_none() {
        return Err(FfiError::invalid(format!("{what} is released (release == NULL)")));
    }
    // SAFETY: a live schema per the caller's contract.
    unsafe { check_schema(schema, &what, 0) }?;
    // Every pointer arrow-rs follows was checked non-NULL above.
    Field::try_from(schema).map_err(|e| invalid_arrow(format!("{what}: {e}")))
}

/// # Safety
/// `raw` is a live `struct ArrowSchema`.
unsafe fn check_schema(raw: &FFI_ArrowSchema, what: &dyn std::fmt::Display, depth: usize) -> FfiResult<()> {
    if depth > MAX_DEPTH {
        return Err(invalid_arrow(format!("{what}: nested deeper than {MAX_DEPTH} levels")));
    }
    if raw.format.is_null() {
        return Err(invalid_arrow(format!("{what}: format is NULL")));
    }
    if raw.n_children < 0 {
        return Err(invalid_arrow(format!("{what}: n_children is negative ({})", raw.n_children)));
    }
    if raw.n_children > 0 && raw.children.is_null() {
        return Err(invalid_arrow(format!("{what}: children is NULL with n_children = {}", raw.n_children)));
    }
    for i in 0..raw.n_children as usize {
        // SAFETY: `children` holds `n_children` pointers per the C ABI.
        let child = unsafe { ptr::read_unaligned(raw.children.add(i)) };
        if child.is_null() {
            return Err(invalid_arrow(format!("{what}: child {i} is NULL")));
        }
        // SAFETY: non-NULL child of a live schema.
        unsafe { check_schema(&*child, what, depth + 1) }?;
    }
    if !raw.dictionary.is_null() {
        // SAFETY: non-NULL dictionary of a live schema.
        unsafe { check_schema(&*raw.dictionary, what, depth + 1) }?;
    }
    Ok(())
}

/// # Safety
/// `raw` is a live `struct ArrowArray`.
unsafe fn check_array(raw: &FFI_ArrowArray, dt: &DataType, what: &str, depth: usize) -> FfiResult<()> {
    if depth > MAX_DEPTH {
        return Err(invalid_arrow(format!("{what}: nested deeper than {MAX_DEPTH} levels")));
    }
    if raw.length < 0 || raw.offset < 0 || raw.n_buffers < 0 || raw.n_children < 0 {
        return Err(invalid_arrow(format!(
            "{what}: negative length ({}), offset ({}), n_buffers ({}) or n_children ({})",
            raw.length, raw.offset, raw.n_buffers, raw.n_children
        )));
    }
    if raw.length.checked_add(raw.offset).is_none_or(|end| end >= i64::MAX / 16) {
        return Err(invalid_arrow(format!("{what}: offset + length overflows")));
    }
    let value_dt = match dt {
        DataType::Dictionary(key, _) => key.as_ref(),
        other => other,
    };
    let l = layout(value_dt);
    let fixed = l.buffers.len() + usize::from(l.can_contain_null_mask);
    let n_buffers = raw.n_buffers as usize;
    let ok = if l.variadic { n_buffers > fixed } else { n_buffers == fixed };
    if !ok {
        return Err(invalid_arrow(format!(
            "{what}: an array of type {dt} needs {}{} buffers, it has {n_buffers}",
            if l.variadic { "at least " } else { "" },
            if l.variadic { fixed + 1 } else { fixed },
        )));
    }
    if n_buffers > 0 && raw.buffers.is_null() {
        return Err(invalid_arrow(format!("{what}: buffers is NULL with n_buffers = {n_buffers}")));
    }
    let child_types: Vec<&DataType> = match dt {
        DataType::List(f)
        | DataType::LargeList(f)
        | DataType::FixedSizeList(f, _)
        | DataType::ListView(f)
        | DataType::LargeListView(f)
        | DataType::Map(f, _) => vec![f.data_type()],
        DataType::Struct(fields) => fields.iter().map(|f| f.data_type()).collect(),
        DataType::Union(fields, _) => fields.iter().map(|(_, f)| f.data_type()).collect(),
        DataType::RunEndEncoded(r, v) => vec![r.data_type(), v.data_type()],
        _ => Vec::new(),
    };
    if raw.n_children as usize != child_types.len() {
        return Err(invalid_arrow(format!(
            "{what}: an array of type {dt} needs {} children, it has {}",
            child_types.len(),
            raw.n_children
        )));
    }
    if !child_types.is_empty() && raw.children.is_null() {
        return Err(invalid_arrow(format!("{what}: children is NULL")));
    }
    for (i, child_dt) in child_types.into_iter().enumerate() {
        // SAFETY: `children` holds `n_children` pointers per the C ABI.
        let child = unsafe { ptr::read_unaligned(raw.children.add(i)) };
        if child.is_null() {
            return Err(invalid_arrow(format!("{what}: child {i} is NULL")));
        }
        // SAFETY: non-NULL child of a live array.
        unsafe { check_array(&*child, child_dt, what, depth + 1) }?;
    }
    if let DataType::Dictionary(_, value_dt) = dt {
        if raw.dictionary.is_null() {
            return Err(invalid_arrow(format!("{what}: dictionary is NULL")));
        }
        // SAFETY: non-NULL dictionary of a live array.
        unsafe { check_array(&*raw.dictionary, value_dt, what, depth + 1) }?;
    }
    Ok(())
}

/// Imports a taken array as `dt`, then fully validates it.
///
/// `dt` may differ from the schema's type only by a layout-identical
/// reinterpretation (`Binary` read as `Utf8` when `flink.type` says it is a
/// character string); validation then checks the UTF-8.
///
/// # Errors
/// `SLUICE_ERR_INVALID_ARROW` for a structure that does not match `dt` or
/// data that fails validation, `SLUICE_ERR_INVALID_UTF8` for a string array
/// holding invalid UTF-8. The array is released in every case.
///
/// # Safety
/// The buffers of `array` hold at least what its lengths and offsets claim
/// (the C Data Interface contract; this cannot be checked).
pub unsafe fn import(array: FFI_ArrowArray, dt: &DataType, what: &str) -> FfiResult<ArrayRef> {
    // SAFETY: forwarded contract.
    unsafe { import_with(array, dt, what, false) }
}

/// [`import`] for a struct batch whose rows a converter copies into Flink
/// rows: the bytes of its `Utf8` fields are not checked (structure and
/// offsets are; see [`crate::capi::validate`]).
///
/// # Errors
/// As [`import`], without `SLUICE_ERR_INVALID_UTF8` for those fields.
///
/// # Safety
/// As [`import`], and the declared `Utf8` fields hold UTF-8 (the C Data
/// Interface contract).
pub unsafe fn import_copied_rows(array: FFI_ArrowArray, dt: &DataType, what: &str) -> FfiResult<ArrayRef> {
    // SAFETY: forwarded contract.
    unsafe { import_with(array, dt, what, true) }
}

/// # Safety
/// As [`import`].
unsafe fn import_with(array: FFI_ArrowArray, dt: &DataType, what: &str, trust_utf8: bool) -> FfiResult<ArrayRef> {
    if is_byte_layout(dt) {
        // The kernels' usual inputs skip `from_ffi` (see `byte_import`).
        let rule = if trust_utf8 { Utf8Rule::Trusted } else { Utf8Rule::Checked };
        // SAFETY: forwarded contract (a trusting caller's declared string
        // holds UTF-8 by its own contract).
        return unsafe { import_byte_array(array, dt, what, rule) };
    }
    // SAFETY: `array` is a live, owned struct.
    unsafe { check_array(&array, dt, what, 0) }?;
    if array.length == 0 {
        // arrow-rs sizes the values buffer of an empty (possibly sliced)
        // array as 0 bytes, and then rejects its non-zero first offset: an
        // empty input needs none of its buffers anyway.
        drop(array);
        return Ok(arrow_array::new_empty_array(dt));
    }
    // String types are imported as their binary twin (same layout), so that
    // arrow-rs validates the structure and sluice's simdutf8 check then
    // validates the UTF-8, naming the first bad row.
    let twin = binary_twin(dt);
    let utf8 = twin.is_some();
    let import_dt = twin.unwrap_or_else(|| dt.clone());
    // SAFETY: the structure was checked against `dt`; buffer contents are
    // the caller's contract, and are validated right below.
    let data =
        unsafe { from_ffi_and_data_type(array, import_dt) }.map_err(|e| invalid_arrow(format!("{what}: {e}")))?;
    crate::capi::validate::validate_with(&data, what, trust_utf8)?;
    if utf8 && trust_utf8 {
        // SAFETY: the same buffers, fully validated as the binary twin of
        // `dt` (same layout); the bytes are UTF-8 by the contract of the
        // trusting callers (`import_copied_strings`, `import_copied_rows`).
        // Built from the `ArrayData` directly: no binary array in between.
        let data = unsafe { data.into_builder().data_type(dt.clone()).build_unchecked() };
        return Ok(make_array(data));
    }
    let values = make_array(data);
    if utf8 {
        sluice_kernels::validate::binary_to_utf8(&values).map_err(|e| FfiError::from(e).in_function(what))
    } else {
        Ok(values)
    }
}

/// Imports a taken string or binary array as its binary twin (`Utf8` as
/// `Binary`, and so on), validated as [`import`] does except for UTF-8: for
/// kernels that read bytes only and write no input byte to their output
/// (the digests; see [`crate::capi::validate`]).
///
/// # Errors
/// As [`import`], without `SLUICE_ERR_INVALID_UTF8`.
///
/// # Safety
/// As [`import`].
pub unsafe fn import_bytes(array: FFI_ArrowArray, dt: &DataType, what: &str) -> FfiResult<ArrayRef> {
    let bytes = binary_twin(dt).unwrap_or_else(|| dt.clone());
    // SAFETY: forwarded contract; the twin has the same layout.
    unsafe { import(array, &bytes, what) }
}

/// The binary type with the layout of string type `dt` (`Utf8` →
/// `Binary`, ...); `None` for a type that is not a string.
fn binary_twin(dt: &DataType) -> Option<DataType> {
    match dt {
        DataType::Utf8 => Some(DataType::Binary),
        DataType::LargeUtf8 => Some(DataType::LargeBinary),
        DataType::Utf8View => Some(DataType::BinaryView),
        _ => None,
    }
}

/// Imports a taken string argument of a kernel that copies whole values
/// into a string output (CONCAT, CONCAT_WS): `declared` is the type the
/// schema declares, `dt` the type it is read as. A `Utf8` type declared by
/// the producer is taken at its word (the Arrow format makes UTF-8 the
/// producer's promise, as it makes buffer sizes; arrow-rs and Arrow C++
/// import it unchecked too): its structure and offsets are validated, its
/// bytes are not, and the output is as much UTF-8 as the inputs are. A
/// binary column read as a string (by its `flink.type`) carries no such
/// promise and is validated as [`import`] does.
///
/// # Errors
/// As [`import`] (`SLUICE_ERR_INVALID_UTF8` only for a binary column).
///
/// # Safety
/// As [`import`], and a declared `Utf8` array holds UTF-8 (the C Data
/// Interface contract).
pub unsafe fn import_copied_strings(
    array: FFI_ArrowArray,
    declared: &DataType,
    dt: &DataType,
    what: &str,
) -> FfiResult<ArrayRef> {
    if declared != dt || !matches!(dt, DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View) {
        // SAFETY: forwarded contract.
        return unsafe { import(array, dt, what) };
    }
    // SAFETY: forwarded contract; a declared string type holds UTF-8 by
    // this function's contract, which `import_with` then trusts.
    unsafe { import_with(array, dt, what, true) }
}

/// Caller-allocated output structs, checked non-NULL before any work is
/// done and written only on success.
pub struct OutSlot {
    array: *mut FFI_ArrowArray,
    schema: *mut FFI_ArrowSchema,
}

impl OutSlot {
    /// Checks both pointers.
    ///
    /// # Errors
    /// `SLUICE_ERR_NULL_POINTER` if either is NULL.
    pub fn new(array: *mut FFI_ArrowArray, schema: *mut FFI_ArrowSchema) -> FfiResult<Self> {
        check_not_null!(array, "out");
        check_not_null!(schema, "out_schema");
        Ok(OutSlot { array, schema })
    }

    /// Exports `array` with the schema `field` into the caller's structs,
    /// normalising it to offset 0 first, and copying any buffer it shares
    /// with `inputs` (kernels may reuse an input's NULL mask), so that every
    /// moved-in input is released before the call returns rather than when
    /// the caller releases the output.
    ///
    /// # Errors
    /// `SLUICE_ERR_INVALID_ARROW` if `field` cannot be exported.
    ///
    /// # Safety
    /// The pointers given to [`OutSlot::new`] are writable for one struct
    /// each (any alignment); their previous contents are overwritten
    /// without being released.
    pub unsafe fn write(self, array: &dyn Array, field: &Field, inputs: &[&dyn Array]) -> FfiResult<()> {
        let schema = FFI_ArrowSchema::try_from(field)
            .map_err(|e| invalid_arrow(format!("cannot export the output schema: {e}")))?;
        let data = detach(offset_zero(array.to_data())?, inputs)?;
        let c_array = FFI_ArrowArray::new(&data);
        // SAFETY: both pointers are non-NULL (checked in `new`) and writable
        // per this function's contract.
        unsafe {
            ptr::write_unaligned(self.schema, schema);
            ptr::write_unaligned(self.array, c_array);
        }
        Ok(())
    }
}

/// `data` itself when it and all its children start at offset 0, otherwise
/// a compact copy that does (Arrow Java ignores `offset` on import).
///
/// # Errors
/// `SLUICE_ERR_OFFSET_OVERFLOW` if the compact copy's offsets overflow.
pub fn offset_zero(data: ArrayData) -> FfiResult<ArrayData> {
    if has_zero_offsets(&data) {
        return Ok(data);
    }
    compact_copy(&data, "copying the output to offset 0")
}

/// A copy of `data` in fresh buffers at offset 0.
///
/// # Errors
/// `SLUICE_ERR_OFFSET_OVERFLOW` (prefixed by `context`) if the copy's
/// offsets overflow.
fn compact_copy(data: &ArrayData, context: &str) -> FfiResult<ArrayData> {
    let mut copy = MutableArrayData::new(vec![data], false, data.len());
    copy.try_extend(0, 0, data.len())
        .map_err(|e| FfiError::new(sluice_status::SLUICE_ERR_OFFSET_OVERFLOW, format!("{context}: {e}")))?;
    Ok(copy.freeze())
}

/// Byte ranges of every buffer (values, NULL mask, children) of `data`.
fn buffer_ranges(data: &ArrayData, out: &mut Vec<(usize, usize)>) {
    for b in data.buffers() {
        out.push((b.as_ptr() as usize, b.as_ptr() as usize + b.len()));
    }
    if let Some(n) = data.nulls() {
        let b = n.buffer();
        out.push((b.as_ptr() as usize, b.as_ptr() as usize + b.len()));
    }
    for c in data.child_data() {
        buffer_ranges(c, out);
    }
}

/// [`buffer_ranges`] of `a`, read in place for the layouts the kernels'
/// inputs have (byte arrays and `Int32`): no `to_data` copy of the buffer
/// list per input and call. Other layouts go through `to_data`.
fn array_ranges(a: &dyn Array, out: &mut Vec<(usize, usize)>) {
    fn push(b: &arrow_buffer::Buffer, out: &mut Vec<(usize, usize)>) {
        out.push((b.as_ptr() as usize, b.as_ptr() as usize + b.len()));
    }
    fn bytes<T: arrow_array::types::ByteArrayType>(
        a: &arrow_array::GenericByteArray<T>,
        out: &mut Vec<(usize, usize)>,
    ) {
        push(a.offsets().inner().inner(), out);
        push(a.values(), out);
    }
    match a.data_type() {
        DataType::Binary => bytes(a.as_binary::<i32>(), out),
        DataType::LargeBinary => bytes(a.as_binary::<i64>(), out),
        DataType::Utf8 => bytes(a.as_string::<i32>(), out),
        DataType::LargeUtf8 => bytes(a.as_string::<i64>(), out),
        DataType::Int32 => push(a.as_primitive::<arrow_array::types::Int32Type>().values().inner(), out),
        _ => return buffer_ranges(&a.to_data(), out),
    }
    if let Some(n) = a.nulls() {
        push(n.buffer(), out);
    }
}

fn overlaps(a: (usize, usize), ranges: &[(usize, usize)]) -> bool {
    a.0 < a.1 && ranges.iter().any(|r| r.0 < r.1 && a.0 < r.1 && r.0 < a.1)
}

/// `data` with no buffer shared with `inputs`: a shared NULL mask alone is
/// copied (n/8 bytes); anything else shared makes a full copy.
///
/// # Errors
/// `SLUICE_ERR_OFFSET_OVERFLOW` if a full copy's offsets overflow.
pub fn detach(data: ArrayData, inputs: &[&dyn Array]) -> FfiResult<ArrayData> {
    let mut theirs = Vec::with_capacity(4 * inputs.len());
    for a in inputs {
        array_ranges(*a, &mut theirs);
    }
    let mut ours = Vec::with_capacity(4);
    for b in data.buffers() {
        ours.push((b.as_ptr() as usize, b.as_ptr() as usize + b.len()));
    }
    for c in data.child_data() {
        buffer_ranges(c, &mut ours);
    }
    if ours.iter().any(|r| overlaps(*r, &theirs)) {
        return compact_copy(&data, "copying the output");
    }
    match data.nulls() {
        Some(n)
            if overlaps((n.buffer().as_ptr() as usize, n.buffer().as_ptr() as usize + n.buffer().len()), &theirs) =>
        {
            let bits = arrow_buffer::BooleanBuffer::new(
                arrow_buffer::Buffer::from_slice_ref(n.buffer().as_slice()),
                n.offset(),
                n.len(),
            );
            // SAFETY: the same bits (a copy) with the same offset and length;
            // `null_count` is unchanged.
            let nulls = unsafe { arrow_buffer::NullBuffer::new_unchecked(bits, n.null_count()) };
            let builder = data.into_builder().nulls(Some(nulls));
            // SAFETY: only the NULL mask's memory changed, not its contents.
            Ok(unsafe { builder.build_unchecked() })
        }
        _ => Ok(data),
    }
}

fn has_zero_offsets(data: &ArrayData) -> bool {
    data.offset() == 0 && data.child_data().iter().all(has_zero_offsets)
}
