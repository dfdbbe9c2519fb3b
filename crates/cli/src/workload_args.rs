//! Loading the workload a command runs, with errors that point into the file.

use crate::exit::CliError;
use clmap_workload::Workload;
use std::path::Path;

/// Loads a `.toml` workload or an Oclgrind `.sim` file.
pub fn load(path: &Path) -> Result<Workload, CliError> {
    Workload::load(path).map_err(|e| CliError::BadInput(e.to_string()))
}
