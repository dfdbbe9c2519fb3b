//! `clmap bench`: Microbenchmark campaigns on real devices, recorded in the performance database.

use crate::commands::devices::environment_error;
use crate::exit::{CliError, Status};
use clmap_aristotle::campaign::{self, CampaignSummary};
use clmap_aristotle::campaign_device::DeviceMeasurer;
use clmap_aristotle::campaign_progress::CampaignProgress;
use clmap_aristotle::generate::CAMPAIGN_DATASETS;
use clmap_aristotle::{valid_maps, MapId, Variant};
use clmap_db::Database;
use std::path::{Path, PathBuf};
use std::time::Duration;

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
    #[arg(long, default_value_t = 21, value_parser = clap::value_parser!(u32).range(2..))]
    pub reps: u32,
    /// Work-group size, `XxY`.
    #[arg(long, default_value = "16x16")]
    pub work_group: String,
    /// Do not flush the caches between runs (faster, but not the paper's method).
    #[arg(long)]
    pub no_flush: bool,
    /// Start no new measurement after this many seconds (the campaign resumes on the next run).
    #[arg(long)]
    pub time_limit: Option<u64>,
    /// The database file (default: $CLMAP_DB, else clmap.db).
    #[arg(long)]
    pub db: Option<PathBuf>,
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

/// Opens the database given with `--db`, or the default one.
pub(crate) fn open_db(path: Option<&Path>) -> Result<Database, CliError> {
    let path = path.map(Path::to_path_buf).unwrap_or_else(clmap_db::default_path);
    let db = Database::open(&path).map_err(|e| CliError::BadInput(e.to_string()))?;
    clmap_aristotle::store::ensure_schema(&db).map_err(|e| CliError::BadInput(e.to_string()))?;
    Ok(db)
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

/// Parses a work-group `XxY`.
pub(crate) fn parse_work_group(text: &str) -> Result<[usize; 2], CliError> {
    let bad = || CliError::BadInput(format!("--work-group `{text}`: expected XxY, e.g. 16x16"));
    let (x, y) = text.split_once(['x', 'X']).ok_or_else(bad)?;
    let x: usize = x.trim().parse().map_err(|_| bad())?;
    let y: usize = y.trim().parse().map_err(|_| bad())?;
    if x == 0 || y == 0 {
        return Err(bad());
    }
    Ok([x, y])
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
        let v: Variant =
            name.parse().map_err(|e| CliError::BadInput(format!("--variants: {e}")))?;
        let name = v.as_str().to_string();
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
    let mut db = open_db(args.db.as_deref())?;
    let device = clmap_device::select_device(&args.device).map_err(environment_error)?;
    let identity = clmap_exec::device_identity(device.info());
    let device_id = db.device_id(&identity).map_err(|e| CliError::BadInput(e.to_string()))?;
    let units = campaign::plan(&maps, &variants, &args.sizes);
    let mut measurer = DeviceMeasurer::new(&device, work_group, args.reps, !args.no_flush);
    let bar = CampaignProgress::new(units.len(), &device.info().name);
    let summary = campaign::run(
        &mut db,
        device_id,
        &units,
        &mut measurer,
        args.time_limit.map(Duration::from_secs),
        &mut |p| bar.update(p),
    )
    .map_err(|e| CliError::BadInput(e.to_string()))?;
    bar.finish();
    report(&summary, &device.info().name, device_id, args.json);
    Ok(Status::Success)
}

fn report(summary: &CampaignSummary, device: &str, device_id: i64, json: bool) {
    if json {
        let mut value = serde_json::to_value(summary).unwrap_or_default();
        if let Some(map) = value.as_object_mut() {
            map.insert("device".into(), device.into());
            map.insert("device_id".into(), device_id.into());
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
}

/// Measure two-data-structure kernels (v0, v1, v2) and score the composing rules.
#[derive(clap::Args, Debug)]
pub struct ComposeArgs {}

fn run_compose(_args: ComposeArgs) -> Result<Status, CliError> {
    Err(CliError::BadInput("`clmap bench compose` is not available in this build yet".into()))
}
