//! `io.sluice.jni.CalcNative`: the Calc operator's projection list
//! (MD5, SHA1, SHA2, CONCAT, CONCAT_WS, search functions) over a batch of
//! rows, through [`sluice_engine::calc::CalcProgram`].
//!
//! One handle per operator instance holds the program (both row converters)
//! and its scratch, so a warm batch allocates only its Arrow columns and the
//! returned `RowBlock`.
//!
//! This module holds the handle and the row path; its children, which
//! depend only on it, hold the other two input paths: `utf16`
//! (`processUtf16`, `encodeCacheStats`) and `columns` (`columnKinds`,
//! `processColumns`).

mod columns;
mod utf16;

use jni::objects::{JIntArray, JObjectArray};
use jni::sys::{jlong, jobject, jobjectArray};
use sluice_engine::calc::CalcProgram;
use sluice_transpose::{FlinkType, Rows};

use crate::capi::error::{FfiError, FfiResult};
use crate::jni::handle::{free_handle, into_handle, JavaClass};
use crate::jni::rows::{row_block, with_row_batch, RowBatchScratch};
use crate::jni::strings::{read_required_strings, read_strings, string_array, type_array};

/// The native state behind a `CalcNative` handle.
#[derive(Debug)]
struct CalcHandle {
    program: CalcProgram,
    scratch: RowBatchScratch,
    rows: Rows,
    /// Scratch of `processUtf16` ([`utf16`]).
    utf16: Utf16Scratch,
}

impl JavaClass for CalcHandle {
    const CLASS: &'static str = "CalcNative";
}

/// Reusable scratch of `processUtf16`: the copied field indexes, offsets
/// and NULL flags.
#[derive(Default, Debug)]
struct Utf16Scratch {
    fields: Vec<i32>,
    ints: Vec<i32>,
    offsets: Vec<Vec<i64>>,
    flags: Vec<u8>,
}

fn parse_types(types: &[String], what: &str) -> FfiResult<Vec<FlinkType>> {
    types
        .iter()
        .enumerate()
        .map(|(i, t)| FlinkType::parse(t).map_err(|e| FfiError::invalid(format!("{what}[{i}] = {t}: {e}"))))
        .collect()
}

jni_entry! {
    /// `static native long create(String[] inputNames, String[] inputTypes,
    /// String[] expressions, String[] outputTypes)`: types as
    /// `LogicalType#asSerializableString()`; `outputTypes` may be null (inferred).
    fn Java_io_sluice_jni_CalcNative_create(
        env,
        input_names: JObjectArray<'l>,
        input_types: JObjectArray<'l>,
        expressions: JObjectArray<'l>,
        output_types: JObjectArray<'l>,
    ) -> jlong = ("CalcNative.create", 0) {
        let names = read_required_strings(&mut env, &input_names, "inputNames")?;
        let types = read_required_strings(&mut env, &input_types, "inputTypes")?;
        let exprs = read_required_strings(&mut env, &expressions, "expressions")?;
        let out = read_strings(&mut env, &output_types, "outputTypes")?;
        let types = parse_types(&types, "inputTypes")?;
        let out = out.map(|o| parse_types(&o, "outputTypes")).transpose()?;
        let refs: Vec<&str> = exprs.iter().map(String::as_str).collect();
        let program = CalcProgram::new(&names, &types, &refs, out.as_deref())?;
        Ok(into_handle(CalcHandle {
            program,
            scratch: RowBatchScratch::default(),
            rows: Rows::default(),
            utf16: Default::default(),
        }))
    }
}

jni_entry! {
    /// `static native String[] outputTypes(long handle)`: the output columns'
    /// types as serializable strings.
    fn Java_io_sluice_jni_CalcNative_outputTypes(env, h: &mut CalcHandle) -> jobjectArray
    = ("CalcNative.outputTypes", std::ptr::null_mut()) {
        type_array(&mut env, h.program.output_types().iter())
    }
}

jni_entry! {
    /// `static native String[] outputNames(long handle)`.
    fn Java_io_sluice_jni_CalcNative_outputNames(env, h: &mut CalcHandle) -> jobjectArray
    = ("CalcNative.outputNames", std::ptr::null_mut()) {
        string_array(&mut env, h.program.output_names().iter().cloned())
    }
}

jni_entry! {
    /// `static native void setFilters(long handle, int[] columns)`: the
    /// output columns (BOOLEAN) that are the WHERE; the program then
    /// projects only the rows where all are TRUE, and the returned blocks
    /// hold an empty row for each dropped row
    /// ([`sluice_engine::calc::filter`]).
    fn Java_io_sluice_jni_CalcNative_setFilters(env, h: &mut CalcHandle, columns: JIntArray<'l>)
    = ("CalcNative.setFilters", ()) {
        if columns.is_null() {
            return Err(FfiError::null("columns"));
        }
        let n = env.get_array_length(&columns)? as usize;
        let mut ints = vec![0i32; n];
        env.get_int_array_region(&columns, 0, &mut ints)?;
        let cols = ints
            .iter()
            .map(|&c| usize::try_from(c).map_err(|_| FfiError::invalid(format!("filter column {c} is negative"))))
            .collect::<FfiResult<Vec<usize>>>()?;
        Ok(h.program.set_filters(&cols)?)
    }
}

row_batch_entry! {
    /// `static native RowBlock process(long handle, Object[] segments, int
    /// numSegments, int[] rowSegment, int[] rowOffset, int[] rowSize, int
    /// numRows)`: entry transpose, projection, exit transpose.
    fn Java_io_sluice_jni_CalcNative_process(env, h: &mut CalcHandle; batch) -> jobject = ("CalcNative.process", std::ptr::null_mut()) {
        let CalcHandle { program, scratch, rows, .. } = h;
        with_row_batch(&mut env, &batch, scratch, |segs, addrs| Ok(program.process_segments(segs, addrs, rows)?))?;
        row_block(&mut env, rows)
    }
}

jni_entry! {
    /// `static native void free(long handle)`.
    fn Java_io_sluice_jni_CalcNative_free(env, handle: jlong) = ("CalcNative.free", ()) {
        // SAFETY: Java frees each handle exactly once (NativeHandle's State).
        unsafe { free_handle::<CalcHandle>(handle) };
        Ok(())
    }
}
