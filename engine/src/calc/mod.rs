//! Native Calc: a projection list of string functions evaluated over a batch
//! of Flink rows, with both transposes included.
//!
//! A [`CalcProgram`] is built once per operator from the input columns'
//! names and Flink types and one expression per output column (grammar in
//! [`spec`]). It holds the entry and exit [`RowConverter`]s, so each batch
//! runs: rows → Arrow (one copy per string, from the row into the Arrow
//! values buffer) → kernels → rows (one copy per output string).
//!
//! With filters ([`filter`], a native WHERE), the filter expressions run
//! first and the others only over the rows that pass, as in Flink's Calc.
//!
//! The program takes its input in one of three ways ([`input`]): Flink rows
//! in heap segments, rows whose strings arrive as UTF-16, or borrowed
//! column arrays. The Java operators (through the JNI binding) use all
//! three; the type is plain Rust, so a C caller or a Rust program holds it
//! just the same.

pub mod eval;
pub mod filter;
pub mod input;
pub mod spec;

use std::sync::Arc;

use arrow_array::{Array, ArrayRef, RecordBatch, RecordBatchOptions};
use sluice_transpose::lazy_strings::Utf16Column;
use sluice_transpose::{FlinkType, RowConverter, RowKind};

use crate::error::{Error, Result};
use eval::{Bound, Inputs};

/// A compiled projection list with its converters, and optionally a WHERE
/// ([`filter`]) evaluated before the projections.
#[derive(Debug)]
pub struct CalcProgram {
    input: RowConverter,
    output: RowConverter,
    exprs: Vec<Bound>,
    out_names: Vec<String>,
    out_types: Vec<FlinkType>,
    kinds: Vec<RowKind>,
    /// The RowKinds of the rows a filter keeps ([`filter`]).
    kept_kinds: Vec<RowKind>,
    /// Output columns that filter the rows ([`filter`]); empty: none.
    filters: Vec<usize>,
    /// Input fields some expression reads; only these are decoded.
    needed: Vec<bool>,
    /// One repeated-value encode cache per input field, for columns that
    /// arrive as UTF-16 ([`input::utf16`]); empty until the first such batch.
    utf16_caches: Vec<sluice_kernels::encode::CachedEncoder>,
}

impl CalcProgram {
    /// Compiles `exprs` (one per output column) against the input columns.
    ///
    /// `output_types`, when given (e.g. what Flink's planner infers for the
    /// same SQL), replaces the inferred output types; each must have the
    /// same Arrow representation as the inferred one.
    ///
    /// # Errors
    /// [`Error::Parse`] for a parse error (naming the expression and byte);
    /// [`Error::Bind`] for an unknown column, a wrong argument type, a
    /// constant output column or an incompatible output type;
    /// [`Error::Transpose`] for an input type sluice cannot carry.
    pub fn new(
        input_names: &[String],
        input_types: &[FlinkType],
        exprs: &[&str],
        output_types: Option<&[FlinkType]>,
    ) -> Result<Self> {
        if input_names.len() != input_types.len() {
            return Err(Error::bind(format!(
                "{} input names for {} input types",
                input_names.len(),
                input_types.len()
            )));
        }
        if exprs.is_empty() {
            return Err(Error::bind("the projection list is empty"));
        }
        if let Some(o) = output_types {
            if o.len() != exprs.len() {
                return Err(Error::bind(format!("{} output types for {} expressions", o.len(), exprs.len())));
            }
        }
        let names: Vec<&str> = input_names.iter().map(String::as_str).collect();
        let input = RowConverter::from_flink_types(&names, input_types)?;
        let inputs = Inputs { names: input_names, types: input_types };
        let mut bound = Vec::with_capacity(exprs.len());
        let mut out_names = Vec::with_capacity(exprs.len());
        let mut out_types = Vec::with_capacity(exprs.len());
        for (i, text) in exprs.iter().enumerate() {
            let at = |m: String| Error::bind(format!("expression {} ({text}): {m}", i + 1));
            let p = spec::parse(text).map_err(|e| match e {
                Error::Parse { text, pos, message, .. } => Error::Parse { expression: Some(i + 1), text, pos, message },
                other => other,
            })?;
            let (b, t, reads) = eval::bind(&p.expr, &inputs).map_err(|e| at(e.to_string()))?;
            if !reads {
                return Err(at("uses no input column; constant output columns are not supported".into()));
            }
            let t = match output_types.and_then(|o| o.get(i)) {
                Some(given) if given.to_arrow_type() != t.to_arrow_type() => {
                    return Err(at(format!("output type {given} is not compatible with the computed {t}")));
                }
                Some(given) => given.clone(),
                None => t,
            };
            let name = match (&p.alias, &b) {
                (Some(a), _) => a.clone(),
                (None, Bound::Column(c)) => input_names.get(*c).cloned().unwrap_or_default(),
                _ => format!("EXPR${i}"),
            };
            bound.push(b);
            out_names.push(name);
            out_types.push(t);
        }
        let names: Vec<&str> = out_names.iter().map(String::as_str).collect();
        let output = RowConverter::from_flink_types(&names, &out_types)?;
        let mut needed = vec![false; input_types.len()];
        for b in &bound {
            mark_columns(b, &mut needed);
        }
        Ok(CalcProgram {
            input,
            output,
            exprs: bound,
            out_names,
            out_types,
            kinds: Vec::new(),
            kept_kinds: Vec::new(),
            filters: Vec::new(),
            needed,
            utf16_caches: Vec::new(),
        })
    }

    /// Output column names (alias, input name for a pass-through, else
    /// `EXPR$i` as Flink names them).
    pub fn output_names(&self) -> &[String] {
        &self.out_names
    }

    /// Output column types.
    pub fn output_types(&self) -> &[FlinkType] {
        &self.out_types
    }

    /// Evaluates the projection over a decoded input batch.
    ///
    /// # Errors
    /// Kernel errors (e.g. Flink's SHA2 width error).
    pub fn eval(&self, batch: &RecordBatch) -> Result<RecordBatch> {
        self.eval_with_utf16(batch, &[])
    }

    /// As [`eval`](Self::eval), with the UTF-16 values of the input columns
    /// that arrived as Java chars (see [`eval::eval`]).
    ///
    /// # Errors
    /// As [`eval`](Self::eval).
    pub fn eval_with_utf16(&self, batch: &RecordBatch, utf16: &[Utf16Column<'_>]) -> Result<RecordBatch> {
        let n = batch.num_rows();
        let mut columns: Vec<ArrayRef> = Vec::with_capacity(self.exprs.len());
        for (i, b) in self.exprs.iter().enumerate() {
            let a = eval::eval(b, batch, utf16)?;
            if a.array.len() != n {
                return Err(Error::invalid(format!("output column {i} has {} values for {n} rows", a.array.len())));
            }
            columns.push(a.array);
        }
        let schema = Arc::clone(self.output.schema());
        Ok(RecordBatch::try_new_with_options(schema, columns, &RecordBatchOptions::new().with_row_count(Some(n)))?)
    }
}

/// Marks every input column `b` reads.
fn mark_columns(b: &Bound, needed: &mut [bool]) {
    match b {
        Bound::Column(c) => {
            if let Some(slot) = needed.get_mut(*c) {
                *slot = true;
            }
        }
        Bound::Literal(_) => {}
        Bound::Call { args, .. } => args.iter().for_each(|a| mark_columns(a, needed)),
    }
}

#[cfg(test)]
mod tests;
