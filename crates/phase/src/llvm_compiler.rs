//! The real compiler: clang's OpenCL front end once per kernel, then `opt` with each sequence,
//! libclc, and `llc` to PTX, all as child processes (see the `clmap-llvm` crate).

use std::path::{Path, PathBuf};

use clmap_llvm::{
    compile_baseline, compile_many, detect_pass_pool, front_end, passes_with_effect,
    ptxas_resources, Bitcode, CompileError, FailureKind, OptLevel, PassPool, PassSequence, Ptx,
    PtxSummary, Toolchain, ToolchainConfig,
};
use clmap_workload::Workload;

use crate::compiler::{
    BaselineLevel, CompileFailure, CompileFailureKind, CompileOutcome, CompiledPtx,
    SequenceCompiler,
};

/// Why the compiler could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum PrepareError {
    /// The toolchain is missing or incomplete (an environment problem).
    #[error("{0}")]
    Toolchain(String),
    /// The kernel does not compile (a problem with the input).
    #[error("the kernel does not compile with clang: {0}")]
    FrontEnd(String),
}

/// Pass sequences compiled through the LLVM toolchain for one kernel.
pub struct LlvmCompiler {
    toolchain: Toolchain,
    bitcode: Bitcode,
    pool: PassPool,
    jobs: usize,
    sm: String,
}

impl LlvmCompiler {
    /// Finds the toolchain, compiles the workload's source to bitcode once, and detects (or
    /// reads from `pool_cache`) the usable pass pool.
    pub fn prepare(
        config: &ToolchainConfig,
        workload: &Workload,
        jobs: usize,
        pool_cache: Option<&Path>,
    ) -> Result<LlvmCompiler, PrepareError> {
        let toolchain =
            Toolchain::detect(config).map_err(|e| PrepareError::Toolchain(e.to_string()))?;
        let include_dirs: Vec<PathBuf> = workload
            .source_path
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .map(|d| std::fs::canonicalize(d).unwrap_or_else(|_| d.to_path_buf()))
            .into_iter()
            .collect();
        let bitcode = front_end(&toolchain, &workload.source, &workload.options, &include_dirs)
            .map_err(|e| PrepareError::FrontEnd(e.to_string()))?;
        let pool = detect_pass_pool(&toolchain, pool_cache, jobs.max(1))
            .map_err(|e| PrepareError::Toolchain(e.to_string()))?;
        Ok(LlvmCompiler { toolchain, bitcode, pool, jobs: jobs.max(1), sm: config.sm.clone() })
    }
}

fn classify(error: &CompileError) -> CompileFailure {
    let kind = match error.kind {
        FailureKind::Crashed => CompileFailureKind::Crashed,
        FailureKind::TimedOut => CompileFailureKind::TimedOut,
        FailureKind::Failed => CompileFailureKind::Failed,
    };
    CompileFailure { kind, message: error.to_string() }
}

fn to_ptx(ptx: &CompiledPtx) -> Ptx {
    Ptx { text: ptx.text.clone(), hash: ptx.hash.clone() }
}

fn to_compiled(ptx: Ptx) -> CompiledPtx {
    CompiledPtx { text: ptx.text, hash: ptx.hash }
}

impl SequenceCompiler for LlvmCompiler {
    fn pool(&self) -> Vec<String> {
        self.pool.names().into_iter().map(str::to_string).collect()
    }

    fn compile_many(&self, sequences: &[Vec<String>]) -> Vec<CompileOutcome> {
        let sequences: Vec<PassSequence> =
            sequences.iter().map(|s| PassSequence(s.clone())).collect();
        compile_many(&self.toolchain, &self.bitcode, &self.pool, &sequences, self.jobs)
            .into_iter()
            .map(|result| result.map(to_compiled).map_err(|e| classify(&e)))
            .collect()
    }

    fn compile_baseline(&self, level: BaselineLevel) -> CompileOutcome {
        let level = match level {
            BaselineLevel::O0 => OptLevel::O0,
            BaselineLevel::O1 => OptLevel::O1,
            BaselineLevel::O2 => OptLevel::O2,
            BaselineLevel::O3 => OptLevel::O3,
            BaselineLevel::Os => OptLevel::Os,
        };
        compile_baseline(&self.toolchain, &self.bitcode, level)
            .map(to_compiled)
            .map_err(|e| classify(&e))
    }

    fn describe(&self) -> String {
        self.toolchain.describe()
    }

    fn identity(&self) -> String {
        format!("LLVM {} {}", self.toolchain.version(), self.sm)
    }

    fn passes_with_effect(&self, passes: &[String]) -> Option<Vec<bool>> {
        passes_with_effect(
            &self.toolchain,
            &self.bitcode,
            &self.pool,
            &PassSequence(passes.to_vec()),
        )
        .ok()
    }

    fn explain_difference(&self, from: &CompiledPtx, to: &CompiledPtx) -> Option<String> {
        let before = PtxSummary::of(&to_ptx(from));
        let after = PtxSummary::of(&to_ptx(to));
        Some(before.diff(&after))
    }

    fn summary(&self, ptx: &CompiledPtx) -> Option<serde_json::Value> {
        serde_json::to_value(PtxSummary::of(&to_ptx(ptx))).ok()
    }

    fn resources(&self, ptx: &CompiledPtx) -> Option<String> {
        ptxas_resources(&to_ptx(ptx), &self.sm).map(|r| r.to_string())
    }
}
