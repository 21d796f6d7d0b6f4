//! A batch of Flink `BinaryRowData` in, a block of rows out.
//!
//! **In** (`io.sluice.jni.RowBatch`): Java hands over the rows' heap
//! segments as they are — `Object[] segments` (distinct `byte[]`s) and per
//! row its segment index, byte offset and size (`int[]`s). [`with_row_batch`]
//! pins every segment with `GetPrimitiveArrayCritical` (no copy on HotSpot),
//! so the entry transpose reads each string straight out of the Java heap
//! and copies it exactly once, into the Arrow values buffer. No JNI call
//! happens while the segments are pinned.
//!
//! **Out** (`io.sluice.jni.RowBlock`): the exit transpose's rows, back to
//! back in one `byte[]` plus `int[]` offsets; Java points one
//! `BinaryRowData` per row into that array (the RowKind is in each row's
//! header byte).

use std::ffi::c_void;
use std::ptr;

use jni::objects::{JByteArray, JIntArray, JObject, JObjectArray, JPrimitiveArray, JValue, TypeArray};
use jni::sys::{jboolean, jint, jobject, JNI_ABORT};
use jni::JNIEnv;
use sluice_transpose::{RowAddress, Rows};

use crate::error::{FfiError, FfiResult};

/// The Java class of a block of output rows.
pub const ROW_BLOCK_CLASS: &str = "io/sluice/jni/RowBlock";

/// Reusable per-operator scratch for [`with_row_batch`]: row addresses and
/// the `int[]` copies, so a batch allocates nothing once warm.
#[derive(Default, Debug)]
pub struct RowBatchScratch {
    addresses: Vec<RowAddress>,
    ints: Vec<i32>,
}

/// The arguments by which a Java `RowBatch` reaches a native method:
/// `segments` (`byte[][]` as `Object[]`, the first `num_segments` used) and
/// per row its segment index, byte offset and size (the first `num_rows`
/// entries of each `int[]`).
#[derive(Debug)]
pub struct JavaRowBatch<'a, 'l> {
    /// The distinct heap segments (`Object[]` of `byte[]`).
    pub segments: &'a JObjectArray<'l>,
    /// How many entries of `segments` are used.
    pub num_segments: jint,
    /// Per row: index into `segments`.
    pub row_segment: &'a JIntArray<'l>,
    /// Per row: byte offset in its segment.
    pub row_offset: &'a JIntArray<'l>,
    /// Per row: size in bytes.
    pub row_size: &'a JIntArray<'l>,
    /// Rows in the batch.
    pub num_rows: jint,
}

impl<'a, 'l> JavaRowBatch<'a, 'l> {
    /// The batch from a native method's `RowBatch` arguments, in the order
    /// every such method declares them.
    pub fn new(
        segments: &'a JObjectArray<'l>,
        num_segments: jint,
        row_segment: &'a JIntArray<'l>,
        row_offset: &'a JIntArray<'l>,
        row_size: &'a JIntArray<'l>,
        num_rows: jint,
    ) -> Self {
        JavaRowBatch { segments, num_segments, row_segment, row_offset, row_size, num_rows }
    }
}

/// Pins the segments of a Java `RowBatch` and calls `f(segments, rows)`.
///
/// Every address is checked against its segment's length before `f` runs.
/// `f` must not call JNI (the segments are in a critical region).
pub fn with_row_batch<R>(
    env: &mut JNIEnv<'_>,
    batch: &JavaRowBatch<'_, '_>,
    scratch: &mut RowBatchScratch,
    f: impl FnOnce(&[&[u8]], &[RowAddress]) -> FfiResult<R>,
) -> FfiResult<R> {
    let n = usize::try_from(batch.num_rows)
        .map_err(|_| FfiError::invalid(format!("numRows is negative ({})", batch.num_rows)))?;
    read_addresses(env, batch.row_segment, batch.row_offset, batch.row_size, n, scratch)?;
    if batch.segments.is_null() {
        return Err(FfiError::null("segments"));
    }
    let n_seg = usize::try_from(batch.num_segments)
        .map_err(|_| FfiError::invalid(format!("numSegments is negative ({})", batch.num_segments)))?;
    let have = env.get_array_length(batch.segments)? as usize;
    if have < n_seg {
        return Err(FfiError::invalid(format!("segments has {have} entries, fewer than numSegments {n_seg}")));
    }
    let frame = i32::try_from(n_seg + 8).map_err(|_| FfiError::invalid("too many segments"))?;
    env.with_local_frame(frame, |env| -> FfiResult<R> {
        let mut arrays: Vec<JByteArray<'_>> = Vec::with_capacity(n_seg);
        let mut lens = Vec::with_capacity(n_seg);
        for i in 0..n_seg {
            let obj = env.get_object_array_element(batch.segments, i as i32)?;
            if obj.is_null() {
                return Err(FfiError::null(&format!("segments[{i}]")));
            }
            let arr = JByteArray::from(obj);
            lens.push(env.get_array_length(&arr)? as usize);
            arrays.push(arr);
        }
        for (row, a) in scratch.addresses.iter().enumerate() {
            let Some(len) = lens.get(a.segment) else {
                return Err(FfiError::invalid(format!(
                    "row {row}: segment index {} out of range ({n_seg} segments)",
                    a.segment
                )));
            };
            if a.offset.checked_add(a.len).is_none_or(|end| end > *len) {
                return Err(FfiError::invalid(format!(
                    "row {row}: bytes {}..{}+{} lie outside its {len}-byte segment",
                    a.offset, a.offset, a.len
                )));
            }
        }
        // SAFETY: the current thread's env; `arrays` are live non-NULL
        // local byte[] references of `lens` bytes; u8 takes any i8 pattern.
        let pinned = unsafe { Pinned::<i8, u8>::pin(env.get_raw(), &arrays, &lens) }?;
        f(&pinned.slices, &scratch.addresses)
    })
}

/// Copies the three address arrays into `scratch.addresses`.
fn read_addresses(
    env: &mut JNIEnv<'_>,
    row_segment: &JIntArray<'_>,
    row_offset: &JIntArray<'_>,
    row_size: &JIntArray<'_>,
    n: usize,
    scratch: &mut RowBatchScratch,
) -> FfiResult<()> {
    scratch.addresses.clear();
    scratch.addresses.resize(n, RowAddress { segment: 0, offset: 0, len: 0 });
    scratch.ints.resize(n, 0);
    let parts: [(&JIntArray<'_>, &str); 3] =
        [(row_segment, "rowSegment"), (row_offset, "rowOffset"), (row_size, "rowSize")];
    for (k, (arr, name)) in parts.into_iter().enumerate() {
        if arr.is_null() {
            return Err(FfiError::null(name));
        }
        let len = env.get_array_length(arr)? as usize;
        if len < n {
            return Err(FfiError::invalid(format!("{name} has {len} entries, fewer than numRows {n}")));
        }
        env.get_int_array_region(arr, 0, &mut scratch.ints[..n])?;
        for (row, (a, &v)) in scratch.addresses.iter_mut().zip(&scratch.ints).enumerate() {
            let v = usize::try_from(v).map_err(|_| FfiError::invalid(format!("{name}[{row}] is negative ({v})")))?;
            match k {
                0 => a.segment = v,
                1 => a.offset = v,
                _ => a.len = v,
            }
        }
    }
    Ok(())
}

/// Primitive arrays pinned with `GetPrimitiveArrayCritical`, seen as
/// slices of `E` (same size as the Java element type `A`), released on drop
/// (also when the caller panics).
pub(crate) struct Pinned<'a, A: TypeArray, E> {
    raw: *mut jni::sys::JNIEnv,
    arrays: &'a [JPrimitiveArray<'a, A>],
    ptrs: Vec<*mut c_void>,
    /// The pinned arrays' elements, in the order of `arrays`.
    pub(crate) slices: Vec<&'a [E]>,
}

impl<'a, A: TypeArray, E> Pinned<'a, A, E> {
    /// Pins `arrays` (`lens[i]` elements each, as read with
    /// `GetArrayLength`). Only other `Get*Critical` calls may follow until
    /// the value is dropped.
    ///
    /// # Safety
    /// `raw` is the current thread's valid `JNIEnv`; every array is a live,
    /// non-NULL local reference of length `lens[i]`; `E` is a plain integer
    /// type every bit pattern of `A` is valid for.
    pub(crate) unsafe fn pin(
        raw: *mut jni::sys::JNIEnv,
        arrays: &'a [JPrimitiveArray<'a, A>],
        lens: &[usize],
    ) -> FfiResult<Self> {
        if std::mem::size_of::<E>() != std::mem::size_of::<A>() || std::mem::align_of::<E>() > std::mem::align_of::<A>()
        {
            return Err(FfiError::invalid("JNI: pinned element type does not match the Java array's"));
        }
        // SAFETY: `raw` is valid per the caller; the function table is
        // filled by the JVM.
        let table = unsafe { &**raw };
        let (Some(get), Some(_)) = (table.GetPrimitiveArrayCritical, table.ReleasePrimitiveArrayCritical) else {
            return Err(FfiError::invalid("JNI: GetPrimitiveArrayCritical missing"));
        };
        let mut pinned =
            Pinned { raw, arrays, ptrs: Vec::with_capacity(arrays.len()), slices: Vec::with_capacity(arrays.len()) };
        for (arr, &len) in arrays.iter().zip(lens) {
            // SAFETY: `arr` is a live local reference to a primitive array
            // (caller's contract); critical regions may nest, and no other
            // JNI call happens until every one is released in `drop`.
            let p = unsafe { get(raw, arr.as_raw(), ptr::null_mut::<jboolean>()) };
            if p.is_null() {
                return Err(FfiError::invalid("JNI: GetPrimitiveArrayCritical returned NULL (out of memory)"));
            }
            pinned.ptrs.push(p);
            // SAFETY: the JVM guarantees `len` readable elements of `A` at
            // `p` (the array's length) until the release in `drop`, which
            // outlives every use of `slices` (borrowed from `self`); `E` has
            // `A`'s size, no stricter alignment (checked above) and accepts
            // every bit pattern (caller's contract).
            pinned.slices.push(unsafe { std::slice::from_raw_parts(p.cast::<E>(), len) });
        }
        Ok(pinned)
    }
}

impl<A: TypeArray, E> Drop for Pinned<'_, A, E> {
    fn drop(&mut self) {
        self.slices.clear();
        // SAFETY: as in `pin`; the table was checked to have the function.
        let table = unsafe { &**self.raw };
        if let Some(release) = table.ReleasePrimitiveArrayCritical {
            for (arr, &p) in self.arrays.iter().zip(&self.ptrs).rev() {
                // SAFETY: `p` came from GetPrimitiveArrayCritical on `arr`
                // and is released exactly once; JNI_ABORT: nothing to copy back.
                unsafe { release(self.raw, arr.as_raw(), p, JNI_ABORT) };
            }
        }
    }
}

/// Builds a `RowBlock(byte[] data, int[] offsets)` from `rows`.
pub fn row_block<'l>(env: &mut JNIEnv<'l>, rows: &Rows) -> FfiResult<jobject> {
    let too_big = || {
        FfiError::new(
            crate::error::sluice_status::SLUICE_ERR_OFFSET_OVERFLOW,
            format!("{} bytes of rows exceed a Java array; use a smaller batch", rows.data.len()),
        )
    };
    let len = i32::try_from(rows.data.len()).map_err(|_| too_big())?;
    let data = env.new_byte_array(len)?;
    let bytes: &[i8] = as_i8(&rows.data);
    env.set_byte_array_region(&data, 0, bytes)?;
    let offsets: Vec<i32> =
        rows.offsets.iter().map(|&o| i32::try_from(o).map_err(|_| too_big())).collect::<FfiResult<_>>()?;
    let offs = env.new_int_array(offsets.len() as i32)?;
    env.set_int_array_region(&offs, 0, &offsets)?;
    let obj: JObject<'l> =
        env.new_object(ROW_BLOCK_CLASS, "([B[I)V", &[JValue::Object(&data), JValue::Object(&offs)])?;
    Ok(obj.into_raw())
}

/// `b` as Java's signed bytes.
fn as_i8(b: &[u8]) -> &[i8] {
    // SAFETY: u8 and i8 have identical size and alignment and every bit
    // pattern is valid for both; the lifetime is carried over.
    unsafe { std::slice::from_raw_parts(b.as_ptr().cast::<i8>(), b.len()) }
}
