//! Opening a device: context, profiling command queue, program builds.

use std::sync::{Arc, Mutex};

use cl3::command_queue::CL_QUEUE_PROFILING_ENABLE;
use cl3::device::CL_DEVICE_TYPE_ALL;
use opencl3::command_queue::CommandQueue;
use opencl3::context::Context;
use opencl3::device::Device as ClDevice;
use opencl3::program::Program as ClProgram;
use opencl3::types::cl_device_id;

use crate::cl_codes::cl_error_name;
use crate::error::{ClResultExt, DeviceError};
use crate::info::{query_device_info, DeviceInfo};
use crate::program::Program;
use crate::runtime::{missing_nvidia_icd_hint, platforms};
use crate::select::choose_device;

/// CL_DEVICE_NOT_FOUND: a platform without devices of the requested type.
const DEVICE_NOT_FOUND: i32 = -1;
/// CL_BUILD_PROGRAM_FAILURE.
const BUILD_PROGRAM_FAILURE: i32 = -11;
/// CL_INVALID_BUILD_OPTIONS.
const INVALID_BUILD_OPTIONS: i32 = -43;

/// Serialises platform discovery and context creation. Some runtimes (PoCL 3) initialise their
/// devices lazily on the first query and crash when two threads race through that first query.
static DISCOVERY_LOCK: Mutex<()> = Mutex::new(());

/// Every device of every platform, with the handle needed to open it.
fn enumerate_devices() -> Result<Vec<(DeviceInfo, cl_device_id)>, DeviceError> {
    // A panic while holding the lock leaves nothing half-updated behind it, so a poisoned lock
    // is still usable.
    let _guard = DISCOVERY_LOCK.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let mut devices = Vec::new();
    let platforms = platforms()?;
    let mut platform_names = Vec::new();
    for (platform_index, platform) in platforms.iter().enumerate() {
        platform_names.push(platform.name().unwrap_or_default());
        let ids = match platform.get_devices(CL_DEVICE_TYPE_ALL) {
            Ok(ids) => ids,
            Err(error) if error.0 == DEVICE_NOT_FOUND => Vec::new(),
            Err(error) => return Err(DeviceError::cl("clGetDeviceIDs", error.0)),
        };
        for (device_index, id) in ids.into_iter().enumerate() {
            devices.push((query_device_info(platform, platform_index, id, device_index)?, id));
        }
    }
    if devices.is_empty() {
        return Err(DeviceError::NoDevice { hint: missing_nvidia_icd_hint(&platform_names) });
    }
    Ok(devices)
}

/// Lists every OpenCL device of every platform, in the loader's order.
pub fn list_devices() -> Result<Vec<DeviceInfo>, DeviceError> {
    Ok(enumerate_devices()?.into_iter().map(|(info, _)| info).collect())
}

/// Advice to print under a device listing: the NVIDIA ICD workaround when NVIDIA's driver is
/// installed but no NVIDIA platform is listed; `None` otherwise.
pub fn listing_hint(devices: &[DeviceInfo]) -> Option<String> {
    let names: Vec<String> = devices.iter().map(|info| info.platform_name.clone()).collect();
    let hint = missing_nvidia_icd_hint(&names);
    (!hint.is_empty()).then(|| hint.trim_start().to_string())
}

/// Opens the device a selector designates.
///
/// Selectors: a position in [`list_devices`] (`"0"`), `platform:device` (`"1:0"`), a device
/// type (`"cpu"`, `"gpu"`, `"accelerator"`), a case-insensitive substring of the device or
/// platform name (`"nvidia"`, `"pocl"`), or empty / `"default"` for the first GPU, else the
/// first device. Ambiguous or unmatched selectors list the choices in the error.
pub fn select_device(selector: &str) -> Result<Device, DeviceError> {
    let devices = enumerate_devices()?;
    let infos: Vec<DeviceInfo> = devices.iter().map(|(info, _)| info.clone()).collect();
    let position = choose_device(&infos, selector).map_err(|error| match error {
        DeviceError::SelectorNotFound { selector, choices } => DeviceError::SelectorNotFound {
            selector,
            choices: match listing_hint(&infos) {
                Some(hint) => format!("{choices}\n{hint}"),
                None => choices,
            },
        },
        other => other,
    })?;
    let (info, id) =
        devices.into_iter().nth(position).ok_or_else(|| DeviceError::SelectorNotFound {
            selector: selector.to_string(),
            choices: crate::select::describe_choices(&infos),
        })?;
    Device::open(info, id)
}

/// The OpenCL objects behind an open device, shared by the programs built on it.
pub(crate) struct DeviceContext {
    // Field order is drop order: the flusher's kernel and buffers, then the queue, must go
    // before the context they belong to.
    /// The cache flusher, made on the first flush (see [`crate::flush`]).
    pub(crate) flusher: std::sync::Mutex<Option<crate::flush::CacheFlusher>>,
    pub(crate) queue: CommandQueue,
    pub(crate) context: Context,
    /// The device handle; `opencl3`'s wrapper is Send and Sync (OpenCL handles may be used
    /// from any thread), which keeps [`Device`] shareable across threads.
    pub(crate) handle: ClDevice,
    pub(crate) info: DeviceInfo,
    /// Whether the queue records profiling timestamps.
    pub(crate) profiling: bool,
}

impl DeviceContext {
    /// An uninitialised read-write buffer of `bytes` bytes for clmap's own commands (the cache
    /// flush, the copy-bandwidth reference); `what` names it in errors.
    pub(crate) fn scratch_buffer(
        &self,
        bytes: usize,
        what: &str,
    ) -> Result<opencl3::memory::Buffer<u8>, DeviceError> {
        // SAFETY: no host pointer is passed.
        unsafe {
            opencl3::memory::Buffer::<u8>::create(
                &self.context,
                cl3::memory::CL_MEM_READ_WRITE,
                bytes,
                std::ptr::null_mut(),
            )
        }
        .during(&format!("clCreateBuffer ({what}, {bytes} bytes)"))
    }
}

/// An open OpenCL device: a context and an in-order command queue that records profiling
/// timestamps when the device supports them.
#[derive(Clone)]
pub struct Device {
    pub(crate) shared: Arc<DeviceContext>,
}

impl std::fmt::Debug for Device {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Device").field("info", &self.shared.info).finish()
    }
}

impl Device {
    fn open(info: DeviceInfo, id: cl_device_id) -> Result<Device, DeviceError> {
        let _guard = DISCOVERY_LOCK.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let context = Context::from_device(&ClDevice::new(id)).during("clCreateContext")?;
        let properties = if info.profiling { CL_QUEUE_PROFILING_ENABLE } else { 0 };
        let queue = create_queue(&context, id, properties)?;
        let profiling = info.profiling;
        let handle = ClDevice::new(id);
        let flusher = std::sync::Mutex::new(None);
        let shared = DeviceContext { flusher, queue, context, handle, info, profiling };
        Ok(Device { shared: Arc::new(shared) })
    }

    /// The same device in a new context with a new queue. After a kernel failure that leaves
    /// a context unusable (NVIDIA's `CL_OUT_OF_RESOURCES` from an illegal address), programs
    /// built on the new context run again; those of the old one stay broken.
    pub fn reopen(&self) -> Result<Device, DeviceError> {
        Device::open(self.shared.info.clone(), self.shared.handle.id())
    }

    /// What the device is and its limits.
    pub fn info(&self) -> &DeviceInfo {
        &self.shared.info
    }

    /// Compiles OpenCL C source for this device. A compiler rejection is
    /// [`DeviceError::BuildFailed`] carrying the device's build log.
    pub fn build(&self, source: &str, options: &str) -> Result<Program, DeviceError> {
        check_options(options)?;
        let program = ClProgram::create_from_source(&self.shared.context, source)
            .during("clCreateProgramWithSource")?;
        self.finish_build(program, options)
    }

    /// Loads a device binary (PTX for NVIDIA's OpenCL) exactly as given and builds it.
    pub fn build_binary(&self, binary: &[u8], options: &str) -> Result<Program, DeviceError> {
        check_options(options)?;
        if binary.is_empty() {
            return Err(DeviceError::cl("clCreateProgramWithBinary (empty binary)", -42));
        }
        // SAFETY: the device id belongs to this context, which is all the call requires.
        let program = unsafe {
            ClProgram::create_from_binary(
                &self.shared.context,
                &[self.shared.handle.id()],
                &[binary],
            )
        }
        .during("clCreateProgramWithBinary")?;
        self.finish_build(program, options)
    }

    fn finish_build(&self, mut program: ClProgram, options: &str) -> Result<Program, DeviceError> {
        match program.build(&[self.shared.handle.id()], options) {
            Ok(()) => Program::new(Arc::clone(&self.shared), program),
            Err(error) if error.0 == BUILD_PROGRAM_FAILURE => Err(DeviceError::BuildFailed {
                device: self.shared.info.name.clone(),
                log: self.build_log(&program),
            }),
            Err(error) if error.0 == INVALID_BUILD_OPTIONS => {
                Err(DeviceError::InvalidBuildOptions {
                    reason: format!(
                        "the compiler rejected `{options}` ({})\n{}",
                        cl_error_name(error.0),
                        self.build_log(&program)
                    ),
                })
            }
            Err(error) => Err(DeviceError::cl("clBuildProgram", error.0)),
        }
    }

    fn build_log(&self, program: &ClProgram) -> String {
        match program.get_build_log(self.shared.handle.id()) {
            Ok(log) => log.trim_end_matches(['\0', '\n', ' ']).to_string(),
            Err(error) => format!("(no build log: {})", cl_error_name(error.0)),
        }
    }
}

/// Build options travel as a C string, so an interior NUL would truncate them silently.
fn check_options(options: &str) -> Result<(), DeviceError> {
    if options.contains('\0') {
        return Err(DeviceError::InvalidBuildOptions {
            reason: "they contain a NUL character".to_string(),
        });
    }
    Ok(())
}

/// Creates the queue with the OpenCL 2.0 entry point, falling back to the 1.x one that older
/// platforms (and some ICDs that report 1.2) only provide.
fn create_queue(
    context: &Context,
    id: cl_device_id,
    properties: u64,
) -> Result<CommandQueue, DeviceError> {
    // SAFETY: `id` is the device the context was created from.
    let modern = unsafe { CommandQueue::create_with_properties(context, id, properties, 0) };
    match modern {
        Ok(queue) => Ok(queue),
        Err(_) => {
            #[allow(deprecated)]
            // SAFETY: as above.
            let legacy = unsafe { CommandQueue::create(context, id, properties) };
            legacy.during("clCreateCommandQueue")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_thread_safe<T: Send + Sync>() {}

    #[test]
    fn devices_and_programs_can_cross_threads() {
        assert_thread_safe::<Device>();
        assert_thread_safe::<Program>();
    }
}
