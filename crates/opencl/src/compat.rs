//! Entry points of later OpenCL versions that programs built against newer headers call on
//! any platform, because their headers make them the default: creating queues, samplers,
//! buffers and images from property lists, cloning kernels, and the host timer. Each maps onto
//! its 1.2 counterpart; properties that only a 2.x device honours are refused with the code
//! the specification names.

use std::ffi::c_void;

use crate::cl::*;
use crate::event::now_ns;
use crate::image::{ImageDescriptor, ImageFormat};
use crate::info::{created, set_error};
use crate::kernel::Kernel;
use crate::object::Obj;
use crate::platform::the_device;
use crate::{cl_command_queue, cl_context, cl_device_id, cl_kernel, cl_mem, cl_sampler};

/// A zero-terminated list of (name, value) pairs.
unsafe fn pairs(list: *const u64) -> Vec<(u64, u64)> {
    let mut out = Vec::new();
    if list.is_null() {
        return out;
    }
    let mut at = list;
    while *at != 0 {
        out.push((*at, *at.add(1)));
        at = at.add(2);
    }
    out
}

pub unsafe extern "C" fn create_command_queue_with_properties(
    context: cl_context,
    device: cl_device_id,
    properties: *const u64,
    errcode_ret: *mut i32,
) -> cl_command_queue {
    let mut bits = 0;
    for (name, value) in pairs(properties) {
        match name as u32 {
            CL_QUEUE_PROPERTIES => bits = value,
            // Queue sizes and priorities belong to device-side queues and extensions.
            _ => {
                set_error(errcode_ret, CL_INVALID_VALUE);
                return std::ptr::null_mut();
            }
        }
    }
    crate::queue::create_command_queue(context, device, bits, errcode_ret)
}

pub unsafe extern "C" fn create_sampler_with_properties(
    context: cl_context,
    properties: *const u64,
    errcode_ret: *mut i32,
) -> cl_sampler {
    // The defaults the 2.0 specification gives.
    let (mut normalized, mut addressing, mut filter) = (1u32, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST);
    for (name, value) in pairs(properties) {
        match name as u32 {
            CL_SAMPLER_NORMALIZED_COORDS => normalized = value as u32,
            CL_SAMPLER_ADDRESSING_MODE => addressing = value as u32,
            CL_SAMPLER_FILTER_MODE => filter = value as u32,
            _ => {
                set_error(errcode_ret, CL_INVALID_VALUE);
                return std::ptr::null_mut();
            }
        }
    }
    crate::image::create_sampler(context, normalized, addressing, filter, errcode_ret)
}

pub unsafe extern "C" fn create_buffer_with_properties(
    context: cl_context,
    properties: *const u64,
    flags: u64,
    size: usize,
    host_ptr: *mut c_void,
    errcode_ret: *mut i32,
) -> cl_mem {
    if !pairs(properties).is_empty() {
        set_error(errcode_ret, CL_INVALID_PROPERTY);
        return std::ptr::null_mut();
    }
    crate::memory::create_buffer(context, flags, size, host_ptr, errcode_ret)
}

pub unsafe extern "C" fn create_image_with_properties(
    context: cl_context,
    properties: *const u64,
    flags: u64,
    format: *const ImageFormat,
    desc: *const ImageDescriptor,
    host_ptr: *mut c_void,
    errcode_ret: *mut i32,
) -> cl_mem {
    if !pairs(properties).is_empty() {
        set_error(errcode_ret, CL_INVALID_PROPERTY);
        return std::ptr::null_mut();
    }
    crate::image::create_image(context, flags, format, desc, host_ptr, errcode_ret)
}

pub unsafe extern "C" fn clone_kernel(source: cl_kernel, errcode_ret: *mut i32) -> cl_kernel {
    let result = (|| {
        let k = Obj::get(source)?;
        let p = Obj::get(k.inner.program)?;
        p.inner.state.lock().unwrap_or_else(|e| e.into_inner()).kernels += 1;
        crate::program::retain_program(k.inner.program);
        let args = k.inner.args.lock().unwrap_or_else(|e| e.into_inner()).clone();
        Ok(Obj::create(Kernel {
            program: k.inner.program,
            name: k.inner.name.clone(),
            built: k.inner.built.clone(),
            sim: k.inner.sim.clone(),
            params: k.inner.params.clone(),
            args: std::sync::Mutex::new(args),
            reqd_work_group_size: k.inner.reqd_work_group_size,
            attributes: k.inner.attributes.clone(),
        }))
    })();
    created(result, errcode_ret)
}

pub unsafe extern "C" fn get_host_timer(device: cl_device_id, host_timestamp: *mut u64) -> i32 {
    if device != the_device() {
        return CL_INVALID_DEVICE;
    }
    if host_timestamp.is_null() {
        return CL_INVALID_VALUE;
    }
    *host_timestamp = now_ns();
    CL_SUCCESS
}

pub unsafe extern "C" fn get_device_and_host_timer(
    device: cl_device_id,
    device_timestamp: *mut u64,
    host_timestamp: *mut u64,
) -> i32 {
    if device_timestamp.is_null() {
        return CL_INVALID_VALUE;
    }
    let code = get_host_timer(device, host_timestamp);
    if code == CL_SUCCESS {
        // One clock serves both: profiling times are host nanoseconds.
        *device_timestamp = *host_timestamp;
    }
    code
}
