//! Arguments of the search kernels: `&dyn Datum` (array or scalar) turned
//! into typed, per-layout row accessors once per batch.

use arrow_array::cast::AsArray;
use arrow_array::types::Int32Type;
use arrow_array::types::{ByteArrayType, ByteViewType};
use arrow_array::{
    Array, BinaryArray, BinaryViewArray, Datum, GenericByteArray, GenericByteViewArray, Int32Array, LargeBinaryArray,
    LargeStringArray, StringArray, StringViewArray,
};
use arrow_buffer::NullBuffer;
use arrow_schema::DataType;

use crate::error::{invalid_arg, Result};
use crate::input::{unsupported_type, ByteColumn};

/// A string argument: a scalar (`None` = NULL), one of the three string
/// layouts, or one of the three binary layouts read as the bytes of a
/// string with no UTF-8 promise (see [`is_unchecked`]).
#[derive(Clone, Copy)]
pub(crate) enum StrArg<'a> {
    Scalar(Option<&'a [u8]>),
    Utf8(&'a StringArray),
    Large(&'a LargeStringArray),
    View(&'a StringViewArray),
    Bin(&'a BinaryArray),
    LargeBin(&'a LargeBinaryArray),
    BinView(&'a BinaryViewArray),
}

/// Whether `d` holds string bytes without a UTF-8 promise (a binary
/// layout). The search kernels read every argument as bytes (characters by
/// Flink's lead-byte rule, every index bounds-checked), so they are
/// memory-safe on any bytes; a kernel with a `Utf8` output validates its
/// output rows when any string argument `is_unchecked`
/// ([`Utf8Out::checked`]).
pub(crate) fn is_unchecked(d: &dyn Datum) -> bool {
    matches!(d.get().0.data_type(), DataType::Binary | DataType::LargeBinary | DataType::BinaryView)
}

/// Matches a [`StrArg`]: `$scalar` with `$v` bound to a scalar's value, or
/// `$array` with `$a` bound to the array, in one arm per layout (so
/// `$array` is monomorphised for each).
macro_rules! match_layout {
    ($arg:expr, |$v:ident| $scalar:expr, |$a:ident| $array:expr) => {{
        use $crate::search::args::StrArg;
        match $arg {
            StrArg::Scalar($v) => $scalar,
            StrArg::Utf8($a) => $array,
            StrArg::Large($a) => $array,
            StrArg::View($a) => $array,
            StrArg::Bin($a) => $array,
            StrArg::LargeBin($a) => $array,
            StrArg::BinView($a) => $array,
        }
    }};
}
pub(crate) use match_layout;

impl<'a> StrArg<'a> {
    /// Reads `d`, naming it `what` in errors.
    pub(crate) fn new(d: &'a dyn Datum, what: &str) -> Result<Self> {
        let (a, scalar) = d.get();
        let arg = match a.data_type() {
            DataType::Utf8 => StrArg::Utf8(a.as_string::<i32>()),
            DataType::LargeUtf8 => StrArg::Large(a.as_string::<i64>()),
            DataType::Utf8View => StrArg::View(a.as_string_view()),
            DataType::Binary => StrArg::Bin(a.as_binary::<i32>()),
            DataType::LargeBinary => StrArg::LargeBin(a.as_binary::<i64>()),
            DataType::BinaryView => StrArg::BinView(a.as_binary_view()),
            other => return Err(invalid_arg(format!("{what}: {}", unsupported_type(other, false)))),
        };
        if !scalar {
            return Ok(arg);
        }
        if a.len() != 1 {
            return Err(invalid_arg(format!("{what}: a scalar must have length 1, got {}", a.len())));
        }
        let v = if a.is_null(0) { None } else { Some(match_layout!(arg, |v| v.unwrap_or(&[]), |s| s.bytes(0))) };
        Ok(StrArg::Scalar(v))
    }

    /// Row count if this is an array.
    pub(crate) fn array_len(&self) -> Option<usize> {
        match_layout!(*self, |_v| None, |a| Some(a.len()))
    }

    /// The NULL mask of an array argument.
    pub(crate) fn nulls(&self) -> Option<&'a NullBuffer> {
        match_layout!(*self, |_v| None, |a| a.nulls())
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
        match_layout!(*self, |v| v.unwrap_or(&[]), |a| a.bytes(i))
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

/// [`Rows::row`] of a column: row `i`'s value, unchecked once `i` is known
/// to be in bounds (the same code for the offset and the view layouts).
macro_rules! col_row {
    () => {
        #[inline(always)]
        fn row(&self, i: usize) -> &[u8] {
            if i < self.0.len() {
                // SAFETY: `i < len`, and arrow-rs validated the offsets (in
                // bounds, monotonic) or the views (buffer index, offset and
                // length in bounds) when the array was built.
                unsafe { self.0.value_unchecked(i) }.as_ref()
            } else {
                &[]
            }
        }
    };
}

impl<T: ByteArrayType> Rows for Col<'_, GenericByteArray<T>> {
    col_row!();
}

impl<T: ByteViewType + ?Sized> Rows for Col<'_, GenericByteViewArray<T>> {
    col_row!();
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
        use $crate::search::args::{Col, Const};
        $crate::search::args::match_layout!(
            $arg,
            |v| {
                let $r = Const(v.unwrap_or(&[]));
                $body
            },
            |a| {
                let $r = Col(a);
                $body
            }
        )
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
        match_layout!(*self, |v| v.map_or(0, |v| v.len()).saturating_mul(rows), |a| a.value_bytes_hint())
    }
}

/// Builds a `Utf8` array from parts written by a kernel.
///
/// Checks the `i32` offset limit. `values` must be UTF-8 and `offsets`
/// monotonic: the callers only concatenate slices of inputs at character
/// boundaries and ASCII bytes, which is UTF-8 when the inputs are. When an
/// input is [`is_unchecked`], [`checked`](Utf8Out::checked) makes it
/// validate the rows as they are written: every [`CHECK_CHUNK`] bytes, at
/// a row end, while those bytes are still in cache (a pass over the output
/// after the fact, or over the input before, reads it from memory again).
pub(crate) struct Utf8Out {
    pub(crate) offsets: Vec<i32>,
    pub(crate) values: Vec<u8>,
    /// Validate the rows (`checked`).
    check: bool,
    /// Rows `..checked_rows` (bytes `..offsets[checked_rows]`) are valid.
    checked_rows: usize,
}

/// Output bytes validated at a time (see [`Utf8Out`]): small enough to be
/// in L1/L2 when checked, large enough that a `simdutf8` call per chunk
/// costs nothing.
pub(crate) const CHECK_CHUNK: usize = 16 * 1024;

impl Utf8Out {
    pub(crate) fn with_capacity(rows: usize, bytes: usize) -> Self {
        let mut offsets = Vec::with_capacity(rows + 1);
        offsets.push(0);
        Utf8Out { offsets, values: Vec::with_capacity(bytes.min(i32::MAX as usize)), check: false, checked_rows: 0 }
    }

    /// Validates the rows as UTF-8 when `check` (an input is
    /// [`is_unchecked`]).
    pub(crate) fn checked(mut self, check: bool) -> Self {
        self.check = check;
        self
    }

    /// Ends the current row.
    #[inline(always)]
    pub(crate) fn end_row(&mut self) -> Result<()> {
        let n = self.values.len();
        crate::input::check_i32_offsets(n)?;
        self.offsets.push(n as i32);
        if self.check && n - self.offsets[self.checked_rows] as usize >= CHECK_CHUNK {
            self.check_pending()?;
        }
        Ok(())
    }

    /// Validates the rows written since the last check.
    #[cold]
    fn check_pending(&mut self) -> Result<()> {
        let rows = self.offsets.len() - 1;
        crate::validate::check_rows(&self.values, &self.offsets[self.checked_rows..], self.checked_rows)?;
        self.checked_rows = rows;
        Ok(())
    }

    /// The array, after validating the rows not yet checked (when
    /// [`checked`](Self::checked)).
    ///
    /// # Errors
    /// [`Error::InvalidUtf8`](crate::Error::InvalidUtf8) naming the first
    /// output row that is not UTF-8.
    pub(crate) fn finish_checked(mut self, nulls: Option<NullBuffer>) -> Result<StringArray> {
        if self.check {
            self.check_pending()?;
        }
        Ok(self.finish_rows(nulls))
    }

    pub(crate) fn finish(self, nulls: Option<NullBuffer>) -> StringArray {
        debug_assert!(!self.check, "a checked output ends with finish_checked");
        self.finish_rows(nulls)
    }

    fn finish_rows(self, nulls: Option<NullBuffer>) -> StringArray {
        use arrow_buffer::{Buffer, OffsetBuffer, ScalarBuffer};
        let offsets = ScalarBuffer::from(self.offsets);
        debug_assert!(std::str::from_utf8(&self.values).is_ok());
        debug_assert!(offsets.windows(2).all(|w| w[0] <= w[1]));
        // SAFETY: offsets start at 0, never decrease (each row pushes the
        // current length) and end at `values.len()` (checked <= i32::MAX in
        // `end_row`); the values are concatenations of slices of UTF-8
        // inputs cut at character boundaries plus ASCII bytes, so UTF-8, or
        // (`checked`) every row was validated.
        unsafe {
            StringArray::new_unchecked(OffsetBuffer::new_unchecked(offsets), Buffer::from_vec(self.values), nulls)
        }
    }
}
