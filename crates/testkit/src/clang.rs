//! clang as the judge of printed and generated OpenCL C.

use crate::Requirement;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The clang the tests check OpenCL C with: clang-16, the version CI installs and whose
/// OpenCL headers the corpus is written against.
#[derive(Clone, Debug)]
pub struct Clang {
    program: &'static str,
}

/// clang-16 when it runs, else `None` after printing why.
///
/// # Panics
/// When clang-16 is missing and `CLMAP_REQUIRE_CLANG=1`.
pub fn clang() -> Option<Clang> {
    const PROGRAM: &str = "clang-16";
    match Command::new(PROGRAM).arg("--version").output() {
        Ok(output) if output.status.success() => Some(Clang { program: PROGRAM }),
        Ok(output) => {
            Requirement::Clang.unavailable(format_args!(
                "`{PROGRAM} --version` failed: {}",
                String::from_utf8_lossy(&output.stderr).trim()
            ));
            None
        }
        Err(error) => {
            Requirement::Clang.unavailable(format_args!("{PROGRAM}: {error}"));
            None
        }
    }
}

/// How a source is checked: OpenCL C 1.2 with clang's default OpenCL header, syntax and types
/// only, plus the include directories, build options and warning policy given here.
#[derive(Clone, Debug, Default)]
pub struct ClangCheck {
    include_dirs: Vec<PathBuf>,
    options: Vec<String>,
    warnings_are_errors: bool,
}

impl ClangCheck {
    pub fn new() -> ClangCheck {
        ClangCheck::default()
    }

    /// Adds `-I dir`, for kernels that include headers beside them.
    pub fn include_dir(mut self, dir: impl Into<PathBuf>) -> ClangCheck {
        self.include_dirs.push(dir.into());
        self
    }

    /// Adds a workload's build options (`-D N=16 …`), split at whitespace as the OpenCL
    /// runtime splits them.
    pub fn options(mut self, options: &str) -> ClangCheck {
        self.options.extend(options.split_whitespace().map(str::to_string));
        self
    }

    /// `-Wall -Werror`: for generated code, which should not even warn.
    pub fn warnings_are_errors(mut self) -> ClangCheck {
        self.warnings_are_errors = true;
        self
    }

    /// Asserts that clang accepts `source`; `what` names it in the failure. Skips (with a
    /// message) where clang-16 is not installed, unless `CLMAP_REQUIRE_CLANG=1`.
    ///
    /// # Panics
    /// When clang rejects the source, or is required and missing.
    pub fn assert_compiles(&self, source: &str, what: &str) {
        let Some(clang) = clang() else { return };
        if let Err(message) = clang.check(source, self) {
            panic!("clang rejects {what}:\n{message}");
        }
    }
}

impl Clang {
    /// The program's name, for tests that run clang for something other than a syntax check.
    pub fn program(&self) -> &'static str {
        self.program
    }

    /// clang's verdict on `source`: `Err` holds its diagnostics.
    pub fn check(&self, source: &str, check: &ClangCheck) -> Result<(), String> {
        let mut command = Command::new(self.program);
        command
            .args(["-x", "cl", "-cl-std=CL1.2", "-Xclang", "-finclude-default-header"])
            .arg("-fsyntax-only");
        if check.warnings_are_errors {
            command.args(["-Wall", "-Werror"]);
        }
        for dir in &check.include_dirs {
            command.arg(format!("-I{}", dir.display()));
        }
        command
            .args(&check.options)
            .arg("-")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = command.spawn().map_err(|e| format!("{}: {e}", self.program))?;
        if let Some(mut stdin) = child.stdin.take() {
            stdin.write_all(source.as_bytes()).map_err(|e| format!("writing to clang: {e}"))?;
        }
        let output = child.wait_with_output().map_err(|e| format!("waiting for clang: {e}"))?;
        if output.status.success() {
            Ok(())
        } else {
            Err(String::from_utf8_lossy(&output.stderr).into_owned())
        }
    }

    /// clang's verdict on a file, checked where it lies (its includes resolve beside it).
    pub fn check_file(&self, path: &Path, check: &ClangCheck) -> Result<(), String> {
        let source = std::fs::read_to_string(path)
            .map_err(|e| format!("reading {}: {e}", path.display()))?;
        let check = match path.parent() {
            Some(dir) => check.clone().include_dir(dir),
            None => check.clone(),
        };
        self.check(&source, &check)
    }
}

/// Asserts that clang accepts `source` as OpenCL C 1.2; skipped as [`clang`] says.
///
/// # Panics
/// When clang rejects it, or is required and missing.
pub fn assert_compiles_with_clang(source: &str) {
    ClangCheck::new().assert_compiles(source, "the kernel");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clang_accepts_good_code_and_rejects_bad_code() {
        let Some(clang) = clang() else { return };
        let good = "__kernel void k(__global int *out) { out[get_global_id(0)] = N; }";
        assert!(clang.check(good, &ClangCheck::new().options("-D N=3")).is_ok());
        let message = clang.check(good, &ClangCheck::new()).expect_err("N is undefined");
        assert!(message.contains("N"), "{message}");
        let unused = "__kernel void k(__global int *out) { int unused; out[0] = 1; }";
        assert!(clang.check(unused, &ClangCheck::new()).is_ok());
        assert!(clang.check(unused, &ClangCheck::new().warnings_are_errors()).is_err());
    }
}
