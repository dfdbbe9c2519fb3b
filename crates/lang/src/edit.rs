//! Source edit sets: the machinery transforms use to produce minimal diffs.
//!
//! A transform that changes a few statements should not reprint the whole file: comments,
//! macros and formatting of untouched code must survive byte for byte. An [`EditSet`] collects
//! replacements of byte ranges of one file (spans from the IR point at what the user wrote) and
//! [`EditSet::apply`] splices them into the original text. [`unified_diff`] then shows the
//! change the way `diff -u` would, so it can be reviewed or fed to `patch`.

mod diff;

pub use diff::unified_diff;

use crate::span::{FileId, SourceMap, Span};
use thiserror::Error;

/// One replacement: the bytes of `span` become `replacement` (an insertion when `span` is
/// empty, a deletion when `replacement` is).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edit {
    pub span: Span,
    pub replacement: String,
}

/// Why an edit could not be added to a set.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum EditError {
    #[error("the edit is in another file than the edit set")]
    WrongFile { span: Span },
    #[error("the edit overlaps an earlier edit of the same set")]
    Overlap { span: Span, existing: Span },
    #[error("the edit lies outside its file or splits a character")]
    OutOfRange { span: Span },
    #[error(
        "the span cannot be commented out: it shares a line with other code and contains `*/`"
    )]
    CannotComment { span: Span },
}

/// Non-overlapping edits over one file of a [`SourceMap`].
///
/// Edits are kept sorted by position; insertions at the same offset keep the order in which
/// they were added, and an insertion at the start of a replaced range comes before it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EditSet {
    file: FileId,
    edits: Vec<Edit>,
}

impl EditSet {
    /// An empty set of edits over `file`.
    pub fn new(file: FileId) -> Self {
        EditSet { file, edits: Vec::new() }
    }

    /// The file the edits apply to.
    pub fn file(&self) -> FileId {
        self.file
    }

    /// The edits in the order they apply.
    pub fn edits(&self) -> &[Edit] {
        &self.edits
    }

    pub fn is_empty(&self) -> bool {
        self.edits.is_empty()
    }

    /// Replaces the bytes of `span` with `text`. Overlapping an earlier edit is an error.
    pub fn replace(&mut self, span: Span, text: impl Into<String>) -> Result<(), EditError> {
        let position = self.insertion_point(span)?;
        self.edits.insert(position, Edit { span, replacement: text.into() });
        Ok(())
    }

    /// Removes the bytes of `span`.
    pub fn delete(&mut self, span: Span) -> Result<(), EditError> {
        self.replace(span, String::new())
    }

    /// Inserts `text` at byte `offset` of the file, before anything already inserted there.
    /// Inserting strictly inside a replaced range is an overlap.
    pub fn insert_before(&mut self, offset: u32, text: impl Into<String>) -> Result<(), EditError> {
        let span = Span::new(self.file, offset, offset);
        self.check_file(span)?;
        self.check_overlap(span)?;
        // Before every edit that starts at or after the offset, so earlier insertions at the
        // same offset come after this one.
        let position = self.edits.partition_point(|e| e.span.start < offset);
        self.edits.insert(position, Edit { span, replacement: text.into() });
        Ok(())
    }

    /// Inserts `text` at byte `offset`, after anything already inserted there.
    pub fn insert_after(&mut self, offset: u32, text: impl Into<String>) -> Result<(), EditError> {
        self.replace(Span::new(self.file, offset, offset), text)
    }

    /// Removes the whole lines the span covers when nothing else is on them (for deleting a
    /// statement cleanly, indentation and line break included), else just the span.
    pub fn delete_statement(&mut self, sources: &SourceMap, span: Span) -> Result<(), EditError> {
        let text = self.text_of(sources, span)?;
        match whole_lines(text, span) {
            Some((start, end)) => self.delete(Span::new(self.file, start, end)),
            None => self.delete(span),
        }
    }

    /// Turns the lines of a statement into `// ` comments (Grover's `--comment-out`). When the
    /// statement shares a line with other code, only the statement is wrapped in `/* … */`.
    pub fn comment_out(&mut self, sources: &SourceMap, span: Span) -> Result<(), EditError> {
        let text = self.text_of(sources, span)?;
        if whole_lines(text, span).is_none() {
            let inner = text.get(span.range()).unwrap_or("");
            if inner.contains("*/") {
                return Err(EditError::CannotComment { span });
            }
            let start = Span::new(self.file, span.start, span.start);
            let end = Span::new(self.file, span.end, span.end);
            self.check_overlap(span)?;
            self.replace(start, "/* ")?;
            return self.insert_after(end.start, " */");
        }
        // One `// ` after the indentation of every covered line; all checked before any is
        // added so that a failure leaves the set unchanged.
        let starts = line_content_starts(text, span);
        for &offset in &starts {
            self.check_overlap(Span::new(self.file, offset, offset))?;
        }
        self.check_overlap(span)?;
        // Commenting out twice would stack the markers: an insertion at the statement's
        // first byte counts as touching it here.
        if let Some(existing) =
            self.edits.iter().find(|e| e.span.is_empty() && e.span.start == span.start)
        {
            return Err(EditError::Overlap { span, existing: existing.span });
        }
        for offset in starts {
            self.insert_after(offset, "// ")?;
        }
        Ok(())
    }

    /// Applies the edits to `original`, the text of the set's file. Bytes outside the edited
    /// ranges are copied unchanged. Edits that do not fit `original` (it is not the text the
    /// spans were taken from) are skipped; [`EditSet::try_apply`] reports them instead.
    pub fn apply(&self, original: &str) -> String {
        self.splice(original, false).unwrap_or_else(|_| original.to_string())
    }

    /// Like [`EditSet::apply`], but an edit outside `original` or inside a UTF-8 character is
    /// an error.
    pub fn try_apply(&self, original: &str) -> Result<String, EditError> {
        self.splice(original, true)
    }

    fn splice(&self, original: &str, strict: bool) -> Result<String, EditError> {
        let extra: usize = self.edits.iter().map(|e| e.replacement.len()).sum();
        let mut out = String::with_capacity(original.len() + extra);
        let mut copied = 0usize;
        for edit in &self.edits {
            let range = edit.span.range();
            let fits = range.start >= copied
                && original.get(range.clone()).is_some()
                && original.is_char_boundary(range.start);
            if !fits {
                if strict {
                    return Err(EditError::OutOfRange { span: edit.span });
                }
                continue;
            }
            out.push_str(original.get(copied..range.start).unwrap_or(""));
            out.push_str(&edit.replacement);
            copied = range.end;
        }
        out.push_str(original.get(copied..).unwrap_or(""));
        Ok(out)
    }

    fn text_of<'s>(&self, sources: &'s SourceMap, span: Span) -> Result<&'s str, EditError> {
        self.check_file(span)?;
        let file = sources.get(span.file).ok_or(EditError::OutOfRange { span })?;
        if file.text.get(span.range()).is_none() {
            return Err(EditError::OutOfRange { span });
        }
        Ok(&file.text)
    }

    fn check_file(&self, span: Span) -> Result<(), EditError> {
        if span.file != self.file || span.start > span.end {
            return Err(EditError::WrongFile { span });
        }
        Ok(())
    }

    /// Two edits conflict when their ranges share a byte, or when an insertion falls strictly
    /// inside a replaced range.
    fn check_overlap(&self, span: Span) -> Result<(), EditError> {
        for existing in self.edits.iter().map(|e| e.span) {
            let shares_byte = span.start < existing.end && existing.start < span.end;
            let inserts_inside =
                (span.is_empty() && existing.start < span.start && span.start < existing.end)
                    || (existing.is_empty()
                        && span.start < existing.start
                        && existing.start < span.end);
            if shares_byte || inserts_inside {
                return Err(EditError::Overlap { span, existing });
            }
        }
        Ok(())
    }

    fn insertion_point(&self, span: Span) -> Result<usize, EditError> {
        self.check_file(span)?;
        self.check_overlap(span)?;
        // After every edit that starts before or at the same place (stable for insertions).
        Ok(self.edits.partition_point(|e| {
            e.span.start < span.start || (e.span.start == span.start && e.span.is_empty())
        }))
    }
}

/// The byte range of the whole lines `span` covers, line break included, when the lines hold
/// nothing but the span and white space.
fn whole_lines(text: &str, span: Span) -> Option<(u32, u32)> {
    let start = span.start as usize;
    let end = span.end as usize;
    let line_start = text.get(..start)?.rfind('\n').map_or(0, |i| i + 1);
    let line_end = match text.get(end..)?.find('\n') {
        Some(i) => end + i + 1,
        None => text.len(),
    };
    let before = text.get(line_start..start)?;
    let after = text.get(end..line_end)?;
    if before.trim().is_empty() && after.trim().is_empty() {
        Some((line_start as u32, line_end as u32))
    } else {
        None
    }
}

/// Offsets of the first non-blank character of every non-blank line `span` touches.
fn line_content_starts(text: &str, span: Span) -> Vec<u32> {
    let start = span.start as usize;
    let end = span.end as usize;
    let first_line = text.get(..start).and_then(|t| t.rfind('\n')).map_or(0, |i| i + 1);
    let mut offsets = Vec::new();
    let mut line_start = first_line;
    while line_start < end.max(first_line + 1) && line_start <= text.len() {
        let rest = text.get(line_start..).unwrap_or("");
        let line_len = rest.find('\n').map_or(rest.len(), |i| i);
        let line = &rest[..line_len];
        let indent = line.len() - line.trim_start().len();
        if !line.trim().is_empty() {
            offsets.push((line_start + indent) as u32);
        }
        if line_len == rest.len() {
            break;
        }
        line_start += line_len + 1;
    }
    offsets
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup(text: &str) -> (SourceMap, FileId) {
        let mut sources = SourceMap::new();
        let file = sources.add_text("k.cl", text);
        (sources, file)
    }

    #[test]
    fn replacements_keep_untouched_bytes() {
        let (_, file) = setup("");
        let text = "a = b; // keep\nc = d;\n";
        let mut edits = EditSet::new(file);
        edits.replace(Span::new(file, 4, 5), "x + 1").unwrap();
        edits.replace(Span::new(file, 19, 20), "y").unwrap();
        assert_eq!(edits.apply(text), "a = x + 1; // keep\nc = y;\n");
    }

    #[test]
    fn overlapping_edits_are_rejected() {
        let (_, file) = setup("");
        let mut edits = EditSet::new(file);
        edits.replace(Span::new(file, 2, 6), "x").unwrap();
        assert!(matches!(
            edits.replace(Span::new(file, 5, 8), "y"),
            Err(EditError::Overlap { .. })
        ));
        assert!(matches!(edits.insert_before(4, "z"), Err(EditError::Overlap { .. })));
        // Touching ranges do not overlap.
        edits.replace(Span::new(file, 6, 8), "y").unwrap();
        edits.insert_before(2, "<").unwrap();
        assert_eq!(edits.apply("0123456789"), "01<xy89");
    }

    #[test]
    fn insertions_at_one_offset_keep_their_order() {
        let (_, file) = setup("");
        let mut edits = EditSet::new(file);
        edits.insert_after(1, "a").unwrap();
        edits.insert_after(1, "b").unwrap();
        edits.insert_before(1, "0").unwrap();
        assert_eq!(edits.apply("xy"), "x0aby");
    }

    #[test]
    fn delete_statement_removes_whole_lines_only_when_alone() {
        let text = "{\n    a = 1;\n    b = 2; c = 3;\n}\n";
        let (sources, file) = setup(text);
        let mut edits = EditSet::new(file);
        let a = text.find("a = 1;").unwrap() as u32;
        edits.delete_statement(&sources, Span::new(file, a, a + 6)).unwrap();
        let c = text.find("c = 3;").unwrap() as u32;
        edits.delete_statement(&sources, Span::new(file, c, c + 6)).unwrap();
        assert_eq!(edits.apply(text), "{\n    b = 2; \n}\n");
    }

    #[test]
    fn comment_out_prefixes_each_line() {
        let text = "  x[i] =\n      y;\n  z = 0; w = 1;\n";
        let (sources, file) = setup(text);
        let mut edits = EditSet::new(file);
        let start = text.find("x[i]").unwrap() as u32;
        let end = text.find("y;").unwrap() as u32 + 2;
        edits.comment_out(&sources, Span::new(file, start, end)).unwrap();
        let w = text.find("w = 1;").unwrap() as u32;
        edits.comment_out(&sources, Span::new(file, w, w + 6)).unwrap();
        assert_eq!(edits.apply(text), "  // x[i] =\n      // y;\n  z = 0; /* w = 1; */\n");
    }

    #[test]
    fn bad_spans_are_errors_not_panics() {
        let (sources, file) = setup("abc");
        let mut edits = EditSet::new(file);
        assert!(edits.delete_statement(&sources, Span::new(file, 2, 9)).is_err());
        assert!(edits.replace(Span::new(FileId(7), 0, 1), "").is_err());
        edits.replace(Span::new(file, 1, 40), "q").unwrap();
        assert!(edits.try_apply("abc").is_err());
        assert_eq!(edits.apply("abc"), "abc");
    }
}
