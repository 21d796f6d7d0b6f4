//! Append-only `MIN` / `MAX` / `FIRST_VALUE` / `LAST_VALUE`: the current
//! value per group (Flink's `MinAggFunction`, `MaxAggFunction`,
//! `FirstValueAggFunction`, `LastValueAggFunction`; NULLs ignored). The
//! input cannot retract, so nothing else needs keeping.

use arrow_array::ArrayRef;

use super::accumulator::{expect_tag, required, with_str_input, Accumulator, Num};
use super::drive::{drive_str, drive_with, Held, Pass};
use crate::agg::{AggKind, VType};
use crate::error::Result;
use crate::snapshot::{Reader, Writer};

/// Append-only MIN/MAX/FIRST/LAST of BIGINT or DOUBLE.
pub(crate) struct Current<V: Num> {
    kind: AggKind,
    _value: std::marker::PhantomData<V>,
}

impl<V: Num> Current<V> {
    pub(crate) fn new(kind: AggKind) -> Self {
        Current { kind, _value: std::marker::PhantomData }
    }
}

impl<V: Num> Accumulator for Current<V> {
    type State = Option<V>;

    fn empty(&self) -> Option<V> {
        None
    }

    fn output_type(&self) -> VType {
        V::VTYPE
    }

    fn update_batch(&self, st: &mut [Option<V>], input: Option<&ArrayRef>, pass: Pass<'_, '_>) -> Result<isize> {
        let kind = self.kind;
        let inp = V::input(required(input, kind)?)?;
        let value = |s: &Option<V>| s.map(V::bits);
        let clear = |s: &mut Option<V>| {
            *s = None;
            0
        };
        macro_rules! cur {
            ($f:expr) => {
                drive_with(
                    Held::new(&mut *st),
                    pass,
                    inp,
                    |s: &mut Option<V>, x: Option<V>, _| {
                        if let Some(v) = x {
                            *s = Some(s.map_or(v, |c| $f(c, v)));
                        }
                        0
                    },
                    value,
                    V::same,
                    clear,
                )
            };
        }
        Ok(match kind {
            AggKind::Min => cur!(|c: V, v: V| if v.key() < c.key() { v } else { c }),
            AggKind::Max => cur!(|c: V, v: V| if v.key() > c.key() { v } else { c }),
            AggKind::FirstValue => cur!(|c: V, _v: V| c),
            _ => cur!(|_c: V, v: V| v),
        })
    }

    fn write(&self, a: &Option<V>, w: &mut Writer) {
        w.u8(V::CURRENT_TAG);
        w.u8(a.is_some() as u8);
        match a {
            Some(v) => v.write(w),
            // The zero value (0 or 0.0: all bits clear).
            None => w.u64(0),
        }
    }

    fn read(&self, r: &mut Reader<'_>) -> Result<Option<V>> {
        expect_tag(r, V::CURRENT_TAG)?;
        let some = r.u8("flag")? != 0;
        let x = V::read(r)?;
        Ok(some.then_some(x))
    }
}

/// Append-only MIN/MAX/FIRST/LAST of strings (compared as unsigned bytes).
pub(crate) struct CurrentStr {
    kind: AggKind,
}

impl CurrentStr {
    pub(crate) fn new(kind: AggKind) -> Self {
        CurrentStr { kind }
    }
}

fn cur(v: &Option<Box<[u8]>>) -> Option<&[u8]> {
    v.as_deref()
}

fn heap(v: &Option<Box<[u8]>>) -> usize {
    v.as_ref().map_or(0, |s| s.len())
}

impl Accumulator for CurrentStr {
    type State = Option<Box<[u8]>>;
    const HAS_HEAP: bool = true;

    fn empty(&self) -> Option<Box<[u8]>> {
        None
    }

    fn output_type(&self) -> VType {
        VType::Str
    }

    fn update_batch(
        &self,
        st: &mut [Option<Box<[u8]>>],
        input: Option<&ArrayRef>,
        pass: Pass<'_, '_>,
    ) -> Result<isize> {
        let kind = self.kind;
        let clear = |s: &mut Option<Box<[u8]>>| s.take().map_or(0, |b| b.len());
        Ok(with_str_input!(required(input, kind)?, inp => {
            macro_rules! cur {
                ($replace:expr) => {
                    drive_str(st, pass, inp, |s: &mut Option<Box<[u8]>>, x: Option<&[u8]>, _| {
                        let Some(v) = x else { return 0 };
                        if !$replace(s.as_deref(), v) {
                            return 0;
                        }
                        let old = heap(s);
                        *s = Some(Box::from(v));
                        v.len() as isize - old as isize
                    }, cur, clear)
                };
            }
            match kind {
                AggKind::Min => cur!(|c: Option<&[u8]>, v: &[u8]| c.is_none_or(|c| v < c)),
                AggKind::Max => cur!(|c: Option<&[u8]>, v: &[u8]| c.is_none_or(|c| v > c)),
                AggKind::FirstValue => cur!(|c: Option<&[u8]>, _v: &[u8]| c.is_none()),
                _ => cur!(|c: Option<&[u8]>, v: &[u8]| c.is_none_or(|c| v != c)),
            }
        }))
    }

    fn write(&self, a: &Option<Box<[u8]>>, w: &mut Writer) {
        let a = a.as_deref();
        w.u8(5);
        w.u8(a.is_some() as u8);
        w.bytes(a.unwrap_or(&[]))
    }

    fn read(&self, r: &mut Reader<'_>) -> Result<Option<Box<[u8]>>> {
        expect_tag(r, 5)?;
        let some = r.u8("flag")? != 0;
        let x = r.bytes("value")?;
        Ok(some.then(|| Box::from(x)))
    }

    fn heap(s: &Option<Box<[u8]>>) -> usize {
        heap(s)
    }
}
