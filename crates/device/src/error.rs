//! Everything that can go wrong between clmap and an OpenCL runtime.

use crate::cl_codes::{cl_error_explanation, cl_error_explanation_during, cl_error_name};

/// An OpenCL status code, displayed with its symbolic name and, where the name alone misleads,
/// a sentence about its usual cause.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClStatus(pub i32);

impl std::fmt::Display for ClStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", cl_error_name(self.0), self.0)?;
        if let Some(explanation) = cl_error_explanation(self.0) {
            write!(f, ": {explanation}")?;
        }
        Ok(())
    }
}

impl ClStatus {
    /// The status as [`ClStatus`]'s `Display` shows it, but explained for the call that
    /// returned it (see [`cl_error_explanation_during`]).
    pub fn during(&self, call: &str) -> String {
        let mut text = format!("{} ({})", cl_error_name(self.0), self.0);
        if let Some(explanation) = cl_error_explanation_during(call, self.0) {
            text.push_str(": ");
            text.push_str(explanation);
        }
        text
    }
}

/// Errors of device discovery, builds and launches. Messages are complete sentences meant to be
/// shown to the user as they are.
#[derive(Debug, thiserror::Error)]
pub enum DeviceError {
    /// `libOpenCL.so.1` could not be loaded.
    #[error(
        "no OpenCL runtime found: install an ICD loader and a driver, e.g. Debian: apt-get \
         install ocl-icd-libopencl1 pocl-opencl-icd{hint}"
    )]
    NoRuntime {
        /// Extra advice (starts with a newline) or empty, e.g. the NVIDIA ICD workaround.
        hint: String,
    },
    /// The loader is there but lists no platform.
    #[error(
        "the OpenCL loader found no platform: install a driver, e.g. Debian: apt-get install \
         pocl-opencl-icd{hint}"
    )]
    NoPlatform {
        /// Extra advice (starts with a newline) or empty.
        hint: String,
    },
    /// Platforms exist but none has a device.
    #[error("no OpenCL device found on any platform{hint}")]
    NoDevice {
        /// Extra advice (starts with a newline) or empty.
        hint: String,
    },
    /// No device matches a selector.
    #[error("no OpenCL device matches `{selector}`; the devices are:\n{choices}")]
    SelectorNotFound {
        /// What the user asked for.
        selector: String,
        /// One line per device, with the index to select it by.
        choices: String,
    },
    /// More than one device matches a selector.
    #[error(
        "`{selector}` matches more than one OpenCL device; pick one by index \
         (platform:device):\n{choices}"
    )]
    SelectorAmbiguous {
        /// What the user asked for.
        selector: String,
        /// One line per matching device, with its index.
        choices: String,
    },
    /// The compiler rejected the program; `log` is the device's build log.
    #[error("the OpenCL program failed to build on {device}:\n{log}")]
    BuildFailed {
        /// Device name.
        device: String,
        /// The build log exactly as the runtime reported it.
        log: String,
    },
    /// Build options that cannot be passed to the runtime.
    #[error("invalid build options: {reason}")]
    InvalidBuildOptions {
        /// Why they were rejected.
        reason: String,
    },
    /// The program has no kernel of the requested name.
    #[error("the program has no kernel named `{name}`; it has: {available}")]
    KernelNotFound {
        /// Requested kernel name.
        name: String,
        /// Kernel names the program defines, comma separated.
        available: String,
    },
    /// The number of arguments given differs from the kernel's parameter count.
    #[error("kernel `{kernel}` takes {expected} arguments but {given} were given")]
    ArgumentCount {
        /// Kernel name.
        kernel: String,
        /// Parameters of the kernel.
        expected: usize,
        /// Arguments supplied.
        given: usize,
    },
    /// A launch description that no device could run (dimensions, zero sizes, …).
    #[error("invalid launch of `{kernel}`: {reason}")]
    InvalidLaunch {
        /// Kernel name.
        kernel: String,
        /// What is wrong, in a sentence.
        reason: String,
    },
    /// The requested work-group exceeds the device's or kernel's limits.
    #[error("invalid work-group size {local:?} for `{kernel}` on {device}: {reason} ({limits})")]
    InvalidWorkGroupSize {
        /// Kernel name.
        kernel: String,
        /// Device name.
        device: String,
        /// The requested local size.
        local: Vec<usize>,
        /// Which limit is violated.
        reason: String,
        /// The device's limits (max_work_group_size, max_work_item_sizes) and the kernel's own
        /// maximum when known, as one phrase.
        limits: String,
    },
    /// The launch asks for more `__local` memory than the device has.
    #[error(
        "`{kernel}` needs {requested} bytes of local memory per work-group ({detail}) but \
         {device} has {available} bytes"
    )]
    LocalMemoryExceeded {
        /// Kernel name.
        kernel: String,
        /// Device name.
        device: String,
        /// Bytes asked for.
        requested: u64,
        /// CL_DEVICE_LOCAL_MEM_SIZE.
        available: u64,
        /// Where the bytes come from (arguments, static arrays).
        detail: String,
    },
    /// A buffer larger than one allocation may be on this device.
    #[error(
        "buffer {what} has {bytes} bytes, more than the largest allocation {device} allows \
         ({max} bytes, CL_DEVICE_MAX_MEM_ALLOC_SIZE)"
    )]
    AllocationTooLarge {
        /// Which buffer (argument index or table index).
        what: String,
        /// Device name.
        device: String,
        /// Requested size.
        bytes: u64,
        /// CL_DEVICE_MAX_MEM_ALLOC_SIZE.
        max: u64,
    },
    /// A sequence launch refers to a buffer the table does not have.
    #[error("launch {launch} refers to shared buffer {index} but the table has {count} buffers")]
    UnknownSharedBuffer {
        /// Position of the launch in the sequence.
        launch: usize,
        /// The buffer index used.
        index: usize,
        /// Buffers in the table.
        count: usize,
    },
    /// Timing needs profiling, which this device does not offer.
    #[error("{device} does not support profiling events, so kernels cannot be timed on it")]
    ProfilingUnavailable {
        /// Device name.
        device: String,
    },
    /// Any other failure of an OpenCL call, with its symbolic name and, where the name alone
    /// misleads, the usual cause of that status from that call.
    #[error("{call} failed: {}", status.during(call))]
    Cl {
        /// What clmap was doing (usually the OpenCL function name).
        call: String,
        /// The status code returned.
        status: ClStatus,
    },
}

impl DeviceError {
    /// Wraps a raw status code from an OpenCL call.
    pub(crate) fn cl(call: impl Into<String>, code: i32) -> Self {
        DeviceError::Cl { call: call.into(), status: ClStatus(code) }
    }
}

/// Adapts `opencl3`'s error type to [`DeviceError::Cl`] with the name of the failed call.
pub(crate) trait ClResultExt<T> {
    fn during(self, call: &str) -> Result<T, DeviceError>;
}

impl<T> ClResultExt<T> for Result<T, opencl3::error_codes::ClError> {
    fn during(self, call: &str) -> Result<T, DeviceError> {
        self.map_err(|error| DeviceError::cl(call, error.0))
    }
}

impl<T> ClResultExt<T> for Result<T, i32> {
    fn during(self, call: &str) -> Result<T, DeviceError> {
        self.map_err(|code| DeviceError::cl(call, code))
    }
}
