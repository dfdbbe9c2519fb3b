//! `clmap bench`: Microbenchmark campaigns on real devices, recorded in the performance database.

use crate::commands::devices::environment_error;
use crate::exit::{CliError, Status};
use crate::perf_db::{print_rule_score, DatabaseArg};
use clmap_aristotle::campaign::{self, CampaignSummary};
use clmap_aristotle::campaign_device::DeviceMeasurer;
use clmap_aristotle::campaign_progress::CampaignProgress;
use clmap_aristotle::generate::CAMPAIGN_DATASETS;
use clmap_aristotle::query;
use clmap_aristotle::{valid_maps, MapId, Variant};
use std::time::Duration;

/// The most runs per measurement: every sample is kept in memory until its unit commits.
const MAX_REPS: i64 = 100_000;

/// Microbenchmark campaigns on real devices, recorded in the performance database.
///
/// `clmap bench maps` measures the MAP microbenchmarks as Aristotle's performance database
/// does: 16×16 work-groups, 21 runs per measurement of which the first is a discarded warm-up,
/// caches flushed before every measured run, bandwidth = bytes the work-items read / kernel
/// time. Every sample is stored with the device's identity. A campaign can be stopped at any
/// moment (even killed) and rerun with the same command: finished measurements are kept and
/// skipped, nothing is measured twice.
///
/// `clmap bench compose` measures kernels with two data structures in the three versions of
/// the composer (v0 no local memory, v1 local memory on the first, v2 on both) and reports how
/// often the composing rules predicted the better choice.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    pub command: BenchCommand,
}

#[derive(clap::Subcommand, Debug)]
pub enum BenchCommand {
    Maps(MapsArgs),
    Compose(ComposeArgs),
}

/// Measure MAP microbenchmarks on a device into the performance database.
///
/// Example: clmap bench maps --device pocl --maps 407,205 --sizes 128,256 --reps 21
#[derive(clap::Args, Debug)]
pub struct MapsArgs {
    /// The device: an index from `clmap devices` (`0`, `1:0`), a type (`cpu`, `gpu`) or part of
    /// its name.
    #[arg(long, short, default_value = "default")]
    pub device: String,
    /// MAPs to measure, as numbers (`407,205`, `MAP-407`) or `all` for the 33 valid MAPs.
    #[arg(long, default_value = "all")]
    pub maps: String,
    /// Dataset sides (N for N×N).
    #[arg(long, value_delimiter = ',', default_values_t = CAMPAIGN_DATASETS.to_vec())]
    pub sizes: Vec<usize>,
    /// Variants: nolocal, max, min, padded (the first is the reference b).
    #[arg(long, value_delimiter = ',', default_values = ["nolocal", "max", "min", "padded"])]
    pub variants: Vec<String>,
    /// Runs per measurement, the first discarded as warm-up.
    #[arg(long, default_value_t = 21, value_parser = clap::value_parser!(u32).range(2..=MAX_REPS))]
    pub reps: u32,
    /// Work-group size, `XxY`.
    #[arg(long, default_value = "16x16")]
    pub work_group: String,
    /// Do not flush the caches between runs (faster, but not the paper's method).
    #[arg(long)]
    pub no_flush: bool,
    /// Also measure the device's copy bandwidth (clEnqueueCopyBuffer of one float per element
    /// of the largest dataset) and record it, as the ceiling for the Single MAPs.
    #[arg(long)]
    pub copy_reference: bool,
    /// Start no new measurement after this many seconds (the campaign resumes on the next run).
    /// Compiling ahead (--build-jobs) counts towards it.
    #[arg(long)]
    pub time_limit: Option<u64>,
    /// Compile the kernels in this many processes before measuring; 0 (the default) means all
    /// cores on a CPU device and no compiling ahead elsewhere. PoCL spends a second or two of
    /// LLVM on every kernel and keeps the result in its on-disk kernel cache, so compiling
    /// ahead in parallel removes most of a CPU campaign's time; GPU drivers compile fast.
    #[arg(long, default_value_t = 0)]
    pub build_jobs: usize,
    /// Compile, without measuring, these units of the plan (comma-separated positions); what
    /// the processes started by --build-jobs do.
    #[arg(long, hide = true, value_delimiter = ',')]
    pub build_only: Option<Vec<usize>>,
    #[command(flatten)]
    pub db: DatabaseArg,
    /// Print the summary as JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args) -> Result<Status, CliError> {
    match args.command {
        BenchCommand::Maps(a) => run_maps(a),
        BenchCommand::Compose(a) => run_compose(a),
    }
}

/// Compiles the kernels of the pending units (positions in the plan) in `jobs` child
/// processes of this program, dealt out in turn. Processes rather than threads: PoCL compiles
/// one kernel at a time per process. The children only fill the compiler's cache; failures
/// are left for the measurement to report.
fn build_ahead(
    args: &MapsArgs,
    maps: &[u16],
    variants: &[String],
    pending: &[usize],
    jobs: usize,
) -> Result<(), CliError> {
    let exe = std::env::current_exe()
        .map_err(|e| CliError::Environment(format!("cannot find the clmap program: {e}")))?;
    let join = |items: Vec<String>| items.join(",");
    let maps = join(maps.iter().map(u16::to_string).collect());
    let sizes = join(args.sizes.iter().map(usize::to_string).collect());
    let variants = variants.join(",");
    let jobs = jobs.min(pending.len());
    eprintln!(
        "compiling the kernels of {} pending measurements ahead in {jobs} processes",
        pending.len()
    );
    let started = std::time::Instant::now();
    let mut children = Vec::with_capacity(jobs);
    for index in 0..jobs {
        let share: Vec<String> =
            pending.iter().skip(index).step_by(jobs).map(usize::to_string).collect();
        let child = std::process::Command::new(&exe)
            .args(["bench", "maps", "--device", &args.device, "--maps", &maps])
            .args(["--sizes", &sizes, "--variants", &variants, "--work-group", &args.work_group])
            .args(["--build-only", &share.join(",")])
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .map_err(|e| CliError::Environment(format!("cannot start {}: {e}", exe.display())))?;
        children.push(child);
    }
    for mut child in children {
        // A child that fails leaves its kernels to be compiled when they are measured.
        let _ = child.wait();
    }
    eprintln!("compiled ahead in {:.1} s", started.elapsed().as_secs_f64());
    Ok(())
}

/// Parses `all` or a list of MAP numbers, each checked against the valid MAPs.
pub(crate) fn parse_maps(text: &str) -> Result<Vec<u16>, CliError> {
    let valid: Vec<u16> = valid_maps().iter().map(|m| m.id().0).collect();
    if text.trim().eq_ignore_ascii_case("all") {
        return Ok(valid);
    }
    let mut maps = Vec::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let id: MapId = part.parse().map_err(|e| CliError::BadInput(format!("--maps: {e}")))?;
        if !valid.contains(&id.0) {
            return Err(CliError::BadInput(format!(
                "--maps: MAP-{} is not one of the 33 valid MAPs (see `clmap maps list`)",
                id.0
            )));
        }
        if !maps.contains(&id.0) {
            maps.push(id.0);
        }
    }
    if maps.is_empty() {
        return Err(CliError::BadInput("--maps names no MAP".to_string()));
    }
    Ok(maps)
}

/// Parses `--work-group`, kept as text in the arguments so that `--build-jobs` can pass it on.
fn parse_work_group(text: &str) -> Result<[usize; 2], CliError> {
    clmap_aristotle::parse_work_group(text)
        .map_err(|e| CliError::BadInput(format!("--work-group: {e}")))
}

/// Checks dataset sides: non-empty, and each divisible by the work-group.
pub(crate) fn check_sizes(sizes: &[usize], work_group: [usize; 2]) -> Result<(), CliError> {
    if sizes.is_empty() {
        return Err(CliError::BadInput("--sizes names no dataset".to_string()));
    }
    for &n in sizes {
        if n == 0 || n % work_group[0] != 0 || n % work_group[1] != 0 {
            return Err(CliError::BadInput(format!(
                "--sizes: {n} is not a positive multiple of the work-group {}x{}",
                work_group[0], work_group[1]
            )));
        }
    }
    Ok(())
}

fn parse_variants(names: &[String]) -> Result<Vec<String>, CliError> {
    let mut out: Vec<String> = Vec::new();
    for name in names {
        let name = if name.trim().eq_ignore_ascii_case(query::STAGED_VARIANT) {
            query::STAGED_VARIANT.to_string()
        } else {
            let v: Variant = name.parse().map_err(|e| {
                CliError::BadInput(format!("--variants: {e} (or {})", query::STAGED_VARIANT))
            })?;
            v.as_str().to_string()
        };
        if !out.contains(&name) {
            out.push(name);
        }
    }
    Ok(out)
}

fn run_maps(args: MapsArgs) -> Result<Status, CliError> {
    let maps = parse_maps(&args.maps)?;
    let work_group = parse_work_group(&args.work_group)?;
    check_sizes(&args.sizes, work_group)?;
    let variants = parse_variants(&args.variants)?;
    let device = clmap_device::select_device(&args.device).map_err(environment_error)?;
    let units = campaign::plan(&maps, &variants, &args.sizes);
    let mut measurer = DeviceMeasurer::new(&device, work_group, args.reps, !args.no_flush)
        .with_rewrite(query::STAGED_VARIANT, staged_microbenchmark(device.info().local_mem_bytes));
    if let Some(positions) = &args.build_only {
        for key in positions.iter().filter_map(|&position| units.get(position)) {
            // A kernel that does not compile fails again, with its log, when it is measured.
            let _ = measurer.build_only(key);
        }
        return Ok(Status::Success);
    }
    let mut db = args.db.open()?;
    let identity = crate::device_identity::device_identity(device.info());
    let device_id = db.device_id(&identity).map_err(|e| CliError::BadInput(e.to_string()))?;
    let mut pending = Vec::new();
    for (position, key) in units.iter().enumerate() {
        if !clmap_aristotle::store::unit_done(&db, device_id, key, work_group)
            .map_err(|e| CliError::BadInput(e.to_string()))?
        {
            pending.push(position);
        }
    }
    let jobs = match args.build_jobs {
        0 if device.info().device_type == clmap_device::DeviceType::Cpu => {
            std::thread::available_parallelism().map_or(1, |n| n.get())
        }
        0 => 1,
        jobs => jobs,
    };
    let started = std::time::Instant::now();
    if jobs > 1 && !pending.is_empty() {
        build_ahead(&args, &maps, &variants, &pending, jobs)?;
    }
    let time_limit =
        args.time_limit.map(|t| Duration::from_secs(t).saturating_sub(started.elapsed()));
    let bar = CampaignProgress::new(units.len(), &device.info().name);
    let summary = campaign::run(&mut db, device_id, &units, &mut measurer, time_limit, &mut |p| {
        bar.update(p)
    })
    .map_err(|e| CliError::BadInput(e.to_string()))?;
    bar.finish();
    let copy_gbs = if args.copy_reference && summary.left_for_later == 0 {
        let largest = args.sizes.iter().copied().max().unwrap_or(0);
        let bytes = clmap_aristotle::bandwidth::reference_bytes(largest);
        Some(
            clmap_aristotle::bandwidth::measure_and_record(
                &db, &device, device_id, bytes, args.reps,
            )
            .map_err(|e| CliError::Environment(e.to_string()))?,
        )
    } else {
        None
    };
    report(&summary, &device.info().name, device_id, args.json, copy_gbs);
    Ok(Status::Success)
}

fn report(
    summary: &CampaignSummary,
    device: &str,
    device_id: i64,
    json: bool,
    copy_gbs: Option<f64>,
) {
    if json {
        let mut value = serde_json::to_value(summary).unwrap_or_default();
        if let Some(map) = value.as_object_mut() {
            map.insert("device".into(), device.into());
            map.insert("device_id".into(), device_id.into());
            map.insert("copy_bandwidth_gbs".into(), copy_gbs.into());
        }
        println!("{value:#}");
        return;
    }
    println!(
        "{device} (#{device_id}): {} units planned, {} measured ({} samples), {} skipped, \
         {} failed, {} already done, {} left for a later run; {:.1} s",
        summary.planned,
        summary.measured,
        summary.samples,
        summary.skipped,
        summary.failed,
        summary.resumed,
        summary.left_for_later,
        summary.elapsed_s
    );
    for failure in &summary.failures {
        println!("  failed: {failure}");
    }
    if let Some(gbs) = copy_gbs {
        println!("copy bandwidth (clEnqueueCopyBuffer, recorded): {gbs:.2} GB/s");
    }
}

/// Measure two-data-structure kernels (v0, v1, v2) and score the composing rules.
///
/// Each pair of MAPs is generated as one kernel in three versions: v0 reads both structures
/// from global memory, v1 stages the first in local memory, v2 both. Step v0 → v1 tests the
/// rules' prediction for the first MAP, v1 → v2 for the second; the prediction comes from the
/// device's single-MAP records (run `clmap bench maps` on the same device first). The report is
/// the share of steps predicted right per dataset (Table 6 of the Aristotle paper).
///
/// Example: clmap bench compose --device gpu --pairs 205:302,407:108 --sizes 1024
#[derive(clap::Args, Debug)]
pub struct ComposeArgs {
    /// The device, as for `clmap bench maps`.
    #[arg(long, short, default_value = "default")]
    pub device: String,
    /// Pairs `MAP1:MAP2`, comma-separated.
    #[arg(long, conflicts_with_all = ["sample", "all"])]
    pub pairs: Option<String>,
    /// A deterministic sample of K pairs: the first 33 put every MAP once first and once
    /// second, and a larger K extends a smaller one (measurements already made are reused).
    #[arg(long, conflicts_with = "all")]
    pub sample: Option<usize>,
    /// All 1,089 ordered pairs.
    #[arg(long)]
    pub all: bool,
    /// Dataset sides.
    #[arg(long, value_delimiter = ',', default_values_t = CAMPAIGN_DATASETS.to_vec())]
    pub sizes: Vec<usize>,
    /// Runs per measurement, the first discarded as warm-up.
    #[arg(long, default_value_t = 21, value_parser = clap::value_parser!(u32).range(2..=MAX_REPS))]
    pub reps: u32,
    /// Work-group size, `XxY`.
    #[arg(long, default_value = "16x16")]
    pub work_group: String,
    /// Do not flush the caches between runs.
    #[arg(long)]
    pub no_flush: bool,
    /// The similarity threshold δ of the predictions.
    #[arg(long, default_value_t = clmap_aristotle::query::DEFAULT_DELTA)]
    pub delta: f64,
    /// Start no new measurement after this many seconds.
    #[arg(long)]
    pub time_limit: Option<u64>,
    #[command(flatten)]
    pub db: DatabaseArg,
    /// Print the campaign summary and the rules' accuracy as JSON.
    #[arg(long)]
    pub json: bool,
}

fn parse_pairs(args: &ComposeArgs) -> Result<Vec<(u16, u16)>, CliError> {
    let all = parse_maps("all")?;
    let every: Vec<(u16, u16)> =
        all.iter().flat_map(|&a| all.iter().map(move |&b| (a, b))).collect();
    if let Some(text) = &args.pairs {
        let mut out = Vec::new();
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (a, b) = part
                .split_once(':')
                .ok_or_else(|| CliError::BadInput(format!("--pairs: `{part}` is not MAP1:MAP2")))?;
            let a = parse_maps(a)?;
            let b = parse_maps(b)?;
            if let (Some(&a), Some(&b)) = (a.first(), b.first()) {
                out.push((a, b));
            }
        }
        if out.is_empty() {
            return Err(CliError::BadInput("--pairs names no pair".into()));
        }
        return Ok(out);
    }
    if let Some(k) = args.sample {
        if k == 0 {
            return Err(CliError::BadInput("--sample needs at least one pair".into()));
        }
        return Ok(clmap_aristotle::compose_bench::sample_pairs(&all, k));
    }
    if args.all {
        return Ok(every);
    }
    Err(CliError::BadInput("give --pairs, --sample K or --all".into()))
}

fn run_compose(args: ComposeArgs) -> Result<Status, CliError> {
    use clmap_aristotle::compose_bench::{self, DevicePairMeasurer};
    let pairs = parse_pairs(&args)?;
    let work_group = parse_work_group(&args.work_group)?;
    check_sizes(&args.sizes, work_group)?;
    if !(args.delta >= 0.0 && args.delta < 1.0) {
        return Err(CliError::BadInput("--delta must be in [0, 1)".to_string()));
    }
    let mut db = args.db.open()?;
    let device = clmap_device::select_device(&args.device).map_err(environment_error)?;
    let identity = crate::device_identity::device_identity(device.info());
    let device_id = db.device_id(&identity).map_err(|e| CliError::BadInput(e.to_string()))?;
    let units = compose_bench::plan(&pairs, &args.sizes);
    let mut measurer = DevicePairMeasurer::new(&device, work_group, args.reps, !args.no_flush);
    let bar =
        clmap_aristotle::campaign_progress::CampaignProgress::new(units.len(), &device.info().name);
    let summary = compose_bench::run(
        &mut db,
        device_id,
        &units,
        &mut measurer,
        args.time_limit.map(Duration::from_secs),
        &mut |done, total| {
            bar.update_count(done, total);
        },
    )
    .map_err(|e| CliError::BadInput(e.to_string()))?;
    bar.finish();
    let record = db
        .devices()
        .map_err(|e| CliError::BadInput(e.to_string()))?
        .into_iter()
        .find(|d| d.id == device_id)
        .ok_or_else(|| CliError::BadInput("the device vanished from the database".into()))?;
    let score = compose_bench::score(&db, &record, args.delta)
        .map_err(|e| CliError::BadInput(e.to_string()))?;
    if args.json {
        let out = serde_json::json!({
            "device": device.info().name,
            "device_id": device_id,
            "pairs": pairs.iter().map(|(a, b)| format!("{a}:{b}")).collect::<Vec<_>>(),
            "campaign": summary,
            "accuracy": score.accuracy,
        });
        println!("{out:#}");
        return Ok(Status::Success);
    }
    report(&summary, &device.info().name, device_id, false, None);
    print_rule_score(args.delta, &score);
    Ok(Status::Success)
}

/// The rewrite that makes the `stage` variant: the `nolocal` microbenchmark with its input
/// staged by the stager, validated on the simulator against the kernel it rewrites (one input
/// set; the campaign compares it with `nolocal` on the device again). A refusal (a Single MAP
/// reads no element twice; a footprint above the device's local memory) is the reason the
/// unit is skipped.
pub(crate) fn staged_microbenchmark<'d>(
    local_mem_bytes: u64,
) -> clmap_aristotle::campaign_device::Rewrite<'d> {
    let stage = buffer_stager(local_mem_bytes);
    Box::new(move |bench: &clmap_aristotle::Microbenchmark| stage(bench, "in"))
}

/// Stages the named input of a generated kernel as [`staged_microbenchmark`] stages `in`: the
/// staged versions of the advisor's interleaved pairs (`in1`, `in2`, or one after the other).
pub(crate) fn buffer_stager<'d>(
    local_mem_bytes: u64,
) -> clmap_aristotle::campaign_device::BufferStager<'d> {
    Box::new(move |bench: &clmap_aristotle::Microbenchmark, buffer: &str| {
        let prepared = clmap_exec::PreparedWorkload::new(bench.workload.clone())
            .map_err(|e| format!("the kernel whose `{buffer}` is staged does not load: {e}"))?;
        let limits = clmap_stage::StageLimits { max_local_bytes: local_mem_bytes, seeds: 1 };
        clmap_stage::stage_buffer(&prepared, &bench.kernel_name, buffer, &limits)
            .map(|staged| staged.workload)
            .map_err(|refusal| {
                format!(
                    "the stager refuses `{buffer}`: {}",
                    clmap_stage::describe_refusal(&refusal, &prepared.compiled().sources)
                )
            })
    })
}
