//! Flink logical types: the subset the transpose supports, their
//! `LogicalType.asSerializableString()` form (printer and parser) and their
//! Arrow mapping (flink-python `ArrowUtils`).

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use arrow_schema::{DataType, Field, Fields, TimeUnit};

use crate::error::{Error, Result};

/// Arrow field-metadata key carrying the exact Flink type in
/// `asSerializableString()` form.
pub const FLINK_TYPE_KEY: &str = "flink.type";

/// Largest length of CHAR / VARCHAR / BINARY / VARBINARY (`STRING` is
/// `VARCHAR(2147483647)`, `BYTES` is `VARBINARY(2147483647)`).
pub const MAX_LENGTH: u32 = i32::MAX as u32;

/// A Flink logical type with its nullability, as `LogicalType` holds it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FlinkType {
    /// What kind of type.
    pub kind: TypeKind,
    /// `false` for `... NOT NULL`.
    pub nullable: bool,
}

/// The type without its nullability. Mirrors Flink's `LogicalTypeRoot` for
/// the supported types.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum TypeKind {
    /// `BOOLEAN`
    Boolean,
    /// `TINYINT`
    TinyInt,
    /// `SMALLINT`
    SmallInt,
    /// `INT`
    Int,
    /// `BIGINT`
    BigInt,
    /// `FLOAT`
    Float,
    /// `DOUBLE`
    Double,
    /// `DECIMAL(p, s)`, 1 ≤ p ≤ 38, 0 ≤ s ≤ p. Compact (unscaled i64 in the
    /// slot) when p ≤ 18.
    Decimal {
        /// Precision.
        precision: u8,
        /// Scale.
        scale: u8,
    },
    /// `CHAR(n)`
    Char(u32),
    /// `VARCHAR(n)`; `STRING` is `VARCHAR(2147483647)`.
    VarChar(u32),
    /// `BINARY(n)`
    Binary(u32),
    /// `VARBINARY(n)`; `BYTES` is `VARBINARY(2147483647)`.
    VarBinary(u32),
    /// `DATE`: i32 days since 1970-01-01.
    Date,
    /// `TIME(p)`: i32 milliseconds of the day (Flink keeps no more).
    Time(u8),
    /// `TIMESTAMP(p)`: compact (epoch millis in the slot) when p ≤ 3.
    Timestamp(u8),
    /// `TIMESTAMP(p) WITH LOCAL TIME ZONE`: same layout as `TIMESTAMP(p)`.
    TimestampLtz(u8),
    /// `ARRAY<T>`
    Array(Box<FlinkType>),
    /// `MAP<K, V>`
    Map(Box<FlinkType>, Box<FlinkType>),
    /// `ROW<...>`
    Row(Vec<RowField>),
}

/// A field of a `ROW` type.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RowField {
    /// Field name.
    pub name: String,
    /// Field type.
    pub ty: FlinkType,
    /// Optional description (printed as `'...'`).
    pub description: Option<String>,
}

impl FlinkType {
    /// A nullable type.
    pub fn new(kind: TypeKind) -> Self {
        FlinkType { kind, nullable: true }
    }

    /// The same type with `nullable` set.
    pub fn with_nullable(mut self, nullable: bool) -> Self {
        self.nullable = nullable;
        self
    }

    /// `VARCHAR(2147483647)`, nullable.
    pub fn string() -> Self {
        FlinkType::new(TypeKind::VarChar(MAX_LENGTH))
    }

    /// Parses `LogicalType.asSerializableString()` output (and the common
    /// aliases Flink's `LogicalTypeParser` accepts: `STRING`, `BYTES`,
    /// `INTEGER`, `DEC`/`NUMERIC`, `TIMESTAMP_LTZ(p)`, `TIMESTAMP(p) WITHOUT
    /// TIME ZONE`, defaults such as `DECIMAL` = `DECIMAL(10, 0)`).
    ///
    /// # Errors
    /// [`Error::TypeParse`] naming the byte position, or
    /// [`Error::Unsupported`] for a valid Flink type sluice does not carry
    /// (INTERVAL, MULTISET, RAW, ...).
    pub fn parse(s: &str) -> Result<FlinkType> {
        let mut p = Parser { s, pos: 0 };
        let t = p.parse_type()?;
        p.skip_ws();
        if p.pos != s.len() {
            return Err(p.err("end of input"));
        }
        Ok(t)
    }

    /// True when the value lives wholly in the 8-byte slot
    /// (`BinaryRowData.isInFixedLengthPart`).
    pub fn is_fixed_length(&self) -> bool {
        match &self.kind {
            TypeKind::Decimal { precision, .. } => *precision <= 18,
            TypeKind::Timestamp(p) | TypeKind::TimestampLtz(p) => *p <= 3,
            TypeKind::Char(_)
            | TypeKind::VarChar(_)
            | TypeKind::Binary(_)
            | TypeKind::VarBinary(_)
            | TypeKind::Array(_)
            | TypeKind::Map(..)
            | TypeKind::Row(_) => false,
            _ => true,
        }
    }

    /// Element width inside a `BinaryArrayData`
    /// (`BinaryArrayData.calculateFixLengthPartSize`).
    pub fn array_element_width(&self) -> usize {
        match &self.kind {
            TypeKind::Boolean | TypeKind::TinyInt => 1,
            TypeKind::SmallInt => 2,
            TypeKind::Int | TypeKind::Float | TypeKind::Date | TypeKind::Time(_) => 4,
            _ => 8,
        }
    }

    /// The Arrow type Flink's `ArrowUtils.toArrowType` gives this type.
    pub fn to_arrow_type(&self) -> DataType {
        match &self.kind {
            TypeKind::Boolean => DataType::Boolean,
            TypeKind::TinyInt => DataType::Int8,
            TypeKind::SmallInt => DataType::Int16,
            TypeKind::Int => DataType::Int32,
            TypeKind::BigInt => DataType::Int64,
            TypeKind::Float => DataType::Float32,
            TypeKind::Double => DataType::Float64,
            TypeKind::Decimal { precision, scale } => DataType::Decimal128(*precision, *scale as i8),
            TypeKind::Char(_) | TypeKind::VarChar(_) => DataType::Utf8,
            TypeKind::Binary(n) => DataType::FixedSizeBinary(*n as i32),
            TypeKind::VarBinary(_) => DataType::Binary,
            TypeKind::Date => DataType::Date32,
            TypeKind::Time(p) => match p {
                0 => DataType::Time32(TimeUnit::Second),
                1..=3 => DataType::Time32(TimeUnit::Millisecond),
                4..=6 => DataType::Time64(TimeUnit::Microsecond),
                _ => DataType::Time64(TimeUnit::Nanosecond),
            },
            TypeKind::Timestamp(p) | TypeKind::TimestampLtz(p) => DataType::Timestamp(timestamp_unit(*p), None),
            TypeKind::Array(e) => DataType::List(Arc::new(e.to_arrow_field("element"))),
            TypeKind::Map(k, v) => {
                let entries = Field::new(
                    "items",
                    // Arrow map keys are never NULL; a NULL key in the data is
                    // an error on the way in.
                    DataType::Struct(Fields::from(vec![
                        Field::new("key", k.to_arrow_type(), false),
                        v.to_arrow_field("value"),
                    ])),
                    false,
                );
                DataType::Map(Arc::new(entries), false)
            }
            TypeKind::Row(fields) => {
                DataType::Struct(fields.iter().map(|f| f.ty.to_arrow_field(&f.name)).collect::<Fields>())
            }
        }
    }

    /// An Arrow field of this type (nullability = the type's), without
    /// metadata.
    pub fn to_arrow_field(&self, name: &str) -> Field {
        Field::new(name, self.to_arrow_type(), self.nullable)
    }

    /// An Arrow field carrying this exact type under [`FLINK_TYPE_KEY`].
    pub fn to_arrow_field_with_metadata(&self, name: &str) -> Field {
        let mut md = HashMap::new();
        md.insert(FLINK_TYPE_KEY.to_string(), self.to_string());
        self.to_arrow_field(name).with_metadata(md)
    }

    /// The Flink type of an Arrow field: its `flink.type` metadata when
    /// present (checked against the Arrow type), otherwise derived from the
    /// Arrow type (see the crate docs' table).
    ///
    /// # Errors
    /// [`Error::TypeParse`] for bad metadata, [`Error::Unsupported`] for an
    /// Arrow type with no Flink counterpart or metadata that contradicts the
    /// Arrow type.
    pub fn from_arrow_field(field: &Field) -> Result<FlinkType> {
        if let Some(s) = field.metadata().get(FLINK_TYPE_KEY) {
            let t = FlinkType::parse(s)?;
            if !t.accepts_arrow_type(field.data_type()) {
                return Err(Error::Unsupported(format!(
                    "field {:?}: Flink type {t} cannot be read from Arrow type {}",
                    field.name(),
                    field.data_type()
                )));
            }
            return Ok(t);
        }
        let kind = match field.data_type() {
            DataType::Boolean => TypeKind::Boolean,
            DataType::Int8 => TypeKind::TinyInt,
            DataType::Int16 => TypeKind::SmallInt,
            DataType::Int32 => TypeKind::Int,
            DataType::Int64 => TypeKind::BigInt,
            DataType::Float32 => TypeKind::Float,
            DataType::Float64 => TypeKind::Double,
            DataType::Decimal128(p, s) if *s >= 0 && *s as u8 <= *p && *p <= 38 => {
                TypeKind::Decimal { precision: *p, scale: *s as u8 }
            }
            DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => TypeKind::VarChar(MAX_LENGTH),
            DataType::Binary | DataType::LargeBinary | DataType::BinaryView => TypeKind::VarBinary(MAX_LENGTH),
            DataType::FixedSizeBinary(n) if *n >= 1 => TypeKind::Binary(*n as u32),
            DataType::Date32 => TypeKind::Date,
            DataType::Time32(TimeUnit::Second) => TypeKind::Time(0),
            DataType::Time32(TimeUnit::Millisecond) => TypeKind::Time(3),
            DataType::Time64(TimeUnit::Microsecond) => TypeKind::Time(6),
            DataType::Time64(TimeUnit::Nanosecond) => TypeKind::Time(9),
            DataType::Timestamp(unit, tz) => {
                let p = match unit {
                    TimeUnit::Second => 0,
                    TimeUnit::Millisecond => 3,
                    TimeUnit::Microsecond => 6,
                    TimeUnit::Nanosecond => 9,
                };
                if tz.is_some() {
                    TypeKind::TimestampLtz(p)
                } else {
                    TypeKind::Timestamp(p)
                }
            }
            DataType::List(f) | DataType::LargeList(f) => TypeKind::Array(Box::new(FlinkType::from_arrow_field(f)?)),
            DataType::Map(entries, _) => match entries.data_type() {
                DataType::Struct(kv) if kv.len() == 2 => TypeKind::Map(
                    Box::new(FlinkType::from_arrow_field(&kv[0])?),
                    Box::new(FlinkType::from_arrow_field(&kv[1])?),
                ),
                other => {
                    return Err(Error::Unsupported(format!("field {:?}: map entries of type {other}", field.name())))
                }
            },
            DataType::Struct(fields) => TypeKind::Row(
                fields
                    .iter()
                    .map(|f| {
                        Ok(RowField { name: f.name().clone(), ty: FlinkType::from_arrow_field(f)?, description: None })
                    })
                    .collect::<Result<Vec<_>>>()?,
            ),
            other => {
                return Err(Error::Unsupported(format!(
                    "field {:?}: Arrow type {other} has no Flink type in the transpose",
                    field.name()
                )))
            }
        };
        Ok(FlinkType { kind, nullable: field.is_nullable() })
    }

    /// Whether an Arrow array of type `dt` can hold values of this type on
    /// the way into rows: the canonical type, plus `LargeUtf8`/`Utf8View`
    /// for strings, `LargeBinary`/`BinaryView` for VARBINARY, `LargeList`
    /// for ARRAY, and for nested types the same rule recursively.
    pub fn accepts_arrow_type(&self, dt: &DataType) -> bool {
        match (&self.kind, dt) {
            (TypeKind::Char(_) | TypeKind::VarChar(_), DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View) => {
                true
            }
            (TypeKind::VarBinary(_), DataType::Binary | DataType::LargeBinary | DataType::BinaryView) => true,
            (TypeKind::Array(e), DataType::List(f) | DataType::LargeList(f)) => e.accepts_arrow_type(f.data_type()),
            (TypeKind::Map(k, v), DataType::Map(entries, _)) => match entries.data_type() {
                DataType::Struct(kv) if kv.len() == 2 => {
                    k.accepts_arrow_type(kv[0].data_type()) && v.accepts_arrow_type(kv[1].data_type())
                }
                _ => false,
            },
            (TypeKind::Row(fields), DataType::Struct(afs)) => {
                fields.len() == afs.len()
                    && fields.iter().zip(afs.iter()).all(|(f, a)| f.ty.accepts_arrow_type(a.data_type()))
            }
            (TypeKind::Timestamp(p) | TypeKind::TimestampLtz(p), DataType::Timestamp(u, _)) => *u == timestamp_unit(*p),
            _ => &self.to_arrow_type() == dt,
        }
    }

    /// Checks precision / length limits as Flink's type constructors do.
    pub(crate) fn validate(&self) -> std::result::Result<(), String> {
        match &self.kind {
            TypeKind::Decimal { precision, scale } if !(1..=38).contains(precision) || scale > precision => {
                Err(format!("DECIMAL({precision}, {scale}) out of range"))
            }
            TypeKind::Char(n) | TypeKind::VarChar(n) | TypeKind::Binary(n) | TypeKind::VarBinary(n)
                if *n == 0 || *n > MAX_LENGTH =>
            {
                Err(format!("length {n} out of range 1..=2147483647"))
            }
            TypeKind::Time(p) | TypeKind::Timestamp(p) | TypeKind::TimestampLtz(p) if *p > 9 => {
                Err(format!("precision {p} out of range 0..=9"))
            }
            TypeKind::Array(e) => e.validate(),
            TypeKind::Map(k, v) => {
                k.validate()?;
                v.validate()
            }
            TypeKind::Row(fs) => fs.iter().try_for_each(|f| f.ty.validate()),
            _ => Ok(()),
        }
    }
}

/// Arrow time unit for a TIMESTAMP / TIMESTAMP_LTZ precision
/// (`ArrowUtils.LogicalTypeToArrowTypeConverter`).
pub(crate) fn timestamp_unit(p: u8) -> TimeUnit {
    match p {
        0 => TimeUnit::Second,
        1..=3 => TimeUnit::Millisecond,
        4..=6 => TimeUnit::Microsecond,
        _ => TimeUnit::Nanosecond,
    }
}

impl fmt::Display for FlinkType {
    /// `LogicalType.asSerializableString()`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            TypeKind::Boolean => f.write_str("BOOLEAN")?,
            TypeKind::TinyInt => f.write_str("TINYINT")?,
            TypeKind::SmallInt => f.write_str("SMALLINT")?,
            TypeKind::Int => f.write_str("INT")?,
            TypeKind::BigInt => f.write_str("BIGINT")?,
            TypeKind::Float => f.write_str("FLOAT")?,
            TypeKind::Double => f.write_str("DOUBLE")?,
            TypeKind::Decimal { precision, scale } => write!(f, "DECIMAL({precision}, {scale})")?,
            TypeKind::Char(n) => write!(f, "CHAR({n})")?,
            TypeKind::VarChar(n) => write!(f, "VARCHAR({n})")?,
            TypeKind::Binary(n) => write!(f, "BINARY({n})")?,
            TypeKind::VarBinary(n) => write!(f, "VARBINARY({n})")?,
            TypeKind::Date => f.write_str("DATE")?,
            TypeKind::Time(p) => write!(f, "TIME({p})")?,
            TypeKind::Timestamp(p) => write!(f, "TIMESTAMP({p})")?,
            TypeKind::TimestampLtz(p) => write!(f, "TIMESTAMP({p}) WITH LOCAL TIME ZONE")?,
            TypeKind::Array(e) => write!(f, "ARRAY<{e}>")?,
            TypeKind::Map(k, v) => write!(f, "MAP<{k}, {v}>")?,
            TypeKind::Row(fields) => {
                f.write_str("ROW<")?;
                for (i, fld) in fields.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "`{}` {}", fld.name.replace('`', "``"), fld.ty)?;
                    if let Some(d) = &fld.description {
                        write!(f, " '{}'", d.replace('\'', "''"))?;
                    }
                }
                f.write_str(">")?;
            }
        }
        if !self.nullable {
            f.write_str(" NOT NULL")?;
        }
        Ok(())
    }
}

impl std::str::FromStr for FlinkType {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        FlinkType::parse(s)
    }
}

struct Parser<'a> {
    s: &'a str,
    pos: usize,
}

impl Parser<'_> {
    fn err(&self, detail: &str) -> Error {
        Error::TypeParse { input: self.s.to_string(), pos: self.pos, detail: format!("expected {detail}") }
    }

    fn rest(&self) -> &str {
        self.s.get(self.pos..).unwrap_or("")
    }

    fn skip_ws(&mut self) {
        let r = self.rest();
        self.pos += r.len() - r.trim_start().len();
    }

    fn eat(&mut self, c: char) -> bool {
        self.skip_ws();
        if self.rest().starts_with(c) {
            self.pos += c.len_utf8();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, c: char) -> Result<()> {
        if self.eat(c) {
            Ok(())
        } else {
            Err(self.err(&format!("'{c}'")))
        }
    }

    /// Next bare word (letters, digits, '_'), uppercased; does not consume.
    fn peek_word(&mut self) -> String {
        self.skip_ws();
        self.rest()
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect::<String>()
            .to_ascii_uppercase()
    }

    fn eat_word(&mut self, w: &str) -> bool {
        let save = self.pos;
        let word = self.peek_word();
        if word == w {
            self.pos += w.len();
            true
        } else {
            self.pos = save;
            false
        }
    }

    fn expect_word(&mut self, w: &str) -> Result<()> {
        if self.eat_word(w) {
            Ok(())
        } else {
            Err(self.err(w))
        }
    }

    fn number(&mut self) -> Result<u64> {
        self.skip_ws();
        let digits: String = self.rest().chars().take_while(|c| c.is_ascii_digit()).collect();
        if digits.is_empty() {
            return Err(self.err("a number"));
        }
        let v = digits.parse::<u64>().map_err(|_| self.err("a number that fits"))?;
        self.pos += digits.len();
        Ok(v)
    }

    /// `(n)` if present, else `default`.
    fn opt_len(&mut self, default: u64) -> Result<u64> {
        if self.eat('(') {
            let n = self.number()?;
            self.expect(')')?;
            Ok(n)
        } else {
            Ok(default)
        }
    }

    fn quoted(&mut self, q: char) -> Result<String> {
        self.expect(q)?;
        let mut out = String::new();
        loop {
            let mut it = self.rest().chars();
            match it.next() {
                None => return Err(self.err(&format!("closing {q}"))),
                Some(c) if c == q => {
                    self.pos += c.len_utf8();
                    if self.rest().starts_with(q) {
                        out.push(q);
                        self.pos += q.len_utf8();
                    } else {
                        return Ok(out);
                    }
                }
                Some(c) => {
                    out.push(c);
                    self.pos += c.len_utf8();
                }
            }
        }
    }

    fn identifier(&mut self) -> Result<String> {
        self.skip_ws();
        if self.rest().starts_with('`') {
            return self.quoted('`');
        }
        let word: String = self.rest().chars().take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '$').collect();
        if word.is_empty() {
            return Err(self.err("a field name"));
        }
        self.pos += word.len();
        Ok(word)
    }

    fn precision(&mut self, default: u64, max: u64) -> Result<u8> {
        let p = self.opt_len(default)?;
        if p > max {
            return Err(self.err(&format!("a precision ≤ {max}")));
        }
        Ok(p as u8)
    }

    fn length(&mut self, default: u64) -> Result<u32> {
        let n = self.opt_len(default)?;
        if n == 0 || n > MAX_LENGTH as u64 {
            return Err(self.err("a length in 1..=2147483647"));
        }
        Ok(n as u32)
    }

    /// The length of `CHAR(n)` / `BINARY(n)`, or of `… VARYING(n)` (the
    /// variable-length type) when `VARYING` follows.
    fn maybe_varying(&mut self, fixed: fn(u32) -> TypeKind, varying: fn(u32) -> TypeKind) -> Result<TypeKind> {
        let kind = if self.eat_word("VARYING") { varying } else { fixed };
        Ok(kind(self.length(1)?))
    }

    /// The `TIME ZONE` of `WITHOUT TIME ZONE` / `WITH LOCAL TIME ZONE`.
    fn expect_time_zone(&mut self) -> Result<()> {
        self.expect_word("TIME")?;
        self.expect_word("ZONE")
    }

    fn parse_type(&mut self) -> Result<FlinkType> {
        let start = self.pos;
        let word = self.peek_word();
        if word.is_empty() {
            return Err(self.err("a type name"));
        }
        self.pos += word.len();
        let kind = match word.as_str() {
            "BOOLEAN" => TypeKind::Boolean,
            "TINYINT" => TypeKind::TinyInt,
            "SMALLINT" => TypeKind::SmallInt,
            "INT" | "INTEGER" => TypeKind::Int,
            "BIGINT" => TypeKind::BigInt,
            "FLOAT" | "REAL" => TypeKind::Float,
            "DOUBLE" => {
                self.eat_word("PRECISION");
                TypeKind::Double
            }
            "DECIMAL" | "DEC" | "NUMERIC" => {
                let (mut p, mut s) = (10u64, 0u64);
                if self.eat('(') {
                    p = self.number()?;
                    if self.eat(',') {
                        s = self.number()?;
                    }
                    self.expect(')')?;
                }
                if !(1..=38).contains(&p) || s > p {
                    return Err(self.err("DECIMAL precision 1..=38 and scale ≤ precision"));
                }
                TypeKind::Decimal { precision: p as u8, scale: s as u8 }
            }
            "CHAR" | "CHARACTER" => self.maybe_varying(TypeKind::Char, TypeKind::VarChar)?,
            "VARCHAR" => TypeKind::VarChar(self.length(1)?),
            "STRING" => TypeKind::VarChar(MAX_LENGTH),
            "BINARY" => self.maybe_varying(TypeKind::Binary, TypeKind::VarBinary)?,
            "VARBINARY" => TypeKind::VarBinary(self.length(1)?),
            "BYTES" => TypeKind::VarBinary(MAX_LENGTH),
            "DATE" => TypeKind::Date,
            "TIME" => {
                let p = self.precision(0, 9)?;
                if self.eat_word("WITHOUT") {
                    self.expect_time_zone()?;
                }
                TypeKind::Time(p)
            }
            "TIMESTAMP" => {
                let p = self.precision(6, 9)?;
                if self.eat_word("WITHOUT") {
                    self.expect_time_zone()?;
                    TypeKind::Timestamp(p)
                } else if self.eat_word("WITH") {
                    if self.eat_word("LOCAL") {
                        self.expect_time_zone()?;
                        TypeKind::TimestampLtz(p)
                    } else {
                        self.pos = start;
                        return Err(Error::Unsupported(format!(
                            "TIMESTAMP WITH TIME ZONE in {:?} (Flink's binary writers reject it too)",
                            self.s
                        )));
                    }
                } else {
                    TypeKind::Timestamp(p)
                }
            }
            "TIMESTAMP_LTZ" => TypeKind::TimestampLtz(self.precision(6, 9)?),
            "ARRAY" => {
                self.expect('<')?;
                let e = self.parse_type()?;
                self.expect('>')?;
                TypeKind::Array(Box::new(e))
            }
            "MAP" => {
                self.expect('<')?;
                let k = self.parse_type()?;
                self.expect(',')?;
                let v = self.parse_type()?;
                self.expect('>')?;
                TypeKind::Map(Box::new(k), Box::new(v))
            }
            "ROW" => {
                let close = if self.eat('<') {
                    '>'
                } else if self.eat('(') {
                    ')'
                } else {
                    return Err(self.err("'<' or '('"));
                };
                let mut fields = Vec::new();
                if !self.eat(close) {
                    loop {
                        let name = self.identifier()?;
                        let ty = self.parse_type()?;
                        self.skip_ws();
                        let description = if self.rest().starts_with('\'') { Some(self.quoted('\'')?) } else { None };
                        fields.push(RowField { name, ty, description });
                        if self.eat(close) {
                            break;
                        }
                        self.expect(',')?;
                    }
                }
                TypeKind::Row(fields)
            }
            "INTERVAL" | "MULTISET" | "RAW" | "NULL" | "SYMBOL" | "VARIANT" | "DESCRIPTOR" => {
                self.pos = start;
                return Err(Error::Unsupported(format!(
                    "Flink type {word} (in {:?}) is not carried by the transpose",
                    self.s
                )));
            }
            _ => {
                self.pos = start;
                return Err(self.err("a known type name"));
            }
        };
        let nullable = if self.eat_word("NOT") {
            self.expect_word("NULL")?;
            false
        } else {
            self.eat_word("NULL");
            true
        };
        Ok(FlinkType { kind, nullable })
    }
}
