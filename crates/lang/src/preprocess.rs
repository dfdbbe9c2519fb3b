//! The C99 preprocessor with OpenCL C's predefined macros.
//!
//! [`preprocess`] turns the main file of a program (with its `#include`s and the
//! `clBuildProgram` options) into the token stream the parser reads. Every token keeps where it
//! was spelled and where the user sees it (see [`Token`]); macro expansions are recorded in
//! [`Preprocessed::expansions`] so that diagnostics can explain them. Problems never stop the
//! preprocessor: they become diagnostics and it goes on with the rest of the input.
//!
//! Synthetic spellings (stringified and pasted tokens, `__LINE__`, `__FILE__`) live in a
//! `<scratch space>` file added to the source map at the end; the predefined macros come from a
//! `<built-in>` file and `-D`/`-U` from a `<command line>` file.

mod condition;
mod engine;
mod hideset;
mod macros;
mod options;
mod predefined;

pub use crate::lex::tokens_to_string;
pub use options::{split_words, BuildOptions, ClStd, MacroOption, SplitError};

use crate::diag::Diagnostics;
use crate::span::{FileId, SourceMap, Span};
use crate::token::{ExpansionId, Token};
use engine::{Engine, SCRATCH_FILE};
use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};

/// Where `#include` finds files.
pub trait FileLoader {
    /// The text of the file at `path`, or `None` when there is none.
    fn load(&self, path: &Path) -> Option<String>;
}

/// Reads included files from disk (files that are not UTF-8 are read as Latin-1).
#[derive(Clone, Copy, Debug, Default)]
pub struct FsLoader;

impl FileLoader for FsLoader {
    fn load(&self, path: &Path) -> Option<String> {
        if !path.is_file() {
            return None;
        }
        crate::span::read_source(path).ok()
    }
}

/// Included files held in memory, for tests and fuzzing. Paths are compared after removing
/// `.` components and resolving `..` lexically.
#[derive(Clone, Debug, Default)]
pub struct MemoryLoader(pub HashMap<PathBuf, String>);

impl FileLoader for MemoryLoader {
    fn load(&self, path: &Path) -> Option<String> {
        if let Some(text) = self.0.get(path) {
            return Some(text.clone());
        }
        let wanted = normalize(path);
        self.0.iter().find(|(p, _)| normalize(p) == wanted).map(|(_, text)| text.clone())
    }
}

fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// One macro expansion, indexed by [`ExpansionId`].
#[derive(Clone, Debug, PartialEq)]
pub struct Expansion {
    pub macro_name: String,
    /// The invocation as the user sees it (name through closing parenthesis).
    pub site: Span,
    /// The macro's definition (name through replacement list); undefined for `__LINE__` and
    /// `__FILE__`.
    pub definition: Span,
    /// The expansion the macro name itself came out of.
    pub parent: Option<ExpansionId>,
}

/// The result of preprocessing one translation unit.
#[derive(Clone, Debug)]
pub struct Preprocessed {
    /// The translation unit after preprocessing, ending with `TokenKind::Eof`.
    pub tokens: Vec<Token>,
    /// Indexed by `ExpansionId`.
    pub expansions: Vec<Expansion>,
    pub diagnostics: Diagnostics,
    /// Files read by `#include`, in the order they were opened.
    pub included_files: Vec<FileId>,
}

impl Preprocessed {
    pub fn expansion(&self, id: ExpansionId) -> Option<&Expansion> {
        self.expansions.get(id.0 as usize)
    }

    /// The expansion `id` and the ones it came out of, innermost first ("in expansion of
    /// macro …" notes). Parents always have smaller ids, so the chain ends.
    pub fn expansion_chain(&self, id: ExpansionId) -> impl Iterator<Item = &Expansion> + '_ {
        let mut next = self.expansion(id);
        std::iter::from_fn(move || {
            let current = next?;
            next = current.parent.and_then(|p| self.expansion(p));
            Some(current)
        })
        .take(self.expansions.len())
    }
}

/// Preprocesses `main` with the macros and include directories of `options`.
pub fn preprocess(
    sources: &mut SourceMap,
    main: FileId,
    options: &BuildOptions,
    loader: &dyn FileLoader,
) -> Preprocessed {
    let prelude = sources.add_text("<built-in>", predefined::prelude(options));
    let command_line = predefined::command_line(options);
    let command_line =
        (!command_line.is_empty()).then(|| sources.add_text("<command line>", command_line));
    let mut engine = Engine::new(sources, loader, options.include_dirs.clone());
    // Files are a stack: the last pushed is read first.
    engine.push_file(main);
    if let Some(file) = command_line {
        engine.push_file(file);
    }
    engine.push_file(prelude);
    let mut tokens = engine.run();
    let engine::Parts { expansions, diags, included_files, scratch } = engine.into_parts();
    let mut result =
        Preprocessed { tokens: Vec::new(), expansions, diagnostics: diags, included_files };
    if !scratch.is_empty() {
        let scratch_file = sources.add_text("<scratch space>", scratch);
        let fix = |span: &mut Span| {
            if span.file == SCRATCH_FILE {
                span.file = scratch_file;
            }
        };
        for t in &mut tokens {
            fix(&mut t.span);
            fix(&mut t.site);
        }
        for e in &mut result.expansions {
            fix(&mut e.site);
            fix(&mut e.definition);
        }
        for d in &mut result.diagnostics.0 {
            fix(&mut d.span);
            d.notes.iter_mut().for_each(|(span, _)| fix(span));
        }
    }
    result.tokens = tokens;
    result
}

/// Convenience for tests and tools: preprocesses `text` as a file `main.cl` with no includes
/// available; returns the source map with it.
pub fn preprocess_text(text: &str, options: &BuildOptions) -> (SourceMap, Preprocessed) {
    let mut sources = SourceMap::new();
    let main = sources.add_text("main.cl", text);
    let result = preprocess(&mut sources, main, options, &MemoryLoader::default());
    (sources, result)
}

#[cfg(test)]
mod tests;
