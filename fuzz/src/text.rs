//! Arbitrary SQL arguments for the string functions: scalars or columns of
//! any string layout, drawn from a small alphabet so that needles, patterns
//! and separators actually occur in the haystacks.

use arbitrary::Arbitrary;
use arrow_array::{ArrayRef, Datum, Int32Array, Scalar, StringArray};
use arrow_buffer::NullBuffer;

use crate::arrays::{build, ByteLayout, StrLayout};

/// Characters the generated strings are made of: LIKE meta-characters,
/// escape candidates, Java whitespace and line terminators (and look-alikes
/// that are neither), 2-, 3- and 4-byte UTF-8.
pub const ALPHABET: [char; 24] = [
    'a',
    'b',
    'c',
    'a',
    'b',
    '%',
    '_',
    '\\',
    '#',
    ' ',
    '\n',
    '\r',
    '\t',
    '\u{1c}',
    '\u{85}',
    '\u{a0}',
    '\u{2028}',
    '\u{3000}',
    '\u{180e}',
    'ñ',
    '€',
    '😀',
    '\u{10ffff}',
    ',',
];

/// A string over [`ALPHABET`].
#[derive(Arbitrary, Debug, Clone)]
pub struct Text(pub Vec<u8>);

impl Text {
    /// The string.
    pub fn string(&self) -> String {
        self.0.iter().map(|b| ALPHABET[*b as usize % ALPHABET.len()]).collect()
    }
}

/// How a string argument is passed.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum Form {
    /// A one-row `Scalar` (the first value).
    Scalar,
    /// A column of `rows` rows in `layout`, built with `lead` extra rows in
    /// front that are sliced away.
    Column {
        /// Layout.
        layout: StrLayout,
        /// Rows sliced off the front.
        lead: u8,
    },
}

/// A string argument.
#[derive(Arbitrary, Debug, Clone)]
pub struct StrArg {
    /// Values, cycled over the rows (`None` = NULL; empty = all NULL).
    pub values: Vec<Option<Text>>,
    /// Scalar or column.
    pub form: Form,
}

impl StrArg {
    /// Row `i`'s value.
    pub fn value(&self, i: usize) -> Option<String> {
        let i = if matches!(self.form, Form::Scalar) { 0 } else { i };
        if self.values.is_empty() {
            return None;
        }
        self.values[i % self.values.len()].as_ref().map(Text::string)
    }

    /// Whether this is a column.
    pub fn is_column(&self) -> bool {
        matches!(self.form, Form::Column { .. })
    }

    /// The argument as a `Datum` of `rows` rows (one if a scalar).
    pub fn datum(&self, rows: usize) -> Box<dyn Datum> {
        match self.form {
            Form::Scalar => Box::new(Scalar::new(StringArray::from(vec![self.value(0)]))),
            Form::Column { layout, lead } => {
                let lead = lead as usize % 4;
                let vals: Vec<Option<String>> =
                    (0..lead).map(|i| Some(format!("lead{i}"))).chain((0..rows).map(|i| self.value(i))).collect();
                let bytes: Vec<&[u8]> = vals.iter().map(|v| v.as_deref().unwrap_or("under-null").as_bytes()).collect();
                let nulls: NullBuffer = vals.iter().map(Option::is_some).collect();
                let full: ArrayRef = build(&bytes, Some(nulls), ByteLayout::Str(layout));
                Box::new(full.slice(lead, rows))
            }
        }
    }
}

/// An `INT` value biased to the edges.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum IntVal {
    /// One of -3..=5, `i32::MIN`, `i32::MAX`, `i32::MIN + 1`.
    Small(u8),
    /// Anything.
    Any(i32),
}

impl IntVal {
    /// The value.
    pub fn get(self) -> i32 {
        match self {
            IntVal::Small(k) => [-3, -2, -1, 0, 1, 2, 3, 4, 5, i32::MIN, i32::MAX, i32::MIN + 1][k as usize % 12],
            IntVal::Any(v) => v,
        }
    }
}

/// An `INT` argument.
#[derive(Arbitrary, Debug, Clone)]
pub struct IntArg {
    /// Values, cycled (`None` = NULL; empty = all NULL).
    pub values: Vec<Option<IntVal>>,
    /// A column rather than a scalar.
    pub column: bool,
}

impl IntArg {
    /// Row `i`'s value.
    pub fn value(&self, i: usize) -> Option<i32> {
        let i = if self.column { i } else { 0 };
        if self.values.is_empty() {
            return None;
        }
        self.values[i % self.values.len()].map(IntVal::get)
    }

    /// The argument as a `Datum`.
    pub fn datum(&self, rows: usize) -> Box<dyn Datum> {
        if self.column {
            Box::new(Int32Array::from((0..rows).map(|i| self.value(i)).collect::<Vec<_>>()))
        } else {
            Box::new(Scalar::new(Int32Array::from(vec![self.value(0)])))
        }
    }
}

/// Output rows of a call: the rows if any argument is a column, else 1.
pub fn output_rows(rows: usize, any_column: bool) -> usize {
    if any_column {
        rows
    } else {
        1
    }
}
