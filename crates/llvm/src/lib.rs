//! The LLVM toolchain as child processes: OpenCL C → LLVM IR → an explicit pass sequence → PTX.
//!
//! Phase-order search (seed 003) compiles one kernel with hundreds of pass sequences. This crate
//! does the compiling and nothing else:
//!
//! 1. [`Toolchain::detect`] finds clang, opt, llvm-link and llc of one LLVM version and the
//!    libclc NVPTX bitcode (`CLMAP_LLVM_BIN`, `CLMAP_LIBCLC`, `CLMAP_CLC_INCLUDE` override).
//! 2. [`front_end`] turns the source into [`Bitcode`] once; every sequence starts from it.
//! 3. [`detect_pass_pool`] lists the passes of the installed `opt`, keeps the transformations,
//!    probes each alone on small kernels and caches the usable ones with their levels.
//! 4. [`PassSequence::pipeline`] nests a sequence for the new pass manager; [`compile`],
//!    [`compile_many`] and [`compile_baseline`] run opt → llvm-link libclc → opt
//!    (always-inline, globaldce) → llc, each stage a child process with a time limit, so a
//!    crashing or hanging pass is a [`CompileError`] naming the stage, never a crash of ours.
//!    [`passes_with_effect`] runs a sequence one pass at a time to find the passes that change
//!    nothing where they stand, which the minimiser drops in one step.
//! 5. [`Ptx`] carries the text (NUL-terminated for `clCreateProgramWithBinary`) and a hash of
//!    its code, so sequences giving the same code share results.
//! 6. [`PtxSummary`] and [`ptxas_resources`] explain what a sequence changed.
//!
//! Children inherit the environment: carried LLVM binaries may need `LD_LIBRARY_PATH`.

mod detect;
mod effect;
mod error;
mod pipeline;
mod pool;
mod probe_kernels;
mod process;
mod ptx;
mod ptxas;
mod sequence;
mod summary;
mod toolchain;

pub use detect::{
    detect_pass_pool, detect_pass_pool_with, transformation_candidates, PoolDetection,
};
pub use effect::passes_with_effect;
pub use error::{CompileError, FailureKind, LlvmError, Stage, INSTALL_HINT};
pub use pipeline::{
    compile, compile_baseline, compile_many, compile_pipeline, effective_jobs, front_end, Bitcode,
    OptLevel,
};
pub use pool::{ExcludedPass, PassLevel, PassPool, PoolPass};
pub use ptx::{code_hash, Ptx};
pub use ptxas::{ptxas_resources, FunctionResources, PtxResources};
pub use sequence::PassSequence;
pub use summary::{InstructionKind, LoopSummary, PtxSummary};
pub use toolchain::{Toolchain, ToolchainConfig};
