//! The parser: preprocessed tokens → [`ast::TranslationUnit`].
//!
//! Recursive descent over C99's grammar with OpenCL C's additions, precedence climbing for the
//! binary operators. C needs to know which identifiers name types (`T * x;` is a declaration
//! when `T` is a typedef), so the parser keeps a stack of block scopes with the typedef names in
//! them; it knows nothing else about types.
//!
//! Errors never stop the parse: each one becomes a [`Diagnostic`] at the offending token's site
//! (a missing `;` is reported right after the token it should follow, as C compilers do), the
//! parser skips to a point where it can resume (the end of the statement, the end of a list
//! item, the closing brace of the current nesting level) and goes on, so one run reports several
//! independent errors. Every loop consumes at least one token per round and nesting is bounded
//! by [`MAX_NESTING`], so no input makes the parser hang or overflow its stack.

mod decl;
mod declarator;
mod expr;
mod keywords;
mod specifiers;
mod stmt;
#[cfg(test)]
mod tests;

use std::collections::HashMap;

use crate::ast;
use crate::diag::{Diagnostic, Diagnostics};
use crate::span::Span;
use crate::token::{Punct, Token, TokenKind};

/// How deeply expressions, statements, declarators and initializers may nest.
pub const MAX_NESTING: u32 = 256;

/// How many operators may chain without parentheses in one expression (`a + b + …`).
///
/// With [`MAX_NESTING`] this bounds the depth of every tree the parser returns (at most about
/// `MAX_NESTING + MAX_CHAIN` nodes from root to leaf), so later passes may recurse over it.
pub const MAX_CHAIN: u32 = 256;

/// After this many errors the parser stops: what follows is more likely noise than news.
pub const MAX_ERRORS: usize = 100;

/// Parses a preprocessed token stream (normally ending with [`TokenKind::Eof`]).
///
/// Never panics. The tree holds everything that parsed: a construct with a syntax error is
/// reported in the diagnostics and left out of the tree, or kept as far as it got when what
/// follows could still be read (a function body cut short, an initializer list with a bad
/// item). Callers treat the tree as incomplete whenever the diagnostics hold an error.
pub fn parse(tokens: &[Token]) -> (ast::TranslationUnit, Diagnostics) {
    let mut parser = Parser::new(tokens);
    let unit = parser.translation_unit();
    (unit, parser.diags)
}

/// Parses a single expression, commas included, that must use up all the tokens (for tests,
/// `#pragma` arguments and tools). No typedef names are known here, so `(T)x` is a cast only
/// when `T` is a builtin type word.
pub fn parse_expression(tokens: &[Token]) -> Result<ast::Expr, Diagnostics> {
    let mut parser = Parser::new(tokens);
    match parser.expression() {
        Ok(expr) => {
            if !parser.at_eof() {
                let site = parser.peek().site;
                parser.error_at(site, "expected end of expression");
            }
            if parser.diags.has_errors() {
                Err(parser.diags)
            } else {
                Ok(expr)
            }
        }
        Err(Reported) => Err(parser.diags),
    }
}

/// Stack kept free below every level of nesting, and the size of each extra stack segment.
/// Recursive descent needs stack in proportion to the nesting it accepts ([`MAX_NESTING`]), and
/// unoptimised builds use large frames (tens of KiB per level), more than a test thread's
/// 2 MiB holds. Rather than running every parse on a big-stack thread (which costs more than
/// parsing a typical kernel), each level checks the room left and moves to a fresh segment only
/// when deep input actually needs it.
const STACK_RED_ZONE: usize = 256 << 10;
const STACK_SEGMENT: usize = 4 << 20;

/// A diagnostic has been pushed already; the caller recovers.
#[derive(Debug)]
struct Reported;

type PResult<T> = Result<T, Reported>;

/// What an identifier means in a scope, as far as the grammar cares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum NameKind {
    /// A typedef name; `vector` when it names a vector type (`(V)(1, 2)` is then a literal).
    Typedef { vector: bool },
    /// A variable, function, parameter or enumerator, which hides a typedef of the same name.
    Ordinary,
}

struct Parser<'t> {
    tokens: &'t [Token],
    pos: usize,
    /// Returned when reading past the end, so a stream without `Eof` is still well formed.
    eof: Token,
    /// Site of the last consumed token: node spans end here.
    prev_site: Span,
    diags: Diagnostics,
    error_count: usize,
    /// Innermost scope last; the first is the file scope.
    scopes: Vec<HashMap<String, NameKind>>,
    /// Current nesting, bounded by [`MAX_NESTING`].
    depth: u32,
    /// Operators chained at one level (`a + b + c`, `x.a.b`, `f()()`): each makes the tree one
    /// node deeper without nesting in the source, so they are bounded by [`MAX_CHAIN`].
    chain: u32,
    /// How many `switch` bodies enclose the current statement (`case` needs one).
    switch_depth: u32,
}

impl<'t> Parser<'t> {
    fn new(tokens: &'t [Token]) -> Self {
        let eof_site = match tokens.last() {
            Some(t) if t.kind == TokenKind::Eof => t.site,
            Some(t) => Span { start: t.site.end, ..t.site },
            None => Span::UNDEFINED,
        };
        Parser {
            tokens,
            pos: 0,
            eof: Token::new(TokenKind::Eof, eof_site),
            prev_site: Span::UNDEFINED,
            diags: Diagnostics::default(),
            error_count: 0,
            scopes: vec![HashMap::new()],
            depth: 0,
            chain: 0,
            switch_depth: 0,
        }
    }

    // ----- looking at tokens -------------------------------------------------------------

    fn peek(&self) -> &Token {
        self.peek_nth(0)
    }

    /// The token `n` places ahead; `Eof` at and after the end of the stream.
    fn peek_nth(&self, n: usize) -> &Token {
        let index = self.pos.saturating_add(n);
        for token in self.tokens.get(self.pos..).unwrap_or(&[]).iter().take(n + 1) {
            if token.kind == TokenKind::Eof {
                return token;
            }
        }
        self.tokens.get(index).unwrap_or(&self.eof)
    }

    fn at_eof(&self) -> bool {
        self.peek().kind == TokenKind::Eof
    }

    fn at_punct(&self, p: Punct) -> bool {
        self.peek().is_punct(p)
    }

    /// The current token's word, when it is an identifier.
    fn peek_word(&self) -> Option<&str> {
        self.peek().ident()
    }

    fn at_word(&self, word: &str) -> bool {
        self.peek_word() == Some(word)
    }

    /// An empty span where the current token starts (the location of something missing).
    fn here(&self) -> Span {
        let site = self.peek().site;
        Span { end: site.start, ..site }
    }

    /// Span from `start` to the end of the last consumed token.
    fn span_from(&self, start: Span) -> Span {
        start.to(self.prev_site)
    }

    // ----- consuming tokens --------------------------------------------------------------

    /// Consumes the current token (never past `Eof`) and returns its site.
    fn bump(&mut self) -> Span {
        let site = self.peek().site;
        if !self.at_eof() {
            self.pos += 1;
            self.prev_site = site;
        }
        site
    }

    fn eat_punct(&mut self, p: Punct) -> Option<Span> {
        if self.at_punct(p) {
            Some(self.bump())
        } else {
            None
        }
    }

    fn eat_word(&mut self, word: &str) -> Option<Span> {
        if self.at_word(word) {
            Some(self.bump())
        } else {
            None
        }
    }

    /// Consumes `p` or reports "expected 'p' `context`".
    fn expect_punct(&mut self, p: Punct, context: &str) -> PResult<Span> {
        match self.eat_punct(p) {
            Some(site) => Ok(site),
            None => {
                let message = if context.is_empty() {
                    format!("expected '{p}'")
                } else {
                    format!("expected '{p}' {context}")
                };
                Err(self.error_here(message))
            }
        }
    }

    /// Consumes `)` closing the `(` at `open`, or reports it with a note at the opener.
    fn expect_closing(&mut self, close: Punct, open: Span) -> PResult<Span> {
        match self.eat_punct(close) {
            Some(site) => Ok(site),
            None => {
                let opener = match close {
                    Punct::RParen => "(",
                    Punct::RBracket => "[",
                    _ => "{",
                };
                let d = Diagnostic::error(self.peek().site, format!("expected '{close}'"))
                    .with_note(open, format!("to match this '{opener}'"));
                Err(self.report(d))
            }
        }
    }

    /// Consumes the `;` ending a statement or declaration. A missing `;` before a token that
    /// starts a new line is reported but treated as present, so the next line still parses.
    fn expect_semi(&mut self, context: &str) -> PResult<Span> {
        if let Some(site) = self.eat_punct(Punct::Semi) {
            return Ok(site);
        }
        let next = self.peek();
        let resumable =
            next.at_line_start || next.is_punct(Punct::RBrace) || next.kind == TokenKind::Eof;
        // Like C compilers, point just after the last token: the `;` belongs there, and that
        // is the line the user has to fix.
        let site = if self.prev_site.is_defined() {
            Span { start: self.prev_site.end, ..self.prev_site }
        } else {
            self.peek().site
        };
        let reported = self.error_at(site, format!("expected ';' {context}"));
        if resumable {
            Ok(self.here())
        } else {
            Err(reported)
        }
    }

    /// Consumes an identifier that is not a keyword.
    fn expect_ident(&mut self, what: &str) -> PResult<ast::Ident> {
        match self.peek_word() {
            Some(word) if !keywords::is_reserved(word) => {
                let name = word.to_string();
                let span = self.bump();
                Ok(ast::Ident { name, span })
            }
            Some(word) => {
                let message = format!("expected {what}, found keyword '{word}'");
                Err(self.error_here(message))
            }
            None => Err(self.error_here(format!("expected {what}"))),
        }
    }

    // ----- diagnostics -------------------------------------------------------------------

    fn report(&mut self, diagnostic: Diagnostic) -> Reported {
        if self.error_count < MAX_ERRORS {
            self.diags.push(diagnostic);
            self.error_count += 1;
        } else if self.error_count == MAX_ERRORS {
            self.error_count += 1;
            let site = self.peek().site;
            self.diags.push(Diagnostic::error(site, "too many errors; parsing stopped here"));
            // Jumping to the end makes every loop finish and every caller unwind quickly.
            self.pos = self.tokens.len();
        }
        Reported
    }

    fn error_at(&mut self, span: Span, message: impl Into<String>) -> Reported {
        self.report(Diagnostic::error(span, message))
    }

    fn error_here(&mut self, message: impl Into<String>) -> Reported {
        let site = self.peek().site;
        self.error_at(site, message)
    }

    // ----- nesting -----------------------------------------------------------------------

    /// Runs `f` one nesting level deeper, refusing to go past [`MAX_NESTING`].
    fn nested<T>(&mut self, f: impl FnOnce(&mut Self) -> PResult<T>) -> PResult<T> {
        if self.depth >= MAX_NESTING {
            let d = Diagnostic::error(self.peek().site, "code is nested too deeply")
                .with_help(format!("the parser accepts at most {MAX_NESTING} levels of nesting"));
            return Err(self.report(d));
        }
        self.depth += 1;
        let result = stacker::maybe_grow(STACK_RED_ZONE, STACK_SEGMENT, || f(self));
        self.depth -= 1;
        result
    }

    /// Counts one more chained operator; see [`Parser::chain`].
    fn grow_chain(&mut self) -> PResult<()> {
        if self.chain >= MAX_CHAIN {
            let d = Diagnostic::error(self.peek().site, "expression is too long")
                .with_help(format!("split it: at most {MAX_CHAIN} operators may chain"));
            return Err(self.report(d));
        }
        self.chain += 1;
        Ok(())
    }

    /// Runs `f` and then forgets the operators it chained.
    fn chained<T>(&mut self, f: impl FnOnce(&mut Self) -> PResult<T>) -> PResult<T> {
        let saved = self.chain;
        let result = f(self);
        self.chain = saved;
        result
    }

    // ----- scopes ------------------------------------------------------------------------

    fn push_scope(&mut self) {
        self.scopes.push(HashMap::new());
    }

    fn pop_scope(&mut self) {
        // The file scope stays.
        if self.scopes.len() > 1 {
            self.scopes.pop();
        }
    }

    fn declare(&mut self, name: &str, kind: NameKind) {
        if let Some(scope) = self.scopes.last_mut() {
            scope.insert(name.to_string(), kind);
        }
    }

    fn lookup(&self, name: &str) -> Option<NameKind> {
        self.scopes.iter().rev().find_map(|scope| scope.get(name).copied())
    }

    /// `Some(vector)` when `name` is a typedef name visible here.
    fn typedef_name(&self, name: &str) -> Option<bool> {
        match self.lookup(name) {
            Some(NameKind::Typedef { vector }) => Some(vector),
            _ => None,
        }
    }

    // ----- recovery ----------------------------------------------------------------------

    /// Skips the rest of a broken statement or declaration: up to and including the next `;` at
    /// this nesting level, or past a balanced `{ … }` (a function body), or up to (not
    /// including) a `}` that closes the enclosing block.
    fn recover_statement(&mut self) {
        let mut depth = 0usize;
        while !self.at_eof() {
            let kind = &self.peek().kind;
            match kind {
                TokenKind::Punct(Punct::Semi) if depth == 0 => {
                    self.bump();
                    return;
                }
                // The enclosing block ends here: leave its `}` to it.
                TokenKind::Punct(Punct::RBrace) if depth == 0 => return,
                TokenKind::Punct(Punct::LParen | Punct::LBracket | Punct::LBrace) => {
                    depth += 1;
                    self.bump();
                }
                TokenKind::Punct(Punct::RBrace) => {
                    depth -= 1;
                    self.bump();
                    if depth == 0 {
                        // A skipped `= { … };` or `struct { … };` ends with its `;`.
                        self.eat_punct(Punct::Semi);
                        return;
                    }
                }
                TokenKind::Punct(Punct::RParen | Punct::RBracket) => {
                    depth = depth.saturating_sub(1);
                    self.bump();
                }
                _ => {
                    self.bump();
                }
            }
        }
    }

    /// Skips the rest of a broken list item: up to (not including) a `,` or `close` at this
    /// nesting level, or a `;` or `}` (and, outside brace lists, a `{`) that shows the list
    /// itself is broken.
    fn recover_list_item(&mut self, close: Punct) {
        let mut depth = 0usize;
        while !self.at_eof() {
            let token = self.peek();
            if depth == 0 {
                let ends_list = token.is_punct(Punct::Semi)
                    || token.is_punct(Punct::RBrace)
                    || (close != Punct::RBrace && token.is_punct(Punct::LBrace));
                if token.is_punct(Punct::Comma) || token.is_punct(close) || ends_list {
                    return;
                }
            }
            match token.kind {
                TokenKind::Punct(Punct::LParen | Punct::LBracket | Punct::LBrace) => depth += 1,
                TokenKind::Punct(Punct::RParen | Punct::RBracket | Punct::RBrace) => {
                    depth = depth.saturating_sub(1)
                }
                _ => {}
            }
            self.bump();
        }
    }

    // ----- translation unit --------------------------------------------------------------

    fn translation_unit(&mut self) -> ast::TranslationUnit {
        let mut items = Vec::new();
        while !self.at_eof() {
            let before = self.pos;
            match self.external_declaration() {
                Ok(Some(item)) => items.push(item),
                Ok(None) => {}
                Err(Reported) => self.recover_statement(),
            }
            if self.pos == before {
                // Nothing could start here; the error is reported, move on.
                self.bump();
            }
        }
        ast::TranslationUnit { items }
    }

    fn external_declaration(&mut self) -> PResult<Option<ast::ExternalDecl>> {
        if let TokenKind::Pragma(text) = &self.peek().kind {
            let text = text.trim().to_string();
            let span = self.bump();
            return Ok(Some(ast::ExternalDecl::Pragma(ast::Pragma { text, span })));
        }
        if self.eat_punct(Punct::Semi).is_some() {
            // A stray `;` at file scope (`void f() {};`) is not C99, but harmless, and C
            // compilers accept it without a word unless asked to be pedantic.
            return Ok(None);
        }
        if self.at_punct(Punct::RBrace) {
            self.error_here("unexpected '}' outside of a function");
            self.bump();
            return Ok(None);
        }
        self.declaration_or_function()
    }
}
