//! Running a whole workload: buffers from its initial data, every launch of its pipeline
//! (with repetitions and buffer swaps), final buffer contents and findings.

use std::collections::HashMap;

use clmap_lang::ir::Module;
use clmap_workload::{BufferSet, ImageSpec, ImageType, StepArg, Workload};

use crate::compile::compile_kernel;
use crate::error::SimError;
use crate::image::{ImageArg, ImageDesc, ImageKind};
use crate::launch::{run_program_with_globals, ArgValue, ProgramGlobals, SimOptions};
use crate::memory::{HostAccess, SharedBuffer};
use crate::observer::{NoObserver, ObserverFactory};
use crate::program::Program;
use crate::report::Report;

/// The outcome of [`run_workload`].
#[derive(Debug)]
pub struct WorkloadRun {
    /// Every buffer after the run, by final name (the pipeline's swaps applied), in the
    /// workload's buffer order.
    pub buffers: BufferSet,
    /// Findings of every launch, launch by launch.
    pub reports: Vec<LaunchReport>,
    /// `printf` output of every launch, in order.
    pub printf: Vec<String>,
    /// Kernel launches run (repetitions counted).
    pub launches: u64,
}

/// A finding and the launch (index in the pipeline, repetition) it came from.
#[derive(Clone, Debug)]
pub struct LaunchReport {
    pub launch: usize,
    pub repetition: u32,
    pub kernel: String,
    pub report: Report,
}

impl WorkloadRun {
    /// The final bytes of the buffer called `name`.
    pub fn buffer(&self, name: &str) -> Option<&[u8]> {
        self.buffers.get(name).map(|b| b.bytes.as_slice())
    }
}

/// Runs every launch of `workload` on the simulator, with the inputs the workload describes.
/// `module` is the workload's program, compiled once by the caller (the exec layer's prepared
/// workload): the simulator never reads source text.
pub fn run_workload(
    module: &Module,
    workload: &Workload,
    options: &SimOptions,
) -> Result<WorkloadRun, SimError> {
    run_workload_seeded(module, workload, options, 0)
}

/// [`run_workload`] with every random seed of the inputs shifted by `seed_shift` (see
/// [`Workload::initial_data`]): the same pipeline on other inputs, as rewrite validation needs.
pub fn run_workload_seeded(
    module: &Module,
    workload: &Workload,
    options: &SimOptions,
    seed_shift: u64,
) -> Result<WorkloadRun, SimError> {
    let inputs = workload.initial_data(seed_shift)?;
    run_workload_with(module, workload, inputs, options, &|| NoObserver).map(|(run, _)| run)
}

/// [`run_workload`] with an observer per launch (returned in launch order, repetitions
/// included).
pub fn run_workload_observed<F: ObserverFactory>(
    module: &Module,
    workload: &Workload,
    options: &SimOptions,
    observers: &F,
) -> Result<(WorkloadRun, Vec<F::Observer>), SimError> {
    let inputs = workload.initial_data(0)?;
    run_workload_with(module, workload, inputs, options, observers)
}

/// Runs the workload's schedule (the workload crate decides the order, repetitions and swaps)
/// on `inputs`, which hold one buffer per [`Workload::buffers`] entry, in that order.
pub fn run_workload_with<F: ObserverFactory>(
    module: &Module,
    workload: &Workload,
    inputs: BufferSet,
    options: &SimOptions,
    observers: &F,
) -> Result<(WorkloadRun, Vec<F::Observer>), SimError> {
    let storage: Vec<SharedBuffer> = inputs
        .buffers
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let access = match workload.buffers.get(i).map(|d| d.access) {
                Some(clmap_workload::Access::ReadOnly) => HostAccess::ReadOnly,
                Some(clmap_workload::Access::WriteOnly) => HostAccess::WriteOnly,
                _ => HostAccess::ReadWrite,
            };
            let buffer = SharedBuffer::from_bytes(&b.name, &b.bytes).with_access(access);
            if b.uninitialised && options.check_uninitialised {
                buffer.with_undefined_contents()
            } else {
                buffer
            }
        })
        .collect();
    let mut programs: HashMap<String, Program> = HashMap::new();
    // Every launch of the workload runs the same program: its `__global` variables persist.
    let mut globals = ProgramGlobals::default();
    let mut reports = Vec::new();
    let mut printf = Vec::new();
    let mut observed = Vec::new();
    let mut launches = 0u64;
    for step in workload.schedule() {
        let step = step?;
        let launch = &workload.launches[step.launch];
        for write in &step.host_writes {
            let buffer = storage.get(write.slot).ok_or_else(|| SimError::BadArguments {
                message: format!("host write into unknown storage slot {}", write.slot),
            })?;
            buffer.write_bytes(write.offset, &write.bytes).map_err(|message| {
                SimError::BadArguments { message: format!("host write: {message}") }
            })?;
        }
        if !programs.contains_key(&launch.kernel) {
            let p = if options.debugger.is_some() {
                crate::compile::compile_kernel_for_debugging(module, &launch.kernel)?
            } else {
                compile_kernel(module, &launch.kernel)?
            };
            programs.insert(launch.kernel.clone(), p);
        }
        let program = programs
            .get(&launch.kernel)
            .ok_or_else(|| SimError::UnknownKernel { name: launch.kernel.clone() })?;
        let mut args = Vec::with_capacity(step.args.len());
        // Views run as buffers of their own, filled from their parent's window before the
        // launch and copied back into it after (a kernel that passes a buffer and a view of
        // it that overlap, one of them written, has no defined result in OpenCL either).
        let mut windows: Vec<(SharedBuffer, u64, SharedBuffer, Vec<u8>)> = Vec::new();
        for arg in &step.args {
            args.push(match arg {
                StepArg::Buffer { slot } => {
                    ArgValue::Buffer(storage.get(*slot).cloned().ok_or_else(|| {
                        SimError::BadArguments { message: format!("unknown storage slot {slot}") }
                    })?)
                }
                StepArg::View { slot, offset, len } => {
                    let parent = storage.get(*slot).ok_or_else(|| SimError::BadArguments {
                        message: format!("unknown storage slot {slot}"),
                    })?;
                    let mut bytes = vec![0u8; *len as usize];
                    parent.read_bytes(*offset, &mut bytes).map_err(|message| {
                        SimError::BadArguments { message: format!("view: {message}") }
                    })?;
                    let name = format!("{}+{offset}", parent.name);
                    let window = SharedBuffer::from_bytes(&name, &bytes).with_access(parent.access);
                    windows.push((parent.clone(), *offset, window.clone(), bytes));
                    ArgValue::Buffer(window)
                }
                StepArg::Scalar { bytes } => ArgValue::Bytes(bytes.clone()),
                StepArg::Local { bytes } => ArgValue::Local(*bytes),
                StepArg::Null => ArgValue::Null,
                StepArg::Image { slot, image } => ArgValue::Image(ImageArg {
                    storage: storage.get(*slot).cloned().ok_or_else(|| SimError::BadArguments {
                        message: format!("unknown storage slot {slot}"),
                    })?,
                    desc: image_desc(image),
                }),
                StepArg::Sampler { bits } => ArgValue::Sampler(*bits),
            });
        }
        let run = run_program_with_globals(
            program,
            &launch.range,
            &args,
            options,
            observers,
            &mut globals,
        )?;
        // Only windows the kernel changed go back, so a view it only read cannot undo what
        // it wrote into the parent.
        for (parent, offset, window, before) in &windows {
            let after = window.to_bytes();
            if after != *before {
                parent.write_bytes(*offset, &after).map_err(|message| SimError::BadArguments {
                    message: format!("view: {message}"),
                })?;
            }
        }
        launches += 1;
        reports.extend(run.reports.into_iter().map(|report| LaunchReport {
            launch: step.launch,
            repetition: step.repetition,
            kernel: launch.kernel.clone(),
            report,
        }));
        printf.extend(run.printf);
        observed.push(run.observer);
    }
    let mut after = inputs;
    for (data, buffer) in after.buffers.iter_mut().zip(&storage) {
        data.bytes = buffer.to_bytes();
        data.uninitialised = false;
    }
    let buffers = workload.contents_by_final_name(after);
    Ok((WorkloadRun { buffers, reports, printf, launches }, observed))
}

/// The simulator's description of a workload's image.
pub fn image_desc(image: &ImageSpec) -> ImageDesc {
    ImageDesc {
        kind: match image.ty {
            ImageType::Image1d => ImageKind::Image1d,
            ImageType::Image1dBuffer => ImageKind::Image1dBuffer,
            ImageType::Image1dArray => ImageKind::Image1dArray,
            ImageType::Image2d => ImageKind::Image2d,
            ImageType::Image2dArray => ImageKind::Image2dArray,
            ImageType::Image3d => ImageKind::Image3d,
        },
        width: image.width,
        height: image.height,
        depth: image.depth,
        array_size: image.array_size,
        channel_order: image.channel_order,
        channel_type: image.channel_type,
    }
}
