//! `clmap maps`: Aristotle's memory access patterns (MAPs): list them, show and generate their
//! microbenchmarks.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use clmap_aristotle::generate::{generate, BenchSpec, Microbenchmark, Variant, CAMPAIGN_DATASETS};
use clmap_aristotle::map::{map_by_id, valid_maps, Map, MapId, DEFAULT_BLOCK_RADIUS};
use clmap_aristotle::validate::validate_on_simulator;

use crate::exit::{CliError, Status};

/// Aristotle's memory access patterns (MAPs) and their microbenchmarks.
///
/// A MAP describes how the work-items of a 2-D work-group read a matrix: an eMAP (a 2x2 0/1
/// matrix mapping the work-item (ty, tx) to a base element (row, col)) plus an iMAP (what each
/// work-item reads around that base: one element, its row, its column, a (2R+1)^2 block, or
/// its four neighbours). Of the 80 combinations, 33 are valid; MAP-407 is iMAP 4 (Block) with
/// eMAP 07.
///
/// For each MAP, clmap generates kernels in four variants: `nolocal` (all reads from global
/// memory), `max` (the work-group's footprint staged in a __local tile sized from the group's
/// shape), `min` (a tile holding only the cells the group needs, e.g. a diagonal band), and
/// `padded` (the `max` tile with one extra cell per row against bank conflicts). Staging loads
/// the core of the tile first, then its halo.
#[derive(clap::Args, Debug)]
#[command(after_long_help = EXAMPLES)]
pub struct Args {
    #[command(subcommand)]
    pub command: MapsCommand,
}

const EXAMPLES: &str = "Examples:
  clmap maps list
  clmap maps show MAP-407 --work-group 8x8 --radius 1
  clmap maps generate --out bench/maps --maps 407,205 --sizes 128,1024
  clmap maps detect tests/corpus/mm_simple.toml
  clmap time bench/maps/map407_max_n1024.toml --device gpu --flush";

#[derive(clap::Subcommand, Debug)]
pub enum MapsCommand {
    /// List the 33 valid MAPs with their eMAP, iMAP and access pattern.
    List {
        /// Print JSON: id, name, eMAP number and matrix, iMAP, radius, description.
        #[arg(long)]
        json: bool,
    },
    /// Print the kernel of every variant of one MAP, with its local-memory cells.
    Show {
        /// The MAP: 407 or MAP-407.
        map: String,
        #[command(flatten)]
        shape: Shape,
        /// Side N of the N x N dataset the kernels are specialised for.
        #[arg(long, default_value_t = 128)]
        size: usize,
        /// Only these variants (comma-separated: nolocal, max, min, padded).
        #[arg(long, value_delimiter = ',')]
        variants: Vec<Variant>,
    },
    /// Write kernels (.cl) and workloads (.toml) that `clmap run` and `clmap time` accept.
    ///
    /// One pair of files per MAP, variant and dataset: DIR/map407_max_n1024.{cl,toml}, plus
    /// DIR/manifest.json listing each with the bytes it moves (the numerator of the
    /// bandwidth: work-items x elements read per item x 4 bytes) and its local-memory cells.
    Generate {
        /// Directory to write into (created if missing).
        #[arg(long)]
        out: PathBuf,
        /// MAPs to generate: `all`, or a comma-separated list like 407,205 or MAP-407.
        #[arg(long, default_value = "all")]
        maps: String,
        /// Dataset sides N (each dataset is N x N; the campaign uses 128 to 4096).
        #[arg(long, value_delimiter = ',', default_values_t = CAMPAIGN_DATASETS.to_vec())]
        sizes: Vec<usize>,
        /// Variants (comma-separated: nolocal, max, min, padded); all four by default.
        #[arg(long, value_delimiter = ',')]
        variants: Vec<Variant>,
        #[command(flatten)]
        shape: Shape,
        /// Run every local-memory variant on the simulator first and compare it with `nolocal`
        /// (slow for large sizes: use it with small ones).
        #[arg(long)]
        validate: bool,
    },
    /// Identify the MAP of every __global buffer each kernel of a workload reads.
    ///
    /// Each read's index is followed through variables, helper functions and macros to an
    /// affine form in get_global_id/get_local_id/get_group_id and loop counters, with the
    /// workload's sizes and scalar arguments; the elements it gives each work-item of two
    /// work-groups are classified as an eMAP (how the base moves with (ty, tx)) and an iMAP
    /// (one element, a whole row or column, a (2R+1)^2 block, the 5-point cross). The
    /// simulator then runs those work-groups and must read exactly the predicted elements.
    /// Buffers staged in __local memory are judged by what the work-items read through the
    /// tile, followed back to global memory on the simulator. Reads that fit no MAP
    /// (data-dependent, not affine, shapes no iMAP describes) are reported with the reason.
    #[command(after_long_help = DETECT_EXAMPLES)]
    Detect {
        /// A workload (.toml or Oclgrind .sim).
        workload: PathBuf,
        /// Print JSON: a list of {kernel, buffer, map, emap, imap, radius, line, checked,
        /// staged, reason}.
        #[arg(long)]
        json: bool,
    },
}

const DETECT_EXAMPLES: &str = "Examples:
  clmap maps detect tests/corpus/mm_simple.toml
      simpleMultiply: A is MAP-204 (a row chosen by tx), B is MAP-303 (a column chosen by ty)
  clmap maps detect tests/corpus/jacobi2d.toml --json
  clmap maps generate --out /tmp/maps --maps 407 --sizes 32 --work-group 8x8 --radius 1
  clmap maps detect /tmp/maps/map407_min_n32.toml      # staged: the reads through the tile

Exit status: 0 when every buffer has a MAP, 1 when some read fits none or the simulator
disagrees with the prediction.";

/// Work-group and radius options shared by `show` and `generate`.
#[derive(clap::Args, Debug)]
pub struct Shape {
    /// Work-group size as XxY.
    #[arg(long, default_value = "16x16", value_parser = clmap_aristotle::parse_work_group)]
    pub work_group: [usize; 2],
    /// Block radius R of the Block MAPs (4xx): each work-item reads a (2R+1)^2 block.
    #[arg(long, default_value_t = DEFAULT_BLOCK_RADIUS)]
    pub radius: u32,
}

pub fn run(args: Args) -> Result<Status, CliError> {
    match args.command {
        MapsCommand::List { json } => list(json),
        MapsCommand::Show { map, shape, size, variants } => show(&map, &shape, size, &variants),
        MapsCommand::Generate { out, maps, sizes, variants, shape, validate } => {
            generate_files(&out, &maps, &sizes, &variants, &shape, validate)
        }
        MapsCommand::Detect { workload, json } => detect_maps(&workload, json),
    }
}

fn detect_maps(path: &Path, json: bool) -> Result<Status, CliError> {
    use clmap_aristotle::detect::{detect, source_line, Check, Outcome};
    let prepared = crate::workload_args::prepare(path)?;
    let detections = detect(prepared.module(), prepared.workload(), prepared.sources());
    let all_found = detections.iter().all(|d| matches!(d.outcome, Outcome::Map { .. }));
    let line_of = |d: &clmap_aristotle::detect::Detection| source_line(prepared.sources(), d.span);
    if json {
        let entries: Vec<serde_json::Value> = detections
            .iter()
            .map(|d| {
                let line = line_of(d).map(|(file, line, text)| {
                    serde_json::json!({ "file": file, "line": line, "text": text })
                });
                let mut entry = serde_json::json!({
                    "kernel": d.kernel,
                    "buffer": d.buffer,
                    "line": line,
                });
                match &d.outcome {
                    Outcome::Map { map, staged, check } => {
                        entry["map"] = map.name().into();
                        entry["emap"] = map.emap.number().into();
                        entry["emap_matrix"] = serde_json::json!(map.emap.matrix());
                        entry["imap"] = map.imap.name().into();
                        entry["radius"] = map.radius.into();
                        entry["staged"] = (*staged).into();
                        entry["checked"] = match check {
                            Check::Agree { groups } => serde_json::json!({ "work_groups": groups }),
                            Check::NotRun(reason) => serde_json::json!({ "not_run": reason }),
                        };
                    }
                    Outcome::Refused { reason } => {
                        entry["map"] = serde_json::Value::Null;
                        entry["reason"] = reason.clone().into();
                    }
                    Outcome::Mismatch { map, predicted, observed, item } => {
                        entry["map"] = serde_json::Value::Null;
                        entry["reason"] = format!(
                            "predicted {} but the simulator disagrees at work-item (ty, tx) = ({}, {}): predicted {predicted}, read {observed}",
                            map.name(), item[0], item[1]
                        ).into();
                    }
                }
                entry
            })
            .collect();
        let text = serde_json::to_string_pretty(&entries)
            .map_err(|e| CliError::BadInput(format!("cannot encode detections as JSON: {e}")))?;
        println!("{text}");
    } else {
        let mut kernel = None;
        for d in &detections {
            if kernel != Some(&d.kernel) {
                println!("kernel {}", d.kernel);
                kernel = Some(&d.kernel);
            }
            let at = line_of(d)
                .map(|(file, line, text)| format!("{file}:{line}: {text}"))
                .unwrap_or_else(|| "(no source line)".to_string());
            match &d.outcome {
                Outcome::Map { map, staged, check } => {
                    let radius = if map.imap == clmap_aristotle::IMapKind::Block {
                        format!(", R = {}", map.radius)
                    } else {
                        String::new()
                    };
                    println!("  {}: {} — {}", d.buffer, map.name(), map.description());
                    println!(
                        "    {} base {}, iMAP {}{radius}",
                        map.emap,
                        map.emap.formula(),
                        map.imap
                    );
                    if *staged {
                        println!("    staged in __local: the MAP of the reads through the tile");
                    }
                    println!("    {at}");
                    match check {
                        Check::Agree { groups } => {
                            println!("    checked on the simulator: {groups} work-groups agree")
                        }
                        Check::NotRun(reason) => {
                            println!("    not checked on the simulator: {reason}")
                        }
                    }
                }
                Outcome::Refused { reason } => {
                    println!("  {}: no MAP — {reason}", d.buffer);
                    println!("    {at}");
                }
                Outcome::Mismatch { map, predicted, observed, item } => {
                    println!(
                        "  {}: detection failed — the index forms give {} but the simulator disagrees",
                        d.buffer,
                        map.name()
                    );
                    println!(
                        "    work-item (ty, tx) = ({}, {}): predicted {predicted}",
                        item[0], item[1]
                    );
                    println!("    read on the simulator: {observed}");
                    println!("    {at}");
                }
            }
        }
        if detections.is_empty() {
            println!("no kernel of the workload reads a __global buffer");
        }
    }
    Ok(if all_found { Status::Success } else { Status::BadInput })
}

fn list(json: bool) -> Result<Status, CliError> {
    let maps = valid_maps();
    if json {
        let entries: Vec<serde_json::Value> = maps
            .iter()
            .map(|m| {
                serde_json::json!({
                    "id": m.id().0,
                    "name": m.name(),
                    "emap": m.emap.number(),
                    "emap_matrix": m.emap.matrix(),
                    "imap": m.imap.name(),
                    "radius": m.radius,
                    "description": m.description(),
                })
            })
            .collect();
        let text = serde_json::to_string_pretty(&entries)
            .map_err(|e| CliError::BadInput(format!("cannot encode MAPs as JSON: {e}")))?;
        emit(&format!("{text}\n"));
        return Ok(Status::Success);
    }
    let mut text =
        format!("{:<8}  {:<22}  {:<9}  access pattern\n", "MAP", "eMAP (row, col)", "iMAP");
    for m in &maps {
        let [[a, b], [c, d]] = m.emap.matrix();
        let emap = format!("{:02} [{a}{b};{c}{d}] {}", m.emap.number(), m.emap.formula());
        text.push_str(&format!(
            "{:<8}  {:<22}  {:<9}  {}\n",
            m.name(),
            emap,
            m.imap.name(),
            m.description()
        ));
    }
    text.push_str(&format!(
        "\n{} valid MAPs; Block MAPs use R = {DEFAULT_BLOCK_RADIUS} unless --radius says otherwise.\n",
        maps.len()
    ));
    emit(&text);
    Ok(Status::Success)
}

/// The MAP a user named, with the radius applied to Block MAPs.
fn resolve_map(text: &str, radius: u32) -> Result<Map, CliError> {
    let id: MapId = text.parse().map_err(|e| CliError::BadInput(format!("{e}")))?;
    let map = map_by_id(id).ok_or_else(|| {
        CliError::BadInput(format!(
            "{id} is not one of the 33 valid MAPs (its eMAP and iMAP contradict or leave the \
             pattern underspecified); `clmap maps list` shows them"
        ))
    })?;
    if map.imap == clmap_aristotle::map::IMapKind::Block && radius != map.radius {
        return map.with_radius(radius).map_err(CliError::BadInput);
    }
    Ok(map)
}

fn parse_maps(text: &str, radius: u32) -> Result<Vec<Map>, CliError> {
    if text.trim().eq_ignore_ascii_case("all") {
        return valid_maps()
            .into_iter()
            .map(|m| resolve_map(&m.id().0.to_string(), radius))
            .collect();
    }
    text.split(',').filter(|s| !s.trim().is_empty()).map(|s| resolve_map(s, radius)).collect()
}

fn chosen_variants(variants: &[Variant]) -> Vec<Variant> {
    if variants.is_empty() {
        Variant::ALL.to_vec()
    } else {
        variants.to_vec()
    }
}

fn build(
    map: Map,
    variant: Variant,
    dataset: usize,
    shape: &Shape,
) -> Result<Microbenchmark, CliError> {
    generate(&BenchSpec { map, variant, dataset, work_group: shape.work_group })
        .map_err(|e| CliError::BadInput(e.to_string()))
}

fn show(text: &str, shape: &Shape, size: usize, variants: &[Variant]) -> Result<Status, CliError> {
    let map = resolve_map(text, shape.radius)?;
    let radius = if map.radius > 0 { format!(", R = {}", map.radius) } else { String::new() };
    let mut out =
        format!("{}: {}\n{}, iMAP {}{radius}\n", map.name(), map.description(), map.emap, map.imap);
    for variant in chosen_variants(variants) {
        let bench = build(map, variant, size, shape)?;
        out.push_str(&format!(
            "\n// ---- {variant}: {} local cells ({} bytes) per {}x{} work-group, {} bytes read per launch\n",
            bench.local_cells,
            bench.local_cells * 4,
            shape.work_group[0],
            shape.work_group[1],
            bench.bytes_moved
        ));
        out.push_str(&bench.source);
    }
    emit(&out);
    Ok(Status::Success)
}

fn generate_files(
    out: &Path,
    maps: &str,
    sizes: &[usize],
    variants: &[Variant],
    shape: &Shape,
    validate: bool,
) -> Result<Status, CliError> {
    let maps = parse_maps(maps, shape.radius)?;
    let variants = chosen_variants(variants);
    std::fs::create_dir_all(out)
        .map_err(|e| CliError::BadInput(format!("cannot create {}: {e}", out.display())))?;
    let mut manifest = Vec::new();
    for map in &maps {
        for &size in sizes {
            let reference =
                if validate { Some(build(*map, Variant::NoLocal, size, shape)?) } else { None };
            for &variant in &variants {
                let mut bench = build(*map, variant, size, shape)?;
                if let (Some(reference), true) = (&reference, variant.uses_local_memory()) {
                    if let Err(e) = validate_on_simulator(&bench, reference) {
                        eprintln!("error: {} {variant} at {size}: {e}", map.name());
                        return Ok(Status::KernelFault);
                    }
                }
                let stem = format!("{}_n{size}", bench.kernel_name);
                let source_path = out.join(format!("{stem}.cl"));
                let workload_path = out.join(format!("{stem}.toml"));
                bench.workload.source_path = source_path.clone();
                write(&source_path, &bench.source)?;
                write(&workload_path, &bench.workload.to_toml(out))?;
                manifest.push(serde_json::json!({
                    "map": map.name(),
                    "variant": variant.as_str(),
                    "dataset": size,
                    "work_group": shape.work_group,
                    "radius": map.radius,
                    "kernel": bench.kernel_name,
                    "source": format!("{stem}.cl"),
                    "workload": format!("{stem}.toml"),
                    "bytes_moved": bench.bytes_moved,
                    "local_cells": bench.local_cells,
                }));
            }
        }
    }
    let text = serde_json::to_string_pretty(&manifest)
        .map_err(|e| CliError::BadInput(format!("cannot encode the manifest: {e}")))?;
    write(&out.join("manifest.json"), &text)?;
    println!(
        "wrote {} microbenchmarks ({} MAPs, {} sizes, {} variants) to {}",
        manifest.len(),
        maps.len(),
        sizes.len(),
        variants.len(),
        out.display()
    );
    Ok(Status::Success)
}

fn write(path: &Path, text: &str) -> Result<(), CliError> {
    std::fs::write(path, text)
        .map_err(|e| CliError::BadInput(format!("cannot write {}: {e}", path.display())))
}

/// Writes to standard output; a closed pipe (`clmap maps list | head`) ends the output
/// quietly instead of aborting.
fn emit(text: &str) {
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(text.as_bytes()).and_then(|()| stdout.flush());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn work_group_option_parses_or_explains() {
        #[derive(clap::Parser, Debug)]
        struct Command {
            #[command(flatten)]
            shape: Shape,
        }
        use clap::Parser as _;
        let parse = |wg: &str| Command::try_parse_from(["maps", "--work-group", wg]);
        assert_eq!(parse("8X4").expect("valid").shape.work_group, [8, 4]);
        assert_eq!(Command::try_parse_from(["maps"]).expect("default").shape.work_group, [16, 16]);
        for bad in ["16", "ax16", "0x16"] {
            let message = parse(bad).expect_err(bad).to_string();
            assert!(message.contains(&format!("`{bad}`")), "{message}");
        }
    }

    #[test]
    fn map_lists_resolve_with_the_radius_on_block_maps_only() {
        let maps = parse_maps("407, MAP-205", 1).unwrap();
        assert_eq!(maps.iter().map(|m| m.id().0).collect::<Vec<_>>(), [407, 205]);
        assert_eq!((maps[0].radius, maps[1].radius), (1, 0));
        assert_eq!(parse_maps("all", 3).unwrap().len(), 33);
        assert!(parse_maps("101", 3).is_err());
        assert!(parse_maps("407", 99).is_err());
    }

    #[test]
    fn generated_files_load_as_workloads_and_run() {
        let dir = std::env::temp_dir().join(format!("clmap-maps-test-{}", std::process::id()));
        let shape = Shape { work_group: [8, 8], radius: 1 };
        let status = generate_files(
            &dir,
            "407,302",
            &[16],
            &[Variant::NoLocal, Variant::LocalMin],
            &shape,
            true,
        )
        .unwrap();
        assert_eq!(status, Status::Success);
        let manifest: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("manifest.json")).unwrap())
                .unwrap();
        assert_eq!(manifest.as_array().map(Vec::len), Some(4));
        let prepared =
            clmap_exec::PreparedWorkload::load(&dir.join("map407_min_n16.toml")).unwrap();
        assert_eq!(prepared.workload().bytes_moved, Some(16 * 16 * 9 * 4));
        let target = clmap_exec::Target::Simulator(clmap_sim::SimOptions::default());
        let run = clmap_exec::run_on(&target, &prepared, 0).unwrap();
        assert!(run.reports.is_empty());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
