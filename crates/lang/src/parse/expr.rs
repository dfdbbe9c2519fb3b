//! Expressions: C's precedence levels, casts, OpenCL vector literals, postfix operators.

use super::keywords;
use super::{PResult, Parser};
use crate::ast::{BinaryOp, Expr, ExprKind, TypeName, UnaryOp};
use crate::span::Span;
use crate::token::{Punct, TokenKind};

/// Binary operators with their precedence, loosest first (`||` is 1, `*` is 10).
fn binary_operator(kind: &TokenKind) -> Option<(BinaryOp, u8)> {
    let TokenKind::Punct(p) = kind else { return None };
    let entry = match p {
        Punct::OrOr => (BinaryOp::LogicalOr, 1),
        Punct::AndAnd => (BinaryOp::LogicalAnd, 2),
        Punct::Pipe => (BinaryOp::BitOr, 3),
        Punct::Caret => (BinaryOp::BitXor, 4),
        Punct::Amp => (BinaryOp::BitAnd, 5),
        Punct::EqEq => (BinaryOp::Eq, 6),
        Punct::Ne => (BinaryOp::Ne, 6),
        Punct::Lt => (BinaryOp::Lt, 7),
        Punct::Gt => (BinaryOp::Gt, 7),
        Punct::Le => (BinaryOp::Le, 7),
        Punct::Ge => (BinaryOp::Ge, 7),
        Punct::Shl => (BinaryOp::Shl, 8),
        Punct::Shr => (BinaryOp::Shr, 8),
        Punct::Plus => (BinaryOp::Add, 9),
        Punct::Minus => (BinaryOp::Sub, 9),
        Punct::Star => (BinaryOp::Mul, 10),
        Punct::Slash => (BinaryOp::Div, 10),
        Punct::Percent => (BinaryOp::Rem, 10),
        _ => return None,
    };
    Some(entry)
}

/// `=` gives `Some(None)`, `+=` gives `Some(Some(Add))`.
fn assignment_operator(kind: &TokenKind) -> Option<Option<BinaryOp>> {
    let TokenKind::Punct(p) = kind else { return None };
    let op = match p {
        Punct::Assign => None,
        Punct::MulAssign => Some(BinaryOp::Mul),
        Punct::DivAssign => Some(BinaryOp::Div),
        Punct::RemAssign => Some(BinaryOp::Rem),
        Punct::AddAssign => Some(BinaryOp::Add),
        Punct::SubAssign => Some(BinaryOp::Sub),
        Punct::ShlAssign => Some(BinaryOp::Shl),
        Punct::ShrAssign => Some(BinaryOp::Shr),
        Punct::AndAssign => Some(BinaryOp::BitAnd),
        Punct::XorAssign => Some(BinaryOp::BitXor),
        Punct::OrAssign => Some(BinaryOp::BitOr),
        _ => return None,
    };
    Some(op)
}

fn prefix_operator(kind: &TokenKind) -> Option<UnaryOp> {
    let TokenKind::Punct(p) = kind else { return None };
    let op = match p {
        Punct::Inc => UnaryOp::PreInc,
        Punct::Dec => UnaryOp::PreDec,
        Punct::Plus => UnaryOp::Plus,
        Punct::Minus => UnaryOp::Neg,
        Punct::Bang => UnaryOp::LogicalNot,
        Punct::Tilde => UnaryOp::BitNot,
        Punct::Star => UnaryOp::Deref,
        Punct::Amp => UnaryOp::AddrOf,
        _ => return None,
    };
    Some(op)
}

impl Parser<'_> {
    /// A full expression, comma operator included.
    pub(super) fn expression(&mut self) -> PResult<Expr> {
        self.chained(|p| {
            let mut lhs = p.assignment()?;
            while p.eat_punct(Punct::Comma).is_some() {
                p.grow_chain()?;
                let rhs = p.assignment()?;
                let span = lhs.span.to(rhs.span);
                lhs =
                    Expr { kind: ExprKind::Comma { lhs: Box::new(lhs), rhs: Box::new(rhs) }, span };
            }
            Ok(lhs)
        })
    }

    /// An assignment expression (right-associative): what a function argument or an
    /// initializer may be.
    pub(super) fn assignment(&mut self) -> PResult<Expr> {
        self.nested(|p| {
            let lhs = p.conditional()?;
            let Some(op) = assignment_operator(&p.peek().kind) else { return Ok(lhs) };
            p.bump();
            let rhs = p.assignment()?;
            let span = lhs.span.to(rhs.span);
            Ok(Expr { kind: ExprKind::Assign { op, lhs: Box::new(lhs), rhs: Box::new(rhs) }, span })
        })
    }

    /// `cond ? then : otherwise`; also what `case` labels and array designators take.
    pub(super) fn conditional(&mut self) -> PResult<Expr> {
        let cond = self.binary(1)?;
        if self.eat_punct(Punct::Question).is_none() {
            return Ok(cond);
        }
        let then = self.nested(|p| p.expression())?;
        self.expect_punct(Punct::Colon, "in conditional expression")?;
        let otherwise = self.nested(|p| p.conditional())?;
        let span = cond.span.to(otherwise.span);
        let kind = ExprKind::Conditional {
            cond: Box::new(cond),
            then: Box::new(then),
            otherwise: Box::new(otherwise),
        };
        Ok(Expr { kind, span })
    }

    /// Precedence climbing over the binary operators binding at least as tight as
    /// `min_precedence`; equal precedence associates to the left.
    fn binary(&mut self, min_precedence: u8) -> PResult<Expr> {
        self.chained(|p| {
            let mut lhs = p.cast()?;
            while let Some((op, precedence)) = binary_operator(&p.peek().kind) {
                if precedence < min_precedence {
                    break;
                }
                p.bump();
                p.grow_chain()?;
                let rhs = p.binary(precedence + 1)?;
                let span = lhs.span.to(rhs.span);
                lhs = Expr {
                    kind: ExprKind::Binary { op, lhs: Box::new(lhs), rhs: Box::new(rhs) },
                    span,
                };
            }
            Ok(lhs)
        })
    }

    /// `(T) operand`, `(V)(a, b, …)` for a vector type `V`, or a unary expression.
    fn cast(&mut self) -> PResult<Expr> {
        self.nested(|p| {
            if !(p.at_punct(Punct::LParen) && p.starts_type_name(p.peek_nth(1))) {
                return p.unary();
            }
            let open = p.bump();
            let ty = p.type_name()?;
            p.expect_closing(Punct::RParen, open)?;
            if p.at_punct(Punct::LBrace) {
                let init = p.initializer()?;
                let span = p.span_from(open);
                let literal = Expr {
                    kind: ExprKind::CompoundLiteral { ty: Box::new(ty), init: Box::new(init) },
                    span,
                };
                return p.postfix_operators(literal);
            }
            if p.is_vector_type_name(&ty) && p.at_punct(Punct::LParen) {
                let literal = p.vector_literal(open, ty)?;
                return p.postfix_operators(literal);
            }
            let operand = p.cast()?;
            let span = open.to(operand.span);
            Ok(Expr { kind: ExprKind::Cast { ty: Box::new(ty), operand: Box::new(operand) }, span })
        })
    }

    /// The `(e1, e2, …)` of a vector literal whose `(V)` began at `start`.
    fn vector_literal(&mut self, start: Span, ty: TypeName) -> PResult<Expr> {
        let open = self.bump();
        let mut elems = Vec::new();
        loop {
            elems.push(self.assignment()?);
            if self.eat_punct(Punct::Comma).is_none() {
                break;
            }
        }
        let close = self.expect_closing(Punct::RParen, open)?;
        Ok(Expr {
            kind: ExprKind::VectorLiteral { ty: Box::new(ty), elems },
            span: start.to(close),
        })
    }

    fn unary(&mut self) -> PResult<Expr> {
        let start = self.peek().site;
        if let Some(op) = prefix_operator(&self.peek().kind) {
            self.bump();
            let operand = match op {
                // `++(int)x` is not C: increments take a unary expression, not a cast.
                UnaryOp::PreInc | UnaryOp::PreDec => self.nested(|p| p.unary())?,
                _ => self.cast()?,
            };
            let span = start.to(operand.span);
            return Ok(Expr { kind: ExprKind::Unary { op, operand: Box::new(operand) }, span });
        }
        if self.eat_word("sizeof").is_some() {
            if self.at_punct(Punct::LParen) && self.starts_type_name(self.peek_nth(1)) {
                let open = self.bump();
                let ty = self.type_name()?;
                let close = self.expect_closing(Punct::RParen, open)?;
                return Ok(Expr {
                    kind: ExprKind::SizeofType(Box::new(ty)),
                    span: start.to(close),
                });
            }
            let operand = self.nested(|p| p.unary())?;
            let span = start.to(operand.span);
            return Ok(Expr { kind: ExprKind::SizeofExpr(Box::new(operand)), span });
        }
        if self.eat_word("vec_step").is_some() {
            let open = self.expect_punct(Punct::LParen, "after 'vec_step'")?;
            let kind = if self.starts_type_name(self.peek()) {
                ExprKind::VecStepType(Box::new(self.type_name()?))
            } else {
                ExprKind::VecStepExpr(Box::new(self.expression()?))
            };
            let close = self.expect_closing(Punct::RParen, open)?;
            return Ok(Expr { kind, span: start.to(close) });
        }
        let primary = self.primary()?;
        self.postfix_operators(primary)
    }

    /// `[i]`, `(args)`, `.field`, `->field`, `++`, `--` after `expr`, as many as follow.
    fn postfix_operators(&mut self, expr: Expr) -> PResult<Expr> {
        self.chained(|p| {
            let mut expr = expr;
            loop {
                let kind = match p.peek().kind {
                    TokenKind::Punct(Punct::LBracket) => {
                        let open = p.bump();
                        let index = p.expression()?;
                        p.expect_closing(Punct::RBracket, open)?;
                        ExprKind::Index { base: Box::new(expr), index: Box::new(index) }
                    }
                    TokenKind::Punct(Punct::LParen) => {
                        let open = p.bump();
                        let args = p.call_arguments()?;
                        p.expect_closing(Punct::RParen, open)?;
                        ExprKind::Call { callee: Box::new(expr), args }
                    }
                    TokenKind::Punct(Punct::Dot | Punct::Arrow) => {
                        let arrow = p.at_punct(Punct::Arrow);
                        p.bump();
                        let field = p.expect_ident("a member name")?;
                        ExprKind::Member { base: Box::new(expr), field, arrow }
                    }
                    TokenKind::Punct(Punct::Inc) => {
                        p.bump();
                        ExprKind::Unary { op: UnaryOp::PostInc, operand: Box::new(expr) }
                    }
                    TokenKind::Punct(Punct::Dec) => {
                        p.bump();
                        ExprKind::Unary { op: UnaryOp::PostDec, operand: Box::new(expr) }
                    }
                    _ => return Ok(expr),
                };
                p.grow_chain()?;
                let span = match &kind {
                    ExprKind::Index { base, .. }
                    | ExprKind::Call { callee: base, .. }
                    | ExprKind::Member { base, .. }
                    | ExprKind::Unary { operand: base, .. } => base.span.to(p.prev_site),
                    _ => p.prev_site,
                };
                expr = Expr { kind, span };
            }
        })
    }

    fn call_arguments(&mut self) -> PResult<Vec<Expr>> {
        let mut args = Vec::new();
        if self.at_punct(Punct::RParen) {
            return Ok(args);
        }
        loop {
            args.push(self.assignment()?);
            if self.eat_punct(Punct::Comma).is_none() {
                return Ok(args);
            }
        }
    }

    fn primary(&mut self) -> PResult<Expr> {
        let site = self.peek().site;
        let kind = match self.peek().kind.clone() {
            TokenKind::Ident(word) => {
                if self.typedef_name(&word).is_some() {
                    return Err(self.error_here(format!(
                        "unexpected type name '{word}': expected expression"
                    )));
                }
                if keywords::is_reserved(&word) {
                    return Err(
                        self.error_here(format!("expected expression, found keyword '{word}'"))
                    );
                }
                ExprKind::Ident(word)
            }
            TokenKind::Int { value, suffix, radix } => ExprKind::Int { value, suffix, radix },
            TokenKind::Float { value, suffix } => ExprKind::Float { value, suffix },
            TokenKind::Char(value) => ExprKind::Char(value),
            TokenKind::Str(_) => return Ok(self.string_literal()),
            TokenKind::Punct(Punct::LParen) => {
                let open = self.bump();
                let inner = self.expression()?;
                let close = self.expect_closing(Punct::RParen, open)?;
                return Ok(Expr { kind: ExprKind::Paren(Box::new(inner)), span: open.to(close) });
            }
            _ => return Err(self.error_here("expected expression")),
        };
        self.bump();
        Ok(Expr { kind, span: site })
    }

    /// Adjacent string literals, concatenated as C's translation phase 6 does.
    fn string_literal(&mut self) -> Expr {
        let start = self.peek().site;
        let mut text = String::new();
        while let TokenKind::Str(part) = &self.peek().kind {
            text.push_str(part);
            self.bump();
        }
        Expr { kind: ExprKind::Str(text), span: self.span_from(start) }
    }
}
