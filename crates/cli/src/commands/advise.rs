//! `clmap advise`: Advice on __local memory per data structure, from the composing rules and the database.

use crate::commands::bench::parse_maps;
use crate::exit::{CliError, Status};
use crate::perf_db::{select_devices, DatabaseArg};
use clmap_aristotle::query;
use clmap_aristotle::rules::{self, DataStructure};
use std::path::PathBuf;

/// The most runs per measurement, as for `clmap bench maps`.
const MAX_REPS: i64 = 100_000;

/// Advice on __local memory per data structure, from the composing rules and the database.
///
/// Given a workload, clmap detects the MAP of every buffer each kernel reads (as `clmap maps
/// detect` does), sizes each as the square dataset of its length, rounded to whole
/// work-groups of the launch, and looks up each MAP's measured ratio mbr = B/b on the device.
/// Measurements the database lacks are taken first by a small campaign of only those
/// microbenchmarks, on the launch's work-group (resumable like `clmap bench maps`; with
/// `--no-measure`, clmap names them and the command that would take them instead). Then
/// Aristotle's composing rules decide, kernel by kernel: structures that do not gain stay in
/// global memory (rule 5.1); a single gainer uses local memory (5.2); several gainers are taken
/// in order of ω = D/ΣD × mbr while the device's local memory has room (5.3). Each buffer's
/// answer names the rule, the expected gain and the measurements it used.
///
/// A buffer read in the same loop as one other detected buffer, both following Row or Column
/// MAPs (a multiply's row and column operands, `acc += A[i*n+k] * B[k*n+j]`), is judged by
/// their interleaved pair instead (rule `interleaved`): one generated kernel whose single loop
/// multiplies both, timed with the buffer in global memory and staged by the stager, the
/// other as the kernel has it. What staging saves there depends on the other stream, which a
/// single MAP's microbenchmark does not have.
///
/// Without a workload, give the MAP of each data structure (`--maps 205,302`) and its dataset
/// side (`--sizes 1024`, one for all or one per MAP).
#[derive(clap::Args, Debug)]
#[command(after_long_help = EXAMPLES)]
pub struct Args {
    /// A workload (.toml or Oclgrind .sim) whose buffers to advise on.
    #[arg(required_unless_present = "maps", conflicts_with_all = ["maps", "sizes", "local_bytes"])]
    pub workload: Option<PathBuf>,
    /// The device: in the database, an id (`#3`), a kind or part of its name or platform; to
    /// measure what the database lacks, also an OpenCL device as `clmap devices` lists it.
    #[arg(long, short)]
    pub device: String,
    /// The MAP of each data structure, in kernel order (the same MAP may repeat).
    #[arg(long)]
    pub maps: Option<String>,
    /// Dataset side N per data structure (one value applies to all; default 1024).
    #[arg(long, value_delimiter = ',', requires = "maps")]
    pub sizes: Vec<usize>,
    /// Local memory each structure needs per work-group, in bytes (one value applies to all;
    /// default: a 16×16 tile with a radius-3 halo of floats, the campaign's largest). With a
    /// workload, the local variant's tile of each buffer's elements.
    #[arg(long, value_delimiter = ',', requires = "maps")]
    pub local_bytes: Vec<u64>,
    /// The device's local memory per work-group in bytes (default: as recorded for the device).
    #[arg(long)]
    pub local_capacity: Option<u64>,
    /// The local-memory variant whose bandwidth is B: `stage` (the `nolocal` microbenchmark
    /// with its input staged by `clmap local`'s stager, the tile `clmap tune` builds; the
    /// default with a workload), or a generated one, `max` (the default with --maps), `min`,
    /// `padded`.
    #[arg(long)]
    pub local_variant: Option<String>,
    /// The similarity threshold δ.
    #[arg(long, default_value_t = query::DEFAULT_DELTA)]
    pub delta: f64,
    /// Measure nothing: when the database lacks a measurement, say which and the `clmap bench
    /// maps` command that takes it, and stop. (An interleaved pair the database lacks is not
    /// required: its buffer is judged by its single-MAP record, and the advice says so.)
    #[arg(long, requires = "workload")]
    pub no_measure: bool,
    /// Measure nothing and answer anyway: a buffer whose MAP the database lacks at the
    /// launch's dataset and work-group is judged from the nearest record (the same work-group
    /// first, then the nearest dataset on any), which its reasoning names. For advice from a
    /// database alone, e.g. when judging measured timings again offline.
    #[arg(long, requires = "workload", conflicts_with = "no_measure")]
    pub nearest: bool,
    /// Runs per missing measurement, the first discarded as warm-up.
    #[arg(long, default_value_t = 21, requires = "workload",
          value_parser = clap::value_parser!(u32).range(2..=MAX_REPS))]
    pub reps: u32,
    /// Do not flush the caches between the runs of missing measurements.
    #[arg(long, requires = "workload")]
    pub no_flush: bool,
    /// With a multiple M above 0, a measurement decides only when the kernel as written takes
    /// at least M launches' worth of time (the MAP on one work-group); one that takes less is
    /// measured again on datasets of twice the side, on the same work-group, until it does
    /// (bounded by the device's memory), and that record decides: what the access pattern
    /// does on large data. The default 0 keeps every buffer's own dataset, which predicted the
    /// measured winner more often on the H100 (docs/advise.md); 4 was the earlier default.
    #[arg(long, default_value_t = clmap_aristotle::refine::DEFAULT_LAUNCH_MULTIPLE, requires = "workload")]
    pub launch_multiple: f64,
    /// Judge a buffer read in one loop with another (both Row or Column MAPs, e.g. a
    /// multiply's two operands) by their interleaved pair: a generated kernel whose single loop
    /// multiplies both, timed with the buffer in global memory and staged (rule
    /// `interleaved`). Off by default: on the H100 and on PoCL it predicted the measured winner
    /// no more often than the single-MAP records (docs/advise.md, "Buffers read in one loop").
    #[arg(long, requires = "workload")]
    pub interleaved: bool,
    /// Seconds a tie (a ratio within its runs' spread) may spend being measured again before
    /// the pooled samples decide; 0 measures no tie again.
    #[arg(long, default_value_t = 10.0, requires = "workload")]
    pub pool_seconds: f64,
    /// Seconds after which no scaled dataset or re-measurement is started (0: no limit); what
    /// is left is taken by the next run, which finds the rest in the database.
    #[arg(long, default_value_t = 30.0, requires = "workload")]
    pub refine_seconds: f64,
    /// Work-items the device runs in lock step (its warp or SIMD width), which splits each
    /// buffer's reuse between the work-items of one warp (a broadcast, served by one
    /// transaction) and different warps (default: as recorded for the device, else asked of
    /// the OpenCL device: CL_DEVICE_WARP_SIZE_NV, or its preferred work-group size multiple).
    /// Without one the reuse is not split.
    #[arg(long, requires = "workload", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub simd_width: Option<u32>,
    #[command(flatten)]
    pub db: DatabaseArg,
    /// Print JSON: with a workload, a list of {kernel, buffer, map, advice, expected_gain,
    /// rule, reasoning, measurements, …}, one per buffer.
    #[arg(long)]
    pub json: bool,
}

const EXAMPLES: &str = "Examples:
  clmap advise tests/corpus/mm_simple.toml --device gpu --db campaign.db
  clmap advise tests/corpus/jacobi2d.toml --device cpu --no-measure --json
  clmap advise tests/corpus/pb_gemm.toml --device gpu --db campaign.db --nearest
  clmap advise --device k20m --maps 205,302 --sizes 2048";

/// The dataset side the `--maps` form asks about unless `--sizes` says otherwise.
const DEFAULT_SIZE: usize = 1024;

/// 16 + 2 × 3 cells a side, 4 bytes each.
const DEFAULT_LOCAL_BYTES: u64 = 22 * 22 * 4;

fn per_structure<T: Copy>(values: &[T], count: usize, what: &str) -> Result<Vec<T>, CliError> {
    match values {
        [one] => Ok(vec![*one; count]),
        many if many.len() == count => Ok(many.to_vec()),
        many => Err(CliError::BadInput(format!(
            "{what} has {} values for {count} data structures: give one, or one per MAP",
            many.len()
        ))),
    }
}

/// The maps as given, repeats kept (two structures may share a MAP).
fn maps_in_order(text: &str) -> Result<Vec<u16>, CliError> {
    let mut out = Vec::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        out.extend(parse_maps(part)?);
    }
    if out.is_empty() {
        return Err(CliError::BadInput("--maps names no MAP".into()));
    }
    Ok(out)
}

pub fn run(args: Args) -> Result<Status, CliError> {
    if !(args.delta >= 0.0 && args.delta < 1.0) {
        return Err(CliError::BadInput("--delta must be in [0, 1)".to_string()));
    }
    if let Some(path) = args.workload.clone() {
        return crate::commands::advise_workload::run(&args, &path);
    }
    let maps = maps_in_order(args.maps.as_deref().unwrap_or_default())?;
    let sizes = if args.sizes.is_empty() { vec![DEFAULT_SIZE] } else { args.sizes.clone() };
    let sizes = per_structure(&sizes, maps.len(), "--sizes")?;
    let local =
        if args.local_bytes.is_empty() { vec![DEFAULT_LOCAL_BYTES] } else { args.local_bytes };
    let local = per_structure(&local, maps.len(), "--local-bytes")?;
    let db = args.db.open()?;
    let devices = select_devices(&db, &args.device)?;
    let [device] = devices.as_slice() else {
        let names: Vec<String> =
            devices.iter().map(|d| format!("#{} {}", d.id, d.label())).collect();
        return Err(CliError::BadInput(format!(
            "`{}` matches several devices: {}; pick one by id (`#N`)",
            args.device,
            names.join(", ")
        )));
    };
    let local_variant = args.local_variant.as_deref().unwrap_or(query::DEFAULT_LOCAL_VARIANT);
    let table = query::map_table(&db, device, local_variant)
        .map_err(|e| CliError::BadInput(e.to_string()))?;
    let capacity = args
        .local_capacity
        .or_else(|| device.identity.details.get("local_mem_bytes").and_then(|v| v.as_u64()));
    let structures: Vec<DataStructure> = maps
        .iter()
        .zip(&sizes)
        .zip(&local)
        .enumerate()
        .map(|(i, ((&map, &dataset), &local_bytes))| {
            DataStructure::new(format!("#{} MAP-{map}", i + 1), map, dataset, local_bytes)
        })
        .collect();
    let advice = rules::compose(&table, &structures, capacity, args.delta);
    if args.json {
        let out = serde_json::json!({ "device": device.label(), "advice": advice });
        println!("{out:#}");
        return Ok(Status::Success);
    }
    println!("{}: {}", device.label(), advice.tuple());
    for c in &advice.choices {
        println!(
            "  {:<14} N={:<5} {}  rule {:<3} {}",
            c.structure.name,
            c.structure.dataset,
            if c.use_local { "local " } else { "global" },
            c.rule.number(),
            c.reasoning
        );
    }
    if let Some(cap) = advice.local_capacity {
        println!("  local memory: {} of {cap} bytes per work-group", advice.local_bytes_used);
    }
    Ok(Status::Success)
}
