//! Source files and byte spans.
//!
//! Every token, AST node and IR node carries a [`Span`] into the text the user wrote. Tokens that
//! come out of a macro expansion keep two locations: where their characters were spelled (inside
//! the `#define`) and the *site* in the including text where the expansion happened. Diagnostics
//! and source edits use the site, so that they point at (and rewrite) what the user typed.

use std::fmt;
use std::path::PathBuf;

/// Index of a file in a [`SourceMap`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct FileId(pub u32);

/// A half-open byte range `start..end` in one file of a [`SourceMap`].
///
/// Invariant: `start <= end <= file.text.len()`, both on UTF-8 character boundaries.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Span {
    pub file: FileId,
    pub start: u32,
    pub end: u32,
}

impl Span {
    /// A span that points nowhere; used for nodes synthesised by transforms.
    pub const UNDEFINED: Span = Span { file: FileId(u32::MAX), start: 0, end: 0 };

    pub fn new(file: FileId, start: u32, end: u32) -> Self {
        debug_assert!(start <= end);
        Span { file, start, end }
    }

    pub fn is_defined(&self) -> bool {
        self.file.0 != u32::MAX
    }

    /// The smallest span covering both, when they are in the same file; otherwise `self`.
    pub fn to(self, other: Span) -> Span {
        if !self.is_defined() {
            return other;
        }
        if !other.is_defined() || other.file != self.file {
            return self;
        }
        Span { file: self.file, start: self.start.min(other.start), end: self.end.max(other.end) }
    }

    pub fn len(&self) -> u32 {
        self.end - self.start
    }

    pub fn is_empty(&self) -> bool {
        self.start == self.end
    }

    pub fn range(&self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }
}

impl fmt::Debug for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_defined() {
            write!(f, "{}:{}..{}", self.file.0, self.start, self.end)
        } else {
            write!(f, "<synthetic>")
        }
    }
}

/// One source text: the main file, an included header, or a synthetic buffer such as the
/// command-line `-D` definitions.
#[derive(Clone, Debug)]
pub struct SourceFile {
    /// Name as shown in diagnostics (`kernel.cl`, `<command line>`).
    pub name: String,
    /// Path on disk, when the file came from one (used to resolve `#include "…"`).
    pub path: Option<PathBuf>,
    pub text: String,
    /// Byte offset of the start of every line; `line_starts[0] == 0`.
    line_starts: Vec<u32>,
}

/// A human position: 1-based line and column (column counts characters, tabs as one).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct LineCol {
    pub line: u32,
    pub col: u32,
}

impl SourceFile {
    pub fn new(name: impl Into<String>, path: Option<PathBuf>, text: String) -> Self {
        let mut line_starts = vec![0u32];
        for (i, b) in text.bytes().enumerate() {
            if b == b'\n' {
                line_starts.push(i as u32 + 1);
            }
        }
        SourceFile { name: name.into(), path, text, line_starts }
    }

    /// Line and column of a byte offset (offsets past the end clamp to the end).
    pub fn line_col(&self, offset: u32) -> LineCol {
        let offset = offset.min(self.text.len() as u32);
        let line = match self.line_starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        let start = self.line_starts[line] as usize;
        let col = self.text[start..offset as usize].chars().count() as u32 + 1;
        LineCol { line: line as u32 + 1, col }
    }

    /// The text of a 1-based line, without its line terminator.
    pub fn line_text(&self, line: u32) -> &str {
        let i = (line.max(1) - 1) as usize;
        if i >= self.line_starts.len() {
            return "";
        }
        let start = self.line_starts[i] as usize;
        let end = self.line_starts.get(i + 1).map(|&e| e as usize).unwrap_or(self.text.len());
        self.text[start..end].trim_end_matches(['\n', '\r'])
    }

    pub fn line_count(&self) -> u32 {
        self.line_starts.len() as u32
    }
}

/// All source texts of one compilation, addressed by [`FileId`].
#[derive(Clone, Debug, Default)]
pub struct SourceMap {
    files: Vec<SourceFile>,
    /// `#line` remappings per file, in increasing offset order.
    line_directives: std::collections::HashMap<FileId, Vec<LineDirective>>,
}

/// One `#line` directive: from `offset` on, the physical line of `offset` is presumed to be
/// `line` of the file called `name` (the file's own name when `None`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineDirective {
    pub offset: u32,
    pub line: u32,
    pub name: Option<String>,
}

impl SourceMap {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn add(&mut self, file: SourceFile) -> FileId {
        self.files.push(file);
        FileId(self.files.len() as u32 - 1)
    }

    /// Convenience for tests and the CLI: add a named in-memory text.
    pub fn add_text(&mut self, name: impl Into<String>, text: impl Into<String>) -> FileId {
        self.add(SourceFile::new(name, None, text.into()))
    }

    pub fn get(&self, id: FileId) -> Option<&SourceFile> {
        self.files.get(id.0 as usize)
    }

    pub fn file(&self, id: FileId) -> &SourceFile {
        &self.files[id.0 as usize]
    }

    pub fn files(&self) -> impl Iterator<Item = (FileId, &SourceFile)> {
        self.files.iter().enumerate().map(|(i, f)| (FileId(i as u32), f))
    }

    /// The text a span covers, or `""` for an undefined or out-of-range span.
    pub fn snippet(&self, span: Span) -> &str {
        self.get(span.file).and_then(|f| f.text.get(span.range())).unwrap_or("")
    }

    /// `name:line:col` of the start of a span.
    pub fn describe(&self, span: Span) -> String {
        match self.get(span.file) {
            Some(f) => {
                let lc = f.line_col(span.start);
                format!("{}:{}:{}", f.name, lc.line, lc.col)
            }
            None => "<synthetic>".to_string(),
        }
    }
}

impl SourceMap {
    /// Records a `#line` directive of `file`: the line that starts at byte `offset` is presumed
    /// to be `line` of `name` (without a name, the presumed name stays what it was). Directives
    /// must be added in increasing offset order; a directive out of order is ignored.
    pub fn add_line_directive(
        &mut self,
        file: FileId,
        offset: u32,
        line: u32,
        name: Option<String>,
    ) {
        let list = self.line_directives.entry(file).or_default();
        if list.last().is_some_and(|last| last.offset > offset) {
            return;
        }
        let name = name.or_else(|| list.last().and_then(|last| last.name.clone()));
        list.push(LineDirective { offset, line, name });
    }

    /// The `#line` directives of a file, in offset order.
    pub fn line_directives(&self, file: FileId) -> &[LineDirective] {
        self.line_directives.get(&file).map(Vec::as_slice).unwrap_or(&[])
    }

    /// File name and line/column that diagnostics report for a byte offset, after `#line`
    /// remapping; `("<synthetic>", 1:1)` for an unknown file.
    pub fn presumed(&self, file: FileId, offset: u32) -> (String, LineCol) {
        let Some(source) = self.get(file) else {
            return ("<synthetic>".to_string(), LineCol { line: 1, col: 1 });
        };
        let physical = source.line_col(offset);
        let directives = self.line_directives(file);
        let index = directives.partition_point(|d| d.offset <= offset);
        match index.checked_sub(1).and_then(|i| directives.get(i)) {
            None => (source.name.clone(), physical),
            Some(d) => {
                let directive_line = source.line_col(d.offset).line;
                let line = d.line.saturating_add(physical.line.saturating_sub(directive_line));
                let name = d.name.clone().unwrap_or_else(|| source.name.clone());
                (name, LineCol { line, col: physical.col })
            }
        }
    }

    /// `name:line:col` of the start of a span, after `#line` remapping.
    pub fn describe_presumed(&self, span: Span) -> String {
        if self.get(span.file).is_none() {
            return "<synthetic>".to_string();
        }
        let (name, lc) = self.presumed(span.file, span.start);
        format!("{}:{}:{}", name, lc.line, lc.col)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_directives_remap_following_lines() {
        let mut sm = SourceMap::new();
        let f = sm.add_text("k.cl", "a\n#line 40 \"x.cl\"\nb\nc\n#line 7\nd\n");
        assert_eq!(sm.presumed(f, 0), ("k.cl".to_string(), LineCol { line: 1, col: 1 }));
        sm.add_line_directive(f, 18, 40, Some("x.cl".into()));
        sm.add_line_directive(f, 30, 7, None);
        assert_eq!(sm.presumed(f, 18), ("x.cl".to_string(), LineCol { line: 40, col: 1 }));
        assert_eq!(sm.presumed(f, 20), ("x.cl".to_string(), LineCol { line: 41, col: 1 }));
        assert_eq!(sm.presumed(f, 30), ("x.cl".to_string(), LineCol { line: 7, col: 1 }));
        assert_eq!(sm.describe_presumed(Span::new(f, 2, 3)), "k.cl:2:1");
    }

    #[test]
    fn line_col_counts_from_one() {
        let f = SourceFile::new("a.cl", None, "ab\ncd\n\nx".to_string());
        assert_eq!(f.line_col(0), LineCol { line: 1, col: 1 });
        assert_eq!(f.line_col(3), LineCol { line: 2, col: 1 });
        assert_eq!(f.line_col(4), LineCol { line: 2, col: 2 });
        assert_eq!(f.line_col(7), LineCol { line: 4, col: 1 });
        assert_eq!(f.line_text(2), "cd");
        assert_eq!(f.line_text(3), "");
    }

    #[test]
    fn span_join_stays_in_file() {
        let a = Span::new(FileId(0), 4, 6);
        let b = Span::new(FileId(0), 1, 2);
        assert_eq!(a.to(b), Span::new(FileId(0), 1, 6));
        assert_eq!(a.to(Span::new(FileId(1), 0, 9)), a);
        assert_eq!(Span::UNDEFINED.to(a), a);
    }
}

/// Reads a source file as text. Files that are not UTF-8 are read as Latin-1 (each byte is
/// the character of the same number): real kernels carry Latin-1 comments and string
/// literals, and a compiler accepts them, so refusing the file would be wrong; Latin-1 never
/// fails and keeps every ASCII byte, which is all OpenCL C's syntax uses.
pub fn read_source(path: &std::path::Path) -> std::io::Result<String> {
    Ok(decode_source(std::fs::read(path)?))
}

/// Source bytes as text: UTF-8 where they are, Latin-1 otherwise (see [`read_source`]).
pub fn decode_source(bytes: Vec<u8>) -> String {
    match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => e.into_bytes().iter().map(|&b| char::from(b)).collect(),
    }
}

#[cfg(test)]
mod source_text_tests {
    use super::decode_source;

    #[test]
    fn utf8_stays_and_anything_else_is_latin1() {
        assert_eq!(decode_source("caf\u{e9}".as_bytes().to_vec()), "caf\u{e9}");
        assert_eq!(decode_source(b"caf\xe9 // \xb5s".to_vec()), "caf\u{e9} // \u{b5}s");
    }
}
