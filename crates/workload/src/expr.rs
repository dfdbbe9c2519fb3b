//! Integer expressions in workload files: `ni * nj`, `(n + 15) / 16 * 16`, `start + i * step`.
//!
//! Grammar (C precedence, left-associative):
//!
//! ```text
//! expr    = term (("+" | "-") term)*
//! term    = unary (("*" | "/" | "%") unary)*
//! unary   = "-" unary | "+" unary | primary
//! primary = INTEGER | NAME | "(" expr ")"
//! ```
//!
//! Integers are decimal or `0x` hexadecimal; names are identifiers (sizes of the `[sizes]`
//! table, or loop indices). Evaluation is exact: every intermediate value must lie between
//! −2^63 and 2^64 − 1 (the union of `long` and `ulong`), division and remainder truncate
//! towards zero as in C, and dividing by zero is an error. Errors carry the byte offset in
//! the expression text of the operator or name at fault, so callers can point at it.

use std::fmt;

/// Deepest nesting of parentheses and unary operators accepted (a guard against stack
/// exhaustion on hostile input; real expressions nest a few levels).
const MAX_DEPTH: usize = 64;
/// The smallest value an expression may produce: `long`'s minimum.
const MIN_VALUE: i128 = i64::MIN as i128;
/// The largest value an expression may produce: `ulong`'s maximum.
const MAX_VALUE: i128 = u64::MAX as i128;

/// A binary operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
}

impl BinaryOp {
    fn symbol(self) -> char {
        match self {
            BinaryOp::Add => '+',
            BinaryOp::Sub => '-',
            BinaryOp::Mul => '*',
            BinaryOp::Div => '/',
            BinaryOp::Rem => '%',
        }
    }

    fn precedence(self) -> u8 {
        match self {
            BinaryOp::Add | BinaryOp::Sub => 1,
            BinaryOp::Mul | BinaryOp::Div | BinaryOp::Rem => 2,
        }
    }
}

/// A parsed expression. `at` fields are byte offsets into the text it was parsed from (0 for
/// expressions built in code); they only locate errors and are ignored by equality.
#[derive(Clone, Debug)]
pub enum Expr {
    Int(i128),
    Name { name: String, at: usize },
    Neg { operand: Box<Expr>, at: usize },
    Binary { op: BinaryOp, lhs: Box<Expr>, rhs: Box<Expr>, at: usize },
}

impl PartialEq for Expr {
    fn eq(&self, other: &Expr) -> bool {
        match (self, other) {
            (Expr::Int(a), Expr::Int(b)) => a == b,
            (Expr::Name { name: a, .. }, Expr::Name { name: b, .. }) => a == b,
            (Expr::Neg { operand: a, .. }, Expr::Neg { operand: b, .. }) => a == b,
            (
                Expr::Binary { op: o1, lhs: l1, rhs: r1, .. },
                Expr::Binary { op: o2, lhs: l2, rhs: r2, .. },
            ) => o1 == o2 && l1 == l2 && r1 == r2,
            _ => false,
        }
    }
}

/// Why an expression cannot be parsed or evaluated; `at` is a byte offset into its text.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ExprError {
    pub message: String,
    pub at: usize,
}

fn error(at: usize, message: impl Into<String>) -> ExprError {
    ExprError { message: message.into(), at }
}

impl Expr {
    /// Parses `text` as a whole expression.
    pub fn parse(text: &str) -> Result<Expr, ExprError> {
        let mut parser = Parser { text, pos: 0, depth: 0 };
        let expr = parser.expr()?;
        parser.skip_space();
        if parser.pos < text.len() {
            let rest = text.get(parser.pos..).unwrap_or("");
            let token: String = rest.chars().take_while(|c| !c.is_whitespace()).collect();
            return Err(error(parser.pos, format!("unexpected `{token}` in `{text}`")));
        }
        Ok(expr)
    }

    /// Every name the expression mentions, in order of appearance (repeats included).
    pub fn names(&self) -> Vec<&str> {
        let mut out = Vec::new();
        self.collect_names(&mut out);
        out
    }

    fn collect_names<'a>(&'a self, out: &mut Vec<&'a str>) {
        match self {
            Expr::Int(_) => {}
            Expr::Name { name, .. } => out.push(name),
            Expr::Neg { operand, .. } => operand.collect_names(out),
            Expr::Binary { lhs, rhs, .. } => {
                lhs.collect_names(out);
                rhs.collect_names(out);
            }
        }
    }

    /// Evaluates the expression; `lookup` gives the value of a name, `None` for an unknown
    /// one (reported with the names `known` lists).
    pub fn eval(
        &self,
        lookup: &dyn Fn(&str) -> Option<i128>,
        known: &dyn Fn() -> Vec<String>,
    ) -> Result<i128, ExprError> {
        match self {
            Expr::Int(v) => in_range(*v, 0),
            Expr::Name { name, at } => lookup(name).ok_or_else(|| {
                let names = known();
                error(
                    *at,
                    if names.is_empty() {
                        format!("unknown name `{name}` (no sizes or loop indices are defined)")
                    } else {
                        format!("unknown name `{name}`; known names: {}", names.join(", "))
                    },
                )
            }),
            Expr::Neg { operand, at } => {
                let v = operand.eval(lookup, known)?;
                in_range(v.checked_neg().unwrap_or(i128::MAX), *at)
            }
            Expr::Binary { op, lhs, rhs, at } => {
                let a = lhs.eval(lookup, known)?;
                let b = rhs.eval(lookup, known)?;
                let result = match op {
                    BinaryOp::Add => a.checked_add(b),
                    BinaryOp::Sub => a.checked_sub(b),
                    BinaryOp::Mul => a.checked_mul(b),
                    BinaryOp::Div | BinaryOp::Rem if b == 0 => {
                        return Err(error(*at, format!("division by zero in `{self}`")));
                    }
                    BinaryOp::Div => a.checked_div(b),
                    BinaryOp::Rem => a.checked_rem(b),
                };
                in_range(result.unwrap_or(i128::MAX), *at).map_err(|_| {
                    error(
                        *at,
                        format!(
                            "`{self}` overflows: {a} {} {b} is outside the 64-bit range",
                            op.symbol()
                        ),
                    )
                })
            }
        }
    }

    /// Replaces every name `lookup` knows by its value and folds what became constant. Names
    /// it does not know stay (loop indices, evaluated later).
    pub fn substitute(&self, lookup: &dyn Fn(&str) -> Option<i128>) -> Result<Expr, ExprError> {
        let folded = match self {
            Expr::Int(_) => self.clone(),
            Expr::Name { name, .. } => match lookup(name) {
                Some(v) => Expr::Int(v),
                None => self.clone(),
            },
            Expr::Neg { operand, at } => {
                Expr::Neg { operand: Box::new(operand.substitute(lookup)?), at: *at }
            }
            Expr::Binary { op, lhs, rhs, at } => Expr::Binary {
                op: *op,
                lhs: Box::new(lhs.substitute(lookup)?),
                rhs: Box::new(rhs.substitute(lookup)?),
                at: *at,
            },
        };
        if folded.names().is_empty() {
            let value = folded.eval(&|_| None, &Vec::new)?;
            return Ok(Expr::Int(value));
        }
        Ok(folded)
    }

    /// Replaces every name `by` knows by an expression; other names stay. Regrouping a
    /// launch's repetitions uses it: when K repetitions become one, the loop index `i` of the
    /// k-th becomes `K * i + k`.
    pub fn replace_names(&self, by: &dyn Fn(&str) -> Option<Expr>) -> Expr {
        match self {
            Expr::Int(_) => self.clone(),
            Expr::Name { name, .. } => by(name).unwrap_or_else(|| self.clone()),
            Expr::Neg { operand, at } => {
                Expr::Neg { operand: Box::new(operand.replace_names(by)), at: *at }
            }
            Expr::Binary { op, lhs, rhs, at } => Expr::Binary {
                op: *op,
                lhs: Box::new(lhs.replace_names(by)),
                rhs: Box::new(rhs.replace_names(by)),
                at: *at,
            },
        }
    }

    /// `scale * name + offset`, the repetition index of a regrouped loop.
    pub fn affine(scale: i128, name: &str, offset: i128) -> Expr {
        let index = Expr::Name { name: name.to_string(), at: 0 };
        let scaled = Expr::Binary {
            op: BinaryOp::Mul,
            lhs: Box::new(Expr::Int(scale)),
            rhs: Box::new(index),
            at: 0,
        };
        Expr::Binary {
            op: BinaryOp::Add,
            lhs: Box::new(scaled),
            rhs: Box::new(Expr::Int(offset)),
            at: 0,
        }
    }

    /// The value of an expression without names.
    pub fn constant(&self) -> Option<i128> {
        match self {
            Expr::Int(v) => Some(*v),
            _ if self.names().is_empty() => self.eval(&|_| None, &Vec::new).ok(),
            _ => None,
        }
    }
}

fn in_range(v: i128, at: usize) -> Result<i128, ExprError> {
    if (MIN_VALUE..=MAX_VALUE).contains(&v) {
        Ok(v)
    } else {
        Err(error(at, format!("{v} is outside the 64-bit range")))
    }
}

impl fmt::Display for Expr {
    /// Writes text that parses back to an equal expression: binary operands are
    /// parenthesised where precedence or associativity needs it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expr::Int(v) if *v < 0 => write!(f, "({v})"),
            Expr::Int(v) => write!(f, "{v}"),
            Expr::Name { name, .. } => f.write_str(name),
            Expr::Neg { operand, .. } => match operand.as_ref() {
                Expr::Binary { .. } | Expr::Int(_) => write!(f, "-({operand})"),
                _ => write!(f, "-{operand}"),
            },
            Expr::Binary { op, lhs, rhs, .. } => {
                let needs = |child: &Expr, right: bool| match child {
                    Expr::Binary { op: inner, .. } => {
                        inner.precedence() < op.precedence()
                            || (right && inner.precedence() == op.precedence())
                    }
                    _ => false,
                };
                if needs(lhs, false) {
                    write!(f, "({lhs})")?;
                } else {
                    write!(f, "{lhs}")?;
                }
                write!(f, " {} ", op.symbol())?;
                if needs(rhs, true) {
                    write!(f, "({rhs})")
                } else {
                    write!(f, "{rhs}")
                }
            }
        }
    }
}

struct Parser<'a> {
    text: &'a str,
    pos: usize,
    depth: usize,
}

impl Parser<'_> {
    fn skip_space(&mut self) {
        let rest = self.text.get(self.pos..).unwrap_or("");
        self.pos += rest.len() - rest.trim_start().len();
    }

    fn peek(&mut self) -> Option<u8> {
        self.skip_space();
        self.text.as_bytes().get(self.pos).copied()
    }

    fn expr(&mut self) -> Result<Expr, ExprError> {
        let mut lhs = self.term()?;
        while let Some(c @ (b'+' | b'-')) = self.peek() {
            let at = self.pos;
            self.pos += 1;
            let op = if c == b'+' { BinaryOp::Add } else { BinaryOp::Sub };
            let rhs = self.term()?;
            lhs = Expr::Binary { op, lhs: Box::new(lhs), rhs: Box::new(rhs), at };
        }
        Ok(lhs)
    }

    fn term(&mut self) -> Result<Expr, ExprError> {
        let mut lhs = self.unary()?;
        while let Some(c @ (b'*' | b'/' | b'%')) = self.peek() {
            let at = self.pos;
            self.pos += 1;
            let op = match c {
                b'*' => BinaryOp::Mul,
                b'/' => BinaryOp::Div,
                _ => BinaryOp::Rem,
            };
            let rhs = self.unary()?;
            lhs = Expr::Binary { op, lhs: Box::new(lhs), rhs: Box::new(rhs), at };
        }
        Ok(lhs)
    }

    fn unary(&mut self) -> Result<Expr, ExprError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(error(self.pos, format!("expression nested more than {MAX_DEPTH} deep")));
        }
        let result = match self.peek() {
            Some(b'-') => {
                let at = self.pos;
                self.pos += 1;
                let operand = self.unary()?;
                // A negated literal stays a literal, so `-5` is the number −5.
                Ok(match operand {
                    Expr::Int(v) => Expr::Int(-v),
                    operand => Expr::Neg { operand: Box::new(operand), at },
                })
            }
            Some(b'+') => {
                self.pos += 1;
                self.unary()
            }
            _ => self.primary(),
        };
        self.depth -= 1;
        result
    }

    fn primary(&mut self) -> Result<Expr, ExprError> {
        let start = self.pos;
        let Some(c) = self.peek() else {
            return Err(error(self.pos, format!("`{}` ends where a value is expected", self.text)));
        };
        let rest = self.text.get(self.pos..).unwrap_or("");
        if c == b'(' {
            self.pos += 1;
            let inner = self.expr()?;
            if self.peek() != Some(b')') {
                return Err(error(start, format!("unclosed `(` in `{}`", self.text)));
            }
            self.pos += 1;
            return Ok(inner);
        }
        let word_len =
            rest.find(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '_')).unwrap_or(rest.len());
        let word = rest.get(..word_len).unwrap_or("");
        if word.is_empty() {
            let token: String = rest.chars().take(1).collect();
            return Err(error(
                self.pos,
                format!(
                    "unexpected `{token}` in `{}`; expected a number, a name or `(`",
                    self.text
                ),
            ));
        }
        let at = self.pos;
        self.pos += word_len;
        if c.is_ascii_digit() {
            let value = match word.strip_prefix("0x").or_else(|| word.strip_prefix("0X")) {
                Some(hex) => i128::from_str_radix(hex, 16).ok(),
                None => word.parse::<i128>().ok(),
            };
            let value = value
                .filter(|v| *v <= MAX_VALUE)
                .ok_or_else(|| error(at, format!("`{word}` is not a 64-bit integer")))?;
            return Ok(Expr::Int(value));
        }
        Ok(Expr::Name { name: word.to_string(), at })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval_with(text: &str, names: &[(&str, i128)]) -> Result<i128, ExprError> {
        let known = || names.iter().map(|(n, _)| n.to_string()).collect::<Vec<_>>();
        Expr::parse(text)?
            .eval(&|name| names.iter().find(|(n, _)| *n == name).map(|(_, v)| *v), &known)
    }

    fn eval(text: &str) -> Result<i128, ExprError> {
        eval_with(text, &[])
    }

    #[test]
    fn precedence_associativity_and_c_division() {
        assert_eq!(eval("1 + 2 * 3"), Ok(7));
        assert_eq!(eval("(1 + 2) * 3"), Ok(9));
        assert_eq!(eval("10 - 4 - 3"), Ok(3));
        assert_eq!(eval("100 / 10 / 5"), Ok(2));
        assert_eq!(eval("-7 / 2"), Ok(-3));
        assert_eq!(eval("-7 % 2"), Ok(-1));
        assert_eq!(eval("- -3 + +2"), Ok(5));
        assert_eq!(eval("0x10 * 0X2"), Ok(32));
        assert_eq!(eval("18446744073709551615"), Ok(u64::MAX as i128));
    }

    #[test]
    fn names_resolve_and_unknown_names_list_the_known_ones() {
        assert_eq!(eval_with("ni * nj", &[("ni", 512), ("nj", 256)]), Ok(131072));
        let err = eval_with("ni * nk", &[("ni", 1), ("nj", 2)]).expect_err("unknown");
        assert_eq!(err.at, 5);
        assert!(err.message.contains("`nk`") && err.message.contains("ni, nj"), "{err}");
        assert!(eval("x").expect_err("none").message.contains("no sizes"));
    }

    #[test]
    fn regrouped_loop_indices_evaluate_to_the_original_repetitions() {
        // Repetition 3 * i + 2 of `row = i + 1`: for i = 4 that is repetition 14, row 15.
        let row = Expr::parse("i + 1").unwrap();
        let regrouped = row.replace_names(&|n| (n == "i").then(|| Expr::affine(3, "i", 2)));
        assert_eq!(regrouped.to_string().replace(' ', ""), "3*i+2+1");
        assert_eq!(regrouped.eval(&|n| (n == "i").then_some(4), &Vec::new), Ok(15));
        let untouched = Expr::parse("n - i").unwrap().replace_names(&|_| None);
        assert_eq!(untouched, Expr::parse("n - i").unwrap());
    }

    #[test]
    fn overflow_and_division_by_zero_are_located_errors() {
        let err = eval("4294967296 * 4294967296").expect_err("2^64");
        assert_eq!(err.at, 11);
        assert!(err.message.contains("overflows"), "{err}");
        let err = eval("1 + 5 / (2 - 2)").expect_err("zero");
        assert_eq!(err.at, 6);
        assert!(err.message.contains("division by zero"));
        assert!(eval("0 - 9223372036854775808 - 1").is_err());
        assert_eq!(eval("0 - 9223372036854775808"), Ok(i64::MIN as i128));
        assert!(eval("18446744073709551616").is_err());
        assert!(eval("999999999999999999999999999999999999999999").is_err());
    }

    #[test]
    fn syntax_errors_point_at_the_culprit() {
        for (text, at) in [("1 +", 3), ("(1 + 2", 0), ("1 2", 2), ("a $ b", 2), ("", 0), ("*", 0)] {
            assert_eq!(Expr::parse(text).map_err(|e| e.at), Err(at), "{text}");
        }
        let deep = format!("{}1{}", "(".repeat(200), ")".repeat(200));
        assert!(Expr::parse(&deep).expect_err("deep").message.contains("nested"));
        assert!(Expr::parse(&"-".repeat(10_000)).is_err());
    }

    #[test]
    fn display_parses_back_to_the_same_tree() {
        for text in [
            "a - (b - c)",
            "(a - b) - c",
            "a * (b + c) % d",
            "-(a + 1) * -b",
            "start + i * pyramid",
            "x / (y * z)",
            "-(3)",
        ] {
            let parsed = Expr::parse(text).expect("parse");
            let again = Expr::parse(&parsed.to_string()).expect("reparse");
            assert_eq!(parsed, again, "{text} -> {parsed}");
        }
        assert_eq!(Expr::parse("a-(b-c)").map(|e| e.to_string()), Ok("a - (b - c)".into()));
    }

    #[test]
    fn substitution_folds_constants_and_keeps_loop_indices() {
        let sizes = |name: &str| match name {
            "start" => Some(3),
            "pyramid" => Some(2),
            _ => None,
        };
        let e = Expr::parse("start + i * pyramid").expect("parse").substitute(&sizes).expect("ok");
        assert_eq!(e.names(), vec!["i"]);
        assert_eq!(e.eval(&|n| (n == "i").then_some(4), &Vec::new), Ok(11));
        let c = Expr::parse("start * pyramid + 1").expect("parse").substitute(&sizes).expect("ok");
        assert_eq!(c, Expr::Int(7));
        assert_eq!(c.constant(), Some(7));
    }
}
