//! The differential answer: do two runs agree on a workload's outputs?
//!
//! One comparison serves every place that checks "old and new give the same results":
//! a rewrite against its original on the simulator (Grover's validation, with the checkers on
//! for the rewrite), the same workload on the simulator and on devices (`clmap compare`), a
//! rewrite on a device before it is timed, a generated microbenchmark variant against its
//! reference. Both sides run on the same inputs, input set by input set (seed shifts
//! `0..seeds`); outputs are compared with the expected side's tolerances (integers exactly).

use std::fmt::Write as _;

use serde_json::{json, Value};

use crate::on_device::ExecError;
use crate::prepared::PreparedWorkload;
use crate::target::{Runner, Target, TargetRun};
use clmap_sim::LaunchReport;
use clmap_workload::{BufferSet, OutputComparison, Workload};

/// One side of a comparison: a prepared workload on a target.
#[derive(Clone, Copy)]
pub struct Side<'a> {
    pub workload: &'a PreparedWorkload,
    pub target: &'a Target,
}

impl<'a> Side<'a> {
    pub fn new(workload: &'a PreparedWorkload, target: &'a Target) -> Side<'a> {
        Side { workload, target }
    }
}

/// When to stop comparing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopAt {
    /// Run every input set, to report everything that differs.
    Never,
    /// Stop at the first input set that disagrees or has a finding (a validation needs only
    /// one counterexample).
    FirstDisagreement,
}

/// The outputs of one input set, compared.
#[derive(Clone, Debug)]
pub struct SeedComparison {
    pub seed: u64,
    pub outputs: Vec<OutputComparison>,
    /// Checker findings of the actual side's run on this input set.
    pub findings: Vec<LaunchReport>,
}

impl SeedComparison {
    pub fn outputs_agree(&self) -> bool {
        self.outputs.iter().all(output_passed)
    }

    /// Every output that differs, one phrase each (`out: 3 of 64 values differ; …`), joined
    /// by `; `, or `None` when all agree.
    pub fn differences(&self) -> Option<String> {
        let problems: Vec<String> = self
            .outputs
            .iter()
            .filter(|c| !output_passed(c))
            .map(|c| format!("{}: {}", c.name, mismatch_detail(c)))
            .collect();
        (!problems.is_empty()).then(|| problems.join("; "))
    }

    /// The outputs as JSON objects: `buffer`, `agree`, the comparison figures and the first
    /// mismatches (or `error` when the sizes differ).
    pub fn outputs_json(&self) -> Vec<Value> {
        self.outputs.iter().map(comparison_json).collect()
    }
}

/// Why two runs do not agree, for one input set: the first output that differs or the first
/// finding.
#[derive(Clone, Debug, PartialEq)]
pub enum Disagreement {
    Output { seed: u64, buffer: String, detail: String },
    Finding { seed: u64, finding: String },
}

impl std::fmt::Display for Disagreement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Disagreement::Output { seed, buffer, detail } => {
                write!(f, "output `{buffer}` differs with input seed shift {seed}: {detail}")
            }
            Disagreement::Finding { seed, finding } => {
                write!(f, "a finding with input seed shift {seed}: {finding}")
            }
        }
    }
}

/// The answer of [`differential`].
#[derive(Clone, Debug)]
pub struct Differential {
    /// Name of the expected side's target and the actual side's.
    pub expected_target: String,
    pub actual_target: String,
    /// One entry per input set compared, in seed order.
    pub seeds: Vec<SeedComparison>,
}

impl Differential {
    /// Every output of every input set agrees and the actual side had no finding.
    pub fn agree(&self) -> bool {
        self.first_disagreement().is_none()
    }

    /// Every output of every input set agrees (findings aside).
    pub fn outputs_agree(&self) -> bool {
        self.seeds.iter().all(SeedComparison::outputs_agree)
    }

    /// The first disagreement in seed order: within an input set, a differing output comes
    /// before a finding.
    pub fn first_disagreement(&self) -> Option<Disagreement> {
        for s in &self.seeds {
            if let Some(c) = s.outputs.iter().find(|c| !output_passed(c)) {
                return Some(Disagreement::Output {
                    seed: s.seed,
                    buffer: c.name.clone(),
                    detail: mismatch_detail(c),
                });
            }
            if let Some(r) = s.findings.first() {
                return Some(Disagreement::Finding { seed: s.seed, finding: r.report.to_string() });
            }
        }
        None
    }

    /// Largest absolute difference over all outputs and input sets that could be compared.
    pub fn max_abs(&self) -> f64 {
        self.seeds
            .iter()
            .flat_map(|s| &s.outputs)
            .filter_map(|c| c.result.as_ref().ok())
            .fold(0.0, |m, r| m.max(r.max_abs))
    }

    /// Input sets compared.
    pub fn seed_count(&self) -> u64 {
        self.seeds.len() as u64
    }

    /// Names of the outputs compared.
    pub fn output_names(&self) -> Vec<String> {
        self.seeds
            .first()
            .map(|s| s.outputs.iter().map(|c| c.name.clone()).collect())
            .unwrap_or_default()
    }

    /// A report for people: a verdict line per input set, a line per output, the first
    /// mismatching components of outputs that differ. `label` names what was compared (a
    /// workload path, say).
    pub fn render(&self, label: &str) -> String {
        let mut out = String::new();
        for s in &self.seeds {
            let verdict = if s.outputs_agree() { "agree" } else { "DIFFER" };
            let seed = if self.seeds.len() > 1 {
                format!(" (input seed shift {})", s.seed)
            } else {
                String::new()
            };
            let _ = writeln!(
                out,
                "{label}: {} vs {}{seed}: {verdict}",
                self.actual_target, self.expected_target
            );
            for c in &s.outputs {
                render_output(&mut out, c);
            }
            for r in &s.findings {
                let _ = writeln!(out, "  finding: {}", r.report);
            }
        }
        out
    }

    /// The same as JSON: `agree`, the targets, and per input set the outputs with their
    /// comparison figures and first mismatches.
    pub fn to_json(&self) -> Value {
        json!({
            "agree": self.agree(),
            "reference": self.expected_target,
            "target": self.actual_target,
            "seeds": self.seeds.iter().map(|s| json!({
                "seed": s.seed,
                "agree": s.outputs_agree() && s.findings.is_empty(),
                "outputs": s.outputs_json(),
                "findings": s.findings.iter().map(|r| r.report.to_string()).collect::<Vec<_>>(),
            })).collect::<Vec<_>>(),
        })
    }
}

/// Runs `expected` and `actual` on the inputs of seed shifts `0..seeds` (at least one) and
/// compares their outputs. A side that fails to run is an error, not a disagreement.
pub fn differential(
    expected: Side<'_>,
    actual: Side<'_>,
    seeds: u64,
    stop: StopAt,
) -> Result<Differential, ExecError> {
    let expected_runner = Runner::new(expected.workload, expected.target);
    let actual_runner = Runner::new(actual.workload, actual.target);
    let mut compared = Vec::new();
    for seed in 0..seeds.max(1) {
        let reference = expected_runner.run(seed)?;
        let run = actual_runner.run(seed)?;
        let comparison = compare_runs(expected.workload, seed, &reference, run);
        let stop_here = stop == StopAt::FirstDisagreement
            && (!comparison.outputs_agree() || !comparison.findings.is_empty());
        compared.push(comparison);
        if stop_here {
            break;
        }
    }
    Ok(Differential {
        expected_target: expected.target.name(),
        actual_target: actual.target.name(),
        seeds: compared,
    })
}

/// [`differential`] with both workloads on one target: a rewrite against its original.
pub fn differential_on(
    original: &PreparedWorkload,
    rewrite: &PreparedWorkload,
    seeds: u64,
    target: &Target,
) -> Result<Differential, ExecError> {
    differential(
        Side::new(original, target),
        Side::new(rewrite, target),
        seeds,
        StopAt::FirstDisagreement,
    )
}

/// Compares two runs of the expected side's outputs, keeping the actual side's findings.
pub fn compare_runs(
    expected: &PreparedWorkload,
    seed: u64,
    reference: &TargetRun,
    actual: TargetRun,
) -> SeedComparison {
    let mut compared =
        compare_buffers(expected.workload(), seed, &reference.buffers, &actual.buffers);
    compared.findings = actual.reports;
    compared
}

/// Compares the outputs of `workload` in two sets of final buffer contents, for callers that
/// keep a reference run's buffers themselves (a campaign compares many variants with one run
/// of their reference).
pub fn compare_buffers(
    workload: &Workload,
    seed: u64,
    expected: &BufferSet,
    actual: &BufferSet,
) -> SeedComparison {
    SeedComparison {
        seed,
        outputs: workload.compare_outputs(expected, actual),
        findings: Vec::new(),
    }
}

fn output_passed(c: &OutputComparison) -> bool {
    matches!(&c.result, Ok(r) if r.passed())
}

/// One sentence on how an output differs.
fn mismatch_detail(c: &OutputComparison) -> String {
    match &c.result {
        Ok(r) => {
            let first = r
                .first_mismatches
                .first()
                .map(|m| {
                    format!("; component {}: expected {}, got {}", m.index, m.expected, m.actual)
                })
                .unwrap_or_default();
            format!("{} of {} values differ{first}", r.mismatches, r.compared)
        }
        Err(e) => e.to_string(),
    }
}

fn render_output(out: &mut String, c: &OutputComparison) {
    match &c.result {
        Ok(r) if r.passed() => {
            let _ = writeln!(
                out,
                "  {}: {} values equal (max abs error {:.3e}, max rel {:.3e})",
                c.name, r.compared, r.max_abs, r.max_rel
            );
        }
        Ok(r) => {
            let _ = writeln!(
                out,
                "  {}: {} of {} values differ (max abs error {:.3e}, max rel {:.3e}, {:.3e} of the largest magnitude; tolerance {})",
                c.name, r.mismatches, r.compared, r.max_abs, r.max_rel, r.norm_error(), c.tolerance
            );
            for m in r.first_mismatches.iter().take(5) {
                let _ = writeln!(out, "    [{}] expected {} got {}", m.index, m.expected, m.actual);
            }
        }
        Err(e) => {
            let _ = writeln!(out, "  {}: cannot compare: {e}", c.name);
        }
    }
}

fn comparison_json(c: &OutputComparison) -> Value {
    match &c.result {
        Ok(r) => json!({
            "buffer": c.name,
            "agree": r.passed(),
            "compared": r.compared,
            "mismatches": r.mismatches,
            "max_abs": r.max_abs,
            "max_rel": r.max_rel,
            "norm_error": r.norm_error(),
            "first_mismatches": r.first_mismatches.iter().map(|m| json!({
                "index": m.index, "expected": m.expected.to_string(), "actual": m.actual.to_string()
            })).collect::<Vec<_>>(),
        }),
        Err(e) => json!({ "buffer": c.name, "agree": false, "error": e.to_string() }),
    }
}
