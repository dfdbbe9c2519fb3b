//! Every kernel of the team's corpus (`tests/corpus/*.cl`) preprocesses and parses without a
//! single diagnostic, with the build options its workloads give it.

use clmap_lang::ast::ExternalDecl;
use clmap_lang::parse::parse;
use clmap_lang::preprocess::{preprocess, BuildOptions, FsLoader};
use clmap_lang::SourceMap;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus")
}

/// The value of a `key = "value"` line of a workload file (enough for `source` and `options`,
/// which are plain strings; the full format belongs to the workload crate).
fn string_field(toml: &str, key: &str) -> Option<String> {
    toml.lines().find_map(|line| {
        let (name, value) = line.split_once('=')?;
        if name.trim() != key {
            return None;
        }
        let value = value.trim();
        let value = value.strip_prefix('"')?;
        Some(value[..value.find('"')?].to_string())
    })
}

/// How one corpus source is built: the option strings of its workloads (the empty string when
/// none names options) and the kernels they launch.
#[derive(Debug, Default)]
struct Build {
    option_strings: Vec<String>,
    kernels: Vec<String>,
}

fn corpus_builds(dir: &Path) -> BTreeMap<PathBuf, Build> {
    let mut builds: BTreeMap<PathBuf, Build> = BTreeMap::new();
    let entries = std::fs::read_dir(dir).expect("the corpus directory exists");
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for path in &paths {
        if path.extension().is_some_and(|e| e == "cl") {
            builds.entry(path.clone()).or_default();
        }
    }
    for path in &paths {
        if path.extension().is_none_or(|e| e != "toml") {
            continue;
        }
        let text = std::fs::read_to_string(path).expect("readable workload");
        let Some(source) = string_field(&text, "source") else { continue };
        let options = string_field(&text, "options").unwrap_or_default();
        let build = builds.entry(dir.join(source)).or_default();
        if !build.option_strings.contains(&options) {
            build.option_strings.push(options);
        }
        build.kernels.extend(string_field(&text, "kernel"));
    }
    for build in builds.values_mut() {
        if build.option_strings.is_empty() {
            build.option_strings.push(String::new());
        }
    }
    builds
}

#[test]
fn every_corpus_kernel_parses_cleanly() {
    let dir = corpus_dir();
    let builds = corpus_builds(&dir);
    assert!(builds.len() >= 10, "the corpus looks empty: {builds:?}");
    let mut failures = Vec::new();
    let mut kernels_found = 0;
    for (path, build) in &builds {
        let Ok(text) = std::fs::read_to_string(path) else {
            failures.push(format!("{}: cannot be read", path.display()));
            continue;
        };
        for option_string in &build.option_strings {
            let mut options = BuildOptions::parse(option_string).expect("valid corpus options");
            options.include_dirs.push(dir.clone());
            let mut sources = SourceMap::new();
            let name = path.file_name().map_or_else(String::new, |n| n.to_string_lossy().into());
            let main =
                sources.add(clmap_lang::SourceFile::new(name, Some(path.clone()), text.clone()));
            let preprocessed = preprocess(&mut sources, main, &options, &FsLoader);
            let (unit, diags) = parse(&preprocessed.tokens);
            if !preprocessed.diagnostics.0.is_empty() || !diags.0.is_empty() {
                failures.push(format!(
                    "{} [{option_string}]:\n{}{}",
                    path.display(),
                    preprocessed.diagnostics.render(&sources),
                    diags.render(&sources)
                ));
            }
            let defined_kernels: Vec<&str> = unit
                .items
                .iter()
                .filter_map(|item| match item {
                    ExternalDecl::Function(f) if f.specifiers.kernel.is_some() => {
                        f.declarator.name.as_ref().map(|n| n.name.as_str())
                    }
                    _ => None,
                })
                .collect();
            kernels_found += defined_kernels.len();
            for kernel in &build.kernels {
                if !defined_kernels.contains(&kernel.as_str()) {
                    failures.push(format!(
                        "{}: kernel '{kernel}' not among the parsed kernels {defined_kernels:?}",
                        path.display()
                    ));
                }
            }
        }
    }
    assert!(kernels_found >= 20, "only {kernels_found} kernels found in the corpus");
    assert!(
        failures.is_empty(),
        "{} corpus builds failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
