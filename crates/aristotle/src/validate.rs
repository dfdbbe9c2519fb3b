//! Checks a generated variant against the variant without local memory on the simulator:
//! same input, outputs compared bit for bit, and no race, uninitialised local read or
//! out-of-bounds access reported on the way.
//!
//! Bitwise equality is the right test here, not a tolerance: every variant sums the same
//! elements in the same order, so any difference means the tile holds the wrong data.

use clmap_sim::{ReportKind, SimOptions};
use thiserror::Error;

use crate::generate::Microbenchmark;

/// Why a variant does not match its reference.
#[derive(Debug, Error)]
pub enum ValidationError {
    #[error("the simulator could not run {kernel}: {message}")]
    Simulation { kernel: String, message: String },
    #[error("{kernel}: the simulator reports {kind:?}: {message}")]
    Finding { kernel: String, kind: ReportKind, message: String },
    #[error("{kernel} has no output buffer `{buffer}`")]
    MissingOutput { kernel: String, buffer: String },
    #[error(
        "{kernel} differs from {reference} at out[{index}] (work-item ({x}, {y})): {actual} instead of {expected}"
    )]
    Mismatch {
        kernel: String,
        reference: String,
        index: usize,
        x: usize,
        y: usize,
        actual: f32,
        expected: f32,
    },
    #[error(
        "{kernel} and {reference} are not the same problem (MAP, dataset or work-group differ)"
    )]
    DifferentProblem { kernel: String, reference: String },
}

/// The simulator settings of validation: every checker on.
pub fn validation_options() -> SimOptions {
    SimOptions { check_races: true, check_uninitialised: true, ..SimOptions::default() }
}

/// Runs `bench` and `reference` on the simulator and compares their `out` buffers.
pub fn validate_on_simulator(
    bench: &Microbenchmark,
    reference: &Microbenchmark,
) -> Result<(), ValidationError> {
    validate_with(bench, reference, &validation_options())
}

/// [`validate_on_simulator`] with chosen simulator settings (e.g. a thread count).
pub fn validate_with(
    bench: &Microbenchmark,
    reference: &Microbenchmark,
    options: &SimOptions,
) -> Result<(), ValidationError> {
    let inputs = |m: &Microbenchmark| -> Vec<_> {
        m.workload.buffers.iter().map(|b| (b.name.clone(), b.init.clone(), b.len)).collect()
    };
    let same_problem = bench.spec.map.id() == reference.spec.map.id()
        && bench.spec.dataset == reference.spec.dataset
        && bench.composition.map(|c| c.second.id()) == reference.composition.map(|c| c.second.id())
        && inputs(bench) == inputs(reference);
    if !same_problem {
        return Err(ValidationError::DifferentProblem {
            kernel: bench.kernel_name.clone(),
            reference: reference.kernel_name.clone(),
        });
    }
    let actual = output_of(bench, options)?;
    let expected = output_of(reference, options)?;
    let n = bench.spec.dataset.max(1);
    for (index, (a, e)) in actual.iter().zip(&expected).enumerate() {
        if a.to_bits() != e.to_bits() {
            return Err(ValidationError::Mismatch {
                kernel: bench.kernel_name.clone(),
                reference: reference.kernel_name.clone(),
                index,
                x: index % n,
                y: index / n,
                actual: *a,
                expected: *e,
            });
        }
    }
    if actual.len() != expected.len() {
        return Err(ValidationError::MissingOutput {
            kernel: bench.kernel_name.clone(),
            buffer: "out".to_string(),
        });
    }
    Ok(())
}

/// The `out` buffer of a simulated run, as floats.
pub fn output_of(
    bench: &Microbenchmark,
    options: &SimOptions,
) -> Result<Vec<f32>, ValidationError> {
    let kernel = bench.kernel_name.clone();
    let simulation_error =
        |message: String| ValidationError::Simulation { kernel: kernel.clone(), message };
    let prepared = clmap_exec::PreparedWorkload::new(bench.workload.clone())
        .map_err(|e| simulation_error(e.to_string()))?;
    let run = clmap_sim::run_workload(prepared.module(), prepared.workload(), options)
        .map_err(|e| simulation_error(e.to_string()))?;
    if let Some(finding) = run.reports.first() {
        return Err(ValidationError::Finding {
            kernel,
            kind: finding.report.kind,
            message: finding.report.message.clone(),
        });
    }
    let bytes = run
        .buffer("out")
        .ok_or_else(|| ValidationError::MissingOutput { kernel, buffer: "out".to_string() })?;
    Ok(bytes.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect())
}
