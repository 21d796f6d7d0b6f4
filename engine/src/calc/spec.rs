//! The Calc projection grammar: a small subset of Flink SQL's expression
//! syntax, one expression per output column.
//!
//! ```text
//! expr      := primary [ LIKE primary [ ESCAPE string ] ] [ AS name ]
//! primary   := column | string | int | call
//! column    := '$' digits            (0-based input position)
//!            | name | '`' any '`'    (an input column by name)
//! string    := '\'' ( any | '\'\'' )* '\''   (SQL quoting: '' is one ')
//! int       := [ '-' ] digits         (an INT literal)
//! call      := name '(' [ expr { ',' expr } ] ')'
//!            | POSITION '(' expr IN expr ')'
//! name      := [A-Za-z_][A-Za-z0-9_]*
//! ```
//!
//! Function names and keywords are case-insensitive. Functions: `MD5(s)`,
//! `SHA1(s)`, `SHA2(s, width)` (width an INT literal or column),
//! `CONCAT(s, ...)`, `CONCAT_WS(sep, s, ...)`, `POSITION(needle IN s)`,
//! `LOCATE(needle, s [, from])`, `s LIKE pattern [ESCAPE 'c']`,
//! `REPLACE(s, search, replacement)`, `SPLIT_INDEX(s, sep, index)`. A bare
//! column passes its input value through unchanged. Because the grammar is
//! SQL, the same text runs as stock Flink SQL (`SELECT expr, ... FROM t`).
//!
//! Parse errors name the expression, the byte position and what was expected.

use crate::error::Error;
pub use crate::function::Func;

/// A column reference as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ColumnRef {
    /// `$n`
    Index(usize),
    /// A name (resolved against the input's column names).
    Name(String),
}

/// A parsed expression.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expr {
    /// An input column.
    Column(ColumnRef),
    /// A string literal.
    Str(String),
    /// An INT literal.
    Int(i32),
    /// A function call. For `LIKE` the optional escape is the third argument
    /// (a string literal).
    Call(Func, Vec<Expr>),
}

/// One output column: the expression and its `AS` alias, if any.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Projection {
    /// The expression.
    pub expr: Expr,
    /// The alias after `AS`.
    pub alias: Option<String>,
}

/// Where and why parsing stopped (turned into [`Error::Parse`] by [`parse`]).
struct SpecError {
    pos: usize,
    message: String,
}

/// Parses one expression (one output column).
///
/// # Errors
/// [`Error::Parse`] with the byte position and what was expected
/// (`expression` is `None`: the caller knows the expression's place).
pub fn parse(text: &str) -> Result<Projection, Error> {
    parse_inner(text).map_err(|e| Error::Parse {
        expression: None,
        text: text.to_string(),
        pos: e.pos,
        message: e.message,
    })
}

fn parse_inner(text: &str) -> Result<Projection, SpecError> {
    let mut p = Parser { s: text.as_bytes(), text, pos: 0 };
    let expr = p.expr()?;
    let alias = if p.keyword("AS") { Some(p.name_or_quoted("an alias after AS")?) } else { None };
    p.ws();
    if p.pos != p.s.len() {
        return Err(p.err("the end of the expression (a second expression belongs in its own entry)"));
    }
    Ok(Projection { expr, alias })
}

struct Parser<'a> {
    s: &'a [u8],
    text: &'a str,
    pos: usize,
}

impl Parser<'_> {
    fn err(&self, expected: &str) -> SpecError {
        let found = match self.text.get(self.pos..).and_then(|r| r.chars().next()) {
            Some(c) => format!("'{c}'"),
            None => "the end".to_string(),
        };
        SpecError { pos: self.pos, message: format!("expected {expected}, found {found}") }
    }

    fn ws(&mut self) {
        while self.s.get(self.pos).is_some_and(u8::is_ascii_whitespace) {
            self.pos += 1;
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.s.get(self.pos).copied()
    }

    fn eat(&mut self, c: u8) -> bool {
        if self.peek() == Some(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, c: u8) -> Result<(), SpecError> {
        if self.eat(c) {
            Ok(())
        } else {
            Err(self.err(&format!("'{}'", c as char)))
        }
    }

    /// Length of the identifier at `pos` (0 if none).
    fn ident_len(&self) -> usize {
        let rest = self.s.get(self.pos..).unwrap_or(&[]);
        match rest.first() {
            Some(c) if c.is_ascii_alphabetic() || *c == b'_' => {
                rest.iter().take_while(|c| c.is_ascii_alphanumeric() || **c == b'_').count()
            }
            _ => 0,
        }
    }

    /// Consumes `kw` (case-insensitive, whole word) if it is next.
    fn keyword(&mut self, kw: &str) -> bool {
        self.ws();
        let n = self.ident_len();
        let word = self.text.get(self.pos..self.pos + n).unwrap_or("");
        if n > 0 && word.eq_ignore_ascii_case(kw) {
            self.pos += n;
            true
        } else {
            false
        }
    }

    fn name_or_quoted(&mut self, what: &str) -> Result<String, SpecError> {
        if self.peek() == Some(b'`') {
            return self.backquoted();
        }
        let n = self.ident_len();
        if n == 0 {
            return Err(self.err(what));
        }
        let name = self.text.get(self.pos..self.pos + n).unwrap_or("").to_string();
        self.pos += n;
        Ok(name)
    }

    fn backquoted(&mut self) -> Result<String, SpecError> {
        let start = self.pos;
        let name = self.quoted(b'`', "`quoted name`");
        if name.is_err() {
            self.pos = start;
        }
        name
    }

    fn string(&mut self) -> Result<String, SpecError> {
        self.quoted(b'\'', "string literal")
    }

    /// The text between the `quote` at the current position and the one
    /// that closes it, a doubled `quote` standing for one; `what` names the
    /// literal when it is unterminated.
    fn quoted(&mut self, quote: u8, what: &str) -> Result<String, SpecError> {
        let start = self.pos;
        self.pos += 1;
        let mut out = String::new();
        loop {
            let rest = self.text.get(self.pos..).unwrap_or("");
            let Some(i) = rest.find(quote as char) else {
                return Err(SpecError { pos: start, message: format!("unterminated {what}") });
            };
            out.push_str(&rest[..i]);
            self.pos += i + 1;
            if self.s.get(self.pos) == Some(&quote) {
                out.push(quote as char);
                self.pos += 1;
            } else {
                return Ok(out);
            }
        }
    }

    fn int(&mut self) -> Result<i32, SpecError> {
        let start = self.pos;
        if self.s.get(self.pos) == Some(&b'-') {
            self.pos += 1;
        }
        let digits = self.s.get(self.pos..).unwrap_or(&[]).iter().take_while(|c| c.is_ascii_digit()).count();
        if digits == 0 {
            return Err(self.err("digits"));
        }
        self.pos += digits;
        let t = self.text.get(start..self.pos).unwrap_or("");
        t.parse::<i32>().map_err(|_| SpecError { pos: start, message: format!("integer literal {t} does not fit INT") })
    }

    fn expr(&mut self) -> Result<Expr, SpecError> {
        let left = self.primary()?;
        if self.keyword("LIKE") {
            let pattern = self.primary()?;
            let mut args = vec![left, pattern];
            if self.keyword("ESCAPE") {
                if self.peek() != Some(b'\'') {
                    return Err(self.err("a string literal after ESCAPE"));
                }
                args.push(Expr::Str(self.string()?));
            }
            return Ok(Expr::Call(Func::Like, args));
        }
        Ok(left)
    }

    fn primary(&mut self) -> Result<Expr, SpecError> {
        match self.peek() {
            Some(b'\'') => Ok(Expr::Str(self.string()?)),
            Some(b'-' | b'0'..=b'9') => Ok(Expr::Int(self.int()?)),
            Some(b'$') => {
                self.pos += 1;
                let start = self.pos;
                let digits = self.s.get(self.pos..).unwrap_or(&[]).iter().take_while(|c| c.is_ascii_digit()).count();
                if digits == 0 {
                    return Err(self.err("a column number after '$'"));
                }
                self.pos += digits;
                let t = self.text.get(start..self.pos).unwrap_or("");
                let i = t
                    .parse::<usize>()
                    .map_err(|_| SpecError { pos: start, message: format!("column number {t} is too large") })?;
                Ok(Expr::Column(ColumnRef::Index(i)))
            }
            Some(b'`') => Ok(Expr::Column(ColumnRef::Name(self.backquoted()?))),
            _ => {
                let start = self.pos;
                let name = self.name_or_quoted("a column, a literal or a function call")?;
                if !self.eat(b'(') {
                    return Ok(Expr::Column(ColumnRef::Name(name)));
                }
                let Some(func) = Func::from_name(&name) else {
                    return Err(SpecError {
                        pos: start,
                        message: format!(
                            "unknown function {name}; supported: MD5, SHA1, SHA2, CONCAT, CONCAT_WS, POSITION, LOCATE, LIKE (infix), REPLACE, SPLIT_INDEX"
                        ),
                    });
                };
                let mut args = Vec::new();
                if func == Func::Position {
                    args.push(self.expr()?);
                    if !self.keyword("IN") {
                        return Err(self.err("IN (POSITION(needle IN string))"));
                    }
                    args.push(self.expr()?);
                    self.expect(b')')?;
                    return Ok(Expr::Call(func, args));
                }
                if !self.eat(b')') {
                    loop {
                        args.push(self.expr()?);
                        if self.eat(b')') {
                            break;
                        }
                        if !self.eat(b',') {
                            return Err(self.err("',' or ')'"));
                        }
                    }
                }
                Ok(Expr::Call(func, args))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn col(i: usize) -> Expr {
        Expr::Column(ColumnRef::Index(i))
    }

    #[test]
    fn parses_calls_literals_and_aliases() {
        let p = parse("sha2($1, 256) AS h").unwrap();
        assert_eq!(p.expr, Expr::Call(Func::Sha2, vec![col(1), Expr::Int(256)]));
        assert_eq!(p.alias.as_deref(), Some("h"));
        let p = parse("Concat_Ws('|', name, `we ird`, 'it''s')").unwrap();
        assert_eq!(
            p.expr,
            Expr::Call(
                Func::ConcatWs,
                vec![
                    Expr::Str("|".into()),
                    Expr::Column(ColumnRef::Name("name".into())),
                    Expr::Column(ColumnRef::Name("we ird".into())),
                    Expr::Str("it's".into()),
                ]
            )
        );
        let p = parse("POSITION('a' IN md5($0))").unwrap();
        assert_eq!(
            p.expr,
            Expr::Call(Func::Position, vec![Expr::Str("a".into()), Expr::Call(Func::Md5, vec![col(0)])])
        );
        let p = parse("$2 like '%x!%' escape '!'").unwrap();
        assert_eq!(p.expr, Expr::Call(Func::Like, vec![col(2), Expr::Str("%x!%".into()), Expr::Str("!".into())]));
        assert_eq!(
            parse("split_index($0, -1, 2)").unwrap().expr,
            Expr::Call(Func::SplitIndex, vec![col(0), Expr::Int(-1), Expr::Int(2)])
        );
    }

    #[test]
    fn errors_name_position_and_expectation() {
        let e = parse("md5($0").unwrap_err();
        assert_eq!(e.to_string(), "at byte 6: expected ',' or ')', found the end");
        let e = parse_inner("upper($0)").err().unwrap();
        assert_eq!(e.pos, 0);
        assert!(e.message.starts_with("unknown function upper"), "{}", e.message);
        assert_eq!(parse("'abc").unwrap_err().to_string(), "at byte 0: unterminated string literal");
        assert_eq!(parse_inner("md5($0) x").err().unwrap().pos, 8);
        assert!(parse_inner("sha2($0, 99999999999)").err().unwrap().message.contains("does not fit INT"));
        assert_eq!(parse("$").unwrap_err().to_string(), "at byte 1: expected a column number after '$', found the end");
    }
}
