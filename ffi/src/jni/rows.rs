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

use std::sync::OnceLock;

use jni::objects::{GlobalRef, JByteArray, JClass, JIntArray, JMethodID, JObject, JObjectArray, JValue};
use jni::sys::{jint, jobject};
use jni::JNIEnv;
use sluice_transpose::{RowAddress, Rows};

use crate::capi::error::{sluice_status, FfiError, FfiResult};
use crate::jni::arrays;
use crate::jni::pin::Pinned;

/// The Java class of a block of output rows.
pub const ROW_BLOCK_CLASS: &str = "io/sluice/jni/RowBlock";

/// `RowBlock` and its `(byte[], int[])` constructor, looked up once per JVM
/// (as the column handover's array classes are).
static ROW_BLOCK: OnceLock<(GlobalRef, JMethodID)> = OnceLock::new();

/// Reusable per-operator scratch for [`with_row_batch`]: row addresses and
/// the `int[]` copies, so a batch allocates nothing once warm.
#[derive(Default, Debug)]
pub struct RowBatchScratch {
    addresses: Vec<RowAddress>,
    ints: Vec<i32>,
}

/// Declares a native method on a handle (`$h: &mut T`, as in `jni_entry!`)
/// that takes a Java `RowBatch` (`Object[] segments, int numSegments, int[]
/// rowSegment, int[] rowOffset, int[] rowSize, int numRows`, after the
/// handle and any extra arguments), so the six arguments are written once:
/// the body sees them as one [`JavaRowBatch`] named by `$batch`.
macro_rules! row_batch_entry {
    (
        $(#[$meta:meta])*
        fn $name:ident($env:ident, $h:ident: &mut $ty:ty $(, $extra:ident: $extra_ty:ty)*; $batch:ident) -> $ret:ty
        = ($what:expr, $default:expr) $body:block
    ) => {
        jni_entry! {
            $(#[$meta])*
            fn $name(
                $env,
                $h: &mut $ty,
                $($extra: $extra_ty,)*
                segments: jni::objects::JObjectArray<'l>,
                num_segments: jni::sys::jint,
                row_segment: jni::objects::JIntArray<'l>,
                row_offset: jni::objects::JIntArray<'l>,
                row_size: jni::objects::JIntArray<'l>,
                num_rows: jni::sys::jint,
            ) -> $ret = ($what, $default) {
                let $batch = $crate::jni::rows::JavaRowBatch::new(
                    &segments,
                    num_segments,
                    &row_segment,
                    &row_offset,
                    &row_size,
                    num_rows,
                );
                $body
            }
        }
    };
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
        let mut segments: Vec<JByteArray<'_>> = Vec::with_capacity(n_seg);
        let mut lens = Vec::with_capacity(n_seg);
        for i in 0..n_seg {
            let seg = arrays::required(env, batch.segments, i, ("[B", "segments"))?;
            lens.push(seg.len);
            segments.push(JByteArray::from(seg.array));
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
        // SAFETY: the current thread's env; only `f`, which must not call
        // JNI, runs until `pinned` is dropped.
        let mut pinned = unsafe { Pinned::<u8>::new(env.get_raw(), segments.len()) }?;
        for (arr, &len) in segments.iter().zip(&lens) {
            // SAFETY: a live non-NULL local byte[] reference of `len` bytes;
            // u8 takes any i8 pattern.
            unsafe { pinned.pin(arr.as_raw(), len) }?;
        }
        f(pinned.slices(), &scratch.addresses)
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

/// Builds a `RowBlock(byte[] data, int[] offsets)` from `rows`.
pub fn row_block<'l>(env: &mut JNIEnv<'l>, rows: &Rows) -> FfiResult<jobject> {
    let too_big = || {
        FfiError::new(
            sluice_status::SLUICE_ERR_OFFSET_OVERFLOW,
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
    if ROW_BLOCK.get().is_none() {
        let class = env.find_class(ROW_BLOCK_CLASS)?;
        let ctor = env.get_method_id(&class, "<init>", "([B[I)V")?;
        // A racing thread may have set it first; both hold the same class.
        let _ = ROW_BLOCK.set((env.new_global_ref(&class)?, ctor));
    }
    let (class, ctor) = ROW_BLOCK.get().ok_or_else(|| FfiError::invalid("JNI: RowBlock class not cached"))?;
    let class: &JClass<'_> = class.as_obj().into();
    let args = [JValue::Object(&data).as_jni(), JValue::Object(&offs).as_jni()];
    // SAFETY: `ctor` is RowBlock's `([B[I)V` constructor, looked up on
    // `class`, and `args` are a byte[] and an int[], live local references.
    let obj: JObject<'l> = unsafe { env.new_object_unchecked(class, *ctor, &args) }?;
    Ok(obj.into_raw())
}

/// `b` as Java's signed bytes.
fn as_i8(b: &[u8]) -> &[i8] {
    // SAFETY: u8 and i8 have identical size and alignment and every bit
    // pattern is valid for both; the lifetime is carried over.
    unsafe { std::slice::from_raw_parts(b.as_ptr().cast::<i8>(), b.len()) }
}
