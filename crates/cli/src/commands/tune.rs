//! `clmap tune`: the fastest correct variant of a kernel per device, from its layout and
//! work-group variants validated, timed and kept in the performance database.

use std::io::Write as _;
use std::path::PathBuf;

use clmap_aristotle::query;
use clmap_aristotle::workload_advice::{Placement, WorkloadAdvice};
use clmap_device::{human_ns, select_device, TimingOptions};
use clmap_exec::PreparedWorkload;
use clmap_tune::{
    build_variants, default_producers, tune, AdvisorAnswer, Budget, CombinedStaging, Layout,
    Progress, Settled, Step, Subject, TuneOptions, TuneReport, TuneStore, TuneTarget,
    WorkGroupChoice,
};

use crate::commands::devices::environment_error;
use crate::exit::{CliError, Status};
use crate::perf_db::{db_error, DatabaseArg};

const EXAMPLES: &str = "Examples:
  clmap tune tests/corpus/mm_nvidia_tile_a.toml --device gpu
  clmap tune tests/corpus/transpose_local_padded.toml --device cpu,gpu --budget 10m --json
  clmap tune tests/corpus/map_row_local.toml --device sim --work-groups 32x4,64x2,128x1
  clmap tune tests/corpus/jacobi2d.toml --device gpu --remeasure --reps 51 --flush";

/// Find the fastest correct variant of a workload's kernel on each device.
///
/// Variants, each one decision away from the kernel as written, tried in this order: the
/// kernel as written (the baseline); Grover's removal of each buffer it stages in __local
/// memory (`unlocal:<local buffer>`), and of all of them together when there are several
/// (`unlocal:all`); each __global buffer staged in a __local tile of its work-group footprint
/// (`stage:<buffer>`, the rewrite of `clmap local`); the kernel launched with other work-group
/// sizes (`wg:<x>x<y>`), powers of two that divide the NDRange and fit the device, the
/// nearest to the launch's own first.
///
/// Every variant runs against the original on the simulator with several random input sets,
/// the race and bounds checkers on; one whose outputs differ is rejected. On an OpenCL device
/// the survivors run once more and must match the original's outputs there, then are timed
/// as `clmap time` times (profiling events, the first run discarded, the median kept). On the
/// simulator (`--device sim`) the time is the host's wall-clock time of a simulated run,
/// which ranks the simulator's work rather than any hardware.
///
/// Results go to the performance database as each variant is settled: a second run answers
/// from it (`--remeasure` measures again), and an interrupted or budget-limited run resumes
/// where it stopped. The report names the winner, its speedup over the kernel as written, and
/// whether `clmap advise` (run for the device first, measuring what its database lacks)
/// advised the winner's memory layout.
#[derive(clap::Args, Debug)]
#[command(after_long_help = EXAMPLES)]
pub struct Args {
    /// The workload (.toml or Oclgrind .sim).
    pub workload: PathBuf,
    /// Devices, comma-separated: `sim` for the simulator, or OpenCL devices as `clmap devices`
    /// lists them (an index, `cpu`, `gpu` or part of the name).
    #[arg(long, short, required = true, value_delimiter = ',')]
    pub device: Vec<String>,
    /// The kernel to tune (default: the workload's first launch's).
    #[arg(long, value_name = "NAME")]
    pub kernel: Option<String>,
    /// How much to measure in this run: a number of variants, or a duration (`90s`, `10m`,
    /// `1h`). Answers from the database are free; what is left over is measured by the next
    /// run.
    #[arg(long, value_name = "N|DURATION")]
    pub budget: Option<Budget>,
    /// Work-group sizes to try: `N` (the N nearest to the launch's own), `all`, `none`, or a
    /// list such as `16x16,32x8`.
    #[arg(long, default_value = "8", value_name = "N|all|none|LIST")]
    pub work_groups: String,
    /// Random input sets each variant is validated with on the simulator.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u64).range(1..=64))]
    pub seeds: u64,
    /// Runs per variant, the first discarded as warm-up (default 21 on devices, 5 on the
    /// simulator).
    #[arg(long, value_parser = clap::value_parser!(u32).range(2..))]
    pub reps: Option<u32>,
    /// Ask the advisor with `clmap advise --interleaved` (interleaved pairs decide buffers read
    /// in one loop with another), so its prediction can be judged with them.
    #[arg(long)]
    pub interleaved: bool,
    /// Flush the caches between runs.
    #[arg(long)]
    pub flush: bool,
    /// Measure again what the database already holds for these variants.
    #[arg(long)]
    pub remeasure: bool,
    /// Do not ask the advisor (which may first measure microbenchmarks on the device).
    #[arg(long)]
    pub no_advise: bool,
    #[command(flatten)]
    pub db: DatabaseArg,
    /// Print JSON: per device, every variant with its name, how it was built, validation,
    /// time, speedup and whether it was chosen, the winner and the advisor's verdict.
    #[arg(long)]
    pub json: bool,
}

fn work_group_choice(text: &str) -> Result<WorkGroupChoice, CliError> {
    let text = text.trim();
    match text {
        "all" => return Ok(WorkGroupChoice::All),
        "none" | "0" => return Ok(WorkGroupChoice::None),
        _ => {}
    }
    if let Ok(n) = text.parse::<usize>() {
        return Ok(WorkGroupChoice::Nearest(n));
    }
    let mut sizes = Vec::new();
    for shape in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let size: Result<Vec<u64>, _> = shape.split('x').map(|d| d.trim().parse::<u64>()).collect();
        match size {
            Ok(size) if (1..=3).contains(&size.len()) => sizes.push(size),
            _ => {
                return Err(CliError::BadInput(format!(
                    "--work-groups: `{shape}` is not a size such as 256, 16x16 or 8x8x4"
                )))
            }
        }
    }
    if sizes.is_empty() {
        return Err(CliError::BadInput("--work-groups names no size".to_string()));
    }
    Ok(WorkGroupChoice::Given(sizes))
}

pub fn run(args: Args) -> Result<Status, CliError> {
    let work_groups = work_group_choice(&args.work_groups)?;
    let prepared = crate::workload_args::prepare(&args.workload)?;
    let kernel = match &args.kernel {
        Some(k) => {
            if !prepared.workload().launches.iter().any(|l| &l.kernel == k) {
                return Err(CliError::BadInput(format!("the workload launches no kernel `{k}`")));
            }
            k.clone()
        }
        None => prepared
            .workload()
            .launches
            .first()
            .map(|l| l.kernel.clone())
            .ok_or_else(|| CliError::BadInput("the workload has no launch".to_string()))?,
    };
    let db = args.db.open()?;
    let label = args.workload.display().to_string();
    let mut reports = Vec::new();
    for selector in &args.device {
        let target = open_target(selector)?;
        let report =
            tune_on(&args, &prepared, &kernel, &label, &db, &target, selector, &work_groups)?;
        if !args.json {
            print_report(&report);
        }
        reports.push(report);
    }
    if args.json {
        let out = serde_json::json!({
            "workload": label,
            "kernel": kernel,
            "database": args.db.file.clone().unwrap_or_else(clmap_db::default_path).display().to_string(),
            "devices": reports,
        });
        println!("{out:#}");
    }
    Ok(if reports.iter().all(|r| r.winner.is_some()) {
        Status::Success
    } else {
        Status::KernelFault
    })
}

fn open_target(selector: &str) -> Result<TuneTarget, CliError> {
    match selector.trim().to_ascii_lowercase().as_str() {
        "sim" | "simulator" => Ok(TuneTarget::simulator()),
        _ => {
            let device = select_device(selector).map_err(environment_error)?;
            let identity = crate::device_identity::device_identity(device.info());
            Ok(TuneTarget::device(device, identity))
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn tune_on(
    args: &Args,
    prepared: &PreparedWorkload,
    kernel: &str,
    label: &str,
    db: &clmap_db::Database,
    target: &TuneTarget,
    selector: &str,
    work_groups: &WorkGroupChoice,
) -> Result<TuneReport, CliError> {
    let advice = advisor_answer(args, prepared, target, selector, kernel);
    if let Err(why) = &advice {
        if !args.no_advise && !target.is_simulator() {
            eprintln!("advisor: no advice: {why}");
        }
    }
    let device_id = db.device_id(target.identity()).map_err(db_error)?;
    let store = TuneStore::open(
        db,
        device_id,
        prepared.workload().identity(),
        label.to_string(),
        kernel.to_string(),
    )
    .map_err(db_error)?;
    eprintln!("tuning {kernel} of {label} on {}", target.name());
    let subject =
        Subject { original: prepared, kernel, limits: target.limits(), seeds: args.seeds };
    let mut producers = default_producers(work_groups.clone());
    // Advice to stage several buffers is judged against the variant staging all of them.
    if let Ok(answer) = &advice {
        if answer.layout.staged.len() > 1 {
            producers.push(Box::new(CombinedStaging(vec![answer.layout.staged.clone()])));
        }
    }
    eprint!("  variants built:");
    let mut first = true;
    let variants = build_variants(&producers, &subject, &mut |label, count| {
        eprint!("{} {label} {count}", if first { "" } else { "," });
        first = false;
    });
    eprintln!();
    let reps = args.reps.unwrap_or(if target.is_simulator() { 5 } else { 21 });
    let options = TuneOptions {
        seeds: args.seeds,
        timing: TimingOptions { warmup: 1, reps: reps - 1, flush_cache: args.flush },
        budget: args.budget.unwrap_or(Budget::Unlimited),
        remeasure: args.remeasure,
    };
    let advice_ref = advice.as_ref().map_err(String::as_str);
    let report = tune(
        prepared,
        label,
        kernel,
        variants,
        target,
        &store,
        &options,
        advice_ref,
        &mut progress_printer(),
    )
    .map_err(db_error)?;
    eprintln!(
        "  {} settled now, {} answered from the database{}",
        report.measured_now,
        report.from_database,
        if report.skipped > 0 {
            format!(", {} left for a later run by the budget", report.skipped)
        } else {
            String::new()
        }
    );
    Ok(report)
}

/// The advisor's layout for the device, or why there is none.
fn advisor_answer(
    args: &Args,
    prepared: &PreparedWorkload,
    target: &TuneTarget,
    selector: &str,
    kernel: &str,
) -> Result<AdvisorAnswer, String> {
    if args.no_advise {
        return Err("not asked (--no-advise)".to_string());
    }
    if target.is_simulator() {
        return Err(
            "the advisor's measurements come from OpenCL devices, not the simulator".to_string()
        );
    }
    let advise_args = crate::commands::advise::Args {
        workload: Some(args.workload.clone()),
        device: selector.to_string(),
        maps: None,
        sizes: Vec::new(),
        local_bytes: Vec::new(),
        local_capacity: None,
        // B from the stager's tile of each MAP's microbenchmark: the tile the `stage:`
        // variants this command times are built with.
        local_variant: None,
        delta: query::DEFAULT_DELTA,
        no_measure: false,
        nearest: false,
        // The advisor's microbenchmarks take as many runs as the variants.
        reps: args.reps.unwrap_or(21),
        no_flush: false,
        launch_multiple: clmap_aristotle::refine::DEFAULT_LAUNCH_MULTIPLE,
        interleaved: args.interleaved,
        pool_seconds: 10.0,
        refine_seconds: 30.0,
        // The device's own warp width, from its OpenCL description.
        simd_width: None,
        db: args.db.clone(),
        json: false,
    };
    let (_, _, advice) = crate::commands::advise_workload::advice(&advise_args, prepared)
        .map_err(|e| e.to_string())?;
    let answer = layout_of(&advice, kernel);
    if answer.decisions.is_empty() {
        let reasons: Vec<String> = advice
            .buffers
            .iter()
            .filter(|b| b.kernel == kernel)
            .map(|b| format!("{}: {}", b.buffer, b.reasoning))
            .collect();
        return Err(format!(
            "no MAP detected in {kernel}, so no advice{}",
            if reasons.is_empty() { String::new() } else { format!(" ({})", reasons.join("; ")) }
        ));
    }
    Ok(answer)
}

/// The layout the advice asks for: staged buffers it would read from __global, and __global
/// buffers it would stage.
fn layout_of(advice: &WorkloadAdvice, kernel: &str) -> AdvisorAnswer {
    let mut layout = Layout::default();
    let mut decisions = Vec::new();
    for b in advice.buffers.iter().filter(|b| b.kernel == kernel) {
        let (Some(map), Some(placement)) = (&b.map, b.advice) else { continue };
        let staged_now = b.staged_now.unwrap_or(false);
        match (placement, staged_now) {
            (Placement::Global, true) => {
                layout.unstaged.insert(b.buffer.clone());
            }
            (Placement::Local, false) => {
                layout.staged.insert(b.buffer.clone());
            }
            _ => {}
        }
        decisions.push(format!(
            "{} in {}: {map} → {}{}, rule {}{}",
            b.buffer,
            b.kernel,
            if placement == Placement::Local { "local" } else { "global" },
            if staged_now { " (staged now)" } else { "" },
            b.rule.as_deref().unwrap_or("-"),
            b.expected_gain.map(|g| format!(", expected ×{g:.2}")).unwrap_or_default(),
        ));
    }
    AdvisorAnswer { layout, decisions }
}

/// Prints progress as a line per variant, its steps appended as they start.
fn progress_printer() -> impl FnMut(&Progress<'_>) {
    let mut open_line: Option<usize> = None;
    move |p: &Progress<'_>| {
        let mut err = std::io::stderr().lock();
        let head = format!("  [{}/{}] {}:", p.index, p.total, p.variant);
        if open_line != Some(p.index) {
            if open_line.is_some() {
                let _ = writeln!(err);
            }
            let _ = write!(err, "{head}");
            open_line = Some(p.index);
        }
        let _ = match &p.step {
            Step::Refused(why) => write!(err, " refused: {}", first_line(why)),
            Step::FromDatabase(settled) => {
                write!(err, " from the database: {}", settled_text(settled))
            }
            Step::OverBudget => write!(err, " over budget, left for a later run"),
            Step::Validating { seeds } => {
                write!(err, " validating on the simulator ({seeds} input sets)…")
            }
            Step::ValidatedWhenBuilt { seeds } => {
                write!(err, " validated on the simulator when built ({seeds} input sets);")
            }
            Step::CheckingOnDevice => write!(err, " checking on the device…"),
            Step::Timing => write!(err, " timing…"),
            Step::Done(settled) => write!(err, " {}", settled_text(settled)),
        };
        let ends = matches!(
            p.step,
            Step::Refused(_) | Step::FromDatabase(_) | Step::OverBudget | Step::Done(_)
        );
        if ends {
            let _ = writeln!(err);
            open_line = None;
        }
        let _ = err.flush();
    }
}

fn settled_text(settled: &Settled) -> String {
    match settled {
        Settled::Timed { samples_ns, .. } => {
            match clmap_device::Timing::from_samples(samples_ns.clone()) {
                Some(t) => format!("median {}", human_ns(t.median)),
                None => "timed".to_string(),
            }
        }
        Settled::Refused(why) => format!("refused: {}", first_line(why)),
        Settled::Invalid(why) => format!("REJECTED: {}", first_line(why)),
        Settled::Failed(why) => format!("failed: {}", first_line(why)),
    }
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or("")
}

fn print_report(report: &TuneReport) {
    println!("{} (kernel {}) on {}", report.workload, report.kernel, report.device);
    println!("  times: {}", report.clock);
    println!(
        "  {:<2}{:<18} {:<12} {:>12} {:>8}  how",
        "", "variant", "validation", "median", "speedup"
    );
    for v in &report.variants {
        let validation = match v.validation.status {
            "passed" => format!("passed ×{}", v.validation.seeds),
            other => other.to_string(),
        };
        let median =
            v.time.as_ref().map(|t| human_ns(t.median_ns)).unwrap_or_else(|| "-".to_string());
        let speedup = v.speedup.map(|s| format!("×{s:.2}")).unwrap_or_else(|| "-".to_string());
        let how = match (&v.detail, v.status) {
            (Some(why), _) => format!("{}: {}", v.status, first_line(why)),
            (None, _) => v.how.clone(),
        };
        println!(
            "  {:<2}{:<18} {:<12} {:>12} {:>8}  {how}",
            if v.chosen { "*" } else { "" },
            v.name,
            validation,
            median,
            speedup
        );
    }
    match report.winner() {
        Some(w) => println!(
            "  winner: {}{}, ×{:.2} over the kernel as written",
            w.name,
            if w.layout.is_as_written() {
                String::new()
            } else {
                format!(" ({})", w.layout.describe())
            },
            w.speedup.unwrap_or(f64::NAN)
        ),
        None => println!("  winner: none (no variant was validated and timed)"),
    }
    let a = &report.advisor;
    let note = a.note.as_deref().map(|n| format!("; {n}")).unwrap_or_default();
    match a.predicted {
        None if a.decisions.is_empty() => println!("  advisor: no advice{note}"),
        predicted => {
            let verdict = match predicted {
                Some(true) => "predicted the winner",
                Some(false) => "did not predict the winner",
                None => "no verdict",
            };
            let variant =
                a.advised_variant.as_deref().map(|v| format!(" ({v})")).unwrap_or_default();
            println!("  advisor: advised {}{variant}: {verdict}{note}", a.advised);
        }
    }
    for d in &a.decisions {
        println!("    {d}");
    }
}
