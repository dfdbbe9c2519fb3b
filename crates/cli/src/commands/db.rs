//! `clmap db`: The performance database: import, query, plot, export.

use crate::exit::{CliError, Status};
use crate::perf_db::{db_error, print_rule_score, select_devices, DatabaseArg};
use clmap_aristotle::query::{self, MapTable};
use std::path::PathBuf;

/// The performance database: import, query, plot, export.
///
/// Every measurement clmap makes on a device lands in one SQLite file (`--db`, default
/// $CLMAP_DB or clmap.db). `clmap db devices` lists who measured; `clmap db maps` shows the
/// Aristotle record (b, B, mbr) per MAP and dataset; `clmap db export` writes any table as CSV
/// or JSON; `clmap db import-aristotle` loads the 2014 database as seven historical platforms;
/// `clmap db compose` scores the composing rules on the stored composer measurements.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    pub command: DbCommand,
}

#[derive(clap::Subcommand, Debug)]
pub enum DbCommand {
    ImportAristotle(ImportArgs),
    Devices(DevicesArgs),
    Export(ExportArgs),
    Maps(MapsArgs),
    Compose(ComposeArgs),
    Merge(MergeArgs),
}

/// Merge databases (the shards of a campaign) into a new one, without duplicates.
///
/// Devices, phase-search contexts and every other keyed row are matched by what identifies
/// them, not by their ids, so a device numbered differently in two shards becomes one; a row
/// already present is a duplicate when it agrees and a conflict (the first database's row is
/// kept) when it does not.
///
/// Example: clmap db merge shard-0.db shard-1.db -o campaign.db
#[derive(clap::Args, Debug)]
pub struct MergeArgs {
    /// The databases, merged in this order.
    #[arg(required = true, num_args = 1..)]
    pub inputs: Vec<PathBuf>,
    /// The merged database (must not exist yet).
    #[arg(long, short)]
    pub out: PathBuf,
    /// Print what was merged as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Load the 2014 Aristotle database (CSV) as historical platforms; importing twice is harmless.
#[derive(clap::Args, Debug)]
pub struct ImportArgs {
    /// The CSV file (columns platform,map,n,b_mean,b_std,B_mean,B_std,mbr_mean[,mbr_file]).
    pub path: PathBuf,
    #[command(flatten)]
    pub db: DatabaseArg,
    /// Print what was imported as JSON.
    #[arg(long)]
    pub json: bool,
}

/// List the devices the database knows.
#[derive(clap::Args, Debug)]
pub struct DevicesArgs {
    #[command(flatten)]
    pub db: DatabaseArg,
    /// Print the devices as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Write a table as CSV (default) or JSON.
#[derive(clap::Args, Debug)]
pub struct ExportArgs {
    /// The table, e.g. aristotle_units, aristotle_samples, aristotle_history, devices.
    #[arg(long)]
    pub table: String,
    #[arg(long, conflicts_with = "json")]
    pub csv: bool,
    /// Write JSON instead of CSV.
    #[arg(long)]
    pub json: bool,
    /// Output file (default: standard output).
    #[arg(long)]
    pub out: Option<PathBuf>,
    #[command(flatten)]
    pub db: DatabaseArg,
}

/// The b, B, mbr table per MAP and dataset of a device, and its gain/loss/similar distribution.
///
/// b is the mean bandwidth without local memory, B with it (the `--local-variant`, by default
/// the max-approach), mbr = B / b. A MAP gains at a dataset when mbr > 1 + δ, loses when
/// mbr < 1 − δ, and is similar otherwise (Table 5 of the Aristotle paper, δ = 0.05).
///
/// Example: clmap db maps --device cpu --plot plots/
#[derive(clap::Args, Debug)]
pub struct MapsArgs {
    /// The device: a database id (`#3`), a kind (`cpu`, `gpu`, `historical`) or part of its
    /// name or platform (`k20m`, `pthread`). Several may match; each gets its table.
    #[arg(long, short, default_value = "")]
    pub device: String,
    /// The local-memory variant whose bandwidth is B.
    #[arg(long, default_value = query::DEFAULT_LOCAL_VARIANT)]
    pub local_variant: String,
    /// The similarity threshold δ.
    #[arg(long, default_value_t = query::DEFAULT_DELTA)]
    pub delta: f64,
    /// Write an mbr heatmap per device and a comparison across all devices (SVG and PNG).
    #[arg(long)]
    pub plot: Option<PathBuf>,
    #[command(flatten)]
    pub db: DatabaseArg,
    /// Print the tables and distributions as JSON.
    #[arg(long)]
    pub json: bool,
}

/// The composing rules' prediction accuracy per dataset (Table 6 of the Aristotle paper), from
/// the composer measurements a device already has in the database: no device is needed.
///
/// `clmap bench compose` measures kernels with two data structures in versions v0 (no local
/// memory), v1 (local memory on the first) and v2 (on both). Step v0 → v1 tests the rules'
/// prediction for the first MAP and v1 → v2 the one for the second, each prediction taken from
/// the same device's single-MAP records; a step fails when a structure predicted to gain
/// slows the kernel, or one predicted not to gain speeds it up, by more than δ.
///
/// Example: clmap db compose --device gpu --db campaign.db
#[derive(clap::Args, Debug)]
pub struct ComposeArgs {
    /// The device, as for `clmap db maps`; an empty selector means every device with composer
    /// measurements.
    #[arg(long, short, default_value = "")]
    pub device: String,
    /// The similarity threshold δ.
    #[arg(long, default_value_t = query::DEFAULT_DELTA)]
    pub delta: f64,
    #[command(flatten)]
    pub db: DatabaseArg,
    /// Print the scores as JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args) -> Result<Status, CliError> {
    match args.command {
        DbCommand::ImportAristotle(a) => import(a),
        DbCommand::Devices(a) => devices(a),
        DbCommand::Export(a) => export(a),
        DbCommand::Maps(a) => maps(a),
        DbCommand::Compose(a) => compose(a),
        DbCommand::Merge(a) => merge(a),
    }
}

fn merge(args: MergeArgs) -> Result<Status, CliError> {
    if args.out.exists() {
        return Err(CliError::BadInput(format!(
            "{} exists already: merge into a new file",
            args.out.display()
        )));
    }
    for input in &args.inputs {
        if !input.is_file() {
            return Err(CliError::BadInput(format!("{} is not a file", input.display())));
        }
    }
    let mut db = clmap_db::Database::open(&args.out).map_err(db_error)?;
    let mut report = Vec::new();
    for input in &args.inputs {
        let summary = db.merge_from(input).map_err(db_error)?;
        let tables: serde_json::Map<String, serde_json::Value> = summary
            .tables
            .iter()
            .map(|(name, t)| {
                let counts = serde_json::json!({
                    "inserted": t.inserted, "duplicates": t.duplicates, "conflicts": t.conflicts
                });
                (name.clone(), counts)
            })
            .collect();
        if !args.json {
            let inserted: u64 = summary.tables.values().map(|t| t.inserted).sum();
            let duplicates: u64 = summary.tables.values().map(|t| t.duplicates).sum();
            let conflicts: u64 = summary.tables.values().map(|t| t.conflicts).sum();
            println!(
                "{}: {inserted} rows added, {duplicates} already there, {conflicts} conflicting \
                 (kept the earlier)",
                input.display()
            );
            for (name, t) in summary.tables.iter().filter(|(_, t)| t.conflicts > 0) {
                println!("  {name}: {} conflicting rows", t.conflicts);
            }
        }
        report.push(serde_json::json!({ "input": input.display().to_string(), "tables": tables }));
    }
    if args.json {
        println!("{:#}", serde_json::Value::Array(report));
    } else {
        println!("merged into {}", args.out.display());
    }
    Ok(Status::Success)
}

fn import(args: ImportArgs) -> Result<Status, CliError> {
    let text = std::fs::read_to_string(&args.path)
        .map_err(|e| CliError::BadInput(format!("cannot read {}: {e}", args.path.display())))?;
    let records = clmap_aristotle::history::parse(&text)
        .map_err(|e| CliError::BadInput(format!("{}: {e}", args.path.display())))?;
    let mut db = args.db.open()?;
    let summary = clmap_aristotle::history::import(&mut db, &records).map_err(db_error)?;
    if args.json {
        println!("{:#}", serde_json::to_value(&summary).unwrap_or_default());
    } else {
        println!(
            "{} records of {} platforms ({}); {} new",
            summary.records,
            summary.platforms.len(),
            summary.platforms.join(", "),
            summary.inserted
        );
    }
    Ok(Status::Success)
}

fn devices(args: DevicesArgs) -> Result<Status, CliError> {
    let db = args.db.open()?;
    let devices = db.devices().map_err(db_error)?;
    if args.json {
        println!("{:#}", serde_json::to_value(&devices).unwrap_or_default());
        return Ok(Status::Success);
    }
    if devices.is_empty() {
        println!("the database has no devices yet");
    }
    for d in &devices {
        println!(
            "#{:<3} {:<10} {}  [{}; driver {}]",
            d.id, d.identity.kind, d.identity.name, d.identity.platform, d.identity.driver
        );
    }
    Ok(Status::Success)
}

fn export(args: ExportArgs) -> Result<Status, CliError> {
    let db = args.db.open()?;
    let mut buffer: Vec<u8> = Vec::new();
    let rows = if args.json {
        clmap_db::export_json(&db, &args.table, &mut buffer)
    } else {
        clmap_db::export_csv(&db, &args.table, &mut buffer)
    }
    .map_err(db_error)?;
    match &args.out {
        Some(path) => {
            std::fs::write(path, &buffer)
                .map_err(|e| CliError::BadInput(format!("cannot write {}: {e}", path.display())))?;
            eprintln!("{rows} rows of {} written to {}", args.table, path.display());
        }
        None => {
            use std::io::Write;
            let _ = std::io::stdout().write_all(&buffer);
        }
    }
    Ok(Status::Success)
}

fn maps(args: MapsArgs) -> Result<Status, CliError> {
    if !(args.delta >= 0.0 && args.delta < 1.0) {
        return Err(CliError::BadInput("--delta must be in [0, 1)".to_string()));
    }
    let db = args.db.open()?;
    let devices = select_devices(&db, &args.device)?;
    let mut tables = Vec::new();
    for d in &devices {
        let table = query::map_table(&db, d, &args.local_variant).map_err(db_error)?;
        if !table.records.is_empty() {
            tables.push(table);
        }
    }
    if let Some(dir) = &args.plot {
        // The comparison covers every device with records, the 2014 platforms included.
        let mut all = Vec::new();
        for d in db.devices().map_err(db_error)? {
            let t = query::map_table(&db, &d, &args.local_variant).map_err(db_error)?;
            if !t.records.is_empty() {
                all.push(t);
            }
        }
        let written = clmap_aristotle::plot::write_plots(dir, &tables, &all, args.delta)
            .map_err(|e| CliError::BadInput(e.to_string()))?;
        for path in written {
            eprintln!("wrote {}", path.display());
        }
    }
    if args.json {
        let out: Vec<serde_json::Value> = tables
            .iter()
            .map(|t| {
                serde_json::json!({
                    "device": t.device,
                    "local_variant": t.local_variant,
                    "delta": args.delta,
                    "records": t.records,
                    "distribution": t.distribution(args.delta),
                })
            })
            .collect();
        println!("{:#}", serde_json::Value::Array(out));
        return Ok(Status::Success);
    }
    if tables.is_empty() {
        println!("no device matching `{}` has both b and B recorded yet", args.device);
    }
    for t in &tables {
        print_table(t, args.delta);
    }
    for d in devices.iter().filter(|d| d.identity.kind != "historical") {
        if let Some(copy) = clmap_aristotle::bandwidth::latest(&db, d.id).map_err(db_error)? {
            println!(
                "{}: copy bandwidth {:.2} GB/s ({} bytes, {})",
                d.label(),
                copy.bandwidth_gbs,
                copy.bytes,
                copy.recorded
            );
        }
    }
    Ok(Status::Success)
}

fn print_table(t: &MapTable, delta: f64) {
    println!("{} (B = {} variant)", t.device, t.local_variant);
    println!(
        "{:>8} {:>6} {:>10} {:>8} {:>10} {:>8} {:>7}",
        "MAP", "N", "b GB/s", "±", "B GB/s", "±", "mbr"
    );
    for r in &t.records {
        println!(
            "{:>8} {:>6} {:>10.3} {:>8.3} {:>10.3} {:>8.3} {:>7.3}",
            format!("MAP-{}", r.map),
            r.dataset,
            r.b_mean,
            r.b_std,
            r.big_b_mean,
            r.big_b_std,
            r.mbr
        );
    }
    println!("gain/loss/similar at δ = {delta}:");
    println!("{:>6} {:>10} {:>10} {:>10}", "N", "gain", "loss", "similar");
    for row in t.distribution(delta) {
        let cell = |n: usize| format!("{n} ({}%)", row.percent(n));
        println!(
            "{:>6} {:>10} {:>10} {:>10}",
            row.dataset,
            cell(row.gain),
            cell(row.loss),
            cell(row.similar)
        );
    }
    println!();
}

fn compose(args: ComposeArgs) -> Result<Status, CliError> {
    use clmap_aristotle::compose_bench;
    if !(args.delta >= 0.0 && args.delta < 1.0) {
        return Err(CliError::BadInput("--delta must be in [0, 1)".to_string()));
    }
    let db = args.db.open()?;
    let mut reports = Vec::new();
    for d in select_devices(&db, &args.device)? {
        let score = compose_bench::score(&db, &d, args.delta).map_err(db_error)?;
        if score.measured_versions > 0 {
            reports.push((d, score));
        }
    }
    if reports.is_empty() {
        return Err(CliError::BadInput(format!(
            "no device{} has composer measurements in the database: run `clmap bench compose` \
             first",
            if args.device.trim().is_empty() {
                String::new()
            } else {
                format!(" matching `{}`", args.device)
            }
        )));
    }
    if args.json {
        let out: Vec<serde_json::Value> = reports
            .iter()
            .map(|(d, score)| {
                serde_json::json!({
                    "device": d.label(),
                    "device_id": d.id,
                    "pairs": score.pairs,
                    "measured_units": score.measured_versions,
                    "delta": args.delta,
                    "accuracy": score.accuracy,
                })
            })
            .collect();
        println!("{:#}", serde_json::Value::Array(out));
        return Ok(Status::Success);
    }
    for (d, score) in &reports {
        println!(
            "#{} {}: {} pairs, {} measured versions",
            d.id,
            d.label(),
            score.pairs,
            score.measured_versions
        );
        print_rule_score(args.delta, score);
    }
    Ok(Status::Success)
}
