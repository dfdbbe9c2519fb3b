//! Running workloads on a target and comparing what comes out.
//!
//! The workload crate describes *what* to run, the simulator and the device crate know *how* to
//! run one launch; this crate is the one layer in between. A [`PreparedWorkload`] is a workload
//! with its program compiled once; [`run_on`] walks its schedule (pipelines, repeats, swaps,
//! host writes) on the simulator or a device; [`differential`] runs two sides on the same
//! inputs and compares their outputs. The CLI, rewrite validation and benchmark campaigns all
//! run and compare workloads through it.

pub mod differential;
pub mod on_device;
pub mod prepared;
pub mod signatures;
pub mod target;

pub use differential::{differential, differential_on, Differential, Disagreement, Side, StopAt};
pub use on_device::{run_on_device, time_on_device, time_span_on_device, DeviceRun, ExecError};
pub use prepared::{compile_source, front_end_runs, kernel_params, PreparedWorkload};
pub use signatures::{load_checked, FrontEndSignatures};
pub use target::{run_on, Runner, Target, TargetRun};
