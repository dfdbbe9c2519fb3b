//! Where variants are timed: an OpenCL device (kernel time from profiling events, the timing
//! `clmap time` uses), or the simulator (host wall-clock time of a simulated run, which ranks
//! variants by the simulator's work, not by any hardware's speed; it lets a tuning run go end
//! to end where no OpenCL device exists).

use std::cell::OnceCell;
use std::time::Instant;

use clmap_db::DeviceIdentity;
use clmap_device::{Device, Timing, TimingOptions};
use clmap_exec::differential::compare_buffers;
use clmap_exec::{time_on_device, PreparedWorkload, Runner, Target, TargetRun};
use clmap_sim::SimOptions;

use crate::producers::DeviceLimits;

/// The device variants are timed on.
pub struct TuneTarget {
    target: Target,
    identity: DeviceIdentity,
    /// The original's outputs on the device, computed once, that each variant's must match.
    reference: OnceCell<Result<TargetRun, String>>,
}

impl TuneTarget {
    /// The simulator, recorded in the database as the device `clmap simulator`.
    pub fn simulator() -> TuneTarget {
        TuneTarget {
            target: Target::Simulator(SimOptions::default()),
            identity: simulator_identity(),
            reference: OnceCell::new(),
        }
    }

    /// An OpenCL device, recorded under `identity` (how the database names it).
    pub fn device(device: Device, identity: DeviceIdentity) -> TuneTarget {
        TuneTarget { target: Target::Device(device), identity, reference: OnceCell::new() }
    }

    pub fn is_simulator(&self) -> bool {
        matches!(self.target, Target::Simulator(_))
    }

    pub fn name(&self) -> String {
        self.target.name()
    }

    pub fn identity(&self) -> &DeviceIdentity {
        &self.identity
    }

    pub fn limits(&self) -> DeviceLimits {
        match &self.target {
            Target::Simulator(_) => DeviceLimits::SIMULATOR,
            Target::Device(d) => DeviceLimits::of(d.info()),
        }
    }

    /// What a time on this target measures, for reports.
    pub fn clock(&self) -> &'static str {
        match self.target {
            Target::Simulator(_) => {
                "simulator wall-clock time (ranks the simulator's work, not hardware)"
            }
            Target::Device(_) => "kernel time from OpenCL profiling events",
        }
    }

    /// Runs the variant once on the device and compares its outputs with the original's there:
    /// the simulator validated the rewrite, this catches what only the device rejects (a
    /// work-group size its compiler cannot fit, a build error). Nothing to do on the simulator.
    pub fn check(
        &self,
        original: &PreparedWorkload,
        variant: &PreparedWorkload,
    ) -> Result<(), String> {
        if self.is_simulator() {
            return Ok(());
        }
        let reference = self
            .reference
            .get_or_init(|| Runner::new(original, &self.target).run(0).map_err(|e| e.to_string()));
        let reference =
            reference.as_ref().map_err(|e| format!("the original failed on the device: {e}"))?;
        let run = Runner::new(variant, &self.target).run(0).map_err(|e| e.to_string())?;
        let compared = compare_buffers(original.workload(), 0, &reference.buffers, &run.buffers);
        match compared.differences() {
            None => Ok(()),
            Some(d) => Err(format!("outputs differ from the original's on the device: {d}")),
        }
    }

    /// Times the variant's whole workload.
    pub fn time(
        &self,
        variant: &PreparedWorkload,
        options: &TimingOptions,
    ) -> Result<Timing, String> {
        match &self.target {
            Target::Device(device) => {
                time_on_device(device, variant.workload(), options).map_err(|e| e.to_string())
            }
            Target::Simulator(_) => {
                let runner = Runner::new(variant, &self.target);
                for _ in 0..options.warmup.max(1) {
                    runner.run(0).map_err(|e| e.to_string())?;
                }
                let mut samples = Vec::with_capacity(options.reps as usize);
                for _ in 0..options.reps.max(1) {
                    let start = Instant::now();
                    runner.run(0).map_err(|e| e.to_string())?;
                    samples.push(start.elapsed().as_nanos().max(1) as u64);
                }
                Timing::from_samples(samples).ok_or_else(|| "no samples were taken".to_string())
            }
        }
    }
}

/// How the simulator is named in the database: one record per clmap version, since a faster
/// interpreter changes every time.
pub fn simulator_identity() -> DeviceIdentity {
    DeviceIdentity {
        kind: "simulator".to_string(),
        platform: "clmap".to_string(),
        name: "clmap simulator".to_string(),
        vendor: "clmap".to_string(),
        driver: env!("CARGO_PKG_VERSION").to_string(),
        details: serde_json::json!({
            "max_work_group_size": DeviceLimits::SIMULATOR.max_work_group_size,
            "local_mem_bytes": DeviceLimits::SIMULATOR.local_mem_bytes,
        }),
    }
}
