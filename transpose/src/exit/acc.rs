//! The batch's columns, downcast once per batch ([`Vals`]) with their NULL
//! masks ([`Acc`]), for the row writers.

use arrow_array::cast::AsArray;
use arrow_array::types::*;
use arrow_array::{Array, FixedSizeBinaryArray};
use arrow_buffer::{BooleanBuffer, NullBuffer};
use arrow_schema::{DataType, TimeUnit};

use crate::converter::Node;
use crate::error::{Error, Result};
use crate::types::TypeKind;

/// Values of one column (or nested child), downcast once per batch.
pub(crate) enum Vals<'a> {
    Bool(&'a BooleanBuffer),
    I8(&'a [i8]),
    I16(&'a [i16]),
    /// INT, DATE, TIME(1..=3) as Time32(ms)
    I32(&'a [i32]),
    /// TIME(0) as Time32(s)
    TimeSec(&'a [i32]),
    /// TIME(p) as Time64: divisor to milliseconds
    Time64(&'a [i64], i64),
    I64(&'a [i64]),
    Ts(&'a [i64], TimeUnit),
    F32(&'a [f32]),
    F64(&'a [f64]),
    Dec(&'a [i128]),
    Bytes32 {
        offsets: &'a [i32],
        values: &'a [u8],
    },
    Bytes64 {
        offsets: &'a [i64],
        values: &'a [u8],
    },
    StrView(&'a arrow_array::StringViewArray),
    BinView(&'a arrow_array::BinaryViewArray),
    Fixed(&'a FixedSizeBinaryArray),
    List32 {
        offsets: &'a [i32],
        child: Box<Acc<'a>>,
    },
    List64 {
        offsets: &'a [i64],
        child: Box<Acc<'a>>,
    },
    Map {
        offsets: &'a [i32],
        keys: Box<Acc<'a>>,
        values: Box<Acc<'a>>,
    },
    Struct(Vec<Acc<'a>>),
}

/// A bound column: validity + values.
pub(crate) struct Acc<'a> {
    pub(super) nulls: Option<&'a NullBuffer>,
    pub(super) vals: Vals<'a>,
}

pub(super) fn mismatch(node: &Node, dt: &DataType) -> Error {
    Error::Unsupported(format!("field {}: Flink type {} cannot be written from Arrow type {dt}", node.path, node.ty))
}

impl<'a> Acc<'a> {
    pub(crate) fn bind(node: &Node, a: &'a dyn Array) -> Result<Acc<'a>> {
        let dt = a.data_type();
        let bad = || mismatch(node, dt);
        let vals = match (&node.ty.kind, dt) {
            (TypeKind::Boolean, DataType::Boolean) => Vals::Bool(a.as_boolean().values()),
            (TypeKind::TinyInt, DataType::Int8) => Vals::I8(a.as_primitive::<Int8Type>().values()),
            (TypeKind::SmallInt, DataType::Int16) => Vals::I16(a.as_primitive::<Int16Type>().values()),
            (TypeKind::Int, DataType::Int32) => Vals::I32(a.as_primitive::<Int32Type>().values()),
            (TypeKind::Date, DataType::Date32) => Vals::I32(a.as_primitive::<Date32Type>().values()),
            (TypeKind::Time(_), DataType::Time32(TimeUnit::Second)) => {
                Vals::TimeSec(a.as_primitive::<Time32SecondType>().values())
            }
            (TypeKind::Time(_), DataType::Time32(TimeUnit::Millisecond)) => {
                Vals::I32(a.as_primitive::<Time32MillisecondType>().values())
            }
            (TypeKind::Time(_), DataType::Time64(TimeUnit::Microsecond)) => {
                Vals::Time64(a.as_primitive::<Time64MicrosecondType>().values(), 1_000)
            }
            (TypeKind::Time(_), DataType::Time64(TimeUnit::Nanosecond)) => {
                Vals::Time64(a.as_primitive::<Time64NanosecondType>().values(), 1_000_000)
            }
            (TypeKind::BigInt, DataType::Int64) => Vals::I64(a.as_primitive::<Int64Type>().values()),
            (TypeKind::Timestamp(_) | TypeKind::TimestampLtz(_), DataType::Timestamp(unit, _)) => {
                let v: &[i64] = match unit {
                    TimeUnit::Second => a.as_primitive::<TimestampSecondType>().values(),
                    TimeUnit::Millisecond => a.as_primitive::<TimestampMillisecondType>().values(),
                    TimeUnit::Microsecond => a.as_primitive::<TimestampMicrosecondType>().values(),
                    TimeUnit::Nanosecond => a.as_primitive::<TimestampNanosecondType>().values(),
                };
                Vals::Ts(v, *unit)
            }
            (TypeKind::Float, DataType::Float32) => Vals::F32(a.as_primitive::<Float32Type>().values()),
            (TypeKind::Double, DataType::Float64) => Vals::F64(a.as_primitive::<Float64Type>().values()),
            (TypeKind::Decimal { scale, .. }, DataType::Decimal128(_, s)) if *s as i32 == *scale as i32 => {
                Vals::Dec(a.as_primitive::<Decimal128Type>().values())
            }
            (TypeKind::Char(_) | TypeKind::VarChar(_), DataType::Utf8) => {
                let s = a.as_string::<i32>();
                Vals::Bytes32 { offsets: s.value_offsets(), values: s.value_data() }
            }
            (TypeKind::Char(_) | TypeKind::VarChar(_), DataType::LargeUtf8) => {
                let s = a.as_string::<i64>();
                Vals::Bytes64 { offsets: s.value_offsets(), values: s.value_data() }
            }
            (TypeKind::Char(_) | TypeKind::VarChar(_), DataType::Utf8View) => Vals::StrView(a.as_string_view()),
            (TypeKind::VarBinary(_), DataType::Binary) => {
                let s = a.as_binary::<i32>();
                Vals::Bytes32 { offsets: s.value_offsets(), values: s.value_data() }
            }
            (TypeKind::VarBinary(_), DataType::LargeBinary) => {
                let s = a.as_binary::<i64>();
                Vals::Bytes64 { offsets: s.value_offsets(), values: s.value_data() }
            }
            (TypeKind::VarBinary(_), DataType::BinaryView) => Vals::BinView(a.as_binary_view()),
            (TypeKind::Binary(n), DataType::FixedSizeBinary(m)) if *n as i32 == *m => {
                Vals::Fixed(a.as_fixed_size_binary())
            }
            (TypeKind::Array(_), DataType::List(_)) => {
                let l = a.as_list::<i32>();
                let child = Acc::bind(&node.children[0], l.values().as_ref())?;
                Vals::List32 { offsets: l.value_offsets(), child: Box::new(child) }
            }
            (TypeKind::Array(_), DataType::LargeList(_)) => {
                let l = a.as_list::<i64>();
                let child = Acc::bind(&node.children[0], l.values().as_ref())?;
                Vals::List64 { offsets: l.value_offsets(), child: Box::new(child) }
            }
            (TypeKind::Map(..), DataType::Map(..)) => {
                let m = a.as_map();
                Vals::Map {
                    offsets: m.value_offsets(),
                    keys: Box::new(Acc::bind(&node.children[0], m.keys().as_ref())?),
                    values: Box::new(Acc::bind(&node.children[1], m.values().as_ref())?),
                }
            }
            (TypeKind::Row(_), DataType::Struct(fs)) if fs.len() == node.children.len() => {
                let s = a.as_struct();
                Vals::Struct(
                    node.children
                        .iter()
                        .zip(s.columns())
                        .map(|(n, c)| Acc::bind(n, c.as_ref()))
                        .collect::<Result<Vec<_>>>()?,
                )
            }
            _ => return Err(bad()),
        };
        Ok(Acc { nulls: a.nulls(), vals })
    }

    #[inline(always)]
    pub(super) fn is_null(&self, i: usize) -> bool {
        self.nulls.is_some_and(|n| n.is_null(i))
    }
}
