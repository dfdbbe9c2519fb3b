//! The one platform and its one device, and their queries.
//!
//! Like Oclgrind's, the device answers every device-type query (CPU, GPU, accelerator, default,
//! all): programs written for a GPU ask for one and would otherwise stop before their first
//! kernel. Its limits come from [`crate::config`], so it can stand in for a real device.

use std::ffi::c_void;
use std::sync::OnceLock;

use crate::cl::*;
use crate::config::config;
use crate::info::{slice, Info};
use crate::object::{Kind, Obj, Object};
use crate::{cl_device_id, cl_platform_id};

pub struct Platform;
pub struct Device;

impl Object for Platform {
    const KIND: Kind = Kind::Platform;
    const INVALID: i32 = CL_INVALID_PLATFORM;
}
impl Object for Device {
    const KIND: Kind = Kind::Device;
    const INVALID: i32 = CL_INVALID_DEVICE;
}

pub const PLATFORM_NAME: &str = "clmap";
/// The name under `--oclgrind-output`: programs written for Oclgrind look for its platform by
/// name (Oclgrind's own host tests refuse any other), and in that mode clmap stands in for it.
pub const OCLGRIND_PLATFORM_NAME: &str = "Oclgrind";
pub const VENDOR: &str = "clmap";
/// The suffix the ICD loader shows for the platform's extension functions.
pub const ICD_SUFFIX: &str = "clmap";
const EXTENSIONS: &str = "cl_khr_icd cl_khr_global_int32_base_atomics \
    cl_khr_global_int32_extended_atomics cl_khr_local_int32_base_atomics \
    cl_khr_local_int32_extended_atomics cl_khr_int64_base_atomics \
    cl_khr_int64_extended_atomics cl_khr_byte_addressable_store cl_khr_fp64";

struct Singletons {
    platform: usize,
    device: usize,
}

fn singletons() -> &'static Singletons {
    static ONE: OnceLock<Singletons> = OnceLock::new();
    ONE.get_or_init(|| Singletons {
        platform: Obj::create(Platform) as usize,
        device: Obj::create(Device) as usize,
    })
}

pub fn the_platform() -> cl_platform_id {
    singletons().platform as cl_platform_id
}

pub fn the_device() -> cl_device_id {
    singletons().device as cl_device_id
}

/// `clGetPlatformIDs` and the loader's `clIcdGetPlatformIDsKHR`.
pub unsafe extern "C" fn get_platform_ids(
    num_entries: u32,
    platforms: *mut cl_platform_id,
    num_platforms: *mut u32,
) -> i32 {
    crate::findings::platform_reached();
    if (num_entries == 0 && !platforms.is_null())
        || (platforms.is_null() && num_platforms.is_null())
    {
        return CL_INVALID_VALUE;
    }
    if !platforms.is_null() {
        *platforms = the_platform();
    }
    if !num_platforms.is_null() {
        *num_platforms = 1;
    }
    CL_SUCCESS
}

fn check_platform(platform: cl_platform_id) -> Result<(), i32> {
    // NULL selects the one platform, as implementations without several platforms allow.
    if platform.is_null() || platform == the_platform() {
        Ok(())
    } else {
        Err(CL_INVALID_PLATFORM)
    }
}

pub unsafe extern "C" fn get_platform_info(
    platform: cl_platform_id,
    param: u32,
    size: usize,
    value: *mut c_void,
    size_ret: *mut usize,
) -> i32 {
    if let Err(code) = check_platform(platform) {
        return code;
    }
    let info = match param {
        CL_PLATFORM_PROFILE => Info::string("FULL_PROFILE"),
        CL_PLATFORM_VERSION => Info::string("OpenCL 1.2 clmap"),
        CL_PLATFORM_NAME if config().oclgrind_format => Info::string(OCLGRIND_PLATFORM_NAME),
        CL_PLATFORM_NAME => Info::string(PLATFORM_NAME),
        CL_PLATFORM_VENDOR => Info::string(VENDOR),
        CL_PLATFORM_EXTENSIONS => Info::string("cl_khr_icd"),
        CL_PLATFORM_ICD_SUFFIX_KHR => Info::string(ICD_SUFFIX),
        _ => return CL_INVALID_VALUE,
    };
    info.write(size, value, size_ret)
}

pub unsafe extern "C" fn get_device_ids(
    platform: cl_platform_id,
    device_type: u64,
    num_entries: u32,
    devices: *mut cl_device_id,
    num_devices: *mut u32,
) -> i32 {
    if let Err(code) = check_platform(platform) {
        return code;
    }
    let known = CL_DEVICE_TYPE_DEFAULT
        | CL_DEVICE_TYPE_CPU
        | CL_DEVICE_TYPE_GPU
        | CL_DEVICE_TYPE_ACCELERATOR
        | CL_DEVICE_TYPE_CUSTOM;
    if device_type != CL_DEVICE_TYPE_ALL && (device_type & !known != 0 || device_type == 0) {
        return CL_INVALID_DEVICE_TYPE;
    }
    if (num_entries == 0 && !devices.is_null()) || (devices.is_null() && num_devices.is_null()) {
        return CL_INVALID_VALUE;
    }
    // A device of one type is found by queries for that type (and DEFAULT, ALL) only, as on
    // a real machine; a device of every type by any query.
    let found = match config().device.device_type {
        _ if device_type == CL_DEVICE_TYPE_ALL || device_type & CL_DEVICE_TYPE_DEFAULT != 0 => true,
        Some(one) => device_type & one != 0,
        None => device_type != CL_DEVICE_TYPE_CUSTOM,
    };
    if !found {
        return CL_DEVICE_NOT_FOUND;
    }
    if !devices.is_null() {
        *devices = the_device();
    }
    if !num_devices.is_null() {
        *num_devices = 1;
    }
    CL_SUCCESS
}

pub unsafe extern "C" fn get_device_info(
    device: cl_device_id,
    param: u32,
    size: usize,
    value: *mut c_void,
    size_ret: *mut usize,
) -> i32 {
    if device != the_device() {
        return CL_INVALID_DEVICE;
    }
    match device_info(param) {
        Some(info) => info.write(size, value, size_ret),
        None => CL_INVALID_VALUE,
    }
}

fn device_info(param: u32) -> Option<Info> {
    let d = &config().device;
    let fp = CL_FP_DENORM
        | CL_FP_INF_NAN
        | CL_FP_ROUND_TO_NEAREST
        | CL_FP_ROUND_TO_ZERO
        | CL_FP_ROUND_TO_INF
        | CL_FP_FMA;
    let max_image_args = if crate::image::SUPPORTED { 128 } else { 0 };
    Some(match param {
        CL_DEVICE_TYPE => Info::ulong(d.device_type.unwrap_or(
            CL_DEVICE_TYPE_CPU
                | CL_DEVICE_TYPE_GPU
                | CL_DEVICE_TYPE_ACCELERATOR
                | CL_DEVICE_TYPE_DEFAULT,
        )),
        CL_DEVICE_VENDOR_ID => Info::uint(0x636c_6d70),
        CL_DEVICE_MAX_COMPUTE_UNITS => Info::uint(d.compute_units),
        CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS => Info::uint(3),
        CL_DEVICE_MAX_WORK_GROUP_SIZE => Info::size(d.max_work_group as usize),
        CL_DEVICE_MAX_WORK_ITEM_SIZES => Info::sizes(&d.max_work_item.map(|x| x as usize)),
        CL_DEVICE_PREFERRED_VECTOR_WIDTH_CHAR
        | CL_DEVICE_PREFERRED_VECTOR_WIDTH_SHORT
        | CL_DEVICE_PREFERRED_VECTOR_WIDTH_INT
        | CL_DEVICE_PREFERRED_VECTOR_WIDTH_LONG
        | CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT
        | CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE
        | CL_DEVICE_NATIVE_VECTOR_WIDTH_CHAR
        | CL_DEVICE_NATIVE_VECTOR_WIDTH_SHORT
        | CL_DEVICE_NATIVE_VECTOR_WIDTH_INT
        | CL_DEVICE_NATIVE_VECTOR_WIDTH_LONG
        | CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT
        | CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE => Info::uint(1),
        CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF | CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF => Info::uint(0),
        CL_DEVICE_MAX_CLOCK_FREQUENCY => Info::uint(1),
        CL_DEVICE_ADDRESS_BITS => Info::uint(64),
        CL_DEVICE_MAX_READ_IMAGE_ARGS | CL_DEVICE_MAX_WRITE_IMAGE_ARGS => {
            Info::uint(max_image_args)
        }
        CL_DEVICE_MAX_MEM_ALLOC_SIZE => Info::ulong(d.max_alloc),
        CL_DEVICE_IMAGE2D_MAX_WIDTH | CL_DEVICE_IMAGE2D_MAX_HEIGHT => Info::size(8192),
        CL_DEVICE_IMAGE3D_MAX_WIDTH
        | CL_DEVICE_IMAGE3D_MAX_HEIGHT
        | CL_DEVICE_IMAGE3D_MAX_DEPTH => Info::size(2048),
        CL_DEVICE_IMAGE_MAX_BUFFER_SIZE => Info::size(65536),
        CL_DEVICE_IMAGE_MAX_ARRAY_SIZE => Info::size(2048),
        CL_DEVICE_IMAGE_SUPPORT => Info::bool(crate::image::SUPPORTED),
        CL_DEVICE_MAX_PARAMETER_SIZE => Info::size(4096),
        CL_DEVICE_MAX_SAMPLERS => Info::uint(if crate::image::SUPPORTED { 16 } else { 0 }),
        CL_DEVICE_MEM_BASE_ADDR_ALIGN => Info::uint(1024),
        CL_DEVICE_MIN_DATA_TYPE_ALIGN_SIZE => Info::uint(128),
        CL_DEVICE_SINGLE_FP_CONFIG | CL_DEVICE_DOUBLE_FP_CONFIG => Info::ulong(fp),
        CL_DEVICE_HALF_FP_CONFIG => Info::ulong(0),
        CL_DEVICE_GLOBAL_MEM_CACHE_TYPE => Info::uint(CL_NONE),
        CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE => Info::uint(0),
        CL_DEVICE_GLOBAL_MEM_CACHE_SIZE => Info::ulong(0),
        CL_DEVICE_GLOBAL_MEM_SIZE => Info::ulong(d.global_mem),
        CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE => Info::ulong(d.constant_mem),
        CL_DEVICE_MAX_CONSTANT_ARGS => Info::uint(8),
        CL_DEVICE_LOCAL_MEM_TYPE => Info::uint(CL_LOCAL),
        CL_DEVICE_LOCAL_MEM_SIZE => Info::ulong(d.local_mem),
        CL_DEVICE_ERROR_CORRECTION_SUPPORT => Info::bool(false),
        CL_DEVICE_HOST_UNIFIED_MEMORY => Info::bool(true),
        CL_DEVICE_PROFILING_TIMER_RESOLUTION => Info::size(1),
        CL_DEVICE_ENDIAN_LITTLE => Info::bool(true),
        CL_DEVICE_AVAILABLE | CL_DEVICE_COMPILER_AVAILABLE | CL_DEVICE_LINKER_AVAILABLE => {
            Info::bool(true)
        }
        CL_DEVICE_EXECUTION_CAPABILITIES => Info::ulong(CL_EXEC_KERNEL),
        CL_DEVICE_QUEUE_PROPERTIES => {
            Info::ulong(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE)
        }
        CL_DEVICE_PLATFORM => Info::ptr(the_platform()),
        CL_DEVICE_NAME => Info::string(&d.name),
        CL_DEVICE_VENDOR => Info::string(VENDOR),
        CL_DRIVER_VERSION => Info::string(env!("CARGO_PKG_VERSION")),
        CL_DEVICE_PROFILE => Info::string("FULL_PROFILE"),
        CL_DEVICE_VERSION => Info::string("OpenCL 1.2 clmap"),
        CL_DEVICE_OPENCL_C_VERSION => Info::string("OpenCL C 1.2 clmap"),
        CL_DEVICE_EXTENSIONS => Info::string(EXTENSIONS),
        CL_DEVICE_BUILT_IN_KERNELS => Info::string(""),
        CL_DEVICE_PARENT_DEVICE => Info::ptr(std::ptr::null::<c_void>()),
        CL_DEVICE_PARTITION_MAX_SUB_DEVICES => Info::uint(0),
        CL_DEVICE_PARTITION_PROPERTIES | CL_DEVICE_PARTITION_TYPE => Info::isizes(&[0]),
        CL_DEVICE_PARTITION_AFFINITY_DOMAIN => Info::ulong(0),
        CL_DEVICE_REFERENCE_COUNT => Info::uint(1),
        CL_DEVICE_PREFERRED_INTEROP_USER_SYNC => Info::bool(true),
        CL_DEVICE_PRINTF_BUFFER_SIZE => Info::size(1 << 20),
        _ => return None,
    })
}

pub unsafe extern "C" fn retain_device(device: cl_device_id) -> i32 {
    if device == the_device() {
        CL_SUCCESS
    } else {
        CL_INVALID_DEVICE
    }
}

pub unsafe extern "C" fn release_device(device: cl_device_id) -> i32 {
    retain_device(device)
}

pub unsafe extern "C" fn create_sub_devices(
    device: cl_device_id,
    properties: *const isize,
    _num_devices: u32,
    _out: *mut cl_device_id,
    _num_ret: *mut u32,
) -> i32 {
    if device != the_device() {
        return CL_INVALID_DEVICE;
    }
    if properties.is_null() {
        return CL_INVALID_VALUE;
    }
    // The device reports no partition types, so every partition request is refused.
    CL_INVALID_VALUE
}

/// Checks a list of devices given to a context or a program: each must be the device.
pub unsafe fn check_devices(devices: *const cl_device_id, count: u32) -> Result<(), i32> {
    if devices.is_null() || count == 0 {
        return Err(CL_INVALID_VALUE);
    }
    if slice(devices, count as usize).iter().any(|d| *d != the_device()) {
        return Err(CL_INVALID_DEVICE);
    }
    Ok(())
}
