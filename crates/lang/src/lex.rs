//! The lexer: C99 preprocessing tokens of one source text.
//!
//! The lexer works on bytes and allocates only for the text of identifiers and string literals.
//! It never expands macros and never looks at directives: the preprocessor pulls tokens one at a
//! time through [`Lexer::next_token`], which lets it lex skipped `#if` groups quietly and read
//! `#include <…>` header names raw. [`lex`] and [`lex_str`] lex a whole text at once.
//!
//! Backslash-newline splices are removed on the fly: the cursor never rests on a splice, so a
//! splice may sit anywhere, even inside an identifier or a punctuator. Spans always cover the
//! physical bytes, splices included.

use crate::diag::{Diagnostic, Diagnostics};
use crate::span::{FileId, SourceMap, Span};
use crate::token::{FloatSuffix, IntSuffix, Punct, Radix, Token, TokenKind};

/// Lexes one file of `sources` completely; the result ends with a [`TokenKind::Eof`] token.
/// An unknown `file` lexes as empty text.
pub fn lex(sources: &SourceMap, file: FileId, diags: &mut Diagnostics) -> Vec<Token> {
    let text = sources.get(file).map(|f| f.text.as_str()).unwrap_or("");
    lex_text(text, file, diags)
}

/// Lexes `text` as if it were the contents of `file`; ends with [`TokenKind::Eof`].
pub fn lex_text(text: &str, file: FileId, diags: &mut Diagnostics) -> Vec<Token> {
    let mut lexer = Lexer::new(file);
    let mut out = Vec::with_capacity(text.len() / 4 + 1);
    loop {
        let token = lexer.next_token(text, Some(diags));
        let at_end = token.kind == TokenKind::Eof;
        out.push(token);
        if at_end {
            return out;
        }
    }
}

/// Lexes an in-memory snippet as `FileId(0)`, dropping diagnostics; for tests and debugging.
pub fn lex_str(text: &str) -> Vec<Token> {
    lex_text(text, FileId(0), &mut Diagnostics::default())
}

/// Renders tokens as text: single spaces where a token has `leading_space`, newlines where it is
/// at the start of a line (except the first), nothing for the final `Eof`.
pub fn tokens_to_string(tokens: &[Token]) -> String {
    let mut out = String::new();
    for token in tokens {
        let text = match &token.kind {
            TokenKind::Eof => continue,
            kind => display_kind(kind),
        };
        let glued = match (out.chars().last(), text.chars().next()) {
            (Some(a), Some(b)) => would_merge(a, b),
            _ => false,
        };
        if !out.is_empty() && (token.leading_space || token.at_line_start || glued) {
            out.push(' ');
        }
        out.push_str(&text);
    }
    out
}

/// Whether two tokens written without a space between them could lex differently (`0` `5`,
/// `+` `+`); `tokens_to_string` separates them so that its output reads back the same.
fn would_merge(last: char, first: char) -> bool {
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '.';
    let op = |c: char| "+-*/%<>=!&|^#.:".contains(c);
    (word(last) && word(first)) || (op(last) && op(first))
}

/// A readable spelling of a token kind, re-escaping literals (not necessarily the original
/// spelling: `0x10` shows as `16`).
pub fn display_kind(kind: &TokenKind) -> String {
    match kind {
        TokenKind::Ident(s) => s.clone(),
        TokenKind::Int { value, suffix, .. } => {
            let mut s = value.to_string();
            if suffix.unsigned {
                s.push('u');
            }
            if suffix.long {
                s.push('l');
            }
            s
        }
        TokenKind::Float { value, suffix } => {
            let mut s = format!("{value:?}");
            match suffix {
                FloatSuffix::None => {}
                FloatSuffix::F => s.push('f'),
                FloatSuffix::H => s.push('h'),
            }
            s
        }
        TokenKind::Char(v) => format!("'{}'", escape_char_value(*v)),
        TokenKind::Str(s) => format!("\"{}\"", escape_str(s)),
        TokenKind::Punct(p) => p.as_str().to_string(),
        TokenKind::Pragma(text) => format!("#pragma {text}"),
        TokenKind::Eof => String::new(),
    }
}

fn escape_char_value(v: i64) -> String {
    let c = u32::try_from(v & 0xff).ok().and_then(char::from_u32).unwrap_or('?');
    match c {
        '\'' => "\\'".to_string(),
        '\\' => "\\\\".to_string(),
        '\n' => "\\n".to_string(),
        c if c.is_ascii_graphic() || c == ' ' => c.to_string(),
        _ => format!("\\x{:02x}", v & 0xff),
    }
}

fn escape_str(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c => out.push(c),
        }
    }
    out
}

/// The position of a lexer in one text. It does not borrow the text, so that the preprocessor
/// can keep a lexer per open file while it adds included files to the source map.
#[derive(Clone, Debug)]
pub struct Lexer {
    file: FileId,
    pos: usize,
    at_line_start: bool,
    /// Keep malformed-number errors in [`Lexer::deferred`] instead of reporting them: C only
    /// complains about a pp-number like `0x` or `1e` if it survives preprocessing (it may be
    /// an operand of `##`).
    pub defer_number_errors: bool,
    /// Malformed-number errors held back (see `defer_number_errors`), located at the token.
    pub deferred: Vec<Diagnostic>,
}

/// `#include` operand read raw, before tokenisation: `"name"` or `<name>`.
#[derive(Clone, Debug, PartialEq)]
pub struct HeaderName {
    pub name: String,
    /// `<…>` (searched in include directories only) rather than `"…"`.
    pub angled: bool,
    pub span: Span,
}

impl Lexer {
    pub fn new(file: FileId) -> Self {
        Lexer {
            file,
            pos: 0,
            at_line_start: true,
            defer_number_errors: false,
            deferred: Vec::new(),
        }
    }

    /// A lexer that holds malformed-number errors back (see `defer_number_errors`).
    pub fn deferring_number_errors(file: FileId) -> Self {
        Lexer { defer_number_errors: true, ..Lexer::new(file) }
    }

    /// Byte offset of the next unread character.
    pub fn offset(&self) -> usize {
        self.pos
    }

    /// The next token of `text` (always the same text for one lexer). With `diags` `None` the
    /// lexer is quiet: used for skipped groups, where C tolerates stray quotes.
    pub fn next_token(&mut self, text: &str, diags: Option<&mut Diagnostics>) -> Token {
        let defer = self.defer_number_errors && diags.is_some();
        let mut scanner = Scanner {
            src: text,
            text: text.as_bytes(),
            pos: self.pos,
            token_start: self.pos,
            line_start: self.at_line_start,
            leading_space: false,
            file: self.file,
            diags,
            deferred: None,
        };
        if defer {
            scanner.deferred = Some(&mut self.deferred);
        }
        scanner.leading_space = scanner.skip_whitespace();
        let kind = scanner.token();
        let start = scanner.token_start;
        let leading_space = scanner.leading_space;
        self.at_line_start = scanner.line_start;
        self.pos = scanner.pos;
        // End of input is reported where clang reports it: on the last line of text, not on the
        // empty "line" after a final newline, so "expected '}'" points at the file's last line.
        let start = if kind == TokenKind::Eof
            && start > 0
            && text.as_bytes().get(start - 1) == Some(&b'\n')
        {
            start - 1
        } else {
            start
        };
        let end = (self.pos).max(start);
        let mut token = Token::new(kind, Span::new(self.file, start as u32, end as u32));
        token.leading_space = leading_space;
        token.at_line_start = self.at_line_start || token.kind == TokenKind::Eof;
        self.at_line_start = false;
        token
    }

    /// Whether only whitespace and comments remain before the end of the current line, so that
    /// the next token (if any) starts a new line. Reads nothing.
    pub fn at_end_of_line(&self, text: &str) -> bool {
        let mut scanner = Scanner {
            src: text,
            text: text.as_bytes(),
            pos: self.pos,
            token_start: self.pos,
            line_start: false,
            leading_space: false,
            file: self.file,
            diags: None,
            deferred: None,
        };
        scanner.skip_whitespace();
        scanner.line_start || scanner.at_end()
    }

    /// Reads an `#include` operand `"…"` or `<…>` raw, if the rest of the line starts with one.
    /// Leaves the lexer untouched otherwise.
    pub fn scan_header_name(&mut self, text: &str) -> Option<HeaderName> {
        let bytes = text.as_bytes();
        let mut p = self.pos;
        while matches!(bytes.get(p), Some(b' ' | b'\t')) {
            p += 1;
        }
        let close = match bytes.get(p) {
            Some(b'"') => b'"',
            Some(b'<') => b'>',
            _ => return None,
        };
        let start = p;
        let mut q = p + 1;
        loop {
            match bytes.get(q) {
                Some(&b) if b == close => break,
                Some(b'\n') | None => return None,
                Some(_) => q += 1,
            }
        }
        let name = text.get(start + 1..q)?.to_string();
        self.pos = q + 1;
        self.at_line_start = false;
        Some(HeaderName {
            name,
            angled: close == b'>',
            span: Span::new(self.file, start as u32, self.pos as u32),
        })
    }

    /// Skips to the start of the next line without producing tokens, as fast as possible; used
    /// for lines in skipped groups. Comments, literals and splices keep their meaning so that a
    /// `/* … */` spanning lines or a `'` inside a literal does not confuse the line structure.
    pub fn skip_line(&mut self, text: &str) {
        let bytes = text.as_bytes();
        let mut p = self.pos;
        while p < bytes.len() {
            match bytes[p] {
                b'\n' => {
                    p += 1;
                    self.pos = p;
                    self.at_line_start = true;
                    return;
                }
                b'\\' => p += splice_len(bytes, p).max(1),
                b'/' if bytes.get(p + 1) == Some(&b'*') => {
                    p += 2;
                    while p < bytes.len() && !(bytes[p] == b'*' && bytes.get(p + 1) == Some(&b'/'))
                    {
                        p += 1;
                    }
                    p = (p + 2).min(bytes.len());
                }
                b'/' if bytes.get(p + 1) == Some(&b'/') => {
                    while p < bytes.len() && bytes[p] != b'\n' {
                        p += splice_len(bytes, p).max(1);
                    }
                }
                quote @ (b'"' | b'\'') => {
                    p += 1;
                    while p < bytes.len() && bytes[p] != quote && bytes[p] != b'\n' {
                        if bytes[p] == b'\\' {
                            p += splice_len(bytes, p).max(2);
                        } else {
                            p += 1;
                        }
                    }
                    if p < bytes.len() && bytes[p] == quote {
                        p += 1;
                    }
                }
                _ => p += 1,
            }
        }
        self.pos = bytes.len();
        self.at_line_start = true;
    }
}

/// Length of a backslash-newline splice at `p` (`\` `\n` or `\` `\r\n`), or 0.
fn splice_len(bytes: &[u8], p: usize) -> usize {
    if bytes.get(p) != Some(&b'\\') {
        return 0;
    }
    match bytes.get(p + 1) {
        Some(b'\n') => 2,
        Some(b'\r') if bytes.get(p + 2) == Some(&b'\n') => 3,
        _ => 0,
    }
}

/// Removes backslash-newline splices from a token's physical text.
pub fn remove_splices(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains('\\') {
        return std::borrow::Cow::Borrowed(text);
    }
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut p = 0;
    while p < bytes.len() {
        let n = splice_len(bytes, p);
        if n > 0 {
            p += n;
        } else {
            out.push(bytes[p]);
            p += 1;
        }
    }
    std::borrow::Cow::Owned(String::from_utf8_lossy(&out).into_owned())
}

/// One token's worth of scanning state.
struct Scanner<'a, 'd> {
    /// The same text as `text`, for slicing out token text without re-validating UTF-8.
    src: &'a str,
    text: &'a [u8],
    pos: usize,
    /// Where the token being scanned begins (after whitespace).
    token_start: usize,
    /// A newline was skipped since the previous token.
    line_start: bool,
    /// Whitespace or a comment was skipped before this token.
    leading_space: bool,
    file: FileId,
    diags: Option<&'d mut Diagnostics>,
    /// Where malformed-number errors go when they are deferred.
    deferred: Option<&'d mut Vec<Diagnostic>>,
}

impl Scanner<'_, '_> {
    fn at_end(&self) -> bool {
        self.pos >= self.text.len()
    }

    /// The current byte, 0 at the end of the text.
    fn cur(&self) -> u8 {
        self.text.get(self.pos).copied().unwrap_or(0)
    }

    fn skip_splices_at(&self, mut p: usize) -> usize {
        loop {
            let n = splice_len(self.text, p);
            if n == 0 {
                return p;
            }
            p += n;
        }
    }

    /// Advances one byte and over any splices that follow.
    fn bump(&mut self) {
        self.pos += 1;
        if self.text.get(self.pos) == Some(&b'\\') {
            self.pos = self.skip_splices_at(self.pos);
        }
    }

    /// The byte `n` logical characters ahead (splices skipped), 0 past the end.
    fn peek(&self, n: usize) -> u8 {
        let mut p = self.pos;
        for _ in 0..n {
            p = self.skip_splices_at(p + 1);
        }
        self.text.get(p).copied().unwrap_or(0)
    }

    fn report(&mut self, d: Diagnostic) {
        if let Some(diags) = self.diags.as_deref_mut() {
            diags.push(d);
        }
    }

    fn error(&mut self, start: usize, end: usize, message: impl Into<String>) {
        let span = Span::new(self.file, start as u32, end as u32);
        self.report(Diagnostic::error(span, message));
    }

    fn warning(&mut self, start: usize, end: usize, message: impl Into<String>) {
        let span = Span::new(self.file, start as u32, end as u32);
        self.report(Diagnostic::warning(span, message));
    }

    /// Skips whitespace, comments and splices; returns whether any was skipped.
    fn skip_whitespace(&mut self) -> bool {
        let mut skipped = false;
        while let Some(&b) = self.text.get(self.pos) {
            match b {
                b' ' | b'\t' | 0x0b | 0x0c | b'\r' => self.pos += 1,
                b'\n' => {
                    self.pos += 1;
                    self.line_start = true;
                }
                b'\\' if splice_len(self.text, self.pos) > 0 => {
                    self.pos = self.skip_splices_at(self.pos);
                    continue;
                }
                b'/' if self.peek(1) == b'/' => {
                    while let Some(&c) = self.text.get(self.pos) {
                        if c == b'\n' {
                            break;
                        }
                        self.pos += splice_len(self.text, self.pos).max(1);
                    }
                }
                b'/' if self.peek(1) == b'*' => {
                    let start = self.pos;
                    self.bump();
                    self.bump();
                    loop {
                        if self.at_end() {
                            self.error(start, start + 2, "unterminated comment");
                            break;
                        }
                        if self.cur() == b'*' {
                            self.bump();
                            if self.cur() == b'/' {
                                self.pos += 1;
                                break;
                            }
                        } else {
                            self.pos += 1;
                        }
                    }
                }
                _ => break,
            }
            skipped = true;
        }
        skipped
    }
}

impl Scanner<'_, '_> {
    /// Scans one token at the cursor (whitespace already skipped); bad characters are reported
    /// and skipped, so the result is always a real token or `Eof`.
    fn token(&mut self) -> TokenKind {
        loop {
            self.token_start = self.pos;
            if self.at_end() {
                return TokenKind::Eof;
            }
            let b = self.cur();
            let kind = match b {
                b'a'..=b'z' | b'A'..=b'Z' | b'_' => Some(self.identifier()),
                b'0'..=b'9' => Some(self.number()),
                b'.' if self.peek(1).is_ascii_digit() => Some(self.number()),
                b'\'' => Some(self.char_constant()),
                b'"' => Some(self.string_literal()),
                _ => self.punct().map(TokenKind::Punct),
            };
            if let Some(kind) = kind {
                return kind;
            }
            // Not a token: report it, skip the whole UTF-8 character, and go on.
            let start = self.pos;
            let width = utf8_width(b);
            self.pos = (self.pos + width).min(self.text.len());
            while !self.at_end() && self.cur() & 0xc0 == 0x80 {
                self.pos += 1;
            }
            let shown = String::from_utf8_lossy(&self.text[start..self.pos]).into_owned();
            self.error(
                start,
                self.pos,
                format!("invalid character '{}' in source", shown.escape_debug()),
            );
            self.skip_whitespace();
            self.leading_space = true;
        }
    }

    /// The physical text of the current token, splices removed.
    fn token_text(&self) -> std::borrow::Cow<'_, str> {
        // Token boundaries are character boundaries, so slicing the `str` needs no validation.
        match self.src.get(self.token_start..self.pos) {
            Some(s) => remove_splices(s),
            None => std::borrow::Cow::Owned(
                String::from_utf8_lossy(&self.text[self.token_start..self.pos]).into_owned(),
            ),
        }
    }

    fn identifier(&mut self) -> TokenKind {
        while matches!(self.cur(), b'a'..=b'z' | b'A'..=b'Z' | b'_' | b'0'..=b'9') {
            self.bump();
        }
        TokenKind::Ident(self.token_text().into_owned())
    }

    /// A C99 pp-number, then converted to an integer or floating constant.
    fn number(&mut self) -> TokenKind {
        self.bump();
        loop {
            let c = self.cur();
            if c.is_ascii_alphanumeric() || c == b'_' || c == b'.' {
                self.bump();
                if matches!(c, b'e' | b'E' | b'p' | b'P') && matches!(self.cur(), b'+' | b'-') {
                    self.bump();
                }
            } else {
                break;
            }
        }
        let text = self.token_text().into_owned();
        match parse_number(&text) {
            Ok(kind) => kind,
            Err(message) => {
                let (start, end) = (self.token_start, self.pos);
                let span = Span::new(self.file, start as u32, end as u32);
                match self.deferred.as_deref_mut() {
                    Some(deferred) if self.diags.is_some() => {
                        deferred.push(Diagnostic::error(span, message))
                    }
                    _ => self.error(start, end, message),
                }
                TokenKind::Int { value: 0, suffix: IntSuffix::default(), radix: Radix::Decimal }
            }
        }
    }

    /// Reads one escape sequence after its backslash; returns the code value.
    fn escape(&mut self) -> u32 {
        let start = self.pos;
        self.bump(); // the backslash
        let c = self.cur();
        let simple = match c {
            b'n' => Some(10),
            b't' => Some(9),
            b'r' => Some(13),
            b'a' => Some(7),
            b'b' => Some(8),
            b'f' => Some(12),
            b'v' => Some(11),
            b'\\' | b'\'' | b'"' | b'?' => Some(c as u32),
            _ => None,
        };
        if let Some(v) = simple {
            self.bump();
            return v;
        }
        match c {
            b'0'..=b'7' => {
                let mut v = 0u32;
                for _ in 0..3 {
                    match self.cur() {
                        d @ b'0'..=b'7' => {
                            v = v * 8 + (d - b'0') as u32;
                            self.bump();
                        }
                        _ => break,
                    }
                }
                v
            }
            b'x' => {
                self.bump();
                let mut v = 0u32;
                let mut digits = 0;
                while let Some(d) = (self.cur() as char).to_digit(16) {
                    v = v.wrapping_mul(16).wrapping_add(d);
                    digits += 1;
                    self.bump();
                }
                if digits == 0 {
                    self.error(start, self.pos, "\\x used with no following hex digits");
                } else if digits > 8 {
                    self.error(start, self.pos, "hex escape sequence out of range");
                }
                v
            }
            0 | b'\n' => {
                self.error(start, self.pos, "incomplete escape sequence");
                0
            }
            other => {
                self.bump();
                self.warning(
                    start,
                    self.pos,
                    format!("unknown escape sequence '\\{}'", other as char),
                );
                other as u32
            }
        }
    }

    /// Reads one source character (a full UTF-8 sequence) of a literal; returns its code point.
    fn literal_char(&mut self) -> u32 {
        let b = self.cur();
        if b < 0x80 {
            self.bump();
            return b as u32;
        }
        let start = self.pos;
        let end = (start + utf8_width(b)).min(self.text.len());
        self.pos = end;
        let c = std::str::from_utf8(&self.text[start..end]).ok().and_then(|s| s.chars().next());
        if self.text.get(self.pos) == Some(&b'\\') {
            self.pos = self.skip_splices_at(self.pos);
        }
        c.map(|c| c as u32).unwrap_or(0xfffd)
    }

    fn char_constant(&mut self) -> TokenKind {
        self.bump();
        let mut values: Vec<u32> = Vec::new();
        loop {
            match self.cur() {
                b'\'' => {
                    self.bump();
                    break;
                }
                b'\n' | 0 if self.at_end() || self.cur() == b'\n' => {
                    let (s, e) = (self.token_start, self.pos);
                    self.error(s, e, "missing terminating ' character");
                    break;
                }
                b'\\' => values.push(self.escape()),
                _ => values.push(self.literal_char()),
            }
        }
        let (s, e) = (self.token_start, self.pos);
        match values.as_slice() {
            [] => {
                self.error(s, e, "empty character constant");
                TokenKind::Char(0)
            }
            // Plain `char` is signed in OpenCL C: `'\xff'` is -1.
            [v] if *v < 256 => TokenKind::Char(*v as u8 as i8 as i64),
            [v] => TokenKind::Char(*v as i64),
            many => {
                self.warning(s, e, "multi-character character constant");
                let v = many.iter().fold(0u32, |acc, &c| (acc << 8) | (c & 0xff));
                TokenKind::Char(v as i32 as i64)
            }
        }
    }

    fn string_literal(&mut self) -> TokenKind {
        self.bump();
        let mut value = String::new();
        loop {
            match self.cur() {
                b'"' => {
                    self.bump();
                    break;
                }
                b'\n' | 0 if self.at_end() || self.cur() == b'\n' => {
                    let (s, e) = (self.token_start, self.pos);
                    self.error(s, e, "missing terminating '\"' character");
                    break;
                }
                b'\\' => {
                    let v = self.escape();
                    value.push(char::from_u32(v).unwrap_or('\u{fffd}'));
                }
                _ => {
                    let v = self.literal_char();
                    value.push(char::from_u32(v).unwrap_or('\u{fffd}'));
                }
            }
        }
        TokenKind::Str(value)
    }

    /// The longest punctuator at the cursor, if any.
    fn punct(&mut self) -> Option<Punct> {
        use Punct::*;
        let b1 = self.peek(1);
        let (p, len) = match self.cur() {
            b'.' if b1 == b'.' && self.peek(2) == b'.' => (Ellipsis, 3),
            b'.' => (Dot, 1),
            b'<' if b1 == b'<' && self.peek(2) == b'=' => (ShlAssign, 3),
            b'<' if b1 == b'<' => (Shl, 2),
            b'<' if b1 == b'=' => (Le, 2),
            b'<' => (Lt, 1),
            b'>' if b1 == b'>' && self.peek(2) == b'=' => (ShrAssign, 3),
            b'>' if b1 == b'>' => (Shr, 2),
            b'>' if b1 == b'=' => (Ge, 2),
            b'>' => (Gt, 1),
            b'-' if b1 == b'>' => (Arrow, 2),
            b'-' if b1 == b'-' => (Dec, 2),
            b'-' if b1 == b'=' => (SubAssign, 2),
            b'-' => (Minus, 1),
            b'+' if b1 == b'+' => (Inc, 2),
            b'+' if b1 == b'=' => (AddAssign, 2),
            b'+' => (Plus, 1),
            b'=' if b1 == b'=' => (EqEq, 2),
            b'=' => (Assign, 1),
            b'!' if b1 == b'=' => (Ne, 2),
            b'!' => (Bang, 1),
            b'&' if b1 == b'&' => (AndAnd, 2),
            b'&' if b1 == b'=' => (AndAssign, 2),
            b'&' => (Amp, 1),
            b'|' if b1 == b'|' => (OrOr, 2),
            b'|' if b1 == b'=' => (OrAssign, 2),
            b'|' => (Pipe, 1),
            b'*' if b1 == b'=' => (MulAssign, 2),
            b'*' => (Star, 1),
            b'/' if b1 == b'=' => (DivAssign, 2),
            b'/' => (Slash, 1),
            b'%' if b1 == b'=' => (RemAssign, 2),
            b'%' => (Percent, 1),
            b'^' if b1 == b'=' => (XorAssign, 2),
            b'^' => (Caret, 1),
            b'#' if b1 == b'#' => (HashHash, 2),
            b'#' => (Hash, 1),
            b'(' => (LParen, 1),
            b')' => (RParen, 1),
            b'[' => (LBracket, 1),
            b']' => (RBracket, 1),
            b'{' => (LBrace, 1),
            b'}' => (RBrace, 1),
            b'~' => (Tilde, 1),
            b'?' => (Question, 1),
            b':' => (Colon, 1),
            b';' => (Semi, 1),
            b',' => (Comma, 1),
            _ => return None,
        };
        for _ in 0..len {
            self.bump();
        }
        Some(p)
    }
}

/// Number of bytes of the UTF-8 sequence that starts with `b` (1 for stray bytes).
fn utf8_width(b: u8) -> usize {
    match b {
        0xc0..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf7 => 4,
        _ => 1,
    }
}

/// Converts a pp-number to an integer or floating constant, or says why it is malformed.
pub fn parse_number(text: &str) -> Result<TokenKind, String> {
    let bytes = text.as_bytes();
    let hex = bytes.len() >= 2 && bytes[0] == b'0' && matches!(bytes[1], b'x' | b'X');
    let is_float = if hex {
        bytes.iter().any(|&b| matches!(b, b'p' | b'P' | b'.'))
    } else {
        bytes.iter().any(|&b| matches!(b, b'.' | b'e' | b'E'))
    };
    if is_float {
        if hex {
            parse_hex_float(text)
        } else {
            parse_decimal_float(text)
        }
    } else {
        parse_integer(text)
    }
}

fn parse_integer(text: &str) -> Result<TokenKind, String> {
    let bytes = text.as_bytes();
    let (radix, digits_start) =
        if bytes.len() >= 2 && bytes[0] == b'0' && matches!(bytes[1], b'x' | b'X') {
            (Radix::Hex, 2)
        } else if bytes.len() >= 2 && bytes[0] == b'0' && bytes[1].is_ascii_digit() {
            (Radix::Octal, 1)
        } else {
            (Radix::Decimal, 0)
        };
    let base: u64 = match radix {
        Radix::Hex => 16,
        Radix::Octal => 8,
        Radix::Decimal => 10,
    };
    let mut value: u64 = 0;
    let mut overflow = false;
    let mut end = digits_start;
    while let Some(&b) = bytes.get(end) {
        let digit = match (radix, b) {
            (Radix::Hex, _) => match (b as char).to_digit(16) {
                Some(d) => d as u64,
                None => break,
            },
            (_, b'0'..=b'9') => (b - b'0') as u64,
            _ => break,
        };
        if digit >= base {
            return Err(format!("invalid digit '{}' in octal constant", b as char));
        }
        match value.checked_mul(base).and_then(|v| v.checked_add(digit)) {
            Some(v) => value = v,
            None => overflow = true,
        }
        end += 1;
    }
    if end == digits_start {
        return Err(format!("invalid integer constant '{text}'"));
    }
    let suffix = parse_int_suffix(&text[end..])
        .ok_or_else(|| format!("invalid suffix '{}' on integer constant", &text[end..]))?;
    if overflow {
        return Err(format!("integer constant '{text}' is too large"));
    }
    Ok(TokenKind::Int { value, suffix, radix })
}

/// `u`, `l`, `ll` in any order and case (`ll` must not mix cases).
fn parse_int_suffix(s: &str) -> Option<IntSuffix> {
    let mut suffix = IntSuffix::default();
    let mut rest = s;
    let mut seen_long = false;
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix(['u', 'U']) {
            if suffix.unsigned {
                return None;
            }
            suffix.unsigned = true;
            rest = r;
        } else if let Some(r) = rest.strip_prefix("ll").or_else(|| rest.strip_prefix("LL")) {
            if seen_long {
                return None;
            }
            seen_long = true;
            rest = r;
        } else if let Some(r) = rest.strip_prefix(['l', 'L']) {
            if seen_long {
                return None;
            }
            seen_long = true;
            rest = r;
        } else {
            return None;
        }
    }
    suffix.long = seen_long;
    Some(suffix)
}

/// Splits a trailing `f`/`F`/`h`/`H` suffix off a floating constant.
fn split_float_suffix(text: &str) -> (&str, FloatSuffix) {
    match text.as_bytes().last() {
        Some(b'f' | b'F') => (&text[..text.len() - 1], FloatSuffix::F),
        Some(b'h' | b'H') => (&text[..text.len() - 1], FloatSuffix::H),
        _ => (text, FloatSuffix::None),
    }
}

fn parse_decimal_float(text: &str) -> Result<TokenKind, String> {
    let (body, suffix) = split_float_suffix(text);
    let bytes = body.as_bytes();
    let mut i = 0;
    let mut digits = 0;
    while i < bytes.len() && bytes[i].is_ascii_digit() {
        i += 1;
        digits += 1;
    }
    if bytes.get(i) == Some(&b'.') {
        i += 1;
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            i += 1;
            digits += 1;
        }
    }
    if digits == 0 {
        return Err(format!("invalid floating constant '{text}'"));
    }
    if matches!(bytes.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(bytes.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let exp_start = i;
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            i += 1;
        }
        if i == exp_start {
            return Err(format!("exponent has no digits in '{text}'"));
        }
    }
    if i != bytes.len() {
        return Err(format!("invalid suffix '{}' on floating constant", &text[i..]));
    }
    let value: f64 = body.parse().map_err(|_| format!("invalid floating constant '{text}'"))?;
    Ok(TokenKind::Float { value, suffix })
}

fn parse_hex_float(text: &str) -> Result<TokenKind, String> {
    let (body, suffix) = split_float_suffix(text);
    let bytes = body.as_bytes();
    let mut i = 2;
    let mut mantissa: u64 = 0;
    let mut sticky = false;
    let mut exponent: i64 = 0;
    let mut digits = 0;
    let mut seen_point = false;
    while let Some(&b) = bytes.get(i) {
        if b == b'.' && !seen_point {
            seen_point = true;
            i += 1;
            continue;
        }
        let Some(d) = (b as char).to_digit(16) else { break };
        digits += 1;
        if mantissa >> 60 == 0 {
            mantissa = mantissa * 16 + d as u64;
            if seen_point {
                exponent -= 4;
            }
        } else {
            // Too many digits for 64 bits: keep their presence as a sticky bit for rounding.
            sticky |= d != 0;
            if !seen_point {
                exponent += 4;
            }
        }
        i += 1;
    }
    if digits == 0 {
        return Err(format!("invalid hexadecimal floating constant '{text}'"));
    }
    if !matches!(bytes.get(i), Some(b'p' | b'P')) {
        return Err(format!("hexadecimal floating constant '{text}' requires an exponent"));
    }
    i += 1;
    let negative = match bytes.get(i) {
        Some(b'-') => {
            i += 1;
            true
        }
        Some(b'+') => {
            i += 1;
            false
        }
        _ => false,
    };
    let exp_start = i;
    let mut written_exp: i64 = 0;
    while let Some(&b) = bytes.get(i) {
        if !b.is_ascii_digit() {
            break;
        }
        written_exp = (written_exp * 10 + (b - b'0') as i64).min(1 << 20);
        i += 1;
    }
    if i == exp_start {
        return Err(format!("exponent has no digits in '{text}'"));
    }
    if i != bytes.len() {
        return Err(format!("invalid suffix '{}' on floating constant", &text[i..]));
    }
    exponent += if negative { -written_exp } else { written_exp };
    if sticky {
        mantissa |= 1;
    }
    Ok(TokenKind::Float { value: scale_by_power_of_two(mantissa as f64, exponent), suffix })
}

/// `value * 2^exponent`, exact while the result stays normal.
fn scale_by_power_of_two(mut value: f64, mut exponent: i64) -> f64 {
    while exponent > 1000 && value.is_finite() && value != 0.0 {
        value *= 2f64.powi(1000);
        exponent -= 1000;
    }
    while exponent < -1000 && value != 0.0 {
        value *= 2f64.powi(-1000);
        exponent += 1000;
    }
    value * 2f64.powi(exponent.clamp(-2000, 2000) as i32)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<TokenKind> {
        lex_str(text).into_iter().map(|t| t.kind).collect()
    }

    fn lex_with_diags(text: &str) -> (Vec<Token>, Diagnostics) {
        let mut diags = Diagnostics::default();
        let tokens = lex_text(text, FileId(0), &mut diags);
        (tokens, diags)
    }

    fn int(value: u64, unsigned: bool, long: bool, radix: Radix) -> TokenKind {
        TokenKind::Int { value, suffix: IntSuffix { unsigned, long }, radix }
    }

    #[test]
    fn punctuators_take_the_longest_match() {
        let text: Vec<String> =
            Punct::ALL_LONGEST_FIRST.iter().map(|p| p.as_str().to_string()).collect();
        let tokens = lex_str(&text.join(" "));
        let got: Vec<Punct> = tokens
            .iter()
            .filter_map(|t| match t.kind {
                TokenKind::Punct(p) => Some(p),
                _ => None,
            })
            .collect();
        assert_eq!(got, Punct::ALL_LONGEST_FIRST);
        // Adjacent tokens that would lex differently when glued get a space.
        assert_eq!(tokens_to_string(&lex_str("a<<=b>>=c...d->e")), "a<<=b>>=c ... d->e");
        assert_eq!(tokens_to_string(&lex_str("x+++++y")), "x++ ++ +y");
        assert_eq!(tokens_to_string(&lex_str("f(a)[1]")), "f(a)[1]");
        assert_eq!(lex_str("x+++++y").len(), 6);
    }

    #[test]
    fn integer_literals_with_suffixes() {
        assert_eq!(kinds("42")[0], int(42, false, false, Radix::Decimal));
        assert_eq!(kinds("052")[0], int(42, false, false, Radix::Octal));
        assert_eq!(kinds("0x2A")[0], int(42, false, false, Radix::Hex));
        assert_eq!(kinds("0")[0], int(0, false, false, Radix::Decimal));
        for s in ["1u", "1U", "1ul", "1LU", "1ull", "1LLu", "1uLL", "1Ul"] {
            match &kinds(s)[0] {
                TokenKind::Int { value: 1, suffix, .. } => assert!(suffix.unsigned, "{s}"),
                other => panic!("{s}: {other:?}"),
            }
        }
        assert_eq!(kinds("7l")[0], int(7, false, true, Radix::Decimal));
        assert_eq!(kinds("18446744073709551615u")[0], int(u64::MAX, true, false, Radix::Decimal));
    }

    #[test]
    fn malformed_numbers_are_reported() {
        for s in
            ["09", "1lul", "0x", "18446744073709551616", "1e", "1.5q", "0x1.8", "1lL", "0x1e+5"]
        {
            let (_, diags) = lex_with_diags(s);
            assert!(diags.has_errors(), "{s} should be an error");
        }
    }

    #[test]
    fn floating_literals() {
        let f = |s: &str| match kinds(s)[0] {
            TokenKind::Float { value, suffix } => (value, suffix),
            ref other => panic!("{s}: {other:?}"),
        };
        assert_eq!(f("1.5"), (1.5, FloatSuffix::None));
        assert_eq!(f(".5f"), (0.5, FloatSuffix::F));
        assert_eq!(f("1."), (1.0, FloatSuffix::None));
        assert_eq!(f("1e3"), (1000.0, FloatSuffix::None));
        assert_eq!(f("2.5E-1H"), (0.25, FloatSuffix::H));
        assert_eq!(f("0x1.8p3"), (12.0, FloatSuffix::None));
        assert_eq!(f("0x1p-2f"), (0.25, FloatSuffix::F));
        assert_eq!(f("0x1.fffffep127f"), (f32::MAX as f64, FloatSuffix::F));
        assert_eq!(f("0x1.fffffffffffffp1023"), (f64::MAX, FloatSuffix::None));
        assert_eq!(f("0x1p-1074"), (f64::from_bits(1), FloatSuffix::None));
    }

    #[test]
    fn character_constants_and_escapes() {
        assert_eq!(kinds("'a'")[0], TokenKind::Char(97));
        assert_eq!(kinds(r"'\n'")[0], TokenKind::Char(10));
        assert_eq!(kinds(r"'\0'")[0], TokenKind::Char(0));
        assert_eq!(kinds(r"'\101'")[0], TokenKind::Char(65));
        assert_eq!(kinds(r"'\x41'")[0], TokenKind::Char(65));
        assert_eq!(kinds(r"'\xff'")[0], TokenKind::Char(-1));
        assert_eq!(kinds(r"'\''")[0], TokenKind::Char(39));
        assert_eq!(kinds(r#""a\tb\"c\\""#)[0], TokenKind::Str("a\tb\"c\\".to_string()));
        assert_eq!(kinds("\"h\u{e9}\"")[0], TokenKind::Str("h\u{e9}".to_string()));
    }

    #[test]
    fn comments_and_splices() {
        let tokens = lex_str("a /* x\n y */ b // c\n d\\\ne f\\\n(");
        let names: Vec<String> = tokens.iter().map(|t| display_kind(&t.kind)).collect();
        assert_eq!(names, ["a", "b", "de", "f", "(", ""]);
        assert!(
            tokens[1].leading_space && !tokens[1].at_line_start,
            "comment newlines do not start lines"
        );
        assert!(tokens[2].at_line_start);
        assert_eq!(tokens[2].span, Span::new(FileId(0), 21, 25));
        assert!(!tokens[4].leading_space);
        // A line comment continued by a splice swallows the next line.
        assert_eq!(tokens_to_string(&lex_str("a // b\\\n c\nd")), "a d");
        assert_eq!(tokens_to_string(&lex_str("<\\\n<\\\r\n=")), "<<=");
    }

    #[test]
    fn errors_do_not_stop_the_lexer() {
        let (tokens, diags) = lex_with_diags("a @ b \"open\nc 'x\nd /* never");
        let names: Vec<String> = tokens.iter().map(|t| display_kind(&t.kind)).collect();
        assert_eq!(names, ["a", "b", "\"open\"", "c", "'x'", "d", ""]);
        let messages: Vec<&str> = diags.0.iter().map(|d| d.message.as_str()).collect();
        assert_eq!(messages.len(), 4, "{messages:?}");
        assert!(messages[0].contains("invalid character"));
        assert!(messages[3].contains("unterminated comment"));
        assert_eq!(diags.0[0].span, Span::new(FileId(0), 2, 3));
    }

    #[test]
    fn flags_and_spans() {
        let tokens = lex_str("#define F(x) x\n  F (1)");
        assert!(tokens[0].at_line_start && !tokens[0].leading_space);
        assert!(!tokens[3].leading_space, "the ( right after F");
        assert!(tokens[7].at_line_start && tokens[7].leading_space);
        assert!(tokens[8].leading_space);
        assert_eq!(tokens[7].span, Span::new(FileId(0), 17, 18));
        assert_eq!(tokens.last().map(|t| t.kind.clone()), Some(TokenKind::Eof));
    }

    #[test]
    fn header_names_and_line_skipping() {
        let text = "<a b.h> \"c\\d.h\"\n'\\'' /* x\ny */ z\nw";
        let mut lexer = Lexer::new(FileId(0));
        let h = lexer.scan_header_name(text).expect("angled");
        assert_eq!((h.name.as_str(), h.angled), ("a b.h", true));
        let h = lexer.scan_header_name(text).expect("quoted");
        assert_eq!((h.name.as_str(), h.angled), ("c\\d.h", false));
        lexer.skip_line(text);
        // The comment continues the second line into the third, so `z` is skipped with it.
        lexer.skip_line(text);
        let next = lexer.next_token(text, None);
        assert_eq!(next.kind, TokenKind::Ident("w".into()));
        assert!(next.at_line_start);
    }
}
