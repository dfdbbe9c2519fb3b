//! What clmap's tests share: the OpenCL device and the clang they run against (each either
//! present, or absent with a printed reason, or demanded by an environment variable), scratch
//! directories that clean up after themselves, and a runner for the `clmap` binary.
//!
//! This crate is a dev-dependency only; nothing in a shipped crate depends on it.
//!
//! On a developer's machine a missing device or compiler skips the tests that need it, with a
//! line saying why. CI sets `CLMAP_REQUIRE_OPENCL=1` and `CLMAP_REQUIRE_CLANG=1`: there the same
//! absence fails the test, so a broken install cannot pass as green.

mod clang;
mod cli;
mod opencl;
mod scratch;

pub use clang::{assert_compiles_with_clang, clang, Clang, ClangCheck};
pub use cli::{clmap, clmap_command, ClmapRun};
pub use opencl::{opencl_device, opencl_device_matching};
pub use scratch::Scratch;

use std::path::PathBuf;

/// The repository's root directory (where `examples/` and `tests/` live).
pub fn root() -> PathBuf {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest
        .parent()
        .and_then(|crates| crates.parent())
        .map(PathBuf::from)
        .expect("crates/testkit sits two levels below the repository root")
}

/// Something a test needs from the machine, and the variable that makes it mandatory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Requirement {
    /// An OpenCL platform with a device (PoCL in CI).
    OpenCl,
    /// clang-16 and, for the tests that compile to PTX, the rest of the LLVM toolchain.
    Clang,
}

impl Requirement {
    /// The environment variable that, set to `1`, turns a skip into a failure.
    pub fn variable(self) -> &'static str {
        match self {
            Requirement::OpenCl => "CLMAP_REQUIRE_OPENCL",
            Requirement::Clang => "CLMAP_REQUIRE_CLANG",
        }
    }

    /// Whether this run demands it.
    pub fn required(self) -> bool {
        std::env::var(self.variable()).is_ok_and(|value| value == "1")
    }

    /// Reports that the requirement is not met: prints why and returns, so the caller can skip,
    /// unless the run demands it, in which case it panics with the reason.
    ///
    /// # Panics
    /// When the requirement's variable is `1`.
    pub fn unavailable(self, why: impl std::fmt::Display) {
        let what = match self {
            Requirement::OpenCl => "no OpenCL device",
            Requirement::Clang => "no clang toolchain",
        };
        if self.required() {
            panic!("{}=1 but {what}: {why}", self.variable());
        }
        eprintln!("skipped: {what} ({why}); set {}=1 to make this a failure", self.variable());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_root_holds_the_examples_and_the_corpus() {
        assert!(root().join("examples/vector_add.toml").is_file());
        assert!(root().join("tests/corpus").is_dir());
    }

    #[test]
    fn each_requirement_has_its_own_variable() {
        assert_eq!(Requirement::OpenCl.variable(), "CLMAP_REQUIRE_OPENCL");
        assert_eq!(Requirement::Clang.variable(), "CLMAP_REQUIRE_CLANG");
    }
}
