//! The evaluator on a real OpenCL device (NVIDIA's, for PTX).
//!
//! The reference is the device vendor's own compilation of the source (`clCreateProgramWithSource`)
//! run on the same inputs, as in seed 003, where the CPU version of each benchmark played that
//! role: a PTX is valid when its outputs agree with the reference's under the rule of
//! [`crate::validation`] (1 % in the maximum norm; integers exactly). Small inputs are used
//! during the search, the full inputs and 30 shifted random inputs at the end.

use std::collections::HashMap;

use clmap_device::{BufferTable, Device, Program, SequenceLaunch};
use clmap_exec::on_device::{build, device_launches, run_program};
use clmap_workload::{BufferSet, Workload};

use crate::aliasing::AliasedLayout;
use crate::compiler::CompiledPtx;
use crate::evaluator::{Evaluator, EvaluatorError, Verdict};
pub use crate::validation::compare;
/// Reference outputs of shifted inputs are cached up to this many bytes in total.
const REFERENCE_CACHE_BYTES: usize = 1 << 30;

/// Validates and times PTX for one workload on one OpenCL device.
pub struct DeviceEvaluator {
    device: Device,
    full: Workload,
    small: Workload,
    source_program: Program,
    small_reference: BufferSet,
    full_references: HashMap<u64, BufferSet>,
    cached_bytes: usize,
    full_launches: Vec<SequenceLaunch>,
    full_table: BufferTable,
    last_program: Option<(String, Program)>,
    /// Layouts with two arguments on one buffer, for the final validation.
    aliased: Vec<AliasedLayout>,
}

fn device_failure(error: impl std::fmt::Display) -> EvaluatorError {
    EvaluatorError(error.to_string())
}

impl DeviceEvaluator {
    /// Builds the source with the vendor's compiler and computes the reference outputs of the
    /// small workload. `small` must run the same source with the same build options.
    pub fn new(
        device: Device,
        full: Workload,
        small: Workload,
    ) -> Result<DeviceEvaluator, EvaluatorError> {
        if small.source != full.source || small.options != full.options {
            return Err(EvaluatorError(
                "the small workload must use the same source and build options as the workload \
                 (only sizes and inputs may differ), so that one PTX serves both"
                    .to_string(),
            ));
        }
        let source_program = build(&device, &full).map_err(device_failure)?;
        let small_reference =
            run_program(&source_program, &small, 0).map_err(device_failure)?.buffers;
        let full_launches = device_launches(&full).map_err(|e| EvaluatorError(e.to_string()))?;
        let mut full_table = BufferTable::default();
        for data in full.initial_data(0).map_err(device_failure)?.buffers {
            // Timing needs no results back: the outputs are checked by validation.
            full_table.push(data.bytes, false);
        }
        Ok(DeviceEvaluator {
            device,
            full,
            small,
            source_program,
            small_reference,
            full_references: HashMap::new(),
            cached_bytes: 0,
            full_launches,
            full_table,
            last_program: None,
            aliased: Vec::new(),
        })
    }

    /// Also validates finalists on these aliased layouts of the small workload (see
    /// [`crate::aliasing`]); their references are computed on first use.
    pub fn with_aliased_layouts(mut self, layouts: Vec<AliasedLayout>) -> DeviceEvaluator {
        self.aliased = layouts;
        self
    }

    /// The device.
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// The program for a PTX, built once and kept for the next call (validation is usually
    /// followed by timing of the same PTX).
    fn program(&mut self, ptx: &CompiledPtx) -> Result<&Program, Verdict> {
        let cached = self.last_program.as_ref().is_some_and(|(hash, _)| hash == &ptx.hash);
        if !cached {
            self.last_program = None;
            let program = self
                .device
                .build_binary(&ptx.text, "")
                .map_err(|e| Verdict::Failed(format!("the driver rejected the PTX: {e}")))?;
            self.last_program = Some((ptx.hash.clone(), program));
        }
        match &self.last_program {
            Some((_, program)) => Ok(program),
            None => Err(Verdict::Failed("no program".to_string())),
        }
    }

    /// After a PTX failed to run, checks that the device still runs the reference correctly.
    /// Some launch failures (an illegal address) leave a context unusable; every later PTX
    /// would then fail too and be stored as invalid, so the search stops instead.
    fn check_device_still_works(&mut self) -> Result<(), EvaluatorError> {
        let run = run_program(&self.source_program, &self.small, 0).map_err(|e| {
            EvaluatorError(format!(
                "the device stopped working after the candidate's kernel failed: it most likely \
                 accessed an illegal address, which leaves the context unusable ({e})"
            ))
        })?;
        match compare(&self.small, &self.small_reference, &run.buffers) {
            Verdict::Valid => Ok(()),
            other => Err(EvaluatorError(format!(
                "the reference no longer reproduces its own outputs after a kernel failed ({})",
                other.reason()
            ))),
        }
    }

    /// A fresh context on the same device, the source rebuilt in it, and the small reference
    /// run again: it must reproduce the outputs it gave at the start, or the device is not
    /// trusted to judge anything more.
    fn reopen(&mut self) -> Result<(), EvaluatorError> {
        self.last_program = None;
        let device = self
            .device
            .reopen()
            .map_err(|e| EvaluatorError(format!("cannot open a new context on the device: {e}")))?;
        let source_program = build(&device, &self.full).map_err(|e| {
            EvaluatorError(format!("the source does not build in a new context: {e}"))
        })?;
        let run = run_program(&source_program, &self.small, 0).map_err(|e| {
            EvaluatorError(format!("the reference does not run in a new context: {e}"))
        })?;
        match compare(&self.small, &self.small_reference, &run.buffers) {
            Verdict::Valid => {}
            other => {
                return Err(EvaluatorError(format!(
                    "the reference gives other outputs in a new context ({})",
                    other.reason()
                )))
            }
        }
        for aliased in &mut self.aliased {
            aliased.reference = None;
        }
        self.device = device;
        self.source_program = source_program;
        Ok(())
    }

    fn reference_for(&mut self, seed_shift: u64) -> Result<BufferSet, EvaluatorError> {
        if let Some(known) = self.full_references.get(&seed_shift) {
            return Ok(known.clone());
        }
        let run =
            run_program(&self.source_program, &self.full, seed_shift).map_err(device_failure)?;
        let bytes: usize = run.buffers.buffers.iter().map(|b| b.bytes.len()).sum();
        if self.cached_bytes.saturating_add(bytes) <= REFERENCE_CACHE_BYTES {
            self.cached_bytes += bytes;
            self.full_references.insert(seed_shift, run.buffers.clone());
        }
        Ok(run.buffers)
    }

    /// Times `ptx` on the full workload; with `give_up_ns`, a warm-up slower than that ends
    /// the timing (see [`Evaluator::time_ptx_screened`]).
    fn time_ptx_within(
        &mut self,
        ptx: &CompiledPtx,
        reps: u32,
        give_up_ns: Option<u64>,
    ) -> Result<Result<Vec<u64>, Verdict>, EvaluatorError> {
        let launches = std::mem::take(&mut self.full_launches);
        let mut table = std::mem::take(&mut self.full_table);
        let timed = match self.program(ptx) {
            Err(verdict) => Err(verdict),
            Ok(program) => Self::time_program(program, &launches, &mut table, reps, give_up_ns)
                .map_err(|e| Verdict::Failed(format!("the kernel did not run: {e}"))),
        };
        self.full_launches = launches;
        self.full_table = table;
        if timed.is_err() {
            self.last_program = None;
            self.check_device_still_works()?;
        }
        Ok(timed)
    }

    fn time_program(
        program: &Program,
        launches: &[SequenceLaunch],
        table: &mut BufferTable,
        reps: u32,
        give_up_ns: Option<u64>,
    ) -> Result<Vec<u64>, String> {
        let mut samples = Vec::with_capacity(reps as usize);
        // One discarded run first: it absorbs the driver's final compilation and first-touch
        // costs.
        for round in 0..=reps {
            let outcome = program.run_sequence(launches, table).map_err(|e| e.to_string())?;
            let total: Option<u64> = outcome.kernel_ns.iter().copied().sum();
            let total = total.ok_or_else(|| "the device does not profile kernels".to_string())?;
            if round == 0 && give_up_ns.is_some_and(|limit| total > limit) {
                // Too slow to win even with its first-run costs taken off: the warm-up
                // stands as the one sample.
                return Ok(vec![total]);
            }
            if round > 0 {
                samples.push(total);
            }
        }
        Ok(samples)
    }
}

impl Evaluator for DeviceEvaluator {
    fn describe(&self) -> String {
        let info = self.device.info();
        format!("{} ({}, driver {})", info.name, info.platform_name, info.driver_version)
    }

    fn validate_small(&mut self, ptx: &CompiledPtx) -> Result<Verdict, EvaluatorError> {
        let small = self.small.clone();
        let run = match self.program(ptx) {
            Err(verdict) => return Ok(verdict),
            Ok(program) => run_program(program, &small, 0),
        };
        match run {
            Ok(run) => Ok(compare(&self.small, &self.small_reference, &run.buffers)),
            Err(error) => {
                self.last_program = None;
                self.check_device_still_works()?;
                Ok(Verdict::Failed(format!("the kernel did not run: {error}")))
            }
        }
    }

    fn validate_full(
        &mut self,
        ptx: &CompiledPtx,
        seed_shift: u64,
    ) -> Result<Verdict, EvaluatorError> {
        let reference = self.reference_for(seed_shift)?;
        let full = self.full.clone();
        let run = match self.program(ptx) {
            Err(verdict) => return Ok(verdict),
            Ok(program) => run_program(program, &full, seed_shift),
        };
        match run {
            Ok(run) => Ok(compare(&self.full, &reference, &run.buffers)),
            Err(error) => {
                self.last_program = None;
                self.check_device_still_works()?;
                Ok(Verdict::Failed(format!("the kernel did not run: {error}")))
            }
        }
    }

    fn time_ptx(
        &mut self,
        ptx: &CompiledPtx,
        reps: u32,
    ) -> Result<Result<Vec<u64>, Verdict>, EvaluatorError> {
        self.time_ptx_within(ptx, reps, None)
    }

    fn time_ptx_screened(
        &mut self,
        ptx: &CompiledPtx,
        reps: u32,
        give_up_ns: u64,
    ) -> Result<Result<Vec<u64>, Verdict>, EvaluatorError> {
        self.time_ptx_within(ptx, reps, Some(give_up_ns))
    }

    fn time_source(&mut self, reps: u32) -> Result<Vec<u64>, EvaluatorError> {
        let (launches, table) = (&self.full_launches, &mut self.full_table);
        Self::time_program(&self.source_program, launches, table, reps, None)
            .map_err(EvaluatorError)
    }

    fn validate_aliased(
        &mut self,
        ptx: &CompiledPtx,
    ) -> Result<Vec<(String, Verdict)>, EvaluatorError> {
        let mut verdicts = Vec::with_capacity(self.aliased.len());
        for index in 0..self.aliased.len() {
            let Some(layout) = self.aliased.get(index) else { continue };
            let (label, workload) = (layout.label(), layout.workload.clone());
            let reference = match &layout.reference {
                Some(reference) => reference.clone(),
                None => {
                    let run = run_program(&self.source_program, &workload, 0).map_err(|e| {
                        EvaluatorError(format!("the reference does not run with {label}: {e}"))
                    })?;
                    if let Some(layout) = self.aliased.get_mut(index) {
                        layout.reference = Some(run.buffers.clone());
                    }
                    run.buffers
                }
            };
            let run = match self.program(ptx) {
                Err(verdict) => return Ok(vec![(label, verdict)]),
                Ok(program) => run_program(program, &workload, 0),
            };
            let verdict = match run {
                Ok(run) => compare(&workload, &reference, &run.buffers),
                Err(error) => {
                    self.last_program = None;
                    self.check_device_still_works()?;
                    Verdict::Failed(format!("the kernel did not run: {error}"))
                }
            };
            verdicts.push((label, verdict));
        }
        Ok(verdicts)
    }

    fn recover(&mut self) -> Result<(), EvaluatorError> {
        self.reopen()
    }
}
