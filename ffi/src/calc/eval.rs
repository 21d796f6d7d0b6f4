//! Binding parsed expressions to an input schema (name resolution, argument
//! kinds, Flink output types) and evaluating them over a `RecordBatch` with
//! the `sluice-kernels` kernels.
//!
//! Output types follow Flink's planner (see [`crate::flink_type`]): MD5
//! `CHAR(32)`, SHA1 `CHAR(40)`, SHA2 `VARCHAR(128)`, CONCAT / CONCAT_WS /
//! REPLACE / SPLIT_INDEX `STRING`, POSITION / LOCATE `INT`, LIKE `BOOLEAN`;
//! nullable iff an operand is (SPLIT_INDEX always). A string literal is
//! `CHAR(n) NOT NULL`, an integer literal `INT NOT NULL`.

use std::sync::Arc;

use arrow_array::{Array, ArrayRef, Int32Array, RecordBatch, StringArray};
use arrow_schema::Field;
use sluice_kernels::search::{self, JavaStr, Utf16Values};
use sluice_transpose::lazy_strings::Utf16Column;
use sluice_transpose::{FlinkType, TypeKind, MAX_LENGTH};

use super::spec::{ColumnRef, Expr, Func};
use crate::args::Arg;
use crate::error::{FfiError, FfiResult};
use crate::kernels;

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
/// `SLUICE_ERR_INVALID_ARGUMENT` naming the function and argument.
pub fn bind(expr: &Expr, inputs: &Inputs<'_>) -> FfiResult<(Bound, FlinkType, bool)> {
    match expr {
        Expr::Column(c) => {
            let i = match c {
                ColumnRef::Index(i) => *i,
                ColumnRef::Name(n) => inputs.names.iter().position(|x| x == n).ok_or_else(|| {
                    FfiError::invalid(format!("unknown column {n}; the input has {}", inputs.names.join(", ")))
                })?,
            };
            let t = inputs.types.get(i).ok_or_else(|| {
                FfiError::invalid(format!("column ${i} does not exist; the input has {} columns", inputs.types.len()))
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

fn bind_call(func: Func, args: &[Expr], inputs: &Inputs<'_>) -> FfiResult<(Bound, FlinkType, bool)> {
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
        return Err(FfiError::invalid(format!("{name} takes {want} arguments, got {}", args.len())));
    }
    let mut bound = Vec::with_capacity(args.len());
    let mut nullable = false;
    let mut reads = false;
    let mut escape = None;
    for (i, a) in args.iter().enumerate() {
        let ok: &[Kind] = expected.get(i).or(expected.last()).copied().unwrap_or(&[]);
        if func == Func::Like && i == 2 {
            let Expr::Str(e) = a else {
                return Err(FfiError::invalid("LIKE: ESCAPE takes a one-character string literal"));
            };
            // LikeCallGen (flink-table-planner) throws
            // SqlLikeUtils.invalidEscapeCharacter while generating the code
            // of a literal pattern: Flink fails at operator start-up.
            if e.encode_utf16().count() != 1 && matches!(args.get(1), Some(Expr::Str(_))) {
                return Err(FfiError::invalid(format!("Invalid escape character '{e}'")));
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
            return Err(FfiError::invalid(format!("{name}: argument {} must be {want}, got {t}", i + 1)));
        }
        if func == Func::Sha2 && i == 1 {
            if let Expr::Int(w) = a {
                if ![224, 256, 384, 512].contains(w) {
                    // Flink fails at operator start-up for a literal width.
                    return Err(FfiError::invalid(format!(
                        "SHA2: Unsupported algorithm. (width {w}; use 224, 256, 384 or 512)"
                    )));
                }
            }
        }
        nullable |= t.nullable;
        reads |= r;
        bound.push(b);
    }
    let kind = match func {
        Func::Md5 => TypeKind::Char(32),
        Func::Sha1 => TypeKind::Char(40),
        Func::Sha2 => TypeKind::VarChar(128),
        Func::Concat | Func::ConcatWs | Func::Replace | Func::SplitIndex => TypeKind::VarChar(MAX_LENGTH),
        Func::Position | Func::Locate => TypeKind::Int,
        Func::Like => TypeKind::Boolean,
    };
    let nullable = nullable || func == Func::SplitIndex;
    Ok((Bound::Call { func, args: bound, escape }, FlinkType::new(kind).with_nullable(nullable), reads))
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
pub fn eval(b: &Bound, batch: &RecordBatch, utf16: &[Utf16Column<'_>]) -> FfiResult<Arg> {
    match b {
        Bound::Column(i) => {
            let array = batch
                .columns()
                .get(*i)
                .ok_or_else(|| FfiError::invalid(format!("column ${i} missing from the batch")))?
                .clone();
            Ok(arg(array, false))
        }
        Bound::Literal(a) => Ok(arg(a.clone(), true)),
        Bound::Call { func, args, escape } => {
            let vals = args.iter().map(|a| eval(a, batch, utf16)).collect::<FfiResult<Vec<Arg>>>()?;
            if let Some(out) = eval_java(*func, args, &vals, escape.as_deref(), utf16)? {
                return Ok(arg(out, false));
            }
            let scalar = vals.iter().all(|a| a.scalar);
            let nth = |i: usize| {
                vals.get(i).ok_or_else(|| FfiError::invalid(format!("{}: argument {i} missing", func.name())))
            };
            let out = match func {
                Func::Md5 => kernels::md5(nth(0)?)?,
                Func::Sha1 => kernels::sha1(nth(0)?)?,
                Func::Sha2 => kernels::sha2(nth(0)?, nth(1)?)?,
                Func::Concat => kernels::concat(&vals.iter().collect::<Vec<_>>())?,
                Func::ConcatWs => {
                    let rest: Vec<&Arg> = vals.iter().skip(1).collect();
                    kernels::concat_ws(nth(0)?, &rest)?
                }
                Func::Position => kernels::position(nth(0)?, nth(1)?)?,
                Func::Locate => kernels::locate(nth(0)?, nth(1)?, vals.get(2))?,
                Func::Like => kernels::like(nth(0)?, nth(1)?, escape.as_deref())?,
                Func::Replace => kernels::replace(nth(0)?, nth(1)?, nth(2)?)?,
                Func::SplitIndex => kernels::split_index(nth(0)?, nth(1)?, nth(2)?)?,
            };
            Ok(arg(out, scalar))
        }
    }
}

/// REPLACE / SPLIT_INDEX / LIKE when an argument is an input column that
/// arrived as UTF-16 (`None` otherwise: the plain kernels decide).
fn eval_java(
    func: Func,
    args: &[Bound],
    vals: &[Arg],
    escape: Option<&str>,
    utf16: &[Utf16Column<'_>],
) -> FfiResult<Option<ArrayRef>> {
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
    let js = |i: usize| -> FfiResult<JavaStr<'_>> {
        let v = vals.get(i).ok_or_else(|| FfiError::invalid(format!("{}: argument {i} missing", func.name())))?;
        Ok(JavaStr { utf8: v, utf16: units(i) })
    };
    let out: ArrayRef = match func {
        Func::Replace => Arc::new(search::replace_java(js(0)?, js(1)?, js(2)?)?),
        Func::SplitIndex => Arc::new(search::split_index_java(js(0)?, js(1)?, js(2)?.utf8)?),
        _ => Arc::new(search::like_java(js(0)?, js(1)?, escape)?),
    };
    Ok(Some(out))
}

fn arg(array: ArrayRef, scalar: bool) -> Arg {
    let field = Field::new("arg", array.data_type().clone(), true);
    Arg { array, field, scalar }
}
