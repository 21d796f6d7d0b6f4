//! The rowtime attribute of the operators ordered by event time
//! (deduplicate, OVER): which Arrow columns can hold one.

use arrow_schema::{DataType, Schema, TimeUnit};

use crate::error::{invalid_arg, Error, Result};

/// Checks that `column` of `schema` can be a rowtime attribute: BIGINT
/// millis or `TIMESTAMP(3)` (Arrow `Timestamp(Millisecond)`, any time zone).
/// `role` names the attribute in the refusal.
pub(crate) fn check_rowtime_column(schema: &Schema, column: usize, role: &'static str) -> Result<()> {
    let f = schema.fields().get(column).ok_or_else(|| invalid_arg(format!("rowtime column {column} out of range")))?;
    if !matches!(f.data_type(), DataType::Int64 | DataType::Timestamp(TimeUnit::Millisecond, _)) {
        return Err(Error::UnsupportedType { column, data_type: f.data_type().clone(), role });
    }
    Ok(())
}
