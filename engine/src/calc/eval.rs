//! Binding parsed expressions to an input schema (name resolution, argument
//! kinds, Flink output types) and evaluating them over a `RecordBatch` with
//! the `sluice-kernels` kernels.
//!
//! Output types are the function table's ([`Func::output_type`]). A string
//! literal is `CHAR(n) NOT NULL`, an integer literal `INT NOT NULL`.

use std::sync::Arc;

use arrow_array::{ArrayRef, Datum, Int32Array, RecordBatch, StringArray};
use sluice_kernels::search::{self, JavaStr, Utf16Values};
use sluice_transpose::lazy_strings::Utf16Column;
use sluice_transpose::{FlinkType, TypeKind};

use super::spec::{ColumnRef, Expr};
use crate::error::{Error, Result};
use crate::function::{self, Func, Value};

/// What an expression yields, as far as argument checking cares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    String,
    Int,
    Other,
}

fn kind_of(t: &FlinkType) -> Kind {
    match t.kind {
        TypeKind::Char(_) | TypeKind::VarChar(_) => Kind::String,
        TypeKind::Int => Kind::Int,
        _ => Kind::Other,
    }
}

/// An expression bound to an input schema.
#[derive(Clone, Debug)]
pub enum Bound {
    /// Input column `index`.
    Column(usize),
    /// A literal: its one-row array (a scalar for the kernels).
    Literal(ArrayRef),
    /// A call; `escape` is LIKE's ESCAPE string.
    Call {
        /// The function.
        func: Func,
        /// Bound arguments (LIKE's escape excluded).
        args: Vec<Bound>,
        /// LIKE's ESCAPE string as written; one that is not one UTF-16
        /// unit fails per row for a column pattern
        /// (`search::like_with_escape`).
        escape: Option<String>,
    },
}

/// Input columns as the binder sees them.
pub struct Inputs<'a> {
    /// Column names.
    pub names: &'a [String],
    /// Column types.
    pub types: &'a [FlinkType],
}

/// Binds `expr`: resolves columns, checks argument kinds, and returns the
/// bound expression with its Flink output type and whether it reads any
/// column.
///
/// # Errors
/// [`Error::Bind`] naming the function and argument.
pub fn bind(expr: &Expr, inputs: &Inputs<'_>) -> Result<(Bound, FlinkType, bool)> {
    match expr {
        Expr::Column(c) => {
            let i = match c {
                ColumnRef::Index(i) => *i,
                ColumnRef::Name(n) => inputs.names.iter().position(|x| x == n).ok_or_else(|| {
                    Error::bind(format!("unknown column {n}; the input has {}", inputs.names.join(", ")))
                })?,
            };
            let t = inputs.types.get(i).ok_or_else(|| {
                Error::bind(format!("column ${i} does not exist; the input has {} columns", inputs.types.len()))
            })?;
            Ok((Bound::Column(i), t.clone(), true))
        }
        Expr::Str(s) => {
            let n = s.chars().count().max(1) as u32;
            let array: ArrayRef = Arc::new(StringArray::from(vec![s.as_str()]));
            Ok((Bound::Literal(array), FlinkType::new(TypeKind::Char(n)).with_nullable(false), false))
        }
        Expr::Int(v) => {
            let array: ArrayRef = Arc::new(Int32Array::from(vec![*v]));
            Ok((Bound::Literal(array), FlinkType::new(TypeKind::Int).with_nullable(false), false))
        }
        Expr::Call(func, args) => bind_call(*func, args, inputs),
    }
}

fn bind_call(func: Func, args: &[Expr], inputs: &Inputs<'_>) -> Result<(Bound, FlinkType, bool)> {
    use Kind::{Int, String as S};
    let name = func.name();
    // Expected kinds per argument; `None` in the second slot: variadic of the first kind.
    let (expected, min, max): (&[&[Kind]], usize, usize) = match func {
        Func::Md5 | Func::Sha1 => (&[&[S]], 1, 1),
        Func::Sha2 => (&[&[S], &[Int]], 2, 2),
        Func::Concat => (&[&[S]], 1, usize::MAX),
        Func::ConcatWs => (&[&[S]], 2, usize::MAX),
        Func::Position => (&[&[S], &[S]], 2, 2),
        Func::Locate => (&[&[S], &[S], &[Int]], 2, 3),
        Func::Like => (&[&[S], &[S], &[S]], 2, 3),
        Func::Replace => (&[&[S], &[S], &[S]], 3, 3),
        Func::SplitIndex => (&[&[S], &[S, Int], &[Int]], 3, 3),
    };
    if args.len() < min || args.len() > max {
        let want = if max == usize::MAX {
            format!("at least {min}")
        } else if min == max {
            format!("{min}")
        } else {
            format!("{min} or {max}")
        };
        return Err(Error::bind(format!("{name} takes {want} arguments, got {}", args.len())));
    }
    let mut bound = Vec::with_capacity(args.len());
    let mut nullable = false;
    let mut reads = false;
    let mut escape = None;
    for (i, a) in args.iter().enumerate() {
        let ok: &[Kind] = expected.get(i).or(expected.last()).copied().unwrap_or(&[]);
        if func == Func::Like && i == 2 {
            let Expr::Str(e) = a else {
                return Err(Error::bind("LIKE: ESCAPE takes a one-character string literal"));
            };
            // LikeCallGen (flink-table-planner) throws
            // SqlLikeUtils.invalidEscapeCharacter while generating the code
            // of a literal pattern: Flink fails at operator start-up.
            if e.encode_utf16().count() != 1 && matches!(args.get(1), Some(Expr::Str(_))) {
                return Err(Error::bind(format!("Invalid escape character '{e}'")));
            }
            escape = Some(e.clone());
            continue;
        }
        let (b, t, r) = bind(a, inputs)?;
        if !ok.contains(&kind_of(&t)) {
            let want = if ok.len() > 1 {
                "a character string or INT"
            } else if ok.first() == Some(&Int) {
                "INT"
            } else {
                "a character string (CHAR, VARCHAR, STRING)"
            };
            return Err(Error::bind(format!("{name}: argument {} must be {want}, got {t}", i + 1)));
        }
        if func == Func::Sha2 && i == 1 {
            if let Expr::Int(w) = a {
                if ![224, 256, 384, 512].contains(w) {
                    // Flink fails at operator start-up for a literal width.
                    return Err(Error::bind(format!(
                        "SHA2: Unsupported algorithm. (width {w}; use 224, 256, 384 or 512)"
                    )));
                }
            }
        }
        nullable |= t.nullable;
        reads |= r;
        bound.push(b);
    }
    Ok((Bound::Call { func, args: bound, escape }, func.output_type(nullable), reads))
}

/// Evaluates `b` over `batch`; the result is a scalar (one row) when `b`
/// reads no column. `utf16` lists the input columns that arrived as Java
/// chars (their `batch` columns are the `?`-encoded UTF-8): REPLACE,
/// SPLIT_INDEX and LIKE reading one of them directly see its unpaired
/// surrogates as Flink's String-based evaluation does
/// (`sluice_kernels::search::replace_java` and the module docs there, which
/// list what can still differ).
///
/// # Errors
/// The kernels' errors (e.g. Flink's `SHA-<w> MessageDigest not available`).
pub fn eval(b: &Bound, batch: &RecordBatch, utf16: &[Utf16Column<'_>]) -> Result<Value> {
    match b {
        Bound::Column(i) => {
            let array = batch
                .columns()
                .get(*i)
                .ok_or_else(|| Error::invalid(format!("column ${i} missing from the batch")))?
                .clone();
            Ok(Value::array(array))
        }
        Bound::Literal(a) => Ok(Value::scalar(a.clone())),
        Bound::Call { func, args, escape } => {
            let vals = args.iter().map(|a| eval(a, batch, utf16)).collect::<Result<Vec<Value>>>()?;
            if let Some(out) = eval_java(*func, args, &vals, escape.as_deref(), utf16)? {
                return Ok(Value::array(out));
            }
            let scalar = vals.iter().all(|a| a.scalar);
            let refs: Vec<&dyn Datum> = vals.iter().map(|v| v as &dyn Datum).collect();
            let out = function::call(*func, &refs, escape.as_deref())?;
            Ok(Value { array: out, scalar })
        }
    }
}

/// REPLACE / SPLIT_INDEX / LIKE when an argument is an input column that
/// arrived as UTF-16 (`None` otherwise: the plain kernels decide).
fn eval_java(
    func: Func,
    args: &[Bound],
    vals: &[Value],
    escape: Option<&str>,
    utf16: &[Utf16Column<'_>],
) -> Result<Option<ArrayRef>> {
    if !matches!(func, Func::Replace | Func::SplitIndex | Func::Like) || utf16.is_empty() {
        return Ok(None);
    }
    let units = |i: usize| match args.get(i) {
        Some(Bound::Column(c)) => utf16.iter().find(|u| u.field == *c).map(|u| Utf16Values {
            units: u.units,
            offsets: u.offsets,
            nulls: u.nulls,
        }),
        _ => None,
    };
    if !(0..args.len()).any(|i| units(i).is_some()) {
        return Ok(None);
    }
    let js = |i: usize| -> Result<JavaStr<'_>> {
        let v = vals.get(i).ok_or_else(|| Error::invalid(format!("{}: argument {i} missing", func.name())))?;
        Ok(JavaStr { utf8: v, utf16: units(i) })
    };
    let out: ArrayRef = match func {
        Func::Replace => Arc::new(search::replace_java(js(0)?, js(1)?, js(2)?)?),
        Func::SplitIndex => Arc::new(search::split_index_java(js(0)?, js(1)?, js(2)?.utf8)?),
        _ => Arc::new(search::like_java(js(0)?, js(1)?, escape)?),
    };
    Ok(Some(out))
}
