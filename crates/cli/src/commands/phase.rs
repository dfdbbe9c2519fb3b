//! `clmap phase`: search LLVM pass orders that make a kernel fastest on an NVIDIA GPU.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use crate::commands::devices::environment_error;
use crate::exit::{CliError, Status};
use crate::workload_args;
use clmap_db::Database;
use clmap_device::DeviceInfo;
use clmap_llvm::ToolchainConfig;
use clmap_phase::aliasing::{aliased_layouts, layout_from_label};
use clmap_phase::device_eval::DeviceEvaluator;
use clmap_phase::llvm_compiler::{LlvmCompiler, PrepareError};
use clmap_phase::worker::{refuse, serve, WorkerEvaluator, WorkerLimits};
use clmap_phase::{
    compare_strategies, minimise_same_code, resume_minimisation, run_phase, ContextKey, Evaluator,
    NoDevice, PhaseReport, PhaseStore, Progress, RunOptions, SearchError, SearchOptions,
    SequenceCompiler, Strategy, TerminalProgress,
};

/// Search LLVM pass orders that make a kernel fastest on an NVIDIA GPU.
///
/// The kernel is compiled by clang and libclc to LLVM bitcode once; each candidate pass sequence
/// then goes through `opt`, `llvm-link` and `llc` to PTX (in parallel child processes, so a
/// crashing pass only fails its own sequence), and the PTX is loaded with
/// clCreateProgramWithBinary. Sequences that give a PTX seen before share its results. Every new
/// PTX is validated on the small inputs (`--small`) against NVIDIA's own compilation of the
/// source, within 1 % (integers exactly), and the valid ones are timed on the full workload.
/// At the end the fastest finalists are re-timed with the baselines (NVIDIA from source, -O0,
/// -O1, -O2, -O3, -Os), and the fastest that also passes on the full inputs and on 30 random
/// inputs is reported with its minimised sequence and what changed in its PTX.
///
/// Every answer is stored in the database: running the same command again resumes, a larger
/// `--budget` continues the same stream of sequences.
///
/// Toolchain: `--llvm-bin`/`CLMAP_LLVM_BIN` (directory with clang, opt, llvm-link, llc),
/// `--libclc`/`CLMAP_LIBCLC` (nvptx64--nvidiacl.bc), `--clc-include`/`CLMAP_CLC_INCLUDE`.
///
/// Example: clmap phase bench/phase/gemm.toml --small tests/corpus/pb_gemm.toml --budget 1000
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The workload to speed up (.toml): its inputs and sizes are the ones timed.
    pub workload: PathBuf,
    /// The device (an NVIDIA GPU: the candidates are PTX).
    #[arg(long, short, default_value = "gpu")]
    pub device: String,
    /// Sequences to consider in total, those already in the database included.
    #[arg(long, default_value_t = 1000)]
    pub budget: u64,
    /// Stop proposing new sequences after this long (`90s`, `20m`, `1h`); minimisation may take
    /// a fifth more (at least 30 s), and the final round still runs.
    #[arg(long, value_parser = parse_duration)]
    pub time: Option<Duration>,
    /// How sequences are proposed: `random` (seed 003's sampling) or `evolve` (random
    /// sequences, then generations bred from the fastest valid ones).
    #[arg(long, default_value = "evolve", value_parser = parse_strategy)]
    pub strategy: Strategy,
    /// Compare strategies instead of running one search: each (`random,evolve`) explores
    /// `--budget` sequences from the same seed, and the report is the best speedup over
    /// NVIDIA's compilation after n sequences, per strategy (no final round).
    #[arg(long, value_delimiter = ',', value_parser = parse_strategy, conflicts_with = "strategy")]
    pub strategies: Vec<Strategy>,
    /// Run one shard `I/N` (0-based) of a random search: the sequences whose index is I
    /// modulo N, of `--budget` in all. Each shard writes its own `--db`; `clmap db merge`
    /// combines them, and the same command without `--shard` on the merged database then finds
    /// every answer there and only runs the final round (see bench/phase/slurm-campaign.sh).
    #[arg(long, value_parser = parse_shard)]
    pub shard: Option<(u64, u64)>,
    /// Evaluate these sequences first, then the strategy's own (all counted in `--budget`):
    /// a text file with one sequence per line (pass names separated by spaces or commas, `#`
    /// comments), or an earlier `--json` report, whose minimised and best sequences are taken.
    /// With `--budget` equal to their number nothing else is tried: the way to re-time the
    /// sequences another GPU or a smaller size found, e.g.
    /// `--sequences bench/results/phase_original/gemm_h100.json --budget 2`. Under `evolve`
    /// they are parents like any evaluated sequence.
    #[arg(long, conflicts_with_all = ["shard", "minimise_only", "strategies"])]
    pub sequences: Vec<PathBuf>,
    /// Seed of every random choice; the same seed replays (and resumes) the same search.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Parallel compilations (default: every core).
    #[arg(long, short)]
    pub jobs: Option<usize>,
    /// A workload with the same source and kernels but small sizes, used to validate every
    /// new PTX quickly (default: the workload itself).
    #[arg(long)]
    pub small: Option<PathBuf>,
    /// The database (default: $CLMAP_DB, else clmap.db).
    #[arg(long)]
    pub db: Option<PathBuf>,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
    /// The GPU architecture for llc and ptxas.
    #[arg(long, default_value = "sm_90")]
    pub sm: String,
    /// Passes per random sequence (seed 003: 256).
    #[arg(long, default_value_t = clmap_phase::sequence::PAPER_SEQUENCE_LENGTH as u32,
          value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub length: u32,
    /// Timed runs per PTX during the search, after one discarded run.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub reps: u32,
    /// Timed runs of each finalist and baseline in the final round (seed 003: 30).
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u32).range(1..=10000))]
    pub final_reps: u32,
    /// Random inputs the chosen sequence must pass at the end (seed 003: 30).
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u32).range(0..=1000))]
    pub random_inputs: u32,
    /// Distinct PTX of the search taken into the final round.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=100))]
    pub finalists: u32,
    /// Random sequences before the evolutionary strategy starts breeding.
    #[arg(long, default_value_t = 100)]
    pub evolve_after: u64,
    /// Aliased layouts of the small workload (two pointer arguments on one buffer, where the
    /// kernel's result stays defined) the chosen sequence must also pass; 0: none.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(0..=64))]
    pub aliased_inputs: u32,
    /// With `--in-process`: how many times the search starts again in a fresh process,
    /// resuming from the database, after a candidate broke the device (an illegal address
    /// leaves NVIDIA's OpenCL unusable in the process that hit it); 0: stop there.
    #[arg(long, default_value_t = 20)]
    pub restarts: u32,
    /// Validate and time in this process instead of a device worker process. By default the
    /// device side runs in a child process that is replaced after a candidate breaks the
    /// device, so the search goes on at once; here such a candidate ends the process (and
    /// `--restarts` starts the whole search again).
    #[arg(long)]
    pub in_process: bool,
    /// Serve the device side of a search on standard input and output (the worker process).
    #[arg(long, hide = true)]
    pub device_worker: bool,
    /// The aliased layouts (`replaced=kept`) the worker validates on, as the search found them.
    #[arg(long, hide = true, value_delimiter = ',')]
    pub worker_aliases: Vec<String>,
    /// Do not minimise the best sequence.
    #[arg(long)]
    pub no_minimise: bool,
    /// Only finish the minimisation of an earlier run's chosen sequence (its report says
    /// `"complete": false`): no search and no final round; everything the earlier run
    /// measured is answered from the database. Without the search's database (`--report` with
    /// a fresh `--db`), the chosen sequence is compiled again (it must give the report's PTX),
    /// timed with the vendor's build as the reference, and minimisation goes on from the
    /// report's minimised sequence, on the report's GPU and driver only. `--time` is the
    /// minimisation's time. The updated report is printed and stored.
    #[arg(long, conflicts_with_all = ["no_minimise", "strategies", "shard"])]
    pub minimise_only: bool,
    /// With `--minimise-only`: the earlier run's JSON report (`--json`'s output; default: the
    /// last report stored in the database for this workload, device and toolchain).
    #[arg(long, requires = "minimise_only")]
    pub report: Option<PathBuf>,
    /// With `--minimise-only --report`: run only minimisation's first stage, which removes
    /// the passes whose absence leaves the PTX the same. It compiles and never runs a kernel,
    /// so no device is opened: run it on any machine with the toolchain (a CPU node) and leave
    /// the GPU only the timed stage. The report's minimised sequence is replaced by the shorter
    /// one and stays incomplete; `--minimise-only --report` on the report's GPU goes on from
    /// it. The report's sequence must compile here to its PTX (the same LLVM, libclc and
    /// `--sm`). `--time` bounds it; `--db` keeps its compilations apart from the GPU's.
    #[arg(long, requires_all = ["minimise_only", "report"])]
    pub same_code_only: bool,
    /// Relative slowdown treated as noise when minimising (raised to twice the measured
    /// spread when that is larger).
    #[arg(long, default_value_t = 0.02)]
    pub noise: f64,
    /// Directory with clang, opt, llvm-link and llc (else $CLMAP_LLVM_BIN, else PATH).
    #[arg(long)]
    pub llvm_bin: Option<PathBuf>,
    /// libclc's NVPTX bitcode (else $CLMAP_LIBCLC, else the installed libclc).
    #[arg(long)]
    pub libclc: Option<PathBuf>,
    /// libclc's headers (the directory holding clc/clc.h; else $CLMAP_CLC_INCLUDE).
    #[arg(long)]
    pub clc_include: Option<PathBuf>,
    /// Time limit of each compilation stage, in seconds.
    #[arg(long, default_value_t = 60)]
    pub compile_timeout: u64,
    /// The directory where the detected pass pool is cached (default: the user's cache
    /// directory). Random sequences are drawn from the pool, so a search resumed elsewhere
    /// should use the same pool.
    #[arg(long)]
    pub pass_cache: Option<PathBuf>,
    /// Run on a device that cannot load PTX (every candidate then fails validation): exercises
    /// the compile side, the database and the report on machines without an NVIDIA GPU.
    #[arg(long, hide = true)]
    pub any_device: bool,
}

fn parse_strategy(text: &str) -> Result<Strategy, String> {
    Strategy::parse(text).ok_or_else(|| format!("unknown strategy `{text}` (random, evolve)"))
}

/// `I/N` with I < N.
fn parse_shard(text: &str) -> Result<(u64, u64), String> {
    let bad = || format!("`{text}` is not a shard (I/N with 0 <= I < N, e.g. 0/4)");
    let (index, count) = text.split_once('/').ok_or_else(bad)?;
    let index: u64 = index.trim().parse().map_err(|_| bad())?;
    let count: u64 = count.trim().parse().map_err(|_| bad())?;
    if index >= count {
        return Err(bad());
    }
    Ok((index, count))
}

/// `90`, `90s`, `20m`, `1.5h`.
fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let (number, unit) = match text.find(|c: char| c.is_ascii_alphabetic()) {
        Some(at) => text.split_at(at),
        None => (text, "s"),
    };
    let value: f64 = number
        .trim()
        .parse()
        .map_err(|_| format!("`{text}` is not a duration (e.g. 90s, 20m, 1h)"))?;
    let seconds = match unit.trim() {
        "s" | "sec" => value,
        "m" | "min" => value * 60.0,
        "h" => value * 3600.0,
        other => return Err(format!("unknown unit `{other}` (s, m, h)")),
    };
    if !seconds.is_finite() || !(0.0..=1e9).contains(&seconds) {
        return Err(format!("`{text}` is out of range"));
    }
    Ok(Duration::from_secs_f64(seconds))
}

/// Set in the environment of the process that runs the search under a supervising `clmap
/// phase`: the time the supervisor started (milliseconds since the Unix epoch).
const WORKER_STARTED: &str = "CLMAP_PHASE_WORKER_STARTED_MS";

/// The worker's exit status when a candidate broke the device beyond reopening (EX_TEMPFAIL):
/// the culprit is stored, and a fresh process resumes the search.
const DEVICE_BROKEN: i32 = 75;

pub fn run(args: Args) -> Result<Status, CliError> {
    if args.device_worker {
        return serve_device(&args);
    }
    match std::env::var(WORKER_STARTED).ok().and_then(|ms| ms.parse::<u64>().ok()) {
        None if args.restarts > 0 && args.in_process => supervise(args.restarts),
        started_ms => search(args, started_at(started_ms)),
    }
}

fn unix_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// When the supervisor started, as an instant of this process (now, without a supervisor),
/// so that `--time` counts the whole search and not only the last worker's part.
fn started_at(started_ms: Option<u64>) -> Instant {
    let now = Instant::now();
    let Some(started_ms) = started_ms else { return now };
    now.checked_sub(Duration::from_millis(unix_ms().saturating_sub(started_ms))).unwrap_or(now)
}

/// Runs the search in a child process and starts it again, resuming from the database, each
/// time a candidate breaks the device: NVIDIA's OpenCL cannot make a new context in a process
/// whose kernel hit an illegal address (`clCreateContext` then fails too), so only a fresh
/// process gets a working device back.
fn supervise(restarts: u32) -> Result<Status, CliError> {
    let exe = std::env::current_exe()
        .map_err(|e| CliError::Environment(format!("cannot find clmap's own binary: {e}")))?;
    let arguments: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    let started_ms = unix_ms();
    run_workers(restarts, || {
        let mut command = std::process::Command::new(&exe);
        command.args(&arguments).env(WORKER_STARTED, started_ms.to_string());
        command
    })
}

/// Runs `worker()` until it exits with something other than [`DEVICE_BROKEN`], at most
/// `restarts + 1` times, and turns its exit status into the command's.
fn run_workers(
    restarts: u32,
    worker: impl Fn() -> std::process::Command,
) -> Result<Status, CliError> {
    for attempt in 0..=restarts {
        let status = worker()
            .status()
            .map_err(|e| CliError::Environment(format!("cannot start the search: {e}")))?;
        match status.code() {
            Some(DEVICE_BROKEN) if attempt < restarts => {
                eprintln!(
                    "a candidate broke the device; resuming in a fresh process ({} of {restarts})",
                    attempt + 1
                );
            }
            Some(0) => return Ok(Status::Success),
            Some(1) => return Ok(Status::BadInput),
            Some(2) => return Ok(Status::KernelFault),
            Some(DEVICE_BROKEN) => {
                return Err(CliError::Environment(format!(
                    "candidates broke the device {} times; rerun the same command to resume",
                    restarts + 1
                )))
            }
            Some(_) => return Ok(Status::Environment),
            None => {
                return Err(CliError::Environment(format!(
                    "the search died ({status}); rerun the same command to resume"
                )))
            }
        }
    }
    Ok(Status::Environment)
}

/// A search error; one that left the device unusable ends a worker with [`DEVICE_BROKEN`].
fn search_failed(error: SearchError, worker: bool) -> CliError {
    if worker && matches!(error, SearchError::Device(_)) {
        eprintln!("error: {error}");
        std::process::exit(DEVICE_BROKEN);
    }
    CliError::Environment(error.to_string())
}

/// The device worker: sets up the device and the reference outputs, then answers the
/// search's requests until its standard input ends (see `clmap_phase::worker`).
fn serve_device(args: &Args) -> Result<Status, CliError> {
    let setup = || -> Result<(DeviceEvaluator, serde_json::Value), String> {
        let workload = workload_args::load(&args.workload).map_err(|e| e.to_string())?;
        let small_path = args.small.as_ref().unwrap_or(&args.workload);
        let small = workload_args::load(small_path).map_err(|e| e.to_string())?;
        let layouts = args
            .worker_aliases
            .iter()
            .map(|label| layout_from_label(&small, label))
            .collect::<Result<Vec<_>, _>>()?;
        let device = clmap_device::select_device(&args.device).map_err(|e| e.to_string())?;
        let info = serde_json::to_value(device.info()).map_err(|e| e.to_string())?;
        let evaluator = DeviceEvaluator::new(device, workload, small)
            .map_err(|e| e.to_string())?
            .with_aliased_layouts(layouts);
        Ok((evaluator, info))
    };
    let mut output = std::io::stdout().lock();
    let served = match setup() {
        Ok((mut evaluator, info)) => {
            serve(&mut evaluator, info, &mut std::io::stdin().lock(), &mut output)
        }
        Err(error) => {
            refuse(&mut output, &error)
                .map_err(|e| CliError::Environment(format!("the device worker: {e}")))?;
            return Ok(Status::Environment);
        }
    };
    served.map_err(|e| CliError::Environment(format!("the device worker: {e}")))?;
    Ok(Status::Success)
}

/// The device side of the search in a worker process of this binary, started with this
/// command's own arguments.
fn start_worker(aliases: &[String]) -> Result<WorkerEvaluator, CliError> {
    let exe = std::env::current_exe()
        .map_err(|e| CliError::Environment(format!("cannot find clmap's own binary: {e}")))?;
    let mut arguments: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    arguments.push("--device-worker".into());
    if !aliases.is_empty() {
        arguments.push(format!("--worker-aliases={}", aliases.join(",")).into());
    }
    let spawn = move || {
        let mut command = std::process::Command::new(&exe);
        command.args(&arguments);
        command
    };
    WorkerEvaluator::start(Box::new(spawn), WorkerLimits::default())
        .map_err(|e| CliError::Environment(e.to_string()))
}

fn search(args: Args, started: Instant) -> Result<Status, CliError> {
    let worker = std::env::var_os(WORKER_STARTED).is_some();
    // A report given to --minimise-only is read before any device or toolchain work.
    let given_report = args.report.as_deref().map(read_report).transpose()?;
    // So are the given sequences' files; their passes are checked once the pool is known.
    let given_lists =
        args.sequences.iter().map(|p| read_sequence_file(p)).collect::<Result<Vec<_>, _>>()?;
    let workload = workload_args::load(&args.workload)?;
    let small_path = args.small.clone().unwrap_or_else(|| args.workload.clone());
    let small = workload_args::load(&small_path)?;
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1))
        .clamp(1, 1024);
    if args.same_code_only {
        let report = given_report.ok_or_else(|| {
            CliError::BadInput("--same-code-only needs the report (--report)".to_string())
        })?;
        return same_code_only(&args, report, &workload, &small, &small_path, jobs, started);
    }

    // Which arguments may share a buffer is decided on the simulator, before the device work.
    let aliased = if args.aliased_inputs == 0 {
        Vec::new()
    } else {
        let prepared = clmap_exec::PreparedWorkload::new(small.clone())
            .map_err(|e| CliError::BadInput(e.to_string()))?;
        let analysis = aliased_layouts(&prepared, args.aliased_inputs as usize);
        if !args.json {
            let labels: Vec<String> = analysis.allowed.iter().map(|l| l.label()).collect();
            eprintln!(
                "aliased inputs: {} ({} pairs refused)",
                if labels.is_empty() { "none allowed".to_string() } else { labels.join(", ") },
                analysis.refused.len()
            );
        }
        analysis.allowed
    };
    // The device side. A worker process opens the device and this process never touches
    // OpenCL: NVIDIA's driver does not list its platform to a process started by one that has
    // already used it, so a worker started after this process had opened the device (or a
    // replacement started later) would find no GPU.
    let (mut evaluator, info): (Box<dyn Evaluator>, DeviceInfo) = if args.in_process {
        let device = clmap_device::select_device(&args.device).map_err(environment_error)?;
        let info = device.info().clone();
        let evaluator = DeviceEvaluator::new(device, workload.clone(), small.clone())
            .map_err(|e| CliError::BadInput(e.to_string()))?
            .with_aliased_layouts(aliased);
        (Box::new(evaluator), info)
    } else {
        let labels: Vec<String> = aliased.iter().map(|l| l.label()).collect();
        let worker = start_worker(&labels)?;
        let info: DeviceInfo =
            serde_json::from_value(worker.device_info().clone()).map_err(|e| {
                CliError::Environment(format!("the device worker did not describe its device: {e}"))
            })?;
        (Box::new(worker), info)
    };
    let identity = crate::device_identity::device_identity(&info);
    // The candidates are PTX: only NVIDIA's OpenCL loads them. Checked before the toolchain
    // work, which can take a minute the first time (the pass pool is probed).
    let platform = info.platform_name.to_ascii_lowercase();
    if !args.any_device && !platform.contains("nvidia") && !platform.contains("cuda") {
        return Err(CliError::BadInput(format!(
            "`{}` ({}) cannot load PTX: phase-order search needs an NVIDIA GPU (select it with \
             --device, see `clmap devices`)",
            info.name, info.platform_name
        )));
    }
    let compiler = prepare_compiler(&args, &workload, jobs)?;

    let pool = compiler.pool();
    let mut given: Vec<Vec<String>> = Vec::new();
    for (path, text) in args.sequences.iter().zip(&given_lists) {
        let list = clmap_phase::sequence::parse_sequence_list(text, &pool)
            .map_err(|e| CliError::BadInput(format!("{}: {e}", path.display())))?;
        for passes in list {
            if !given.contains(&passes) {
                given.push(passes);
            }
        }
    }
    if !args.sequences.is_empty() && !args.json {
        eprintln!("{} given sequences are evaluated first", given.len());
    }

    let db_path = args.db.clone().unwrap_or_else(clmap_db::default_path);
    let db = Database::open(&db_path).map_err(|e| CliError::Environment(e.to_string()))?;
    let device_id = db.device_id(&identity).map_err(|e| CliError::Environment(e.to_string()))?;
    let context = ContextKey {
        workload_identity: workload.identity(),
        small_identity: small.identity(),
        device: evaluator.describe(),
        device_id: Some(device_id),
        toolchain: compiler.identity(),
        workload_label: args.workload.display().to_string(),
        small_label: small_path.display().to_string(),
    };
    let store = PhaseStore::open(db, &context).map_err(|e| CliError::Environment(e.to_string()))?;

    let options = RunOptions {
        search: SearchOptions {
            strategy: args.strategy,
            seed: args.seed,
            budget: args.budget,
            deadline: args.time.map(|t| started + t),
            length: args.length as usize,
            // Two sequences per core keep every core busy while the slowest finishes.
            batch: (2 * jobs).max(4),
            reps: args.reps,
            evolve_after: args.evolve_after,
            shard: args.shard,
            given,
        },
        final_reps: args.final_reps,
        random_inputs: args.random_inputs,
        finalists: args.finalists.max(1) as usize,
        minimise: !args.no_minimise,
        // Minimisation gets a fifth of the search's time on top (at least half a minute).
        minimise_time: args.time.map(|t| (t / 5).max(Duration::from_secs(30))),
        noise_floor: args.noise.max(0.0),
        workload_label: args.workload.display().to_string(),
        small_label: small_path.display().to_string(),
    };
    let terminal = TerminalProgress::new();
    let progress: &dyn Progress = &terminal;
    if !args.strategies.is_empty() {
        let comparison = compare_strategies(
            &compiler,
            evaluator.as_mut(),
            &store,
            progress,
            &options.search,
            &args.strategies,
        )
        .map_err(|e| search_failed(e, worker))?;
        if args.json {
            let text = serde_json::to_string_pretty(&comparison)
                .map_err(|e| CliError::Environment(format!("cannot write the report: {e}")))?;
            println!("{text}");
        } else {
            print!("{}", comparison.to_markdown());
        }
        return Ok(Status::Success);
    }
    let report = if args.minimise_only {
        let earlier = match given_report {
            Some(report) => report,
            None => stored_report(&store)?,
        };
        if earlier.minimised.as_ref().is_some_and(|m| m.complete) {
            eprintln!("the minimisation of this report is complete; nothing to do");
            earlier
        } else {
            let options = RunOptions {
                minimise_time: args.time.map(|t| t.saturating_sub(started.elapsed())),
                ..options
            };
            resume_minimisation(&compiler, evaluator.as_mut(), &store, progress, earlier, &options)
                .map_err(|e| match e {
                    SearchError::Invalid(message) => CliError::BadInput(message),
                    other => search_failed(other, worker),
                })?
        }
    } else {
        run_phase(&compiler, evaluator.as_mut(), &store, progress, &options)
            .map_err(|e| search_failed(e, worker))?
    };
    print_report(&args, &report, Some(&db_path))
}

/// The toolchain found and the kernel compiled to bitcode once, with the pass pool.
fn prepare_compiler(
    args: &Args,
    workload: &clmap_workload::Workload,
    jobs: usize,
) -> Result<LlvmCompiler, CliError> {
    let config = ToolchainConfig {
        llvm_bin: args.llvm_bin.clone(),
        libclc: args.libclc.clone(),
        clc_include: args.clc_include.clone(),
        sm: args.sm.clone(),
        timeout: Duration::from_secs(args.compile_timeout.max(1)),
    };
    if !args.json {
        eprintln!("preparing the toolchain and the pass pool ...");
    }
    LlvmCompiler::prepare(&config, workload, jobs, args.pass_cache.as_deref()).map_err(
        |e| match e {
            PrepareError::Toolchain(message) => CliError::Environment(message),
            other => CliError::BadInput(other.to_string()),
        },
    )
}

/// The report as JSON (`--json`) or text, with where its results are stored.
fn print_report(
    args: &Args,
    report: &PhaseReport,
    db_path: Option<&std::path::Path>,
) -> Result<Status, CliError> {
    if args.json {
        let text = serde_json::to_string_pretty(report)
            .map_err(|e| CliError::Environment(format!("cannot write the report: {e}")))?;
        println!("{text}");
    } else {
        print!("{}", report.to_text());
        if let Some(path) = db_path {
            println!("\nresults stored in {} (rerun the same command to resume)", path.display());
        }
    }
    Ok(Status::Success)
}

/// `--same-code-only`: minimisation's compile-only stage on a report, no device opened.
fn same_code_only(
    args: &Args,
    report: PhaseReport,
    workload: &clmap_workload::Workload,
    small: &clmap_workload::Workload,
    small_path: &std::path::Path,
    jobs: usize,
    started: Instant,
) -> Result<Status, CliError> {
    if report.minimised.as_ref().is_some_and(|m| m.complete) {
        eprintln!("the minimisation of this report is complete; nothing to do");
        return print_report(args, &report, None);
    }
    let compiler = prepare_compiler(args, workload, jobs)?;
    let db_path = args.db.clone().unwrap_or_else(clmap_db::default_path);
    let db = Database::open(&db_path).map_err(|e| CliError::Environment(e.to_string()))?;
    let context = ContextKey {
        workload_identity: workload.identity(),
        small_identity: small.identity(),
        device: NoDevice.describe(),
        device_id: None,
        toolchain: compiler.identity(),
        workload_label: args.workload.display().to_string(),
        small_label: small_path.display().to_string(),
    };
    let store = PhaseStore::open(db, &context).map_err(|e| CliError::Environment(e.to_string()))?;
    let before = report
        .minimised
        .as_ref()
        .map_or_else(|| report.best.as_ref().map_or(0, |b| b.passes.len()), |m| m.passes.len());
    let terminal = TerminalProgress::new();
    let deadline = args.time.map(|t| started + t);
    let report =
        minimise_same_code(&compiler, &store, &terminal, report, deadline, args.noise.max(0.0))
            .map_err(|e| match e {
                SearchError::Invalid(message) => CliError::BadInput(message),
                other => CliError::Environment(other.to_string()),
            })?;
    if let Some(m) = &report.minimised {
        eprintln!(
            "same-code stage: {before} -> {} passes with the same PTX ({} compilations); the \
             timed stage is left for the GPU (`--minimise-only --report` there)",
            m.passes.len(),
            m.counts.compiled
        );
    }
    print_report(args, &report, Some(&db_path))
}

/// An earlier run's JSON report (`--report`).
fn read_report(path: &std::path::Path) -> Result<PhaseReport, CliError> {
    let json = std::fs::read_to_string(path)
        .map_err(|e| CliError::BadInput(format!("cannot read {}: {e}", path.display())))?;
    serde_json::from_str(&json).map_err(|e| {
        CliError::BadInput(format!(
            "{} is not a report of `clmap phase --json`: {e}",
            path.display()
        ))
    })
}

/// A `--sequences` file as one sequence per line: a text list as it is, or a `--json` report
/// turned into its minimised sequence (when it has one) and its best.
fn read_sequence_file(path: &std::path::Path) -> Result<String, CliError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| CliError::BadInput(format!("cannot read {}: {e}", path.display())))?;
    if !text.trim_start().starts_with('{') {
        return Ok(text);
    }
    let report = read_report(path)?;
    let mut lines = Vec::new();
    if let Some(minimised) = &report.minimised {
        lines.push(minimised.passes.join(" "));
    }
    if let Some(best) = &report.best {
        lines.push(best.passes.join(" "));
    }
    if lines.is_empty() {
        return Err(CliError::BadInput(format!(
            "{}: the report has no chosen sequence (its search found none valid)",
            path.display()
        )));
    }
    Ok(lines.join("\n"))
}

/// The report stored for the context, for `--minimise-only` without `--report`.
fn stored_report(store: &PhaseStore) -> Result<PhaseReport, CliError> {
    let json =
        store.report().map_err(|e| CliError::Environment(e.to_string()))?.ok_or_else(|| {
            CliError::BadInput(
                "the database holds no report of this workload, device and toolchain: run the \
             search first (or give --report)"
                    .to_string(),
            )
        })?;
    serde_json::from_str(&json)
        .map_err(|e| CliError::Environment(format!("the database's report cannot be read: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_as_users_write_them() {
        assert_eq!(parse_duration("90"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_duration("90s"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_duration("20m"), Ok(Duration::from_secs(1200)));
        assert_eq!(parse_duration("1.5h"), Ok(Duration::from_secs(5400)));
        assert!(parse_duration("abc").is_err());
        assert!(parse_duration("5 weeks").is_err());
        assert!(parse_duration("-3s").is_err());
    }

    /// A worker that exits with 75 until it has run `breaks + 1` times, counting its runs in
    /// a file, as a search does whose candidates keep breaking the device.
    fn flaky_worker(counter: &std::path::Path, breaks: u32) -> std::process::Command {
        let mut command = std::process::Command::new("sh");
        command.arg("-c").arg(format!(
            "n=$(($(cat {0} 2>/dev/null || echo 0) + 1)); echo $n > {0}; \
             [ $n -gt {breaks} ] || exit {DEVICE_BROKEN}",
            counter.display()
        ));
        command
    }

    #[test]
    fn a_broken_device_restarts_the_worker_until_it_finishes() {
        let dir = clmap_testkit::Scratch::new("phase-restarts");
        let counter = dir.join("runs");
        let status = run_workers(20, || flaky_worker(&counter, 2)).expect("finishes");
        assert_eq!(status, Status::Success);
        assert_eq!(std::fs::read_to_string(&counter).unwrap().trim(), "3");

        // Out of restarts: an error that says how to resume, after 1 + restarts runs.
        let counter = dir.join("runs-again");
        let error = run_workers(1, || flaky_worker(&counter, 5)).expect_err("gives up");
        assert!(error.to_string().contains("rerun the same command"), "{error}");
        assert_eq!(std::fs::read_to_string(&counter).unwrap().trim(), "2");

        // Any other exit is final and keeps its meaning.
        let counter = dir.join("runs-bad-input");
        let bad_input = || {
            let mut command = std::process::Command::new("sh");
            command.arg("-c").arg(format!("echo 1 > {}; exit 1", counter.display()));
            command
        };
        assert_eq!(run_workers(20, bad_input).expect("ran"), Status::BadInput);
        assert_eq!(std::fs::read_to_string(&counter).unwrap().trim(), "1");
    }

    #[test]
    fn shards_read_as_index_over_count() {
        assert_eq!(parse_shard("0/4"), Ok((0, 4)));
        assert_eq!(parse_shard("3/4"), Ok((3, 4)));
        assert!(parse_shard("4/4").is_err());
        assert!(parse_shard("1").is_err());
        assert!(parse_shard("a/b").is_err());
    }
}
