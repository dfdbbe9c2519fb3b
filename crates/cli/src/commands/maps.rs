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
}

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
    }
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
