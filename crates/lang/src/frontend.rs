//! The whole front end in one call: preprocess, parse, check, validate.
//!
//! Tools (the CLI, the simulator's workload runner, the transforms' tests) start here instead of
//! chaining the stages themselves, so every caller gets the same options handling and the same
//! guarantee: a [`Compiled`] module has passed the validator.

use crate::diag::{Diagnostic, Diagnostics, Severity};
use crate::ir::Module;
use crate::preprocess::{self, BuildOptions, Expansion, FileLoader, FsLoader, MemoryLoader};
use crate::span::{FileId, SourceFile, SourceMap, Span};
use std::collections::HashMap;
use std::path::Path;

/// A checked program with everything needed to point back at its source.
#[derive(Debug)]
pub struct Compiled {
    pub sources: SourceMap,
    pub main: FileId,
    pub module: Module,
    pub options: BuildOptions,
    /// Macro expansions, indexed by the `ExpansionId`s in token sites.
    pub expansions: Vec<Expansion>,
    /// Warnings (a compiled program has no errors).
    pub warnings: Diagnostics,
}

/// Why a program did not compile, with the sources needed to render the diagnostics.
#[derive(Debug)]
pub struct CompileFailure {
    pub sources: SourceMap,
    /// Errors and warnings of every stage that ran, in order.
    pub diagnostics: Diagnostics,
}

impl CompileFailure {
    pub fn render(&self) -> String {
        self.diagnostics.render(&self.sources)
    }

    fn without_sources(diagnostic: Diagnostic) -> Self {
        CompileFailure { sources: SourceMap::new(), diagnostics: Diagnostics(vec![diagnostic]) }
    }
}

/// Reads and compiles a file; `options` is a `clBuildProgram` option string.
pub fn compile_file(path: &Path, options: &str) -> Result<Compiled, CompileFailure> {
    let text = crate::span::read_source(path).map_err(|e| {
        CompileFailure::without_sources(Diagnostic::error(
            Span::UNDEFINED,
            format!("cannot read {}: {e}", path.display()),
        ))
    })?;
    let options = parse_options(options)?;
    let mut sources = SourceMap::new();
    let main =
        sources.add(SourceFile::new(path.display().to_string(), Some(path.to_path_buf()), text));
    compile(sources, main, options, &FsLoader)
}

/// Compiles in-memory text; `#include` is resolved against the `-I` directories on disk.
pub fn compile_source(name: &str, text: &str, options: &str) -> Result<Compiled, CompileFailure> {
    let options = parse_options(options)?;
    let mut sources = SourceMap::new();
    let main = sources.add_text(name, text);
    compile(sources, main, options, &FsLoader)
}

/// Compiles text that may include only the given in-memory headers (fuzzing, tests).
pub fn compile_isolated(text: &str, options: &str) -> Result<Compiled, CompileFailure> {
    let options = parse_options(options)?;
    let mut sources = SourceMap::new();
    let main = sources.add_text("input.cl", text);
    compile(sources, main, options, &MemoryLoader(Default::default()))
}

fn parse_options(options: &str) -> Result<BuildOptions, CompileFailure> {
    BuildOptions::parse(options).map_err(|message| {
        CompileFailure::without_sources(
            Diagnostic::error(Span::UNDEFINED, format!("invalid build options: {message}"))
                .with_help(
                "options are those of clBuildProgram, e.g. \"-DN=256 -I include -cl-std=CL1.2\"",
            ),
        )
    })
}

/// Compiles `text` in place of the main file of `compiled`, with the same build options and
/// the same included files (the texts the first compilation read; files it did not read come
/// from disk). Transforms that edit source text use it to check what they produced.
pub fn recompile_main(compiled: &Compiled, text: &str) -> Result<Compiled, CompileFailure> {
    let mut sources = SourceMap::new();
    let mut main = None;
    let mut included = HashMap::new();
    for (id, file) in compiled.sources.files() {
        if id == compiled.main {
            main = Some(sources.add(SourceFile::new(
                file.name.clone(),
                file.path.clone(),
                text.to_string(),
            )));
        } else if let Some(path) = &file.path {
            included.insert(path.clone(), file.text.clone());
        }
    }
    let main = main.unwrap_or_else(|| sources.add_text("input.cl", text));
    compile(sources, main, compiled.options.clone(), &SeenFilesFirst(MemoryLoader(included)))
}

/// Serves the files an earlier compilation read, then the disk.
struct SeenFilesFirst(MemoryLoader);

impl FileLoader for SeenFilesFirst {
    fn load(&self, path: &Path) -> Option<String> {
        self.0.load(path).or_else(|| FsLoader.load(path))
    }
}

thread_local! {
    /// Front-end runs made on this thread; see [`runs_on_this_thread`].
    static RUNS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// How many times this thread has run the front end ([`compile`], whatever called it).
/// Compiling is the expensive step of preparing and rewriting kernels; tests use the count
/// to hold the promise that a program is compiled once and a rewrite once more.
pub fn runs_on_this_thread() -> u64 {
    RUNS.with(std::cell::Cell::get)
}

/// One error per undeclared name (or unknown type name), however often the kernel uses it: a macro the host program
/// defines at build time (`N`, `TILE_SIZE`) is missing from every use at once, and one message
/// with the fix says more than a page of the same error. The first use keeps the error; the
/// others are counted in its help, which, for a name written like a macro, says how to define it.
fn merge_undeclared(diagnostics: Diagnostics, sources: &SourceMap) -> Diagnostics {
    // A missing macro that stands for a type (`REAL x;`) is an unknown type name.
    let undeclared = |d: &Diagnostic| {
        let name = d
            .message
            .strip_prefix(crate::sema::UNDECLARED_IDENTIFIER)
            .or_else(|| d.message.strip_prefix("unknown type name "))?;
        Some(name.trim_matches('\'').to_string())
    };
    let line = |span: Span| sources.get(span.file).map(|f| f.line_col(span.start).line);
    let mut uses: Vec<(String, Vec<Span>)> = Vec::new();
    for d in &diagnostics.0 {
        if let Some(name) = undeclared(d) {
            match uses.iter_mut().find(|(n, _)| *n == name) {
                Some((_, spans)) => spans.push(d.span),
                None => uses.push((name, vec![d.span])),
            }
        }
    }
    let mut merged = Diagnostics::default();
    for mut d in diagnostics.0 {
        let Some(name) = undeclared(&d) else {
            merged.push(d);
            continue;
        };
        let Some((_, spans)) = uses.iter().find(|(n, _)| *n == name) else { continue };
        if spans.first() != Some(&d.span) {
            continue;
        }
        let mut help = Vec::new();
        let looks_like_macro = !name.is_empty()
            && !name.chars().any(|c| c.is_ascii_lowercase())
            && !name.starts_with(|c: char| c.is_ascii_digit());
        if looks_like_macro {
            help.push(format!(
                "if `{name}` is a macro the host program defines, pass `-D {name}=VALUE` (or set \
                 `options = \"-D {name}=VALUE\"` in the workload)"
            ));
        }
        if spans.len() > 1 {
            let mut lines: Vec<u32> = spans[1..].iter().filter_map(|s| line(*s)).collect();
            lines.dedup();
            let lines: Vec<String> = lines.iter().map(u32::to_string).collect();
            help.push(format!(
                "`{name}` is also used on line{} {}",
                if lines.len() == 1 { "" } else { "s" },
                lines.join(", ")
            ));
        }
        if !help.is_empty() {
            d.help = Some(help.join("; "));
        }
        merged.push(d);
    }
    merged
}

/// The build options that act on warnings, as clang has them: `-w` drops every warning, and
/// `-Werror` makes each one an error (so the build fails).
fn apply_warning_options(diagnostics: &mut Diagnostics, options: &BuildOptions) {
    let has = |flag: &str| options.other.iter().any(|w| w == flag);
    if has("-w") {
        diagnostics.0.retain(|d| d.severity != Severity::Warning);
    } else if has("-Werror") {
        for d in diagnostics.0.iter_mut().filter(|d| d.severity == Severity::Warning) {
            d.severity = Severity::Error;
            d.message.push_str(" [-Werror]");
        }
    }
}

/// Runs every stage; stops after the first stage that reports an error.
pub fn compile(
    mut sources: SourceMap,
    main: FileId,
    options: BuildOptions,
    loader: &dyn FileLoader,
) -> Result<Compiled, CompileFailure> {
    RUNS.with(|runs| runs.set(runs.get() + 1));
    let pre = preprocess::preprocess(&mut sources, main, &options, loader);
    let mut diagnostics = pre.diagnostics;
    apply_warning_options(&mut diagnostics, &options);
    if diagnostics.has_errors() {
        return Err(CompileFailure { sources, diagnostics });
    }
    let (unit, parse_diagnostics) = crate::parse::parse(&pre.tokens);
    diagnostics.extend(merge_undeclared(parse_diagnostics, &sources));
    apply_warning_options(&mut diagnostics, &options);
    if diagnostics.has_errors() {
        return Err(CompileFailure { sources, diagnostics });
    }
    let (module, sema_diagnostics) = crate::sema::check_with(&unit, options.std().version());
    diagnostics.extend(merge_undeclared(sema_diagnostics, &sources));
    apply_warning_options(&mut diagnostics, &options);
    let module = match module {
        Some(module) if !diagnostics.has_errors() => module,
        _ => return Err(CompileFailure { sources, diagnostics }),
    };
    // A module that fails validation is a front-end bug; report it instead of letting a later
    // stage trip over it.
    if let Err(errors) = crate::valid::validate(&module) {
        for error in errors {
            let mut d = error.to_diagnostic();
            d.message = format!("internal error: invalid IR: {}", d.message);
            diagnostics.push(d);
        }
        return Err(CompileFailure { sources, diagnostics });
    }
    Ok(Compiled {
        sources,
        main,
        module,
        options,
        expansions: pre.expansions,
        warnings: diagnostics,
    })
}
