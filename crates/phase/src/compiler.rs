//! The compile side of the search, behind a trait: the search only needs "sequence in, PTX (or
//! a classified failure) out", so tests can drive it with a fake compiler and the real one
//! wraps the LLVM toolchain.

use serde::Serialize;

/// PTX text ready for `clCreateProgramWithBinary` and its identity.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompiledPtx {
    /// The PTX, ending with a single NUL.
    pub text: Vec<u8>,
    /// Hash of the code (comments and formatting excluded): equal hashes mean equal code, so
    /// results are shared.
    pub hash: String,
}

/// How a compilation failed. The search counts these separately: a crash says something about
/// the pass sequence, a timeout about the budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CompileFailureKind {
    /// A stage died on a signal or aborted.
    Crashed,
    /// A stage ran past its time limit and was killed.
    TimedOut,
    /// A stage exited with an error (invalid IR, a refused pipeline, a missing file).
    Failed,
}

impl CompileFailureKind {
    /// The name stored in the database and shown in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            CompileFailureKind::Crashed => "crashed",
            CompileFailureKind::TimedOut => "timed_out",
            CompileFailureKind::Failed => "failed",
        }
    }

    /// Inverse of [`CompileFailureKind::as_str`].
    pub fn parse(text: &str) -> Option<CompileFailureKind> {
        match text {
            "crashed" => Some(CompileFailureKind::Crashed),
            "timed_out" => Some(CompileFailureKind::TimedOut),
            "failed" => Some(CompileFailureKind::Failed),
            _ => None,
        }
    }
}

/// A compilation that produced no PTX.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompileFailure {
    /// What happened.
    pub kind: CompileFailureKind,
    /// The stage and the end of its error output.
    pub message: String,
}

/// What compiling one sequence gave.
pub type CompileOutcome = Result<CompiledPtx, CompileFailure>;

/// The optimisation levels compared against (seed 003's "-O0" and "-OX" baselines).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum BaselineLevel {
    O0,
    O1,
    O2,
    O3,
    Os,
}

impl BaselineLevel {
    /// Every level, -O0 first.
    pub const ALL: [BaselineLevel; 5] = [
        BaselineLevel::O0,
        BaselineLevel::O1,
        BaselineLevel::O2,
        BaselineLevel::O3,
        BaselineLevel::Os,
    ];

    /// The flag as users write it.
    pub fn flag(self) -> &'static str {
        match self {
            BaselineLevel::O0 => "-O0",
            BaselineLevel::O1 => "-O1",
            BaselineLevel::O2 => "-O2",
            BaselineLevel::O3 => "-O3",
            BaselineLevel::Os => "-Os",
        }
    }
}

/// Turns pass sequences into PTX for one kernel source.
pub trait SequenceCompiler: Sync {
    /// The passes sequences may use.
    fn pool(&self) -> Vec<String>;

    /// Compiles every sequence, in parallel where the implementation can; one outcome per
    /// sequence, in order.
    fn compile_many(&self, sequences: &[Vec<String>]) -> Vec<CompileOutcome>;

    /// Compiles with a standard optimisation level instead of a sequence.
    fn compile_baseline(&self, level: BaselineLevel) -> CompileOutcome;

    /// A one-line description of the toolchain (versions, paths), for reports.
    fn describe(&self) -> String;

    /// What the PTX of a sequence depends on (compiler version, target), for the database
    /// key: results of one toolchain are not reused for another, but the same toolchain
    /// installed elsewhere (a carried directory on another machine) keeps them.
    fn identity(&self) -> String {
        self.describe()
    }

    /// Per pass of `passes`, whether it changes the code where it stands in the sequence
    /// (passes run one at a time from the kernel's unoptimised code); `None` when the
    /// implementation cannot tell or a pass fails alone. The minimiser drops the passes marked
    /// `false` in one step and keeps the result only when it compiles to the same PTX.
    fn passes_with_effect(&self, _passes: &[String]) -> Option<Vec<bool>> {
        None
    }

    /// A readable summary of what differs between two PTX texts (instruction mix, loops,
    /// registers), for explanations; `None` when the implementation cannot tell.
    fn explain_difference(&self, _from: &CompiledPtx, _to: &CompiledPtx) -> Option<String> {
        None
    }

    /// A structured summary of one PTX (instruction counts, loops), for JSON reports.
    fn summary(&self, _ptx: &CompiledPtx) -> Option<serde_json::Value> {
        None
    }

    /// Register and memory use reported by `ptxas -v` for one PTX, when it is available.
    fn resources(&self, _ptx: &CompiledPtx) -> Option<String> {
        None
    }
}
