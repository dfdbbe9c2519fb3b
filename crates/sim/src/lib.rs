//! The clmap simulator: a lock-step interpreter of OpenCL C kernels over the clmap IR.
//!
//! A work-group runs as one unit: every operation of the kernel executes over all active
//! work-items (lanes) at once, on structure-of-arrays registers, with an active-lane mask for
//! divergent control flow. Work-groups run in parallel on all cores; results and reports do
//! not depend on the number of threads.
//!
//! - [`compile_kernel`] turns a kernel of an [`clmap_lang::ir::Module`] into a [`Program`].
//! - [`run_kernel`] / [`run_program`] launch it over an NDRange with [`ArgValue`]s.
//! - [`run_workload`] runs a whole [`clmap_workload::Workload`] pipeline over a compiled
//!   module (compiling a workload's source is the exec layer's job, done once per workload).
//! - [`debugger`] stops a run at source lines and shows a work-item's variables and memory
//!   (`clmap run -i`), in programs compiled for it ([`compile_kernel_for_debugging`]).
//! - [`Observer`]s see every memory access, instruction, branch and barrier; the race and
//!   uninitialised-memory checkers are observers. Bounds checks and barrier divergence
//!   checks are always on; findings are [`Report`]s.
//!
//! Memory layout of the simulated address space: see [`memory`].
//!
//! # Semantics worth knowing
//!
//! - Lock-step execution is one legal schedule of OpenCL's work-items. A kernel that makes a
//!   work-item wait for another of its own group without a barrier (a spin lock) never
//!   finishes under it; the step budget ([`SimOptions::max_steps`]) ends such runs with
//!   [`SimError::StepLimit`].
//! - Out-of-bounds loads yield 0 and out-of-bounds stores are dropped, with a
//!   [`ReportKind::OutOfBounds`] report; integer division by zero yields 0 with a
//!   [`ReportKind::DivisionByZero`] report; shifts mask their count; signed overflow wraps.
//! - A barrier must be reached by every work-item of the group that has not returned, the
//!   same barrier (instruction, fences, and for `wait_group_events` events) by all: a
//!   [`ReportKind::BarrierDivergence`] report names each work-item that reached another than
//!   the group's first work-item did, or one that did not reach it.
//! - The race checker follows every byte of local and global memory within each barrier
//!   interval of a group, and, for global memory, between work-groups over the whole launch
//!   (those reports name the buffer, byte and groups, and point at the first store to that
//!   byte by the lowest work-group that stored to it).
//! - Reports are merged per (kind, location, object): the one kept is the first in work-group,
//!   then work-item order, with the number of occurrences.
//! - Images ([`ArgValue::Image`]) are tightly packed texels in a [`SharedBuffer`] with an
//!   [`ImageDesc`]; a sampler argument ([`ArgValue::Sampler`]) is its `CLK_*` bits. Reads and
//!   writes convert and address as OpenCL 1.2 §8.2–8.3 say (see [`image`]); a read outside the
//!   image gives the border colour (also where OpenCL leaves it undefined: `CLK_ADDRESS_NONE`,
//!   sampler-less reads), a write outside stores nothing and is a
//!   [`ReportKind::OutOfBounds`] report. Observers see texel reads and writes as global loads
//!   and stores of the image's storage.

mod arith;
mod async_copy;
mod barrier;
mod builtins;
mod checkers;
mod compile;
pub mod debugger;
mod error;
mod exec;
pub mod findings;
mod hoist;
pub mod image;
mod launch;
pub mod mask;
mod mathlib;
pub mod memory;
pub mod observer;
mod oclgrind_races;
pub mod paged;
mod printf;
pub mod profile;
mod program;
pub mod progress;
pub mod report;
mod rounding;
mod schedule;
mod shadow;
pub mod spent;
mod uninit;
mod value;
mod workload;

pub use compile::{compile_kernel, compile_kernel_for_debugging};
pub use error::SimError;
pub use image::{ImageArg, ImageDesc, ImageKind};
pub use launch::{
    default_local_size, run_kernel, run_program, run_program_with_globals, ArgValue, KernelRun,
    ProgramGlobals, SimOptions, MAX_GROUP_LANES,
};
pub use mask::Mask;
pub use memory::SharedBuffer;
pub use observer::{
    AccessBatch, AccessKind, AddressRun, GroupInfo, InstructionBatch, NoObserver, Observer,
    ObserverFactory, OpClass,
};
pub use program::Program;
pub use report::{InvalidAccess, RaceEntities, RaceEntity, Report, ReportKind};
pub use spent::Spent;
pub use workload::{
    run_workload, run_workload_observed, run_workload_seeded, run_workload_with, LaunchReport,
    WorkloadRun,
};
