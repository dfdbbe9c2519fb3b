//! A workload on an OpenCL device: one build, the schedule's launches in order over shared
//! device buffers, outputs read back once at the end.

use clmap_device::{
    BufferTable, Device, DeviceError, ImageLayout, KernelArg, LaunchSpec, Program, SequenceArg,
    SequenceLaunch, SequenceWrite, Timing, TimingOptions,
};
use clmap_workload::{BufferSet, ImageSpec, LaunchArg, NdRange, StepArg, Workload, WorkloadError};

#[derive(Debug, thiserror::Error)]
pub enum ExecError {
    #[error(transparent)]
    Workload(#[from] WorkloadError),
    #[error(transparent)]
    Device(#[from] DeviceError),
    #[error(transparent)]
    Simulator(#[from] clmap_sim::SimError),
    /// The program does not compile; `message` is the front end's rendered diagnostics.
    #[error("the program does not compile:\n{message}")]
    Frontend { message: String },
    #[error("{0}")]
    Invalid(String),
}

/// What a workload left behind on a device.
#[derive(Debug, Clone)]
pub struct DeviceRun {
    /// Every buffer after the run, by final name (swaps applied).
    pub buffers: BufferSet,
    /// Kernel time of each step of the schedule, when the device profiles.
    pub kernel_ns: Vec<Option<u64>>,
    /// From the first step's start to the last one's end, when the device profiles.
    pub span_ns: Option<u64>,
}

/// Builds the workload's program and runs its whole schedule once. `seed_shift` shifts every
/// random seed (0 = the data the workload file describes).
pub fn run_on_device(
    device: &Device,
    workload: &Workload,
    seed_shift: u64,
) -> Result<DeviceRun, ExecError> {
    let program = build(device, workload)?;
    run_program(&program, workload, seed_shift)
}

/// Runs the schedule of `workload` with an already built program.
pub fn run_program(
    program: &Program,
    workload: &Workload,
    seed_shift: u64,
) -> Result<DeviceRun, ExecError> {
    let initial = workload.initial_data(seed_shift)?;
    let mut table = BufferTable::default();
    for data in &initial.buffers {
        table.push(data.bytes.clone(), true);
    }
    let launches = device_launches(workload)?;
    let outcome = program.run_sequence(&launches, &mut table)?;
    let mut storage = initial;
    for (data, shared) in storage.buffers.iter_mut().zip(table.buffers) {
        data.bytes = shared.bytes;
    }
    Ok(DeviceRun {
        buffers: workload.contents_by_final_name(storage),
        kernel_ns: outcome.kernel_ns,
        span_ns: outcome.span_ns,
    })
}

/// Times a pipeline from its first kernel's start to its last kernel's end on the device,
/// one sample per run of the whole schedule: the kernels and the gaps between launches, but
/// not the transfers before and after. Comparing pipelines with different numbers of
/// launches (fusion) needs this; the sum of kernel times would hide what launches cost.
pub fn time_span_on_device(
    device: &Device,
    workload: &Workload,
    options: &TimingOptions,
) -> Result<Timing, ExecError> {
    let program = build(device, workload)?;
    sample_runs(&program, device, workload, options, |run| run.span_ns)
}

/// Runs the whole schedule `options.warmup` times unmeasured, then `options.reps` times,
/// taking one sample of each run with `sample` (`None`: the device does not profile).
fn sample_runs(
    program: &Program,
    device: &Device,
    workload: &Workload,
    options: &TimingOptions,
    sample: impl Fn(&DeviceRun) -> Option<u64>,
) -> Result<Timing, ExecError> {
    for _ in 0..options.warmup.max(1) {
        run_program(program, workload, 0)?;
    }
    let mut samples = Vec::with_capacity(options.reps as usize);
    for _ in 0..options.reps.max(1) {
        let run = run_program(program, workload, 0)?;
        samples.push(sample(&run).ok_or_else(|| DeviceError::ProfilingUnavailable {
            device: device.info().name.clone(),
        })?);
    }
    Timing::from_samples(samples)
        .ok_or_else(|| ExecError::Invalid("no timing samples were taken".to_string()))
}

/// Times a workload: a single-launch workload with profiling events per run (`Program::time`:
/// warm-up, repetitions, optional cache flush); a pipeline as the sum of its steps' kernel times,
/// one sample per run of the whole schedule.
pub fn time_on_device(
    device: &Device,
    workload: &Workload,
    options: &TimingOptions,
) -> Result<Timing, ExecError> {
    let program = build(device, workload)?;
    // Images and samplers go through the sequence runner, which creates them.
    let plain_args = workload.launches[0].args.iter().all(|a| match a {
        LaunchArg::Sampler { .. } => false,
        LaunchArg::Buffer { buffer } => {
            workload.buffer(buffer).is_none_or(|b| b.image.is_none() && b.view.is_none())
        }
        _ => true,
    });
    let single =
        workload.launch_count() == 1 && workload.launches[0].writes.is_empty() && plain_args;
    if single {
        let launch = &workload.launches[0];
        let initial = workload.initial_data(0)?;
        let step = workload
            .schedule()
            .next()
            .ok_or_else(|| ExecError::Invalid("the workload has no launch".to_string()))??;
        let mut args = Vec::with_capacity(step.args.len());
        for arg in step.args {
            args.push(match arg {
                StepArg::Buffer { slot } => {
                    let data = initial.buffers.get(slot).ok_or_else(|| {
                        ExecError::Invalid(format!("unknown storage slot {slot}"))
                    })?;
                    KernelArg::Buffer { bytes: data.bytes.clone(), read_back: false }
                }
                StepArg::Scalar { bytes } => KernelArg::Scalar(bytes),
                StepArg::Local { bytes } => KernelArg::Local(to_usize(bytes)?),
                StepArg::Null => KernelArg::Null,
                StepArg::Image { .. } | StepArg::Sampler { .. } | StepArg::View { .. } => {
                    return Err(ExecError::Invalid(
                        "an image or view argument reached the single-launch timer".to_string(),
                    ))
                }
            });
        }
        return Ok(program.time(
            &launch_spec(&launch.kernel, &launch.range),
            &mut args,
            options,
        )?);
    }
    sample_runs(&program, device, workload, options, |run| run.kernel_ns.iter().copied().sum())
}

/// Builds the workload's source. The runtime gets the text, not the file, so the source's
/// directory is added to the include path: `#include "x.h"` then resolves as it does for the
/// simulator (and for a compiler reading the file).
pub fn build(device: &Device, workload: &Workload) -> Result<Program, ExecError> {
    let mut options = workload.options.clone();
    if let Some(dir) = workload.source_path.parent().filter(|d| !d.as_os_str().is_empty()) {
        // Absolute, because runtimes compile from a directory of their own; quoted only when
        // needed, because not every runtime's option parser understands quotes.
        let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
        let dir = dir.display().to_string();
        let quoted = if dir.contains(' ') { format!("\"{dir}\"") } else { dir };
        options = format!("-I{quoted} {options}");
    }
    Ok(device.build(&workload.source, options.trim())?)
}

fn launch_spec(kernel: &str, range: &NdRange) -> LaunchSpec {
    let dims = usize::from(range.dims.clamp(1, 3));
    let to_sizes = |v: &[u64; 3]| v[..dims].iter().map(|&x| x as usize).collect::<Vec<_>>();
    let mut spec =
        LaunchSpec::new(kernel, to_sizes(&range.global)).with_offset(to_sizes(&range.offset));
    if let Some(local) = &range.local {
        spec = spec.with_local(to_sizes(local));
    }
    spec
}

/// The workload's schedule as device launches over the table of its initial buffers (in the
/// workload's buffer order), for callers that keep one buffer table across many runs.
pub fn device_launches(workload: &Workload) -> Result<Vec<SequenceLaunch>, ExecError> {
    let mut launches = Vec::new();
    for step in workload.schedule() {
        let step = step?;
        let launch = &workload.launches[step.launch];
        let args = step.args.into_iter().map(sequence_arg).collect::<Result<_, _>>()?;
        let writes_before = step
            .host_writes
            .into_iter()
            .map(|w| {
                Ok(SequenceWrite { buffer: w.slot, offset: to_usize(w.offset)?, bytes: w.bytes })
            })
            .collect::<Result<_, ExecError>>()?;
        launches.push(SequenceLaunch {
            launch: launch_spec(&launch.kernel, &launch.range),
            args,
            writes_before,
        });
    }
    Ok(launches)
}

/// A resolved workload argument as the device runtime takes it.
fn sequence_arg(arg: StepArg) -> Result<SequenceArg, ExecError> {
    Ok(match arg {
        StepArg::Buffer { slot } => SequenceArg::Shared(slot),
        StepArg::View { slot, offset, len } => {
            SequenceArg::SharedView { index: slot, offset: to_usize(offset)?, len: to_usize(len)? }
        }
        StepArg::Scalar { bytes } => SequenceArg::Scalar(bytes),
        StepArg::Local { bytes } => SequenceArg::Local(to_usize(bytes)?),
        StepArg::Null => SequenceArg::Null,
        StepArg::Image { slot, image } => SequenceArg::SharedImage(slot, image_layout(&image)?),
        StepArg::Sampler { bits } => SequenceArg::Sampler(bits),
    })
}

/// The device's description of a workload's image.
fn image_layout(image: &ImageSpec) -> Result<ImageLayout, ExecError> {
    let size = |v: u64| -> Result<usize, ExecError> {
        usize::try_from(v).map_err(|_| ExecError::Invalid(format!("image size {v} is too large")))
    };
    Ok(ImageLayout {
        mem_object_type: image.ty.mem_object_type(),
        width: size(image.width)?,
        height: size(image.height)?,
        depth: size(image.depth)?,
        array_size: size(image.array_size)?,
        channel_order: image.channel_order,
        channel_type: image.channel_type,
    })
}

fn to_usize(bytes: u64) -> Result<usize, ExecError> {
    usize::try_from(bytes).map_err(|_| {
        ExecError::Invalid(format!("{bytes} bytes do not fit in this machine's sizes"))
    })
}
