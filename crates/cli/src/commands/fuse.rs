//! `clmap fuse`: cross-kernel tiling and fusion with redundant computation (seed 002).

use std::path::{Path, PathBuf};

use clmap_device::{human_ns, Device};
use clmap_exec::{PreparedWorkload, Target};
use clmap_fuse::{
    fuse, validate, Fused, Limits, Options, Rejected, SegmentKind, SegmentReport, Variant,
};
use clmap_workload::Workload;
use serde_json::json;

use crate::commands::devices::environment_error;
use crate::exit::{CliError, Status};
use crate::run_report::exec_error;
use crate::workload_args;

const EXAMPLES: &str = "Examples:
  clmap fuse examples/fusion/jacobi2d_small.toml -o /tmp/j2d_fused.toml --explain
  clmap fuse examples/fusion/image_small.toml -o /tmp/image_fused.toml --tile 32x8
  clmap fuse examples/fusion/hotspot_512.toml -o /tmp/hs.toml --steps 7 --measure --device gpu";

/// Fuse the launches of a pipeline workload into fewer, tiled kernels.
///
/// Repeated launches that ping-pong two buffers (a stencil's time steps) are fused in time:
/// each work-group computes K steps of its tile in __local memory, recomputing the halo that
/// neighbouring tiles would otherwise have to supply (redundant computation, no global
/// synchronisation). Consecutive different kernels over the same index space that hand
/// buffers on (an image filter chain) are fused in space the same way, and the repetitions of
/// a host loop ([[group]]) whose body is such a chain are fused into each other. Buffers that
/// are only intermediate stay on chip; buffers the host reads afterwards are still written.
///
/// Every access is derived from the kernels' code as integer relations (isl); a tile of the
/// last stage is pulled back through them to size every stage's tile and halo. What cannot be
/// analysed (data-dependent indices, atomics, in-place updates, work-group collectives) is
/// refused with the reason and the source line.
///
/// The fused pipeline runs against the original on the simulator with several random inputs
/// before anything is written (and on the device with --measure); a difference is a refusal
/// naming the buffer and index. Temporal fusion leaves the last repetition unfused, so both
/// buffers of the pair end as the host expects; an even number of fused steps writes its
/// result to a scratch buffer that then takes the read buffer's name.
#[derive(clap::Args, Debug)]
#[command(after_long_help = EXAMPLES)]
pub struct Args {
    /// A pipeline workload (.toml).
    pub pipeline: PathBuf,
    /// Where to write the fused workload; its kernels go beside it (same name, .cl).
    #[arg(short, long, value_name = "FUSED.toml")]
    pub output: Option<PathBuf>,
    /// Steps fused per launch for repeated launches (at least 2; default: searched).
    #[arg(long, value_name = "K")]
    pub steps: Option<u32>,
    /// o: redundant computation (default); s: a launch boundary wherever a halo is needed
    /// (a chain is cut into the runs that fuse without one);
    /// nr: no redundant computation (wrong wherever a halo is read; validation rejects it).
    #[arg(long, default_value = "o", value_parser = ["o", "s", "nr"])]
    pub variant: String,
    /// Tile of the last stage in work-items, per dimension: 256, 64x16, 16x8x4 (default:
    /// searched under the bound, parallelism and locality constraints).
    #[arg(long, value_name = "T0[xT1[xT2]]")]
    pub tile: Option<String>,
    /// Local memory per work-group the tiles must fit, in bytes (default 49152, or the
    /// device's with --measure).
    #[arg(long, value_name = "BYTES")]
    pub local_mem: Option<u64>,
    /// Compute units the parallelism constraint fills (default 132, or the device's).
    #[arg(long, value_name = "N")]
    pub compute_units: Option<u64>,
    /// Random input sets the fused pipeline is validated with on the simulator. 0 skips the
    /// simulator, for pipelines too large to simulate; only with --measure, whose device
    /// validation then still runs before anything is written.
    #[arg(long, default_value_t = 3)]
    pub seeds: u64,
    /// With --measure: how many candidates of the tile and step search, best estimates
    /// first, are validated and timed on the device; the fastest is written.
    #[arg(long, default_value_t = 6, value_parser = clap::value_parser!(u64).range(1..))]
    pub candidates: u64,
    /// With --measure: random input sets each candidate is validated with on the device.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u64).range(1..))]
    pub device_seeds: u64,
    /// Print the relations (isl notation), each stage's tile and halo, local bytes per
    /// work-group, the redundant computation and the launches before and after.
    #[arg(long)]
    pub explain: bool,
    /// Also validate on the device and time the unfused and fused pipelines there, from the
    /// first kernel's start to the last one's end (launch gaps included, transfers not).
    #[arg(long)]
    pub measure: bool,
    /// The device --measure uses: an index from `clmap devices`, a type or part of a name.
    #[arg(long, short, default_value = "default")]
    pub device: String,
    /// With --measure: the performance database every candidate is stored in; a later run
    /// on the same device and pipeline takes the fastest stored one instead of searching
    /// (default: $CLMAP_DB, else clmap.db).
    #[arg(long, value_name = "PATH")]
    pub db: Option<PathBuf>,
    /// With --measure: search and time again even where the database has an answer.
    #[arg(long)]
    pub remeasure: bool,
    /// Runs per timing, the first discarded.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(2..))]
    pub reps: u32,
    /// Machine-readable report.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args) -> Result<Status, CliError> {
    if args.seeds == 0 && !args.measure {
        return Err(CliError::BadInput(
            "--seeds 0 skips the simulator's validation; it needs --measure, which validates on \
             the device instead"
                .into(),
        ));
    }
    let original = workload_args::prepare(&args.pipeline)?;
    let variant = Variant::parse(&args.variant).expect("clap checks the variant");
    let tile = args.tile.as_deref().map(parse_tile).transpose()?;
    let device = if args.measure {
        Some(clmap_device::select_device(&args.device).map_err(environment_error)?)
    } else {
        None
    };
    let mut limits = Limits::default();
    if let Some(d) = &device {
        let info = d.info();
        limits.local_bytes = info.local_mem_bytes;
        limits.compute_units = info.compute_units as u64;
        limits.max_group = info.max_work_group_size as u64;
    }
    if let Some(b) = args.local_mem {
        limits.local_bytes = b;
    }
    if let Some(c) = args.compute_units {
        limits.compute_units = c.max(1);
    }
    let mut options = Options { steps: args.steps, tile, variant, limits, ..Options::default() };
    let store = match &device {
        Some(d) => Some(open_store(&args, d, &original)?),
        None => None,
    };
    let mut from_database = false;
    if let Some(best) =
        store.as_ref().filter(|_| !args.remeasure).map(|s| s.db_best()).transpose()?.flatten()
    {
        if options.steps.is_none() && options.tile.is_none() {
            if !args.json {
                eprintln!(
                    "the database has this pipeline on this device: {} steps, tile {}, work-group {} \
                     ({}); --remeasure searches again",
                    best.steps,
                    join_x(&best.tile),
                    join_x(&best.work_group),
                    best.outcome.as_ref().map(|ns| human_ns(*ns)).unwrap_or_default()
                );
            }
            options.steps = (best.steps > 1).then_some(best.steps);
            options.tile = Some(best.tile.clone());
            options.group = Some(best.work_group.clone());
            from_database = true;
        }
    }
    let sources = &original.compiled().sources;
    let output = args.output.clone().unwrap_or_else(|| default_output(&args.pipeline));
    let source_path = output.with_extension("cl");
    let analysis = std::time::Instant::now();
    let fused = fuse(original.compiled(), original.workload(), &options);
    let analysis_seconds = analysis.elapsed().as_secs_f64();
    let first = match fused {
        Ok(f) => f,
        Err(nothing) => {
            let reasons: Vec<String> =
                nothing.refusals.iter().map(|r| r.describe(sources)).collect();
            if args.json {
                println!("{}", json!({ "fused": false, "refusals": reasons }));
            } else {
                eprintln!("nothing fused in {}:", args.pipeline.display());
                for r in &reasons {
                    eprintln!("  {r}");
                }
            }
            return Ok(Status::BadInput);
        }
    };
    let place = |mut fused: Fused| {
        fused.workload.source_path = source_path.clone();
        fused.workload.path = Some(output.clone());
        fused
    };
    let refused = |why: &Rejected, on: &str| -> Result<Status, CliError> {
        if args.json {
            println!("{}", json!({ "fused": false, "rejected_on": on, "reason": why.to_string() }));
        } else {
            eprintln!("refused: on the {on}, {why}; nothing written");
        }
        Ok(Status::KernelFault)
    };
    let (fused, timings) = match &device {
        None => {
            let fused = place(first);
            if !args.json {
                eprintln!("validating on the simulator with {} random input sets…", args.seeds);
            }
            let simulator = Target::Simulator(Default::default());
            if let Err(why) = validate(&original, &fused.workload, args.seeds, &simulator) {
                return refused(&why, "simulator");
            }
            (fused, None)
        }
        Some(device) => {
            let store = store.as_ref().expect("a store with every device");
            let candidates = if from_database { 1 } else { args.candidates };
            match measure_candidates(
                &args,
                &original,
                device,
                options,
                candidates,
                store,
                place(first),
                &place,
            )? {
                Ok(best) => best,
                Err((why, on)) => return refused(&why, &on),
            }
        }
    };
    write_fused(&output, &source_path, &fused.workload)?;
    report(
        &args,
        &fused,
        &output,
        &source_path,
        timings.as_ref(),
        sources,
        analysis_seconds,
        from_database,
    );
    Ok(Status::Success)
}

/// Device timings of a written fusion: the device, unfused and fused medians (ns), and every
/// candidate tried (steps, tile, fused median or why it was dropped).
struct Timings {
    device: String,
    unfused_ns: f64,
    fused_ns: f64,
    tried: Vec<(u32, Vec<u64>, Result<f64, String>)>,
}

type Measured = Result<(Fused, Option<Timings>), (Rejected, String)>;

/// Validates and times up to `--candidates` fusions, best estimates first, and keeps the
/// fastest. A candidate the device rejects is dropped (and reported); if every one is, the
/// first rejection is the answer.
#[allow(clippy::too_many_arguments)]
fn measure_candidates(
    args: &Args,
    original: &PreparedWorkload,
    device: &Device,
    mut options: Options,
    candidates: u64,
    store: &Store,
    first: Fused,
    place: &dyn Fn(Fused) -> Fused,
) -> Result<Measured, CliError> {
    let timing = clmap_device::TimingOptions { warmup: 1, reps: args.reps - 1, flush_cache: false };
    let name = device.info().name.clone();
    let target = Target::Device(device.clone());
    let simulator = Target::Simulator(Default::default());
    let unfused = clmap_exec::time_span_on_device(device, original.workload(), &timing)
        .map_err(exec_error)?;
    if !args.json {
        eprintln!("unfused on {name}: {}", human_ns(unfused.median));
    }
    // The original's device runs, made once for every candidate.
    let mut reference: Option<clmap_fuse::Reference> = None;
    let mut best: Option<(Fused, f64)> = None;
    let mut first_rejection = None;
    let mut tried = Vec::new();
    let mut next = Some(first);
    for rank in 0..candidates as usize {
        let fused = match next.take() {
            Some(f) => f,
            None => {
                options.rank = rank;
                match fuse(original.compiled(), original.workload(), &options) {
                    Ok(f) => place(f),
                    Err(_) => break,
                }
            }
        };
        let label = candidate_label(&fused);
        let segment = &fused.segments[0];
        let (steps, tile) = (segment.steps, segment.shape.tile.clone());
        let record = |outcome: Result<f64, String>| {
            store.record(&clmap_fuse::store::Candidate {
                steps,
                tile: tile.clone(),
                work_group: segment.shape.group.clone(),
                unfused_ns: unfused.median,
                outcome,
            })
        };
        let mut check = Ok(());
        if args.seeds > 0 {
            check = validate(original, &fused.workload, args.seeds, &simulator)
                .map(|_| ())
                .map_err(|why| (why, "simulator".to_string()));
        }
        if check.is_ok() {
            if reference.is_none() {
                let runs = clmap_fuse::Reference::run(original, args.device_seeds, &target)
                    .map_err(|e| CliError::Environment(e.to_string()))?;
                reference = Some(runs);
            }
            let kept = reference.as_ref().expect("made above");
            check = clmap_fuse::validate_against(original, kept, &fused.workload, &target)
                .map(|_| ())
                .map_err(|why| (why, name.clone()));
        }
        if let Err((why, on)) = check {
            if !args.json {
                eprintln!("candidate {}: {label}: rejected on the {on}: {why}", rank + 1);
            }
            record(Err(why.to_string()))?;
            tried.push((steps, tile, Err(why.to_string())));
            first_rejection.get_or_insert((why, on));
            continue;
        }
        let time = clmap_exec::time_span_on_device(device, &fused.workload, &timing)
            .map_err(exec_error)?
            .median;
        if !args.json {
            eprintln!(
                "candidate {}: {label}: {} ({:.2}x), outputs equal",
                rank + 1,
                human_ns(time),
                unfused.median / time
            );
        }
        record(Ok(time))?;
        tried.push((steps, tile, Ok(time)));
        if best.as_ref().is_none_or(|(_, t)| time < *t) {
            best = Some((fused, time));
        }
    }
    Ok(match best {
        Some((fused, time)) => Ok((
            fused,
            Some(Timings { device: name, unfused_ns: unfused.median, fused_ns: time, tried }),
        )),
        None => Err(first_rejection.expect("at least one candidate was tried")),
    })
}

/// The database and this pipeline's place in it, for one device.
struct Store {
    db: clmap_db::Database,
    device_id: i64,
    pipeline: String,
    label: String,
    variant: String,
}

impl Store {
    fn with<T>(
        &self,
        f: impl FnOnce(&clmap_fuse::store::FusionStore) -> Result<T, clmap_db::DbError>,
    ) -> Result<T, CliError> {
        let store = clmap_fuse::store::FusionStore::open(
            &self.db,
            self.device_id,
            self.pipeline.clone(),
            self.label.clone(),
            &self.variant,
        )
        .map_err(|e| CliError::Environment(e.to_string()))?;
        f(&store).map_err(|e| CliError::Environment(e.to_string()))
    }

    fn db_best(&self) -> Result<Option<clmap_fuse::store::Candidate>, CliError> {
        self.with(|s| s.best())
    }

    fn record(&self, c: &clmap_fuse::store::Candidate) -> Result<(), CliError> {
        self.with(|s| s.record(c))
    }
}

fn open_store(
    args: &Args,
    device: &Device,
    original: &PreparedWorkload,
) -> Result<Store, CliError> {
    let path = args.db.clone().unwrap_or_else(clmap_db::default_path);
    let db = clmap_db::Database::open(&path).map_err(|e| CliError::Environment(e.to_string()))?;
    let identity = crate::device_identity::device_identity(device.info());
    let device_id = db.device_id(&identity).map_err(|e| CliError::Environment(e.to_string()))?;
    let label =
        args.pipeline.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    Ok(Store {
        db,
        device_id,
        pipeline: original.workload().identity(),
        label,
        variant: args.variant.clone(),
    })
}

fn candidate_label(fused: &Fused) -> String {
    fused
        .segments
        .iter()
        .map(|s| format!("{} steps, tile {}", s.steps, join_x(&s.shape.tile)))
        .collect::<Vec<_>>()
        .join("; ")
}

fn write_fused(output: &Path, source_path: &Path, workload: &Workload) -> Result<(), CliError> {
    if let Some(dir) = output.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| CliError::Environment(format!("cannot create {}: {e}", dir.display())))?;
    }
    std::fs::write(source_path, &workload.source).map_err(|e| {
        CliError::Environment(format!("cannot write {}: {e}", source_path.display()))
    })?;
    let base = output.parent().unwrap_or(Path::new("."));
    std::fs::write(output, workload.to_toml(base))
        .map_err(|e| CliError::Environment(format!("cannot write {}: {e}", output.display())))
}

fn report(
    args: &Args,
    fused: &Fused,
    output: &Path,
    source_path: &Path,
    timings: Option<&Timings>,
    sources: &clmap_lang::SourceMap,
    analysis_seconds: f64,
    from_database: bool,
) {
    let validated = if timings.is_some() {
        format!(
            "{} random input sets on the simulator and {} on the device",
            args.seeds, args.device_seeds
        )
    } else {
        format!("{} random input sets", args.seeds)
    };
    if args.json {
        let segments: Vec<_> = fused.segments.iter().map(segment_json).collect();
        let mut out = json!({
            "fused": true,
            "output": output.display().to_string(),
            "variant": args.variant,
            "launches_before": fused.launches_before,
            "launches_after": fused.launches_after,
            "validated_seeds": args.seeds,
            "analysis_seconds": analysis_seconds,
            "segments": segments,
            "refusals": fused.refusals.iter().map(|r| r.describe(sources)).collect::<Vec<_>>(),
        });
        if let Some(t) = timings {
            out["device"] = json!(t.device);
            out["device_seeds"] = json!(args.device_seeds);
            out["from_database"] = json!(from_database);
            out["unfused_ns"] = json!(t.unfused_ns);
            out["fused_ns"] = json!(t.fused_ns);
            out["speedup"] = json!(t.unfused_ns / t.fused_ns);
            out["candidates"] = t
                .tried
                .iter()
                .map(|(steps, tile, r)| match r {
                    Ok(ns) => json!({ "steps": steps, "tile": tile, "fused_ns": ns }),
                    Err(why) => json!({ "steps": steps, "tile": tile, "rejected": why }),
                })
                .collect();
        }
        println!("{out}");
        return;
    }
    if args.explain {
        println!("analysis, tiling and code generation: {:.1} ms", analysis_seconds * 1e3);
        for s in &fused.segments {
            println!("{}", explain_segment(s));
        }
        for r in &fused.refusals {
            println!("not fused: {}", r.describe(sources));
        }
    }
    println!(
        "wrote {} and {}: {} instead of {}, outputs equal on {validated}",
        output.display(),
        source_path.display(),
        plural(fused.launches_after, "launch", "launches"),
        fused.launches_before,
    );
    for s in &fused.segments {
        println!(
            "  {}: {} stage(s) ({}), tile {}, work-group {}, {} B local memory, redundant computation {:.1}%",
            s.kernel,
            s.stages.len(),
            s.stages.join(" → "),
            join_x(&s.shape.tile),
            join_x(&s.shape.group),
            s.local_bytes,
            s.redundancy * 100.0
        );
    }
    if let Some(t) = timings {
        println!(
            "  on {}: unfused {}, fused {}, speedup {:.2}x (fastest of {} timed)",
            t.device,
            human_ns(t.unfused_ns),
            human_ns(t.fused_ns),
            t.unfused_ns / t.fused_ns,
            plural(
                t.tried.iter().filter(|c| c.2.is_ok()).count() as u64,
                "candidate",
                "candidates"
            )
        );
    }
}

fn segment_json(s: &SegmentReport) -> serde_json::Value {
    json!({
        "kernel": s.kernel,
        "kind": match &s.kind {
            SegmentKind::Temporal { .. } => "temporal",
            SegmentKind::Spatial { .. } => "spatial",
            SegmentKind::Repeated { .. } => "repeated",
        },
        "stages": s.stages,
        "steps": s.steps,
        "tile": s.shape.tile,
        "work_group": s.shape.group,
        "local_bytes": s.local_bytes,
        "redundant_computation": s.redundancy,
        "reach": s.reach,
        "relations": s.relations.iter().map(|(k, b, kind, text)| {
            json!({ "kernel": k, "buffer": b, "kind": kind, "isl": text })
        }).collect::<Vec<_>>(),
    })
}

fn explain_segment(s: &SegmentReport) -> String {
    let mut out = String::new();
    let kind = match &s.kind {
        SegmentKind::Temporal { launch, pair } => {
            format!(
                "launch {} fused in time, {} steps per launch, swapping {} and {}",
                launch + 1,
                s.steps,
                pair.0,
                pair.1
            )
        }
        SegmentKind::Spatial { first, last } => {
            format!("launches {}..{} fused in space", first + 1, last + 1)
        }
        SegmentKind::Repeated { first, last, .. } => {
            format!(
                "the host loop over launches {}..{}: {} repetitions fused per launch",
                first + 1,
                last + 1,
                s.steps
            )
        }
    };
    out.push_str(&format!("{}: {kind}\n", s.kernel));
    out.push_str("  relations:\n");
    for (k, b, label, text) in &s.relations {
        out.push_str(&format!("    {k} {label} {b}: {text}\n"));
    }
    out.push_str(&format!(
        "  tile of the last stage: {} (work-group {}), chosen among {} meeting the constraints\n",
        join_x(&s.shape.tile),
        join_x(&s.shape.group),
        plural(s.candidates as u64, "candidate", "candidates")
    ));
    for (k, reach) in s.reach.iter().enumerate() {
        let dims: Vec<String> = reach
            .iter()
            .enumerate()
            .map(|(d, (lo, hi))| format!("t{d}{lo:+} <= p{d} <= t{d}{hi:+}"))
            .collect();
        let halo: Vec<String> = reach
            .iter()
            .zip(&s.shape.tile)
            .map(|((lo, hi), t)| format!("-{}/+{}", -lo.min(&0), (hi - (*t as i64 - 1)).max(0)))
            .collect();
        out.push_str(&format!(
            "  stage {k} ({}): {}  halo {}\n",
            s.stages[k],
            dims.join(", "),
            halo.join(" ")
        ));
    }
    out.push_str(&format!(
        "  local memory per work-group: {} B; redundant computation: {:.1}%\n",
        s.local_bytes,
        s.redundancy * 100.0
    ));
    out
}

fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn join_x(v: &[u64]) -> String {
    v.iter().map(|x| x.to_string()).collect::<Vec<_>>().join("x")
}

fn default_output(pipeline: &Path) -> PathBuf {
    let stem = pipeline.file_stem().and_then(|s| s.to_str()).unwrap_or("pipeline");
    pipeline.with_file_name(format!("{stem}_fused.toml"))
}

fn parse_tile(text: &str) -> Result<Vec<u64>, CliError> {
    let parts: Result<Vec<u64>, _> =
        text.split(['x', 'X', ',']).map(|p| p.trim().parse::<u64>()).collect();
    match parts {
        Ok(v) if (1..=3).contains(&v.len()) && v.iter().all(|t| *t > 0) => Ok(v),
        _ => Err(CliError::BadInput(format!(
            "--tile {text}: write 1 to 3 positive sizes separated by x, e.g. 256 or 64x16"
        ))),
    }
}
