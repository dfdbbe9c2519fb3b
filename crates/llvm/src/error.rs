//! Errors of the toolchain layer: finding the tools ([`LlvmError`]) and running them
//! ([`CompileError`]).

use std::fmt;
use std::path::PathBuf;

/// The apt command that installs everything this crate drives on Debian and Ubuntu.
pub const INSTALL_HINT: &str = "apt-get install llvm-16 libclc-16-dev clang-16";

/// Why the toolchain or the pass pool could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum LlvmError {
    /// A tool of the pipeline was not found anywhere we looked.
    #[error("{tool} not found (looked in {searched}); install it ({INSTALL_HINT}) or set CLMAP_LLVM_BIN to a directory holding clang, opt, llvm-link and llc")]
    ToolMissing {
        /// Tool name without version suffix, e.g. `opt`.
        tool: &'static str,
        /// Where we looked, for the user.
        searched: String,
    },
    /// The libclc NVPTX bitcode was not found.
    #[error("libclc bitcode for NVPTX (nvptx64--nvidiacl.bc) not found (looked in {searched}); install it ({INSTALL_HINT}) or set CLMAP_LIBCLC to the .bc file")]
    LibclcMissing {
        /// Where we looked.
        searched: String,
    },
    /// The libclc headers were not found.
    #[error("libclc headers (clc/clc.h) not found (looked in {searched}); install them ({INSTALL_HINT}) or set CLMAP_CLC_INCLUDE to the directory that contains clc/clc.h")]
    ClcHeadersMissing {
        /// Where we looked.
        searched: String,
    },
    /// A path given explicitly (configuration or environment) does not exist.
    #[error("{what} {path} (from {source_name}) does not exist")]
    GivenPathMissing {
        /// What the path should be.
        what: &'static str,
        /// The path as given.
        path: PathBuf,
        /// Where it came from: the configuration or an environment variable name.
        source_name: String,
    },
    /// The tools found belong to different LLVM versions; bitcode would not be portable.
    #[error("LLVM tools of different versions: {details}; point CLMAP_LLVM_BIN at one version")]
    VersionMismatch {
        /// Each tool with its version.
        details: String,
    },
    /// A tool ran but its version could not be read.
    #[error("cannot read the version of {path}: {reason}")]
    VersionUnreadable {
        /// The tool.
        path: PathBuf,
        /// What went wrong.
        reason: String,
    },
    /// Listing passes (`opt --print-passes`) or probing them failed as a whole.
    #[error("pass pool detection failed: {0}")]
    PoolDetection(String),
    /// A file system operation of the cache or of a temporary directory failed.
    #[error("{context}: {source}")]
    Io {
        /// What we were doing.
        context: String,
        /// The underlying error.
        source: std::io::Error,
    },
}

/// The pipeline stage a compilation failed in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    /// clang: OpenCL C to bitcode.
    FrontEnd,
    /// opt with the pass sequence (or a `default<Ox>` baseline).
    Optimise,
    /// llvm-link with libclc.
    Link,
    /// opt inlining libclc and dropping what is unused.
    Finalise,
    /// llc: bitcode to PTX.
    CodeGen,
    /// Work around the tools: temporary files, reading outputs.
    Setup,
}

impl Stage {
    /// Short name for messages and storage.
    pub fn as_str(self) -> &'static str {
        match self {
            Stage::FrontEnd => "front-end (clang)",
            Stage::Optimise => "optimise (opt)",
            Stage::Link => "link (llvm-link)",
            Stage::Finalise => "finalise (opt always-inline,globaldce)",
            Stage::CodeGen => "code generation (llc)",
            Stage::Setup => "setup",
        }
    }
}

impl fmt::Display for Stage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How a stage failed: searches count crashes, timeouts and ordinary errors apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureKind {
    /// Killed by a signal or aborted (an LLVM assertion or `LLVM ERROR` abort).
    Crashed,
    /// Ran past its time limit and was killed.
    TimedOut,
    /// Exited with an error status, or could not be started.
    Failed,
}

impl FailureKind {
    /// Short name for messages and storage.
    pub fn as_str(self) -> &'static str {
        match self {
            FailureKind::Crashed => "crashed",
            FailureKind::TimedOut => "timed_out",
            FailureKind::Failed => "failed",
        }
    }
}

/// A compilation that produced no PTX. It names the stage and keeps the end of its error output.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{stage} {}: {detail}", kind.as_str())]
pub struct CompileError {
    /// Where it failed.
    pub stage: Stage,
    /// How it failed.
    pub kind: FailureKind,
    /// Exit status or signal and the tail of stderr.
    pub detail: String,
}

impl CompileError {
    /// An error of the work around the tools (temporary files and the like).
    pub(crate) fn setup(detail: impl Into<String>) -> CompileError {
        CompileError { stage: Stage::Setup, kind: FailureKind::Failed, detail: detail.into() }
    }
}
