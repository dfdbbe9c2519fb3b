//! `clmap exec`: runs an unmodified OpenCL program on clmap's platform.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use clmap_opencl::cl::{CL_DEVICE_TYPE_ACCELERATOR, CL_DEVICE_TYPE_CPU, CL_DEVICE_TYPE_GPU};
use clmap_opencl::config::{vars, DeviceLimits};
use serde_json::{json, Value};

use crate::commands::analyze::{present, Analysed, Presentation};
use crate::exit::{CliError, Status};

/// Run an unmodified OpenCL program on clmap's simulator, as `oclgrind ./app` does.
///
/// The program runs with clmap's OpenCL 1.2 platform as its first (with Debian's loader, its
/// only) platform, through the ICD loader's OCL_ICD_FILENAMES and OCL_ICD_VENDORS: whatever
/// device type it asks for, it gets the simulator, its
/// kernels are built by clmap's front end (build logs carry clmap's diagnostics), and every
/// launch runs on the simulator with out-of-bounds checks on. Findings are printed as each
/// launch ends, with the kernel, source line and work-item, and summarised when the program
/// exits.
///
/// Exit status: the program's own (128 + N when a signal N ended it). With
/// `--findings-exit CODE`, a run in which a checker fired exits with CODE instead, unless the
/// program itself failed. clmap's own failures (no platform library, a program that cannot be
/// started) exit 3.
///
/// `--emulate D` makes the device report (and enforce) the limits of a known device: `h100`,
/// `h200`, or an OpenCL device of this machine (`gpu`, `cpu`, a name or `platform:device`);
/// `gpu` falls back to the H100's limits where this machine has no GPU. `--limits` sets them
/// one by one: `local_mem=49152,max_work_group=1024,compute_units=132,warp=32,type=gpu`.
///
/// Without `--emulate`, the device is of every type at once (CPU, GPU, accelerator), as
/// Oclgrind's is, so that a program finds it whatever type it asks for. An emulated device has
/// its one type, and `type=gpu|cpu|accelerator|any` sets it: libraries that look the type up in
/// a table of tuned parameters (ViennaCL) need one.
#[derive(clap::Args, Debug)]
#[command(after_long_help = EXAMPLES)]
pub struct Args {
    /// Report data races on local and global memory (Oclgrind: --data-races).
    #[arg(long, visible_alias = "data-races")]
    pub races: bool,
    /// Report reads of uninitialised memory (Oclgrind: --uninitialized).
    #[arg(long, visible_alias = "uninitialized")]
    pub uninit: bool,
    /// Measure the AIWC metrics of every kernel over the whole run (all its launches), printed
    /// as `clmap analyze` prints them.
    #[arg(long)]
    pub analyze: bool,
    /// With --analyze: follow the published AIWC plugin's definitions.
    #[arg(long, value_enum, value_name = "TOOL", requires = "analyze")]
    pub compat: Option<crate::commands::analyze::Compat>,
    /// With --analyze: print the metrics as CSV rows.
    #[arg(long, requires = "analyze", conflicts_with = "json")]
    pub csv: bool,
    /// With --analyze: write the metric plots into this directory.
    #[arg(long, value_name = "DIR", requires = "analyze")]
    pub plot: Option<PathBuf>,
    /// Write every launch as a workload, and the run as pipeline workloads, into DIR.
    #[arg(long, value_name = "DIR")]
    pub capture: Option<PathBuf>,
    /// Report the limits of a known device: h100, h200, or a device of this machine.
    #[arg(long, value_name = "DEVICE")]
    pub emulate: Option<String>,
    /// Device limits as key=value pairs (after --emulate, which they refine).
    #[arg(long, value_name = "LIMITS")]
    pub limits: Option<String>,
    /// Stand in for `oclgrind`: print findings in Oclgrind's layout and nothing of clmap's
    /// own (no summary), name the platform "Oclgrind" (programs written for it look for it by
    /// name), and honour Oclgrind's environment variables (OCLGRIND_DATA_RACES=1,
    /// OCLGRIND_UNINITIALIZED=1, OCLGRIND_CHECK_API=1) as its options.
    #[arg(long)]
    pub oclgrind_output: bool,
    /// Report every OpenCL call of the program that fails, with the function and its status
    /// code, on standard error as it happens (Oclgrind's --check-api; in Oclgrind's layout
    /// with --oclgrind-output).
    #[arg(long)]
    pub check_api: bool,
    /// Debug the program's kernels interactively (Oclgrind: -i/--interactive): every launch
    /// stops before its kernel's first line and reads the commands of `clmap run -i` (`help`
    /// lists them: step, next, break, print, list, workitem, memory dumps...) from the
    /// program's standard input, answering on its standard output. `continue` runs to the
    /// next breakpoint or launch; `quit` leaves the debugger for good and the program runs on,
    /// as in Oclgrind. A program that reads its own standard input shares it with the
    /// debugger line by line, each taking a line when it asks for one; at the end of the
    /// input the program runs on undisturbed.
    #[arg(long, short = 'i', conflicts_with = "json")]
    pub interactive: bool,
    /// Stop a work-group after this many steps (a runaway loop); the launch then fails with
    /// CL_OUT_OF_RESOURCES, as on a device that kills a kernel. Raise it for kernels that
    /// run one long loop per work-item.
    #[arg(long, value_name = "N")]
    pub max_steps: Option<u64>,
    /// Exit with CODE when a checker fired and the program itself succeeded.
    #[arg(long, value_name = "CODE")]
    pub findings_exit: Option<u8>,
    /// Print the summary (launches, findings, metrics) as JSON on standard output at exit.
    #[arg(long)]
    pub json: bool,
    /// Print nothing of clmap's own besides findings (no summary).
    #[arg(long, short)]
    pub quiet: bool,
    /// The platform library to use (default: $CLMAP_OPENCL_LIBRARY, else libclmap_opencl.so
    /// beside the clmap binary).
    #[arg(long, value_name = "PATH")]
    pub library: Option<PathBuf>,
    /// The program and its arguments (after `--`).
    #[arg(
        required = true,
        trailing_var_arg = true,
        allow_hyphen_values = true,
        value_name = "PROGRAM"
    )]
    pub command: Vec<OsString>,
}

const EXAMPLES: &str = "Examples:
  clmap exec -- ./vector_add 1024
  clmap exec --races --uninit -- ./app input.dat
  clmap exec --emulate h100 --findings-exit 2 -- ./app
  clmap exec --analyze --json -- ./polybench_mvt 1024
  clmap exec --capture captured/ -- ./app && clmap run captured/launch-0001-*.toml
  clmap exec -i -- ./app                    (stop at each launch: try `help`)
  clmap exec -- clinfo";

/// Where the platform library is: given, beside the executable, or in the build tree.
fn find_library(given: Option<&Path>) -> Result<PathBuf, CliError> {
    const NAME: &str = "libclmap_opencl.so";
    if let Some(path) = given {
        return if path.is_file() {
            Ok(path.canonicalize().unwrap_or_else(|_| path.to_path_buf()))
        } else {
            Err(CliError::Environment(format!(
                "the platform library {} does not exist",
                path.display()
            )))
        };
    }
    let exe = std::env::current_exe()
        .map_err(|e| CliError::Environment(format!("cannot locate clmap: {e}")))?;
    let dir = exe.parent().unwrap_or(Path::new("."));
    // Beside the binary (an install, or cargo's output directory), or in cargo's deps
    // directory, where a build of the clmap package alone refreshes it: the newest wins.
    let candidates =
        [dir.join(NAME), dir.join("deps").join(NAME), dir.join("../lib/clmap").join(NAME)];
    let modified = |p: &PathBuf| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    candidates
        .iter()
        .filter(|p| p.is_file())
        .max_by_key(|p| modified(p))
        .map(|p| p.canonicalize().unwrap_or_else(|_| p.clone()))
        .ok_or_else(|| {
            CliError::Environment(format!(
                "the platform library {NAME} is not beside {}; build it with `cargo build --release` \
                 (it is part of the workspace) or give --library PATH",
                exe.display()
            ))
        })
}

/// Limits of devices clmap knows without asking a runtime.
fn preset(name: &str) -> Option<DeviceLimits> {
    let base = DeviceLimits::default();
    match name.to_ascii_lowercase().as_str() {
        "h100" => Some(DeviceLimits {
            name: "NVIDIA H100 (emulated by clmap)".to_string(),
            local_mem: 48 << 10,
            max_work_group: 1024,
            max_work_item: [1024, 1024, 64],
            compute_units: 132,
            global_mem: 80 << 30,
            max_alloc: 20 << 30,
            constant_mem: 64 << 10,
            preferred_multiple: 32,
            device_type: Some(CL_DEVICE_TYPE_GPU),
        }),
        "h200" => Some(DeviceLimits {
            name: "NVIDIA H200 (emulated by clmap)".to_string(),
            global_mem: 141 << 30,
            max_alloc: 35 << 30,
            ..preset("h100").unwrap_or(base)
        }),
        _ => None,
    }
}

fn emulated(selector: &str) -> Result<DeviceLimits, CliError> {
    if let Some(limits) = preset(selector) {
        return Ok(limits);
    }
    let devices = clmap_device::list_devices().unwrap_or_default();
    let wanted = selector.to_ascii_lowercase();
    let found = devices.iter().find(|d| {
        let ty = format!("{:?}", d.device_type).to_ascii_lowercase();
        d.index_selector() == selector
            || ty == wanted
            || d.name.to_ascii_lowercase().contains(&wanted)
    });
    match found {
        Some(d) => Ok(DeviceLimits {
            name: format!("{} (emulated by clmap)", d.name),
            local_mem: d.local_mem_bytes,
            max_work_group: d.max_work_group_size as u64,
            max_work_item: [0, 1, 2].map(|i| d.max_work_item_sizes.get(i).copied().unwrap_or(1) as u64),
            compute_units: d.compute_units,
            global_mem: d.global_mem_bytes,
            max_alloc: d.max_mem_alloc_bytes,
            constant_mem: 64 << 10,
            preferred_multiple: if ty_is_gpu(d) { 32 } else { 1 },
            device_type: device_type_bits(d),
        }),
        None if wanted == "gpu" => Ok(preset("h100").unwrap_or_default()),
        None => Err(CliError::BadInput(format!(
            "--emulate {selector}: no such device (known: h100, h200, or a device of this machine: {})",
            if devices.is_empty() {
                "none found".to_string()
            } else {
                devices.iter().map(|d| format!("{} {}", d.index_selector(), d.name)).collect::<Vec<_>>().join(", ")
            }
        ))),
    }
}

/// The `CL_DEVICE_TYPE_*` bit of an emulated device of this machine (`None`, every type, for
/// a custom device).
fn device_type_bits(d: &clmap_device::DeviceInfo) -> Option<u64> {
    match d.device_type {
        clmap_device::DeviceType::Cpu => Some(CL_DEVICE_TYPE_CPU),
        clmap_device::DeviceType::Gpu => Some(CL_DEVICE_TYPE_GPU),
        clmap_device::DeviceType::Accelerator => Some(CL_DEVICE_TYPE_ACCELERATOR),
        clmap_device::DeviceType::Other => None,
    }
}

fn ty_is_gpu(d: &clmap_device::DeviceInfo) -> bool {
    format!("{:?}", d.device_type).eq_ignore_ascii_case("gpu")
}

/// What the platform's log says about the run.
#[derive(Default)]
struct RunLog {
    /// Whether the program reached the platform at all.
    reached: bool,
    launches: Vec<Value>,
    findings: Vec<Value>,
    failures: Vec<Value>,
}

fn read_log(path: &Path) -> RunLog {
    let mut log = RunLog::default();
    let Ok(text) = std::fs::read_to_string(path) else { return log };
    for line in text.lines() {
        let Ok(v) = serde_json::from_str::<Value>(line) else { continue };
        match v["event"].as_str() {
            Some("launch") => log.launches.push(v),
            Some("finding") => log.findings.push(v),
            Some("failure") => log.failures.push(v),
            Some("platform") => log.reached = true,
            _ => {}
        }
    }
    log
}

/// Launch counts and simulated seconds per kernel, in order of first launch.
fn per_kernel(launches: &[Value]) -> Vec<(String, u64, f64)> {
    let mut out: Vec<(String, u64, f64)> = Vec::new();
    for l in launches {
        let name = l["kernel"].as_str().unwrap_or("?").to_string();
        let seconds = l["seconds"].as_f64().unwrap_or(0.0);
        match out.iter_mut().find(|(n, _, _)| *n == name) {
            Some(entry) => {
                entry.1 += 1;
                entry.2 += seconds;
            }
            None => out.push((name, 1, seconds)),
        }
    }
    out
}

fn summary_text(program: &str, seconds: f64, code: i32, log: &RunLog) -> String {
    let kernels = per_kernel(&log.launches);
    let simulated = kernels.iter().fold(0.0, |acc, k| acc + k.2);
    let mut out = format!(
        "clmap exec: {program} exited with {code} after {seconds:.3} s; {} launch{} of {} kernel{} ({simulated:.3} s simulated)",
        log.launches.len(),
        if log.launches.len() == 1 { "" } else { "es" },
        kernels.len(),
        if kernels.len() == 1 { "" } else { "s" },
    );
    if !log.failures.is_empty() {
        let n = log.failures.len();
        out.push_str(&format!("; {n} launch{} failed", if n == 1 { "" } else { "es" }));
    }
    for (name, count, secs) in &kernels {
        out.push_str(&format!(
            "\n  {name}: {count} launch{}, {secs:.3} s",
            if *count == 1 { "" } else { "es" }
        ));
    }
    if log.findings.is_empty() {
        out.push_str("\n  no findings");
    } else {
        out.push_str(&format!(
            "\n  {} finding{}:",
            log.findings.len(),
            if log.findings.len() == 1 { "" } else { "s" }
        ));
        for f in &log.findings {
            out.push_str(&format!(
                "\n    {} in kernel `{}` at {}:{} ({}), launch {}",
                f["kind"].as_str().unwrap_or("?"),
                f["kernel"].as_str().unwrap_or("?"),
                f["file"].as_str().unwrap_or("?"),
                f["line"],
                f["message"].as_str().unwrap_or(""),
                f["launch"],
            ));
        }
    }
    if !log.reached {
        out.push_str(
            "\n  note: the program never asked the OpenCL loader for platforms; if it uses OpenCL, \
             it may load a vendor's library directly instead of libOpenCL.so (the ICD loader), \
             which clmap exec cannot stand in for",
        );
    }
    for f in &log.failures {
        out.push_str(&format!(
            "\n  kernel `{}` failed in launch {}: {}",
            f["kernel"].as_str().unwrap_or("?"),
            f["launch"],
            f["message"].as_str().unwrap_or("")
        ));
    }
    out
}

/// Oclgrind reads its checks from the environment as well as from its options (its own test
/// runner sets only the environment); under `--oclgrind-output` clmap does the same.
fn apply_oclgrind_environment(args: &mut Args) {
    let set = |name: &str| std::env::var(name).is_ok_and(|v| !v.is_empty() && v != "0");
    args.races |= set("OCLGRIND_DATA_RACES");
    args.uninit |= set("OCLGRIND_UNINITIALIZED");
    args.check_api |= set("OCLGRIND_CHECK_API");
    // Oclgrind prints nothing of its own: a script that compares the program's output with
    // Oclgrind's must see the same lines.
    args.quiet = true;
}

pub fn run(mut args: Args) -> Result<Status, CliError> {
    if args.oclgrind_output {
        apply_oclgrind_environment(&mut args);
    }
    let from_env = std::env::var_os("CLMAP_OPENCL_LIBRARY").map(PathBuf::from);
    let library = find_library(args.library.as_deref().or(from_env.as_deref()))?;
    let scratch = std::env::temp_dir().join(format!("clmap-exec-{}", std::process::id()));
    std::fs::create_dir_all(&scratch)
        .map_err(|e| CliError::Environment(format!("cannot create {}: {e}", scratch.display())))?;
    let cleanup = ScratchDir(scratch.clone());
    let vendors = scratch.join("vendors");
    std::fs::create_dir_all(&vendors)
        .and_then(|()| {
            std::fs::write(vendors.join("clmap.icd"), format!("{}\n", library.display()))
        })
        .map_err(|e| CliError::Environment(format!("cannot write the ICD file: {e}")))?;
    let log_path = scratch.join("run.jsonl");
    let analysis_path = scratch.join("analysis.json");

    let mut limits = match &args.emulate {
        Some(selector) => emulated(selector)?,
        None => DeviceLimits::default(),
    };
    if let Some(text) = &args.limits {
        let mut merged = limits.describe();
        merged.push(',');
        merged.push_str(text);
        limits = DeviceLimits::parse(&merged)
            .map_err(|e| CliError::BadInput(format!("--limits: {e}")))?;
    }

    let (program, program_args) = args.command.split_first().expect("clap requires the program");
    let mut command = Command::new(program);
    command
        .args(program_args)
        // Both loader variables: ocl-icd loads only OCL_ICD_FILENAMES when it is set, while
        // other loaders (the one CUDA installs) add it to what they find and read
        // OCL_ICD_VENDORS only as a directory of their own making; with both pointing at the
        // platform, every loader seen so far offers it, and first.
        .env("OCL_ICD_VENDORS", &vendors)
        .env("OCL_ICD_FILENAMES", &library)
        .env(vars::LOG, &log_path)
        .env(vars::DEVICE, limits.describe());
    if args.races {
        command.env(vars::RACES, "1");
    }
    if args.uninit {
        command.env(vars::UNINIT, "1");
    }
    if args.oclgrind_output {
        command.env(vars::FORMAT, "oclgrind");
    }
    if args.check_api {
        command.env(vars::CHECK_API, "1");
    }
    if args.interactive {
        command.env(vars::INTERACTIVE, "1");
    }
    if let Some(steps) = args.max_steps {
        command.env(vars::MAX_STEPS, steps.to_string());
    }
    if args.quiet {
        command.env(vars::QUIET, "1");
    }
    if args.analyze {
        command.env(vars::ANALYZE, &analysis_path);
        if args.compat.is_some() {
            command.env(vars::ANALYZE_MODE, "aiwc");
        }
    }
    if let Some(dir) = &args.capture {
        std::fs::create_dir_all(dir)
            .map_err(|e| CliError::BadInput(format!("cannot create {}: {e}", dir.display())))?;
        let dir = dir.canonicalize().unwrap_or_else(|_| dir.clone());
        command.env(vars::CAPTURE, dir);
    }
    let program_name = program.to_string_lossy().into_owned();
    let started = Instant::now();
    let status = command
        .status()
        .map_err(|e| CliError::Environment(format!("cannot run `{program_name}`: {e}")))?;
    let seconds = started.elapsed().as_secs_f64();
    let code = match status.code() {
        Some(c) => c,
        None => {
            use std::os::unix::process::ExitStatusExt;
            128 + status.signal().unwrap_or(0)
        }
    };
    let log = read_log(&log_path);
    let analysis =
        if args.analyze { read_analysis(&analysis_path, &program_name) } else { Vec::new() };

    if args.json {
        let value = json!({
            "program": program_name,
            "exit_code": code,
            "reached_platform": log.reached,
            "seconds": seconds,
            "launches": log.launches,
            "kernels": per_kernel(&log.launches).iter().map(|(k, n, s)| json!({"kernel": k, "launches": n, "seconds": s})).collect::<Vec<_>>(),
            "findings": log.findings,
            "failures": log.failures,
            "analysis": analysis.iter().map(|a| json!({"kernel": a.metrics.kernel, "launches": a.launches, "metrics": a.metrics})).collect::<Vec<_>>(),
        });
        println!("{value:#}");
    } else {
        if args.analyze {
            present(
                &analysis,
                &Presentation { json: false, csv: args.csv, plot: args.plot.as_deref() },
            )?;
        }
        if !args.quiet {
            eprintln!("{}", summary_text(&program_name, seconds, code, &log));
        }
    }
    if args.json && args.plot.is_some() {
        present(&analysis, &Presentation { json: false, csv: false, plot: args.plot.as_deref() })
            .ok();
    }
    drop(cleanup);
    let exit = match args.findings_exit {
        Some(c) if code == 0 && !log.findings.is_empty() => i32::from(c),
        _ => code,
    };
    std::process::exit(exit);
}

fn read_analysis(path: &Path, program: &str) -> Vec<Analysed> {
    let Ok(text) = std::fs::read_to_string(path) else { return Vec::new() };
    let Ok(entries) = serde_json::from_str::<Vec<Value>>(&text) else { return Vec::new() };
    let count = entries.len();
    entries
        .into_iter()
        .enumerate()
        .filter_map(|(i, e)| {
            let metrics = serde_json::from_value(e["metrics"].clone()).ok()?;
            let launches = e["launches"].as_u64().unwrap_or(1) as usize;
            let _ = count;
            Some(Analysed { workload: program.to_string(), launch: i, launches, metrics })
        })
        .collect()
}

/// Removes the scratch directory (ICD file, log) when the command ends.
struct ScratchDir(PathBuf);

impl Drop for ScratchDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
