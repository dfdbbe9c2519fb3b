//! Statements and blocks.

use super::keywords;
use super::{PResult, Parser, Reported};
use crate::ast::{Block, Expr, ForInit, Pragma, Stmt, StmtKind};
use crate::diag::Diagnostic;
use crate::span::Span;
use crate::token::{Punct, TokenKind};

impl Parser<'_> {
    /// `{ block-items }` with its own scope. A block cut short by the end of the input is
    /// reported and returned as far as it got.
    pub(super) fn block(&mut self) -> PResult<Block> {
        let open = self.expect_punct(Punct::LBrace, "")?;
        self.push_scope();
        let stmts = self.block_items();
        self.pop_scope();
        // At the end of input the error is reported; what was read is still worth keeping.
        let _ = self.expect_closing(Punct::RBrace, open);
        Ok(Block { stmts, span: self.span_from(open) })
    }

    fn block_items(&mut self) -> Vec<Stmt> {
        let mut stmts = Vec::new();
        while !self.at_punct(Punct::RBrace) && !self.at_eof() {
            let before = self.pos;
            match self.block_item() {
                Ok(stmt) => stmts.push(stmt),
                Err(Reported) => self.recover_statement(),
            }
            if self.pos == before && !self.at_punct(Punct::RBrace) {
                self.bump();
            }
        }
        stmts
    }

    /// A statement or, since C99, a declaration.
    fn block_item(&mut self) -> PResult<Stmt> {
        if self.attributes_precede_statement() {
            return self.statement();
        }
        if self.starts_declaration() && !self.at_label() {
            let decl = self.declaration()?;
            return Ok(Stmt { span: decl.span, kind: StmtKind::Decl(decl) });
        }
        self.statement()
    }

    /// Whether `__attribute__((…))` groups start here and a statement keyword or `{` follows
    /// them (`__attribute__((opencl_unroll_hint(4))) for (…)`), rather than a declaration.
    fn attributes_precede_statement(&self) -> bool {
        const STATEMENT_WORDS: &[&str] = &["for", "while", "do", "if", "switch", "return"];
        let mut n = 0;
        while self.peek_nth(n).ident().and_then(keywords::specifier_word)
            == Some(keywords::SpecifierWord::Attribute)
        {
            n += 1;
            // Skip the balanced parentheses of this group.
            let mut depth = 0usize;
            loop {
                let token = self.peek_nth(n);
                match token.kind {
                    TokenKind::Punct(Punct::LParen) => depth += 1,
                    TokenKind::Punct(Punct::RParen) => depth = depth.saturating_sub(1),
                    TokenKind::Eof => return false,
                    _ => {}
                }
                n += 1;
                if depth == 0 {
                    break;
                }
            }
        }
        if n == 0 {
            return false;
        }
        let next = self.peek_nth(n);
        next.is_punct(Punct::LBrace) || next.ident().is_some_and(|w| STATEMENT_WORDS.contains(&w))
    }

    /// `name :` (a plain word followed by a colon) starts a labeled statement.
    fn at_label(&self) -> bool {
        self.peek_word().is_some_and(|w| !keywords::is_reserved(w))
            && self.peek_nth(1).is_punct(Punct::Colon)
    }

    pub(super) fn statement(&mut self) -> PResult<Stmt> {
        self.nested(|p| p.statement_inner())
    }

    fn statement_inner(&mut self) -> PResult<Stmt> {
        let start = self.peek().site;
        if let TokenKind::Pragma(text) = &self.peek().kind {
            let text = text.trim().to_string();
            let span = self.bump();
            return Ok(Stmt { kind: StmtKind::Pragma(Pragma { text, span }), span });
        }
        if self.at_punct(Punct::LBrace) {
            let block = self.block()?;
            return Ok(Stmt { span: block.span, kind: StmtKind::Compound(block) });
        }
        if let Some(site) = self.eat_punct(Punct::Semi) {
            return Ok(Stmt { kind: StmtKind::Expr(None), span: site });
        }
        if self.attributes_precede_statement() {
            return self.attributed_statement();
        }
        const STATEMENT_KEYWORDS: &[&str] = &[
            "if", "while", "do", "for", "switch", "case", "default", "break", "continue", "return",
            "else", "goto",
        ];
        let keyword = self.peek_word().and_then(|w| STATEMENT_KEYWORDS.iter().find(|k| **k == w));
        let kind = match keyword.copied() {
            Some("if") => self.if_statement()?,
            Some("while") => {
                self.bump();
                let cond = self.parenthesized_condition("while")?;
                let body = Box::new(self.sub_statement()?);
                StmtKind::While { cond, body }
            }
            Some("do") => self.do_while_statement()?,
            Some("for") => self.for_statement()?,
            Some("switch") => {
                self.bump();
                let cond = self.parenthesized_condition("switch")?;
                self.switch_depth += 1;
                let body = self.sub_statement();
                self.switch_depth -= 1;
                StmtKind::Switch { cond, body: Box::new(body?) }
            }
            Some("case") => {
                let keyword = self.bump();
                if self.switch_depth == 0 {
                    self.error_at(keyword, "case label outside switch");
                }
                let value = self.conditional()?;
                self.expect_punct(Punct::Colon, "after 'case' value")?;
                let body = Box::new(self.sub_statement()?);
                StmtKind::Case { value, body }
            }
            Some("default") => {
                let keyword = self.bump();
                if self.switch_depth == 0 {
                    self.error_at(keyword, "'default' label outside switch");
                }
                self.expect_punct(Punct::Colon, "after 'default'")?;
                let body = Box::new(self.sub_statement()?);
                StmtKind::Default { body }
            }
            Some("break") => {
                self.bump();
                self.expect_semi("after 'break'")?;
                StmtKind::Break
            }
            Some("continue") => {
                self.bump();
                self.expect_semi("after 'continue'")?;
                StmtKind::Continue
            }
            Some("return") => {
                self.bump();
                let value =
                    if self.at_punct(Punct::Semi) { None } else { Some(self.expression()?) };
                self.expect_semi("after return statement")?;
                StmtKind::Return(value)
            }
            Some("else") => {
                let d = Diagnostic::error(start, "else without a matching 'if'")
                    .with_help("check the braces and semicolons before it");
                return Err(self.report(d));
            }
            Some("goto") => {
                self.bump();
                let label = self.expect_ident("a label name")?;
                self.expect_semi("after 'goto'")?;
                StmtKind::Goto(label)
            }
            _ if self.at_label() => {
                let label = self.expect_ident("a label name")?;
                self.bump();
                let body = Box::new(self.sub_statement()?);
                StmtKind::Labeled { label, body }
            }
            _ if self.starts_declaration() => {
                let d = Diagnostic::error(start, "a declaration is not a statement")
                    .with_help("put the declaration inside braces '{ … }'");
                return Err(self.report(d));
            }
            _ => {
                let expr = self.expression()?;
                self.expect_semi("after expression")?;
                StmtKind::Expr(Some(expr))
            }
        };
        Ok(Stmt { kind, span: self.span_from(start) })
    }

    /// The statement a loop, `if`, `else`, `switch` or label governs. A `#pragma` is not a
    /// statement (`#pragma unroll` before an inner loop hints that loop), so pragmas here are
    /// kept with the statement that follows them, in a block: `for (…) #pragma unroll for (…)
    /// s;` is one loop nest, as in C. Such a body is a block scope in C99 (6.8.4p3, 6.8.5p5),
    /// so the braces change nothing else.
    fn sub_statement(&mut self) -> PResult<Stmt> {
        if !matches!(self.peek().kind, TokenKind::Pragma(_)) {
            return self.statement();
        }
        let start = self.peek().site;
        let mut stmts = Vec::new();
        while matches!(self.peek().kind, TokenKind::Pragma(_)) {
            stmts.push(self.statement()?);
        }
        stmts.push(self.statement()?);
        let span = self.span_from(start);
        Ok(Stmt { kind: StmtKind::Compound(Block { stmts, span }), span })
    }

    /// A statement after attributes. Loop hints such as `opencl_unroll_hint` only tune code
    /// generation, and the tree has no place for them: they are read, reported as ignored, and
    /// the statement itself is returned.
    fn attributed_statement(&mut self) -> PResult<Stmt> {
        let start = self.peek().site;
        let attributes = self.attribute_list()?;
        let names: Vec<String> =
            attributes.iter().map(|attribute| format!("'{}'", attribute.name.name)).collect();
        let span = self.span_from(start);
        let message = format!("statement attributes are ignored: {}", names.join(", "));
        self.diags.push(Diagnostic::warning(span, message));
        self.statement()
    }

    /// `( expression )` after `if`, `while`, `switch`.
    fn parenthesized_condition(&mut self, keyword: &str) -> PResult<Expr> {
        let open = self.expect_punct(Punct::LParen, &format!("after '{keyword}'"))?;
        let cond = self.expression()?;
        self.expect_closing(Punct::RParen, open)?;
        Ok(cond)
    }

    fn if_statement(&mut self) -> PResult<StmtKind> {
        self.bump();
        let cond = self.parenthesized_condition("if")?;
        let then = Box::new(self.sub_statement()?);
        // An `else` belongs to the nearest `if`: the recursion takes it here first.
        let otherwise = match self.eat_word("else") {
            Some(_) => Some(Box::new(self.sub_statement()?)),
            None => None,
        };
        Ok(StmtKind::If { cond, then, otherwise })
    }

    fn do_while_statement(&mut self) -> PResult<StmtKind> {
        self.bump();
        let body = Box::new(self.sub_statement()?);
        if self.eat_word("while").is_none() {
            return Err(self.error_here("expected 'while' in do/while loop"));
        }
        let cond = self.parenthesized_condition("while")?;
        self.expect_semi("after do/while statement")?;
        Ok(StmtKind::DoWhile { body, cond })
    }

    fn for_statement(&mut self) -> PResult<StmtKind> {
        self.bump();
        let open = self.expect_punct(Punct::LParen, "after 'for'")?;
        // A declaration in the init is visible in the whole loop and nowhere else.
        self.push_scope();
        let result = self.for_rest(open);
        self.pop_scope();
        result
    }

    fn for_rest(&mut self, open: Span) -> PResult<StmtKind> {
        let init = if self.eat_punct(Punct::Semi).is_some() {
            None
        } else if self.starts_declaration() {
            Some(ForInit::Decl(self.declaration()?))
        } else {
            let init = self.expression()?;
            self.expect_punct(Punct::Semi, "in 'for' statement")?;
            Some(ForInit::Expr(init))
        };
        let cond = if self.at_punct(Punct::Semi) { None } else { Some(self.expression()?) };
        self.expect_punct(Punct::Semi, "in 'for' statement")?;
        let step = if self.at_punct(Punct::RParen) { None } else { Some(self.expression()?) };
        self.expect_closing(Punct::RParen, open)?;
        let body = Box::new(self.sub_statement()?);
        Ok(StmtKind::For { init, cond, step, body })
    }
}
