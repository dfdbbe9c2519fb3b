//! Validation before success: the rewritten kernel runs against the original on the
//! simulator with several input seeds, every output must agree within the workload's
//! tolerance, and the race and bounds checkers must be clean on the rewritten kernel. The
//! comparison itself is the exec layer's differential answer, the one every rewrite uses; the
//! rewrite is compiled once, here, and the prepared result is handed on to device checks and
//! timing.

use clmap_exec::{differential, Disagreement, ExecError, PreparedWorkload, Side, StopAt, Target};
use clmap_lang::frontend::Compiled;
use clmap_sim::SimOptions;

#[derive(Debug, thiserror::Error)]
pub enum ValidationError {
    #[error("the rewritten kernel does not compile:\n{0}")]
    DoesNotCompile(String),
    #[error("running the kernels failed: {0}")]
    Run(ExecError),
    #[error("the rewritten kernel has a finding with input seed shift {seed}: {finding}")]
    Finding { seed: u64, finding: String },
    #[error("output `{buffer}` differs with input seed shift {seed}: {detail}")]
    Mismatch { seed: u64, buffer: String, detail: String },
}

/// What was checked.
#[derive(Clone, Debug, PartialEq)]
pub struct Validation {
    pub seeds: u64,
    pub outputs: Vec<String>,
    /// Largest absolute difference over all outputs and seeds.
    pub max_abs: f64,
}

/// A rewrite that passed validation, compiled, ready for device checks and timing.
#[derive(Debug)]
pub struct ValidatedRewrite {
    pub rewrite: PreparedWorkload,
    pub validation: Validation,
}

/// Compiles `rewritten_source` in place of the original's and runs both on the simulator with
/// `seeds` input sets (seed shifts `0..seeds`), the checkers on for the rewrite.
pub fn validate(
    original: &PreparedWorkload,
    rewritten_source: &str,
    seeds: u64,
) -> Result<ValidatedRewrite, ValidationError> {
    validate_compiled(original, rewritten_source, None, seeds)
}

/// [`validate`] for a rewrite the transform compiled already ([`crate::Outcome::verified`],
/// when the verify-after-transform switch was on): `compiled` is `rewritten_source`'s program
/// and is run as it is, so a rewrite costs one front-end run however it was checked.
pub fn validate_compiled(
    original: &PreparedWorkload,
    rewritten_source: &str,
    compiled: Option<Compiled>,
    seeds: u64,
) -> Result<ValidatedRewrite, ValidationError> {
    let prepared = match compiled {
        Some(compiled) => original.with_compiled_source(rewritten_source, compiled),
        None => original.with_source(rewritten_source),
    };
    let rewrite = prepared.map_err(|e| match e {
        ExecError::Frontend { message } => ValidationError::DoesNotCompile(message),
        other => ValidationError::DoesNotCompile(other.to_string()),
    })?;
    let plain = Target::Simulator(SimOptions::default());
    let checked = Target::Simulator(SimOptions { check_races: true, ..SimOptions::default() });
    let validation = compare(Side::new(original, &plain), Side::new(&rewrite, &checked), seeds)?;
    Ok(ValidatedRewrite { rewrite, validation })
}

/// Runs original and rewrite on `target` (a device, say) with `seeds` input sets; both must
/// give the same outputs.
pub fn validate_on(
    original: &PreparedWorkload,
    rewrite: &PreparedWorkload,
    seeds: u64,
    target: &Target,
) -> Result<Validation, ValidationError> {
    compare(Side::new(original, target), Side::new(rewrite, target), seeds)
}

fn compare(
    expected: Side<'_>,
    actual: Side<'_>,
    seeds: u64,
) -> Result<Validation, ValidationError> {
    let answer = differential(expected, actual, seeds, StopAt::FirstDisagreement)
        .map_err(ValidationError::Run)?;
    match answer.first_disagreement() {
        Some(Disagreement::Output { seed, buffer, detail }) => {
            Err(ValidationError::Mismatch { seed, buffer, detail })
        }
        Some(Disagreement::Finding { seed, finding }) => {
            Err(ValidationError::Finding { seed, finding })
        }
        None => Ok(Validation {
            seeds: answer.seed_count(),
            outputs: answer.output_names(),
            max_abs: answer.max_abs(),
        }),
    }
}
