//! Tokens: what the lexer produces and the preprocessor hands to the parser.
//!
//! Keywords are not a separate kind: the parser recognises them among identifiers, because which
//! words are keywords depends on context (`kernel` vs `__kernel`, type names after `typedef`).

use crate::span::Span;

/// Index into the preprocessor's table of macro expansions (see `preprocess::Expansion`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ExpansionId(pub u32);

#[derive(Clone, Debug, PartialEq)]
pub struct Token {
    pub kind: TokenKind,
    /// Where the characters of this token were spelled (possibly inside a `#define` body).
    pub span: Span,
    /// Where the user sees this token: `span` for ordinary tokens, the whole macro invocation for
    /// tokens produced by expanding a macro in the main text. Diagnostics and edits use this.
    pub site: Span,
    /// The innermost macro expansion this token came out of, if any.
    pub expansion: Option<ExpansionId>,
    /// Whitespace (or a comment) precedes the token; needed for `#` stringification and for
    /// telling `#define F(x)` from `#define F (x)`.
    pub leading_space: bool,
    /// First token on its line; the preprocessor uses it to find directives.
    pub at_line_start: bool,
}

impl Token {
    pub fn new(kind: TokenKind, span: Span) -> Self {
        Token {
            kind,
            span,
            site: span,
            expansion: None,
            leading_space: false,
            at_line_start: false,
        }
    }

    pub fn is_punct(&self, p: Punct) -> bool {
        matches!(&self.kind, TokenKind::Punct(q) if *q == p)
    }

    pub fn ident(&self) -> Option<&str> {
        match &self.kind {
            TokenKind::Ident(s) => Some(s),
            _ => None,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum TokenKind {
    Ident(String),
    /// Integer constant. `value` is the magnitude as written (C has no negative literals).
    Int {
        value: u64,
        suffix: IntSuffix,
        radix: Radix,
    },
    /// Floating constant; `value` is already rounded to f64.
    Float {
        value: f64,
        suffix: FloatSuffix,
    },
    /// Character constant, as its `int` value.
    Char(i64),
    /// String literal with escapes resolved (only `printf` formats and `#include` use them).
    Str(String),
    Punct(Punct),
    /// `#pragma` line, text after the word `pragma`, trimmed. Passed through to the parser
    /// so that `OPENCL EXTENSION` and `unroll` reach the printer.
    Pragma(String),
    Eof,
}

/// Integer-literal radix; C gives decimal and non-decimal literals different type lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Radix {
    Decimal,
    Octal,
    Hex,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct IntSuffix {
    pub unsigned: bool,
    /// `l`/`L` or `ll`/`LL` (both mean 64 bits in OpenCL C).
    pub long: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FloatSuffix {
    /// No suffix: `double` in C; OpenCL C 1.2 makes it `double` too, and `float` when the
    /// program has no `cl_khr_fp64` (sema decides; the lexer only records the spelling).
    None,
    /// `f` / `F`
    F,
    /// `h` / `H`
    H,
}

macro_rules! puncts {
    ($($name:ident = $text:literal,)*) => {
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Punct { $($name,)* }

        impl Punct {
            /// All punctuators, longest spelling first so a lexer can take the first match.
            pub const ALL_LONGEST_FIRST: &'static [Punct] = &[$(Punct::$name,)*];

            pub fn as_str(self) -> &'static str {
                match self { $(Punct::$name => $text,)* }
            }
        }
    };
}

puncts! {
    Ellipsis = "...",
    ShlAssign = "<<=",
    ShrAssign = ">>=",
    Arrow = "->",
    Inc = "++",
    Dec = "--",
    Shl = "<<",
    Shr = ">>",
    Le = "<=",
    Ge = ">=",
    EqEq = "==",
    Ne = "!=",
    AndAnd = "&&",
    OrOr = "||",
    MulAssign = "*=",
    DivAssign = "/=",
    RemAssign = "%=",
    AddAssign = "+=",
    SubAssign = "-=",
    AndAssign = "&=",
    XorAssign = "^=",
    OrAssign = "|=",
    HashHash = "##",
    LParen = "(",
    RParen = ")",
    LBracket = "[",
    RBracket = "]",
    LBrace = "{",
    RBrace = "}",
    Dot = ".",
    Amp = "&",
    Star = "*",
    Plus = "+",
    Minus = "-",
    Tilde = "~",
    Bang = "!",
    Slash = "/",
    Percent = "%",
    Lt = "<",
    Gt = ">",
    Caret = "^",
    Pipe = "|",
    Question = "?",
    Colon = ":",
    Semi = ";",
    Assign = "=",
    Comma = ",",
    Hash = "#",
}

impl std::fmt::Display for Punct {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
