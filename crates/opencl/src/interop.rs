//! Entry points the platform has but cannot serve: OpenGL sharing (there is no GL context to
//! share with) and extension lookup. Each answers with the code the specification names and,
//! where the host asked for something unsupported, one line on standard error naming it.

use std::ffi::{c_char, c_void, CStr};

use crate::cl::*;
use crate::info::created;
use crate::object::Obj;
use crate::{cl_command_queue, cl_context, cl_event, cl_mem, cl_platform_id};

fn no_gl(name: &str) -> i32 {
    // Without a GL context among the context's properties, the context is the invalid part.
    crate::unsupported(name, CL_INVALID_CONTEXT)
}

macro_rules! gl_create {
    ($name:ident, $api:literal, ($($arg:ident: $ty:ty),*)) => {
        pub unsafe extern "C" fn $name(context: cl_context, $($arg: $ty,)* errcode_ret: *mut i32) -> cl_mem {
            $(let _ = $arg;)*
            let result = Obj::get(context).and_then(|_| Err(no_gl($api)));
            created(result, errcode_ret)
        }
    };
}

gl_create!(create_from_gl_buffer, "clCreateFromGLBuffer", (flags: u64, bufobj: u32));
gl_create!(create_from_gl_texture, "clCreateFromGLTexture", (flags: u64, target: u32, miplevel: i32, texture: u32));
gl_create!(create_from_gl_texture_2d, "clCreateFromGLTexture2D", (flags: u64, target: u32, miplevel: i32, texture: u32));
gl_create!(create_from_gl_texture_3d, "clCreateFromGLTexture3D", (flags: u64, target: u32, miplevel: i32, texture: u32));
gl_create!(create_from_gl_renderbuffer, "clCreateFromGLRenderbuffer", (flags: u64, renderbuffer: u32));

pub unsafe extern "C" fn get_gl_object_info(mem: cl_mem, _type: *mut u32, _name: *mut u32) -> i32 {
    match Obj::get(mem) {
        // No memory object here was made from a GL object.
        Ok(_) => CL_INVALID_GL_OBJECT,
        Err(code) => code,
    }
}

pub unsafe extern "C" fn get_gl_texture_info(
    mem: cl_mem,
    _param: u32,
    _size: usize,
    _value: *mut c_void,
    _size_ret: *mut usize,
) -> i32 {
    match Obj::get(mem) {
        Ok(_) => CL_INVALID_GL_OBJECT,
        Err(code) => code,
    }
}

pub unsafe extern "C" fn enqueue_acquire_gl_objects(
    queue: cl_command_queue,
    _num: u32,
    _mems: *const cl_mem,
    _num_events: u32,
    _events: *const cl_event,
    _event: *mut cl_event,
) -> i32 {
    match Obj::<crate::queue::Queue>::get(queue) {
        Ok(_) => no_gl("clEnqueueAcquireGLObjects"),
        Err(code) => code,
    }
}

pub unsafe extern "C" fn enqueue_release_gl_objects(
    queue: cl_command_queue,
    _num: u32,
    _mems: *const cl_mem,
    _num_events: u32,
    _events: *const cl_event,
    _event: *mut cl_event,
) -> i32 {
    match Obj::<crate::queue::Queue>::get(queue) {
        Ok(_) => no_gl("clEnqueueReleaseGLObjects"),
        Err(code) => code,
    }
}

pub unsafe extern "C" fn get_gl_context_info_khr(
    _properties: *const isize,
    _param: u32,
    _size: usize,
    _value: *mut c_void,
    _size_ret: *mut usize,
) -> i32 {
    crate::unsupported("clGetGLContextInfoKHR", CL_INVALID_OPERATION)
}

/// The extension functions the platform has: only the loader's entry point.
pub unsafe extern "C" fn get_extension_function_address(name: *const c_char) -> *mut c_void {
    if name.is_null() {
        return std::ptr::null_mut();
    }
    match CStr::from_ptr(name).to_bytes() {
        b"clIcdGetPlatformIDsKHR" => crate::api::clIcdGetPlatformIDsKHR as *mut c_void,
        _ => std::ptr::null_mut(),
    }
}

pub unsafe extern "C" fn get_extension_function_address_for_platform(
    platform: cl_platform_id,
    name: *const c_char,
) -> *mut c_void {
    if !platform.is_null() && platform != crate::platform::the_platform() {
        return std::ptr::null_mut();
    }
    get_extension_function_address(name)
}
