//! Phase-order search: which LLVM pass sequence makes an OpenCL kernel fastest on an NVIDIA GPU.
//!
//! Seed 003 (Nobre, Reis, Cardoso) compiles OpenCL kernels to PTX through clang, `opt` with a
//! random pass sequence, libclc and `llc`, validates every new PTX on small inputs against the
//! vendor's own compilation, times the valid ones, and keeps the fastest. This crate is that
//! search, with the compile side ([`compiler::SequenceCompiler`]) and the device side
//! ([`evaluator::Evaluator`]) behind traits so that the search itself is tested without a GPU,
//! results stored in clmap's database ([`store`]) so a search resumes, a smarter strategy than
//! sampling ([`strategy`]), and minimisation of the best sequence ([`minimise`]).

pub mod aliasing;
pub mod comparison;
pub mod compiler;
pub mod device_eval;
pub mod evaluator;
pub mod llvm_compiler;
pub mod minimise;
pub mod progress;
pub mod report;
pub mod run;
pub mod search;
pub mod sequence;
pub mod store;
pub mod strategy;
pub mod validation;
pub mod worker;

pub use comparison::{compare_strategies, StrategyComparison};
pub use compiler::{
    BaselineLevel, CompileFailure, CompileFailureKind, CompileOutcome, CompiledPtx,
    SequenceCompiler,
};
pub use evaluator::{Evaluator, EvaluatorError, NoDevice, Verdict};
pub use progress::{NoProgress, Progress, TerminalProgress};
pub use report::PhaseReport;
pub use run::{minimise_same_code, resume_minimisation, run_phase, RunOptions};
pub use search::{Counts, Engine, Evaluation, SearchError, SearchOptions};
pub use store::{ContextKey, PhaseStore};
pub use strategy::Strategy;
