//! Why a rewrite leaves code alone: the reason, and the source it is about. Every transform
//! (Grover's local-memory removal, fusion) refuses this way; refusing is always safe, since
//! the code keeps its original form.

use crate::span::{SourceMap, Span};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    pub reason: String,
    /// The access or statement the reason is about; undefined for reasons about the
    /// program as a whole (a pipeline's launches, say).
    pub span: Span,
}

impl Refusal {
    pub fn new(reason: impl Into<String>, span: Span) -> Refusal {
        Refusal { reason: reason.into(), span }
    }

    /// A reason about the whole program rather than a line of it.
    pub fn unlocated(reason: impl Into<String>) -> Refusal {
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
