//! Diagnostics: errors and warnings with spans, rendered compiler-style only at the edge.
//!
//! Every stage of the front end reports problems as [`Diagnostic`]s instead of printing or
//! panicking. A stage that can recover keeps going and collects several; the caller decides
//! whether warnings matter. [`Diagnostic::render`] produces the `file:line:col` form with the
//! source line and a caret that the CLI prints.

use crate::span::{SourceMap, Span};
use std::fmt::Write as _;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    Note,
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Note => "note",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    pub message: String,
    /// The culprit, as the user wrote it (a token's `site`, not its spelling).
    pub span: Span,
    /// Extra located remarks ("previous declaration is here").
    pub notes: Vec<(Span, String)>,
    /// A one-line suggestion of what to do.
    pub help: Option<String>,
}

impl Diagnostic {
    pub fn error(span: Span, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            message: message.into(),
            span,
            notes: Vec::new(),
            help: None,
        }
    }

    pub fn warning(span: Span, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Warning,
            message: message.into(),
            span,
            notes: Vec::new(),
            help: None,
        }
    }

    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    pub fn with_note(mut self, span: Span, note: impl Into<String>) -> Self {
        self.notes.push((span, note.into()));
        self
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// `file:line:col: error: message`, the source line, a caret line, notes and help.
    pub fn render(&self, sources: &SourceMap) -> String {
        let mut out = String::new();
        render_located(&mut out, sources, self.span, self.severity.as_str(), &self.message);
        for (span, note) in &self.notes {
            render_located(&mut out, sources, *span, "note", note);
        }
        if let Some(help) = &self.help {
            let _ = writeln!(out, "  = help: {help}");
        }
        out
    }
}

fn render_located(out: &mut String, sources: &SourceMap, span: Span, label: &str, message: &str) {
    let Some(file) = sources.get(span.file) else {
        let _ = writeln!(out, "{label}: {message}");
        return;
    };
    let start = file.line_col(span.start);
    // The header follows `#line` (what the user's build system expects); the excerpt shows the
    // physical line, which is what the file really contains.
    let (name, presumed) = sources.presumed(span.file, span.start);
    let _ = writeln!(out, "{name}:{}:{}: {label}: {message}", presumed.line, presumed.col);
    let line = file.line_text(start.line);
    let gutter = start.line.to_string().len();
    let _ = writeln!(out, "{:gutter$} |", "");
    let _ = writeln!(out, "{} | {}", start.line, line.replace('\t', " "));
    // The caret spans the culprit on its first line (at least one column).
    let end = file.line_col(span.end);
    let width = if end.line == start.line { (end.col - start.col).max(1) } else { 1 };
    let _ = writeln!(
        out,
        "{:gutter$} | {}{}",
        "",
        " ".repeat(start.col as usize - 1),
        "^".repeat(width as usize)
    );
}

/// Diagnostics collected by a stage; the stage fails when any of them is an error.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Diagnostics(pub Vec<Diagnostic>);

impl Diagnostics {
    pub fn push(&mut self, d: Diagnostic) {
        self.0.push(d);
    }

    pub fn has_errors(&self) -> bool {
        self.0.iter().any(Diagnostic::is_error)
    }

    pub fn extend(&mut self, other: Diagnostics) {
        self.0.extend(other.0);
    }

    pub fn render(&self, sources: &SourceMap) -> String {
        self.0.iter().map(|d| d.render(sources)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_caret_under_culprit() {
        let mut sm = SourceMap::new();
        let f = sm.add_text("k.cl", "int x;\nfloat y = q;\n");
        let d = Diagnostic::error(Span::new(f, 17, 18), "use of undeclared identifier 'q'")
            .with_help("declare it first");
        let text = d.render(&sm);
        assert_eq!(
            text,
            "k.cl:2:11: error: use of undeclared identifier 'q'\n  |\n2 | float y = q;\n  |           ^\n  = help: declare it first\n"
        );
    }
}
