//! `io.sluice.jni.CalcNative.processUtf16`: the Calc over rows whose CHAR /
//! VARCHAR fields come as UTF-16 (lazy `BinaryStringData` holding a
//! `java.lang.String`), through [`CalcProgram::process_segments_utf16`].
//!
//! Per UTF-16 column Java hands over (`io.sluice.jni.Utf16Columns`): the
//! field index, one `char[]` of all values' code units back to back (filled
//! with `String.getChars`), an `int[]` of `numRows + 1` offsets in units and
//! a `boolean[]` of NULL flags (`true` = NULL; a null array = no NULLs).
//! The `char[]`s are pinned like the row segments (no copy on HotSpot), so
//! each string is encoded once, from the Java heap into the Arrow values
//! buffer; offsets and flags are copied (4-5 bytes a row).
//!
//! [`CalcProgram::process_segments_utf16`]: sluice_engine::calc::CalcProgram::process_segments_utf16

use arrow_buffer::NullBuffer;
use jni::objects::{JBooleanArray, JCharArray, JIntArray, JObjectArray};
use jni::sys::{jint, jlongArray, jobject};
use jni::JNIEnv;
use sluice_transpose::lazy_strings::Utf16Column;

use super::CalcHandle;
use crate::capi::error::{FfiError, FfiResult};
use crate::jni::arrays;
use crate::jni::pin::Pinned;
use crate::jni::rows::{row_block, with_row_batch, JavaRowBatch};

/// The UTF-16 columns' arguments.
struct JavaUtf16Columns<'a, 'l> {
    fields: &'a JIntArray<'l>,
    units: &'a JObjectArray<'l>,
    offsets: &'a JObjectArray<'l>,
    nulls: &'a JObjectArray<'l>,
    num_columns: jint,
}

fn non_null<'a, T: AsRef<jni::objects::JObject<'a>>>(o: &T, what: &str) -> FfiResult<()> {
    if o.as_ref().is_null() {
        return Err(FfiError::null(what));
    }
    Ok(())
}

jni_entry! {
    /// `static native RowBlock processUtf16(long handle, Object[] segments, int
    /// numSegments, int[] rowSegment, int[] rowOffset, int[] rowSize, int
    /// numRows, int[] fields, Object[] units, Object[] offsets, Object[] nulls,
    /// int numColumns)`: as `process`, with input fields `fields[0..numColumns]`
    /// taken from `units[c]` (`char[]`), `offsets[c]` (`int[]`, `numRows + 1`)
    /// and `nulls[c]` (`boolean[]` or null) instead of from the rows.
    fn Java_io_sluice_jni_CalcNative_processUtf16(
        env,
        h: &mut CalcHandle,
        segments: JObjectArray<'l>,
        num_segments: jint,
        row_segment: JIntArray<'l>,
        row_offset: JIntArray<'l>,
        row_size: JIntArray<'l>,
        num_rows: jint,
        fields: JIntArray<'l>,
        units: JObjectArray<'l>,
        offsets: JObjectArray<'l>,
        nulls: JObjectArray<'l>,
        num_columns: jint,
    ) -> jobject = ("CalcNative.processUtf16", std::ptr::null_mut()) {
        let batch = JavaRowBatch::new(&segments, num_segments, &row_segment, &row_offset, &row_size, num_rows);
        let cols = JavaUtf16Columns { fields: &fields, units: &units, offsets: &offsets, nulls: &nulls, num_columns };
        process(&mut env, h, &batch, &cols)?;
        row_block(&mut env, &h.rows)
    }
}

fn process(
    env: &mut JNIEnv<'_>,
    h: &mut CalcHandle,
    batch: &JavaRowBatch<'_, '_>,
    cols: &JavaUtf16Columns<'_, '_>,
) -> FfiResult<()> {
    let n = usize::try_from(batch.num_rows)
        .map_err(|_| FfiError::invalid(format!("numRows is negative ({})", batch.num_rows)))?;
    let k = usize::try_from(cols.num_columns)
        .map_err(|_| FfiError::invalid(format!("numColumns is negative ({})", cols.num_columns)))?;
    non_null(cols.fields, "fields")?;
    non_null(cols.units, "units")?;
    non_null(cols.offsets, "offsets")?;
    non_null(cols.nulls, "nulls")?;
    for (arr, what) in [(cols.units, "units"), (cols.offsets, "offsets"), (cols.nulls, "nulls")] {
        let len = env.get_array_length(arr)? as usize;
        if len < k {
            return Err(FfiError::invalid(format!("{what} has {len} entries, fewer than numColumns {k}")));
        }
    }
    if (env.get_array_length(cols.fields)? as usize) < k {
        return Err(FfiError::invalid(format!("fields has fewer than numColumns {k} entries")));
    }
    let CalcHandle { program, scratch, rows, utf16 } = h;
    utf16.fields.resize(k, 0);
    env.get_int_array_region(cols.fields, 0, &mut utf16.fields)?;
    let mut fields = Vec::with_capacity(k);
    for (c, &f) in utf16.fields.iter().enumerate() {
        fields.push(usize::try_from(f).map_err(|_| FfiError::invalid(format!("fields[{c}] is negative ({f})")))?);
    }
    utf16.offsets.resize_with(k, Vec::new);
    utf16.ints.resize(n + 1, 0);
    utf16.flags.resize(n, 0);
    let frame = i32::try_from(3 * k + 8).map_err(|_| FfiError::invalid("too many UTF-16 columns"))?;
    env.with_local_frame(frame, |env| -> FfiResult<()> {
        let mut chars: Vec<JCharArray<'_>> = Vec::with_capacity(k);
        let mut lens = Vec::with_capacity(k);
        let mut validity: Vec<Option<NullBuffer>> = Vec::with_capacity(k);
        for c in 0..k {
            let u = arrays::required(env, cols.units, c, ("[C", "units"))?;
            lens.push(u.len);
            chars.push(JCharArray::from(u.array));
            let o = arrays::required(env, cols.offsets, c, ("[I", "offsets"))?;
            if o.len < n + 1 {
                return Err(FfiError::invalid(format!(
                    "offsets[{c}] has {} entries, fewer than numRows + 1 = {}",
                    o.len,
                    n + 1
                )));
            }
            env.get_int_array_region(JIntArray::from(o.array), 0, &mut utf16.ints)?;
            let offs = utf16.offsets.get_mut(c).ok_or_else(|| FfiError::invalid("offsets scratch"))?;
            offs.clear();
            offs.extend(utf16.ints.iter().map(|&v| i64::from(v)));
            validity.push(match arrays::element(env, cols.nulls, c, ("[Z", "nulls"), true)? {
                None => None,
                Some(nl) if nl.len < n => {
                    return Err(FfiError::invalid(format!("nulls[{c}] has {} entries, fewer than numRows {n}", nl.len)))
                }
                Some(nl) => {
                    env.get_boolean_array_region(JBooleanArray::from(nl.array), 0, &mut utf16.flags)?;
                    utf16
                        .flags
                        .contains(&1)
                        .then(|| NullBuffer::from(utf16.flags.iter().map(|&f| f == 0).collect::<Vec<bool>>()))
                }
            });
        }
        let raw = env.get_raw();
        let offsets = &utf16.offsets;
        with_row_batch(env, batch, scratch, |segs, addrs| {
            // SAFETY: the current thread's env; the char[]s are pinned after
            // the row segments (critical regions nest; no other JNI call
            // follows until both are released).
            let mut pinned = unsafe { Pinned::<u16>::new(raw, chars.len()) }?;
            for (u, &len) in chars.iter().zip(&lens) {
                // SAFETY: a live non-NULL local char[] reference of `len`
                // units; u16 is jchar.
                unsafe { pinned.pin(u.as_raw(), len) }?;
            }
            let columns: Vec<Utf16Column<'_>> = fields
                .iter()
                .zip(pinned.slices())
                .zip(offsets)
                .zip(&validity)
                .map(|(((&field, &units), offsets), nulls)| Utf16Column {
                    field,
                    units,
                    offsets,
                    nulls: nulls.as_ref(),
                })
                .collect();
            Ok(program.process_segments_utf16(segs, addrs, &columns, rows)?)
        })
    })
}

jni_entry! {
    /// `static native long[] encodeCacheStats(long handle, int field)`: the
    /// UTF-16 encode cache counters of input field `field` as `{hits, misses,
    /// ineligible, bypassedRows, bypassed ? 1 : 0}`, or null before any UTF-16
    /// batch.
    fn Java_io_sluice_jni_CalcNative_encodeCacheStats(env, h: &mut CalcHandle, field: jint) -> jlongArray
    = ("CalcNative.encodeCacheStats", std::ptr::null_mut()) {
        let field = usize::try_from(field).map_err(|_| FfiError::invalid(format!("field is negative ({field})")))?;
        let Some(s) = h.program.utf16_cache_stats(field) else {
            return Ok(std::ptr::null_mut());
        };
        let clamp = |v: u64| i64::try_from(v).unwrap_or(i64::MAX);
        let vals = [clamp(s.hits), clamp(s.misses), clamp(s.ineligible), clamp(s.bypassed_rows), i64::from(s.bypassed)];
        let arr = env.new_long_array(vals.len() as i32)?;
        env.set_long_array_region(&arr, 0, &vals)?;
        Ok(arr.into_raw())
    }
}
