//! Images and samplers.
//!
//! Until the simulator runs image built-ins, the device reports no image support
//! (`CL_DEVICE_IMAGE_SUPPORT` is false), and the image entry points answer as the
//! specification says they must on such a device: `CL_INVALID_OPERATION`.

use std::ffi::c_void;

use crate::cl::*;
use crate::info::created;
use crate::object::{Kind, Obj, Object};
use crate::{cl_command_queue, cl_context, cl_event, cl_mem, cl_sampler};

/// Whether the device supports images.
pub const SUPPORTED: bool = false;

/// What an image memory object is, besides its bytes.
#[derive(Clone, Copy, Debug)]
pub struct ImageMeta {
    pub object_type: u32,
    pub channel_order: u32,
    pub channel_type: u32,
    pub width: usize,
    pub height: usize,
    pub depth: usize,
    pub array_size: usize,
}

pub struct Sampler {
    pub context: cl_context,
    pub normalized: bool,
    pub addressing: u32,
    pub filter: u32,
}

unsafe impl Send for Sampler {}
unsafe impl Sync for Sampler {}

impl Object for Sampler {
    const KIND: Kind = Kind::Sampler;
    const INVALID: i32 = CL_INVALID_SAMPLER;
}

fn no_images(name: &str) -> i32 {
    crate::unsupported(name, CL_INVALID_OPERATION)
}

pub unsafe extern "C" fn create_image(
    context: cl_context,
    _flags: u64,
    _format: *const c_void,
    _desc: *const c_void,
    _host_ptr: *mut c_void,
    errcode_ret: *mut i32,
) -> cl_mem {
    let result = Obj::get(context).and_then(|_| Err(no_images("clCreateImage")));
    created(result, errcode_ret)
}

pub unsafe extern "C" fn create_image_2d(
    context: cl_context,
    _flags: u64,
    _format: *const c_void,
    _width: usize,
    _height: usize,
    _row_pitch: usize,
    _host_ptr: *mut c_void,
    errcode_ret: *mut i32,
) -> cl_mem {
    let result = Obj::get(context).and_then(|_| Err(no_images("clCreateImage2D")));
    created(result, errcode_ret)
}

pub unsafe extern "C" fn create_image_3d(
    context: cl_context,
    _flags: u64,
    _format: *const c_void,
    _width: usize,
    _height: usize,
    _depth: usize,
    _row_pitch: usize,
    _slice_pitch: usize,
    _host_ptr: *mut c_void,
    errcode_ret: *mut i32,
) -> cl_mem {
    let result = Obj::get(context).and_then(|_| Err(no_images("clCreateImage3D")));
    created(result, errcode_ret)
}

pub unsafe extern "C" fn get_supported_image_formats(
    context: cl_context,
    _flags: u64,
    _image_type: u32,
    _num_entries: u32,
    _formats: *mut c_void,
    num_formats: *mut u32,
) -> i32 {
    if let Err(code) = Obj::get(context) {
        return code;
    }
    if !num_formats.is_null() {
        *num_formats = 0;
    }
    CL_SUCCESS
}

pub unsafe extern "C" fn get_image_info(
    image: cl_mem,
    _param: u32,
    _size: usize,
    _value: *mut c_void,
    _size_ret: *mut usize,
) -> i32 {
    match Obj::get(image) {
        Ok(_) => CL_INVALID_MEM_OBJECT,
        Err(code) => code,
    }
}

pub unsafe extern "C" fn create_sampler(
    context: cl_context,
    _normalized: u32,
    _addressing: u32,
    _filter: u32,
    errcode_ret: *mut i32,
) -> cl_sampler {
    let result = Obj::get(context).and_then(|_| Err(no_images("clCreateSampler")));
    created(result, errcode_ret)
}

pub unsafe extern "C" fn retain_sampler(sampler: cl_sampler) -> i32 {
    Obj::retain(sampler)
}

pub unsafe extern "C" fn release_sampler(sampler: cl_sampler) -> i32 {
    match Obj::release(sampler) {
        Ok(Some(s)) => crate::context::release_context(s.context),
        Ok(None) => CL_SUCCESS,
        Err(code) => code,
    }
}

pub unsafe extern "C" fn get_sampler_info(
    sampler: cl_sampler,
    _param: u32,
    _size: usize,
    _value: *mut c_void,
    _size_ret: *mut usize,
) -> i32 {
    match Obj::get(sampler) {
        Ok(_) => CL_INVALID_VALUE,
        Err(code) => code,
    }
}

macro_rules! image_command {
    ($name:ident, $api:literal, ($($arg:ident: $ty:ty),*)) => {
        pub unsafe extern "C" fn $name(queue: cl_command_queue, $($arg: $ty),*) -> i32 {
            $(let _ = $arg;)*
            if let Err(code) = Obj::<crate::queue::Queue>::get(queue) {
                return code;
            }
            no_images($api)
        }
    };
}

image_command!(enqueue_read_image, "clEnqueueReadImage", (image: cl_mem, blocking: u32, origin: *const usize, region: *const usize, row_pitch: usize, slice_pitch: usize, ptr: *mut c_void, n: u32, events: *const cl_event, event: *mut cl_event));
image_command!(enqueue_write_image, "clEnqueueWriteImage", (image: cl_mem, blocking: u32, origin: *const usize, region: *const usize, row_pitch: usize, slice_pitch: usize, ptr: *const c_void, n: u32, events: *const cl_event, event: *mut cl_event));
image_command!(enqueue_copy_image, "clEnqueueCopyImage", (src: cl_mem, dst: cl_mem, src_origin: *const usize, dst_origin: *const usize, region: *const usize, n: u32, events: *const cl_event, event: *mut cl_event));
image_command!(enqueue_copy_image_to_buffer, "clEnqueueCopyImageToBuffer", (src: cl_mem, dst: cl_mem, src_origin: *const usize, region: *const usize, dst_offset: usize, n: u32, events: *const cl_event, event: *mut cl_event));
image_command!(enqueue_copy_buffer_to_image, "clEnqueueCopyBufferToImage", (src: cl_mem, dst: cl_mem, src_offset: usize, dst_origin: *const usize, region: *const usize, n: u32, events: *const cl_event, event: *mut cl_event));
image_command!(enqueue_fill_image, "clEnqueueFillImage", (image: cl_mem, color: *const c_void, origin: *const usize, region: *const usize, n: u32, events: *const cl_event, event: *mut cl_event));

pub unsafe extern "C" fn enqueue_map_image(
    queue: cl_command_queue,
    _image: cl_mem,
    _blocking: u32,
    _flags: u64,
    _origin: *const usize,
    _region: *const usize,
    _row_pitch: *mut usize,
    _slice_pitch: *mut usize,
    _n: u32,
    _events: *const cl_event,
    _event: *mut cl_event,
    errcode_ret: *mut i32,
) -> *mut c_void {
    let result: Result<*mut c_void, i32> =
        Obj::<crate::queue::Queue>::get(queue).and_then(|_| Err(no_images("clEnqueueMapImage")));
    created(result, errcode_ret)
}

/// The simulator argument for an image memory object.
pub fn argument(_mem: &crate::memory::Mem) -> Option<clmap_sim::ArgValue> {
    None
}

/// The simulator argument for a sampler.
pub fn sampler_argument(_sampler: cl_sampler) -> Option<clmap_sim::ArgValue> {
    None
}
