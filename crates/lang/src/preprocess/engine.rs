//! The preprocessing engine: the stack of open files, directives, conditional groups and
//! macro expansion (Prosser's algorithm with hide sets, see [`super::hideset`]).
//!
//! Tokens flow through one queue, `pending` (reversed, so the next token is at the end): macro
//! replacements are pushed back onto it and rescanned together with the rest of the input, as
//! C requires (a function-like macro's `(` may come from after the replacement). When the queue
//! is empty the next token comes from the innermost open file, where directives are handled.
//! Argument pre-expansion and `#if` lines run the same loop on a bounded queue.

use super::hideset::{HideSet, HideSets};
use super::macros::{parse_definition, same_definition, Builtin, MacroDef};
use super::{Expansion, FileLoader};
use crate::diag::{Diagnostic, Diagnostics};
use crate::lex::{lex_text, remove_splices, Lexer};
use crate::span::{FileId, SourceFile, SourceMap, Span};
use crate::token::{ExpansionId, Punct, Token, TokenKind};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// Files may include each other at most this deep.
const MAX_INCLUDE_DEPTH: usize = 200;
/// Nesting limit of argument pre-expansion (each level is a recursion).
const MAX_EXPANSION_DEPTH: u32 = 256;
/// Tokens that macro expansion may produce in one translation unit.
const MAX_EXPANDED_TOKENS: usize = 1_000_000;

/// Placeholder file of synthetic spellings (stringified and pasted tokens) until the scratch
/// buffer is added to the source map at the end.
pub const SCRATCH_FILE: FileId = FileId(u32::MAX - 1);

/// A token on its way through the preprocessor.
#[derive(Clone, Debug)]
pub struct PpToken {
    pub token: Token,
    pub hide: HideSet,
}

impl PpToken {
    fn plain(token: Token) -> Self {
        PpToken { token, hide: HideSet::EMPTY }
    }

    fn is_punct(&self, p: Punct) -> bool {
        self.token.is_punct(p)
    }
}

/// One conditional (`#if` … `#endif`) open in a file.
#[derive(Clone, Debug)]
struct Conditional {
    span: Span,
    /// Some group of this conditional has been taken (later `#elif`/`#else` are skipped).
    taken: bool,
    seen_else: bool,
}

/// An open file.
struct Frame {
    file: FileId,
    text: Rc<str>,
    lexer: Lexer,
    /// A token lexed to find the end of a directive line, not yet consumed.
    peeked: Option<Token>,
    conditionals: Vec<Conditional>,
    /// Directory for `#include "…"`.
    dir: PathBuf,
}

/// Result of looking for a function-like macro's arguments.
enum Invocation {
    /// No `(` follows: the name is an ordinary identifier.
    NotInvoked,
    /// Arguments (raw) and the closing parenthesis.
    Args(Vec<Vec<PpToken>>, PpToken),
    /// Already reported; the invocation is dropped.
    Failed,
}

/// The results of a run, detached from the source map.
pub struct Parts {
    pub expansions: Vec<Expansion>,
    pub diags: Diagnostics,
    pub included_files: Vec<FileId>,
    pub scratch: String,
}

pub struct Engine<'a> {
    sources: &'a mut SourceMap,
    loader: &'a dyn FileLoader,
    include_dirs: Vec<PathBuf>,
    frames: Vec<Frame>,
    pending: Vec<PpToken>,
    /// Reading a bounded queue (an argument or a directive line): never read from files.
    bounded: bool,
    macros: HashMap<String, Rc<MacroDef>>,
    symbols: HashMap<String, u32>,
    hide_sets: HideSets,
    expansions: Vec<Expansion>,
    diags: Diagnostics,
    included_files: Vec<FileId>,
    /// Text of synthetic tokens, addressed through [`SCRATCH_FILE`].
    scratch: String,
    produced: usize,
    depth: u32,
    limit_reported: bool,
    once: HashSet<PathBuf>,
    /// Malformed pp-numbers by spelling location, reported only if they reach the output.
    bad_numbers: HashMap<(FileId, u32), Diagnostic>,
}

impl<'a> Engine<'a> {
    pub fn new(
        sources: &'a mut SourceMap,
        loader: &'a dyn FileLoader,
        include_dirs: Vec<PathBuf>,
    ) -> Self {
        let mut engine = Engine {
            sources,
            loader,
            include_dirs,
            frames: Vec::new(),
            pending: Vec::new(),
            bounded: false,
            macros: HashMap::new(),
            symbols: HashMap::new(),
            hide_sets: HideSets::default(),
            expansions: Vec::new(),
            diags: Diagnostics::default(),
            included_files: Vec::new(),
            scratch: String::new(),
            produced: 0,
            depth: 0,
            limit_reported: false,
            once: HashSet::new(),
            bad_numbers: HashMap::new(),
        };
        for (name, builtin) in [("__FILE__", Builtin::File), ("__LINE__", Builtin::Line)] {
            let symbol = engine.symbol(name);
            engine
                .macros
                .insert(name.to_string(), Rc::new(MacroDef::builtin(name, symbol, builtin)));
        }
        engine
    }

    fn symbol(&mut self, name: &str) -> u32 {
        let next = self.symbols.len() as u32;
        *self.symbols.entry(name.to_string()).or_insert(next)
    }

    /// Opens a file of the source map; it is read before the files opened earlier.
    pub fn push_file(&mut self, file: FileId) {
        let Some(source) = self.sources.get(file) else { return };
        let dir = source
            .path
            .as_deref()
            .and_then(Path::parent)
            .map(Path::to_path_buf)
            .unwrap_or_default();
        self.frames.push(Frame {
            file,
            text: Rc::from(source.text.as_str()),
            lexer: Lexer::deferring_number_errors(file),
            peeked: None,
            conditionals: Vec::new(),
            dir,
        });
    }

    /// Preprocesses every open file; the result ends with `Eof`.
    pub fn run(&mut self) -> Vec<Token> {
        // Typical OpenCL C has a token every four to six bytes; reserving up front saves the
        // copies of a growing vector of large tokens.
        let text_len: usize = self.frames.iter().map(|f| f.text.len()).sum();
        let mut out = Vec::with_capacity(text_len / 5 + 16);
        while let Some(t) = self.next_expanded() {
            if t.token.kind == TokenKind::Eof {
                self.close_file();
                if self.frames.is_empty() {
                    out.push(t.token);
                    break;
                }
                continue;
            }
            self.check_number(&t.token);
            out.push(t.token);
        }
        if !matches!(out.last(), Some(t) if t.kind == TokenKind::Eof) {
            out.push(Token::new(TokenKind::Eof, Span::UNDEFINED));
        }
        out
    }

    /// What the engine collected, once it has run.
    pub fn into_parts(self) -> Parts {
        Parts {
            expansions: self.expansions,
            diags: self.diags,
            included_files: self.included_files,
            scratch: self.scratch,
        }
    }

    fn close_file(&mut self) {
        if let Some(frame) = self.frames.pop() {
            for c in frame.conditionals {
                self.diags.push(Diagnostic::error(c.span, "unterminated conditional directive"));
            }
        }
    }

    // ---------------------------------------------------------------- reading from files

    fn lex_from_file(&mut self, quiet: bool) -> Token {
        let Some(frame) = self.frames.last_mut() else {
            return Token::new(TokenKind::Eof, Span::UNDEFINED);
        };
        if let Some(t) = frame.peeked.take() {
            return t;
        }
        let diags = if quiet { None } else { Some(&mut self.diags) };
        let token = frame.lexer.next_token(&frame.text, diags);
        if !frame.lexer.deferred.is_empty() {
            for d in frame.lexer.deferred.drain(..) {
                self.bad_numbers.insert((d.span.file, d.span.start), d);
            }
        }
        token
    }

    /// Reports a malformed number when it is used (output, `#if`, `#line`).
    fn check_number(&mut self, token: &Token) {
        if self.bad_numbers.is_empty()
            || !matches!(token.kind, TokenKind::Int { .. } | TokenKind::Float { .. })
        {
            return;
        }
        if let Some(mut d) = self.bad_numbers.remove(&(token.span.file, token.span.start)) {
            if token.expansion.is_some() {
                d.span = token.site;
            }
            self.diags.push(d);
        }
    }

    fn unread(&mut self, token: Token) {
        if let Some(frame) = self.frames.last_mut() {
            frame.peeked = Some(token);
        }
    }

    /// The rest of the current directive line. Stops before lexing the next line, whose first
    /// token may belong to a skipped group and must not be diagnosed yet.
    fn read_line(&mut self, quiet: bool) -> Vec<Token> {
        let mut line = Vec::new();
        loop {
            let at_end = match self.frames.last() {
                None => true,
                Some(frame) => match &frame.peeked {
                    Some(t) => t.at_line_start,
                    None => frame.lexer.at_end_of_line(&frame.text),
                },
            };
            if at_end {
                return line;
            }
            line.push(self.lex_from_file(quiet));
        }
    }

    fn skip_line(&mut self) {
        if let Some(frame) = self.frames.last_mut() {
            if frame.peeked.is_none() {
                frame.lexer.skip_line(&frame.text);
            }
        }
    }

    /// The next token of the current file after directives; `Eof` at its end.
    fn next_file_token(&mut self) -> PpToken {
        loop {
            let t = self.lex_from_file(false);
            if t.at_line_start && t.is_punct(Punct::Hash) {
                if let Some(pragma) = self.directive(t) {
                    return PpToken::plain(pragma);
                }
                continue;
            }
            return PpToken::plain(t);
        }
    }

    fn next_raw(&mut self) -> Option<PpToken> {
        if let Some(t) = self.pending.pop() {
            return Some(t);
        }
        if self.bounded {
            return None;
        }
        Some(self.next_file_token())
    }

    // ---------------------------------------------------------------- macro expansion

    /// The next fully macro-expanded token; `None` at the end of a bounded queue.
    fn next_expanded(&mut self) -> Option<PpToken> {
        loop {
            let t = self.next_raw()?;
            let TokenKind::Ident(name) = &t.token.kind else { return Some(t) };
            if self.produced > MAX_EXPANDED_TOKENS {
                return Some(t);
            }
            if name == "_Pragma" {
                return Some(self.pragma_operator(t));
            }
            let Some(def) = self.macros.get(name).cloned() else { return Some(t) };
            if self.hide_sets.contains(t.hide, def.symbol) {
                return Some(t);
            }
            if !self.expand_macro(&t, &def) {
                return Some(t);
            }
        }
    }

    /// Expands a bounded token list completely (argument pre-expansion, directive lines).
    fn expand_list(&mut self, tokens: Vec<PpToken>) -> Vec<PpToken> {
        if self.depth >= MAX_EXPANSION_DEPTH {
            let span = tokens.first().map(|t| t.token.site).unwrap_or(Span::UNDEFINED);
            self.report_limit(span, "macro expansion nested too deeply");
            return tokens;
        }
        self.depth += 1;
        let mut queue = tokens;
        queue.reverse();
        let saved_pending = std::mem::replace(&mut self.pending, queue);
        let saved_bounded = std::mem::replace(&mut self.bounded, true);
        let mut out = Vec::new();
        while let Some(t) = self.next_expanded() {
            out.push(t);
        }
        self.pending = saved_pending;
        self.bounded = saved_bounded;
        self.depth -= 1;
        out
    }

    fn report_limit(&mut self, span: Span, message: &str) {
        if !self.limit_reported {
            self.limit_reported = true;
            self.diags.push(Diagnostic::error(span, message));
        }
    }

    /// Replaces the macro invocation that starts with `name`; returns false when it is not an
    /// invocation (a function-like macro without arguments), leaving the input untouched.
    fn expand_macro(&mut self, name: &PpToken, def: &Rc<MacroDef>) -> bool {
        if let Some(builtin) = def.builtin {
            let token = self.builtin_token(name, builtin);
            let id = self.record_expansion(def, name.token.site, name);
            let hide = self.hide_sets.with(name.hide, def.symbol);
            let out = vec![PpToken { token, hide }];
            self.emit(out, name, name.token.site, id);
            return true;
        }
        if !def.is_function_like() {
            let site = name.token.site;
            let id = self.record_expansion(def, site, name);
            let hide = self.hide_sets.with(name.hide, def.symbol);
            let out = self.substitute(def, &[], hide, site);
            self.emit(out, name, site, id);
            return true;
        }
        let (args, rparen) = match self.collect_arguments(name, def) {
            Invocation::NotInvoked => return false,
            Invocation::Failed => return true,
            Invocation::Args(args, rparen) => (args, rparen),
        };
        let site = name.token.site.to(rparen.token.site);
        let Some(args) = self.check_argument_count(def, args, site) else { return true };
        let id = self.record_expansion(def, site, name);
        let common = self.hide_sets.intersection(name.hide, rparen.hide);
        let hide = self.hide_sets.with(common, def.symbol);
        let out = self.substitute(def, &args, hide, site);
        self.emit(out, name, site, id);
        true
    }

    fn record_expansion(&mut self, def: &MacroDef, site: Span, name: &PpToken) -> ExpansionId {
        self.expansions.push(Expansion {
            macro_name: def.name.clone(),
            site,
            definition: def.definition,
            parent: name.token.expansion,
        });
        ExpansionId(self.expansions.len() as u32 - 1)
    }

    /// Stamps the replacement with its site and expansion, and queues it for rescanning.
    fn emit(&mut self, mut out: Vec<PpToken>, name: &PpToken, site: Span, id: ExpansionId) {
        self.produced += out.len();
        if self.produced > MAX_EXPANDED_TOKENS {
            self.report_limit(site, "macro expansion produces too many tokens");
        }
        for (i, t) in out.iter_mut().enumerate() {
            t.token.site = site;
            t.token.expansion = Some(id);
            if i == 0 {
                t.token.leading_space = name.token.leading_space;
                t.token.at_line_start = name.token.at_line_start;
            } else {
                t.token.leading_space |= t.token.at_line_start;
                t.token.at_line_start = false;
            }
        }
        out.reverse();
        self.pending.extend(out);
    }

    fn builtin_token(&mut self, name: &PpToken, builtin: Builtin) -> Token {
        let site = name.token.site;
        let (file_name, position) = self.sources.presumed(site.file, site.start);
        match builtin {
            Builtin::Line => {
                let text = position.line.to_string();
                let span = self.add_scratch(&text);
                let kind = TokenKind::Int {
                    value: position.line as u64,
                    suffix: Default::default(),
                    radix: crate::token::Radix::Decimal,
                };
                Token::new(kind, span)
            }
            Builtin::File => {
                let spelled = format!("\"{}\"", escape_for_string(&file_name));
                let span = self.add_scratch(&spelled);
                Token::new(TokenKind::Str(file_name), span)
            }
        }
    }

    /// Reads `( args )` after a function-like macro name.
    fn collect_arguments(&mut self, name: &PpToken, def: &MacroDef) -> Invocation {
        match self.next_raw() {
            Some(t) if t.is_punct(Punct::LParen) => {}
            Some(t) => {
                self.pending.push(t);
                return Invocation::NotInvoked;
            }
            None => return Invocation::NotInvoked,
        }
        let named = def.param_count() - def.variadic as usize;
        let mut args: Vec<Vec<PpToken>> = vec![Vec::new()];
        let mut depth = 0u32;
        loop {
            let t = match self.next_raw() {
                Some(t) if t.token.kind != TokenKind::Eof => t,
                other => {
                    if let Some(eof) = other {
                        self.pending.push(eof);
                    }
                    self.diags.push(Diagnostic::error(
                        name.token.site,
                        format!("unterminated argument list invoking macro '{}'", def.name),
                    ));
                    return Invocation::Failed;
                }
            };
            match &t.token.kind {
                TokenKind::Punct(Punct::LParen) => depth += 1,
                TokenKind::Punct(Punct::RParen) if depth == 0 => return Invocation::Args(args, t),
                TokenKind::Punct(Punct::RParen) => depth -= 1,
                // In a variadic macro, commas past the named parameters belong to __VA_ARGS__.
                TokenKind::Punct(Punct::Comma)
                    if depth == 0 && !(def.variadic && args.len() > named) =>
                {
                    args.push(Vec::new());
                    continue;
                }
                _ => {}
            }
            if let Some(last) = args.last_mut() {
                last.push(t);
            }
        }
    }

    fn check_argument_count(
        &mut self,
        def: &MacroDef,
        mut args: Vec<Vec<PpToken>>,
        site: Span,
    ) -> Option<Vec<Vec<PpToken>>> {
        let expected = def.param_count();
        let named = expected - def.variadic as usize;
        // `f()` passes one empty argument, which is right for one parameter and for none.
        if expected == 0 && args.len() == 1 && args[0].is_empty() {
            return Some(Vec::new());
        }
        if def.variadic && args.len() == named {
            args.push(Vec::new());
        }
        if args.len() == expected {
            return Some(args);
        }
        let message = format!(
            "macro '{}' requires {}{} argument{}, but {} {} given",
            def.name,
            if def.variadic { "at least " } else { "" },
            named,
            if named == 1 { "" } else { "s" },
            args.len(),
            if args.len() == 1 { "was" } else { "were" },
        );
        self.diags.push(Diagnostic::error(site, message));
        None
    }

    /// C99 §6.10.3.1–3: replaces parameters, applies `#` and `##`; the result carries `hide`.
    fn substitute(
        &mut self,
        def: &MacroDef,
        args: &[Vec<PpToken>],
        hide: HideSet,
        site: Span,
    ) -> Vec<PpToken> {
        let body = &def.body;
        let function_like = def.is_function_like();
        let param_at = |i: usize| -> Option<usize> { def.param_of.get(i).copied().flatten() };
        let mut expanded: Vec<Option<Vec<PpToken>>> = vec![None; args.len()];
        let mut out: Vec<PpToken> = Vec::with_capacity(body.len());
        // The last operand of `##` was an empty argument (a placemarker), so a following `##`
        // has nothing to paste onto.
        let mut placemarker = false;
        let mut i = 0;
        while i < body.len() {
            let token = &body[i];
            if function_like && token.is_punct(Punct::Hash) {
                if let Some(p) = param_at(i + 1) {
                    let s = self.stringify(args.get(p).map(Vec::as_slice).unwrap_or(&[]), token);
                    out.push(PpToken::plain(s));
                    placemarker = false;
                    i += 2;
                    continue;
                }
            }
            if token.is_punct(Punct::HashHash) && i + 1 < body.len() {
                i += 1;
                let rhs: Vec<PpToken> = if function_like
                    && body[i].is_punct(Punct::Hash)
                    && param_at(i + 1).is_some()
                {
                    let p = param_at(i + 1).unwrap_or(0);
                    i += 1;
                    vec![PpToken::plain(
                        self.stringify(args.get(p).map(Vec::as_slice).unwrap_or(&[]), &body[i - 1]),
                    )]
                } else if let Some(p) = param_at(i) {
                    args.get(p).cloned().unwrap_or_default()
                } else {
                    vec![PpToken::plain(body[i].clone())]
                };
                i += 1;
                let mut rest = rhs.into_iter();
                let Some(first) = rest.next() else { continue };
                if placemarker || out.is_empty() {
                    out.push(first);
                } else if let Some(lhs) = out.pop() {
                    let pasted = self.paste(lhs, first, site);
                    out.extend(pasted);
                }
                out.extend(rest);
                placemarker = false;
                continue;
            }
            if let Some(p) = param_at(i) {
                let next_is_paste = body.get(i + 1).is_some_and(|t| t.is_punct(Punct::HashHash));
                if next_is_paste {
                    let raw = args.get(p).cloned().unwrap_or_default();
                    placemarker = raw.is_empty();
                    out.extend(raw);
                } else {
                    if expanded.get(p).is_some_and(Option::is_none) {
                        let raw = args.get(p).cloned().unwrap_or_default();
                        let done = self.expand_list(raw);
                        if let Some(slot) = expanded.get_mut(p) {
                            *slot = Some(done);
                        }
                    }
                    let mut tokens = expanded.get(p).cloned().flatten().unwrap_or_default();
                    if let Some(first) = tokens.first_mut() {
                        first.token.leading_space = token.leading_space;
                    }
                    out.extend(tokens);
                    placemarker = false;
                }
                i += 1;
                continue;
            }
            out.push(PpToken::plain(token.clone()));
            placemarker = false;
            i += 1;
        }
        for t in &mut out {
            t.hide = self.hide_sets.union(t.hide, hide);
        }
        out
    }

    /// The spelling of a token as the user wrote it (splices removed).
    fn spelling(&self, token: &Token) -> String {
        match &token.kind {
            TokenKind::Ident(s) => s.clone(),
            TokenKind::Punct(p) => p.as_str().to_string(),
            TokenKind::Eof => String::new(),
            _ => {
                let raw = if token.span.file == SCRATCH_FILE {
                    self.scratch.get(token.span.range()).unwrap_or("")
                } else {
                    self.sources.snippet(token.span)
                };
                remove_splices(raw).into_owned()
            }
        }
    }

    fn add_scratch(&mut self, text: &str) -> Span {
        let start = self.scratch.len() as u32;
        self.scratch.push_str(text);
        let span = Span::new(SCRATCH_FILE, start, self.scratch.len() as u32);
        self.scratch.push('\n');
        span
    }

    /// `#x`: the argument's spelling as a string literal.
    fn stringify(&mut self, arg: &[PpToken], hash: &Token) -> Token {
        let mut text = String::new();
        for (i, t) in arg.iter().enumerate() {
            if i > 0 && (t.token.leading_space || t.token.at_line_start) {
                text.push(' ');
            }
            let spelled = self.spelling(&t.token);
            text.push_str(&spelled);
        }
        let literal = format!("\"{}\"", escape_for_string(&text));
        let span = self.add_scratch(&literal);
        let mut token = Token::new(TokenKind::Str(text), span);
        token.leading_space = hash.leading_space;
        token
    }

    /// `a ## b`: one token lexed from both spellings, or both unchanged with an error.
    fn paste(&mut self, lhs: PpToken, rhs: PpToken, site: Span) -> Vec<PpToken> {
        let left = self.spelling(&lhs.token);
        let right = self.spelling(&rhs.token);
        let text = format!("{left}{right}");
        let mut lex_diags = Diagnostics::default();
        let tokens = lex_text(&text, SCRATCH_FILE, &mut lex_diags);
        let single = tokens.len() == 2
            && tokens[0].span.start == 0
            && tokens[0].span.end as usize == text.len();
        if !single {
            self.diags.push(Diagnostic::error(
                site,
                format!(
                    "pasting \"{left}\" and \"{right}\" does not give a valid preprocessing token"
                ),
            ));
            return vec![lhs, rhs];
        }
        let span = self.add_scratch(&text);
        // A pasted pp-number may still be pasted further; complain only if it is used.
        for d in lex_diags.0 {
            self.bad_numbers.insert((span.file, span.start), Diagnostic { span: site, ..d });
        }
        let mut token =
            tokens.into_iter().next().unwrap_or_else(|| Token::new(TokenKind::Eof, span));
        token.span = span;
        token.site = span;
        token.leading_space = lhs.token.leading_space;
        vec![PpToken { token, hide: HideSet::EMPTY }]
    }

    /// `_Pragma ( "text" )` becomes a pragma token.
    fn pragma_operator(&mut self, name: PpToken) -> PpToken {
        let mut taken = Vec::new();
        let mut parts = Vec::new();
        for expected in 0..3 {
            let Some(t) = self.next_raw() else { break };
            let ok = match expected {
                0 => t.is_punct(Punct::LParen),
                1 => matches!(t.token.kind, TokenKind::Str(_)),
                _ => t.is_punct(Punct::RParen),
            };
            if !ok {
                self.pending.push(t);
                break;
            }
            parts.push(t.token.clone());
            taken.push(t);
        }
        if taken.len() != 3 {
            self.diags.push(Diagnostic::error(
                name.token.site,
                "_Pragma takes a parenthesized string literal",
            ));
            // Put back what was read after the name; the name stays, as an identifier.
            for t in taken.into_iter().rev() {
                self.pending.push(t);
            }
            return name;
        }
        let text = match &parts[1].kind {
            TokenKind::Str(s) => s.trim().to_string(),
            _ => String::new(),
        };
        let mut token = Token::new(TokenKind::Pragma(text), name.token.span.to(parts[2].span));
        token.site = name.token.site.to(parts[2].site);
        token.expansion = name.token.expansion;
        token.leading_space = name.token.leading_space;
        token.at_line_start = name.token.at_line_start;
        PpToken::plain(token)
    }

    // ---------------------------------------------------------------- directives

    /// Handles a directive whose `#` was just read; returns a pragma token if it was one.
    fn directive(&mut self, hash: Token) -> Option<Token> {
        let name_token = self.lex_from_file(false);
        if name_token.at_line_start {
            // A `#` alone on its line.
            self.unread(name_token);
            return None;
        }
        let span = hash.span.to(name_token.span);
        let Some(name) = name_token.ident().map(str::to_string) else {
            self.diags.push(Diagnostic::error(name_token.span, "invalid preprocessing directive"));
            self.read_line(true);
            return None;
        };
        match name.as_str() {
            "define" => {
                let line = self.read_line(false);
                self.define(&line, span);
            }
            "undef" => {
                let line = self.read_line(false);
                self.undef(&line, span);
            }
            "include" => self.include(span),
            "if" => {
                let line = self.read_line(false);
                let value = self.condition(line, span);
                self.open_conditional(span, value);
            }
            "ifdef" | "ifndef" => {
                let line = self.read_line(false);
                let defined = match line.first().and_then(Token::ident) {
                    Some(macro_name) => self.macros.contains_key(macro_name),
                    None => {
                        self.diags.push(Diagnostic::error(
                            span,
                            format!("macro name missing after #{name}"),
                        ));
                        false
                    }
                };
                self.extra_tokens(line.get(1..).unwrap_or(&[]), &name);
                self.open_conditional(span, defined == (name == "ifdef"));
            }
            "elif" | "else" => {
                let _ = self.read_line(true);
                // We were in a taken group, so every later group is skipped.
                match self.frames.last_mut().and_then(|f| f.conditionals.last_mut()) {
                    None => {
                        self.diags.push(Diagnostic::error(span, format!("#{name} without #if")))
                    }
                    Some(c) => {
                        let after_else = c.seen_else;
                        c.seen_else |= name == "else";
                        if after_else {
                            self.diags
                                .push(Diagnostic::error(span, format!("#{name} after #else")));
                        }
                        self.skip_group();
                    }
                }
            }
            "endif" => {
                let line = self.read_line(false);
                self.extra_tokens(&line, "endif");
                if self.frames.last_mut().and_then(|f| f.conditionals.pop()).is_none() {
                    self.diags.push(Diagnostic::error(span, "#endif without #if"));
                }
            }
            "line" => {
                let line = self.read_line(false);
                self.line_directive(line, span);
            }
            "error" | "warning" => {
                let line = self.read_line(true);
                let text = self.line_text(&line);
                let message = format!("#{name} {text}");
                let at = span.to(line.last().map(|t| t.span).unwrap_or(span));
                let d = if name == "error" {
                    Diagnostic::error(at, message)
                } else {
                    Diagnostic::warning(at, message)
                };
                self.diags.push(d);
            }
            "pragma" => {
                let line = self.read_line(true);
                let text = self.line_text(&line);
                if text == "once" {
                    if let Some(key) = self.current_file_key() {
                        self.once.insert(key);
                    }
                    return None;
                }
                let at = span.to(line.last().map(|t| t.span).unwrap_or(span));
                let mut token = Token::new(TokenKind::Pragma(text), at);
                token.at_line_start = true;
                return Some(token);
            }
            other => {
                self.diags.push(Diagnostic::error(
                    span,
                    format!("invalid preprocessing directive '#{other}'"),
                ));
                self.read_line(true);
            }
        }
        None
    }

    /// Source text of a directive line, from its first to its last token.
    fn line_text(&self, line: &[Token]) -> String {
        match (line.first(), line.last()) {
            (Some(first), Some(last)) => {
                let span = first.span.to(last.span);
                remove_splices(self.sources.snippet(span)).trim().to_string()
            }
            _ => String::new(),
        }
    }

    fn extra_tokens(&mut self, rest: &[Token], directive: &str) {
        if let Some(t) = rest.first() {
            self.diags.push(Diagnostic::warning(
                t.span,
                format!("extra tokens at end of #{directive} directive"),
            ));
        }
    }

    fn current_file_key(&self) -> Option<PathBuf> {
        let frame = self.frames.last()?;
        let source = self.sources.get(frame.file)?;
        Some(super::normalize(source.path.as_deref().unwrap_or(Path::new(&source.name))))
    }

    fn define(&mut self, line: &[Token], span: Span) {
        let mut symbols = std::mem::take(&mut self.symbols);
        let parsed = parse_definition(line, span, &mut |name| {
            let next = symbols.len() as u32;
            *symbols.entry(name.to_string()).or_insert(next)
        });
        self.symbols = symbols;
        let (def, warnings) = match parsed {
            Ok(ok) => ok,
            Err(d) => {
                self.diags.push(d);
                return;
            }
        };
        self.diags.0.extend(warnings);
        if let Some(previous) = self.macros.get(&def.name) {
            if !same_definition(previous, &def, &|t| self.spelling(t)) {
                let mut d =
                    Diagnostic::warning(def.definition, format!("'{}' macro redefined", def.name));
                if previous.definition.is_defined() {
                    d = d.with_note(previous.definition, "previous definition is here");
                }
                self.diags.push(d);
            }
        }
        self.macros.insert(def.name.clone(), Rc::new(def));
    }

    fn undef(&mut self, line: &[Token], span: Span) {
        match line.first().and_then(Token::ident) {
            Some("defined") => self
                .diags
                .push(Diagnostic::error(line[0].span, "'defined' cannot be used as a macro name")),
            Some(name) => {
                self.macros.remove(name);
            }
            None => self.diags.push(Diagnostic::error(span, "macro name missing after #undef")),
        }
        self.extra_tokens(line.get(1..).unwrap_or(&[]), "undef");
    }

    /// Evaluates an `#if`/`#elif` line.
    fn condition(&mut self, line: Vec<Token>, span: Span) -> bool {
        // `defined` is resolved before expansion, so its operand is not expanded.
        let mut tokens = Vec::with_capacity(line.len());
        let mut i = 0;
        while i < line.len() {
            let t = &line[i];
            if t.ident() == Some("defined") {
                let paren = line.get(i + 1).is_some_and(|n| n.is_punct(Punct::LParen));
                let name_at = if paren { i + 2 } else { i + 1 };
                let closed = !paren || line.get(i + 3).is_some_and(|n| n.is_punct(Punct::RParen));
                if let (Some(name), true) = (line.get(name_at).and_then(Token::ident), closed) {
                    let value = self.macros.contains_key(name) as u64;
                    let end = if paren { i + 3 } else { name_at };
                    let kind = TokenKind::Int {
                        value,
                        suffix: Default::default(),
                        radix: crate::token::Radix::Decimal,
                    };
                    let mut one = Token::new(kind, t.span.to(line[end].span));
                    one.leading_space = t.leading_space;
                    tokens.push(PpToken::plain(one));
                    i = end + 1;
                    continue;
                }
            }
            tokens.push(PpToken::plain(t.clone()));
            i += 1;
        }
        let expanded: Vec<Token> = self.expand_list(tokens).into_iter().map(|t| t.token).collect();
        for t in &expanded {
            self.check_number(t);
        }
        let macros = &self.macros;
        super::condition::evaluate(
            &expanded,
            span,
            &|name| macros.contains_key(name),
            &mut self.diags,
        )
    }

    fn open_conditional(&mut self, span: Span, value: bool) {
        if let Some(frame) = self.frames.last_mut() {
            frame.conditionals.push(Conditional { span, taken: value, seen_else: false });
        }
        if !value {
            self.skip_group();
        }
    }

    /// Skips lines until a group of the innermost conditional is taken or it ends. Skipped
    /// lines are not tokenised beyond their first token (and directive name).
    fn skip_group(&mut self) {
        let mut depth = 0u32;
        loop {
            let t = self.lex_from_file(true);
            if t.kind == TokenKind::Eof {
                self.unread(t);
                return;
            }
            if !(t.at_line_start && t.is_punct(Punct::Hash)) {
                self.skip_line();
                continue;
            }
            let name_token = self.lex_from_file(true);
            if name_token.at_line_start {
                self.unread(name_token);
                continue;
            }
            let span = t.span.to(name_token.span);
            match name_token.ident() {
                Some("if" | "ifdef" | "ifndef") => {
                    depth += 1;
                    self.skip_line();
                }
                Some("endif") if depth > 0 => {
                    depth -= 1;
                    self.skip_line();
                }
                Some("endif") => {
                    let line = self.read_line(true);
                    self.extra_tokens(&line, "endif");
                    if let Some(frame) = self.frames.last_mut() {
                        frame.conditionals.pop();
                    }
                    return;
                }
                Some(name @ ("elif" | "else")) if depth == 0 => {
                    let is_else = name == "else";
                    let (taken, after_else) =
                        match self.frames.last().and_then(|f| f.conditionals.last()) {
                            Some(c) => (c.taken, c.seen_else),
                            None => (true, false),
                        };
                    if after_else {
                        self.diags.push(Diagnostic::error(span, format!("#{name} after #else")));
                    }
                    let take = if taken {
                        self.skip_line();
                        false
                    } else if is_else {
                        let line = self.read_line(true);
                        self.extra_tokens(&line, "else");
                        true
                    } else {
                        let line = self.read_line(false);
                        self.condition(line, span)
                    };
                    if let Some(c) = self.frames.last_mut().and_then(|f| f.conditionals.last_mut())
                    {
                        c.seen_else |= is_else;
                        c.taken |= take;
                    }
                    if take {
                        return;
                    }
                }
                _ => self.skip_line(),
            }
        }
    }

    fn line_directive(&mut self, line: Vec<Token>, span: Span) {
        let expanded: Vec<Token> = self
            .expand_list(line.iter().cloned().map(PpToken::plain).collect())
            .into_iter()
            .map(|t| t.token)
            .collect();
        let number = match expanded.first().map(|t| &t.kind) {
            Some(TokenKind::Int {
                value,
                suffix,
                radix: crate::token::Radix::Decimal | crate::token::Radix::Octal,
            }) if *suffix == Default::default() && (1..=2147483647).contains(value) => {
                *value as u32
            }
            _ => {
                self.diags.push(Diagnostic::error(
                    span,
                    "#line directive requires a positive integer argument",
                ));
                return;
            }
        };
        let name = match expanded.get(1).map(|t| &t.kind) {
            Some(TokenKind::Str(s)) => Some(s.clone()),
            None => None,
            Some(_) => {
                self.diags.push(Diagnostic::error(span, "invalid filename in #line directive"));
                return;
            }
        };
        self.extra_tokens(expanded.get(2..).unwrap_or(&[]), "line");
        let Some(frame) = self.frames.last() else { return };
        let end = line.last().map(|t| t.span.end as usize).unwrap_or(span.end as usize);
        let next_line = frame.text.get(end..).and_then(|rest| rest.find('\n')).map(|i| end + i + 1);
        let offset = next_line.unwrap_or(frame.text.len()) as u32;
        let file = frame.file;
        self.sources.add_line_directive(file, offset, number, name);
    }

    fn include(&mut self, span: Span) {
        let header = match self.frames.last_mut() {
            Some(frame) if frame.peeked.is_none() => frame.lexer.scan_header_name(&frame.text),
            _ => None,
        };
        let (name, angled, at) = match header {
            Some(h) => {
                let rest = self.read_line(false);
                self.extra_tokens(&rest, "include");
                (h.name, h.angled, span.to(h.span))
            }
            None => {
                let line = self.read_line(false);
                let at = span.to(line.last().map(|t| t.span).unwrap_or(span));
                let expanded = self.expand_list(line.into_iter().map(PpToken::plain).collect());
                match self.computed_header_name(&expanded) {
                    Some((name, angled)) => (name, angled, at),
                    None => {
                        self.diags.push(Diagnostic::error(
                            at,
                            "expected \"FILENAME\" or <FILENAME> after #include",
                        ));
                        return;
                    }
                }
            }
        };
        if self.frames.len() > MAX_INCLUDE_DEPTH {
            self.diags.push(Diagnostic::error(at, "#include nested too deeply"));
            return;
        }
        let mut candidates = Vec::new();
        let requested = Path::new(&name);
        if requested.is_absolute() {
            candidates.push(requested.to_path_buf());
        } else {
            if !angled {
                if let Some(frame) = self.frames.last() {
                    candidates.push(frame.dir.join(requested));
                }
            }
            candidates.extend(self.include_dirs.iter().map(|d| d.join(requested)));
        }
        for path in candidates {
            // `a/../b.h` and `b.h` are one file for `#pragma once` and in diagnostics.
            let path = super::normalize(&path);
            if self.once.contains(&path) {
                return;
            }
            if let Some(text) = self.loader.load(&path) {
                let file =
                    self.sources.add(SourceFile::new(path.display().to_string(), Some(path), text));
                self.included_files.push(file);
                self.push_file(file);
                return;
            }
        }
        let d = Diagnostic::error(at, format!("'{name}' file not found"));
        let d = if self.include_dirs.is_empty() && angled {
            d.with_help("<…> headers are searched in -I directories only")
        } else {
            d
        };
        self.diags.push(d);
    }

    /// `#include MACRO`: the expansion must be a string literal or `<` … `>`.
    fn computed_header_name(&self, tokens: &[PpToken]) -> Option<(String, bool)> {
        let first = tokens.first()?;
        match &first.token.kind {
            TokenKind::Str(s) => Some((s.clone(), false)),
            TokenKind::Punct(Punct::Lt) => {
                let mut name = String::new();
                for (i, t) in tokens.iter().enumerate().skip(1) {
                    if t.is_punct(Punct::Gt) {
                        return Some((name, true));
                    }
                    if i > 1 && t.token.leading_space {
                        name.push(' ');
                    }
                    name.push_str(&self.spelling(&t.token));
                }
                None
            }
            _ => None,
        }
    }
}

/// Escapes `"` and `\` for the inside of a string literal.
fn escape_for_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    for c in text.chars() {
        if matches!(c, '"' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}
