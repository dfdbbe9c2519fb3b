//! What the tests that drive the real LLVM toolchain share.

use std::path::Path;
use std::time::Duration;

use clmap_db::Database;
use clmap_llvm::ToolchainConfig;
use clmap_phase::llvm_compiler::{LlvmCompiler, PrepareError};
use clmap_phase::{ContextKey, PhaseStore};
use clmap_testkit::Requirement;
use clmap_workload::Workload;

/// The NVPTX compiler for one corpus workload (`tests/corpus/NAME`), with every core compiling;
/// `None` (after saying why) where the toolchain is missing and not required.
pub fn corpus_compiler(name: &str) -> Option<LlvmCompiler> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus").join(name);
    let workload = Workload::load(&path).expect("corpus workload");
    let config = ToolchainConfig {
        llvm_bin: None,
        libclc: None,
        clc_include: None,
        sm: "sm_90".to_string(),
        timeout: Duration::from_secs(60),
    };
    let jobs = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    match LlvmCompiler::prepare(&config, &workload, jobs, None) {
        Ok(compiler) => Some(compiler),
        Err(PrepareError::Toolchain(message)) => {
            Requirement::Clang.unavailable(format_args!("no LLVM toolchain for NVPTX: {message}"));
            None
        }
        Err(error) => panic!("the toolchain is required: {error}"),
    }
}

/// A fresh in-memory phase store for a search of corpus workload `name` (`pb_gemm`, its own
/// small workload) on a test evaluator called `device`, compiled by `toolchain`.
pub fn memory_store(name: &str, device: &str, toolchain: String) -> PhaseStore {
    let context = ContextKey {
        workload_identity: name.into(),
        small_identity: name.into(),
        device: device.into(),
        device_id: None,
        toolchain,
        workload_label: format!("{name}.toml"),
        small_label: format!("{name}.toml"),
    };
    PhaseStore::open(Database::in_memory().expect("db"), &context).expect("store")
}
