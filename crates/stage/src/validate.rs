//! Validation before success, as for every rewrite: the staged workload runs against the
//! original on the simulator with several input seeds through the exec layer's differential
//! runner, every output must agree within the workload's tolerance, and the race and bounds
//! checkers must be clean on the staged kernel (a missing barrier or a tile read outside
//! what was loaded shows there). Any disagreement is a refusal.

use clmap_exec::{differential, Disagreement, PreparedWorkload, Side, StopAt, Target};
use clmap_lang::Refusal;
use clmap_sim::SimOptions;
use clmap_workload::Workload;

/// What was checked.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Validation {
    pub seeds: u64,
    pub outputs: Vec<String>,
    /// Largest absolute difference over all outputs and seeds.
    pub max_abs: f64,
}

/// Compiles `staged` and compares it with `original` on `seeds` input sets.
pub fn validate(
    original: &PreparedWorkload,
    staged: Workload,
    seeds: u64,
) -> Result<(PreparedWorkload, Validation), Refusal> {
    let rewrite = PreparedWorkload::new(staged).map_err(|e| {
        Refusal::unlocated(format!("the staged kernel does not compile (a bug in staging): {e}"))
    })?;
    let plain = Target::Simulator(SimOptions::default());
    let checked = Target::Simulator(SimOptions { check_races: true, ..SimOptions::default() });
    let answer = differential(
        Side::new(original, &plain),
        Side::new(&rewrite, &checked),
        seeds,
        StopAt::FirstDisagreement,
    )
    .map_err(|e| Refusal::unlocated(format!("running the original and the staged kernel: {e}")))?;
    match answer.first_disagreement() {
        Some(Disagreement::Output { seed, buffer, detail }) => Err(Refusal::unlocated(format!(
            "the staged kernel is not reported: output `{buffer}` differs from the original's \
             with input seed shift {seed}: {detail}"
        ))),
        Some(Disagreement::Finding { seed, finding }) => Err(Refusal::unlocated(format!(
            "the staged kernel is not reported: with input seed shift {seed} the simulator \
             found: {finding}"
        ))),
        None => Ok((
            rewrite,
            Validation {
                seeds: answer.seed_count(),
                outputs: answer.output_names(),
                max_abs: answer.max_abs(),
            },
        )),
    }
}

/// Runs the original and the staged workload on `target` (an OpenCL device, say) with `seeds`
/// input sets; both must give the same outputs.
pub fn validate_on(
    original: &PreparedWorkload,
    staged: &PreparedWorkload,
    seeds: u64,
    target: &Target,
) -> Result<Validation, Refusal> {
    let answer = differential(
        Side::new(original, target),
        Side::new(staged, target),
        seeds,
        StopAt::FirstDisagreement,
    )
    .map_err(|e| Refusal::unlocated(format!("running on {}: {e}", target.name())))?;
    match answer.first_disagreement() {
        Some(d) => Err(Refusal::unlocated(format!(
            "on {} the staged kernel disagrees with the original: {d}",
            target.name()
        ))),
        None => Ok(Validation {
            seeds: answer.seed_count(),
            outputs: answer.output_names(),
            max_abs: answer.max_abs(),
        }),
    }
}
