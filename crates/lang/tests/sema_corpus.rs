//! The whole front end against the shared inputs: every corpus kernel is checked without an
//! error and its module passes the validator; every semantic malformed input is rejected at
//! the line its header names.

use clmap_lang::diag::Diagnostics;
use clmap_lang::ir;
use clmap_lang::preprocess::{preprocess, BuildOptions, FsLoader};
use clmap_lang::{SourceFile, SourceMap};
use std::path::{Path, PathBuf};

fn repository_dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests").join(name)
}

fn files_with_extension(dir: &Path, extension: &str) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("directory exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == extension))
        .collect();
    paths.sort();
    paths
}

/// `options = "…"` of the workload files that name `source` (the empty string when none does).
fn build_options_for(dir: &Path, source: &str) -> Vec<String> {
    let mut found = Vec::new();
    for workload in files_with_extension(dir, "toml") {
        let text = std::fs::read_to_string(&workload).unwrap_or_default();
        let field = |key: &str| {
            text.lines().find_map(|line| {
                let (name, value) = line.split_once('=')?;
                let value = value.trim().strip_prefix('"')?;
                if name.trim() != key {
                    return None;
                }
                Some(value[..value.find('"')?].to_string())
            })
        };
        if field("source").as_deref() == Some(source) {
            let options = field("options").unwrap_or_default();
            if !found.contains(&options) {
                found.push(options);
            }
        }
    }
    if found.is_empty() {
        found.push(String::new());
    }
    found
}

/// Runs preprocess → parse → check; the diagnostics of every stage that ran, in order.
fn front_end(path: &Path, options: &str) -> (SourceMap, Option<ir::Module>, Diagnostics) {
    let text = std::fs::read_to_string(path).expect("readable source");
    let mut options = BuildOptions::parse(options).expect("valid build options");
    if let Some(dir) = path.parent() {
        options.include_dirs.push(dir.to_path_buf());
    }
    let mut sources = SourceMap::new();
    let name = path.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let main = sources.add(SourceFile::new(name, Some(path.to_path_buf()), text));
    let pre = preprocess(&mut sources, main, &options, &FsLoader);
    let mut diagnostics = pre.diagnostics;
    if diagnostics.has_errors() {
        return (sources, None, diagnostics);
    }
    let (unit, parse_diagnostics) = clmap_lang::parse::parse(&pre.tokens);
    diagnostics.extend(parse_diagnostics);
    if diagnostics.has_errors() {
        return (sources, None, diagnostics);
    }
    let (module, sema_diagnostics) = clmap_lang::sema::check(&unit);
    diagnostics.extend(sema_diagnostics);
    (sources, module, diagnostics)
}

#[test]
fn every_corpus_kernel_checks_and_validates() {
    let dir = repository_dir("corpus");
    let mut failures = Vec::new();
    let mut kernels = 0;
    for path in files_with_extension(&dir, "cl") {
        let source =
            path.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        for options in build_options_for(&dir, &source) {
            let (sources, module, diagnostics) = front_end(&path, &options);
            let Some(module) = module else {
                failures.push(format!("{source} [{options}]:\n{}", diagnostics.render(&sources)));
                continue;
            };
            if let Err(errors) = clmap_lang::valid::validate(&module) {
                failures.push(format!("{source} [{options}]: validator: {errors:?}"));
            }
            kernels += module.kernels().count();
        }
    }
    assert!(kernels >= 20, "only {kernels} kernels checked");
    assert!(
        failures.is_empty(),
        "{} corpus builds failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn malformed_inputs_are_rejected_at_the_named_line() {
    let dir = repository_dir("malformed");
    let mut failures = Vec::new();
    let mut checked = 0;
    for path in files_with_extension(&dir, "cl") {
        // Lexer, preprocessor and parser inputs are their stages' business (and tests).
        if !path.file_name().is_some_and(|n| n.to_string_lossy().starts_with("sema_")) {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let Some(expectation) =
            text.lines().next().and_then(|l| l.strip_prefix("// expect-error:"))
        else {
            continue;
        };
        let Some((line, needle)) = expectation.split_once(':') else { continue };
        let Ok(line) = line.trim().parse::<u32>() else { continue };
        let needle = needle.trim().to_lowercase();
        checked += 1;
        let (sources, module, diagnostics) = front_end(&path, "");
        let name = path.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        let Some(first) = diagnostics.0.iter().find(|d| d.is_error()) else {
            failures.push(format!("{name}: accepted (module: {})", module.is_some()));
            continue;
        };
        let at = sources.get(first.span.file).map(|f| f.line_col(first.span.start).line);
        if at != Some(line) || !first.message.to_lowercase().contains(&needle) {
            failures.push(format!(
                "{name}: expected line {line} with '{needle}', got:\n{}",
                diagnostics.render(&sources)
            ));
        }
    }
    assert!(checked >= 10, "only {checked} malformed inputs found");
    assert!(
        failures.is_empty(),
        "{} malformed inputs misreported:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Damaged programs (each corpus file with one line removed) must give diagnostics or a module
/// that validates, never a panic.
#[test]
fn corpus_with_a_line_removed_never_panics() {
    let dir = repository_dir("corpus");
    let mut runs = 0;
    let scratch_dir = clmap_testkit::Scratch::new("sema-damaged");
    for path in files_with_extension(&dir, "cl") {
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        for skip in (0..lines.len()).step_by(3) {
            let damaged: String = lines
                .iter()
                .enumerate()
                .filter(|(i, _)| *i != skip)
                .map(|(_, l)| format!("{l}\n"))
                .collect();
            let scratch = scratch_dir.write("damaged.cl", damaged);
            let (_, module, diagnostics) = front_end(&scratch, "-DN=16 -DTILE=16 -DBLOCK=16");
            if let Some(module) = module {
                assert!(
                    clmap_lang::valid::validate(&module).is_ok(),
                    "{} without line {}: module fails validation",
                    path.display(),
                    skip + 1
                );
            } else {
                assert!(diagnostics.has_errors());
            }
            runs += 1;
        }
    }
    assert!(runs > 50);
}
