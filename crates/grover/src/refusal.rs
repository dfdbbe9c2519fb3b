//! Why a local buffer is left alone: the exact reason and where in the source it comes from.

use clmap_lang::{SourceMap, Span};

/// A candidate Grover refuses to transform. Refusing is always safe: the kernel keeps its
/// local memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    pub reason: String,
    /// The access or statement the reason is about.
    pub span: Span,
}

impl Refusal {
    pub fn new(reason: impl Into<String>, span: Span) -> Refusal {
        Refusal { reason: reason.into(), span }
    }

    /// `file:line:col: reason`.
    pub fn describe(&self, sources: &SourceMap) -> String {
        format!("{}: {}", sources.describe_presumed(self.span), self.reason)
    }
}
