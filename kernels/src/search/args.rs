//! Arguments of the search kernels: `&dyn Datum` (array or scalar) turned
//! into typed, per-layout row accessors once per batch.

use arrow_array::cast::AsArray;
use arrow_array::types::Int32Type;
use arrow_array::types::{ByteArrayType, ByteViewType};
use arrow_array::{
    Array, Datum, GenericByteArray, GenericByteViewArray, Int32Array, LargeStringArray, StringArray, StringViewArray,
};
use arrow_buffer::NullBuffer;
use arrow_schema::DataType;

use crate::error::{invalid_arg, Result};
use crate::input::{unsupported_type, ByteColumn};

/// A string argument: a scalar (`None` = NULL) or one of the three string
/// layouts.
#[derive(Clone, Copy)]
pub(crate) enum StrArg<'a> {
    Scalar(Option<&'a [u8]>),
    Utf8(&'a StringArray),
    Large(&'a LargeStringArray),
    View(&'a StringViewArray),
}

impl<'a> StrArg<'a> {
    /// Reads `d`, naming it `what` in errors.
    pub(crate) fn new(d: &'a dyn Datum, what: &str) -> Result<Self> {
        let (a, scalar) = d.get();
        let arg = match a.data_type() {
            DataType::Utf8 => StrArg::Utf8(a.as_string::<i32>()),
            DataType::LargeUtf8 => StrArg::Large(a.as_string::<i64>()),
            DataType::Utf8View => StrArg::View(a.as_string_view()),
            other => return Err(invalid_arg(format!("{what}: {}", unsupported_type(other, false)))),
        };
        if !scalar {
            return Ok(arg);
        }
        if a.len() != 1 {
            return Err(invalid_arg(format!("{what}: a scalar must have length 1, got {}", a.len())));
        }
        let v = if a.is_null(0) {
            None
        } else {
            Some(match arg {
                StrArg::Utf8(s) => s.bytes(0),
                StrArg::Large(s) => s.bytes(0),
                StrArg::View(s) => s.bytes(0),
                StrArg::Scalar(v) => v.unwrap_or(&[]),
            })
        };
        Ok(StrArg::Scalar(v))
    }

    /// Row count if this is an array.
    pub(crate) fn array_len(&self) -> Option<usize> {
        match self {
            StrArg::Scalar(_) => None,
            StrArg::Utf8(a) => Some(a.len()),
            StrArg::Large(a) => Some(a.len()),
            StrArg::View(a) => Some(a.len()),
        }
    }

    /// The NULL mask of an array argument.
    pub(crate) fn nulls(&self) -> Option<&'a NullBuffer> {
        match *self {
            StrArg::Scalar(_) => None,
            StrArg::Utf8(a) => a.nulls(),
            StrArg::Large(a) => a.nulls(),
            StrArg::View(a) => a.nulls(),
        }
    }

    /// Whether this is a NULL scalar (every output row is NULL).
    pub(crate) fn is_null_scalar(&self) -> bool {
        matches!(self, StrArg::Scalar(None))
    }

    /// The bytes of a non-NULL scalar.
    pub(crate) fn scalar(&self) -> Option<&'a [u8]> {
        match self {
            StrArg::Scalar(v) => *v,
            _ => None,
        }
    }

    /// Bytes of row `i` (any value for a NULL row). Dispatches per call: use
    /// [`with_rows!`] in hot loops.
    #[inline]
    pub(crate) fn get(&self, i: usize) -> &'a [u8] {
        match *self {
            StrArg::Scalar(v) => v.unwrap_or(&[]),
            StrArg::Utf8(a) => a.bytes(i),
            StrArg::Large(a) => a.bytes(i),
            StrArg::View(a) => a.bytes(i),
        }
    }
}

/// Row access, monomorphised per layout by [`with_rows!`].
pub(crate) trait Rows: Copy {
    fn row(&self, i: usize) -> &[u8];
}

/// A column of one of the string layouts.
pub(crate) struct Col<'a, C>(pub &'a C);

impl<C> Clone for Col<'_, C> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<C> Copy for Col<'_, C> {}

impl<T: ByteArrayType> Rows for Col<'_, GenericByteArray<T>> {
    #[inline(always)]
    fn row(&self, i: usize) -> &[u8] {
        if i < self.0.len() {
            // SAFETY: `i < len`, and arrow-rs validated the offsets (in
            // bounds, monotonic) when the array was built.
            unsafe { self.0.value_unchecked(i) }.as_ref()
        } else {
            &[]
        }
    }
}

impl<T: ByteViewType + ?Sized> Rows for Col<'_, GenericByteViewArray<T>> {
    #[inline(always)]
    fn row(&self, i: usize) -> &[u8] {
        if i < self.0.len() {
            // SAFETY: `i < len`, and arrow-rs validated the views (buffer
            // index, offset and length in bounds) when the array was built.
            unsafe { self.0.value_unchecked(i) }.as_ref()
        } else {
            &[]
        }
    }
}

/// The same value on every row.
#[derive(Clone, Copy)]
pub(crate) struct Const<'a>(pub &'a [u8]);

impl Rows for Const<'_> {
    #[inline(always)]
    fn row(&self, _i: usize) -> &[u8] {
        self.0
    }
}

/// Binds `$r` to a monomorphised [`Rows`] for a [`StrArg`] and evaluates
/// `$body` (a NULL scalar binds an empty constant: callers handle NULL
/// scalars before).
macro_rules! with_rows {
    ($arg:expr, |$r:ident| $body:expr) => {{
        use $crate::search::args::{Col, Const, StrArg};
        match $arg {
            StrArg::Scalar(v) => {
                let $r = Const(v.unwrap_or(&[]));
                $body
            }
            StrArg::Utf8(a) => {
                let $r = Col(a);
                $body
            }
            StrArg::Large(a) => {
                let $r = Col(a);
                $body
            }
            StrArg::View(a) => {
                let $r = Col(a);
                $body
            }
        }
    }};
}
pub(crate) use with_rows;

/// An `INT` argument: scalar (`None` = NULL) or an `Int32Array`.
#[derive(Clone, Copy)]
pub(crate) enum IntArg<'a> {
    Scalar(Option<i32>),
    Array(&'a Int32Array),
}

impl<'a> IntArg<'a> {
    pub(crate) fn new(d: &'a dyn Datum, what: &str) -> Result<Self> {
        let (a, scalar) = d.get();
        if a.data_type() != &DataType::Int32 {
            return Err(invalid_arg(format!("{what}: expected Int32, got {}", a.data_type())));
        }
        let arr = a.as_primitive::<Int32Type>();
        if !scalar {
            return Ok(IntArg::Array(arr));
        }
        if arr.len() != 1 {
            return Err(invalid_arg(format!("{what}: a scalar must have length 1, got {}", arr.len())));
        }
        Ok(IntArg::Scalar(if arr.is_null(0) { None } else { Some(arr.value(0)) }))
    }

    pub(crate) fn constant(v: i32) -> Self {
        IntArg::Scalar(Some(v))
    }

    pub(crate) fn array_len(&self) -> Option<usize> {
        match self {
            IntArg::Scalar(_) => None,
            IntArg::Array(a) => Some(a.len()),
        }
    }

    pub(crate) fn nulls(&self) -> Option<&'a NullBuffer> {
        match *self {
            IntArg::Scalar(_) => None,
            IntArg::Array(a) => a.nulls(),
        }
    }

    pub(crate) fn is_null_scalar(&self) -> bool {
        matches!(self, IntArg::Scalar(None))
    }

    #[inline(always)]
    pub(crate) fn get(&self, i: usize) -> i32 {
        match self {
            IntArg::Scalar(v) => v.unwrap_or(0),
            IntArg::Array(a) => a.values()[i],
        }
    }
}

/// The output row count: the common length of the array arguments, or 1
/// when all are scalars (arrow-rs convention for `Datum` kernels).
pub(crate) fn output_len(lens: &[Option<usize>]) -> Result<usize> {
    let mut len = None;
    for l in lens.iter().flatten() {
        match len {
            None => len = Some(*l),
            Some(n) if n != *l => {
                return Err(invalid_arg(format!("array arguments must have the same length, got {n} and {l}")))
            }
            Some(_) => {}
        }
    }
    Ok(len.unwrap_or(1))
}

/// The union of the arguments' NULL masks (`Flink`'s "any NULL argument
/// gives NULL", `GenerateUtils.generateCallIfArgsNotNull`).
pub(crate) fn union_nulls<'a>(nulls: impl IntoIterator<Item = Option<&'a NullBuffer>>) -> Option<NullBuffer> {
    NullBuffer::union_many(nulls)
}

impl Rows for StrArg<'_> {
    #[inline(always)]
    fn row(&self, i: usize) -> &[u8] {
        self.get(i)
    }
}

impl StrArg<'_> {
    /// Upper bound of the value bytes the rows span (`rows` copies of a
    /// scalar).
    pub(crate) fn bytes_hint(&self, rows: usize) -> usize {
        match self {
            StrArg::Scalar(v) => v.map_or(0, |v| v.len()).saturating_mul(rows),
            StrArg::Utf8(a) => a.value_bytes_hint(),
            StrArg::Large(a) => a.value_bytes_hint(),
            StrArg::View(a) => a.value_bytes_hint(),
        }
    }
}

/// Builds a `Utf8` array from parts written by a kernel.
///
/// Checks the `i32` offset limit; `values` must be UTF-8 and `offsets`
/// monotonic (the callers only concatenate slices of UTF-8 inputs at
/// character boundaries and ASCII bytes).
pub(crate) struct Utf8Out {
    pub(crate) offsets: Vec<i32>,
    pub(crate) values: Vec<u8>,
}

impl Utf8Out {
    pub(crate) fn with_capacity(rows: usize, bytes: usize) -> Self {
        let mut offsets = Vec::with_capacity(rows + 1);
        offsets.push(0);
        Utf8Out { offsets, values: Vec::with_capacity(bytes.min(i32::MAX as usize)) }
    }

    /// Ends the current row.
    #[inline(always)]
    pub(crate) fn end_row(&mut self) -> Result<()> {
        let n = self.values.len();
        crate::input::check_i32_offsets(n)?;
        self.offsets.push(n as i32);
        Ok(())
    }

    pub(crate) fn finish(self, nulls: Option<NullBuffer>) -> StringArray {
        use arrow_buffer::{Buffer, OffsetBuffer, ScalarBuffer};
        let offsets = ScalarBuffer::from(self.offsets);
        debug_assert!(std::str::from_utf8(&self.values).is_ok());
        debug_assert!(offsets.windows(2).all(|w| w[0] <= w[1]));
        // SAFETY: offsets start at 0, never decrease (each row pushes the
        // current length) and end at `values.len()` (checked ≤ i32::MAX in
        // `end_row`); the values are concatenations of slices of UTF-8
        // inputs cut at character boundaries plus ASCII bytes, so UTF-8.
        unsafe {
            StringArray::new_unchecked(OffsetBuffer::new_unchecked(offsets), Buffer::from_vec(self.values), nulls)
        }
    }
}
