//! `filter`'s expression language: a predicate over an Example's features.
//!
//! ```text
//! expr    := or
//! or      := and ("||" and)*
//! and     := unary ("&&" unary)*
//! unary   := "!" unary | "(" expr ")" | test
//! test    := "has" "(" path ")"
//!          | literal "in" path
//!          | operand ("==" | "!=" | "<" | "<=" | ">" | ">=") operand
//! operand := path | "len" "(" path ")" | literal
//! literal := integer | float | "string"
//! path    := name of letters, digits, _ / . : - (starting with a letter or _), or `any name`
//! ```
//!
//! A comparison has a feature (or `len(feature)`) on one side and a literal on the other. A feature
//! of several values matches when any of its values does (`==`, `<`, `<=`, `>`, `>=`); `!=` is the
//! negation of `==` for a feature that has values: none of its values equals the literal. A feature
//! that is absent or holds no value matches no comparison (`!=` included: `!has(f)` asks for an
//! absent one). A value of another type than the literal (a string literal against numbers) matches
//! nothing. A float feature is compared in float32, the literal rounded to the nearest float32 as
//! TensorFlow stores it; an int64 feature against an integer exactly, against a float in float64.
//! Strings compare byte by byte. `has(f)` is true when the feature is present, even with no value;
//! `len(f)` is how many values it holds (0 when absent). `"dog" in f` is true when a value of `f`
//! equals the string (or number).
//!
//! Parsing is bounded: an expression is at most [`MAX_LEN`] bytes and nested at most
//! [`MAX_DEPTH`] deep, and evaluating reads each feature the expression names once per test.

use std::cmp::Ordering;
use std::fmt;

use crate::example::{FeatureKind, Features};

/// The longest expression accepted, in bytes.
pub const MAX_LEN: usize = 8192;
/// The deepest nesting accepted (parentheses, `!`, `&&` and `||` each count one level).
pub const MAX_DEPTH: usize = 64;

/// A mistake in an expression, at a column (1-based, in characters).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("column {column}: {message}")]
pub struct ParseError {
    pub column: usize,
    pub message: String,
}

impl ParseError {
    /// The expression as a terminal may show it, and a line with a caret under the column of the
    /// mistake (counted in the escaped text, so escapes before it move it along).
    pub fn pointed(&self, expression: &str) -> (String, String) {
        let before: String = expression
            .chars()
            .take(self.column.saturating_sub(1))
            .collect();
        let width = crate::escape::for_terminal(&before).chars().count();
        (
            crate::escape::for_terminal(expression).into_owned(),
            format!("{}^", " ".repeat(width)),
        )
    }
}

/// A literal value.
#[derive(Debug, Clone, PartialEq)]
pub enum Literal {
    Int(i64),
    Float(f64),
    Str(Vec<u8>),
}

/// How two values are compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl CmpOp {
    /// The operator with its sides swapped (`3 < x` is `x > 3`).
    fn flipped(self) -> CmpOp {
        match self {
            CmpOp::Lt => CmpOp::Gt,
            CmpOp::Le => CmpOp::Ge,
            CmpOp::Gt => CmpOp::Lt,
            CmpOp::Ge => CmpOp::Le,
            other => other,
        }
    }

    fn holds(self, ordering: Ordering) -> bool {
        match self {
            CmpOp::Eq => ordering == Ordering::Equal,
            CmpOp::Ne => ordering != Ordering::Equal,
            CmpOp::Lt => ordering == Ordering::Less,
            CmpOp::Le => ordering != Ordering::Greater,
            CmpOp::Gt => ordering == Ordering::Greater,
            CmpOp::Ge => ordering != Ordering::Less,
        }
    }
}

/// What a comparison reads from the record.
#[derive(Debug, Clone, PartialEq)]
pub enum Subject {
    /// The feature's values.
    Values(String),
    /// How many values the feature holds.
    Len(String),
}

/// A parsed expression.
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    Or(Box<Expr>, Box<Expr>),
    And(Box<Expr>, Box<Expr>),
    Not(Box<Expr>),
    Has(String),
    /// A literal among a feature's values.
    In(Literal, String),
    /// `subject op literal` (a literal on the left is moved right, the operator flipped).
    Compare(Subject, CmpOp, Literal),
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Name(String),
    Lit(Literal),
    LParen,
    RParen,
    Not,
    And,
    Or,
    Cmp(CmpOp),
    End,
}

impl fmt::Display for Tok {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tok::Name(n) => write!(f, "`{n}`"),
            Tok::Lit(_) => f.write_str("a literal"),
            Tok::LParen => f.write_str("`(`"),
            Tok::RParen => f.write_str("`)`"),
            Tok::Not => f.write_str("`!`"),
            Tok::And => f.write_str("`&&`"),
            Tok::Or => f.write_str("`||`"),
            Tok::Cmp(_) => f.write_str("a comparison operator"),
            Tok::End => f.write_str("the end of the expression"),
        }
    }
}

/// A token and the column (1-based, in characters) it starts at.
#[derive(Debug, Clone, PartialEq)]
struct Token {
    tok: Tok,
    column: usize,
}

fn error(column: usize, message: impl Into<String>) -> ParseError {
    ParseError {
        column,
        message: message.into(),
    }
}

fn starts_name(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

fn continues_name(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '/' | '.' | ':' | '-')
}

/// The tokens of `text`, ending with `End`.
fn lex(text: &str) -> Result<Vec<Token>, ParseError> {
    let chars: Vec<char> = text.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let column = i + 1;
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        let (tok, width) = match c {
            c if c.is_whitespace() => {
                i += 1;
                continue;
            }
            '(' => (Tok::LParen, 1),
            ')' => (Tok::RParen, 1),
            '&' if next == Some('&') => (Tok::And, 2),
            '|' if next == Some('|') => (Tok::Or, 2),
            '=' if next == Some('=') => (Tok::Cmp(CmpOp::Eq), 2),
            '!' if next == Some('=') => (Tok::Cmp(CmpOp::Ne), 2),
            '<' if next == Some('=') => (Tok::Cmp(CmpOp::Le), 2),
            '>' if next == Some('=') => (Tok::Cmp(CmpOp::Ge), 2),
            '!' => (Tok::Not, 1),
            '<' => (Tok::Cmp(CmpOp::Lt), 1),
            '>' => (Tok::Cmp(CmpOp::Gt), 1),
            '&' | '|' => return Err(error(column, format!("expected `{c}{c}`"))),
            '=' => {
                return Err(error(
                    column,
                    "expected `==` (one `=` assigns nothing here)",
                ));
            }
            '"' => {
                let (s, width) = lex_string(&chars[i..], column)?;
                (Tok::Lit(Literal::Str(s.into_bytes())), width)
            }
            '`' => {
                let Some(len) = chars[i + 1..].iter().position(|&c| c == '`') else {
                    return Err(error(column, "this ` is not closed"));
                };
                if len == 0 {
                    return Err(error(column, "an empty feature name"));
                }
                let name: String = chars[i + 1..i + 1 + len].iter().collect();
                (Tok::Name(name), len + 2)
            }
            c if c.is_ascii_digit()
                || ((c == '-' || c == '+' || c == '.')
                    && next.is_some_and(|n| n.is_ascii_digit() || n == '.')) =>
            {
                lex_number(&chars[i..], column)?
            }
            c if starts_name(c) => {
                let len = chars[i..]
                    .iter()
                    .position(|&c| !continues_name(c))
                    .unwrap_or(chars.len() - i);
                (Tok::Name(chars[i..i + len].iter().collect()), len)
            }
            c => {
                return Err(error(
                    column,
                    format!(
                        "unexpected character {}",
                        crate::escape::for_terminal(&format!("`{c}`"))
                    ),
                ));
            }
        };
        tokens.push(Token { tok, column });
        i += width;
    }
    tokens.push(Token {
        tok: Tok::End,
        column: chars.len() + 1,
    });
    Ok(tokens)
}

/// A string literal at the start of `chars` (which starts with `"`), and its width in characters.
fn lex_string(chars: &[char], column: usize) -> Result<(String, usize), ParseError> {
    let mut out = String::new();
    let mut i = 1;
    loop {
        match chars.get(i) {
            None => return Err(error(column, "this string is not closed")),
            Some('"') => return Ok((out, i + 1)),
            Some('\\') => {
                let escaped = match chars.get(i + 1) {
                    Some('"') => '"',
                    Some('\\') => '\\',
                    Some('n') => '\n',
                    Some('t') => '\t',
                    _ => {
                        return Err(error(
                            column + i,
                            "unknown escape (\\\" \\\\ \\n \\t are known)",
                        ));
                    }
                };
                out.push(escaped);
                i += 2;
            }
            Some(&c) => {
                out.push(c);
                i += 1;
            }
        }
    }
}

/// A number at the start of `chars`, and its width in characters.
fn lex_number(chars: &[char], column: usize) -> Result<(Tok, usize), ParseError> {
    let len = chars
        .iter()
        .enumerate()
        .position(|(i, &c)| {
            let sign_after_e = matches!(c, '-' | '+')
                && (i == 0 || matches!(chars.get(i.wrapping_sub(1)), Some('e' | 'E')));
            !(c.is_ascii_alphanumeric() || c == '.' || sign_after_e)
        })
        .unwrap_or(chars.len());
    let text: String = chars[..len].iter().collect();
    let float = text.contains(['.', 'e', 'E']) && !text.starts_with("0x");
    let literal = match float {
        true => text
            .parse::<f64>()
            .ok()
            .filter(|f| f.is_finite())
            .map(Literal::Float),
        false => text.parse::<i64>().ok().map(Literal::Int),
    };
    match literal {
        Some(literal) => Ok((Tok::Lit(literal), len)),
        None if !float && text.bytes().skip(1).all(|b| b.is_ascii_digit()) => {
            Err(error(column, format!("{text} does not fit in an int64")))
        }
        // A float that parses but is infinite: past float64's range, either way.
        None if float && text.parse::<f64>().is_ok() => Err(error(
            column,
            format!("{text} is past float64's range (±1.8e308)"),
        )),
        None => Err(error(column, format!("`{text}` is not a number"))),
    }
}

/// Parses `text` into an expression.
pub fn parse(text: &str) -> Result<Expr, ParseError> {
    if text.len() > MAX_LEN {
        return Err(error(
            MAX_LEN + 1,
            format!("the expression is longer than {MAX_LEN} bytes"),
        ));
    }
    let tokens = lex(text)?;
    let mut parser = Parser { tokens, at: 0 };
    let expr = parser.or(0)?;
    let end = parser.peek();
    match end.tok {
        Tok::End => Ok(expr),
        Tok::RParen => Err(error(end.column, "this `)` closes no `(`")),
        _ => Err(error(
            end.column,
            format!("expected `&&`, `||` or the end, found {}", end.tok),
        )),
    }
}

struct Parser {
    tokens: Vec<Token>,
    at: usize,
}

/// A side of a comparison as parsed.
enum Operand {
    Subject(Subject),
    Lit(Literal),
}

impl Parser {
    fn peek(&self) -> Token {
        self.tokens
            .get(self.at)
            .or(self.tokens.last())
            .cloned()
            .unwrap_or(Token {
                tok: Tok::End,
                column: 1,
            })
    }

    fn advance(&mut self) -> Token {
        let token = self.peek();
        if self.at < self.tokens.len() {
            self.at += 1;
        }
        token
    }

    fn deeper(&self, depth: usize) -> Result<usize, ParseError> {
        match depth < MAX_DEPTH {
            true => Ok(depth + 1),
            false => Err(error(
                self.peek().column,
                format!("nested more than {MAX_DEPTH} deep"),
            )),
        }
    }

    fn or(&mut self, depth: usize) -> Result<Expr, ParseError> {
        let depth = self.deeper(depth)?;
        let mut left = self.and(depth)?;
        while self.peek().tok == Tok::Or {
            self.advance();
            let right = self.and(depth)?;
            left = Expr::Or(Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn and(&mut self, depth: usize) -> Result<Expr, ParseError> {
        let depth = self.deeper(depth)?;
        let mut left = self.unary(depth)?;
        while self.peek().tok == Tok::And {
            self.advance();
            let right = self.unary(depth)?;
            left = Expr::And(Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn unary(&mut self, depth: usize) -> Result<Expr, ParseError> {
        let depth = self.deeper(depth)?;
        let token = self.peek();
        match token.tok {
            Tok::Not => {
                self.advance();
                Ok(Expr::Not(Box::new(self.unary(depth)?)))
            }
            Tok::LParen => {
                self.advance();
                let inner = self.or(depth)?;
                self.expect_close(token.column)?;
                Ok(inner)
            }
            _ => self.test(),
        }
    }

    fn expect_close(&mut self, open: usize) -> Result<(), ParseError> {
        let token = self.advance();
        match token.tok {
            Tok::RParen => Ok(()),
            Tok::End => Err(error(open, "this `(` is not closed")),
            other => Err(error(token.column, format!("expected `)`, found {other}"))),
        }
    }

    /// `has(path)`, `literal in path`, or a comparison.
    fn test(&mut self) -> Result<Expr, ParseError> {
        let start = self.peek();
        if let Tok::Name(name) = &start.tok {
            if name == "has" && self.is_call() {
                self.advance();
                let open = self.advance().column;
                let path = self.path()?;
                self.expect_close(open)?;
                return Ok(Expr::Has(path));
            }
        }
        let left = self.operand()?;
        let op_token = self.advance();
        let op = match (&op_token.tok, &left) {
            (Tok::Cmp(op), _) => *op,
            (Tok::Name(word), Operand::Lit(literal)) if word == "in" => {
                let path = self.path()?;
                return Ok(Expr::In(literal.clone(), path));
            }
            (Tok::Name(word), _) if word == "in" => {
                return Err(error(
                    start.column,
                    "`in` takes a literal on its left (\"dog\" in labels)",
                ));
            }
            (other, _) => {
                return Err(error(
                    op_token.column,
                    format!("expected a comparison (== != < <= > >=) or `in`, found {other}"),
                ));
            }
        };
        let right_column = self.peek().column;
        let right = self.operand()?;
        match (left, right) {
            (Operand::Subject(s), Operand::Lit(l)) => Ok(Expr::Compare(s, op, l)),
            (Operand::Lit(l), Operand::Subject(s)) => Ok(Expr::Compare(s, op.flipped(), l)),
            (Operand::Lit(_), Operand::Lit(_)) => Err(error(
                start.column,
                "compare a feature with a literal: both sides are literals",
            )),
            (Operand::Subject(_), Operand::Subject(_)) => Err(error(
                right_column,
                "compare a feature with a literal: two features are not compared",
            )),
        }
    }

    /// Whether the token after a name is `(`.
    fn is_call(&self) -> bool {
        self.tokens
            .get(self.at + 1)
            .is_some_and(|t| t.tok == Tok::LParen)
    }

    fn operand(&mut self) -> Result<Operand, ParseError> {
        let token = self.peek();
        match token.tok {
            Tok::Lit(literal) => {
                self.advance();
                Ok(Operand::Lit(literal))
            }
            Tok::Name(name) if name == "len" && self.is_call() => {
                self.advance();
                let open = self.advance().column;
                let path = self.path()?;
                self.expect_close(open)?;
                Ok(Operand::Subject(Subject::Len(path)))
            }
            Tok::Name(_) => Ok(Operand::Subject(Subject::Values(self.path()?))),
            other => Err(error(
                token.column,
                format!("expected a feature, has(…), len(…) or a literal, found {other}"),
            )),
        }
    }

    fn path(&mut self) -> Result<String, ParseError> {
        let token = self.advance();
        match token.tok {
            Tok::Name(name) => Ok(name),
            other => Err(error(
                token.column,
                format!("expected a feature name, found {other}"),
            )),
        }
    }
}

/// Whether one value compares with `literal` as `op` says; `None` when the types differ.
fn compare_int(value: i64, op: CmpOp, literal: &Literal) -> Option<bool> {
    let ordering = match literal {
        Literal::Int(l) => value.cmp(l),
        Literal::Float(l) => (value as f64).partial_cmp(l)?,
        Literal::Str(_) => return None,
    };
    Some(op.holds(ordering))
}

fn compare_float(value: f32, op: CmpOp, literal: &Literal) -> Option<bool> {
    let l = match literal {
        Literal::Int(l) => *l as f32,
        Literal::Float(l) => *l as f32,
        Literal::Str(_) => return None,
    };
    // NaN is ordered with nothing: it equals nothing, so `!=` holds.
    Some(match value.partial_cmp(&l) {
        Some(ordering) => op.holds(ordering),
        None => op == CmpOp::Ne,
    })
}

fn compare_bytes(value: &[u8], op: CmpOp, literal: &Literal) -> Option<bool> {
    match literal {
        Literal::Str(l) => Some(op.holds(value.cmp(l.as_slice()))),
        _ => None,
    }
}

/// Whether any value of the feature `name` compares with `literal` as `op` (for `!=`: the feature
/// has values and none equals).
fn any_value(features: &Features<'_>, name: &str, op: CmpOp, literal: &Literal) -> bool {
    let Some(feature) = features.named(name) else {
        return false;
    };
    let values = &feature.values;
    if op == CmpOp::Ne {
        let comparable = matches!(
            (values.kind(), literal),
            (
                FeatureKind::Int64 | FeatureKind::Float,
                Literal::Int(_) | Literal::Float(_)
            ) | (FeatureKind::Bytes, Literal::Str(_))
        );
        return comparable && !values.is_empty() && !any_value(features, name, CmpOp::Eq, literal);
    }
    match values.kind() {
        FeatureKind::Int64 => values
            .ints()
            .any(|v| compare_int(v, op, literal) == Some(true)),
        FeatureKind::Float => values
            .floats()
            .any(|v| compare_float(v, op, literal) == Some(true)),
        FeatureKind::Bytes => values
            .bytes()
            .any(|(v, _)| compare_bytes(v, op, literal) == Some(true)),
        FeatureKind::Empty => false,
    }
}

impl Expr {
    /// The feature names the expression reads, each once, in the order they are written.
    pub fn names(&self) -> Vec<&str> {
        let mut names = Vec::new();
        let mut seen = std::collections::BTreeSet::new();
        self.each_name(&mut |name| {
            if seen.insert(name) {
                names.push(name);
            }
        });
        names
    }

    fn each_name<'a>(&'a self, take: &mut impl FnMut(&'a str)) {
        match self {
            Expr::Or(a, b) | Expr::And(a, b) => {
                a.each_name(take);
                b.each_name(take);
            }
            Expr::Not(a) => a.each_name(take),
            Expr::Has(name)
            | Expr::In(_, name)
            | Expr::Compare(Subject::Values(name) | Subject::Len(name), _, _) => take(name),
        }
    }

    /// Whether the record with `features` matches.
    pub fn matches(&self, features: &Features<'_>) -> bool {
        match self {
            Expr::Or(a, b) => a.matches(features) || b.matches(features),
            Expr::And(a, b) => a.matches(features) && b.matches(features),
            Expr::Not(a) => !a.matches(features),
            Expr::Has(name) => features.named(name).is_some(),
            Expr::In(literal, name) => any_value(features, name, CmpOp::Eq, literal),
            Expr::Compare(Subject::Values(name), op, literal) => {
                any_value(features, name, *op, literal)
            }
            Expr::Compare(Subject::Len(name), op, literal) => {
                let len = features.named(name).map_or(0, |f| f.values.len());
                let len = i64::try_from(len).unwrap_or(i64::MAX);
                compare_int(len, *op, literal) == Some(true)
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;
    use crate::crafted::{FeatureValue, example};
    use crate::example::top_features;
    use crate::payload::{Decoder, Reading};
    use crate::schema::Schema;

    /// Whether `expr` matches an Example with `features`.
    pub(crate) fn matches(expr: &str, features: &[(&str, FeatureValue)]) -> bool {
        let expr = parse(expr).unwrap();
        let payload = example(features);
        let decoder = Decoder::new(Schema::builtin(), Reading::Auto);
        let decoded = decoder.decode(&payload);
        let message = decoded.typed(&payload, decoder.table()).unwrap();
        expr.matches(&top_features(&message))
    }

    fn column_of(expr: &str) -> usize {
        parse(expr).unwrap_err().column
    }

    fn record() -> Vec<(&'static str, FeatureValue)> {
        vec![
            ("label", FeatureValue::Ints(vec![3])),
            ("image/height", FeatureValue::Ints(vec![120])),
            ("image/format", FeatureValue::Bytes(vec![b"png".to_vec()])),
            (
                "image/object/class/text",
                FeatureValue::Bytes(vec![b"cat".to_vec(), b"dog".to_vec()]),
            ),
            ("image/object/bbox/xmin", FeatureValue::Floats(vec![])),
            ("score", FeatureValue::Floats(vec![0.1, 0.5])),
            ("tokens", FeatureValue::Ints((0..600).collect())),
        ]
    }

    #[test]
    fn the_issue_examples_match_as_documented() {
        let r = record();
        assert!(matches("label == 3", &r));
        assert!(!matches("label == 4", &r));
        assert!(matches("image/height > 100 && image/format == \"png\"", &r));
        assert!(!matches(
            "image/height > 200 && image/format == \"png\"",
            &r
        ));
        assert!(matches("has(image/object/bbox/xmin)", &r));
        assert!(!matches("has(image/object/bbox/ymin)", &r));
        assert!(matches("len(tokens) >= 512", &r));
        assert!(!matches("len(tokens) >= 601", &r));
        assert!(matches("\"dog\" in image/object/class/text", &r));
        assert!(!matches("\"cow\" in image/object/class/text", &r));
    }

    #[test]
    fn several_values_match_when_any_does_and_not_equal_when_none_does() {
        let r = record();
        assert!(matches("image/object/class/text == \"cat\"", &r));
        assert!(matches("image/object/class/text == \"dog\"", &r));
        assert!(!matches("image/object/class/text != \"dog\"", &r));
        assert!(matches("image/object/class/text != \"cow\"", &r));
        assert!(matches("score > 0.4", &r));
        assert!(!matches("score > 0.5", &r));
        // float32 rounding of the literal: the stored 0.1 equals 0.1.
        assert!(matches("score == 0.1", &r));
    }

    #[test]
    fn absent_empty_and_other_types_match_no_comparison() {
        let r = record();
        assert!(!matches("missing == 1", &r));
        assert!(!matches("missing != 1", &r));
        assert!(matches("!has(missing)", &r));
        assert!(!matches("image/object/bbox/xmin != 1", &r));
        assert!(!matches("label == \"3\"", &r));
        assert!(!matches("image/format == 3", &r));
        assert!(matches("len(missing) == 0", &r));
    }

    #[test]
    fn precedence_parentheses_not_and_flipped_literals() {
        let r = record();
        assert!(matches("label == 4 || label == 3 && has(label)", &r));
        assert!(!matches("(label == 4 || label == 3) && !has(label)", &r));
        assert!(matches("!!(3 == label)", &r));
        assert!(matches("100 < image/height", &r));
        assert!(matches(
            "label >= 3 && label <= 3 && label > 2 && label < 4",
            &r
        ));
        assert!(matches("label == 3.0 && label > -1e3", &r));
        assert_eq!(
            parse("a == 1 || b == 2 && c == 3").unwrap(),
            Expr::Or(
                Box::new(Expr::Compare(
                    Subject::Values("a".into()),
                    CmpOp::Eq,
                    Literal::Int(1)
                )),
                Box::new(Expr::And(
                    Box::new(Expr::Compare(
                        Subject::Values("b".into()),
                        CmpOp::Eq,
                        Literal::Int(2)
                    )),
                    Box::new(Expr::Compare(
                        Subject::Values("c".into()),
                        CmpOp::Eq,
                        Literal::Int(3)
                    )),
                ))
            )
        );
    }

    #[test]
    fn names_with_odd_characters_are_written_in_backquotes_and_keywords_are_names_elsewhere() {
        let r = vec![
            ("a b", FeatureValue::Ints(vec![1])),
            ("has", FeatureValue::Ints(vec![2])),
            ("in", FeatureValue::Bytes(vec![b"x\"y".to_vec()])),
        ];
        assert!(matches("`a b` == 1", &r));
        assert!(matches("has == 2 && has(has)", &r));
        assert!(matches("`in` == \"x\\\"y\"", &r));
    }

    #[test]
    fn lexer_tokens_and_columns() {
        let tokens = lex("a/b>=-2 && \"s\"").unwrap();
        let columns: Vec<usize> = tokens.iter().map(|t| t.column).collect();
        assert_eq!(columns, vec![1, 4, 6, 9, 12, 15]);
        assert_eq!(tokens[2].tok, Tok::Lit(Literal::Int(-2)));
        assert_eq!(tokens[4].tok, Tok::Lit(Literal::Str(b"s".to_vec())));
    }

    #[test]
    fn names_are_listed_once_in_written_order() {
        let expr = parse("(b > 1 || has(a)) && !(len(b) == 2) && \"x\" in `c d`").unwrap();
        assert_eq!(expr.names(), ["b", "a", "c d"]);
    }

    #[test]
    fn errors_point_at_the_column_of_the_mistake() {
        assert_eq!(column_of("label = 3"), 7);
        assert_eq!(column_of("label == 3 & x == 1"), 12);
        assert_eq!(column_of("label == "), 10);
        assert_eq!(column_of("(label == 3"), 1);
        assert_eq!(column_of("label == 3)"), 11);
        assert_eq!(column_of("label 3"), 7);
        assert_eq!(column_of("a == \"open"), 6);
        assert_eq!(column_of("a == \"\\q\""), 7);
        assert_eq!(column_of("a == 99999999999999999999"), 6);
        assert_eq!(column_of("a == b"), 6);
        assert_eq!(column_of("1 == 2"), 1);
        assert_eq!(column_of("a in b"), 1);
        assert_eq!(column_of("has(3)"), 5);
        assert_eq!(column_of("é == 1"), 1);
        assert_eq!(column_of("e == #"), 6);
        assert_eq!(column_of(""), 1);
        let e = parse("label = 3").unwrap_err();
        assert_eq!(
            e.pointed("label = 3"),
            ("label = 3".to_string(), "      ^".to_string())
        );
        assert_eq!(
            e.to_string(),
            "column 7: expected `==` (one `=` assigns nothing here)"
        );
        // A float past float64's range is a number too large, not "not a number".
        let e = parse("x > 1e400").unwrap_err();
        assert_eq!(
            e.to_string(),
            "column 5: 1e400 is past float64's range (±1.8e308)"
        );
        assert_eq!(
            parse("x > -1.5e309").unwrap_err().message,
            "-1.5e309 is past float64's range (±1.8e308)"
        );
        assert_eq!(
            parse("x > 1e4e").unwrap_err().message,
            "`1e4e` is not a number"
        );
        // A control character before the mistake is escaped, and the caret moves with it.
        let e = parse("\"\u{1b}\" = 3").unwrap_err();
        let (shown, caret) = e.pointed("\"\u{1b}\" = 3");
        assert!(!shown.contains('\u{1b}'));
        assert_eq!(caret.find('^'), shown.find('='));
    }

    #[test]
    fn nesting_and_length_are_bounded_without_overflowing_the_stack() {
        let deep = format!("{}a == 1{}", "(".repeat(100_000), ")".repeat(100_000));
        assert!(parse(&deep).unwrap_err().message.contains("longer"));
        let deep = format!("{}a == 1{}", "(".repeat(4000), ")".repeat(4000));
        assert!(parse(&deep).unwrap_err().message.contains("nested"));
        let nots = format!("{}a == 1", "!".repeat(8000));
        assert!(parse(&nots).unwrap_err().message.contains("nested"));
        // Long flat chains are not deep.
        let flat = vec!["a == 1"; 500].join(" || ");
        assert!(parse(&flat).is_ok());
        let ok = format!("{}a == 1{}", "(".repeat(20), ")".repeat(20));
        assert!(parse(&ok).is_ok());
    }

    mod reference {
        use super::*;
        use proptest::prelude::*;

        /// A feature of the random Examples, as the reference sees it.
        #[derive(Debug, Clone)]
        enum Model {
            Ints(Vec<i64>),
            Floats(Vec<f32>),
            Strs(Vec<String>),
        }

        /// A random test, written out and judged by the reference below.
        #[derive(Debug, Clone)]
        enum Test {
            Has(usize),
            Len(usize, &'static str, i64),
            In(String, usize),
            Int(usize, &'static str, i64),
            Str(usize, &'static str, String),
            Not(Box<Test>),
            And(Box<Test>, Box<Test>),
            Or(Box<Test>, Box<Test>),
        }

        const NAMES: [&str; 4] = ["a", "b/c", "d", "gone"];
        const OPS: [&str; 6] = ["==", "!=", "<", "<=", ">", ">="];

        fn text(t: &Test) -> String {
            match t {
                Test::Has(f) => format!("has({})", NAMES[*f]),
                Test::Len(f, op, n) => format!("len({}) {op} {n}", NAMES[*f]),
                Test::In(s, f) => format!("\"{s}\" in {}", NAMES[*f]),
                Test::Int(f, op, n) => format!("{} {op} {n}", NAMES[*f]),
                Test::Str(f, op, s) => format!("{} {op} \"{s}\"", NAMES[*f]),
                Test::Not(a) => format!("!({})", text(a)),
                Test::And(a, b) => format!("({}) && ({})", text(a), text(b)),
                Test::Or(a, b) => format!("{} || {}", text(a), text(b)),
            }
        }

        fn holds(op: &str, o: Ordering) -> bool {
            match op {
                "==" => o.is_eq(),
                "!=" => o.is_ne(),
                "<" => o.is_lt(),
                "<=" => o.is_le(),
                ">" => o.is_gt(),
                _ => o.is_ge(),
            }
        }

        /// The documented semantics, written plainly: any value matches; `!=` is "has values,
        /// none equal"; other types match nothing.
        fn reference(t: &Test, record: &[Option<Model>; 4]) -> bool {
            let any_int = |f: usize, op: &str, n: i64| match &record[f] {
                Some(Model::Ints(v)) if op == "!=" => !v.is_empty() && v.iter().all(|x| *x != n),
                Some(Model::Ints(v)) => v.iter().any(|x| holds(op, x.cmp(&n))),
                Some(Model::Floats(v)) if op == "!=" => {
                    !v.is_empty() && v.iter().all(|x| *x != n as f32)
                }
                Some(Model::Floats(v)) => v
                    .iter()
                    .any(|x| x.partial_cmp(&(n as f32)).is_some_and(|o| holds(op, o))),
                _ => false,
            };
            let any_str = |f: usize, op: &str, s: &str| match &record[f] {
                Some(Model::Strs(v)) if op == "!=" => !v.is_empty() && v.iter().all(|x| x != s),
                Some(Model::Strs(v)) => v.iter().any(|x| holds(op, x.as_str().cmp(s))),
                _ => false,
            };
            match t {
                Test::Has(f) => record[*f].is_some(),
                Test::Len(f, op, n) => {
                    let len = match &record[*f] {
                        Some(Model::Ints(v)) => v.len(),
                        Some(Model::Floats(v)) => v.len(),
                        Some(Model::Strs(v)) => v.len(),
                        None => 0,
                    };
                    holds(op, (len as i64).cmp(n))
                }
                Test::In(s, f) => any_str(*f, "==", s),
                Test::Int(f, op, n) => any_int(*f, op, *n),
                Test::Str(f, op, s) => any_str(*f, op, s),
                Test::Not(a) => !reference(a, record),
                Test::And(a, b) => reference(a, record) && reference(b, record),
                Test::Or(a, b) => reference(a, record) || reference(b, record),
            }
        }

        fn model() -> impl Strategy<Value = Option<Model>> {
            prop_oneof![
                Just(None),
                prop::collection::vec(-3i64..4, 0..4).prop_map(|v| Some(Model::Ints(v))),
                prop::collection::vec((-3i64..4).prop_map(|i| i as f32 / 2.0), 0..4)
                    .prop_map(|v| Some(Model::Floats(v))),
                prop::collection::vec("[ab]{0,2}", 0..4).prop_map(|v| Some(Model::Strs(v))),
            ]
        }

        fn test() -> impl Strategy<Value = Test> {
            let f = 0usize..4;
            let op = prop::sample::select(OPS.to_vec());
            let leaf = prop_oneof![
                f.clone().prop_map(Test::Has),
                (f.clone(), op.clone(), 0i64..4).prop_map(|(f, o, n)| Test::Len(f, o, n)),
                ("[ab]{0,2}", f.clone()).prop_map(|(s, f)| Test::In(s, f)),
                (f.clone(), op.clone(), -3i64..4).prop_map(|(f, o, n)| Test::Int(f, o, n)),
                (f, op, "[ab]{0,2}").prop_map(|(f, o, s)| Test::Str(f, o, s)),
            ];
            leaf.prop_recursive(4, 16, 2, |inner| {
                prop_oneof![
                    inner.clone().prop_map(|a| Test::Not(Box::new(a))),
                    (inner.clone(), inner.clone())
                        .prop_map(|(a, b)| Test::And(Box::new(a), Box::new(b))),
                    (inner.clone(), inner).prop_map(|(a, b)| Test::Or(Box::new(a), Box::new(b))),
                ]
            })
        }

        proptest! {
            #[test]
            fn the_evaluator_agrees_with_the_reference(
                record in [model(), model(), model(), model()],
                t in test(),
            ) {
                let features: Vec<(&str, FeatureValue)> = record
                    .iter()
                    .zip(NAMES)
                    .filter_map(|(m, name)| {
                        Some((name, match m.as_ref()? {
                            Model::Ints(v) => FeatureValue::Ints(v.clone()),
                            Model::Floats(v) => FeatureValue::Floats(v.clone()),
                            Model::Strs(v) => FeatureValue::Bytes(
                                v.iter().map(|s| s.as_bytes().to_vec()).collect(),
                            ),
                        }))
                    })
                    .collect();
                let expr = text(&t);
                prop_assert_eq!(matches(&expr, &features), reference(&t, &record), "{}", expr);
            }
        }
    }
}
