//! The LLVM toolchain as child processes: OpenCL C → LLVM IR → an explicit pass sequence → PTX.

mod error;
mod process;

pub use error::{CompileError, FailureKind, LlvmError, Stage, INSTALL_HINT};
mod toolchain;

pub use toolchain::{Toolchain, ToolchainConfig};
mod ptx;

pub use ptx::{code_hash, Ptx};
mod pool;
mod sequence;

pub use pool::{ExcludedPass, PassLevel, PassPool, PoolPass};
pub use sequence::PassSequence;
mod pipeline;

pub use pipeline::{
    compile, compile_baseline, compile_many, compile_pipeline, effective_jobs, front_end, Bitcode,
    OptLevel,
};
mod detect;
mod probe_kernels;

pub use detect::{detect_pass_pool, detect_pass_pool_with, PoolDetection};
mod summary;

pub use summary::{InstructionKind, LoopSummary, PtxSummary};
mod ptxas;

pub use ptxas::{ptxas_resources, FunctionResources, PtxResources};
