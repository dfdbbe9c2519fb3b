//! Validation before success: the rewritten kernel runs against the original on the
//! simulator with several input seeds, every output must agree within the workload's
//! tolerance, and the race and bounds checkers must be clean on the rewritten kernel.

use clmap_sim::{SimError, SimOptions};
use clmap_workload::{BufferSet, Workload};

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

/// The workload's pipeline on the simulator with inputs from seed shift `seed`, and its
/// checker findings as text.
fn run_with_findings(
    workload: &Workload,
    seed: u64,
    options: &SimOptions,
) -> Result<(BufferSet, Vec<String>), SimError> {
    let run = clmap_sim::run_workload_seeded(workload, options, seed)?;
    let findings = run.reports.iter().map(|r| r.report.to_string()).collect();
    Ok((run.buffers, findings))
}
