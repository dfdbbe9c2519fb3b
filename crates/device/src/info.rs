//! What clmap needs to know about a device, queried once when devices are listed.

use opencl3::device::Device as ClDevice;
use opencl3::platform::Platform;
use opencl3::types::cl_device_id;
use serde::{Deserialize, Serialize};

use crate::error::{ClResultExt, DeviceError};

/// Kind of processor, from CL_DEVICE_TYPE.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DeviceType {
    /// A CPU device (e.g. PoCL).
    Cpu,
    /// A GPU.
    Gpu,
    /// A dedicated accelerator (FPGA, DSP, …).
    Accelerator,
    /// Anything else (custom devices).
    Other,
}

impl DeviceType {
    fn from_bits(bits: u64) -> Self {
        // Bits of CL_DEVICE_TYPE_CPU, _GPU and _ACCELERATOR; a device may also carry DEFAULT.
        if bits & 4 != 0 {
            DeviceType::Gpu
        } else if bits & 2 != 0 {
            DeviceType::Cpu
        } else if bits & 8 != 0 {
            DeviceType::Accelerator
        } else {
            DeviceType::Other
        }
    }

    /// Lower-case name as users type it in selectors ("cpu", "gpu", …).
    pub fn as_str(self) -> &'static str {
        match self {
            DeviceType::Cpu => "cpu",
            DeviceType::Gpu => "gpu",
            DeviceType::Accelerator => "accelerator",
            DeviceType::Other => "other",
        }
    }
}

/// How `__local` memory is implemented (CL_DEVICE_LOCAL_MEM_TYPE). The distinction decides
/// whether staging data in local memory can pay off at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum LocalMemoryKind {
    /// Dedicated on-chip scratchpad (CL_LOCAL), as on GPUs.
    #[serde(rename = "local")]
    Scratchpad,
    /// Emulated in global memory (CL_GLOBAL), as on most CPUs.
    #[serde(rename = "global")]
    Emulated,
    /// The device reports no local memory (CL_NONE).
    #[serde(rename = "none")]
    None,
}

/// Description of one OpenCL device and its platform. It can be read back from its JSON: a
/// process that must not touch OpenCL itself learns its device from a worker that does.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeviceInfo {
    /// Position of the platform in the loader's list.
    pub platform_index: usize,
    /// Position of the device within its platform.
    pub device_index: usize,
    /// CL_PLATFORM_NAME.
    pub platform_name: String,
    /// CL_PLATFORM_VENDOR.
    pub platform_vendor: String,
    /// CL_PLATFORM_VERSION.
    pub platform_version: String,
    /// CL_DEVICE_NAME.
    pub name: String,
    /// CL_DEVICE_VENDOR.
    pub vendor: String,
    /// CL_DEVICE_TYPE.
    pub device_type: DeviceType,
    /// CL_DEVICE_MAX_COMPUTE_UNITS.
    pub compute_units: u32,
    /// CL_DEVICE_MAX_CLOCK_FREQUENCY in MHz.
    pub max_clock_mhz: u32,
    /// CL_DEVICE_GLOBAL_MEM_SIZE.
    pub global_mem_bytes: u64,
    /// CL_DEVICE_LOCAL_MEM_SIZE (per work-group).
    pub local_mem_bytes: u64,
    /// CL_DEVICE_LOCAL_MEM_TYPE.
    pub local_mem_type: LocalMemoryKind,
    /// CL_DEVICE_MAX_WORK_GROUP_SIZE.
    pub max_work_group_size: usize,
    /// CL_DEVICE_MAX_WORK_ITEM_SIZES, one entry per dimension.
    pub max_work_item_sizes: Vec<usize>,
    /// CL_DRIVER_VERSION.
    pub driver_version: String,
    /// CL_DEVICE_OPENCL_C_VERSION.
    pub opencl_c_version: String,
    /// CL_DEVICE_VERSION ("OpenCL 3.0 …").
    pub device_version: String,
    /// CL_DEVICE_MAX_MEM_ALLOC_SIZE.
    pub max_mem_alloc_bytes: u64,
    /// CL_DEVICE_GLOBAL_MEM_CACHE_SIZE (0 when the device reports no cache).
    pub global_mem_cache_bytes: u64,
    /// Whether command queues can profile (CL_QUEUE_PROFILING_ENABLE).
    pub profiling: bool,
    /// Whether double precision is supported.
    pub fp64: bool,
    /// Work-items the device runs in lock step (its warp or SIMD width):
    /// CL_DEVICE_WARP_SIZE_NV on NVIDIA, else CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE
    /// (OpenCL 3.0); absent when the device answers neither.
    #[serde(default)]
    pub simd_width: Option<u32>,
}

impl DeviceInfo {
    /// The selector that picks exactly this device: `platform:device`.
    pub fn index_selector(&self) -> String {
        format!("{}:{}", self.platform_index, self.device_index)
    }

    /// One line for listings and error messages.
    pub fn summary_line(&self) -> String {
        format!(
            "{}  {} [{}] on {} ({}, {} compute units, {} KiB local memory, {})",
            self.index_selector(),
            self.name,
            self.device_type.as_str(),
            self.platform_name,
            self.device_version,
            self.compute_units,
            self.local_mem_bytes / 1024,
            match self.local_mem_type {
                LocalMemoryKind::Scratchpad => "scratchpad",
                LocalMemoryKind::Emulated => "emulated in global memory",
                LocalMemoryKind::None => "absent",
            }
        )
    }

    /// The OpenCL version the device implements, parsed from `device_version`
    /// ("OpenCL 1.2 CUDA" → (1, 2)); `None` when the string does not follow the specification.
    pub fn opencl_version(&self) -> Option<(u32, u32)> {
        let rest = self.device_version.strip_prefix("OpenCL ")?;
        let number = rest.split_whitespace().next()?;
        let (major, minor) = number.split_once('.')?;
        Some((major.parse().ok()?, minor.parse().ok()?))
    }
}

/// Queries everything [`DeviceInfo`] holds. Properties that are essential for checking
/// launches fail the query; descriptive ones fall back to empty or zero.
pub(crate) fn query_device_info(
    platform: &Platform,
    platform_index: usize,
    device_id: cl_device_id,
    device_index: usize,
) -> Result<DeviceInfo, DeviceError> {
    let device = ClDevice::new(device_id);
    let local_mem_type = match device.local_mem_type().unwrap_or(0) {
        1 => LocalMemoryKind::Scratchpad,
        2 => LocalMemoryKind::Emulated,
        _ => LocalMemoryKind::None,
    };
    // CL_QUEUE_PROFILING_ENABLE is bit 1 of the queue properties a host queue supports.
    let profiling = device.queue_on_host_properties().map(|bits| bits & 2 != 0).unwrap_or(false);
    let fp64 = device.double_fp_config().map(|config| config != 0).unwrap_or(false)
        || device.extensions().map(|ext| ext.contains("cl_khr_fp64")).unwrap_or(false);
    let simd_width = device.wrap_size_nv().ok().filter(|&w| w > 0).or_else(|| {
        device
            .preferred_work_group_size_multiple()
            .ok()
            .and_then(|m| u32::try_from(m).ok())
            .filter(|&m| m > 0)
    });
    Ok(DeviceInfo {
        platform_index,
        device_index,
        platform_name: platform.name().unwrap_or_default().trim().to_string(),
        platform_vendor: platform.vendor().unwrap_or_default().trim().to_string(),
        platform_version: platform.version().unwrap_or_default().trim().to_string(),
        name: device.name().during("clGetDeviceInfo(CL_DEVICE_NAME)")?.trim().to_string(),
        vendor: device.vendor().unwrap_or_default().trim().to_string(),
        device_type: DeviceType::from_bits(
            device.dev_type().during("clGetDeviceInfo(CL_DEVICE_TYPE)")?,
        ),
        compute_units: device.max_compute_units().unwrap_or(0),
        max_clock_mhz: device.max_clock_frequency().unwrap_or(0),
        global_mem_bytes: device.global_mem_size().unwrap_or(0),
        local_mem_bytes: device
            .local_mem_size()
            .during("clGetDeviceInfo(CL_DEVICE_LOCAL_MEM_SIZE)")?,
        local_mem_type,
        max_work_group_size: device
            .max_work_group_size()
            .during("clGetDeviceInfo(CL_DEVICE_MAX_WORK_GROUP_SIZE)")?,
        max_work_item_sizes: device
            .max_work_item_sizes()
            .during("clGetDeviceInfo(CL_DEVICE_MAX_WORK_ITEM_SIZES)")?,
        driver_version: device.driver_version().unwrap_or_default().trim().to_string(),
        opencl_c_version: device.opencl_c_version().unwrap_or_default().trim().to_string(),
        device_version: device.version().unwrap_or_default().trim().to_string(),
        max_mem_alloc_bytes: device
            .max_mem_alloc_size()
            .during("clGetDeviceInfo(CL_DEVICE_MAX_MEM_ALLOC_SIZE)")?,
        global_mem_cache_bytes: device.global_mem_cache_size().unwrap_or(0),
        profiling,
        fp64,
        simd_width,
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A plausible GPU description for tests of pure logic (selection, launch checks).
    pub(crate) fn sample_info(platform: usize, device: usize, name: &str) -> DeviceInfo {
        DeviceInfo {
            platform_index: platform,
            device_index: device,
            platform_name: "Test Platform".into(),
            platform_vendor: "Test".into(),
            platform_version: "OpenCL 3.0".into(),
            name: name.into(),
            vendor: "Test".into(),
            device_type: DeviceType::Gpu,
            compute_units: 4,
            max_clock_mhz: 1000,
            global_mem_bytes: 1 << 30,
            local_mem_bytes: 48 * 1024,
            local_mem_type: LocalMemoryKind::Scratchpad,
            max_work_group_size: 1024,
            max_work_item_sizes: vec![1024, 1024, 64],
            driver_version: "1".into(),
            opencl_c_version: "OpenCL C 1.2".into(),
            device_version: "OpenCL 3.0 test".into(),
            max_mem_alloc_bytes: 1 << 28,
            global_mem_cache_bytes: 1 << 20,
            profiling: true,
            fp64: true,
            simd_width: Some(32),
        }
    }

    #[test]
    fn device_type_prefers_gpu_and_cpu_bits() {
        assert_eq!(DeviceType::from_bits(4 | 1), DeviceType::Gpu);
        assert_eq!(DeviceType::from_bits(2), DeviceType::Cpu);
        assert_eq!(DeviceType::from_bits(8), DeviceType::Accelerator);
        assert_eq!(DeviceType::from_bits(16), DeviceType::Other);
    }

    #[test]
    fn opencl_version_is_parsed() {
        let mut info = sample_info(0, 0, "x");
        info.device_version = "OpenCL 1.2 CUDA".into();
        assert_eq!(info.opencl_version(), Some((1, 2)));
        info.device_version = "garbage".into();
        assert_eq!(info.opencl_version(), None);
    }
}
