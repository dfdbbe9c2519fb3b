//! `clmap unlocal`: remove local-memory staging from a kernel (Grover, seed 000).

use crate::commands::devices::environment_error;
use crate::commands::time::human_ns;
use crate::exit::{CliError, Status};
use crate::workload_args;
use clmap_device::{select_device, TimingOptions};
use clmap_grover::candidate::Decision;
use clmap_grover::{explain::explain, unlocal, validate, UnlocalOptions};
use clmap_lang::frontend::{self, Compiled};
use clmap_workload::Workload;
use std::path::{Path, PathBuf};

/// Remove the use of __local memory from a kernel, source to source.
///
/// Every __local buffer used as a software cache (global load, local store, barrier, local
/// loads) is replaced by direct global loads, computed by solving the correspondence between
/// the local store and each local load (Grover). Local memory used otherwise (reductions,
/// scans, atomics, tiles reused as scratch) is refused with the reason. The output is the
/// original file with only the changed lines touched.
///
/// When INPUT is a workload, the rewritten kernel is first run against the original on the
/// simulator with several random inputs (and on every --validate-on device); it is printed
/// only if every output agrees and the race and bounds checkers are clean. A bare .cl file is
/// printed with a warning that it was not validated.
///
/// Examples:
///   clmap unlocal tests/corpus/mm_nvidia_tile_ab.toml --buffer As --diff
///   clmap unlocal tests/corpus/transpose_local_padded.toml --explain
///   clmap unlocal kernel.cl --kernel transpose -D BLOCK=16 --comment-out -o out.cl
///   clmap unlocal tests/corpus/mm_nvidia_tile_a.toml --measure --device cpu
#[derive(clap::Args, Debug)]
pub struct Args {
    /// A workload (.toml or Oclgrind .sim) or an OpenCL C file.
    pub input: PathBuf,
    /// The kernel (default: the workload's kernel, or the file's only kernel).
    #[arg(long, value_name = "NAME")]
    pub kernel: Option<String>,
    /// For a .cl input: define a macro (repeatable).
    #[arg(short = 'D', value_name = "NAME[=VALUE]")]
    pub defines: Vec<String>,
    /// For a .cl input: add an include directory (repeatable).
    #[arg(short = 'I', value_name = "DIR")]
    pub include_dirs: Vec<PathBuf>,
    /// Only remove this local buffer (repeatable; default: every eligible one).
    #[arg(long = "buffer", value_name = "NAME")]
    pub buffers: Vec<String>,
    /// Write the result to FILE instead of standard output.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Print a unified diff instead of the whole file.
    #[arg(long)]
    pub diff: bool,
    /// Keep removed lines as comments instead of deleting them.
    #[arg(long)]
    pub comment_out: bool,
    /// Explain every candidate: GL, LS and LL indexes, the linear system, its solution and the
    /// new global index, or why it was refused. Printed instead of the kernel unless -o is
    /// given.
    #[arg(long)]
    pub explain: bool,
    /// Random input sets the simulator validation uses.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u64).range(1..=64))]
    pub seeds: u64,
    /// Also validate on this OpenCL device (repeatable; see `clmap devices`).
    #[arg(long = "validate-on", value_name = "DEVICE")]
    pub validate_on: Vec<String>,
    /// Time the original and the rewritten kernel on --device and print the normalised
    /// performance np = t(with local) / t(without). Printed instead of the kernel unless -o
    /// is given.
    #[arg(long)]
    pub measure: bool,
    /// The device for --measure.
    #[arg(long, short, default_value = "default")]
    pub device: String,
    /// Runs per kernel for --measure, the first discarded as warm-up.
    #[arg(long, default_value_t = 21, value_parser = clap::value_parser!(u32).range(2..))]
    pub reps: u32,
    /// Flush the caches between timed runs.
    #[arg(long)]
    pub flush: bool,
}

fn is_workload(path: &Path) -> bool {
    matches!(path.extension().and_then(|e| e.to_str()), Some("toml") | Some("sim"))
}

fn compile_input(args: &Args) -> Result<(Compiled, Option<Workload>), CliError> {
    if is_workload(&args.input) {
        let workload = workload_args::load(&args.input)?;
        let compiled = clmap_sim::compile_workload_source(&workload)
            .map_err(|e| CliError::BadInput(e.to_string()))?;
        return Ok((compiled, Some(workload)));
    }
    let mut options: Vec<String> = args.defines.iter().map(|d| format!("-D{d}")).collect();
    options.extend(args.include_dirs.iter().map(|i| format!("-I{}", i.display())));
    let compiled = frontend::compile_file(&args.input, &options.join(" ")).map_err(|failure| {
        CliError::BadInput(format!("{}{} does not compile", failure.render(), args.input.display()))
    })?;
    Ok((compiled, None))
}

pub fn run(args: Args) -> Result<Status, CliError> {
    if args.measure && !is_workload(&args.input) {
        return Err(CliError::BadInput(
            "--measure needs a workload (.toml or .sim) to run the kernels".into(),
        ));
    }
    let (compiled, workload) = compile_input(&args)?;
    let kernel = args
        .kernel
        .clone()
        .or_else(|| workload.as_ref().and_then(|w| w.launches.first()).map(|l| l.kernel.clone()));
    let options =
        UnlocalOptions { kernel, buffers: args.buffers.clone(), comment_out: args.comment_out };
    let outcome = unlocal(&compiled, &options).map_err(|e| CliError::BadInput(e.to_string()))?;
    let explanation = explain(&compiled, &outcome);

    if !outcome.changed() {
        eprint!("{explanation}");
        let refused = outcome
            .buffers
            .iter()
            .filter(|b| b.selected && matches!(b.candidate.decision, Decision::Refused(_)))
            .count();
        eprintln!(
            "error: nothing was removed ({} local buffer{} refused)",
            refused,
            if refused == 1 { "" } else { "s" }
        );
        return Ok(Status::BadInput);
    }

    match &workload {
        Some(w) => {
            match validate::validate(w, &outcome.text, args.seeds) {
                Ok(v) => eprintln!(
                    "validated on the simulator: {} input set{}, outputs {} agree, race and bounds checks clean",
                    v.seeds,
                    if v.seeds == 1 { "" } else { "s" },
                    v.outputs.join(", ")
                ),
                Err(e) => {
                    eprintln!("error: the rewritten kernel is not reported: {e}");
                    return Ok(Status::KernelFault);
                }
            }
            for selector in &args.validate_on {
                if let Err(message) = validate_on_device(selector, w, &outcome.text, args.seeds) {
                    eprintln!("error: the rewritten kernel is not reported: {message}");
                    return Ok(Status::KernelFault);
                }
                eprintln!("validated on device {selector}");
            }
        }
        None => eprintln!(
            "warning: not validated: give a workload (.toml) instead of a .cl file to check the result on the simulator"
        ),
    }

    let name = args.input.file_name().and_then(|n| n.to_str()).unwrap_or("kernel.cl");
    let source_name = match &workload {
        Some(w) => w.source_path.file_name().and_then(|n| n.to_str()).unwrap_or(name).to_string(),
        None => name.to_string(),
    };
    let result = if args.diff { outcome.diff(&source_name) } else { outcome.text.clone() };
    let mut report = String::new();
    if args.explain {
        report.push_str(&explanation);
    }
    if args.measure {
        if let Some(w) = &workload {
            report.push_str(&measure(&args, w, &outcome.text)?);
        }
    }
    match &args.output {
        Some(path) => {
            std::fs::write(path, &result)
                .map_err(|e| CliError::BadInput(format!("cannot write {}: {e}", path.display())))?;
            print!("{report}");
        }
        None if report.is_empty() => print!("{result}"),
        None => print!("{report}"),
    }
    Ok(Status::Success)
}

/// Original and rewritten on a device, input set by input set.
fn validate_on_device(
    selector: &str,
    original: &Workload,
    text: &str,
    seeds: u64,
) -> Result<(), String> {
    let device = select_device(selector).map_err(|e| e.to_string())?;
    let rewritten = validate::with_source(original, text);
    for seed in 0..seeds {
        let expected =
            clmap_exec::run_on_device(&device, original, seed).map_err(|e| e.to_string())?;
        let actual =
            clmap_exec::run_on_device(&device, &rewritten, seed).map_err(|e| e.to_string())?;
        for c in original.compare_outputs(&expected.buffers, &actual.buffers) {
            match c.result {
                Ok(r) if r.passed() => {}
                Ok(r) => {
                    return Err(format!(
                        "on {}: output `{}` differs with input seed shift {seed} ({} components)",
                        device.info().name,
                        c.name,
                        r.mismatches
                    ))
                }
                Err(e) => {
                    return Err(format!("on {}: output `{}`: {e}", device.info().name, c.name))
                }
            }
        }
    }
    Ok(())
}

/// Seed 000's evaluation: np = t(with local memory) / t(without).
fn measure(args: &Args, original: &Workload, text: &str) -> Result<String, CliError> {
    let device = select_device(&args.device).map_err(environment_error)?;
    let options = TimingOptions { warmup: 1, reps: args.reps - 1, flush_cache: args.flush };
    let time = |w: &Workload| {
        clmap_exec::time_on_device(&device, w, &options).map_err(|e| match e {
            clmap_exec::ExecError::Device(d) => environment_error(d),
            other => CliError::BadInput(other.to_string()),
        })
    };
    let with_local = time(original)?;
    let without = time(&validate::with_source(original, text))?;
    let np = with_local.median / without.median;
    let verdict = if (np - 1.0).abs() <= 0.05 {
        "similar"
    } else if np > 1.0 {
        "gain"
    } else {
        "loss"
    };
    Ok(format!(
        "{} on {}\n  with local memory     median {}  ({:.1} % spread)\n  without local memory  median {}  ({:.1} % spread)\n  np = {np:.3} ({verdict}; np > 1 means removing local memory is faster)\n",
        args.input.display(),
        device.info().name,
        human_ns(with_local.median),
        100.0 * with_local.relative_spread(),
        human_ns(without.median),
        100.0 * without.relative_spread(),
    ))
}
