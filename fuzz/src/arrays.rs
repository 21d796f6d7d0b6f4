//! Arbitrary Arrow byte/string columns with every layout the kernels accept.
//!
//! Each column is built over *all* its rows and then sliced by a
//! [`Window`], so kernels see non-zero array offsets; NULL rows keep real
//! bytes under the mask (arrow does not promise empty NULL slots, so neither
//! may a kernel assume them).

use std::ops::Range;
use std::sync::Arc;

use arbitrary::Arbitrary;
use arrow_array::{
    Array, ArrayRef, BinaryArray, BinaryViewArray, LargeBinaryArray, LargeStringArray, StringArray, StringViewArray,
};
use arrow_buffer::NullBuffer;

/// The string layouts (`Utf8`, `LargeUtf8`, `Utf8View`).
#[derive(Arbitrary, Debug, Clone, Copy, PartialEq, Eq)]
pub enum StrLayout {
    /// `Utf8` (i32 offsets).
    Utf8,
    /// `LargeUtf8` (i64 offsets).
    LargeUtf8,
    /// `Utf8View`.
    Utf8View,
}

/// Every byte layout (the string ones plus `Binary`, `LargeBinary`,
/// `BinaryView`).
#[derive(Arbitrary, Debug, Clone, Copy, PartialEq, Eq)]
pub enum ByteLayout {
    /// A string layout.
    Str(StrLayout),
    /// `Binary` (i32 offsets).
    Binary,
    /// `LargeBinary` (i64 offsets).
    LargeBinary,
    /// `BinaryView`.
    BinaryView,
}

/// Which rows of the built array the kernel sees: `array.slice(start, len)`,
/// both clamped to the array.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub struct Window {
    /// First row (taken modulo `rows + 1`).
    pub start: u8,
    /// Rows (clamped to what is left).
    pub len: u8,
}

impl Window {
    /// The rows of an `n`-row array this window keeps.
    pub fn range(&self, n: usize) -> Range<usize> {
        let start = self.start as usize % (n + 1);
        let len = (self.len as usize).min(n - start);
        start..start + len
    }
}

/// One row: its bytes and whether it is valid. An invalid row's bytes stay
/// in the values buffer under the NULL mask.
#[derive(Arbitrary, Debug, Clone)]
pub struct Row<T> {
    /// The row's value (present in the buffers even when `valid` is false).
    pub value: T,
    /// `false` makes the row NULL.
    pub valid: bool,
}

/// An arbitrary string column.
#[derive(Arbitrary, Debug, Clone)]
pub struct StrColumn {
    /// Every row of the built array.
    pub rows: Vec<Row<String>>,
    /// Its layout.
    pub layout: StrLayout,
    /// The slice of it a kernel sees.
    pub window: Window,
    /// Whether to attach a NULL mask at all (`false`: every row valid, no
    /// buffer, whatever `Row::valid` says).
    pub masked: bool,
}

impl StrColumn {
    /// The sliced array.
    pub fn array(&self) -> ArrayRef {
        let values: Vec<&[u8]> = self.rows.iter().map(|r| r.value.as_bytes()).collect();
        let full = build(&values, self.nulls(), ByteLayout::Str(self.layout));
        let r = self.window.range(self.rows.len());
        full.slice(r.start, r.len())
    }

    /// What the sliced array holds, row by row.
    pub fn expected(&self) -> Vec<Option<&str>> {
        let r = self.window.range(self.rows.len());
        self.rows[r].iter().map(|row| (row.valid || !self.masked).then_some(row.value.as_str())).collect()
    }

    fn nulls(&self) -> Option<NullBuffer> {
        self.masked.then(|| self.rows.iter().map(|r| r.valid).collect())
    }
}

/// An arbitrary byte column: binary layouts hold arbitrary bytes, string
/// layouts the lossy-UTF-8 form of them.
#[derive(Arbitrary, Debug, Clone)]
pub struct ByteColumn {
    /// Every row of the built array.
    pub rows: Vec<Row<Vec<u8>>>,
    /// Its layout.
    pub layout: ByteLayout,
    /// The slice of it a kernel sees.
    pub window: Window,
    /// Whether to attach a NULL mask at all.
    pub masked: bool,
}

impl ByteColumn {
    fn values(&self) -> Vec<Vec<u8>> {
        self.rows
            .iter()
            .map(|r| match self.layout {
                ByteLayout::Str(_) => String::from_utf8_lossy(&r.value).into_owned().into_bytes(),
                _ => r.value.clone(),
            })
            .collect()
    }

    /// The sliced array.
    pub fn array(&self) -> ArrayRef {
        let values = self.values();
        let refs: Vec<&[u8]> = values.iter().map(Vec::as_slice).collect();
        let nulls = self.masked.then(|| self.rows.iter().map(|r| r.valid).collect());
        let full = build(&refs, nulls, self.layout);
        let r = self.window.range(self.rows.len());
        full.slice(r.start, r.len())
    }

    /// What the sliced array holds, row by row.
    pub fn expected(&self) -> Vec<Option<Vec<u8>>> {
        let r = self.window.range(self.rows.len());
        let values = self.values();
        values[r.clone()]
            .iter()
            .zip(&self.rows[r])
            .map(|(v, row)| (row.valid || !self.masked).then(|| v.clone()))
            .collect()
    }
}

/// Builds an array of `layout` holding `values` under `nulls`. String layouts
/// require every value to be UTF-8 (the builders above guarantee it).
pub fn build(values: &[&[u8]], nulls: Option<NullBuffer>, layout: ByteLayout) -> ArrayRef {
    fn as_str<'a>(v: &&'a [u8]) -> &'a str {
        std::str::from_utf8(v).expect("string layouts hold UTF-8")
    }
    match layout {
        ByteLayout::Str(StrLayout::Utf8) => {
            let (o, v, _) = StringArray::from_iter_values(values.iter().map(as_str)).into_parts();
            Arc::new(StringArray::new(o, v, nulls))
        }
        ByteLayout::Str(StrLayout::LargeUtf8) => {
            let (o, v, _) = LargeStringArray::from_iter_values(values.iter().map(as_str)).into_parts();
            Arc::new(LargeStringArray::new(o, v, nulls))
        }
        ByteLayout::Str(StrLayout::Utf8View) => {
            let (w, b, _) = StringViewArray::from_iter_values(values.iter().map(as_str)).into_parts();
            Arc::new(StringViewArray::new(w, b, nulls))
        }
        ByteLayout::Binary => {
            let (o, v, _) = BinaryArray::from_iter_values(values.iter()).into_parts();
            Arc::new(BinaryArray::new(o, v, nulls))
        }
        ByteLayout::LargeBinary => {
            let (o, v, _) = LargeBinaryArray::from_iter_values(values.iter()).into_parts();
            Arc::new(LargeBinaryArray::new(o, v, nulls))
        }
        ByteLayout::BinaryView => {
            let (w, b, _) = BinaryViewArray::from_iter_values(values.iter()).into_parts();
            Arc::new(BinaryViewArray::new(w, b, nulls))
        }
    }
}

/// Reads row `i` of any byte array back with arrow's own accessors (the
/// reference every target compares kernel output against).
pub fn value_bytes(array: &dyn Array, i: usize) -> Option<&[u8]> {
    use arrow_array::cast::AsArray;
    use arrow_schema::DataType;
    if array.is_null(i) {
        return None;
    }
    Some(match array.data_type() {
        DataType::Utf8 => array.as_string::<i32>().value(i).as_bytes(),
        DataType::LargeUtf8 => array.as_string::<i64>().value(i).as_bytes(),
        DataType::Utf8View => array.as_string_view().value(i).as_bytes(),
        DataType::Binary => array.as_binary::<i32>().value(i),
        DataType::LargeBinary => array.as_binary::<i64>().value(i),
        DataType::BinaryView => array.as_binary_view().value(i),
        other => panic!("value_bytes: not a byte array: {other}"),
    })
}
