//! How a live OpenCL device is named in the performance database. It lives with the commands
//! that store measurements (`bench`, `phase`), the only code that needs both a device and the
//! database.

use clmap_db::DeviceIdentity;
use clmap_device::DeviceInfo;

/// The database identity of `info`: kind, platform, name, vendor and driver, with the sizes
/// that explain its figures (compute units, memories, clock) kept as details.
pub fn device_identity(info: &DeviceInfo) -> DeviceIdentity {
    DeviceIdentity {
        kind: info.device_type.as_str().to_string(),
        platform: info.platform_name.clone(),
        name: info.name.clone(),
        vendor: info.vendor.clone(),
        driver: info.driver_version.clone(),
        details: serde_json::json!({
            "compute_units": info.compute_units,
            "max_clock_mhz": info.max_clock_mhz,
            "global_mem_bytes": info.global_mem_bytes,
            "local_mem_bytes": info.local_mem_bytes,
            "local_mem_type": info.local_mem_type,
            "global_mem_cache_bytes": info.global_mem_cache_bytes,
            "device_version": info.device_version,
            "platform_version": info.platform_version,
            "simd_width": info.simd_width,
        }),
    }
}
