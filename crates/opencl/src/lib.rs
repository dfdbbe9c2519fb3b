//! An OpenCL 1.2 platform over the clmap simulator.
//!
//! Built as a shared library (`libclmap_opencl.so`), it is what `clmap exec` puts under an
//! unmodified host program: the ICD loader finds it through `OCL_ICD_VENDORS`, the program
//! asks for a device (of any type: the device answers every type, so programs written for a
//! GPU run), builds its kernels with clmap's front end, and its launches run on the simulator
//! with the checkers on. Programs may also link the library directly.
//!
//! Modules follow the API's object kinds:
//!
//! | module | objects and calls |
//! |---|---|
//! | [`platform`] | the platform and its device, their queries |
//! | [`context`] | contexts |
//! | [`queue`], [`scheduler`], [`event`] | queues, when commands run, events |
//! | [`memory`], [`image`] | buffers, sub-buffers, host transfers, maps; images, samplers |
//! | [`program`], [`kernel`], [`launch`] | building, kernel arguments, `clEnqueueNDRangeKernel` |
//! | [`findings`], [`analysis`], [`capture`] | what a run reports, measures and records |
//! | [`api`] | the exported entry points and the ICD dispatch table |
//! | [`interop`] | OpenGL sharing and extension lookup (answered, not supported) |
//! | [`compat`] | later versions' property-list constructors, kernel cloning, host timer |
//!
//! Settings come from the environment ([`config`]), since the host program knows nothing of
//! clmap.

#![allow(clippy::missing_safety_doc, clippy::too_many_arguments, non_camel_case_types)]

/// The value of a `Result`, or an early return of its `cl_int` error code: the shape of almost
/// every entry point's handle checks.
macro_rules! try_cl {
    ($e:expr) => {
        match $e {
            Ok(v) => v,
            Err(code) => return code,
        }
    };
}

pub mod analysis;
pub mod api;
pub mod capture;
pub mod cl;
/// Names and meanings of status codes: the device crate's table, compiled in here because the
/// platform library must not link the OpenCL client crates that crate depends on.
#[path = "../../device/src/cl_codes.rs"]
pub mod cl_codes;
pub mod compat;
pub mod config;
pub mod context;
pub mod debug;
pub mod event;
pub mod findings;
pub mod image;
pub mod info;
pub mod interop;
pub mod kernel;
pub mod launch;
pub mod memory;
pub mod object;
pub mod platform;
pub mod program;
pub mod queue;
pub mod scheduler;

use object::Obj;

pub type cl_platform_id = *mut Obj<platform::Platform>;
pub type cl_device_id = *mut Obj<platform::Device>;
pub type cl_context = *mut Obj<context::Context>;
pub type cl_command_queue = *mut Obj<queue::Queue>;
pub type cl_mem = *mut Obj<memory::Mem>;
pub type cl_sampler = *mut Obj<image::Sampler>;
pub type cl_program = *mut Obj<program::Program>;
pub type cl_kernel = *mut Obj<kernel::Kernel>;
pub type cl_event = *mut Obj<event::Event>;

/// Says once per function that the platform does not support what the host asked of it, and
/// returns `code`, the status the specification names for that case.
pub fn unsupported(function: &str, code: i32) -> i32 {
    use std::collections::HashSet;
    use std::sync::Mutex;
    static SAID: Mutex<Option<HashSet<String>>> = Mutex::new(None);
    let mut said = SAID.lock().unwrap_or_else(|e| e.into_inner());
    if said.get_or_insert_with(HashSet::new).insert(function.to_string()) {
        eprintln!("clmap: {function} is not supported by the clmap platform");
    }
    code
}
