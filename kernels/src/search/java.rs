//! REPLACE, SPLIT_INDEX and LIKE on values that Flink still holds as Java
//! Strings, for the UTF-16 input path.
//!
//! A Flink string that has not been serialized yet (a lazy
//! `BinaryStringData` built by `fromString`, e.g. straight from a JSON
//! source) is a Java `String`: its UTF-8 bytes exist only once something
//! materializes them, and `StringUtf8Utils.encodeUTF8` then writes each
//! unpaired surrogate as `?`. Which form a function sees decides its result
//! on such a value:
//!
//! * the Java String (raw surrogate): REPLACE and SPLIT_INDEX
//!   (`SqlFunctionUtils.replace` / `splitIndex` take `String`s:
//!   `StringCallGen` passes `toString()`, which returns the held String),
//!   LIKE with a non-literal pattern (`LikeCallGen.generateDynamicLike` →
//!   `SqlLikeUtils.like(s.toString(), ..)`), a literal LIKE pattern on the
//!   regex path (a bare `_` or an escaped `%`:
//!   `pattern.matcher(s.toString())`), and a literal pattern without `%` on
//!   the quick path (`BinaryStringData.equals` against a `fromString`
//!   constant compares the two Strings when both sides hold one);
//! * the `?` bytes: POSITION / LOCATE (`BinaryStringData.indexOf`), and the
//!   other literal quick paths (`startsWith`, `endsWith`, `contains`,
//!   `SqlLikeChainChecker`, which all `ensureMaterialized()` first).
//!
//! sluice receives such values as the Java chars of the column
//! ([`Utf16Values`]) and encodes them to UTF-8 with Flink's `?` rule for the
//! byte kernels. The functions here take both forms of each string argument
//! ([`JavaStr`]): every row whose UTF-16 arguments hold no unpaired
//! surrogate is computed by the UTF-8 kernel (identical there: UTF-8 and
//! UTF-16 searches find the same occurrences), and only the other rows are
//! recomputed on the code units (`java_ops`) and their result encoded
//! with the `?` rule, as Flink writes it out.
//!
//! What can still differ from Flink, and why:
//!
//! * an argument that is the **result of another function** reaches these
//!   functions as UTF-8. In Flink, REPLACE / SPLIT_INDEX results are again
//!   lazy Strings (`BinaryStringData.fromString`), so a nested call such as
//!   `REPLACE(REPLACE(s, '', 'x'), ..)` (whose inner result splits a pair)
//!   sees the raw halves in Flink and `?` here;
//! * a value that reached sluice as UTF-8 bytes (the row path, or any
//!   column Flink serialized before the operator) has already become `?`
//!   in Flink too, so it matches; but a UTF-8 argument that is **not valid
//!   UTF-8** is decoded here with U+FFFD per Rust's `from_utf8_lossy`
//!   when it shares a row with an unpaired surrogate (Flink's JDK decoder
//!   differs for encoded surrogates `ED A0..BF`, see
//!   `StringUtf8Utils.decodeUTF8`);
//! * the message of an `Invalid escape sequence` in a pattern that holds an
//!   unpaired surrogate shows it as `?`.

use arrow_array::{make_array, Array, ArrayRef, BooleanArray, Datum, StringArray};
use arrow_buffer::{BooleanBuffer, NullBuffer, NullBufferBuilder};

use super::args::{output_len, IntArg, StrArg, Utf8Out};
use super::java_ops::{has_unpaired_surrogate, replace_units, split_units, LikeUnits};
use super::like::{like_with_escape, one_unit_escape, LikePattern, LiteralPath};
use super::{replace, split_index};
use crate::encode::encode_utf16_into;
use crate::error::{invalid_arg, Error, Result};

/// The UTF-16 values of a string column as Java handed them over: the code
/// units of all values back to back, `rows + 1` offsets into them, and the
/// NULL rows.
#[derive(Clone, Copy, Debug)]
pub struct Utf16Values<'a> {
    /// Code units of all values.
    pub units: &'a [u16],
    /// `rows + 1` offsets into `units`.
    pub offsets: &'a [i64],
    /// Validity; `None` = all valid.
    pub nulls: Option<&'a NullBuffer>,
}

impl<'a> Utf16Values<'a> {
    /// Units of row `i`, `None` if NULL or out of range.
    fn row(&self, i: usize) -> Option<&'a [u16]> {
        if self.nulls.is_some_and(|n| n.is_null(i)) {
            return None;
        }
        let (a, b) = (*self.offsets.get(i)?, *self.offsets.get(i + 1)?);
        self.units.get(usize::try_from(a).ok()?..usize::try_from(b).ok()?)
    }
}

/// A string argument in both forms: `utf8` (what the UTF-8 kernels read; for
/// a UTF-16 column its `?`-encoded array) and, when the value came in as
/// Java chars, `utf16` (the same rows as code units).
#[derive(Clone, Copy)]
pub struct JavaStr<'a> {
    /// The argument as the byte kernels take it (array or scalar).
    pub utf8: &'a dyn Datum,
    /// The UTF-16 values of an array argument that came in as Java chars.
    pub utf16: Option<Utf16Values<'a>>,
}

impl<'a> JavaStr<'a> {
    /// An argument that only exists as UTF-8.
    pub fn utf8(utf8: &'a dyn Datum) -> Self {
        JavaStr { utf8, utf16: None }
    }
}

/// One argument's units for a row: the UTF-16 values, or the UTF-8 value
/// decoded into a reused buffer.
struct Units<'a> {
    utf8: StrArg<'a>,
    utf16: Option<Utf16Values<'a>>,
    buf: Vec<u16>,
}

impl<'a> Units<'a> {
    fn new(a: JavaStr<'a>, what: &str) -> Result<Self> {
        Ok(Units { utf8: StrArg::new(a.utf8, what)?, utf16: a.utf16, buf: Vec::new() })
    }

    /// Row `i` as code units, `None` if NULL.
    fn load(&mut self, i: usize) -> Option<&[u16]> {
        if let Some(v) = self.utf16 {
            return v.row(i);
        }
        if self.utf8.is_null_scalar() || self.utf8.nulls().is_some_and(|n| n.is_null(i)) {
            return None;
        }
        self.buf.clear();
        self.buf.extend(String::from_utf8_lossy(self.utf8.get(i)).encode_utf16());
        Some(&self.buf)
    }
}

/// The rows on which some UTF-16 argument holds an unpaired surrogate, or
/// `None` if there are none. Checks that each UTF-16 side has one offset
/// more than the output has rows.
fn surrogate_rows(args: &[JavaStr<'_>], len: usize) -> Result<Option<BooleanBuffer>> {
    let mut rows: Option<Vec<bool>> = None;
    for v in args.iter().filter_map(|a| a.utf16) {
        if v.offsets.len() != len + 1 {
            return Err(invalid_arg(format!("UTF-16 values: {} offsets for {len} rows", v.offsets.len())));
        }
        if !v.units.iter().any(|u| (0xD800..=0xDFFF).contains(u)) {
            continue;
        }
        for i in 0..len {
            if v.row(i).is_some_and(has_unpaired_surrogate) {
                rows.get_or_insert_with(|| vec![false; len])[i] = true;
            }
        }
    }
    Ok(rows.map(BooleanBuffer::from_iter))
}

/// `d` (an array) with the rows in `rows` made NULL, so that the UTF-8
/// kernel neither evaluates nor fails on them.
fn mask(d: &dyn Datum, rows: &BooleanBuffer) -> Result<ArrayRef> {
    let (a, _) = d.get();
    let keep = NullBuffer::new(!rows);
    let nulls = NullBuffer::union(a.nulls(), Some(&keep));
    Ok(make_array(a.to_data().into_builder().nulls(nulls).build()?))
}

/// The first argument that has UTF-16 values (an array, so maskable).
fn utf16_arg(args: &[JavaStr<'_>]) -> usize {
    args.iter().position(|a| a.utf16.is_some()).unwrap_or(0)
}

/// `base` with the rows in `rows` replaced by what `f` writes (UTF-16,
/// encoded with Flink's `?` rule; `f` returns `false` for NULL).
fn patch_strings(
    base: &StringArray,
    rows: &BooleanBuffer,
    mut f: impl FnMut(usize, &mut Vec<u16>) -> Result<bool>,
) -> Result<StringArray> {
    let len = base.len();
    let mut out = Utf8Out::with_capacity(len, base.value_data().len() + 16);
    let mut nulls = NullBufferBuilder::new(len);
    let mut buf = Vec::new();
    for i in 0..len {
        if rows.value(i) {
            buf.clear();
            if f(i, &mut buf)? {
                encode_utf16_into(&buf, &mut out.values);
                nulls.append_non_null();
            } else {
                nulls.append_null();
            }
        } else if base.is_null(i) {
            nulls.append_null();
        } else {
            out.values.extend_from_slice(base.value(i).as_bytes());
            nulls.append_non_null();
        }
        out.end_row()?;
    }
    Ok(out.finish(nulls.finish()))
}

/// [`replace`] on Java Strings: see the module docs.
///
/// # Errors
/// As [`replace`]; an offsets count that does not match the rows.
pub fn replace_java(s: JavaStr<'_>, old: JavaStr<'_>, new: JavaStr<'_>) -> Result<StringArray> {
    let args = [s, old, new];
    let len = output_len(&[array_len(s.utf8), array_len(old.utf8), array_len(new.utf8)])?;
    let Some(rows) = surrogate_rows(&args, len)? else { return replace(s.utf8, old.utf8, new.utf8) };
    let k = utf16_arg(&args);
    let masked = mask(args[k].utf8, &rows)?;
    let mut d: [&dyn Datum; 3] = [s.utf8, old.utf8, new.utf8];
    d[k] = &masked;
    let base = replace(d[0], d[1], d[2])?;
    let (mut su, mut ou, mut nu) =
        (Units::new(s, "REPLACE str")?, Units::new(old, "REPLACE old")?, Units::new(new, "REPLACE new")?);
    patch_strings(&base, &rows, |i, out| {
        let (Some(a), Some(b), Some(c)) = (su.load(i), ou.load(i), nu.load(i)) else { return Ok(false) };
        replace_units(a, b, c, out);
        Ok(true)
    })
}

/// [`split_index`] on Java Strings (`sep` a string or an `Int32` code, as
/// there): see the module docs.
///
/// # Errors
/// As [`split_index`]; an offsets count that does not match the rows.
pub fn split_index_java(s: JavaStr<'_>, sep: JavaStr<'_>, idx: &dyn Datum) -> Result<StringArray> {
    let args = [s, sep];
    let len = output_len(&[array_len(s.utf8), array_len(sep.utf8), array_len(idx)])?;
    let Some(rows) = surrogate_rows(&args, len)? else { return split_index(s.utf8, sep.utf8, idx) };
    let k = utf16_arg(&args);
    let masked = mask(args[k].utf8, &rows)?;
    let base = if k == 0 { split_index(&masked, sep.utf8, idx)? } else { split_index(s.utf8, &masked, idx)? };
    let ix = IntArg::new(idx, "SPLIT_INDEX index")?;
    let code = (sep.utf8.get().0.data_type() == &arrow_schema::DataType::Int32)
        .then(|| IntArg::new(sep.utf8, "SPLIT_INDEX separator"))
        .transpose()?;
    let mut su = Units::new(s, "SPLIT_INDEX str")?;
    let mut sepu = if code.is_none() { Some(Units::new(sep, "SPLIT_INDEX separator")?) } else { None };
    patch_strings(&base, &rows, |i, out| {
        if ix.is_null_scalar() || ix.nulls().is_some_and(|n| n.is_null(i)) {
            return Ok(false);
        }
        let Some(a) = su.load(i) else { return Ok(false) };
        let tok = match (&code, sepu.as_mut()) {
            (Some(c), _) => {
                if c.is_null_scalar() || c.nulls().is_some_and(|n| n.is_null(i)) {
                    return Ok(false);
                }
                // `(char) code` for a code in 1..=255 (else NULL).
                let code = c.get(i);
                u16::try_from(code).ok().filter(|u| (1..=255).contains(u)).and_then(|u| split_units(a, &[u], ix.get(i)))
            }
            (None, Some(u)) => match u.load(i) {
                Some(b) => split_units(a, b, ix.get(i)),
                None => return Ok(false),
            },
            (None, None) => None,
        };
        Ok(tok.map(|t| out.extend_from_slice(t)).is_some())
    })
}

/// [`like_with_escape`] on Java Strings: see the module docs. A
/// scalar pattern follows the literal path Flink picks for it
/// (`LiteralPath`), an array pattern the regex on the Java Strings.
///
/// # Errors
/// As [`like_with_escape`] (an invalid escape is decided without looking
/// at surrogates); an offsets count that does not match the rows.
pub fn like_java(s: JavaStr<'_>, pattern: JavaStr<'_>, escape: Option<&str>) -> Result<BooleanArray> {
    let args = [s, pattern];
    let len = output_len(&[array_len(s.utf8), array_len(pattern.utf8)])?;
    let esc = match escape {
        None => None,
        Some(e) => match one_unit_escape(e) {
            Some(c) => Some(c),
            None => return like_with_escape(s.utf8, pattern.utf8, escape),
        },
    };
    let Some(rows) = surrogate_rows(&args, len)? else { return like_with_escape(s.utf8, pattern.utf8, escape) };
    let p = StrArg::new(pattern.utf8, "LIKE pattern")?;
    let literal = match p.scalar() {
        Some(pb) => {
            let text =
                std::str::from_utf8(pb).map_err(|e| Error::InvalidUtf8 { row: 0, valid_up_to: e.valid_up_to() })?;
            let pat = LikePattern::new(text, esc)?;
            if pat.literal_path() == LiteralPath::Bytes {
                return like_with_escape(s.utf8, pattern.utf8, escape);
            }
            Some((pat.literal_path(), text.encode_utf16().collect::<Vec<u16>>()))
        }
        // Flink's regex path rejects the escape '\0' on every row.
        None if esc == Some('\0') => return like_with_escape(s.utf8, pattern.utf8, escape),
        None => None,
    };
    let k = utf16_arg(&args);
    let masked = mask(args[k].utf8, &rows)?;
    let base = if k == 0 {
        like_with_escape(&masked, pattern.utf8, escape)?
    } else {
        like_with_escape(s.utf8, &masked, escape)?
    };
    let esc16 = esc.map(|c| c as u32 as u16);
    let (mut su, mut pu) = (Units::new(s, "LIKE string")?, Units::new(pattern, "LIKE pattern")?);
    let mut regex = LikeUnits::default();
    let mut values = Vec::with_capacity(len);
    let mut valid = Vec::with_capacity(len);
    for i in 0..len {
        let v = if rows.value(i) {
            match (su.load(i), &literal) {
                (None, _) => None,
                (Some(_), Some((LiteralPath::Equals, _))) => Some(false),
                (Some(a), Some((_, units))) => Some(regex.matches(a, units, esc16)?),
                (Some(a), None) => match pu.load(i) {
                    Some(b) => Some(regex.matches(a, b, esc16)?),
                    None => None,
                },
            }
        } else {
            base.is_valid(i).then(|| base.value(i))
        };
        values.push(v.unwrap_or(false));
        valid.push(v.is_some());
    }
    Ok(BooleanArray::new(BooleanBuffer::from(values), Some(NullBuffer::from(valid)).filter(|n| n.null_count() > 0)))
}

fn array_len(d: &dyn Datum) -> Option<usize> {
    let (a, scalar) = d.get();
    (!scalar).then(|| a.len())
}
