//! Architecture-independent workload metrics of OpenCL kernels, measured on the simulator.
//!
//! The metrics are those of AIWC (Johnston and Milthorpe) extended with relative local memory
//! usage and parallel spatial locality (seed 004), grouped as compute, parallelism, memory and
//! control. They are gathered by a [`MetricsObserver`] per simulator thread while the kernel
//! runs, with memory bounded by the number of distinct addresses and branches, and merged into
//! [`KernelMetrics`] that do not depend on the number of threads.
//!
//! [`Mode::Clmap`] follows the definitions in `docs/metrics.md`; [`Mode::AiwcCompat`]
//! reproduces the numbers of the published AIWC implementation, defects included, so that
//! results can be compared with published tables.
//!
//! ```no_run
//! # fn demo(
//! #     module: &clmap_lang::ir::Module,
//! #     workload: &clmap_workload::Workload,
//! # ) -> Result<(), clmap_sim::SimError> {
//! use clmap_metrics::{analyze_workload, Mode};
//! // `module` is the workload's source compiled once (clmap_exec::PreparedWorkload holds it).
//! let launches =
//!     analyze_workload(module, workload, &clmap_sim::SimOptions::default(), Mode::Clmap)?;
//! println!("{}", launches[0].memory.parallel_spatial_locality[0]);
//! # Ok(()) }
//! ```

mod branches;
mod counts;
pub mod entropy;
mod hasher;
mod keys;
mod observer;
mod psl;
mod stats;
mod summary;

pub use branches::{BranchSummary, HISTORY_LENGTH};
pub use entropy::{EntropyCurve, MAX_DROPPED_BITS};
pub use keys::{metric_key, region_of, Region};
pub use observer::{AccessCounts, MetricsObserver};
pub use stats::Spread;
pub use summary::{ComputeMetrics, KernelMetrics, MemoryMetrics, ParallelismMetrics, SimdWidth};

use serde::Serialize;

/// Which definitions the metrics follow.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// The definitions of `docs/metrics.md`.
    #[default]
    Clmap,
    /// The published AIWC implementation's numbers, defects included.
    AiwcCompat,
}

/// Runs every launch of `workload` on the simulator over its compiled program `module` and
/// returns the metrics of each launch (repetitions included), in launch order.
pub fn analyze_workload(
    module: &clmap_lang::ir::Module,
    workload: &clmap_workload::Workload,
    options: &clmap_sim::SimOptions,
    mode: Mode,
) -> Result<Vec<KernelMetrics>, clmap_sim::SimError> {
    let (_run, observers) = clmap_sim::run_workload_observed(module, workload, options, &|| {
        MetricsObserver::new(mode)
    })?;
    // The schedule says which kernel each step ran (repeats and groups expanded); the run
    // above has already walked it without error.
    let kernels = workload
        .schedule()
        .map_while(Result::ok)
        .filter_map(|step| workload.launches.get(step.launch).map(|l| l.kernel.as_str()));
    let metrics = clmap_sim::profile::timed("metrics summary", || {
        let threads = options.thread_count();
        observers.iter().zip(kernels).map(|(o, k)| o.finish_on(k, threads)).collect()
    });
    // The merged access counts (tens of megabytes on a large launch) are freed on a thread of
    // their own, as the launch frees what its merges were done with. When no thread can be
    // started, they are freed here.
    let _ = std::thread::Builder::new().spawn(move || drop(observers));
    Ok(metrics)
}
