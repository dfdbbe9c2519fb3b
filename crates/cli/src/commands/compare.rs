//! `clmap compare`: do the simulator and the devices agree on a workload's outputs?

use crate::exit::{CliError, Status};
use crate::run_report::exec_error;
use crate::workload_args;
use clmap_exec::{differential, Side, StopAt, Target};
use clmap_workload::Tolerance;
use serde_json::json;
use std::path::PathBuf;

/// Run workloads on several targets with the same inputs and compare their outputs.
///
/// The first target is the reference. Integers must be equal; floats must agree within the
/// output's tolerance (`tolerance = { rel, abs, norm }` in the workload, else `--rel`, `--abs`
/// and `--norm`): |actual − expected| ≤ abs + rel·|expected| + norm·max|expected|, the maximum
/// taken over the whole output. `--norm 0.01 --rel 0 --abs 0` is the rule for kernels whose
/// sums may be reordered (1 % of the output's largest magnitude). For each disagreement the
/// largest errors and the first mismatching indices are shown.
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
    /// Tolerance relative to the output's largest magnitude, for float outputs that declare none.
    #[arg(long, default_value_t = 0.0)]
    pub norm: f64,
    /// Print the result as JSON.
    #[arg(long)]
    pub json: bool,
    /// Stop a simulated work-group after this many steps (runaway loops); exit code 2 when one
    /// does.
    #[arg(long, value_name = "N")]
    pub max_steps: Option<u64>,
}

pub fn run(args: Args) -> Result<Status, CliError> {
    if args.devices.len() < 2 {
        return Err(CliError::BadInput(
            "compare needs at least two targets, e.g. --devices sim,cpu".into(),
        ));
    }
    let mut sim = workload_args::sim_options(0)?;
    if let Some(steps) = args.max_steps {
        sim.max_steps = steps;
    }
    let targets: Vec<Target> = args
        .devices
        .iter()
        .map(|d| Target::select(d, sim.clone()).map_err(exec_error))
        .collect::<Result<_, _>>()?;
    if [args.rel, args.abs, args.norm].iter().any(|v| !v.is_finite() || *v < 0.0) {
        return Err(CliError::BadInput(
            "--rel, --abs and --norm must be finite and not negative".into(),
        ));
    }
    let default = Tolerance { rel: args.rel, abs: args.abs, norm: args.norm };
    let mut all_agree = true;
    let mut results = Vec::new();
    for path in &args.workloads {
        let mut prepared = workload_args::prepare(path)?;
        prepared.set_default_tolerance(default);
        let reference = Side::new(&prepared, &targets[0]);
        for target in &targets[1..] {
            let answer = differential(reference, Side::new(&prepared, target), 1, StopAt::Never)
                .map_err(exec_error)?;
            let agree = answer.outputs_agree();
            all_agree &= agree;
            if !args.json {
                print!("{}", answer.render(&path.display().to_string()));
            }
            results.push(json!({
                "workload": path.display().to_string(),
                "reference": answer.expected_target,
                "target": answer.actual_target,
                "agree": agree,
                "outputs": answer.seeds.first().map(|s| s.outputs_json()).unwrap_or_default(),
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
