//! Uniform, monomorphised access to the bytes of string and binary arrays.
//!
//! Every kernel accepts `Utf8`, `LargeUtf8`, `Utf8View` and (where Flink
//! hashes raw bytes) `Binary`, `LargeBinary`, `BinaryView`. [`ByteColumn`]
//! gives them one interface, and [`with_byte_column!`](crate::with_byte_column)
//! downcasts a `&dyn Array` once per batch so that the per-row loop is
//! compiled separately for each layout (no per-row dispatch).

use arrow_array::types::{ByteArrayType, ByteViewType};
use arrow_array::{Array, GenericByteArray, GenericByteViewArray};
use arrow_buffer::ArrowNativeType;
use arrow_schema::DataType;

use crate::error::{invalid_arg, Result};

/// An Arrow array whose values are byte strings.
pub trait ByteColumn: Array {
    /// Bytes of row `i` (relative to the array's offset). Undefined contents
    /// (but no UB) for a NULL row; panics if `i >= len()`.
    fn bytes(&self, i: usize) -> &[u8];

    /// Upper bound of the value bytes the rows of this (possibly sliced)
    /// array span, computed without touching the values: used to size
    /// output buffers once.
    fn value_bytes_hint(&self) -> usize;

    /// Whether the values are guaranteed UTF-8 by the array's type.
    fn is_utf8(&self) -> bool {
        matches!(self.data_type(), DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View)
    }
}

impl<T: ByteArrayType> ByteColumn for GenericByteArray<T> {
    #[inline(always)]
    fn bytes(&self, i: usize) -> &[u8] {
        let offsets = self.value_offsets();
        let start = offsets[i].as_usize();
        let end = offsets[i + 1].as_usize();
        &self.value_data()[start..end]
    }

    fn value_bytes_hint(&self) -> usize {
        let offsets = self.value_offsets();
        // `value_offsets` of a sliced array are exactly the rows' offsets.
        offsets[offsets.len() - 1].as_usize() - offsets[0].as_usize()
    }
}

impl<T: ByteViewType + ?Sized> ByteColumn for GenericByteViewArray<T> {
    #[inline(always)]
    fn bytes(&self, i: usize) -> &[u8] {
        self.value(i).as_ref()
    }

    fn value_bytes_hint(&self) -> usize {
        // Inline views hold at most 12 bytes; longer views carry their length
        // in the low 32 bits of the view.
        self.views().iter().map(|v| (*v as u32) as usize).sum()
    }
}

/// Downcasts a `&dyn Array` holding byte strings and evaluates `$body` with
/// `$col` bound to the concrete array (a `&impl ByteColumn`), or returns an
/// [`Error::InvalidArgument`](crate::Error::InvalidArgument) for any other type.
///
/// `$allow_binary` chooses whether `Binary`, `LargeBinary` and `BinaryView`
/// are accepted too.
#[macro_export]
#[doc(hidden)]
macro_rules! with_byte_column {
    ($array:expr, $allow_binary:expr, |$col:ident| $body:expr) => {{
        use $crate::__private::arrow_array::cast::AsArray as _;
        use $crate::__private::arrow_schema::DataType as __DT;
        let __a: &dyn $crate::__private::arrow_array::Array = $array;
        match __a.data_type() {
            __DT::Utf8 => {
                let $col = __a.as_string::<i32>();
                $body
            }
            __DT::LargeUtf8 => {
                let $col = __a.as_string::<i64>();
                $body
            }
            __DT::Utf8View => {
                let $col = __a.as_string_view();
                $body
            }
            __DT::Binary if $allow_binary => {
                let $col = __a.as_binary::<i32>();
                $body
            }
            __DT::LargeBinary if $allow_binary => {
                let $col = __a.as_binary::<i64>();
                $body
            }
            __DT::BinaryView if $allow_binary => {
                let $col = __a.as_binary_view();
                $body
            }
            other => return Err($crate::input::unsupported_type(other, $allow_binary)),
        }
    }};
}

/// The error [`with_byte_column!`] returns for a type it does not take.
#[doc(hidden)]
pub fn unsupported_type(dt: &DataType, allow_binary: bool) -> crate::Error {
    let expected = if allow_binary {
        "Utf8, LargeUtf8, Utf8View, Binary, LargeBinary or BinaryView"
    } else {
        "Utf8, LargeUtf8 or Utf8View"
    };
    invalid_arg(format!("expected {expected}, got {dt}"))
}

/// Checks that `needed` value bytes fit an `i32`-offset array.
pub(crate) fn check_i32_offsets(needed: usize) -> Result<()> {
    if needed > i32::MAX as usize {
        Err(crate::Error::OffsetOverflow { needed, limit: i32::MAX as usize })
    } else {
        Ok(())
    }
}
