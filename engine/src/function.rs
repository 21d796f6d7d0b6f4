//! The string functions of sluice: one table of what each takes and returns
//! as Flink types, and one call into `sluice-kernels` per function.
//!
//! Output types follow Flink's planner (`FlinkSqlOperatorTable`, where
//! Calcite's `explicit(VARCHAR)` takes Flink's default VARCHAR precision,
//! `Integer.MAX_VALUE`, i.e. `STRING`):
//!
//! | function | output type |
//! | --- | --- |
//! | MD5 | `CHAR(32)` |
//! | SHA1 | `CHAR(40)` |
//! | SHA2 | `VARCHAR(128)` |
//! | CONCAT, CONCAT_WS, REPLACE, SPLIT_INDEX | `VARCHAR(2147483647)` (`STRING`) |
//! | POSITION, LOCATE | `INT` |
//! | LIKE | `BOOLEAN` |
//!
//! nullable iff an operand is (Calcite's `TO_NULLABLE`); `SPLIT_INDEX` is
//! always nullable, since an out-of-range index yields NULL. This table is
//! [`Func::output_kind`] and [`Func::always_nullable`]; the Calc binder and
//! every binding type their outputs with [`Func::output_type`].

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::{Array, ArrayRef, Datum};
use arrow_schema::{DataType, Field};
use sluice_kernels::{concat, digest, search};
use sluice_transpose::{FlinkType, TypeKind, MAX_LENGTH};

use crate::error::{Error, Result};
use crate::flink_type::FLINK_TYPE;

/// A string function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Func {
    /// `MD5(s)`
    Md5,
    /// `SHA1(s)`
    Sha1,
    /// `SHA2(s, width)`
    Sha2,
    /// `CONCAT(s, ...)`
    Concat,
    /// `CONCAT_WS(sep, s, ...)`
    ConcatWs,
    /// `POSITION(needle IN s)`
    Position,
    /// `LOCATE(needle, s [, from])`
    Locate,
    /// `s LIKE pattern [ESCAPE 'c']`
    Like,
    /// `REPLACE(s, search, replacement)`
    Replace,
    /// `SPLIT_INDEX(s, sep, index)`
    SplitIndex,
}

impl Func {
    /// The function of a SQL name (case-insensitive); `LIKE` is an
    /// operator, not a name.
    pub fn from_name(name: &str) -> Option<Func> {
        Some(match name.to_ascii_uppercase().as_str() {
            "MD5" => Func::Md5,
            "SHA1" => Func::Sha1,
            "SHA2" => Func::Sha2,
            "CONCAT" => Func::Concat,
            "CONCAT_WS" => Func::ConcatWs,
            "POSITION" => Func::Position,
            "LOCATE" => Func::Locate,
            "REPLACE" => Func::Replace,
            "SPLIT_INDEX" => Func::SplitIndex,
            _ => return None,
        })
    }

    /// The SQL name.
    pub fn name(self) -> &'static str {
        match self {
            Func::Md5 => "MD5",
            Func::Sha1 => "SHA1",
            Func::Sha2 => "SHA2",
            Func::Concat => "CONCAT",
            Func::ConcatWs => "CONCAT_WS",
            Func::Position => "POSITION",
            Func::Locate => "LOCATE",
            Func::Like => "LIKE",
            Func::Replace => "REPLACE",
            Func::SplitIndex => "SPLIT_INDEX",
        }
    }

    /// The output column's name where a binding names it after the
    /// function (`md5`, `concat_ws`, ...).
    pub fn output_name(self) -> &'static str {
        match self {
            Func::Md5 => "md5",
            Func::Sha1 => "sha1",
            Func::Sha2 => "sha2",
            Func::Concat => "concat",
            Func::ConcatWs => "concat_ws",
            Func::Position => "position",
            Func::Locate => "locate",
            Func::Like => "like",
            Func::Replace => "replace",
            Func::SplitIndex => "split_index",
        }
    }

    /// The Flink type of the output, nullability aside (the table above).
    pub fn output_kind(self) -> TypeKind {
        match self {
            Func::Md5 => TypeKind::Char(32),
            Func::Sha1 => TypeKind::Char(40),
            Func::Sha2 => TypeKind::VarChar(128),
            Func::Concat | Func::ConcatWs | Func::Replace | Func::SplitIndex => TypeKind::VarChar(MAX_LENGTH),
            Func::Position | Func::Locate => TypeKind::Int,
            Func::Like => TypeKind::Boolean,
        }
    }

    /// Whether the output is nullable whatever the operands are.
    pub fn always_nullable(self) -> bool {
        self == Func::SplitIndex
    }

    /// The Flink type of the output when an operand is nullable
    /// (`nullable_operand`) or not.
    pub fn output_type(self, nullable_operand: bool) -> FlinkType {
        FlinkType::new(self.output_kind()).with_nullable(nullable_operand || self.always_nullable())
    }

    /// The output field where a binding exports a result of Arrow type
    /// `dt`: named [`Func::output_name`], carrying [`Func::output_type`] as
    /// `flink.type`.
    pub fn output_field(self, dt: DataType, nullable_operand: bool) -> Field {
        let t = self.output_type(nullable_operand);
        let nullable = t.nullable;
        Field::new(self.output_name(), dt, nullable)
            .with_metadata(HashMap::from([(FLINK_TYPE.to_string(), t.to_string())]))
    }
}

/// One argument of a function: an array, or a scalar (a one-row array
/// whose value holds for every row).
#[derive(Clone, Debug)]
pub struct Value {
    /// The values.
    pub array: ArrayRef,
    /// Whether the kernels see it as a scalar.
    pub scalar: bool,
}

impl Value {
    /// An array argument.
    pub fn array(array: ArrayRef) -> Self {
        Value { array, scalar: false }
    }

    /// A scalar argument (`array` has one row).
    pub fn scalar(array: ArrayRef) -> Self {
        Value { array, scalar: true }
    }
}

impl Datum for Value {
    fn get(&self) -> (&dyn Array, bool) {
        (self.array.as_ref(), self.scalar)
    }
}

/// Calls `func` on `args` (LIKE's escape character apart) through its
/// kernel. LOCATE takes 2 or 3 arguments, CONCAT at least 1, CONCAT_WS at
/// least 1 (the separator), the others their fixed count.
///
/// # Errors
/// A missing argument ([`Error::Invalid`]); the kernel's errors (e.g.
/// Flink's `SHA-<w> MessageDigest not available`).
pub fn call(func: Func, args: &[&dyn Datum], escape: Option<&str>) -> Result<ArrayRef> {
    let nth =
        |i: usize| args.get(i).copied().ok_or_else(|| Error::invalid(format!("{}: argument {i} missing", func.name())));
    Ok(match func {
        Func::Md5 => digest::md5(nth(0)?)?,
        Func::Sha1 => digest::sha1(nth(0)?)?,
        Func::Sha2 => digest::sha2(nth(0)?, nth(1)?)?,
        Func::Concat => Arc::new(concat::concat(args)?),
        Func::ConcatWs => Arc::new(concat::concat_ws(nth(0)?, args.get(1..).unwrap_or(&[]))?),
        Func::Position => Arc::new(search::position(nth(0)?, nth(1)?)?),
        Func::Locate => Arc::new(search::locate(nth(0)?, nth(1)?, args.get(2).copied())?),
        Func::Like => Arc::new(search::like_with_escape(nth(0)?, nth(1)?, escape)?),
        Func::Replace => Arc::new(search::replace(nth(0)?, nth(1)?, nth(2)?)?),
        Func::SplitIndex => Arc::new(search::split_index(nth(0)?, nth(1)?, nth(2)?)?),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_types_are_flinks() {
        assert_eq!(Func::Md5.output_type(false).to_string(), "CHAR(32) NOT NULL");
        assert_eq!(Func::Sha2.output_type(true).to_string(), "VARCHAR(128)");
        assert_eq!(Func::Concat.output_type(false).to_string(), "VARCHAR(2147483647) NOT NULL");
        assert_eq!(Func::SplitIndex.output_type(false).to_string(), "VARCHAR(2147483647)");
        assert_eq!(Func::Locate.output_type(false).to_string(), "INT NOT NULL");
        assert_eq!(Func::Like.output_type(true).to_string(), "BOOLEAN");
        let f = Func::ConcatWs.output_field(DataType::Utf8, false);
        assert_eq!((f.name().as_str(), f.is_nullable()), ("concat_ws", false));
        assert_eq!(crate::flink_type::flink_type(&f), Some("VARCHAR(2147483647) NOT NULL"));
    }
}
