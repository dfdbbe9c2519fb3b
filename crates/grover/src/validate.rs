//! Validation before success: the rewritten kernel runs against the original on the
//! simulator with several input seeds, every output must agree within the workload's
//! tolerance, and the race and bounds checkers must be clean on the rewritten kernel.

use clmap_sim::{compile_kernel, run_program, ArgValue, SharedBuffer, SimError, SimOptions};
use clmap_workload::{BufferData, BufferSet, LaunchArg, Workload};
use std::collections::HashMap;

#[derive(Debug, thiserror::Error)]
pub enum ValidationError {
    #[error("the rewritten kernel does not compile:\n{0}")]
    DoesNotCompile(String),
    #[error("simulating the {which} kernel failed: {error}")]
    Simulation { which: &'static str, error: SimError },
    #[error("the rewritten kernel has a finding with input seed shift {seed}: {finding}")]
    Finding { seed: u64, finding: String },
    #[error("output `{buffer}` differs with input seed shift {seed}: {detail}")]
    Mismatch { seed: u64, buffer: String, detail: String },
    #[error("the workload's inputs cannot be built: {0}")]
    Inputs(String),
}

/// What was checked.
#[derive(Clone, Debug, PartialEq)]
pub struct Validation {
    pub seeds: u64,
    pub outputs: Vec<String>,
    /// Largest absolute difference over all outputs and seeds.
    pub max_abs: f64,
}

/// The workload with its source replaced.
pub fn with_source(workload: &Workload, source: &str) -> Workload {
    let mut w = workload.clone();
    w.source = source.to_string();
    w
}

/// Runs original and rewritten on `seeds` input sets (seed shifts `0..seeds`).
pub fn validate(
    original: &Workload,
    rewritten_source: &str,
    seeds: u64,
) -> Result<Validation, ValidationError> {
    let rewritten = with_source(original, rewritten_source);
    clmap_sim::compile_workload_source(&rewritten).map_err(|e| match e {
        SimError::Frontend { message } => ValidationError::DoesNotCompile(message),
        other => ValidationError::DoesNotCompile(other.to_string()),
    })?;
    let plain = SimOptions::default();
    let checked = SimOptions { check_races: true, ..SimOptions::default() };
    let mut max_abs: f64 = 0.0;
    for seed in 0..seeds.max(1) {
        let expected = run(original, seed, &plain)
            .map_err(|error| ValidationError::Simulation { which: "original", error })?;
        let (actual, findings) = run_with_findings(&rewritten, seed, &checked)
            .map_err(|error| ValidationError::Simulation { which: "rewritten", error })?;
        if let Some(finding) = findings.first() {
            return Err(ValidationError::Finding { seed, finding: finding.clone() });
        }
        for comparison in original.compare_outputs(&expected, &actual) {
            match comparison.result {
                Ok(c) if c.passed() => max_abs = max_abs.max(c.max_abs),
                Ok(c) => {
                    let first = c
                        .first_mismatches
                        .first()
                        .map(|m| {
                            format!(
                                "component {}: expected {:?}, got {:?}",
                                m.index, m.expected, m.actual
                            )
                        })
                        .unwrap_or_default();
                    return Err(ValidationError::Mismatch {
                        seed,
                        buffer: comparison.name,
                        detail: format!(
                            "{} of {} components differ; {first}",
                            c.mismatches, c.compared
                        ),
                    });
                }
                Err(e) => {
                    return Err(ValidationError::Mismatch {
                        seed,
                        buffer: comparison.name,
                        detail: e.to_string(),
                    })
                }
            }
        }
    }
    Ok(Validation { seeds: seeds.max(1), outputs: original.outputs.clone(), max_abs })
}

fn run(workload: &Workload, seed: u64, options: &SimOptions) -> Result<BufferSet, SimError> {
    run_with_findings(workload, seed, options).map(|(b, _)| b)
}

/// The workload's pipeline on the simulator with inputs from seed shift `seed` (the
/// simulator's own runner always uses the seeds written in the file).
fn run_with_findings(
    workload: &Workload,
    seed: u64,
    options: &SimOptions,
) -> Result<(BufferSet, Vec<String>), SimError> {
    let compiled = clmap_sim::compile_workload_source(workload)?;
    let data = workload.initial_data(seed).map_err(SimError::Workload)?;
    let mut buffers: HashMap<String, SharedBuffer> = HashMap::new();
    for b in &data.buffers {
        buffers.insert(b.name.clone(), SharedBuffer::from_bytes(&b.name, &b.bytes));
    }
    let mut findings = Vec::new();
    for launch in &workload.launches {
        let program = compile_kernel(&compiled.module, &launch.kernel)?;
        for _ in 0..launch.repeat {
            let mut args = Vec::with_capacity(launch.args.len());
            for arg in &launch.args {
                args.push(match arg {
                    LaunchArg::Buffer { buffer } => {
                        ArgValue::Buffer(buffers.get(buffer).cloned().ok_or_else(|| {
                            SimError::BadArguments { message: format!("unknown buffer `{buffer}`") }
                        })?)
                    }
                    LaunchArg::Scalar { .. } => ArgValue::Bytes(
                        arg.scalar_bytes().unwrap_or(Ok(Vec::new())).map_err(SimError::Workload)?,
                    ),
                    LaunchArg::Local { elem, len, .. } => {
                        ArgValue::Local(len.saturating_mul(elem.size()))
                    }
                    LaunchArg::Null { .. } => ArgValue::Null,
                });
            }
            let run =
                run_program(&program, &launch.range, &args, options, &|| clmap_sim::NoObserver)?;
            findings.extend(run.reports.iter().map(|r| r.to_string()));
            for (a, b) in &launch.swap {
                if let (Some(x), Some(y)) = (buffers.get(a).cloned(), buffers.get(b).cloned()) {
                    buffers.insert(a.clone(), y);
                    buffers.insert(b.clone(), x);
                }
            }
        }
    }
    let out = workload
        .buffers
        .iter()
        .map(|b| BufferData {
            name: b.name.clone(),
            elem: b.elem,
            bytes: buffers.get(&b.name).map(SharedBuffer::to_bytes).unwrap_or_default(),
            uninitialised: false,
        })
        .collect();
    Ok((BufferSet { buffers: out }, findings))
}
