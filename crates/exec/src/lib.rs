//! Running workloads on a target and comparing what comes out.
//!
//! The workload crate describes *what* to run, the simulator and the device crate know *how* to
//! run one launch; this crate walks a workload's schedule (pipelines, repeats, swaps) on either,
//! so the CLI, rewrite validation and benchmark campaigns all run workloads the same way.

pub mod identity;
pub mod on_device;
pub mod target;

pub use identity::device_identity;
pub use on_device::{run_on_device, time_on_device, DeviceRun, ExecError};
pub use target::{run_on, Target, TargetRun};
