//! `sluice_engine::calc`: the native Calc program, from its expression text to
//! projected rows.
//!
//! `calc_program`: arbitrary text (one expression per line) over a small
//! arbitrary input schema (names that collide with functions and keywords,
//! string, INT and other types, NOT NULL or not):
//! * `spec::parse` of each line is `Ok` or an error whose byte position is
//!   inside the text; what parses, printed back plainly (below), parses to
//!   the same `Projection`;
//! * `CalcProgram::new` is `Ok` or an error naming the first expression that
//!   failed (`expression k (<text>): …`, the parse error verbatim when the
//!   text did not parse), never a panic; it compiles only if every line
//!   parses; given output types (the computed ones made nullable) are taken
//!   as they are;
//! * a compiled program runs over a generated batch written to rows by the
//!   exit transpose (one segment or one segment per row): the row path
//!   (`process_segments`, decoded again) equals `CalcProgram::eval` on the
//!   batch, RowKinds included, and both fail alike;
//! * independent references, per output column: a bare column passes its
//!   input through; `MD5` / `SHA1` / `SHA2` (literal width) of a string
//!   column are the RustCrypto digests in lower-case hex; `CONCAT` of string
//!   columns and literals is the plain join, NULL if any operand is.

use std::fmt::Write as _;
use std::sync::Arc;

use arbitrary::Arbitrary;
use arrow_array::cast::AsArray;
use arrow_array::{
    Array, ArrayRef, BinaryArray, BooleanArray, Float64Array, Int32Array, Int64Array, RecordBatch, StringArray,
};
use arrow_schema::{DataType, SchemaRef};
use md5::Digest as _;
use sluice_engine::calc::spec::{self, ColumnRef, Expr, Func, Projection};
use sluice_engine::calc::CalcProgram;
use sluice_engine::Error;
use sluice_transpose::{FlinkType, NullLayout, RowAddress, RowConverter, RowKind, Rows, TypeKind};

use crate::text::ALPHABET;

/// Column names: plain ones, function names and keywords, names that need
/// backquotes, the empty name, a `$n` look-alike and a duplicate.
pub const NAMES: [&str; 12] = ["s", "t", "w", "id", "md5", "LIKE", "in", "we ird", "a`b", "", "$0", "s"];

/// One input column.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub struct Column {
    /// Index into [`NAMES`].
    pub name: u8,
    /// Index into the type table (`flink_type`).
    pub ty: u8,
    /// `NOT NULL`.
    pub not_null: bool,
}

/// Input of `calc_program`.
#[derive(Arbitrary, Debug, Clone)]
pub struct Input {
    /// How many of `cols` the input has (mod 5).
    pub columns: u8,
    /// The columns.
    pub cols: [Column; 4],
    /// Rows of the batch (mod 9).
    pub rows: u8,
    /// Bit 0: all rows in one segment; bit 1: pass output types; bit 2:
    /// INT values are valid SHA2 widths (so that a batch with a width column
    /// does not fail as a whole).
    pub flags: u8,
    /// Seed of the generated values and RowKinds.
    pub seed: u32,
    /// The expressions, one per line.
    pub text: String,
}

/// The Flink type of type index `ty`.
pub fn flink_type(ty: u8, not_null: bool) -> FlinkType {
    let kind = match ty % 10 {
        0 | 8 => TypeKind::VarChar(i32::MAX as u32),
        1 => TypeKind::VarChar(10),
        2 => TypeKind::Char(3),
        3 | 9 => TypeKind::Int,
        4 => TypeKind::BigInt,
        5 => TypeKind::Boolean,
        6 => TypeKind::Double,
        _ => TypeKind::VarBinary(i32::MAX as u32),
    };
    FlinkType::new(kind).with_nullable(!not_null)
}

/// A small deterministic generator (xorshift32).
pub struct Gen(u32);

impl Gen {
    /// From a seed (any value).
    pub fn new(seed: u32) -> Self {
        Gen(seed | 1)
    }

    /// The next value.
    pub fn next_u32(&mut self) -> u32 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        self.0 = x;
        x
    }

    /// A string over [`ALPHABET`]: 0..=12 characters, sometimes 40.
    pub fn text(&mut self) -> String {
        let n = match self.next_u32() % 16 {
            15 => 40,
            k => (k % 13) as usize,
        };
        (0..n).map(|_| ALPHABET[self.next_u32() as usize % ALPHABET.len()]).collect()
    }

    /// An INT biased to SHA2 widths and the edges; only valid SHA2 widths
    /// (Flink's and the JDK's `SHA-1`) when `widths`.
    pub fn int(&mut self, widths: bool) -> i32 {
        const EDGE: [i32; 10] = [224, 256, 384, 512, 1, 0, -1, 3, i32::MIN, i32::MAX];
        let k = self.next_u32();
        if widths {
            EDGE[k as usize % 5]
        } else if k.is_multiple_of(4) {
            self.next_u32() as i32
        } else {
            EDGE[(k / 4) as usize % EDGE.len()]
        }
    }
}

/// A batch of `rows` rows of `schema` (NULL about one time in four where
/// the field is nullable), or `None` for a type this generator lacks.
pub fn batch(schema: &SchemaRef, rows: usize, widths: bool, g: &mut Gen) -> Option<RecordBatch> {
    let mut columns: Vec<ArrayRef> = Vec::with_capacity(schema.fields().len());
    for f in schema.fields() {
        let null = |g: &mut Gen| f.is_nullable() && g.next_u32().is_multiple_of(4);
        let a: ArrayRef = match f.data_type() {
            DataType::Utf8 => {
                Arc::new((0..rows).map(|_| if null(g) { None } else { Some(g.text()) }).collect::<StringArray>())
            }
            DataType::Int32 => {
                Arc::new((0..rows).map(|_| if null(g) { None } else { Some(g.int(widths)) }).collect::<Int32Array>())
            }
            DataType::Int64 => Arc::new(
                (0..rows)
                    .map(|_| if null(g) { None } else { Some(i64::from(g.int(false)) << (g.next_u32() % 40)) })
                    .collect::<Int64Array>(),
            ),
            DataType::Boolean => Arc::new(
                (0..rows)
                    .map(|_| if null(g) { None } else { Some(g.next_u32().is_multiple_of(2)) })
                    .collect::<BooleanArray>(),
            ),
            DataType::Float64 => Arc::new(
                (0..rows)
                    .map(|_| if null(g) { None } else { Some(f64::from(g.int(false)) / 8.0) })
                    .collect::<Float64Array>(),
            ),
            DataType::Binary => Arc::new(
                (0..rows).map(|_| if null(g) { None } else { Some(g.text().into_bytes()) }).collect::<BinaryArray>(),
            ),
            _ => return None,
        };
        columns.push(a);
    }
    Some(RecordBatch::try_new(Arc::clone(schema), columns).expect("generated batch"))
}

/// Prints a parsed expression back in the grammar's own syntax (every name
/// backquoted, literals quoted, `LIKE` and `POSITION` in their own form).
pub fn print(p: &Projection) -> String {
    let mut out = String::new();
    print_expr(&p.expr, &mut out);
    if let Some(a) = &p.alias {
        out.push_str(" AS ");
        quoted(a, '`', &mut out);
    }
    out
}

fn quoted(s: &str, q: char, out: &mut String) {
    out.push(q);
    for c in s.chars() {
        out.push(c);
        if c == q {
            out.push(q);
        }
    }
    out.push(q);
}

fn print_expr(e: &Expr, out: &mut String) {
    match e {
        Expr::Column(ColumnRef::Index(i)) => {
            let _ = write!(out, "${i}");
        }
        Expr::Column(ColumnRef::Name(n)) => quoted(n, '`', out),
        Expr::Str(s) => quoted(s, '\'', out),
        Expr::Int(v) => {
            let _ = write!(out, "{v}");
        }
        Expr::Call(Func::Like, args) if (2..=3).contains(&args.len()) => {
            for (i, a) in args.iter().enumerate() {
                out.push_str([" ", " LIKE ", " ESCAPE "][i]);
                print_expr(a, out);
            }
        }
        Expr::Call(Func::Position, args) if args.len() == 2 => {
            out.push_str("POSITION(");
            print_expr(&args[0], out);
            out.push_str(" IN ");
            print_expr(&args[1], out);
            out.push(')');
        }
        Expr::Call(f, args) => {
            out.push_str(f.name());
            out.push('(');
            for (i, a) in args.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                print_expr(a, out);
            }
            out.push(')');
        }
    }
}

/// Runs the check on one input; panics on a mismatch.
pub fn check(input: &Input) {
    let cols = &input.cols[..input.columns as usize % 5];
    let names: Vec<String> = cols.iter().map(|c| NAMES[c.name as usize % NAMES.len()].to_string()).collect();
    let types: Vec<FlinkType> = cols.iter().map(|c| flink_type(c.ty, c.not_null)).collect();
    let exprs: Vec<&str> = input.text.split('\n').collect();

    // The parser alone.
    let parsed: Vec<Result<Projection, Error>> = exprs.iter().map(|t| spec::parse(t)).collect();
    for (t, p) in exprs.iter().zip(&parsed) {
        match p {
            Ok(p) => {
                let printed = print(p);
                let again = spec::parse(&printed)
                    .unwrap_or_else(|e| panic!("{t:?} printed as {printed:?} does not parse: {e}"));
                assert_eq!(&again, p, "{t:?} printed as {printed:?}");
            }
            Err(Error::Parse { pos, .. }) => assert!(*pos <= t.len(), "{t:?}: error position {pos} past the end"),
            Err(e) => panic!("{t:?}: the parser fails with a non-parse error: {e}"),
        }
    }

    // Compilation.
    let name_refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let in_conv = RowConverter::from_flink_types(&name_refs, &types);
    let prog = match CalcProgram::new(&names, &types, &exprs, None) {
        Ok(p) => p,
        Err(e) => {
            if in_conv.is_ok() {
                check_error(&e.to_string(), &exprs, &parsed);
            }
            return;
        }
    };
    let Ok(in_conv) = in_conv else {
        panic!("compiled although the input converter fails");
    };
    assert!(parsed.iter().all(Result::is_ok), "compiled although a line does not parse");
    assert_eq!(prog.output_names().len(), exprs.len());
    let mut prog = if input.flags & 2 != 0 {
        let given: Vec<FlinkType> = prog.output_types().iter().map(|t| t.clone().with_nullable(true)).collect();
        let p = CalcProgram::new(&names, &types, &exprs, Some(&given))
            .unwrap_or_else(|e| panic!("its own output types made nullable are refused: {e}"));
        assert_eq!(p.output_types(), &given[..], "given output types");
        p
    } else {
        prog
    };

    // Evaluation: the row path against `eval` on the batch.
    let mut g = Gen::new(input.seed);
    let n = input.rows as usize % 9;
    let Some(batch) = batch(in_conv.schema(), n, input.flags & 4 != 0, &mut g) else {
        return;
    };
    let all = [RowKind::Insert, RowKind::UpdateBefore, RowKind::UpdateAfter, RowKind::Delete];
    let kinds: Vec<RowKind> = (0..n).map(|_| all[g.next_u32() as usize % 4]).collect();
    let rows = in_conv.batch_to_rows(&batch, Some(&kinds), NullLayout::Serializer).expect("input rows");
    let (segs, addrs): (Vec<&[u8]>, Vec<RowAddress>) = if input.flags & 1 != 0 {
        let addrs = rows
            .offsets
            .windows(2)
            .map(|w| RowAddress { segment: 0, offset: w[0] as usize, len: (w[1] - w[0]) as usize })
            .collect();
        (vec![&rows.data[..]], addrs)
    } else {
        let segs: Vec<&[u8]> = rows.iter().collect();
        let addrs = segs.iter().enumerate().map(|(i, s)| RowAddress { segment: i, offset: 0, len: s.len() }).collect();
        (segs, addrs)
    };
    let direct = prog.eval(&batch);
    let mut out = Rows::default();
    let piped = prog.process_segments(&segs, &addrs, &mut out);
    let direct = match (direct, piped) {
        (Err(a), Err(b)) => {
            assert_eq!(a.to_string(), b.to_string(), "eval and process_segments fail differently");
            return;
        }
        (Ok(d), Ok(())) => d,
        (d, p) => panic!("eval: {:?}, process_segments: {:?}", d.err(), p.err()),
    };
    let out_names: Vec<&str> = prog.output_names().iter().map(String::as_str).collect();
    let out_conv = RowConverter::from_flink_types(&out_names, prog.output_types()).expect("output converter");
    let (got, got_kinds) = out_conv.rows_to_batch(&out.data, &out.offsets).expect("the output rows parse");
    assert_eq!(got_kinds, kinds, "RowKinds");
    assert_eq!(got.num_rows(), n);
    for (c, d) in direct.columns().iter().enumerate() {
        assert_eq!(got.column(c).to_data(), d.to_data(), "column {c} ({}): rows vs eval", exprs[c]);
    }

    // Independent references.
    for (k, p) in parsed.iter().enumerate() {
        let Ok(p) = p else { continue };
        if let Some(want) = reference(&p.expr, &names, &batch) {
            assert_eq!(got.column(k).to_data(), want.to_data(), "column {k} ({}) vs reference", exprs[k]);
        }
    }
}

/// The message of a failed compilation names the first failing expression.
fn check_error(message: &str, exprs: &[&str], parsed: &[Result<Projection, Error>]) {
    let k = (1..=exprs.len())
        .find(|k| message.starts_with(&format!("expression {k} ({}): ", exprs[k - 1])))
        .unwrap_or_else(|| panic!("error does not name an expression: {message}"));
    assert!(
        parsed[..k - 1].iter().all(Result::is_ok),
        "expression {k} named although an earlier one does not parse: {message}"
    );
    if let Err(e) = &parsed[k - 1] {
        assert!(message.ends_with(&e.to_string()), "parse error not passed on: {message} / {e}");
    }
}

/// The column a reference resolves to (the first of equal names).
fn resolve(c: &ColumnRef, names: &[String]) -> Option<usize> {
    match c {
        ColumnRef::Index(i) => Some(*i),
        ColumnRef::Name(n) => names.iter().position(|x| x == n),
    }
}

/// A string operand's value per row, for the references.
fn string_operand(e: &Expr, names: &[String], batch: &RecordBatch) -> Option<Vec<Option<String>>> {
    match e {
        Expr::Str(s) => Some(vec![Some(s.clone()); batch.num_rows()]),
        Expr::Column(c) => {
            let a = batch.column(resolve(c, names)?);
            let s = a.as_string_opt::<i32>()?;
            Some(s.iter().map(|v| v.map(str::to_string)).collect())
        }
        _ => None,
    }
}

/// The expected output column, for the expressions with a plain reference.
fn reference(e: &Expr, names: &[String], batch: &RecordBatch) -> Option<ArrayRef> {
    let hex_of = |vals: Vec<Option<String>>, f: &dyn Fn(&[u8]) -> String| -> ArrayRef {
        Arc::new(vals.iter().map(|v| v.as_ref().map(|s| f(s.as_bytes()))).collect::<StringArray>())
    };
    match e {
        Expr::Column(c) => Some(Arc::clone(batch.column(resolve(c, names)?))),
        Expr::Call(Func::Md5, args) => match &args[..] {
            [a @ Expr::Column(_)] => {
                Some(hex_of(string_operand(a, names, batch)?, &|b: &[u8]| hex::encode(md5::Md5::digest(b))))
            }
            _ => None,
        },
        Expr::Call(Func::Sha1, args) => match &args[..] {
            [a @ Expr::Column(_)] => {
                Some(hex_of(string_operand(a, names, batch)?, &|b: &[u8]| hex::encode(sha1::Sha1::digest(b))))
            }
            _ => None,
        },
        Expr::Call(Func::Sha2, args) => match &args[..] {
            [a @ Expr::Column(_), Expr::Int(w)] => {
                let f: &dyn Fn(&[u8]) -> String = match w {
                    224 => &|b: &[u8]| hex::encode(sha2::Sha224::digest(b)),
                    256 => &|b: &[u8]| hex::encode(sha2::Sha256::digest(b)),
                    384 => &|b: &[u8]| hex::encode(sha2::Sha384::digest(b)),
                    512 => &|b: &[u8]| hex::encode(sha2::Sha512::digest(b)),
                    _ => return None,
                };
                Some(hex_of(string_operand(a, names, batch)?, f))
            }
            _ => None,
        },
        Expr::Call(Func::Concat, args) => {
            let ops = args.iter().map(|a| string_operand(a, names, batch)).collect::<Option<Vec<_>>>()?;
            let out: StringArray = (0..batch.num_rows())
                .map(|r| ops.iter().map(|o| o[r].as_deref()).collect::<Option<Vec<&str>>>().map(|v| v.concat()))
                .collect();
            Some(Arc::new(out))
        }
        _ => None,
    }
}
