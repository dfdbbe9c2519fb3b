//! The performance database as the commands around it use it: `bench` measures into it, `db`
//! and `advise` read it. What they share lives here, so that no command module needs another.

use crate::exit::CliError;
use clmap_aristotle::compose_bench::RuleScore;
use clmap_db::{Database, DeviceRecord};
use std::path::PathBuf;

/// The `--db` option of every command that reads or writes the performance database.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct DatabaseArg {
    /// The database file (default: $CLMAP_DB, else clmap.db); created when missing.
    // The id keeps the option apart from commands' own `path` arguments.
    #[arg(long = "db", id = "db", value_name = "FILE")]
    pub file: Option<PathBuf>,
}

impl DatabaseArg {
    /// Opens the database, creating it and Aristotle's tables when they are missing.
    pub fn open(&self) -> Result<Database, CliError> {
        let path = self.file.clone().unwrap_or_else(clmap_db::default_path);
        let db = Database::open(&path).map_err(db_error)?;
        clmap_aristotle::store::ensure_schema(&db).map_err(db_error)?;
        Ok(db)
    }
}

/// A database failure as the commands report it.
pub fn db_error(e: impl std::fmt::Display) -> CliError {
    CliError::BadInput(e.to_string())
}

/// The devices `selector` names: a database id (`#3`), a kind or part of a name or platform;
/// an empty selector means all. Naming none is an error that lists the devices there are; like
/// a device missing from the machine, it exits 3 (the database lacks it, the input is fine).
pub fn select_devices(db: &Database, selector: &str) -> Result<Vec<DeviceRecord>, CliError> {
    let found = if selector.trim().is_empty() { db.devices() } else { db.find_devices(selector) }
        .map_err(db_error)?;
    if found.is_empty() {
        let known = db.devices().map_err(db_error)?;
        let list: Vec<String> = known.iter().map(|d| format!("#{} {}", d.id, d.label())).collect();
        return Err(CliError::Environment(format!(
            "no device in the database matches `{selector}`; it knows: {}",
            if list.is_empty() {
                "none (run `clmap bench maps` first)".into()
            } else {
                list.join(", ")
            }
        )));
    }
    Ok(found)
}

/// The rules' score as `clmap bench compose` and `clmap db compose` print it.
pub fn print_rule_score(delta: f64, score: &RuleScore) {
    if !score.has_map_records {
        println!(
            "no single-MAP records on this device yet: run `clmap bench maps` to score the rules"
        );
    }
    println!("rule prediction accuracy (δ = {delta}):");
    println!("{:>6} {:>6} {:>9} {:>9}", "N", "tests", "correct", "accuracy");
    for row in &score.accuracy {
        println!(
            "{:>6} {:>6} {:>9} {:>8.1}%",
            row.dataset, row.tests, row.successes, row.accuracy_percent
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::{CommandFactory, Parser};

    #[test]
    fn every_command_declares_its_options_once() {
        // clap checks its definitions only when a command is parsed: check them all here.
        crate::Cli::command().debug_assert();
    }

    #[test]
    fn the_database_option_reads_beside_a_command_path() {
        let cli = crate::Cli::try_parse_from([
            "clmap",
            "db",
            "import-aristotle",
            "history.csv",
            "--db",
            "x.db",
        ])
        .expect("parses");
        let text = format!("{cli:?}");
        assert!(text.contains("\"history.csv\"") && text.contains("\"x.db\""), "{text}");
        let open = DatabaseArg { file: Some("/nonexistent/dir/x.db".into()) }.open();
        assert!(matches!(open, Err(CliError::BadInput(_))));
    }
}
