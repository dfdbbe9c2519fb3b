//! `clEnqueueNDRangeKernel`: the checks the specification names, then a run on the simulator.
//!
//! Arguments are bound when the command is enqueued (the host may set new ones right after),
//! and turned into simulator arguments when it runs: whole buffers are passed as the
//! simulator's own storage; a sub-buffer is passed as a copy of its window, written back after
//! the kernel; a `USE_HOST_PTR` buffer is synchronised with the host's array around the run.

use std::time::Instant;

use clmap_sim::memory::{HostAccess, MappedRegion};
use clmap_sim::{ArgValue, NoObserver, SharedBuffer, SimOptions};
use clmap_workload::NdRange;

use crate::cl::*;
use crate::config::config;
use crate::info::slice;
use crate::kernel::{local_bytes, Arg, Kernel, ParamKind};
use crate::memory::{Mapping, Mem, Root};
use crate::object::{Obj, Ptr};
use crate::queue::{enqueue_holding, Enqueue, Queue};
use crate::{cl_command_queue, cl_event, cl_kernel};

/// Everything a launch needs, captured at enqueue time.
pub struct LaunchRequest {
    pub kernel: Ptr<Kernel>,
    pub range: NdRange,
    pub args: Vec<Arg>,
    /// Per argument, the host's mappings of its buffer when the kernel was enqueued (in
    /// queue order, what is mapped when the kernel runs, unless unmapped since).
    pub mapped: Vec<Vec<Mapping>>,
}

unsafe impl Send for LaunchRequest {}

impl Drop for LaunchRequest {
    /// The kernel's reference goes when the command has run, or when it is dropped unrun.
    fn drop(&mut self) {
        unsafe { crate::kernel::release_kernel(self.kernel.0) };
    }
}

fn work_size_error(message: String) -> i32 {
    if !config().quiet {
        eprintln!("clmap: clEnqueueNDRangeKernel: {message}");
    }
    CL_INVALID_WORK_GROUP_SIZE
}

/// The NDRange of a launch, checked against the kernel and the device.
unsafe fn checked_range(
    kernel: &Kernel,
    work_dim: u32,
    offset: *const usize,
    global: *const usize,
    local: *const usize,
) -> Result<NdRange, i32> {
    if !(1..=3).contains(&work_dim) {
        return Err(CL_INVALID_WORK_DIMENSION);
    }
    if global.is_null() {
        return Err(CL_INVALID_GLOBAL_WORK_SIZE);
    }
    let dims = work_dim as usize;
    let mut range = NdRange { global: [1; 3], local: None, offset: [0; 3], dims: work_dim as u8 };
    for (d, g) in slice(global, dims).iter().enumerate() {
        if *g == 0 {
            return Err(CL_INVALID_GLOBAL_WORK_SIZE);
        }
        range.global[d] = *g as u64;
    }
    for (d, o) in slice(offset, dims).iter().enumerate() {
        range.offset[d] = *o as u64;
    }
    let device = &config().device;
    let reqd = kernel.reqd_work_group_size.map(|r| r.map(u64::from));
    let chosen = if local.is_null() {
        match reqd {
            Some(r) => r,
            None => {
                let mut l = clmap_sim::default_local_size(&range);
                while l.iter().product::<u64>() > device.max_work_group {
                    let widest = (0..3).max_by_key(|&d| l[d]).unwrap_or(0);
                    let g = range.global[widest];
                    l[widest] = (1..l[widest]).rev().find(|x| g.is_multiple_of(*x)).unwrap_or(1);
                }
                l
            }
        }
    } else {
        let mut l = [1u64; 3];
        for (d, x) in slice(local, dims).iter().enumerate() {
            l[d] = *x as u64;
        }
        l
    };
    for d in 0..3 {
        if chosen[d] == 0 || !range.global[d].is_multiple_of(chosen[d]) {
            return Err(work_size_error(format!(
                "local size {} does not divide global size {} in dimension {d} (OpenCL 1.2 requires whole work-groups)",
                chosen[d], range.global[d]
            )));
        }
        if chosen[d] > device.max_work_item[d] {
            return Err(CL_INVALID_WORK_ITEM_SIZE);
        }
    }
    if chosen.iter().product::<u64>() > device.max_work_group {
        return Err(work_size_error(format!(
            "work-groups of {} work-items; the device allows {}",
            chosen.iter().product::<u64>(),
            device.max_work_group
        )));
    }
    if let Some(r) = reqd {
        if r != chosen {
            return Err(work_size_error(format!(
                "the kernel requires work-groups of {r:?}, the launch uses {chosen:?}"
            )));
        }
    }
    range.local = Some(chosen);
    Ok(range)
}

pub unsafe extern "C" fn enqueue_nd_range_kernel(
    queue: cl_command_queue,
    kernel: cl_kernel,
    work_dim: u32,
    offset: *const usize,
    global: *const usize,
    local: *const usize,
    num_events: u32,
    events: *const cl_event,
    event: *mut cl_event,
) -> i32 {
    let q = try_cl!(Obj::<Queue>::get(queue));
    let k = try_cl!(Obj::get(kernel));
    let program_context =
        Obj::get(k.inner.program).map(|p| p.inner.context).unwrap_or(std::ptr::null_mut());
    if program_context != q.inner.context {
        return CL_INVALID_CONTEXT;
    }
    let range = try_cl!(checked_range(&k.inner, work_dim, offset, global, local));
    let args: Vec<Arg> = {
        let set = k.inner.args.lock().unwrap_or_else(|e| e.into_inner());
        if set.iter().any(Option::is_none) {
            return CL_INVALID_KERNEL_ARGS;
        }
        set.iter().flatten().cloned().collect()
    };
    for arg in &args {
        if let Arg::Mem(m) = arg {
            match Obj::get(*m) {
                Ok(mem) if mem.inner.context == q.inner.context => {}
                Ok(_) => return CL_INVALID_CONTEXT,
                Err(_) => return CL_INVALID_KERNEL_ARGS,
            }
        }
    }
    if local_bytes(&k.inner) > config().device.local_mem {
        if !config().quiet {
            eprintln!(
                "clmap: kernel `{}` needs {} bytes of local memory; the device has {}",
                k.inner.name,
                local_bytes(&k.inner),
                config().device.local_mem
            );
        }
        return CL_OUT_OF_RESOURCES;
    }
    // The command holds the kernel and every buffer until it has run (or is dropped unrun).
    Obj::retain(kernel);
    let mems: Vec<crate::cl_mem> =
        args.iter().filter_map(|a| if let Arg::Mem(m) = a { Some(*m) } else { None }).collect();
    let mapped = args.iter().map(current_maps).collect();
    let request = LaunchRequest { kernel: Ptr(kernel), range, args, mapped };
    let work = move || {
        let request = request;
        run(&request)
    };
    enqueue_holding(
        queue,
        Enqueue::new(CL_COMMAND_NDRANGE_KERNEL),
        &mems,
        num_events,
        events,
        event,
        work,
    )
}

pub unsafe extern "C" fn enqueue_task(
    queue: cl_command_queue,
    kernel: cl_kernel,
    num_events: u32,
    events: *const cl_event,
    event: *mut cl_event,
) -> i32 {
    let one = 1usize;
    enqueue_nd_range_kernel(
        queue,
        kernel,
        1,
        std::ptr::null(),
        &one,
        &one,
        num_events,
        events,
        event,
    )
}

pub unsafe extern "C" fn enqueue_native_kernel(
    queue: cl_command_queue,
    _function: *const std::ffi::c_void,
    _args: *mut std::ffi::c_void,
    _cb_args: usize,
    _num_mems: u32,
    _mems: *const crate::cl_mem,
    _locations: *const *const std::ffi::c_void,
    _num_events: u32,
    _events: *const cl_event,
    _event: *mut cl_event,
) -> i32 {
    if let Err(code) = Obj::<Queue>::get(queue) {
        return code;
    }
    // CL_DEVICE_EXECUTION_CAPABILITIES does not include CL_EXEC_NATIVE_KERNEL.
    crate::unsupported("clEnqueueNativeKernel", CL_INVALID_OPERATION)
}

/// The host's mappings of an argument's buffer.
fn current_maps(arg: &Arg) -> Vec<Mapping> {
    let Arg::Mem(m) = arg else { return Vec::new() };
    Obj::<Mem>::get(*m).map(|mem| mem.inner.current_maps()).unwrap_or_default()
}

/// The regions of a buffer that `maps` map, in the buffer's own offsets.
fn mapped_regions(maps: &[Mapping]) -> Vec<MappedRegion> {
    maps.iter()
        .map(|map| MappedRegion {
            start: map.offset as u64,
            end: (map.offset + map.size) as u64,
            for_writing: map.writes,
        })
        .collect()
}

/// What the buffer's creation flags allow kernels to do with it.
fn host_access(flags: u64) -> HostAccess {
    if flags & CL_MEM_READ_ONLY != 0 {
        HostAccess::ReadOnly
    } else if flags & CL_MEM_WRITE_ONLY != 0 {
        HostAccess::WriteOnly
    } else {
        HostAccess::ReadWrite
    }
}

/// The `USE_HOST_PTR` storages a launch touches, each once.
fn host_roots(args: &[Arg]) -> Vec<Root> {
    let mut roots: Vec<Root> = Vec::new();
    for arg in args {
        if let Arg::Mem(m) = arg {
            let root = &Ptr(*m).obj().inner.root;
            if root.host.is_some() && !roots.iter().any(|r| r.same(root)) {
                roots.push(root.clone());
            }
        }
    }
    roots
}

fn run(request: &LaunchRequest) -> i32 {
    let kernel = &request.kernel.obj().inner;
    // Host arrays first, so that sub-buffer windows copy current bytes.
    let roots = host_roots(&request.args);
    for root in &roots {
        root.sync_in();
    }
    for (arg, maps) in request.args.iter().zip(&request.mapped) {
        if let (Arg::Mem(m), false) = (arg, maps.is_empty()) {
            Ptr::<Mem>(*m).obj().inner.maps_into_buffer(maps);
        }
    }
    let mut windows: Vec<(Ptr<Mem>, SharedBuffer)> = Vec::new();
    let mut values = Vec::new();
    for ((arg, param), mapped) in request.args.iter().zip(&kernel.params).zip(&request.mapped) {
        let value = match arg {
            Arg::Mem(m) => {
                let mem = Ptr(*m).obj();
                if param.kind == ParamKind::Image {
                    match crate::image::argument(&mem.inner) {
                        Some(v) => v,
                        None => return CL_INVALID_KERNEL_ARGS,
                    }
                } else if mem.inner.is_whole_root() {
                    ArgValue::Buffer(
                        mem.inner
                            .root
                            .storage
                            .clone()
                            .with_access(host_access(mem.inner.flags))
                            .with_mapped(mapped_regions(mapped)),
                    )
                } else {
                    let window = SharedBuffer::from_bytes(&mem.inner.label, &mem.inner.bytes());
                    windows.push((Ptr(*m), window.clone()));
                    ArgValue::Buffer(
                        window
                            .with_access(host_access(mem.inner.flags))
                            .with_mapped(mapped_regions(mapped)),
                    )
                }
            }
            Arg::Null => ArgValue::Null,
            Arg::Local(n) => ArgValue::Local(*n as u64),
            Arg::Bytes(b) => ArgValue::Bytes(b.clone()),
            Arg::Sampler(s) => match crate::image::sampler_argument(*s) {
                Some(v) => v,
                None => return CL_INVALID_KERNEL_ARGS,
            },
        };
        values.push(value);
    }
    let capture = crate::capture::before(kernel, &request.range, &request.args);
    let debugging = crate::debug::session(kernel);
    let options = SimOptions {
        check_races: config().races,
        check_uninitialised: config().uninit,
        // Oclgrind reports every work-item that runs into a problem, and races as it finds
        // them, one block per conflict.
        report_every_work_item: config().oclgrind_format,
        debugger: debugging.as_ref().map(|d| d.hook.clone()),
        max_steps: config().max_steps.unwrap_or(SimOptions::default().max_steps),
        ..SimOptions::default()
    };
    let started = Instant::now();
    let outcome = crate::analysis::run_observed(kernel, &request.range, &values, &options);
    let seconds = started.elapsed().as_secs_f64();
    drop(debugging);
    // Roots before windows: a window written back into a host array must not be overwritten
    // by the root's storage, which never saw the window's writes.
    for root in &roots {
        root.sync_out();
    }
    for (mem, window) in &windows {
        mem.obj().inner.write(0, &window.to_bytes());
    }
    for (arg, maps) in request.args.iter().zip(&request.mapped) {
        if let (Arg::Mem(m), false) = (arg, maps.is_empty()) {
            Ptr::<Mem>(*m).obj().inner.buffer_into_maps(maps);
        }
    }
    match outcome {
        Ok(run) => {
            crate::findings::launch_finished(kernel, &request.range, seconds, &run);
            if let Some(capture) = capture {
                capture.after(kernel, &request.args);
            }
            CL_SUCCESS
        }
        Err(error) => {
            crate::findings::launch_failed(kernel, &error);
            CL_OUT_OF_RESOURCES
        }
    }
}

/// What the simulator returned for a launch, without the observer.
pub struct Outcome {
    pub reports: Vec<clmap_sim::Report>,
    pub printf: Vec<String>,
    pub work_groups: u64,
}

/// Runs without observers (the analysis module adds its own when asked to).
pub fn run_plain(
    kernel: &Kernel,
    range: &NdRange,
    values: &[ArgValue],
    options: &SimOptions,
) -> Result<Outcome, clmap_sim::SimError> {
    let run = clmap_sim::run_program(&kernel.sim, range, values, options, &|| NoObserver)?;
    Ok(Outcome { reports: run.reports, printf: run.printf, work_groups: run.work_groups })
}
