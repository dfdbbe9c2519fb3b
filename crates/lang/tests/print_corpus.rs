//! Every corpus kernel goes through the front end, the validator and the printer; the printed
//! text must be OpenCL C that clang accepts, and printing must be a fixpoint:
//! `print(check(parse(print(M)))) == print(M)`.
//!
//! clang-16 is needed for the syntax check; without it the check is skipped with a message,
//! unless `CLMAP_REQUIRE_CLANG=1` makes its absence a failure. `CLMAP_PRINT_OUT=dir` writes the
//! printed kernels there.

use clmap_lang::ir::Module;
use clmap_lang::preprocess::{self, BuildOptions, FsLoader};
use clmap_lang::span::SourceMap;
use clmap_lang::{dump, parse, print, sema, valid};
use clmap_testkit::ClangCheck;
use std::path::{Path, PathBuf};

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus")
}

/// The `options = "…"` line of a kernel's workload file, if any.
fn build_options(kernel: &Path) -> String {
    let toml = std::fs::read_to_string(kernel.with_extension("toml")).unwrap_or_default();
    toml.lines()
        .filter_map(|line| line.trim().strip_prefix("options"))
        .filter_map(|rest| rest.trim().strip_prefix('='))
        .map(|value| value.trim().trim_matches('"').to_string())
        .next()
        .unwrap_or_default()
}

/// Preprocess, parse, check and validate; the rendered diagnostics on failure.
fn front_end(name: &str, text: &str, options: &str, include: &Path) -> Result<Module, String> {
    let mut options = BuildOptions::parse(options)?;
    options.include_dirs.push(include.to_path_buf());
    let mut sources = SourceMap::new();
    let main = sources.add_text(name, text);
    let pre = preprocess::preprocess(&mut sources, main, &options, &FsLoader);
    let mut diagnostics = pre.diagnostics;
    let (unit, parse_diagnostics) = parse::parse(&pre.tokens);
    diagnostics.extend(parse_diagnostics);
    if diagnostics.has_errors() {
        return Err(diagnostics.render(&sources));
    }
    let (module, sema_diagnostics) = sema::check(&unit);
    diagnostics.extend(sema_diagnostics);
    let module = match module {
        Some(module) if !diagnostics.has_errors() => module,
        _ => return Err(diagnostics.render(&sources)),
    };
    if let Err(errors) = valid::validate(&module) {
        let rendered: String = errors.iter().map(|e| e.to_diagnostic().render(&sources)).collect();
        return Err(rendered);
    }
    Ok(module)
}

/// The dump without its table of types, whose order follows the order of declarations in the
/// text (the printer writes struct definitions first); types appear by name everywhere else.
fn without_type_table(dump: &str) -> String {
    let mut in_table = false;
    let mut out = String::new();
    for line in dump.lines() {
        if line == "types:" {
            in_table = true;
            continue;
        }
        if in_table && line.starts_with("  [") {
            continue;
        }
        in_table = false;
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// The dump with expressions renumbered by first appearance: the arena order of a subtree
/// follows the text (`(float4)(x) * v` creates the broadcast first, `x * v` last), the tree
/// does not.
fn renumbered(dump: &str) -> String {
    let mut numbers = std::collections::HashMap::new();
    let mut out = String::with_capacity(dump.len());
    let mut rest = dump;
    while let Some(at) = rest.find('%') {
        out.push_str(&rest[..=at]);
        rest = &rest[at + 1..];
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 {
            let next = numbers.len();
            let number = *numbers.entry(rest[..digits].to_string()).or_insert(next);
            out.push_str(&number.to_string());
            rest = &rest[digits..];
        }
    }
    out.push_str(rest);
    out
}

#[test]
fn corpus_prints_to_valid_opencl_c_and_is_a_fixpoint() {
    let dir = corpus_dir();
    let mut kernels: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("corpus directory")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "cl"))
        .collect();
    kernels.sort();
    assert!(!kernels.is_empty(), "no kernels in {}", dir.display());
    let clang = clmap_testkit::clang();
    let mut failures = Vec::new();
    let mut skipped = 0;
    for kernel in &kernels {
        let name = kernel.file_name().unwrap_or_default().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(kernel).expect("kernel text");
        let module = match front_end(&name, &text, &build_options(kernel), &dir) {
            Ok(module) => module,
            Err(message) => {
                // The front end's own tests own this failure; the printer has nothing to print.
                let first = message.lines().next().unwrap_or_default();
                eprintln!("skipped {name}: the front end rejects it: {first}");
                skipped += 1;
                continue;
            }
        };
        let printed = print::print_module(&module);
        // For inspecting the printer's output by eye.
        if let Ok(out) = std::env::var("CLMAP_PRINT_OUT") {
            let _ = std::fs::write(Path::new(&out).join(&name), &printed);
        }
        if let Some(Err(message)) = clang.as_ref().map(|c| c.check(&printed, &ClangCheck::new())) {
            failures.push(format!("{name}: clang rejects the printed text:\n{message}\n{printed}"));
        }
        let reprinted = match front_end(&name, &printed, "", &dir) {
            Ok(reparsed) => {
                // The same tree, not only the same text: a lost pair of parentheses would
                // reprint as itself.
                let before = renumbered(&without_type_table(&dump::dump_module(&module, None)));
                let after = renumbered(&without_type_table(&dump::dump_module(&reparsed, None)));
                if before != after {
                    let diff = clmap_lang::edit::unified_diff(
                        &before,
                        &after,
                        "original IR",
                        "reparsed IR",
                        2,
                    );
                    failures
                        .push(format!("{name}: the printed text means something else:\n{diff}"));
                }
                print::print_module(&reparsed)
            }
            Err(message) => {
                failures
                    .push(format!("{name}: printed text does not compile:\n{message}\n{printed}"));
                continue;
            }
        };
        if reprinted != printed {
            let diff =
                clmap_lang::edit::unified_diff(&printed, &reprinted, "printed", "reprinted", 2);
            failures.push(format!("{name}: printing is not a fixpoint:\n{diff}"));
        }
    }
    assert!(
        skipped * 2 < kernels.len(),
        "the front end rejects {skipped} of {} kernels",
        kernels.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {} kernels failed:\n{}",
        failures.len(),
        kernels.len(),
        failures.join("\n")
    );
}
