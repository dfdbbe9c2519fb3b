//! The exported OpenCL 1.2 entry points and the ICD dispatch table.
//!
//! Each entry point is defined once below, by slot in the ICD dispatch table (the order of
//! the Khronos `cl_icd_dispatch` structure, which the loader indexes). The macro exports it
//! under its OpenCL name, for programs linked against the library directly, guards it against
//! panics (a panic must not unwind into C), and places it in the table the loader calls
//! through. The library is linked with `-Bsymbolic`, so the table's entries are this
//! library's functions even when the loader exports the same names.

#![allow(non_snake_case)]

use std::ffi::{c_char, c_void};

use crate::context::ContextNotify;
use crate::event::EventCallback;
use crate::image::{ImageDescriptor, ImageFormat};
use crate::memory::MemDestructor;
use crate::*;

type BuildNotify = unsafe extern "C" fn(program: cl_program, user: *mut c_void);

/// Number of slots in the table: the OpenCL 1.2 part of `cl_icd_dispatch` and room after it.
pub const SLOTS: usize = 160;

/// The dispatch table: a pointer per slot, NULL where the platform has no entry point.
#[repr(C)]
pub struct Dispatch(pub [*const c_void; SLOTS]);

unsafe impl Sync for Dispatch {}

impl Dispatch {
    pub fn as_ptr(&'static self) -> *const c_void {
        self as *const Dispatch as *const c_void
    }
}

/// What an entry point returns when it panicked, and whether what it returned is a failure.
pub trait Fallback {
    fn fallback() -> Self;
    /// The status code of a failed call (handle-returning calls report theirs through
    /// `errcode_ret`, see [`crate::info::set_error`]).
    fn failure(&self) -> Option<i32> {
        None
    }
}
impl Fallback for i32 {
    fn fallback() -> i32 {
        crate::cl::CL_OUT_OF_HOST_MEMORY
    }
    fn failure(&self) -> Option<i32> {
        (*self < 0).then_some(*self)
    }
}
impl<T> Fallback for *mut T {
    fn fallback() -> *mut T {
        std::ptr::null_mut()
    }
}

thread_local! {
    /// The entry point this thread is in, for failures reported below it.
    static CALL: std::cell::Cell<&'static str> = const { std::cell::Cell::new("") };
}

/// Runs an entry point, turning a panic into an error code and one line on standard error;
/// with `--check-api`, a failed call is reported.
pub fn guard<R: Fallback>(name: &'static str, f: impl FnOnce() -> R) -> R {
    let outer = CALL.with(|c| c.replace(name));
    let result = match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(_) => {
            eprintln!("clmap: internal error in {name}; the call failed");
            R::fallback()
        }
    };
    CALL.with(|c| c.set(outer));
    if let Some(code) = result.failure() {
        report_failure(name, code);
    }
    result
}

/// Under `--check-api`, says on standard error that the current entry point failed with
/// `code`: in Oclgrind's layout under `--oclgrind-output`, else on one line.
pub fn report_failed_call(code: i32) {
    let name = CALL.with(std::cell::Cell::get);
    if !name.is_empty() {
        report_failure(name, code);
    }
}

fn report_failure(function: &str, code: i32) {
    let config = crate::config::config();
    if !config.check_api {
        return;
    }
    let error = crate::cl_codes::cl_error_name(code);
    let meaning = crate::cl_codes::cl_error_explanation(code);
    if config.oclgrind_format {
        let detail = meaning.map(|m| format!("\t{m}\n")).unwrap_or_default();
        eprint!(
            "\nOclgrind - OpenCL runtime error detected\n\tFunction: {function}\n\tError:    \
             {error}\n{detail}\n"
        );
    } else {
        let detail = meaning.map(|m| format!(": {m}")).unwrap_or_default();
        eprintln!("clmap: {function} failed with {error} ({code}){detail}");
    }
}

macro_rules! entry_points {
    ($( $slot:literal $api:ident => $module:ident :: $func:ident ( $($arg:ident : $ty:ty),* ) -> $ret:ty ; )*) => {
        $(
            #[no_mangle]
            pub unsafe extern "C" fn $api($($arg: $ty),*) -> $ret {
                guard(stringify!($api), || unsafe { crate::$module::$func($($arg),*) })
            }
        )*

        pub static DISPATCH: Dispatch = {
            let mut table = [std::ptr::null::<c_void>(); SLOTS];
            $( table[$slot] = $api as *const c_void; )*
            Dispatch(table)
        };
    };
}

/// The ICD loader's way in: the same answer as `clGetPlatformIDs`.
#[no_mangle]
pub unsafe extern "C" fn clIcdGetPlatformIDsKHR(
    num_entries: u32,
    platforms: *mut cl_platform_id,
    num_platforms: *mut u32,
) -> i32 {
    guard("clIcdGetPlatformIDsKHR", || unsafe {
        crate::platform::get_platform_ids(num_entries, platforms, num_platforms)
    })
}

entry_points! {
    0 clGetPlatformIDs => platform::get_platform_ids(a0: u32, a1: *mut cl_platform_id, a2: *mut u32) -> i32;
    1 clGetPlatformInfo => platform::get_platform_info(a0: cl_platform_id, a1: u32, a2: usize, a3: *mut c_void, a4: *mut usize) -> i32;
    2 clGetDeviceIDs => platform::get_device_ids(a0: cl_platform_id, a1: u64, a2: u32, a3: *mut cl_device_id, a4: *mut u32) -> i32;
    3 clGetDeviceInfo => platform::get_device_info(a0: cl_device_id, a1: u32, a2: usize, a3: *mut c_void, a4: *mut usize) -> i32;
    4 clCreateContext => context::create_context(a0: *const isize, a1: u32, a2: *const cl_device_id, a3: Option<ContextNotify>, a4: *mut c_void, a5: *mut i32) -> cl_context;
    5 clCreateContextFromType => context::create_context_from_type(a0: *const isize, a1: u64, a2: Option<ContextNotify>, a3: *mut c_void, a4: *mut i32) -> cl_context;
    6 clRetainContext => context::retain_context(a0: cl_context) -> i32;
    7 clReleaseContext => context::release_context(a0: cl_context) -> i32;
    8 clGetContextInfo => context::get_context_info(a0: cl_context, a1: u32, a2: usize, a3: *mut c_void, a4: *mut usize) -> i32;
    9 clCreateCommandQueue => queue::create_command_queue(a0: cl_context, a1: cl_device_id, a2: u64, a3: *mut i32) -> cl_command_queue;
    10 clRetainCommandQueue => queue::retain_command_queue(a0: cl_command_queue) -> i32;
    11 clReleaseCommandQueue => queue::release_command_queue(a0: cl_command_queue) -> i32;
    12 clGetCommandQueueInfo => queue::get_command_queue_info(a0: cl_command_queue, a1: u32, a2: usize, a3: *mut c_void, a4: *mut usize) -> i32;
    13 clSetCommandQueueProperty => queue::set_command_queue_property(a0: cl_command_queue, a1: u64, a2: u32, a3: *mut u64) -> i32;
    14 clCreateBuffer => memory::create_buffer(a0: cl_context, a1: u64, a2: usize, a3: *mut c_void, a4: *mut i32) -> cl_mem;
    15 clCreateImage2D => image::create_image_2d(a0: cl_context, a1: u64, a2: *const ImageFormat, a3: usize, a4: usize, a5: usize, a6: *mut c_void, a7: *mut i32) -> cl_mem;
    16 clCreateImage3D => image::create_image_3d(a0: cl_context, a1: u64, a2: *const ImageFormat, a3: usize, a4: usize, a5: usize, a6: usize, a7: usize, a8: *mut c_void, a9: *mut i32) -> cl_mem;
    17 clRetainMemObject => memory::retain_mem_object(a0: cl_mem) -> i32;
    18 clReleaseMemObject => memory::release_mem_object(a0: cl_mem) -> i32;
    19 clGetSupportedImageFormats => image::get_supported_image_formats(a0: cl_context, a1: u64, a2: u32, a3: u32, a4: *mut ImageFormat, a5: *mut u32) -> i32;
    20 clGetMemObjectInfo => memory::get_mem_object_info(a0: cl_mem, a1: u32, a2: usize, a3: *mut c_void, a4: *mut usize) -> i32;
    21 clGetImageInfo => image::get_image_info(a0: cl_mem, a1: u32, a2: usize, a3: *mut c_void, a4: *mut usize) -> i32;
    22 clCreateSampler => image::create_sampler(a0: cl_context, a1: u32, a2: u32, a3: u32, a4: *mut i32) -> cl_sampler;
    23 clRetainSampler => image::retain_sampler(a0: cl_sampler) -> i32;
    24 clReleaseSampler => image::release_sampler(a0: cl_sampler) -> i32;
    25 clGetSamplerInfo => image::get_sampler_info(a0: cl_sampler, a1: u32, a2: usize, a3: *mut c_void, a4: *mut usize) -> i32;
    26 clCreateProgramWithSource => program::create_program_with_source(a0: cl_context, a1: u32, a2: *const *const c_char, a3: *const usize, a4: *mut i32) -> cl_program;
    27 clCreateProgramWithBinary => program::create_program_with_binary(a0: cl_context, a1: u32, a2: *const cl_device_id, a3: *const usize, a4: *const *const u8, a5: *mut i32, a6: *mut i32) -> cl_program;
    28 clRetainProgram => program::retain_program(a0: cl_program) -> i32;
    29 clReleaseProgram => program::release_program(a0: cl_program) -> i32;
    30 clBuildProgram => program::build_program(a0: cl_program, a1: u32, a2: *const cl_device_id, a3: *const c_char, a4: Option<BuildNotify>, a5: *mut c_void) -> i32;
    31 clUnloadCompiler => program::unload_compiler() -> i32;
    32 clGetProgramInfo => program::get_program_info(a0: cl_program, a1: u32, a2: usize, a3: *mut c_void, a4: *mut usize) -> i32;
    33 clGetProgramBuildInfo => program::get_program_build_info(a0: cl_program, a1: cl_device_id, a2: u32, a3: usize, a4: *mut c_void, a5: *mut usize) -> i32;
    34 clCreateKernel => kernel::create_kernel(a0: cl_program, a1: *const c_char, a2: *mut i32) -> cl_kernel;
    35 clCreateKernelsInProgram => kernel::create_kernels_in_program(a0: cl_program, a1: u32, a2: *mut cl_kernel, a3: *mut u32) -> i32;
    36 clRetainKernel => kernel::retain_kernel(a0: cl_kernel) -> i32;
    37 clReleaseKernel => kernel::release_kernel(a0: cl_kernel) -> i32;
    38 clSetKernelArg => kernel::set_kernel_arg(a0: cl_kernel, a1: u32, a2: usize, a3: *const c_void) -> i32;
    39 clGetKernelInfo => kernel::get_kernel_info(a0: cl_kernel, a1: u32, a2: usize, a3: *mut c_void, a4: *mut usize) -> i32;
    40 clGetKernelWorkGroupInfo => kernel::get_kernel_work_group_info(a0: cl_kernel, a1: cl_device_id, a2: u32, a3: usize, a4: *mut c_void, a5: *mut usize) -> i32;
    41 clWaitForEvents => event::wait_for_events(a0: u32, a1: *const cl_event) -> i32;
    42 clGetEventInfo => event::get_event_info(a0: cl_event, a1: u32, a2: usize, a3: *mut c_void, a4: *mut usize) -> i32;
    43 clRetainEvent => event::retain_event(a0: cl_event) -> i32;
    44 clReleaseEvent => event::release_event(a0: cl_event) -> i32;
    45 clGetEventProfilingInfo => event::get_event_profiling_info(a0: cl_event, a1: u32, a2: usize, a3: *mut c_void, a4: *mut usize) -> i32;
    46 clFlush => queue::flush(a0: cl_command_queue) -> i32;
    47 clFinish => queue::finish(a0: cl_command_queue) -> i32;
    48 clEnqueueReadBuffer => memory::enqueue_read_buffer(a0: cl_command_queue, a1: cl_mem, a2: u32, a3: usize, a4: usize, a5: *mut c_void, a6: u32, a7: *const cl_event, a8: *mut cl_event) -> i32;
    49 clEnqueueWriteBuffer => memory::enqueue_write_buffer(a0: cl_command_queue, a1: cl_mem, a2: u32, a3: usize, a4: usize, a5: *const c_void, a6: u32, a7: *const cl_event, a8: *mut cl_event) -> i32;
    50 clEnqueueCopyBuffer => memory::enqueue_copy_buffer(a0: cl_command_queue, a1: cl_mem, a2: cl_mem, a3: usize, a4: usize, a5: usize, a6: u32, a7: *const cl_event, a8: *mut cl_event) -> i32;
    51 clEnqueueReadImage => image::enqueue_read_image(a0: cl_command_queue, a1: cl_mem, a2: u32, a3: *const usize, a4: *const usize, a5: usize, a6: usize, a7: *mut c_void, a8: u32, a9: *const cl_event, a10: *mut cl_event) -> i32;
    52 clEnqueueWriteImage => image::enqueue_write_image(a0: cl_command_queue, a1: cl_mem, a2: u32, a3: *const usize, a4: *const usize, a5: usize, a6: usize, a7: *const c_void, a8: u32, a9: *const cl_event, a10: *mut cl_event) -> i32;
    53 clEnqueueCopyImage => image::enqueue_copy_image(a0: cl_command_queue, a1: cl_mem, a2: cl_mem, a3: *const usize, a4: *const usize, a5: *const usize, a6: u32, a7: *const cl_event, a8: *mut cl_event) -> i32;
    54 clEnqueueCopyImageToBuffer => image::enqueue_copy_image_to_buffer(a0: cl_command_queue, a1: cl_mem, a2: cl_mem, a3: *const usize, a4: *const usize, a5: usize, a6: u32, a7: *const cl_event, a8: *mut cl_event) -> i32;
    55 clEnqueueCopyBufferToImage => image::enqueue_copy_buffer_to_image(a0: cl_command_queue, a1: cl_mem, a2: cl_mem, a3: usize, a4: *const usize, a5: *const usize, a6: u32, a7: *const cl_event, a8: *mut cl_event) -> i32;
    56 clEnqueueMapBuffer => memory::enqueue_map_buffer(a0: cl_command_queue, a1: cl_mem, a2: u32, a3: u64, a4: usize, a5: usize, a6: u32, a7: *const cl_event, a8: *mut cl_event, a9: *mut i32) -> *mut c_void;
    57 clEnqueueMapImage => image::enqueue_map_image(a0: cl_command_queue, a1: cl_mem, a2: u32, a3: u64, a4: *const usize, a5: *const usize, a6: *mut usize, a7: *mut usize, a8: u32, a9: *const cl_event, a10: *mut cl_event, a11: *mut i32) -> *mut c_void;
    58 clEnqueueUnmapMemObject => memory::enqueue_unmap_mem_object(a0: cl_command_queue, a1: cl_mem, a2: *mut c_void, a3: u32, a4: *const cl_event, a5: *mut cl_event) -> i32;
    59 clEnqueueNDRangeKernel => launch::enqueue_nd_range_kernel(a0: cl_command_queue, a1: cl_kernel, a2: u32, a3: *const usize, a4: *const usize, a5: *const usize, a6: u32, a7: *const cl_event, a8: *mut cl_event) -> i32;
    60 clEnqueueTask => launch::enqueue_task(a0: cl_command_queue, a1: cl_kernel, a2: u32, a3: *const cl_event, a4: *mut cl_event) -> i32;
    61 clEnqueueNativeKernel => launch::enqueue_native_kernel(a0: cl_command_queue, a1: *const std::ffi::c_void, a2: *mut std::ffi::c_void, a3: usize, a4: u32, a5: *const crate::cl_mem, a6: *const *const std::ffi::c_void, a7: u32, a8: *const cl_event, a9: *mut cl_event) -> i32;
    62 clEnqueueMarker => queue::enqueue_marker(a0: cl_command_queue, a1: *mut cl_event) -> i32;
    63 clEnqueueWaitForEvents => queue::enqueue_wait_for_events(a0: cl_command_queue, a1: u32, a2: *const cl_event) -> i32;
    64 clEnqueueBarrier => queue::enqueue_barrier(a0: cl_command_queue) -> i32;
    65 clGetExtensionFunctionAddress => interop::get_extension_function_address(a0: *const c_char) -> *mut c_void;
    66 clCreateFromGLBuffer => interop::create_from_gl_buffer(a0: cl_context, a1: u64, a2: u32, a3: *mut i32) -> cl_mem;
    67 clCreateFromGLTexture2D => interop::create_from_gl_texture_2d(a0: cl_context, a1: u64, a2: u32, a3: i32, a4: u32, a5: *mut i32) -> cl_mem;
    68 clCreateFromGLTexture3D => interop::create_from_gl_texture_3d(a0: cl_context, a1: u64, a2: u32, a3: i32, a4: u32, a5: *mut i32) -> cl_mem;
    69 clCreateFromGLRenderbuffer => interop::create_from_gl_renderbuffer(a0: cl_context, a1: u64, a2: u32, a3: *mut i32) -> cl_mem;
    70 clGetGLObjectInfo => interop::get_gl_object_info(a0: cl_mem, a1: *mut u32, a2: *mut u32) -> i32;
    71 clGetGLTextureInfo => interop::get_gl_texture_info(a0: cl_mem, a1: u32, a2: usize, a3: *mut c_void, a4: *mut usize) -> i32;
    72 clEnqueueAcquireGLObjects => interop::enqueue_acquire_gl_objects(a0: cl_command_queue, a1: u32, a2: *const cl_mem, a3: u32, a4: *const cl_event, a5: *mut cl_event) -> i32;
    73 clEnqueueReleaseGLObjects => interop::enqueue_release_gl_objects(a0: cl_command_queue, a1: u32, a2: *const cl_mem, a3: u32, a4: *const cl_event, a5: *mut cl_event) -> i32;
    74 clGetGLContextInfoKHR => interop::get_gl_context_info_khr(a0: *const isize, a1: u32, a2: usize, a3: *mut c_void, a4: *mut usize) -> i32;
    81 clSetEventCallback => event::set_event_callback(a0: cl_event, a1: i32, a2: Option<EventCallback>, a3: *mut c_void) -> i32;
    82 clCreateSubBuffer => memory::create_sub_buffer(a0: cl_mem, a1: u64, a2: u32, a3: *const c_void, a4: *mut i32) -> cl_mem;
    83 clSetMemObjectDestructorCallback => memory::set_mem_object_destructor_callback(a0: cl_mem, a1: Option<MemDestructor>, a2: *mut c_void) -> i32;
    84 clCreateUserEvent => event::create_user_event(a0: cl_context, a1: *mut i32) -> cl_event;
    85 clSetUserEventStatus => event::set_user_event_status(a0: cl_event, a1: i32) -> i32;
    86 clEnqueueReadBufferRect => memory::enqueue_read_buffer_rect(a0: cl_command_queue, a1: cl_mem, a2: u32, a3: *const usize, a4: *const usize, a5: *const usize, a6: usize, a7: usize, a8: usize, a9: usize, a10: *mut c_void, a11: u32, a12: *const cl_event, a13: *mut cl_event) -> i32;
    87 clEnqueueWriteBufferRect => memory::enqueue_write_buffer_rect(a0: cl_command_queue, a1: cl_mem, a2: u32, a3: *const usize, a4: *const usize, a5: *const usize, a6: usize, a7: usize, a8: usize, a9: usize, a10: *const c_void, a11: u32, a12: *const cl_event, a13: *mut cl_event) -> i32;
    88 clEnqueueCopyBufferRect => memory::enqueue_copy_buffer_rect(a0: cl_command_queue, a1: cl_mem, a2: cl_mem, a3: *const usize, a4: *const usize, a5: *const usize, a6: usize, a7: usize, a8: usize, a9: usize, a10: u32, a11: *const cl_event, a12: *mut cl_event) -> i32;
    93 clCreateSubDevices => platform::create_sub_devices(a0: cl_device_id, a1: *const isize, a2: u32, a3: *mut cl_device_id, a4: *mut u32) -> i32;
    94 clRetainDevice => platform::retain_device(a0: cl_device_id) -> i32;
    95 clReleaseDevice => platform::release_device(a0: cl_device_id) -> i32;
    96 clCreateImage => image::create_image(a0: cl_context, a1: u64, a2: *const ImageFormat, a3: *const ImageDescriptor, a4: *mut c_void, a5: *mut i32) -> cl_mem;
    97 clCreateProgramWithBuiltInKernels => program::create_program_with_built_in_kernels(a0: cl_context, a1: u32, a2: *const cl_device_id, a3: *const c_char, a4: *mut i32) -> cl_program;
    98 clCompileProgram => program::compile_program(a0: cl_program, a1: u32, a2: *const cl_device_id, a3: *const c_char, a4: u32, a5: *const cl_program, a6: *const *const c_char, a7: Option<BuildNotify>, a8: *mut c_void) -> i32;
    99 clLinkProgram => program::link_program(a0: cl_context, a1: u32, a2: *const cl_device_id, a3: *const c_char, a4: u32, a5: *const cl_program, a6: Option<BuildNotify>, a7: *mut c_void, a8: *mut i32) -> cl_program;
    100 clUnloadPlatformCompiler => program::unload_platform_compiler(a0: crate::cl_platform_id) -> i32;
    101 clGetKernelArgInfo => kernel::get_kernel_arg_info(a0: cl_kernel, a1: u32, a2: u32, a3: usize, a4: *mut c_void, a5: *mut usize) -> i32;
    102 clEnqueueFillBuffer => memory::enqueue_fill_buffer(a0: cl_command_queue, a1: cl_mem, a2: *const c_void, a3: usize, a4: usize, a5: usize, a6: u32, a7: *const cl_event, a8: *mut cl_event) -> i32;
    103 clEnqueueFillImage => image::enqueue_fill_image(a0: cl_command_queue, a1: cl_mem, a2: *const c_void, a3: *const usize, a4: *const usize, a5: u32, a6: *const cl_event, a7: *mut cl_event) -> i32;
    104 clEnqueueMigrateMemObjects => memory::enqueue_migrate_mem_objects(a0: cl_command_queue, a1: u32, a2: *const cl_mem, a3: u64, a4: u32, a5: *const cl_event, a6: *mut cl_event) -> i32;
    105 clEnqueueMarkerWithWaitList => queue::enqueue_marker_with_wait_list(a0: cl_command_queue, a1: u32, a2: *const cl_event, a3: *mut cl_event) -> i32;
    106 clEnqueueBarrierWithWaitList => queue::enqueue_barrier_with_wait_list(a0: cl_command_queue, a1: u32, a2: *const cl_event, a3: *mut cl_event) -> i32;
    107 clGetExtensionFunctionAddressForPlatform => interop::get_extension_function_address_for_platform(a0: cl_platform_id, a1: *const c_char) -> *mut c_void;
    108 clCreateFromGLTexture => interop::create_from_gl_texture(a0: cl_context, a1: u64, a2: u32, a3: i32, a4: u32, a5: *mut i32) -> cl_mem;
    123 clCreateCommandQueueWithProperties => compat::create_command_queue_with_properties(a0: cl_context, a1: cl_device_id, a2: *const u64, a3: *mut i32) -> cl_command_queue;
    133 clCreateSamplerWithProperties => compat::create_sampler_with_properties(a0: cl_context, a1: *const u64, a2: *mut i32) -> cl_sampler;
    137 clCloneKernel => compat::clone_kernel(a0: cl_kernel, a1: *mut i32) -> cl_kernel;
    140 clGetDeviceAndHostTimer => compat::get_device_and_host_timer(a0: cl_device_id, a1: *mut u64, a2: *mut u64) -> i32;
    141 clGetHostTimer => compat::get_host_timer(a0: cl_device_id, a1: *mut u64) -> i32;
    146 clCreateBufferWithProperties => compat::create_buffer_with_properties(a0: cl_context, a1: *const u64, a2: u64, a3: usize, a4: *mut c_void, a5: *mut i32) -> cl_mem;
    147 clCreateImageWithProperties => compat::create_image_with_properties(a0: cl_context, a1: *const u64, a2: u64, a3: *const ImageFormat, a4: *const ImageDescriptor, a5: *mut c_void, a6: *mut i32) -> cl_mem;
}
