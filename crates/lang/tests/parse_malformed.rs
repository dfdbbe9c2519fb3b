//! The parser's share of `tests/malformed`: each `parse_*.cl` file holds one syntax error,
//! announced on its first line as `// expect-error: LINE: PHRASE`. The first error reported
//! must be on that line, and an error on that line must mention that phrase.

use clmap_lang::parse::parse;
use clmap_lang::preprocess::{preprocess, BuildOptions, FsLoader};
use clmap_lang::{Diagnostic, SourceFile, SourceMap, Span};
use std::path::{Path, PathBuf};

fn malformed_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/malformed")
}

/// `(line, phrase)` from `// expect-error: LINE: PHRASE`.
fn expectation(text: &str) -> Option<(u32, String)> {
    let rest = text.lines().next()?.strip_prefix("// expect-error:")?;
    let (line, phrase) = rest.split_once(':')?;
    Some((line.trim().parse().ok()?, phrase.trim().to_string()))
}

/// The line of a span as the expectations count it: like clang, the end of a file that ends
/// with a newline belongs to the last line, not to an empty line after it.
fn clang_line(sources: &SourceMap, span: Span) -> Option<u32> {
    let file = sources.get(span.file)?;
    let at_end_after_newline = span.start as usize == file.text.len() && file.text.ends_with('\n');
    let offset = if at_end_after_newline { span.start - 1 } else { span.start };
    Some(file.line_col(offset).line)
}

#[test]
fn parse_errors_point_at_the_announced_line() {
    let dir = malformed_dir();
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("the malformed directory exists")
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| {
            let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
            name.is_some_and(|n| n.starts_with("parse_") && n.ends_with(".cl"))
        })
        .collect();
    paths.sort();
    assert!(paths.len() >= 5, "too few parse cases: {paths:?}");
    let mut failures = Vec::new();
    for path in &paths {
        let text = std::fs::read_to_string(path).expect("readable case");
        let Some((line, phrase)) = expectation(&text) else {
            failures.push(format!("{}: no expect-error line", path.display()));
            continue;
        };
        let mut sources = SourceMap::new();
        let name = path.file_name().map_or_else(String::new, |n| n.to_string_lossy().into());
        let main = sources.add(SourceFile::new(name, Some(path.clone()), text));
        let preprocessed = preprocess(&mut sources, main, &BuildOptions::default(), &FsLoader);
        let (_, diags) = parse(&preprocessed.tokens);
        let all: Vec<&Diagnostic> =
            preprocessed.diagnostics.0.iter().chain(&diags.0).filter(|d| d.is_error()).collect();
        let line_of = |d: &Diagnostic| clang_line(&sources, d.span);
        let first_on_line = all.first().is_some_and(|d| line_of(d) == Some(line));
        // The lexer may complain about the same culprit first (`3count` is a bad number).
        let phrase_on_line = all.iter().any(|d| {
            line_of(d) == Some(line) && d.message.to_lowercase().contains(&phrase.to_lowercase())
        });
        if !first_on_line || !phrase_on_line {
            let rendered: String = all.iter().map(|d| d.render(&sources)).collect();
            failures.push(format!(
                "{}: expected line {line} and '{phrase}', got:\n{rendered}",
                path.display()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
