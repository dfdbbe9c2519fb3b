//! `clmap fuse`: cross-kernel tiling and fusion with redundant computation (seed 002).

use std::path::{Path, PathBuf};

use clmap_device::{human_ns, Device};
use clmap_exec::{PreparedWorkload, Target};
use clmap_fuse::{fuse, validate, Limits, Options, Rejected, SegmentKind, Variant};
use serde_json::json;

use crate::commands::devices::environment_error;
use crate::exit::{CliError, Status};
use crate::run_report::exec_error;
use crate::workload_args;

/// Fuse the launches of a pipeline workload into fewer, tiled kernels.
///
/// Repeated launches that ping-pong two buffers (a stencil's time steps) are fused in time:
/// each work-group computes K steps of its tile in __local memory, recomputing the halo that
/// neighbouring tiles would otherwise have to supply (redundant computation, no global
/// synchronisation). Consecutive different kernels over the same index space that hand
/// buffers on (an image filter chain) are fused in space the same way. Buffers that are only
/// intermediate stay on chip; buffers the host reads afterwards are still written.
///
/// Every access is derived from the kernels' code as integer relations (isl); a tile of the
/// last stage is pulled back through them to size every stage's tile and halo. What cannot be
/// analysed (data-dependent indices, atomics, in-place updates, work-group collectives) is
/// refused with the reason and the source line.
///
/// The fused pipeline runs against the original on the simulator with several random inputs
/// before anything is written (and on the device with --measure); a difference is a refusal
/// naming the buffer and index. Temporal fusion leaves the last repetition unfused and fuses
/// an odd number of steps per launch, so both buffers of the pair end as the host expects.
///
/// Examples:
///   clmap fuse examples/fusion/jacobi2d_small.toml -o /tmp/j2d_fused.toml --explain
///   clmap fuse examples/fusion/image_small.toml -o /tmp/image_fused.toml --tile 32x8
///   clmap fuse examples/fusion/hotspot_512.toml -o /tmp/hs.toml --steps 7 --measure --device gpu
#[derive(clap::Args, Debug)]
pub struct Args {
    /// A pipeline workload (.toml).
    pub pipeline: PathBuf,
    /// Where to write the fused workload; its kernels go beside it (same name, .cl).
    #[arg(short, long, value_name = "FUSED.toml")]
    pub output: Option<PathBuf>,
    /// Steps fused per launch for repeated launches (odd, at least 3; default: searched).
    #[arg(long, value_name = "K")]
    pub steps: Option<u32>,
    /// o: redundant computation (default); s: a launch boundary wherever a halo is needed;
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
    /// Random input sets the fused pipeline is validated with.
    #[arg(long, default_value_t = 3)]
    pub seeds: u64,
    /// Print the relations (isl notation), each stage's tile and halo, local bytes per
    /// work-group, the redundant computation and the launches before and after.
    #[arg(long)]
    pub explain: bool,
    /// Also validate on the device and time the unfused and fused pipelines there.
    #[arg(long)]
    pub measure: bool,
    /// The device --measure uses: an index from `clmap devices`, a type or part of a name.
    #[arg(long, short, default_value = "default")]
    pub device: String,
    /// Runs per timing, the first discarded.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(2..))]
    pub reps: u32,
    /// Machine-readable report.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args) -> Result<Status, CliError> {
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
    let options = Options { steps: args.steps, tile, variant, limits };
    let sources = &original.compiled().sources;
    let fused = match fuse(original.compiled(), original.workload(), &options) {
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
    let output = args.output.clone().unwrap_or_else(|| default_output(&args.pipeline));
    let source_path = output.with_extension("cl");
    let mut workload = fused.workload.clone();
    workload.source_path = source_path.clone();
    workload.path = Some(output.clone());
    if !args.json {
        eprintln!("validating on the simulator with {} random input sets…", args.seeds);
    }
    let simulator = Target::Simulator(Default::default());
    let checked = validate(&original, &workload, args.seeds, &simulator);
    let refused = |why: Rejected, on: &str| -> Result<Status, CliError> {
        if args.json {
            println!("{}", json!({ "fused": false, "rejected_on": on, "reason": why.to_string() }));
        } else {
            eprintln!("refused: on the {on}, {why}; nothing written");
        }
        Ok(Status::KernelFault)
    };
    let fused_prepared = match checked {
        Ok(p) => p,
        Err(why) => return refused(why, "simulator"),
    };
    let mut timings = None;
    if let Some(device) = &device {
        let target = Target::Device(device.clone());
        if let Err(why) = validate(&original, &workload, 1, &target) {
            return refused(why, &device.info().name);
        }
        timings = Some(time_both(device, &original, &fused_prepared, args.reps)?);
    }
    if let Some(dir) = output.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| CliError::Environment(format!("cannot create {}: {e}", dir.display())))?;
    }
    std::fs::write(&source_path, &workload.source).map_err(|e| {
        CliError::Environment(format!("cannot write {}: {e}", source_path.display()))
    })?;
    let base = output.parent().unwrap_or(Path::new("."));
    std::fs::write(&output, workload.to_toml(base))
        .map_err(|e| CliError::Environment(format!("cannot write {}: {e}", output.display())))?;
    if args.json {
        let segments: Vec<_> = fused
            .segments
            .iter()
            .map(|s| {
                json!({
                    "kernel": s.kernel,
                    "kind": match &s.kind { SegmentKind::Temporal { .. } => "temporal", SegmentKind::Spatial { .. } => "spatial" },
                    "stages": s.stages,
                    "steps": s.steps,
                    "tile": s.shape.tile,
                    "work_group": s.shape.group,
                    "local_bytes": s.local_bytes,
                    "redundant_computation": s.redundancy,
                    "reach": s.reach,
                    "relations": s.relations.iter().map(|(k, b, kind, text)| json!({"kernel": k, "buffer": b, "kind": kind, "isl": text})).collect::<Vec<_>>(),
                })
            })
            .collect();
        let mut out = json!({
            "fused": true,
            "output": output.display().to_string(),
            "variant": variant.as_str(),
            "launches_before": fused.launches_before,
            "launches_after": fused.launches_after,
            "validated_seeds": args.seeds,
            "segments": segments,
            "refusals": fused.refusals.iter().map(|r| r.describe(sources)).collect::<Vec<_>>(),
        });
        if let Some((device, before, after)) = &timings {
            out["device"] = json!(device);
            out["unfused_ns"] = json!(before);
            out["fused_ns"] = json!(after);
            out["speedup"] = json!(before / after);
        }
        println!("{out}");
        return Ok(Status::Success);
    }
    if args.explain {
        for s in &fused.segments {
            println!("{}", explain_segment(s));
        }
        for r in &fused.refusals {
            println!("not fused: {}", r.describe(sources));
        }
    }
    println!(
        "wrote {} and {}: {} instead of {}, outputs equal on {} random input sets",
        output.display(),
        source_path.display(),
        plural(fused.launches_after, "launch", "launches"),
        fused.launches_before,
        args.seeds
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
    if let Some((device, before, after)) = timings {
        println!(
            "  on {device}: unfused {} , fused {}, speedup {:.2}x",
            human_ns(before),
            human_ns(after),
            before / after
        );
    }
    Ok(Status::Success)
}

fn explain_segment(s: &clmap_fuse::SegmentReport) -> String {
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

/// Median times of the whole unfused and fused pipelines on `device`.
fn time_both(
    device: &Device,
    original: &PreparedWorkload,
    fused: &PreparedWorkload,
    reps: u32,
) -> Result<(String, f64, f64), CliError> {
    let options = clmap_device::TimingOptions { warmup: 1, reps: reps - 1, flush_cache: false };
    let before =
        clmap_exec::time_on_device(device, original.workload(), &options).map_err(exec_error)?;
    let after =
        clmap_exec::time_on_device(device, fused.workload(), &options).map_err(exec_error)?;
    Ok((device.info().name.clone(), before.median, after.median))
}
