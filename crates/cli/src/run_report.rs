//! Presenting what a run produced: summaries, checker findings with source excerpts, and the
//! Oclgrind-compatible error layout.

use crate::commands::devices::environment_error;
use crate::exit::CliError;
use clmap_exec::{ExecError, TargetRun};
use clmap_lang::{Diagnostic, SourceMap};
use clmap_sim::LaunchReport;
use clmap_workload::Workload;
use serde_json::{json, Value};
use std::fmt::Write as _;
use std::path::Path;

/// Maps a run failure to the exit code that explains it.
pub fn exec_error(error: ExecError) -> CliError {
    match error {
        ExecError::Device(d) => environment_error(d),
        // A kernel that does not finish is the kernel's fault, as any other it commits.
        ExecError::Simulator(e @ clmap_sim::SimError::StepLimit { .. }) => {
            CliError::KernelFault(format!("{e}; `clmap run --max-steps N` allows more"))
        }
        ExecError::Workload(e @ clmap_workload::WorkloadError::TooLarge { .. }) => {
            CliError::BadInput(format!(
                "{e}; set {}=BYTES (suffixes K, M, G, T) to allow more",
                crate::workload_args::MAX_ALLOC_VAR
            ))
        }
        other => CliError::BadInput(other.to_string()),
    }
}

/// Findings rendered compiler-style, one block each, with the work-item that first hit them.
pub fn render_reports(sources: &SourceMap, reports: &[LaunchReport]) -> String {
    if reports.is_empty() {
        return String::new();
    }
    let mut out = String::new();
    for r in reports {
        let rep = &r.report;
        let mut message = format!("{}: {}", rep.kind.name(), rep.message);
        if let Some(object) = &rep.object {
            let _ = write!(message, " (`{object}`)");
        }
        let [gx, gy, gz] = rep.global_id;
        let [lx, ly, lz] = rep.local_id;
        let [wx, wy, wz] = rep.group_id;
        let mut help = format!(
            "first seen at work-item ({gx},{gy},{gz}), local ({lx},{ly},{lz}), work-group ({wx},{wy},{wz}) of kernel `{}`",
            r.kernel
        );
        if rep.occurrences > 1 {
            let _ = write!(help, "; {} occurrences in this launch", rep.occurrences);
        }
        out.push_str(&Diagnostic::error(rep.span, message).with_help(help).render(sources));
    }
    out
}

/// Findings in the layout `oclgrind-kernel` prints on standard error.
pub fn oclgrind_errors(sources: &SourceMap, reports: &[LaunchReport]) -> String {
    let mut out = String::new();
    for r in reports {
        let rep = &r.report;
        let [gx, gy, gz] = rep.global_id;
        let [lx, ly, lz] = rep.local_id;
        let [wx, wy, wz] = rep.group_id;
        let _ = writeln!(out, "\n{}", oclgrind_headline(rep));
        let _ = writeln!(out, "\tKernel: {}", r.kernel);
        let _ = writeln!(
            out,
            "\tEntity: Global({gx},{gy},{gz}) Local({lx},{ly},{lz}) Group({wx},{wy},{wz})"
        );
        if let Some(file) = sources.get(rep.span.file) {
            let lc = file.line_col(rep.span.start);
            // Oclgrind compiles from a string and names it `input.cl` in every message.
            let _ = writeln!(out, "\tAt line {} (column {}) of input.cl:", lc.line, lc.col);
            let _ = writeln!(out, "\t  {}", file.line_text(lc.line).trim());
        }
        out.push('\t');
        out.push('\n');
    }
    out
}

/// Oclgrind's first line for a finding: for invalid accesses its own wording and address
/// layout (global buffer n, counted from 1 in argument order, at `n << 48`; local and private
/// memory at `1 << 48`), for the rest our message.
fn oclgrind_headline(rep: &clmap_sim::Report) -> String {
    use clmap_sim::memory::Target;
    let Some(access) = rep.access else { return capitalise(&rep.message) };
    let what = if access.store { "write" } else { "read" };
    let (space, address) = match access.target {
        Target::Buffer { index, offset } => ("global", ((index as u64 + 1) << 48) | offset),
        Target::Local { offset } => ("local", (1u64 << 48) | offset),
        Target::Private { offset, .. } => ("private", (1u64 << 48) | offset),
        Target::Invalid => ("global", 0),
    };
    format!("Invalid {what} of size {} at {space} memory address {address:#x}", access.size)
}

fn capitalise(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
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
        match run.reports.len() {
            0 => "no problems found".to_string(),
            1 => "1 problem found (above)".to_string(),
            n => format!("{n} problems found (above)"),
        }
    );
    out
}
