//! `clmap local`: stage a buffer's work-group footprint in `__local` memory (the inverse of
//! `clmap unlocal`).

use std::path::{Path, PathBuf};

use crate::commands::devices::environment_error;
use crate::exit::{CliError, Status};
use crate::workload_args;
use clmap_device::select_device;
use clmap_exec::{PreparedWorkload, Target};
use clmap_lang::Refusal;
use clmap_stage::{describe_refusal, stage_buffer, validate_on, StageLimits, StagedVariant};
use serde_json::json;

const EXAMPLES: &str = "Examples:
  clmap local tests/corpus/mm_simple.toml --buffer A
  clmap local tests/corpus/jacobi2d.toml --buffer A --json
  clmap local tests/stage/box5x5.toml --buffer in -o staged/box5x5.toml
  clmap local tests/corpus/mm_simple.toml --buffer B --validate-on cpu";

/// Stage a buffer in __local memory: the work-group's footprint is copied once, cooperatively,
/// and every read of the buffer is served from the copy.
///
/// For a __global buffer the kernel only reads, clmap finds the box of elements each
/// work-group reads (from the affine index of every read in the work-item's ids and loop
/// counters): whole rows for a Row MAP, columns for a Column MAP, the work-group's cells and
/// their halo for a Block or Neighbor MAP. The kernel gets a __local tile of that size (from
/// the workload's work-group size), a cooperative load guarded by the buffer's bounds, a
/// barrier, and each read of the buffer redirected to the tile. The output is a unified diff
/// of the kernel source that touches only those lines.
///
/// The staged kernel is run against the original on the simulator with several random inputs,
/// with the race and bounds checkers on (and on every --validate-on device); it is printed only
/// if every output agrees. What cannot be staged is refused with the reason and the source
/// line: a data-dependent or non-affine index, a kernel that writes the buffer or passes its
/// pointer on, a footprint above --max-local-bytes, a footprint no element of which is read
/// twice.
#[derive(clap::Args, Debug)]
#[command(after_long_help = EXAMPLES)]
pub struct Args {
    /// The workload (.toml or Oclgrind .sim).
    pub workload: PathBuf,
    /// The buffer parameter to stage.
    #[arg(long, value_name = "NAME")]
    pub buffer: String,
    /// The kernel (default: the workload's first launch's).
    #[arg(long, value_name = "NAME")]
    pub kernel: Option<String>,
    /// Write the staged workload to OUT.toml and its kernel source to OUT.cl beside it,
    /// instead of printing the diff.
    #[arg(short, long, value_name = "OUT.toml")]
    pub output: Option<PathBuf>,
    /// Print a JSON object (the footprint, the validation and the diff) instead of the diff.
    #[arg(long)]
    pub json: bool,
    /// Bytes of local memory a work-group may use, tile included (default: the smallest
    /// CL_DEVICE_LOCAL_MEM_SIZE of the --validate-on devices, else 48 KiB).
    #[arg(long, value_name = "BYTES")]
    pub max_local_bytes: Option<u64>,
    /// Random input sets the simulator validation uses.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u64).range(1..=64))]
    pub seeds: u64,
    /// Also validate on this OpenCL device (repeatable; see `clmap devices`).
    #[arg(long = "validate-on", value_name = "DEVICE")]
    pub validate_on: Vec<String>,
}

pub fn run(args: Args) -> Result<Status, CliError> {
    let original = workload_args::prepare(&args.workload)?;
    let kernel = match &args.kernel {
        Some(k) => k.clone(),
        None => original
            .workload()
            .launches
            .first()
            .map(|l| l.kernel.clone())
            .ok_or_else(|| CliError::BadInput("the workload launches no kernel".into()))?,
    };
    let mut targets = Vec::new();
    for selector in &args.validate_on {
        targets.push(select_device(selector).map_err(environment_error)?);
    }
    let device_limit = targets.iter().map(|d| d.info().local_mem_bytes).min();
    let max_local_bytes =
        args.max_local_bytes.or(device_limit).unwrap_or(StageLimits::default().max_local_bytes);
    let limits = StageLimits { max_local_bytes, seeds: args.seeds };
    let staged = match stage_buffer(&original, &kernel, &args.buffer, &limits) {
        Ok(v) => v,
        Err(refusal) => return Ok(refuse(&args, &original, &kernel, &refusal)),
    };
    let mut devices = Vec::new();
    for device in targets {
        let target = Target::Device(device);
        if let Err(refusal) = validate_on(&original, &staged.prepared, args.seeds, &target) {
            return Ok(refuse(&args, &original, &kernel, &refusal));
        }
        devices.push(target.name());
    }
    if let Some(out) = &args.output {
        write_staged(out, &staged)?;
    }
    if args.json {
        println!("{}", to_json(&args, &staged, &devices));
    } else {
        eprint!("{}", summary(&staged, &devices));
        match &args.output {
            Some(out) => {
                eprintln!("wrote {} and {}", out.display(), out.with_extension("cl").display())
            }
            None => print!("{}", staged.diff),
        }
    }
    Ok(Status::Success)
}

fn refuse(args: &Args, original: &PreparedWorkload, kernel: &str, refusal: &Refusal) -> Status {
    if args.json {
        let place = clmap_aristotle::detect::source_line(original.sources(), refusal.span);
        let value = json!({
            "kernel": kernel,
            "buffer": args.buffer,
            "staged": false,
            "refused": {
                "reason": refusal.reason,
                "at": place.map(|(file, line, text)| json!({ "file": file, "line": line, "text": text })),
            },
        });
        println!("{}", serde_json::to_string_pretty(&value).unwrap_or_default());
    }
    eprintln!(
        "error: `{}` of kernel `{kernel}` is not staged: {}",
        args.buffer,
        describe_refusal(refusal, original.sources())
    );
    Status::BadInput
}

fn summary(v: &StagedVariant, devices: &[String]) -> String {
    let f = &v.footprint;
    let map = match (&f.map, &f.imap, f.radius) {
        (Some(map), Some(imap), Some(r)) => format!("{map} ({imap}, radius {r})"),
        (Some(map), Some(imap), None) => format!("{map} ({imap})"),
        _ => format!("no MAP ({})", f.map_note.as_deref().unwrap_or("not detected")),
    };
    let mut out = format!(
        "staged `{}` of kernel `{}` as `{}`: {map}; {} x {} elements ({} bytes) per work-group \
         from {}, each read {:.1} times\n",
        v.buffer, v.kernel, v.tile, f.rows, f.columns, f.bytes, f.origin, f.reuse
    );
    if let Some(l) = v.chosen_local_size {
        out.push_str(&format!(
            "the workload gives no work-group size: staged for {} x {} x {}, now written in the workload\n",
            l[0], l[1], l[2]
        ));
    }
    let s = &v.validation;
    out.push_str(&format!(
        "validated on the simulator: {} input set{}, outputs {} agree, race and bounds checks clean\n",
        s.seeds,
        if s.seeds == 1 { "" } else { "s" },
        s.outputs.join(", ")
    ));
    for d in devices {
        out.push_str(&format!("validated on {d}\n"));
    }
    out
}

fn to_json(args: &Args, v: &StagedVariant, devices: &[String]) -> String {
    let value = json!({
        "kernel": v.kernel,
        "buffer": v.buffer,
        "staged": true,
        "tile": v.tile,
        "map": v.footprint.map,
        "footprint": v.footprint,
        "local_bytes": v.local_bytes,
        "chosen_local_size": v.chosen_local_size,
        "validation": v.validation,
        "validated_on": devices,
        "output": args.output.as_ref().map(|p| p.display().to_string()),
        "diff": v.diff,
    });
    serde_json::to_string_pretty(&value).unwrap_or_default()
}

/// OUT.toml and OUT.cl: the staged workload, its includes still found beside the original.
fn write_staged(out: &Path, v: &StagedVariant) -> Result<(), CliError> {
    let source_path = out.with_extension("cl");
    let base = out.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    std::fs::create_dir_all(base)
        .map_err(|e| CliError::Environment(format!("cannot create {}: {e}", base.display())))?;
    let mut workload = v.workload.clone();
    let original_dir = workload.source_path.parent().map(Path::to_path_buf);
    if let Some(dir) = original_dir.filter(|_| workload.source.contains("#include")) {
        let dir = std::fs::canonicalize(&dir).unwrap_or(dir);
        workload.options = format!("{} -I{}", workload.options, dir.display()).trim().to_string();
    }
    workload.source_path = source_path.clone();
    std::fs::write(&source_path, &v.source).map_err(|e| {
        CliError::Environment(format!("cannot write {}: {e}", source_path.display()))
    })?;
    std::fs::write(out, workload.to_toml(base))
        .map_err(|e| CliError::Environment(format!("cannot write {}: {e}", out.display())))
}
