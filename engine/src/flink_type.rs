//! Flink logical types carried as Arrow field metadata.
//!
//! Key [`FLINK_TYPE`] (`"flink.type"`), value in the form of Flink's
//! `LogicalType#asSerializableString()`, e.g. `VARCHAR(10) NOT NULL`,
//! `CHAR(32)`, `INT`. When an input field carries it, it rules over what the
//! Arrow type alone would suggest (nullability; a `Binary` column that Flink
//! knows as a character string). Every output field carries it.
//!
//! What each function returns is the function table's
//! ([`Func::output_type`](crate::function::Func::output_type)).

use std::collections::HashMap;

use arrow_schema::{DataType, Field};

use crate::error::{Error, Result};

/// The metadata key.
pub const FLINK_TYPE: &str = "flink.type";

/// Flink's `STRING`.
pub const STRING: &str = "VARCHAR(2147483647)";

/// The `flink.type` of `field`, if any.
pub fn flink_type(field: &Field) -> Option<&str> {
    field.metadata().get(FLINK_TYPE).map(String::as_str)
}

/// Whether values of `field` may be NULL: `flink.type`'s `NOT NULL` rules
/// when present, else the Arrow field's nullability.
pub fn is_nullable(field: &Field) -> bool {
    match flink_type(field) {
        Some(t) => !t.trim_end().to_ascii_uppercase().ends_with("NOT NULL"),
        None => field.is_nullable(),
    }
}

/// The type name of a `flink.type` value without parameters and
/// nullability: `"VARCHAR(10) NOT NULL"` → `"VARCHAR"`.
fn root(t: &str) -> String {
    let end = t.find(['(', ' ', '<']).unwrap_or(t.len());
    t[..end].to_ascii_uppercase()
}

/// Whether a `flink.type` names a character string (CHAR / VARCHAR /
/// STRING).
pub fn is_character_string(t: &str) -> bool {
    matches!(root(t).as_str(), "CHAR" | "VARCHAR" | "STRING")
}

/// The Arrow type to import a string argument as.
///
/// Accepts `Utf8`, `LargeUtf8`, `Utf8View`; when `allow_binary`, also the
/// binary layouts. A binary column whose `flink.type` is a character string
/// is read as the matching string type (and so UTF-8 validated). A
/// `flink.type` that is not a character string is refused.
///
/// # Errors
/// [`Error::UnsupportedType`] naming `what`, the Arrow type and the Flink
/// type.
pub fn string_input_type(field: &Field, what: &str, allow_binary: bool) -> Result<DataType> {
    let ft = flink_type(field);
    if let Some(t) = ft {
        if !is_character_string(t) {
            return Err(Error::UnsupportedType(format!(
                "{what} must be a character string (CHAR, VARCHAR, STRING); its flink.type is {t}"
            )));
        }
    }
    let as_string = ft.is_some() || !allow_binary;
    match field.data_type() {
        dt @ (DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View) => Ok(dt.clone()),
        DataType::Binary if as_string => Ok(DataType::Utf8),
        DataType::LargeBinary if as_string => Ok(DataType::LargeUtf8),
        DataType::BinaryView if as_string => Ok(DataType::Utf8View),
        dt @ (DataType::Binary | DataType::LargeBinary | DataType::BinaryView) => Ok(dt.clone()),
        other => Err(Error::UnsupportedType(format!(
            "{what} must be Utf8, LargeUtf8 or Utf8View{}, got {other}",
            if allow_binary { " (or a binary type)" } else { "" }
        ))),
    }
}

/// The Arrow type to import an INT argument as (only `Int32`).
///
/// # Errors
/// [`Error::UnsupportedType`] for anything else, or a `flink.type` that
/// is not `INT`.
pub fn int_input_type(field: &Field, what: &str) -> Result<DataType> {
    if let Some(t) = flink_type(field) {
        if !matches!(root(t).as_str(), "INT" | "INTEGER") {
            return Err(Error::UnsupportedType(format!("{what} must be INT; its flink.type is {t}")));
        }
    }
    match field.data_type() {
        DataType::Int32 => Ok(DataType::Int32),
        other => Err(Error::UnsupportedType(format!("{what} must be Int32, got {other}"))),
    }
}

/// An output field named `name` of type `dt` carrying `flink.type`
/// `flink` (plus ` NOT NULL` when `!nullable`).
pub fn output_field(name: &str, dt: DataType, flink: &str, nullable: bool) -> Field {
    let t = if nullable { flink.to_string() } else { format!("{flink} NOT NULL") };
    Field::new(name, dt, nullable).with_metadata(HashMap::from([(FLINK_TYPE.to_string(), t)]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_type(dt: DataType, nullable: bool, t: &str) -> Field {
        Field::new("f", dt, nullable).with_metadata(HashMap::from([(FLINK_TYPE.into(), t.into())]))
    }

    #[test]
    fn flink_type_rules_nullability() {
        assert!(!is_nullable(&with_type(DataType::Utf8, true, "VARCHAR(3) NOT NULL")));
        assert!(is_nullable(&with_type(DataType::Utf8, false, "VARCHAR(3)")));
        assert!(!is_nullable(&Field::new("f", DataType::Utf8, false)));
    }

    #[test]
    fn binary_known_to_flink_as_string_reads_as_utf8() {
        let f = with_type(DataType::Binary, true, "STRING");
        assert_eq!(string_input_type(&f, "in", true).unwrap(), DataType::Utf8);
        let raw = Field::new("f", DataType::LargeBinary, true);
        assert_eq!(string_input_type(&raw, "in", true).unwrap(), DataType::LargeBinary);
        assert_eq!(string_input_type(&raw, "in", false).unwrap(), DataType::LargeUtf8);
        let bytes = with_type(DataType::Binary, true, "VARBINARY(4)");
        assert!(string_input_type(&bytes, "in", true).is_err());
        assert!(string_input_type(&Field::new("f", DataType::Int32, true), "in", true).is_err());
    }

    #[test]
    fn output_fields_carry_flink_type() {
        let f = output_field("md5", DataType::Utf8, "CHAR(32)", false);
        assert_eq!(flink_type(&f), Some("CHAR(32) NOT NULL"));
        assert!(!f.is_nullable());
    }
}
