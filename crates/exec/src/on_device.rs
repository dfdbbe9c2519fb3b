//! A workload on an OpenCL device: one build, the schedule's launches in order over shared
//! device buffers, outputs read back once at the end.

use clmap_device::{
    BufferTable, Device, DeviceError, LaunchSpec, Program, SequenceArg, SequenceLaunch, Timing,
    TimingOptions,
};
use clmap_workload::{BufferSet, LaunchArg, NdRange, Workload, WorkloadError};

#[derive(Debug, thiserror::Error)]
pub enum ExecError {
    #[error(transparent)]
    Workload(#[from] WorkloadError),
    #[error(transparent)]
    Device(#[from] DeviceError),
    #[error(transparent)]
    Simulator(#[from] clmap_sim::SimError),
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
    })
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
    let single = workload.launches.len() == 1 && workload.launches[0].repeat <= 1;
    if single {
        let launch = &workload.launches[0];
        let initial = workload.initial_data(0)?;
        let mut args = Vec::with_capacity(launch.args.len());
        for arg in &launch.args {
            args.push(match arg {
                LaunchArg::Buffer { buffer } => {
                    let data = initial.get(buffer).ok_or_else(|| {
                        ExecError::Invalid(format!("launch names unknown buffer `{buffer}`"))
                    })?;
                    clmap_device::KernelArg::Buffer { bytes: data.bytes.clone(), read_back: false }
                }
                LaunchArg::Scalar { .. } => clmap_device::KernelArg::Scalar(scalar_bytes(arg)?),
                LaunchArg::Local { elem, len, .. } => {
                    clmap_device::KernelArg::Local(local_bytes(elem.size(), *len)?)
                }
                LaunchArg::Null { .. } => clmap_device::KernelArg::Null,
            });
        }
        return Ok(program.time(
            &launch_spec(&launch.kernel, &launch.range),
            &mut args,
            options,
        )?);
    }
    for _ in 0..options.warmup.max(1) {
        run_program(&program, workload, 0)?;
    }
    let mut samples = Vec::with_capacity(options.reps as usize);
    for _ in 0..options.reps.max(1) {
        let run = run_program(&program, workload, 0)?;
        let total: Option<u64> = run.kernel_ns.iter().copied().sum();
        samples.push(total.ok_or_else(|| DeviceError::ProfilingUnavailable {
            device: device.info().name.clone(),
        })?);
    }
    Timing::from_samples(samples)
        .ok_or_else(|| ExecError::Invalid("no timing samples were taken".to_string()))
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

fn scalar_bytes(arg: &LaunchArg) -> Result<Vec<u8>, ExecError> {
    match arg.scalar_bytes() {
        Some(bytes) => Ok(bytes?),
        None => Err(ExecError::Invalid(format!("argument `{}` is not a scalar", arg.name()))),
    }
}

fn local_bytes(elem_size: u64, len: u64) -> Result<usize, ExecError> {
    elem_size
        .checked_mul(len)
        .and_then(|b| usize::try_from(b).ok())
        .ok_or_else(|| ExecError::Invalid(format!("local memory of {len} elements is too large")))
}

/// The workload's schedule as device launches over the table of its initial buffers (in the
/// workload's buffer order), for callers that keep one buffer table across many runs.
pub fn device_launches(workload: &Workload) -> Result<Vec<SequenceLaunch>, ExecError> {
    let mut launches = Vec::new();
    for step in workload.schedule() {
        let launch = &workload.launches[step.launch];
        let mut args = Vec::with_capacity(launch.args.len());
        for (arg, slot) in launch.args.iter().zip(&step.arg_slots) {
            args.push(match arg {
                LaunchArg::Buffer { buffer } => SequenceArg::Shared(slot.ok_or_else(|| {
                    ExecError::Invalid(format!("launch names unknown buffer `{buffer}`"))
                })?),
                LaunchArg::Scalar { .. } => SequenceArg::Scalar(scalar_bytes(arg)?),
                LaunchArg::Local { elem, len, .. } => {
                    SequenceArg::Local(local_bytes(elem.size(), *len)?)
                }
                LaunchArg::Null { .. } => SequenceArg::Null,
            });
        }
        launches.push(SequenceLaunch { launch: launch_spec(&launch.kernel, &launch.range), args });
    }
    Ok(launches)
}
