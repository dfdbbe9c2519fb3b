//! OpenCL devices for clmap: discovery, selection, program builds, launches and timing.
//!
//! The OpenCL library is loaded at run time, so the same binary runs on machines without
//! OpenCL; there every entry point returns [`DeviceError::NoRuntime`] instead of failing to
//! start. The crate takes OpenCL C source text (or a device binary such as PTX) and raw
//! argument bytes; it knows nothing of clmap's front end or workload format.

mod cl_codes;
mod error;

pub use cl_codes::{cl_error_explanation, cl_error_name};
pub use error::{ClStatus, DeviceError};
mod info;
mod runtime;
mod select;

pub use info::{DeviceInfo, DeviceType, LocalMemoryKind};
pub use runtime::{
    missing_nvidia_icd_hint, nvidia_driver_present, nvidia_icd_instructions, runtime_available,
};
mod device;
mod launch;
mod program;

pub use device::{list_devices, listing_hint, select_device, Device};
pub use launch::{KernelArg, LaunchSpec};
pub use program::{
    BufferTable, Program, RunOutcome, SequenceArg, SequenceLaunch, SequenceOutcome, SharedBuffer,
};
mod timing;

pub use timing::{copy_bandwidth, Timing, TimingOptions};
