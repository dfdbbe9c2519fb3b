//! Golden-file tests in the style of naga's snapshots.
//!
//! Every `tests/in/NAME.cl` of the project root goes through the front end. For a valid input
//! the printed OpenCL C is compared with `tests/out/NAME.cl` and the IR dump with
//! `tests/out/NAME.ir`; an input whose name starts with `err-` must be rejected, and its
//! rendered diagnostics are compared with `tests/out/NAME.diag`.
//!
//! `CLMAP_BLESS=1 cargo test -p clmap-lang --test snapshots` (re)writes the expected files;
//! otherwise a mismatch fails with a unified diff from the expected to the actual text.
//!
//! An input may start with a line `// options: -DN=4 …` giving build options.

use clmap_lang::ir::Module;
use clmap_lang::preprocess::{self, BuildOptions, FsLoader};
use clmap_lang::span::SourceMap;
use clmap_lang::{dump, edit, parse, print, sema, valid};
use clmap_testkit::ClangCheck;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The front end's result: the checked module, or the rendered diagnostics.
fn front_end(name: &str, text: &str) -> (SourceMap, Result<Module, String>) {
    let options =
        text.lines().next().and_then(|line| line.trim().strip_prefix("// options:")).unwrap_or("");
    let mut sources = SourceMap::new();
    let main = sources.add_text(name, text);
    let options = match BuildOptions::parse(options) {
        Ok(options) => options,
        Err(message) => return (sources, Err(format!("invalid options: {message}\n"))),
    };
    let pre = preprocess::preprocess(&mut sources, main, &options, &FsLoader);
    let mut diagnostics = pre.diagnostics;
    if diagnostics.has_errors() {
        let rendered = diagnostics.render(&sources);
        return (sources, Err(rendered));
    }
    let (unit, parse_diagnostics) = parse::parse(&pre.tokens);
    diagnostics.extend(parse_diagnostics);
    if diagnostics.has_errors() {
        let rendered = diagnostics.render(&sources);
        return (sources, Err(rendered));
    }
    let (module, sema_diagnostics) = sema::check(&unit);
    diagnostics.extend(sema_diagnostics);
    match module {
        Some(module) if !diagnostics.has_errors() => match valid::validate(&module) {
            Ok(()) => (sources, Ok(module)),
            Err(errors) => {
                let rendered = errors.iter().map(|e| e.to_diagnostic().render(&sources)).collect();
                (sources, Err(rendered))
            }
        },
        _ => {
            let rendered = diagnostics.render(&sources);
            (sources, Err(rendered))
        }
    }
}

/// Compares `actual` with the expected file, or writes it when blessing.
fn check(expected_path: &Path, actual: &str, bless: bool, failures: &mut Vec<String>) {
    let display = expected_path.strip_prefix(root()).unwrap_or(expected_path).display().to_string();
    if bless {
        if let Err(e) = std::fs::write(expected_path, actual) {
            failures.push(format!("cannot write {display}: {e}"));
        }
        return;
    }
    match std::fs::read_to_string(expected_path) {
        Ok(expected) if expected == actual => {}
        Ok(expected) => {
            let diff = edit::unified_diff(&expected, actual, &display, "actual", 3);
            failures.push(format!("{display} differs:\n{diff}"));
        }
        Err(_) => failures.push(format!("{display} is missing; run with CLMAP_BLESS=1")),
    }
}

#[test]
fn snapshots() {
    let bless = std::env::var("CLMAP_BLESS").is_ok_and(|v| v == "1");
    let input_dir = root().join("tests/in");
    let output_dir = root().join("tests/out");
    let mut inputs: Vec<PathBuf> = std::fs::read_dir(&input_dir)
        .expect("tests/in")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "cl"))
        .collect();
    inputs.sort();
    assert!(!inputs.is_empty(), "no inputs in {}", input_dir.display());
    if bless {
        std::fs::create_dir_all(&output_dir).expect("tests/out");
    }
    let mut failures = Vec::new();
    for input in &inputs {
        let stem = input.file_stem().unwrap_or_default().to_string_lossy().into_owned();
        let name = format!("{stem}.cl");
        let text = std::fs::read_to_string(input).expect("input text");
        let (sources, result) = front_end(&name, &text);
        match (stem.starts_with("err-"), result) {
            (true, Err(rendered)) => {
                check(&output_dir.join(format!("{stem}.diag")), &rendered, bless, &mut failures)
            }
            (true, Ok(_)) => failures.push(format!("{name}: expected errors, but it compiled")),
            (false, Ok(module)) => {
                let printed = print::print_module(&module);
                check(&output_dir.join(format!("{stem}.cl")), &printed, bless, &mut failures);
                let dumped = dump::dump_module(&module, Some(&sources));
                check(&output_dir.join(format!("{stem}.ir")), &dumped, bless, &mut failures);
            }
            (false, Err(rendered)) => {
                failures.push(format!("{name} does not compile:\n{rendered}"))
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The printed snapshots are themselves inputs the printer reproduces exactly, and clang
/// accepts them.
#[test]
fn printed_snapshots_are_fixpoints() {
    let output_dir = root().join("tests/out");
    let Ok(entries) = std::fs::read_dir(&output_dir) else { return };
    let clang = clmap_testkit::clang();
    let mut failures = Vec::new();
    for path in entries.filter_map(|e| e.ok().map(|e| e.path())) {
        if path.extension().is_none_or(|x| x != "cl") {
            continue;
        }
        let name = path.file_name().unwrap_or_default().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(&path).expect("printed snapshot");
        if let Some(Err(message)) = clang.as_ref().map(|c| c.check_file(&path, &ClangCheck::new()))
        {
            failures.push(format!("clang rejects {name}:\n{message}"));
        }
        match front_end(&name, &text).1 {
            Ok(module) => {
                let reprinted = print::print_module(&module);
                if reprinted != text {
                    failures.push(edit::unified_diff(&text, &reprinted, &name, "reprinted", 2));
                }
            }
            Err(rendered) => failures.push(format!("{name} does not compile:\n{rendered}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
