//! Evaluation of `#if` / `#elif` controlling expressions.
//!
//! C99 §6.10.1: after `defined` is resolved and macros are expanded, remaining identifiers are
//! 0, and the expression is evaluated with every integer as `intmax_t` or `uintmax_t` (64 bits
//! here), under the usual arithmetic conversions. Operands that are not evaluated (the right of
//! `&&` when the left is 0, the untaken arm of `?:`) may divide by zero without complaint.

use crate::diag::{Diagnostic, Diagnostics};
use crate::span::Span;
use crate::token::{Punct, Token, TokenKind};

/// Nesting limit for parentheses and unary operators, so hostile input cannot overflow the stack.
const MAX_DEPTH: u32 = 256;

/// A preprocessor integer: 64 bits, signed or unsigned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PpValue {
    pub bits: u64,
    pub unsigned: bool,
}

impl PpValue {
    fn signed(v: i64) -> Self {
        PpValue { bits: v as u64, unsigned: false }
    }

    fn boolean(b: bool) -> Self {
        PpValue::signed(b as i64)
    }

    fn is_true(self) -> bool {
        self.bits != 0
    }

    fn as_i64(self) -> i64 {
        self.bits as i64
    }
}

/// Evaluates a controlling expression. `is_defined` answers `defined X` that survived (or were
/// produced by) macro expansion. Errors are reported and make the condition false.
pub fn evaluate(
    tokens: &[Token],
    directive: Span,
    is_defined: &dyn Fn(&str) -> bool,
    diags: &mut Diagnostics,
) -> bool {
    let mut eval =
        Evaluator { tokens, pos: 0, depth: 0, directive, is_defined, diags, failed: false };
    if tokens.is_empty() {
        eval.error(directive, "expected an expression after the directive");
        return false;
    }
    let value = eval.comma(true);
    if !eval.failed && eval.pos < tokens.len() {
        let span = eval.here();
        eval.error(span, "missing binary operator in preprocessor expression");
    }
    !eval.failed && value.is_true()
}

struct Evaluator<'t, 'd> {
    tokens: &'t [Token],
    pos: usize,
    depth: u32,
    directive: Span,
    is_defined: &'t dyn Fn(&str) -> bool,
    diags: &'d mut Diagnostics,
    failed: bool,
}

impl Evaluator<'_, '_> {
    fn here(&self) -> Span {
        self.tokens.get(self.pos).map(|t| t.site).unwrap_or(self.directive)
    }

    fn error(&mut self, span: Span, message: impl Into<String>) {
        // One error per expression is enough; later ones are usually consequences.
        if !self.failed {
            self.diags.push(Diagnostic::error(span, message));
        }
        self.failed = true;
    }

    fn warn(&mut self, live: bool, span: Span, message: &str) {
        if live && !self.failed {
            self.diags.push(Diagnostic::warning(span, message));
        }
    }

    fn peek_punct(&self) -> Option<Punct> {
        match self.tokens.get(self.pos).map(|t| &t.kind) {
            Some(TokenKind::Punct(p)) => Some(*p),
            _ => None,
        }
    }

    fn eat(&mut self, p: Punct) -> bool {
        if self.peek_punct() == Some(p) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn comma(&mut self, live: bool) -> PpValue {
        let mut value = self.conditional(live);
        while !self.failed && self.eat(Punct::Comma) {
            value = self.conditional(live);
        }
        value
    }

    fn conditional(&mut self, live: bool) -> PpValue {
        // `?:` nests through itself, not through `unary`, so it counts depth too.
        if self.depth >= MAX_DEPTH {
            let span = self.here();
            self.error(span, "preprocessor expression is nested too deeply");
            return PpValue::signed(0);
        }
        self.depth += 1;
        let value = self.conditional_inner(live);
        self.depth -= 1;
        value
    }

    fn conditional_inner(&mut self, live: bool) -> PpValue {
        let condition = self.binary(0, live);
        if self.failed || !self.eat(Punct::Question) {
            return condition;
        }
        let take_first = condition.is_true();
        let first = self.comma(live && take_first);
        if !self.eat(Punct::Colon) {
            let span = self.here();
            self.error(span, "expected ':' in conditional expression");
            return first;
        }
        let second = self.conditional(live && !take_first);
        let unsigned = first.unsigned || second.unsigned;
        let chosen = if take_first { first } else { second };
        PpValue { bits: chosen.bits, unsigned }
    }

    /// Precedence climbing over the binary operators, loosest (`||`) first.
    fn binary(&mut self, min_level: u8, live: bool) -> PpValue {
        let mut lhs = self.unary(live);
        loop {
            if self.failed {
                return lhs;
            }
            let Some(op) = self.peek_punct() else { return lhs };
            let Some(level) = binary_level(op) else { return lhs };
            if level < min_level {
                return lhs;
            }
            let span = self.here();
            self.pos += 1;
            lhs = match op {
                Punct::OrOr => {
                    let rhs = self.binary(level + 1, live && !lhs.is_true());
                    PpValue::boolean(lhs.is_true() || rhs.is_true())
                }
                Punct::AndAnd => {
                    let rhs = self.binary(level + 1, live && lhs.is_true());
                    PpValue::boolean(lhs.is_true() && rhs.is_true())
                }
                _ => {
                    let rhs = self.binary(level + 1, live);
                    self.apply(op, lhs, rhs, live, span)
                }
            };
        }
    }

    fn apply(&mut self, op: Punct, lhs: PpValue, rhs: PpValue, live: bool, span: Span) -> PpValue {
        let unsigned = lhs.unsigned || rhs.unsigned;
        let (a, b) = (lhs.bits, rhs.bits);
        let (sa, sb) = (a as i64, b as i64);
        let arith = |bits: u64| PpValue { bits, unsigned };
        match op {
            Punct::Plus | Punct::Minus | Punct::Star => {
                let (wrapped, overflow) = match op {
                    Punct::Plus => (a.wrapping_add(b), sa.checked_add(sb).is_none()),
                    Punct::Minus => (a.wrapping_sub(b), sa.checked_sub(sb).is_none()),
                    _ => (a.wrapping_mul(b), sa.checked_mul(sb).is_none()),
                };
                if overflow && !unsigned {
                    self.warn(live, span, "integer overflow in preprocessor expression");
                }
                arith(wrapped)
            }
            Punct::Slash | Punct::Percent => {
                if b == 0 {
                    if live {
                        self.error(span, "division by zero in preprocessor expression");
                    }
                    return arith(0);
                }
                let bits = match (op, unsigned) {
                    (Punct::Slash, true) => a / b,
                    (_, true) => a % b,
                    (Punct::Slash, false) => {
                        if sa == i64::MIN && sb == -1 {
                            self.warn(live, span, "integer overflow in preprocessor expression");
                        }
                        sa.wrapping_div(sb) as u64
                    }
                    _ => sa.wrapping_rem(sb) as u64,
                };
                arith(bits)
            }
            Punct::Shl | Punct::Shr => {
                // The result has the left operand's type; a negative count shifts the other way.
                let count = if rhs.unsigned { b.min(64) as i64 } else { sb.clamp(-64, 64) };
                let left = (op == Punct::Shl) == (count >= 0);
                let n = count.unsigned_abs();
                if n >= 64 {
                    self.warn(live, span, "shift count is too large");
                }
                let bits = if left {
                    if n >= 64 {
                        0
                    } else {
                        a << n
                    }
                } else if lhs.unsigned {
                    if n >= 64 {
                        0
                    } else {
                        a >> n
                    }
                } else {
                    (sa >> n.min(63)) as u64
                };
                PpValue { bits, unsigned: lhs.unsigned }
            }
            Punct::Lt | Punct::Gt | Punct::Le | Punct::Ge => {
                let ordering = if unsigned { a.cmp(&b) } else { sa.cmp(&sb) };
                let result = match op {
                    Punct::Lt => ordering.is_lt(),
                    Punct::Gt => ordering.is_gt(),
                    Punct::Le => ordering.is_le(),
                    _ => ordering.is_ge(),
                };
                PpValue::boolean(result)
            }
            Punct::EqEq => PpValue::boolean(a == b),
            Punct::Ne => PpValue::boolean(a != b),
            Punct::Amp => arith(a & b),
            Punct::Caret => arith(a ^ b),
            Punct::Pipe => arith(a | b),
            _ => arith(0),
        }
    }

    fn unary(&mut self, live: bool) -> PpValue {
        if self.depth >= MAX_DEPTH {
            let span = self.here();
            self.error(span, "preprocessor expression is nested too deeply");
            return PpValue::signed(0);
        }
        self.depth += 1;
        let value = self.unary_inner(live);
        self.depth -= 1;
        value
    }

    fn unary_inner(&mut self, live: bool) -> PpValue {
        let Some(token) = self.tokens.get(self.pos) else {
            self.error(
                self.directive,
                "expected a value at the end of the preprocessor expression",
            );
            return PpValue::signed(0);
        };
        let span = token.site;
        self.pos += 1;
        match &token.kind {
            TokenKind::Int { value, suffix, radix } => {
                let too_big = *value > i64::MAX as u64;
                if too_big && !suffix.unsigned && *radix == crate::token::Radix::Decimal {
                    self.warn(live, span, "integer constant is so large that it is unsigned");
                }
                PpValue { bits: *value, unsigned: suffix.unsigned || too_big }
            }
            TokenKind::Char(v) => PpValue::signed(*v),
            TokenKind::Ident(name) if name == "defined" => self.defined_operator(span),
            TokenKind::Ident(_) => PpValue::signed(0),
            TokenKind::Punct(Punct::LParen) => {
                let value = self.comma(live);
                if !self.eat(Punct::RParen) && !self.failed {
                    let here = self.here();
                    self.error(here, "expected ')' in preprocessor expression");
                }
                value
            }
            TokenKind::Punct(Punct::Plus) => self.unary(live),
            TokenKind::Punct(Punct::Minus) => {
                let v = self.unary(live);
                if !v.unsigned && v.as_i64() == i64::MIN {
                    self.warn(live, span, "integer overflow in preprocessor expression");
                }
                PpValue { bits: v.bits.wrapping_neg(), unsigned: v.unsigned }
            }
            TokenKind::Punct(Punct::Tilde) => {
                let v = self.unary(live);
                PpValue { bits: !v.bits, unsigned: v.unsigned }
            }
            TokenKind::Punct(Punct::Bang) => PpValue::boolean(!self.unary(live).is_true()),
            TokenKind::Float { .. } => {
                self.error(span, "floating constant in preprocessor expression");
                PpValue::signed(0)
            }
            TokenKind::Str(_) => {
                self.error(span, "string literal in preprocessor expression");
                PpValue::signed(0)
            }
            TokenKind::Punct(p) => {
                self.error(span, format!("token '{p}' is not valid in preprocessor expressions"));
                PpValue::signed(0)
            }
            TokenKind::Pragma(_) | TokenKind::Eof => {
                self.error(span, "expected a value in preprocessor expression");
                PpValue::signed(0)
            }
        }
    }

    /// `defined X` or `defined ( X )` appearing after macro expansion.
    fn defined_operator(&mut self, span: Span) -> PpValue {
        let parenthesised = self.eat(Punct::LParen);
        let name = match self.tokens.get(self.pos).and_then(|t| t.ident()) {
            Some(name) => name.to_string(),
            None => {
                self.error(span, "macro name missing after 'defined'");
                return PpValue::signed(0);
            }
        };
        self.pos += 1;
        if parenthesised && !self.eat(Punct::RParen) {
            self.error(span, "missing ')' after 'defined'");
        }
        PpValue::boolean((self.is_defined)(&name))
    }
}

/// Binding strength of a binary operator (higher binds tighter); `None` for other tokens.
fn binary_level(op: Punct) -> Option<u8> {
    Some(match op {
        Punct::OrOr => 0,
        Punct::AndAnd => 1,
        Punct::Pipe => 2,
        Punct::Caret => 3,
        Punct::Amp => 4,
        Punct::EqEq | Punct::Ne => 5,
        Punct::Lt | Punct::Gt | Punct::Le | Punct::Ge => 6,
        Punct::Shl | Punct::Shr => 7,
        Punct::Plus | Punct::Minus => 8,
        Punct::Star | Punct::Slash | Punct::Percent => 9,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lex::lex_str;

    fn eval(text: &str) -> (bool, Diagnostics) {
        let mut tokens = lex_str(text);
        tokens.pop();
        let mut diags = Diagnostics::default();
        let result = evaluate(&tokens, Span::UNDEFINED, &|name| name == "YES", &mut diags);
        (result, diags)
    }

    fn truth(text: &str) -> bool {
        let (result, diags) = eval(text);
        assert!(!diags.has_errors(), "{text}: {diags:?}");
        result
    }

    #[test]
    fn arithmetic_follows_c_rules() {
        assert!(truth("1 + 2 * 3 == 7"));
        assert!(truth("(1 + 2) * 3 == 9"));
        assert!(truth("-7 / 2 == -3 && -7 % 2 == -1"), "division truncates toward zero");
        assert!(truth("-1 < 0"));
        assert!(!truth("-1 < 0u"), "-1 converts to UINTMAX_MAX");
        assert!(truth("-1 > 0u"));
        assert!(truth("0xffffffffffffffff == -1"));
        assert!(truth("18446744073709551615 > 0"), "too big for intmax_t, so unsigned");
        assert!(truth("1 << 63 < 0"));
        assert!(!truth("1u << 63 < 0"));
        assert!(truth("-16 >> 2 == -4"));
        assert!(truth("(0u - 16) >> 60 == 15"));
        assert!(truth("~0 == -1 && !0 == 1 && !5 == 0"));
        assert!(truth("(3 ^ 5) == 6 && (3 | 4) == 7 && (6 & 3) == 2"));
        assert!(truth("1 ? 2 : 3"));
        assert!(truth("(0 ? 1 : -1) < 0"));
        assert!(!truth("(0 ? 1u : -1) < 0"), "the conditional takes the common type");
        assert!(truth("(1, 0, 5) == 5"));
        assert!(truth("'a' == 97 && '\\377' < 0"));
        assert!(truth("UNKNOWN == 0 && !UNKNOWN"));
        assert!(truth("defined YES && defined(YES) && !defined NO"));
        assert!(truth("2 >= 2 && 2 <= 2 && 3 > 2 && 2 != 3"));
    }

    #[test]
    fn short_circuit_hides_division_by_zero() {
        assert!(!truth("0 && 1 / 0"));
        assert!(truth("1 || 1 / 0"));
        assert!(truth("1 ? 1 : 1 % 0"));
    }

    #[test]
    fn errors_are_reported_and_make_the_condition_false() {
        for text in [
            "1 / 0",
            "5 % 0",
            "",
            "(1",
            "1 +",
            "1 2",
            "1.0",
            "\"s\"",
            "x = 1",
            "1 ? 2",
            "defined",
            "defined(X",
        ] {
            let (result, diags) = eval(text);
            assert!(!result && diags.has_errors(), "{text} should be an error");
        }
        let deep = format!("{}1{}", "(".repeat(5000), ")".repeat(5000));
        let (_, diags) = eval(&deep);
        assert!(diags.has_errors());
        let chain = format!("{}1{}", "1 ? ".repeat(5000), " : 0".repeat(5000));
        let (_, diags) = eval(&chain);
        assert!(diags.has_errors());
        assert!(truth("1 ? 0 ? 5 : 6 : 7"), "a short chain is fine");
    }
}
