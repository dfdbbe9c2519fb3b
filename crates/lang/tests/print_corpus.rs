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
use clmap_lang::{parse, print, sema, valid};
use std::path::{Path, PathBuf};
use std::process::Command;

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

/// Runs clang's syntax check on `text`; `None` when clang-16 is not installed.
fn clang_check(text: &str, scratch: &Path) -> Option<Result<(), String>> {
    std::fs::write(scratch, text).ok()?;
    let output = Command::new("clang-16")
        .args(["-x", "cl", "-cl-std=CL1.2", "-Xclang", "-finclude-default-header", "-fsyntax-only"])
        .arg(scratch)
        .output()
        .ok()?;
    if output.status.success() {
        Some(Ok(()))
    } else {
        Some(Err(String::from_utf8_lossy(&output.stderr).into_owned()))
    }
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
    let require_clang = std::env::var("CLMAP_REQUIRE_CLANG").is_ok_and(|v| v == "1");
    let scratch_dir =
        std::env::temp_dir().join(format!("clmap-print-corpus-{}", std::process::id()));
    std::fs::create_dir_all(&scratch_dir).expect("scratch directory");
    let mut failures = Vec::new();
    let mut clang_missing = false;
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
        match clang_check(&printed, &scratch_dir.join(&name)) {
            Some(Ok(())) => {}
            Some(Err(message)) => failures
                .push(format!("{name}: clang rejects the printed text:\n{message}\n{printed}")),
            None => clang_missing = true,
        }
        let reprinted = match front_end(&name, &printed, "", &dir) {
            Ok(module) => print::print_module(&module),
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
    let _ = std::fs::remove_dir_all(&scratch_dir);
    assert!(
        skipped * 2 < kernels.len(),
        "the front end rejects {skipped} of {} kernels",
        kernels.len()
    );
    if clang_missing {
        assert!(!require_clang, "clang-16 is missing and CLMAP_REQUIRE_CLANG=1");
        eprintln!("clang-16 not found: printed corpus not checked with clang");
    }
    assert!(
        failures.is_empty(),
        "{} of {} kernels failed:\n{}",
        failures.len(),
        kernels.len(),
        failures.join("\n")
    );
}
