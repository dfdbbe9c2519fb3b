//! `clmap advise`: Advice on __local memory per data structure, from the composing rules and the database.

use crate::commands::bench::parse_maps;
use crate::exit::{CliError, Status};
use crate::perf_db::{select_devices, DatabaseArg};
use clmap_aristotle::query;
use clmap_aristotle::rules::{self, DataStructure};

/// Advice on __local memory per data structure, from the composing rules and the database.
///
/// Give the MAP of each data structure of a kernel (`--maps 205,302`) and its dataset side
/// (`--sizes 1024`, one for all or one per MAP). clmap looks up each MAP's measured ratio
/// mbr = B/b on the device, then applies Aristotle's composing rules: structures that do not
/// gain stay in global memory (rule 5.1); a single gainer uses local memory (5.2); several
/// gainers are taken in order of ω = D/ΣD × mbr while the device's local memory has room (5.3).
///
/// Example: clmap advise --device k20m --maps 205,302 --sizes 2048
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The device in the database: an id (`#3`), part of its name or platform.
    #[arg(long, short)]
    pub device: String,
    /// The MAP of each data structure, in kernel order (the same MAP may repeat).
    #[arg(long)]
    pub maps: String,
    /// Dataset side N per data structure (one value applies to all).
    #[arg(long, value_delimiter = ',', default_values_t = vec![1024usize])]
    pub sizes: Vec<usize>,
    /// Local memory each structure needs per work-group, in bytes (one value applies to all;
    /// default: a 16×16 tile with a radius-3 halo of floats, the campaign's largest).
    #[arg(long, value_delimiter = ',')]
    pub local_bytes: Vec<u64>,
    /// The device's local memory per work-group in bytes (default: as recorded for the device).
    #[arg(long)]
    pub local_capacity: Option<u64>,
    /// The local-memory variant whose bandwidth is B.
    #[arg(long, default_value = query::DEFAULT_LOCAL_VARIANT)]
    pub local_variant: String,
    /// The similarity threshold δ.
    #[arg(long, default_value_t = query::DEFAULT_DELTA)]
    pub delta: f64,
    #[command(flatten)]
    pub db: DatabaseArg,
    #[arg(long)]
    pub json: bool,
}

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
    let maps = maps_in_order(&args.maps)?;
    let sizes = per_structure(&args.sizes, maps.len(), "--sizes")?;
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
    let table = query::map_table(&db, device, &args.local_variant)
        .map_err(|e| CliError::BadInput(e.to_string()))?;
    let capacity = args
        .local_capacity
        .or_else(|| device.identity.details.get("local_mem_bytes").and_then(|v| v.as_u64()));
    let structures: Vec<DataStructure> = maps
        .iter()
        .zip(&sizes)
        .zip(&local)
        .enumerate()
        .map(|(i, ((&map, &dataset), &local_bytes))| DataStructure {
            name: format!("#{} MAP-{map}", i + 1),
            map,
            dataset,
            local_bytes,
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
