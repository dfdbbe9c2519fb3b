//! One name for "where a workload runs": the simulator or an OpenCL device.

use std::cell::OnceCell;

use crate::on_device::{build, run_program, ExecError};
use crate::prepared::PreparedWorkload;
use clmap_device::{select_device, Device, Program};
use clmap_sim::{LaunchReport, SimOptions};
use clmap_workload::BufferSet;

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
    /// Kernel launches made, repetitions counted.
    pub launches: u64,
}

/// Runs the whole workload on `target`. `seed_shift` shifts every random seed of the inputs
/// (0 = the inputs the workload file describes), so a comparison can use other inputs.
pub fn run_on(
    target: &Target,
    prepared: &PreparedWorkload,
    seed_shift: u64,
) -> Result<TargetRun, ExecError> {
    Runner::new(prepared, target).run(seed_shift)
}

/// A prepared workload bound to a target, for running it on several inputs: a device builds
/// the program on the first run and reuses it, the simulator reuses the compiled module.
pub struct Runner<'a> {
    prepared: &'a PreparedWorkload,
    target: &'a Target,
    program: OnceCell<Program>,
}

impl<'a> Runner<'a> {
    pub fn new(prepared: &'a PreparedWorkload, target: &'a Target) -> Runner<'a> {
        Runner { prepared, target, program: OnceCell::new() }
    }

    pub fn prepared(&self) -> &'a PreparedWorkload {
        self.prepared
    }

    pub fn target(&self) -> &'a Target {
        self.target
    }

    /// One run of the whole schedule on the inputs of `seed_shift`.
    pub fn run(&self, seed_shift: u64) -> Result<TargetRun, ExecError> {
        let workload = self.prepared.workload();
        match self.target {
            Target::Device(device) => {
                let program = match self.program.get() {
                    Some(program) => program,
                    None => {
                        let built = build(device, workload)?;
                        self.program.get_or_init(|| built)
                    }
                };
                let run = run_program(program, workload, seed_shift)?;
                let launches = run.kernel_ns.len() as u64;
                Ok(TargetRun {
                    buffers: run.buffers,
                    kernel_ns: run.kernel_ns,
                    reports: Vec::new(),
                    printf: Vec::new(),
                    launches,
                })
            }
            Target::Simulator(options) => {
                let run = clmap_sim::run_workload_seeded(
                    self.prepared.module(),
                    workload,
                    options,
                    seed_shift,
                )?;
                Ok(TargetRun {
                    buffers: run.buffers,
                    kernel_ns: Vec::new(),
                    reports: run.reports,
                    printf: run.printf,
                    launches: run.launches,
                })
            }
        }
    }
}
