//! Rendering front-end results for people (compiler-style text) and machines (JSON).

use clmap_lang::{Diagnostic, Diagnostics, SourceMap, Span};
use serde_json::{json, Value};

/// A diagnostic as JSON: severity, message, location (1-based line and column), help, notes.
pub fn diagnostic_json(d: &Diagnostic, sources: &SourceMap) -> Value {
    let mut v = location_json(d.span, sources);
    v["severity"] = json!(d.severity.as_str());
    v["message"] = json!(d.message);
    if let Some(help) = &d.help {
        v["help"] = json!(help);
    }
    if !d.notes.is_empty() {
        v["notes"] = d
            .notes
            .iter()
            .map(|(span, note)| {
                let mut n = location_json(*span, sources);
                n["message"] = json!(note);
                n
            })
            .collect();
    }
    v
}

pub fn diagnostics_json(ds: &Diagnostics, sources: &SourceMap) -> Value {
    ds.0.iter().map(|d| diagnostic_json(d, sources)).collect()
}

fn location_json(span: Span, sources: &SourceMap) -> Value {
    match sources.get(span.file) {
        Some(file) => {
            let start = file.line_col(span.start);
            let end = file.line_col(span.end);
            json!({
                "file": file.name,
                "line": start.line,
                "column": start.col,
                "end_line": end.line,
                "end_column": end.col,
            })
        }
        None => json!({}),
    }
}
