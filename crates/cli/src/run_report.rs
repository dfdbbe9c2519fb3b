//! Presenting what a run produced: summaries, checker findings with source excerpts, and the
//! Oclgrind-compatible error layout.

use crate::commands::devices::environment_error;
use crate::exit::CliError;
use clmap_exec::{ExecError, TargetRun};
use clmap_sim::LaunchReport;
use clmap_workload::Workload;
use serde_json::{json, Value};
use std::fmt::Write as _;

pub use clmap_sim::findings::{oclgrind_errors, render_reports};
use std::path::Path;

/// Maps a run failure to the exit code that explains it.
pub fn exec_error(error: ExecError) -> CliError {
    match error {
        ExecError::Device(d) => environment_error(d),
        ExecError::Simulator(e) => sim_error(e),
        ExecError::Workload(e @ clmap_workload::WorkloadError::TooLarge { .. }) => {
            CliError::BadInput(format!("{e}; {LIFT_ALLOC}"))
        }
        other => CliError::BadInput(other.to_string()),
    }
}

/// What lifts the memory limits, as the errors that hit them say.
const LIFT_ALLOC: &str = "`--max-alloc SIZE` allows more (bytes, or with K, M, G or T, e.g. 16G)";

/// Maps a simulator failure to the exit code that explains it, naming the option that lifts
/// a limit the run hit.
pub fn sim_error(error: clmap_sim::SimError) -> CliError {
    use clmap_sim::SimError;
    match error {
        // A kernel that does not finish is the kernel's fault, as any other it commits.
        e @ SimError::StepLimit { .. } => CliError::KernelFault(
            e.step_limit_naming("`--max-steps N` allows more").unwrap_or_default(),
        ),
        e @ SimError::AllocationLimit { .. } => CliError::BadInput(format!("{e}; {LIFT_ALLOC}")),
        SimError::Workload(e @ clmap_workload::WorkloadError::TooLarge { .. }) => {
            CliError::BadInput(format!("{e}; {LIFT_ALLOC}"))
        }
        other => CliError::BadInput(other.to_string()),
    }
}

pub fn report_json(r: &LaunchReport) -> Value {
    let rep = &r.report;
    json!({
        "kind": rep.kind.name(),
        "message": rep.message,
        "object": rep.object,
        "kernel": r.kernel,
        "launch": r.launch,
        "repetition": r.repetition,
        "global_id": rep.global_id,
        "local_id": rep.local_id,
        "group_id": rep.group_id,
        "occurrences": rep.occurrences,
    })
}

/// The one-paragraph summary of a run.
pub fn summary(
    path: &Path,
    workload: &Workload,
    target: &str,
    seconds: f64,
    run: &TargetRun,
) -> String {
    let mut out = String::new();
    let launches = run.launches;
    let kernels: Vec<&str> = {
        let mut k: Vec<&str> = workload.launches.iter().map(|l| l.kernel.as_str()).collect();
        k.dedup();
        k
    };
    let _ = write!(
        out,
        "{}: {} launch{} of {} on {} in {:.3} s",
        path.display(),
        launches,
        if launches == 1 { "" } else { "es" },
        kernels.join(", "),
        target,
        seconds
    );
    let kernel_total: Option<u64> = run.kernel_ns.iter().copied().sum();
    if let (Some(ns), false) = (kernel_total, run.kernel_ns.is_empty()) {
        let _ = write!(out, " (kernel time {:.3} ms)", ns as f64 / 1e6);
    }
    let _ = write!(
        out,
        "\n  outputs: {}\n  {}",
        if workload.outputs.is_empty() {
            "none declared".to_string()
        } else {
            workload.outputs.join(", ")
        },
        {
            let errors = run.reports.iter().filter(|r| r.report.kind.is_error()).count();
            let warnings = run.reports.len() - errors;
            match (errors, warnings) {
                (0, 0) => "no problems found".to_string(),
                (1, 0) => "1 problem found (above)".to_string(),
                (n, 0) => format!("{n} problems found (above)"),
                (0, w) => format!("no problems found; {w} warning{} (above)", plural(w)),
                (n, w) => {
                    format!("{n} problem{} found, {w} warning{} (above)", plural(n), plural(w))
                }
            }
        }
    );
    out
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}
