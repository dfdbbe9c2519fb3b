//! Why something is not fused: the reason and the source it is about.

use clmap_lang::{SourceMap, Span};

/// A reason, with the span of the code it is about (undefined for pipeline-level reasons).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    pub reason: String,
    pub span: Span,
}

impl Refusal {
    pub fn new(reason: impl Into<String>, span: Span) -> Refusal {
        Refusal { reason: reason.into(), span }
    }

    /// A reason about the pipeline rather than a line of a kernel.
    pub fn pipeline(reason: impl Into<String>) -> Refusal {
        Refusal { reason: reason.into(), span: Span::UNDEFINED }
    }

    /// `file:line:col: reason`, or the reason alone.
    pub fn describe(&self, sources: &SourceMap) -> String {
        if self.span.is_defined() {
            format!("{}: {}", sources.describe_presumed(self.span), self.reason)
        } else {
            self.reason.clone()
        }
    }
}
