//! `clmap unlocal`: remove local-memory staging from a kernel (Grover, seed 000).

use crate::commands::devices::environment_error;
use crate::exit::{CliError, Status};
use crate::run_report::exec_error;
use crate::workload_args;
use clmap_device::human_ns;
use clmap_device::select_device;
use clmap_exec::{PreparedWorkload, Target};
use clmap_grover::candidate::Decision;
use clmap_grover::{explain::explain, unlocal, validate, UnlocalOptions};
use clmap_lang::frontend::{self, Compiled};
use std::path::{Path, PathBuf};

const EXAMPLES: &str = "Examples:
  clmap unlocal tests/corpus/mm_nvidia_tile_ab.toml --buffer As --diff
  clmap unlocal tests/corpus/transpose_local_padded.toml --explain
  clmap unlocal kernel.cl --kernel transpose -D BLOCK=16 --comment-out -o out.cl
  clmap unlocal tests/corpus/mm_nvidia_tile_a.toml --measure --device cpu";

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
#[derive(clap::Args, Debug)]
#[command(after_long_help = EXAMPLES)]
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
    /// The device --measure times on, its runs per kernel and cache flushing.
    #[command(flatten)]
    pub timing: crate::commands::time::TimingArgs,
}

fn is_workload(path: &Path) -> bool {
    matches!(path.extension().and_then(|e| e.to_str()), Some("toml") | Some("sim"))
}

/// The kernel's program and, for a workload, the workload prepared around it (compiled once).
enum Input {
    Workload(PreparedWorkload),
    Kernel(Compiled),
}

impl Input {
    fn compiled(&self) -> &Compiled {
        match self {
            Input::Workload(p) => p.compiled(),
            Input::Kernel(c) => c,
        }
    }

    fn workload(&self) -> Option<&PreparedWorkload> {
        match self {
            Input::Workload(p) => Some(p),
            Input::Kernel(_) => None,
        }
    }
}

fn compile_input(args: &Args) -> Result<Input, CliError> {
    if is_workload(&args.input) {
        return Ok(Input::Workload(workload_args::prepare(&args.input)?));
    }
    let mut options: Vec<String> = args.defines.iter().map(|d| format!("-D{d}")).collect();
    options.extend(args.include_dirs.iter().map(|i| format!("-I{}", i.display())));
    let compiled = frontend::compile_file(&args.input, &options.join(" ")).map_err(|failure| {
        CliError::BadInput(format!("{}{} does not compile", failure.render(), args.input.display()))
    })?;
    Ok(Input::Kernel(compiled))
}

pub fn run(args: Args) -> Result<Status, CliError> {
    if args.measure && !is_workload(&args.input) {
        return Err(CliError::BadInput(
            "--measure needs a workload (.toml or .sim) to run the kernels".into(),
        ));
    }
    let input = compile_input(&args)?;
    let compiled = input.compiled();
    let kernel = args.kernel.clone().or_else(|| {
        input.workload().and_then(|w| w.workload().launches.first()).map(|l| l.kernel.clone())
    });
    let options = UnlocalOptions {
        kernel,
        buffers: args.buffers.clone(),
        comment_out: args.comment_out,
        ..Default::default()
    };
    let mut outcome = unlocal(compiled, &options).map_err(|e| CliError::BadInput(e.to_string()))?;
    let explanation = explain(compiled, &outcome);

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

    let mut rewrite = None;
    match input.workload() {
        Some(original) => {
            // A device that is not there is said before any validation runs.
            let devices = args
                .validate_on
                .iter()
                .map(|selector| select_device(selector).map(|d| (selector, d)))
                .collect::<Result<Vec<_>, _>>()
                .map_err(environment_error)?;
            let verified = outcome.verified.take();
            let validated = match validate::validate_compiled(
                original,
                &outcome.text,
                verified,
                args.seeds,
            ) {
                Ok(v) => v,
                Err(e) => {
                    eprintln!("error: the rewritten kernel is not reported: {e}");
                    return Ok(Status::KernelFault);
                }
            };
            let v = &validated.validation;
            eprintln!(
                "validated on the simulator: {} input set{}, outputs {} agree, race and bounds checks clean",
                v.seeds,
                if v.seeds == 1 { "" } else { "s" },
                v.outputs.join(", ")
            );
            for (selector, device) in devices {
                let target = Target::Device(device);
                if let Err(e) =
                    validate::validate_on(original, &validated.rewrite, args.seeds, &target)
                {
                    eprintln!(
                        "error: the rewritten kernel is not reported: on {}: {e}",
                        target.name()
                    );
                    return Ok(Status::KernelFault);
                }
                eprintln!("validated on device {selector}");
            }
            rewrite = Some(validated.rewrite);
        }
        None => eprintln!(
            "warning: not validated: give a workload (.toml) instead of a .cl file to check the result on the simulator"
        ),
    }

    let name = args.input.file_name().and_then(|n| n.to_str()).unwrap_or("kernel.cl");
    let source_name = match input.workload() {
        Some(w) => w
            .workload()
            .source_path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or(name)
            .to_string(),
        None => name.to_string(),
    };
    let result = if args.diff { outcome.diff(&source_name) } else { outcome.text.clone() };
    let mut report = String::new();
    if args.explain {
        report.push_str(&explanation);
    }
    if args.measure {
        if let (Some(original), Some(rewrite)) = (input.workload(), &rewrite) {
            report.push_str(&measure(&args, original, rewrite)?);
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

/// Seed 000's evaluation: np = t(with local memory) / t(without).
fn measure(
    args: &Args,
    original: &PreparedWorkload,
    rewrite: &PreparedWorkload,
) -> Result<String, CliError> {
    let (device, options) = args.timing.device_and_options()?;
    let m =
        clmap_grover::measure::measure(&device, original, rewrite, &options).map_err(exec_error)?;
    Ok(format!(
        "{} on {}\n  with local memory     median {}  ({:.1} % spread)\n  without local memory  median {}  ({:.1} % spread)\n  np = {:.3} ({}; np > 1 means removing local memory is faster)\n",
        args.input.display(),
        m.device,
        human_ns(m.with_local.median),
        100.0 * m.with_local.relative_spread(),
        human_ns(m.without_local.median),
        100.0 * m.without_local.relative_spread(),
        m.np,
        m.impact.as_str(),
    ))
}
