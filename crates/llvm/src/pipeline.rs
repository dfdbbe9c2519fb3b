//! The compilation pipeline: clang once per source, then per sequence opt → llvm-link libclc →
//! opt (inline, drop unused) → llc, each a child process in a private temporary directory.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use clmap_lang::preprocess::split_words;
use sha2::{Digest, Sha256};

use crate::error::{CompileError, Stage};
use crate::pool::PassPool;
use crate::process::run_tool;
use crate::ptx::Ptx;
use crate::sequence::PassSequence;
use crate::toolchain::Toolchain;

/// The front end's output for one source: unoptimised bitcode with `optnone` disabled, so that
/// `opt` may transform it. Cheap to clone; reused for every sequence of a search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bitcode {
    bytes: Arc<Vec<u8>>,
    source_hash: String,
}

impl Bitcode {
    /// Bitcode produced elsewhere (for example carried from another machine).
    pub fn from_bytes(bytes: Vec<u8>) -> Bitcode {
        let source_hash = hex_sha256(&bytes);
        Bitcode { bytes: Arc::new(bytes), source_hash }
    }

    /// The bitcode file contents.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Hex SHA-256 of the source text, options and include directories it was compiled from
    /// (of the bytes, for [`Bitcode::from_bytes`]).
    pub fn source_hash(&self) -> &str {
        &self.source_hash
    }
}

/// The standard optimisation levels used as baselines.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OptLevel {
    /// No optimisation (the front end's output goes straight to linking and llc).
    O0,
    /// `default<O1>`.
    O1,
    /// `default<O2>`.
    O2,
    /// `default<O3>`.
    O3,
    /// `default<Os>`.
    Os,
}

impl OptLevel {
    /// Every level, -O0 first.
    pub const ALL: [OptLevel; 5] =
        [OptLevel::O0, OptLevel::O1, OptLevel::O2, OptLevel::O3, OptLevel::Os];

    /// The `opt -passes=` text, or `None` for -O0 where opt is skipped.
    pub fn pipeline(self) -> Option<&'static str> {
        match self {
            OptLevel::O0 => None,
            OptLevel::O1 => Some("default<O1>"),
            OptLevel::O2 => Some("default<O2>"),
            OptLevel::O3 => Some("default<O3>"),
            OptLevel::Os => Some("default<Os>"),
        }
    }

    /// The flag as users write it, e.g. `-O3`.
    pub fn flag(self) -> &'static str {
        match self {
            OptLevel::O0 => "-O0",
            OptLevel::O1 => "-O1",
            OptLevel::O2 => "-O2",
            OptLevel::O3 => "-O3",
            OptLevel::Os => "-Os",
        }
    }
}

/// Compiles OpenCL C `source` to bitcode for the toolchain's NVPTX target. `options` are the
/// workload's build options (`-D`, `-I`, `-cl-…` flags), split like a shell would split them;
/// `include_dirs` are added with `-I`.
pub fn front_end(
    tc: &Toolchain,
    source: &str,
    options: &str,
    include_dirs: &[PathBuf],
) -> Result<Bitcode, CompileError> {
    let user_options = split_words(options).map_err(|reason| CompileError {
        stage: Stage::FrontEnd,
        kind: crate::error::FailureKind::Failed,
        detail: format!("build options {options:?}: {reason}"),
    })?;
    let dir = temp_dir()?;
    let source_path = dir.path().join("kernel.cl");
    let output_path = dir.path().join("kernel.bc");
    write_file(&source_path, source.as_bytes())?;

    let mut command = Command::new(&tc.clang);
    command
        .args(["-x", "cl", "-cl-std=CL1.2", "-target", "nvptx64-nvidia-nvcl"])
        .arg(format!("-march={}", tc.sm))
        .arg("-cl-no-stdinc")
        .arg("-I")
        .arg(&tc.clc_include)
        .args(["-include", "clc/clc.h"])
        // Without this clang marks every function optnone at -O0 and opt would do nothing.
        .args(["-O0", "-Xclang", "-disable-O0-optnone"])
        // A crash must not leave reproducer files in the system's temporary directory.
        .arg("-fno-crash-diagnostics")
        .arg("-emit-llvm")
        .arg("-c");
    for include in include_dirs {
        command.arg("-I").arg(include);
    }
    command.args(&user_options).arg(&source_path).arg("-o").arg(&output_path);
    run_tool(command, Stage::FrontEnd, tc.timeout)?;
    let bytes = read_file(&output_path)?;

    let mut hasher = Sha256::new();
    hasher.update(source.as_bytes());
    hasher.update([0]);
    hasher.update(options.as_bytes());
    for include in include_dirs {
        hasher.update([0]);
        hasher.update(include.as_os_str().as_encoded_bytes());
    }
    Ok(Bitcode { bytes: Arc::new(bytes), source_hash: hex(&hasher.finalize()) })
}

/// Compiles `bc` with the passes of `seq` (nested by [`PassSequence::pipeline`]) to PTX.
pub fn compile(
    tc: &Toolchain,
    bc: &Bitcode,
    pool: &PassPool,
    seq: &PassSequence,
) -> Result<Ptx, CompileError> {
    let pipeline = seq.pipeline(pool);
    compile_pipeline(tc, bc, (!pipeline.is_empty()).then_some(pipeline.as_str()))
}

/// Compiles `bc` at a standard optimisation level to PTX.
pub fn compile_baseline(
    tc: &Toolchain,
    bc: &Bitcode,
    level: OptLevel,
) -> Result<Ptx, CompileError> {
    compile_pipeline(tc, bc, level.pipeline())
}

/// Compiles every sequence on `jobs` threads (0: one per available core), each compilation its
/// own chain of child processes. Results come back in the order of `seqs`.
pub fn compile_many(
    tc: &Toolchain,
    bc: &Bitcode,
    pool: &PassPool,
    seqs: &[PassSequence],
    jobs: usize,
) -> Vec<Result<Ptx, CompileError>> {
    parallel_map(seqs, jobs, |seq| compile(tc, bc, pool, seq))
}

/// Runs the stages after the front end. `pipeline` of `None` skips the first opt run.
pub fn compile_pipeline(
    tc: &Toolchain,
    bc: &Bitcode,
    pipeline: Option<&str>,
) -> Result<Ptx, CompileError> {
    let dir = temp_dir()?;
    let input = dir.path().join("input.bc");
    write_file(&input, bc.bytes())?;

    let optimised = match pipeline {
        Some(passes) => {
            let optimised = dir.path().join("optimised.bc");
            let mut command = Command::new(&tc.opt);
            command.arg(format!("-passes={passes}")).arg(&input).arg("-o").arg(&optimised);
            run_tool(command, Stage::Optimise, tc.timeout)?;
            optimised
        }
        None => input,
    };

    let linked = dir.path().join("linked.bc");
    let mut command = Command::new(&tc.llvm_link);
    command.arg("--only-needed").arg(&optimised).arg(&tc.libclc).arg("-o").arg(&linked);
    run_tool(command, Stage::Link, tc.timeout)?;

    // libclc's built-ins are linked after the sequence ran; inlining them (and dropping the
    // bodies) is what any OpenCL driver does, so it is not part of the searched sequence.
    let finalised = dir.path().join("final.bc");
    let mut command = Command::new(&tc.opt);
    command.arg("-passes=always-inline,globaldce").arg(&linked).arg("-o").arg(&finalised);
    run_tool(command, Stage::Finalise, tc.timeout)?;

    let ptx_path = dir.path().join("kernel.ptx");
    let mut command = Command::new(&tc.llc);
    command
        .arg("-march=nvptx64")
        .arg(format!("-mcpu={}", tc.sm))
        .arg(&finalised)
        .arg("-o")
        .arg(&ptx_path);
    run_tool(command, Stage::CodeGen, tc.timeout)?;
    let text = read_file(&ptx_path)?;
    if text.is_empty() {
        return Err(CompileError {
            stage: Stage::CodeGen,
            kind: crate::error::FailureKind::Failed,
            detail: "llc wrote an empty PTX file".to_string(),
        });
    }
    Ok(Ptx::from_llc_output(text))
}

/// Applies `work` to every item on `jobs` threads (0: available cores), keeping order.
pub(crate) fn parallel_map<T: Sync, R: Send>(
    items: &[T],
    jobs: usize,
    work: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    let jobs = effective_jobs(jobs).min(items.len().max(1));
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<(usize, R)>> = Mutex::new(Vec::with_capacity(items.len()));
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            scope.spawn(|| loop {
                let index = next.fetch_add(1, Ordering::Relaxed);
                let Some(item) = items.get(index) else {
                    break;
                };
                let result = work(item);
                if let Ok(mut done) = results.lock() {
                    done.push((index, result));
                }
            });
        }
    });
    let mut done = results.into_inner().unwrap_or_else(|poisoned| poisoned.into_inner());
    done.sort_by_key(|(index, _)| *index);
    done.into_iter().map(|(_, result)| result).collect()
}

/// `jobs`, or the number of available cores when it is 0.
pub fn effective_jobs(jobs: usize) -> usize {
    if jobs > 0 {
        jobs
    } else {
        std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)
    }
}

pub(crate) fn temp_dir() -> Result<tempfile::TempDir, CompileError> {
    tempfile::Builder::new()
        .prefix("clmap-llvm-")
        .tempdir()
        .map_err(|e| CompileError::setup(format!("cannot create a temporary directory: {e}")))
}

pub(crate) fn write_file(path: &Path, bytes: &[u8]) -> Result<(), CompileError> {
    std::fs::write(path, bytes)
        .map_err(|e| CompileError::setup(format!("cannot write {}: {e}", path.display())))
}

pub(crate) fn read_file(path: &Path) -> Result<Vec<u8>, CompileError> {
    std::fs::read(path)
        .map_err(|e| CompileError::setup(format!("cannot read {}: {e}", path.display())))
}

fn hex_sha256(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parallel_map_keeps_order() {
        let items: Vec<usize> = (0..50).collect();
        let doubled = parallel_map(&items, 4, |x| x * 2);
        assert_eq!(doubled, items.iter().map(|x| x * 2).collect::<Vec<_>>());
        assert!(parallel_map(&Vec::<usize>::new(), 0, |x| *x).is_empty());
    }
}
