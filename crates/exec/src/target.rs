//! One name for "where a workload runs": the simulator or an OpenCL device.

use crate::on_device::{run_on_device, ExecError};
use clmap_device::{select_device, Device};
use clmap_sim::{LaunchReport, SimOptions};
use clmap_workload::{BufferSet, Workload};

/// Where to run.
pub enum Target {
    Simulator(SimOptions),
    Device(Device),
}

impl Target {
    /// `sim` (or `simulator`) for the built-in simulator, anything else selects an OpenCL
    /// device as `clmap devices` lists them (index, type or part of the name).
    pub fn select(selector: &str, sim: SimOptions) -> Result<Target, ExecError> {
        match selector.trim().to_ascii_lowercase().as_str() {
            "sim" | "simulator" => Ok(Target::Simulator(sim)),
            _ => Ok(Target::Device(select_device(selector)?)),
        }
    }

    /// A short name for reports: `simulator` or the device's name.
    pub fn name(&self) -> String {
        match self {
            Target::Simulator(_) => "simulator".to_string(),
            Target::Device(d) => d.info().name.clone(),
        }
    }
}

/// What a workload left behind on any target.
#[derive(Debug, Clone)]
pub struct TargetRun {
    /// Every buffer after the run, by final name (swaps applied).
    pub buffers: BufferSet,
    /// Kernel time of each step, when the target measures it (devices with profiling).
    pub kernel_ns: Vec<Option<u64>>,
    /// Findings of the simulator's checkers (always empty on devices).
    pub reports: Vec<LaunchReport>,
    /// `printf` output, launch by launch (simulator only).
    pub printf: Vec<String>,
}

/// Runs the whole workload on `target`. `seed_shift` shifts every random seed of the inputs
/// (0 = the inputs the workload file describes), so a comparison can use other inputs.
pub fn run_on(
    target: &Target,
    workload: &Workload,
    seed_shift: u64,
) -> Result<TargetRun, ExecError> {
    match target {
        Target::Device(device) => {
            let run = run_on_device(device, workload, seed_shift)?;
            Ok(TargetRun {
                buffers: run.buffers,
                kernel_ns: run.kernel_ns,
                reports: Vec::new(),
                printf: Vec::new(),
            })
        }
        Target::Simulator(options) => {
            let run = clmap_sim::run_workload_seeded(workload, options, seed_shift)?;
            Ok(TargetRun {
                buffers: run.buffers,
                kernel_ns: Vec::new(),
                reports: run.reports,
                printf: run.printf,
            })
        }
    }
}
