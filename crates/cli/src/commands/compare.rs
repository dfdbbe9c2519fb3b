//! `clmap compare`: do the simulator and the devices agree on a workload's outputs?

use crate::exit::{CliError, Status};
use crate::run_report::exec_error;
use crate::workload_args;
use clmap_exec::{run_on, Target};
use clmap_sim::SimOptions;
use clmap_workload::{OutputComparison, Tolerance, Workload};
use serde_json::json;
use std::path::PathBuf;

/// Run workloads on several targets with the same inputs and compare their outputs.
///
/// The first target is the reference. Integers must be equal; floats must agree within the
/// output's tolerance (`tolerance = { rel, abs }` in the workload, else `--rel`/`--abs`):
/// |actual − expected| ≤ abs + rel·|expected|. For each disagreement the largest errors and
/// the first mismatching indices are shown.
///
/// Exit codes: 0 all agree; 1 bad input; 2 some output differs; 3 a device is missing.
///
/// Example: clmap compare tests/corpus/*.toml --devices sim,cpu,gpu
#[derive(clap::Args, Debug)]
pub struct Args {
    /// One or more workloads (.toml or .sim).
    #[arg(required = true)]
    pub workloads: Vec<PathBuf>,
    /// Comma-separated targets: `sim`, or devices as `clmap devices` lists them.
    #[arg(long, default_value = "sim,cpu", value_delimiter = ',')]
    pub devices: Vec<String>,
    /// Relative tolerance for float outputs that declare none.
    #[arg(long, default_value_t = 1e-5)]
    pub rel: f64,
    /// Absolute tolerance for float outputs that declare none.
    #[arg(long, default_value_t = 1e-6)]
    pub abs: f64,
    /// Print the result as JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args) -> Result<Status, CliError> {
    if args.devices.len() < 2 {
        return Err(CliError::BadInput(
            "compare needs at least two targets, e.g. --devices sim,cpu".into(),
        ));
    }
    let targets: Vec<Target> = args
        .devices
        .iter()
        .map(|d| Target::select(d, SimOptions::default()).map_err(exec_error))
        .collect::<Result<_, _>>()?;
    let default = Tolerance { rel: args.rel, abs: args.abs };
    let mut all_agree = true;
    let mut results = Vec::new();
    for path in &args.workloads {
        let mut workload = workload_args::load(path)?;
        apply_default_tolerance(&mut workload, default);
        let reference = run_on(&targets[0], &workload, 0).map_err(exec_error)?;
        for target in &targets[1..] {
            let run = run_on(target, &workload, 0).map_err(exec_error)?;
            let comparisons = workload.compare_outputs(&reference.buffers, &run.buffers);
            let agree = comparisons.iter().all(passed);
            all_agree &= agree;
            if !args.json {
                print_comparison(path, &targets[0].name(), &target.name(), &comparisons);
            }
            results.push(json!({
                "workload": path.display().to_string(),
                "reference": targets[0].name(),
                "target": target.name(),
                "agree": agree,
                "outputs": comparisons.iter().map(comparison_json).collect::<Vec<_>>(),
            }));
        }
    }
    if args.json {
        println!("{:#}", json!({ "agree": all_agree, "results": results }));
    } else {
        println!(
            "{}",
            if all_agree {
                "all outputs agree".to_string()
            } else {
                "some outputs differ".to_string()
            }
        );
    }
    Ok(if all_agree { Status::Success } else { Status::KernelFault })
}

fn apply_default_tolerance(workload: &mut Workload, default: Tolerance) {
    for buffer in &mut workload.buffers {
        buffer.tolerance.get_or_insert(default);
    }
}

fn passed(c: &OutputComparison) -> bool {
    matches!(&c.result, Ok(r) if r.passed())
}

fn print_comparison(
    path: &std::path::Path,
    reference: &str,
    target: &str,
    comparisons: &[OutputComparison],
) {
    let verdict = if comparisons.iter().all(passed) { "agree" } else { "DIFFER" };
    println!("{}: {target} vs {reference}: {verdict}", path.display());
    for c in comparisons {
        match &c.result {
            Ok(r) if r.passed() => println!(
                "  {}: {} values equal (max abs error {:.3e}, max rel {:.3e})",
                c.name, r.compared, r.max_abs, r.max_rel
            ),
            Ok(r) => {
                println!(
                    "  {}: {} of {} values differ (max abs error {:.3e}, max rel {:.3e}; tolerance rel {:e}, abs {:e})",
                    c.name, r.mismatches, r.compared, r.max_abs, r.max_rel, c.tolerance.rel, c.tolerance.abs
                );
                for m in r.first_mismatches.iter().take(5) {
                    println!("    [{}] expected {} got {}", m.index, m.expected, m.actual);
                }
            }
            Err(e) => println!("  {}: cannot compare: {e}", c.name),
        }
    }
}

fn comparison_json(c: &OutputComparison) -> serde_json::Value {
    match &c.result {
        Ok(r) => json!({
            "buffer": c.name,
            "agree": r.passed(),
            "compared": r.compared,
            "mismatches": r.mismatches,
            "max_abs": r.max_abs,
            "max_rel": r.max_rel,
            "first_mismatches": r.first_mismatches.iter().map(|m| json!({
                "index": m.index, "expected": m.expected.to_string(), "actual": m.actual.to_string()
            })).collect::<Vec<_>>(),
        }),
        Err(e) => json!({ "buffer": c.name, "agree": false, "error": e.to_string() }),
    }
}
