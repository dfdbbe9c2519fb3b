//! OpenCL devices for clmap: discovery, selection, program builds, launches, timing and
//! output comparison.
//!
//! The OpenCL library is loaded at run time, so the same binary runs on machines without
//! OpenCL; there every entry point returns [`DeviceError::NoRuntime`] instead of failing to
//! start. The crate takes OpenCL C source text (or a device binary such as PTX) and raw
//! argument bytes; it knows nothing of clmap's front end or workload format.
//!
//! ```no_run
//! use clmap_device::{select_device, KernelArg, LaunchSpec};
//!
//! let device = select_device("gpu")?;
//! let program = device.build("__kernel void twice(__global int *x) { x[get_global_id(0)] *= 2; }", "")?;
//! let mut args = vec![KernelArg::Buffer { bytes: 21i32.to_le_bytes().to_vec(), read_back: true }];
//! program.run(&LaunchSpec::new("twice", vec![1]), &mut args)?;
//! # Ok::<(), clmap_device::DeviceError>(())
//! ```

mod cl_codes;
mod device;
mod error;
mod flush;
mod image;
mod info;
mod launch;
mod program;
mod runtime;
mod select;
mod timing;

pub use cl_codes::{cl_error_explanation, cl_error_explanation_during, cl_error_name};
pub use device::{list_devices, listing_hint, select_device, Device};
pub use error::{ClStatus, DeviceError};
pub use image::ImageLayout;
pub use info::{DeviceInfo, DeviceType, LocalMemoryKind};
pub use launch::{KernelArg, LaunchSpec};
pub use program::{
    BufferTable, Program, RunOutcome, SequenceArg, SequenceLaunch, SequenceOutcome, SequenceWrite,
    SharedBuffer,
};
pub use runtime::{
    missing_nvidia_icd_hint, nvidia_driver_present, nvidia_icd_instructions, runtime_available,
};
pub use timing::{copy_bandwidth, human_ns, Timing, TimingOptions};
