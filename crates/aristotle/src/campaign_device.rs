//! The campaign measurer on a live OpenCL device: generated microbenchmarks, timed as seed 001
//! §6.2 prescribes (16 × 16 work-groups, the first repetition a discarded warm-up, caches flushed
//! before every measured repetition).

use crate::campaign::{reference_of, Measurer, REFERENCE_VARIANT};
use crate::compose_kernels::{generate_interleaved, InterleavedVersion};
use crate::generate::{generate, BenchSpec, Microbenchmark, Variant};
use crate::map::{map_by_id, MapId};
use crate::store::{UnitKey, UnitResult, UnitSetup, Validation};
use clmap_device::{Device, TimingOptions};
use std::collections::HashMap;

/// Builds a microbenchmark variant the generator does not write itself from the `nolocal`
/// microbenchmark of the same MAP and dataset: the workload to time, or why there is none.
/// The staged variant ([`crate::query::STAGED_VARIANT`]) is the stager's tile of the
/// `nolocal` kernel, which the CLI supplies (the stager sits above this crate).
pub type Rewrite<'d> =
    Box<dyn Fn(&Microbenchmark) -> Result<clmap_workload::Workload, String> + 'd>;

/// Stages one named input of a generated kernel in `__local` memory (the stager's rewrite, which
/// the CLI supplies): the versions of an interleaved pair stage `in1`, `in2` or both.
pub type BufferStager<'d> =
    Box<dyn Fn(&Microbenchmark, &str) -> Result<clmap_workload::Workload, String> + 'd>;

/// Times generated microbenchmarks on one device.
pub struct DeviceMeasurer<'d> {
    device: &'d Device,
    work_group: [usize; 2],
    /// Repetitions including the warm-up (the paper's 21).
    reps: u32,
    flush_cache: bool,
    /// Outputs of the reference variant per (MAP, reference variant, dataset): every local
    /// variant of a MAP is compared with the same run, so it is built and run once.
    reference_outputs: HashMap<(u16, String, usize), clmap_workload::BufferSet>,
    /// Variants built by rewriting the `nolocal` kernel, by name.
    rewrites: Vec<(String, Rewrite<'d>)>,
    /// What each rewrite gave per (MAP, variant, dataset), so a unit is rewritten once.
    rewritten: HashMap<(u16, String, usize), Result<Microbenchmark, String>>,
    /// Stages a named input, for the staged versions of interleaved pairs.
    buffer_stager: Option<BufferStager<'d>>,
}

impl<'d> DeviceMeasurer<'d> {
    /// A measurer making `reps` runs per unit, the first discarded as warm-up, so `reps − 1`
    /// samples are stored (`reps` is at least 2).
    pub fn new(device: &'d Device, work_group: [usize; 2], reps: u32, flush_cache: bool) -> Self {
        DeviceMeasurer {
            device,
            work_group,
            reps: reps.max(2),
            flush_cache,
            reference_outputs: HashMap::new(),
            rewrites: Vec::new(),
            rewritten: HashMap::new(),
            buffer_stager: None,
        }
    }

    /// Stages inputs with `stager` for the versions of interleaved pairs (without one, their
    /// staged versions are not generated).
    pub fn with_buffer_stager(mut self, stager: BufferStager<'d>) -> Self {
        self.buffer_stager = Some(stager);
        self
    }

    /// An interleaved pair's version: the generated kernel of the unit's MAP and the partner,
    /// with the inputs the version stages staged one after the other.
    fn interleaved(
        &self,
        map: u16,
        version: InterleavedVersion,
        dataset: usize,
    ) -> Result<Microbenchmark, String> {
        let lookup =
            |id: u16| map_by_id(MapId(id)).ok_or_else(|| format!("MAP-{id} is not a valid MAP"));
        let (candidate, partner) = (lookup(map)?, lookup(version.partner)?);
        let mut bench = generate_interleaved(&candidate, &partner, dataset, self.work_group)
            .map_err(|e| e.to_string())?;
        for input in version.staged_inputs() {
            let stager = self
                .buffer_stager
                .as_ref()
                .ok_or_else(|| format!("no stager to stage {input} of an interleaved pair"))?;
            let workload = stager(&bench, input)?;
            bench.source = workload.source.clone();
            bench.workload = workload;
            bench.workload.bytes_moved = Some(bench.bytes_moved);
        }
        Ok(bench)
    }

    /// Measures `variant` as `rewrite` makes it from the `nolocal` microbenchmark.
    pub fn with_rewrite(mut self, variant: &str, rewrite: Rewrite<'d>) -> Self {
        self.rewrites.push((variant.to_string(), rewrite));
        self
    }

    /// Samples stored per measured unit.
    pub fn samples_per_unit(&self) -> u32 {
        self.reps - 1
    }

    fn generated(&self, map: u16, variant: &str, dataset: usize) -> Result<Microbenchmark, String> {
        let map = map_by_id(MapId(map)).ok_or_else(|| format!("MAP-{map} is not a valid MAP"))?;
        let variant: Variant = variant.parse().map_err(|e| format!("{e}"))?;
        generate(&BenchSpec { map, variant, dataset, work_group: self.work_group })
            .map_err(|e| e.to_string())
    }

    /// The unit's microbenchmark: generated, or rewritten from `nolocal` for a variant with a
    /// rewrite (its `local_cells` is 0: the rewrite has checked its own local memory).
    fn bench(&mut self, map: u16, variant: &str, dataset: usize) -> Result<Microbenchmark, String> {
        if let Some(version) = InterleavedVersion::parse(variant) {
            let key = (map, variant.to_string(), dataset);
            if let Some(done) = self.rewritten.get(&key) {
                return done.clone();
            }
            let result = self.interleaved(map, version, dataset);
            self.rewritten.insert(key, result.clone());
            return result;
        }
        let Some(at) = self.rewrites.iter().position(|(name, _)| name == variant) else {
            return self.generated(map, variant, dataset);
        };
        let key = (map, variant.to_string(), dataset);
        if let Some(done) = self.rewritten.get(&key) {
            return done.clone();
        }
        let result = self.generated(map, REFERENCE_VARIANT, dataset).and_then(|mut bench| {
            let workload = (self.rewrites[at].1)(&bench)?;
            bench.source = workload.source.clone();
            bench.workload = workload;
            bench.workload.bytes_moved = Some(bench.bytes_moved);
            bench.local_cells = 0;
            Ok(bench)
        });
        self.rewritten.insert(key, result.clone());
        result
    }

    /// Compiles a unit's kernel and runs one work-group of it, discarding the results. A
    /// compiler that caches kernels on disk (PoCL) then finds it there when the unit is
    /// measured; several processes doing this for different units in parallel take the
    /// compilation off the measuring path. One work-group, because PoCL finishes compiling
    /// only at the first launch, specialised for the work-group size. A unit the device cannot
    /// run is not compiled.
    pub fn build_only(&mut self, key: &UnitKey) -> Result<(), String> {
        let mut bench = self.bench(key.map, &key.variant, key.dataset)?;
        if self.does_not_fit(&bench).is_some() {
            return Ok(());
        }
        for launch in &mut bench.workload.launches {
            if let Some(local) = launch.range.local {
                launch.range.global = local;
            }
        }
        clmap_exec::run_on_device(self.device, &bench.workload, 0)
            .map(drop)
            .map_err(|e| e.to_string())
    }

    /// Why the device cannot run a microbenchmark with this work-group and local memory.
    fn does_not_fit(&self, bench: &Microbenchmark) -> Option<String> {
        let info = self.device.info();
        let [x, y] = self.work_group;
        if x * y > info.max_work_group_size {
            return Some(format!(
                "work-group {x}x{y} exceeds the device's maximum of {} work-items",
                info.max_work_group_size
            ));
        }
        let limits = &info.max_work_item_sizes;
        if limits.first().is_some_and(|&m| x > m) || limits.get(1).is_some_and(|&m| y > m) {
            return Some(format!("work-group {x}x{y} exceeds the device's sizes {limits:?}"));
        }
        let elem = bench.workload.buffers.first().map_or(4, |b| b.elem.size());
        let local_bytes = (bench.local_cells as u64).saturating_mul(elem);
        if local_bytes > info.local_mem_bytes {
            return Some(format!(
                "needs {local_bytes} bytes of local memory per work-group, the device has {}",
                info.local_mem_bytes
            ));
        }
        None
    }
}

impl Measurer for DeviceMeasurer<'_> {
    fn setup(&self) -> UnitSetup {
        UnitSetup { work_group: self.work_group, warmup: 1, flush_cache: self.flush_cache }
    }

    fn skip_reason(&mut self, key: &UnitKey) -> Option<String> {
        match self.bench(key.map, &key.variant, key.dataset) {
            // A variant the generator does not produce for this MAP is not a device failure.
            Err(reason) => Some(format!("not generated: {reason}")),
            Ok(bench) => self.does_not_fit(&bench),
        }
    }

    fn validate(&mut self, map: u16, variant: &str, dataset: usize) -> Result<Validation, String> {
        let candidate = self.bench(map, variant, dataset)?;
        let reference_variant = reference_of(variant);
        let reference = self.bench(map, &reference_variant, dataset)?;
        let reference_key = (map, reference_variant.clone(), dataset);
        let expected = match self.reference_outputs.get(&reference_key) {
            Some(outputs) => outputs.clone(),
            None => {
                let run = clmap_exec::run_on_device(self.device, &reference.workload, 0)
                    .map_err(|e| format!("{reference_variant}: {e}"))?;
                self.reference_outputs.insert(reference_key, run.buffers.clone());
                run.buffers
            }
        };
        let actual = clmap_exec::run_on_device(self.device, &candidate.workload, 0)
            .map_err(|e| format!("{variant}: {e}"))?;
        let outputs = reference.workload.outputs.len();
        let problems = if outputs == 0 {
            Some("the workload declares no outputs to compare".to_string())
        } else {
            output_differences(&reference.workload, &expected, &actual.buffers)
        };
        Ok(Validation {
            equal: problems.is_none(),
            dataset,
            detail: problems.unwrap_or_else(|| format!("{outputs} output(s) equal")),
        })
    }

    fn measure(&mut self, key: &UnitKey) -> UnitResult {
        let samples = self.samples_per_unit();
        self.measure_samples(key, samples)
    }

    fn measure_samples(&mut self, key: &UnitKey, samples: u32) -> UnitResult {
        let bench = match self.bench(key.map, &key.variant, key.dataset) {
            Ok(bench) => bench,
            Err(reason) => return UnitResult::Failed { reason },
        };
        let options =
            TimingOptions { warmup: 1, reps: samples.max(1), flush_cache: self.flush_cache };
        match clmap_exec::time_on_device(self.device, &bench.workload, &options) {
            Ok(timing) => UnitResult::Measured {
                bytes_moved: bench.bytes_moved,
                samples_ns: timing.samples_ns,
            },
            Err(e) => UnitResult::Failed { reason: e.to_string() },
        }
    }
}

/// How `actual` differs from `expected` over `workload`'s outputs (its tolerances), or `None`
/// when every output agrees: the exec layer's comparison, against a reference run kept once.
pub fn output_differences(
    workload: &clmap_workload::Workload,
    expected: &clmap_workload::BufferSet,
    actual: &clmap_workload::BufferSet,
) -> Option<String> {
    clmap_exec::differential::compare_buffers(workload, 0, expected, actual).differences()
}
