//! Macro definitions: parsing a `#define` line and comparing redefinitions.

use crate::diag::Diagnostic;
use crate::span::Span;
use crate::token::{Punct, Token, TokenKind};

/// Macros whose replacement the preprocessor computes at each use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Builtin {
    File,
    Line,
}

/// One macro as defined.
#[derive(Clone, Debug)]
pub struct MacroDef {
    pub name: String,
    /// Symbol used in hide sets.
    pub symbol: u32,
    /// `None` for object-like macros. A variadic macro's last parameter is `__VA_ARGS__`.
    pub params: Option<Vec<String>>,
    pub variadic: bool,
    pub body: Vec<Token>,
    /// For each body token, the index of the parameter it names (function-like macros only).
    pub param_of: Vec<Option<usize>>,
    /// The name through the end of the replacement list.
    pub definition: Span,
    pub builtin: Option<Builtin>,
}

impl MacroDef {
    pub fn builtin(name: &str, symbol: u32, builtin: Builtin) -> Self {
        MacroDef {
            name: name.to_string(),
            symbol,
            params: None,
            variadic: false,
            body: Vec::new(),
            param_of: Vec::new(),
            definition: Span::UNDEFINED,
            builtin: Some(builtin),
        }
    }

    pub fn is_function_like(&self) -> bool {
        self.params.is_some()
    }

    /// Number of parameters including `__VA_ARGS__`.
    pub fn param_count(&self) -> usize {
        self.params.as_ref().map_or(0, Vec::len)
    }
}

/// Parses the tokens of a `#define` line after the word `define`. `symbol` is the name's
/// hide-set symbol, assigned by the caller once the name is known valid.
pub fn parse_definition(
    line: &[Token],
    directive: Span,
    symbol_of: &mut dyn FnMut(&str) -> u32,
) -> Result<(MacroDef, Vec<Diagnostic>), Diagnostic> {
    let mut warnings = Vec::new();
    let Some(name_token) = line.first() else {
        return Err(Diagnostic::error(directive, "macro name missing after #define"));
    };
    let Some(name) = name_token.ident() else {
        return Err(Diagnostic::error(name_token.span, "macro name must be an identifier"));
    };
    if name == "defined" {
        return Err(Diagnostic::error(name_token.span, "'defined' cannot be used as a macro name"));
    }
    let mut index = 1;
    let mut params = None;
    let mut variadic = false;
    match line.get(1) {
        Some(t) if t.is_punct(Punct::LParen) && !t.leading_space => {
            let (list, is_variadic, next) = parse_params(line, 2)?;
            params = Some(list);
            variadic = is_variadic;
            index = next;
        }
        Some(t) if !t.leading_space => warnings
            .push(Diagnostic::warning(t.span, "whitespace is required after the macro name")),
        _ => {}
    }
    let body: Vec<Token> = line.get(index..).unwrap_or(&[]).to_vec();
    if let Some(first) = body.first().filter(|t| t.is_punct(Punct::HashHash)) {
        return Err(Diagnostic::error(
            first.span,
            "'##' cannot appear at the start of a macro expansion",
        ));
    }
    if let Some(last) = body.last().filter(|t| t.is_punct(Punct::HashHash)) {
        return Err(Diagnostic::error(
            last.span,
            "'##' cannot appear at the end of a macro expansion",
        ));
    }
    let param_of: Vec<Option<usize>> = body
        .iter()
        .map(|t| match (&params, t.ident()) {
            (Some(list), Some(id)) => list.iter().position(|p: &String| p == id),
            _ => None,
        })
        .collect();
    for (i, token) in body.iter().enumerate() {
        if params.is_some()
            && token.is_punct(Punct::Hash)
            && param_of.get(i + 1).copied().flatten().is_none()
        {
            return Err(Diagnostic::error(token.span, "'#' is not followed by a macro parameter"));
        }
        if !variadic && token.ident() == Some("__VA_ARGS__") {
            warnings.push(Diagnostic::warning(
                token.span,
                "__VA_ARGS__ can only appear in the expansion of a variadic macro",
            ));
        }
    }
    let end = body.last().unwrap_or(line.last().unwrap_or(name_token)).span;
    let def = MacroDef {
        name: name.to_string(),
        symbol: symbol_of(name),
        params,
        variadic,
        body,
        param_of,
        definition: name_token.span.to(end),
        builtin: None,
    };
    Ok((def, warnings))
}

/// Parses `a, b, ...)` starting at `start` (after the `(`); returns the parameters, whether the
/// macro is variadic, and the index after the `)`.
fn parse_params(line: &[Token], start: usize) -> Result<(Vec<String>, bool, usize), Diagnostic> {
    let mut params: Vec<String> = Vec::new();
    let mut i = start;
    let fallback = line.get(start - 1).map(|t| t.span).unwrap_or(Span::UNDEFINED);
    if line.get(i).is_some_and(|t| t.is_punct(Punct::RParen)) {
        return Ok((params, false, i + 1));
    }
    loop {
        let Some(token) = line.get(i) else {
            return Err(Diagnostic::error(fallback, "missing ')' in macro parameter list"));
        };
        match &token.kind {
            TokenKind::Ident(p) => {
                if p == "__VA_ARGS__" {
                    return Err(Diagnostic::error(
                        token.span,
                        "__VA_ARGS__ cannot be a macro parameter name",
                    ));
                }
                if params.contains(p) {
                    return Err(Diagnostic::error(
                        token.span,
                        format!("duplicate macro parameter '{p}'"),
                    ));
                }
                params.push(p.clone());
            }
            TokenKind::Punct(Punct::Ellipsis) => {
                params.push("__VA_ARGS__".to_string());
                return match line.get(i + 1) {
                    Some(t) if t.is_punct(Punct::RParen) => Ok((params, true, i + 2)),
                    _ => Err(Diagnostic::error(
                        token.span,
                        "missing ')' after '...' in macro parameter list",
                    )),
                };
            }
            _ => {
                return Err(Diagnostic::error(token.span, "invalid token in macro parameter list"))
            }
        }
        match line.get(i + 1) {
            Some(t) if t.is_punct(Punct::RParen) => return Ok((params, false, i + 2)),
            Some(t) if t.is_punct(Punct::Comma) => i += 2,
            Some(t) => {
                return Err(Diagnostic::error(
                    t.span,
                    "expected ',' or ')' in macro parameter list",
                ))
            }
            None => {
                return Err(Diagnostic::error(token.span, "missing ')' in macro parameter list"))
            }
        }
    }
}

/// C99 §6.10.3p2: a redefinition is allowed only when parameters and replacement list are
/// identical, spelling and whitespace separation included. `spelling` gives a token's text.
pub fn same_definition(a: &MacroDef, b: &MacroDef, spelling: &dyn Fn(&Token) -> String) -> bool {
    a.params == b.params
        && a.variadic == b.variadic
        && a.builtin == b.builtin
        && a.body.len() == b.body.len()
        && a.body.iter().zip(&b.body).enumerate().all(|(i, (x, y))| {
            (i == 0 || x.leading_space == y.leading_space) && spelling(x) == spelling(y)
        })
}
