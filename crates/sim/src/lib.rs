//! The clmap simulator: a lock-step interpreter of OpenCL C kernels over the clmap IR.
//!
//! A work-group runs as one unit: every operation of the kernel executes over all active
//! work-items (lanes) at once, on structure-of-arrays registers, with an active-lane mask for
//! divergent control flow. Work-groups run in parallel on all cores; results and reports do
//! not depend on the number of threads.
//!
//! - [`compile_kernel`] turns a kernel of an [`clmap_lang::ir::Module`] into a [`Program`].
//! - [`run_kernel`] / [`run_program`] launch it over an NDRange with [`ArgValue`]s.
//! - [`run_workload`] runs a whole [`clmap_workload::Workload`] pipeline.
//! - [`Observer`]s see every memory access, instruction, branch and barrier; the race and
//!   uninitialised-memory checkers are observers. Bounds checks and barrier divergence
//!   checks are always on; findings are [`Report`]s.
//!
//! Memory layout of the simulated address space: see [`memory`].

mod arith;
mod builtins;
mod checkers;
mod compile;
mod error;
mod exec;
mod launch;
pub mod mask;
mod mathlib;
pub mod memory;
pub mod observer;
mod printf;
mod program;
pub mod report;
mod value;
mod workload;

pub use compile::compile_kernel;
pub use error::SimError;
pub use launch::{
    default_local_size, run_kernel, run_program, ArgValue, KernelRun, SimOptions, MAX_GROUP_LANES,
};
pub use mask::Mask;
pub use memory::SharedBuffer;
pub use observer::{
    AccessBatch, AccessKind, GroupInfo, NoObserver, Observer, ObserverFactory, OpClass,
};
pub use program::Program;
pub use report::{Report, ReportKind};
pub use workload::{
    compile_workload_source, run_workload, run_workload_observed, LaunchReport, WorkloadRun,
};
