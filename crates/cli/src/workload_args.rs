//! Loading the workload a command runs, with errors that point into the file.

use crate::exit::CliError;
use crate::run_report::exec_error;
use clmap_exec::PreparedWorkload;
use clmap_workload::Workload;
use std::path::Path;

/// Loads a `.toml` workload or an Oclgrind `.sim` file without compiling its program, for
/// commands that only hand the source to an OpenCL runtime.
pub fn load(path: &Path) -> Result<Workload, CliError> {
    Workload::load(path).map_err(|e| CliError::BadInput(e.to_string()))
}

/// Loads a workload and compiles its program once, for commands that simulate, analyse or
/// rewrite it.
pub fn prepare(path: &Path) -> Result<PreparedWorkload, CliError> {
    PreparedWorkload::load(path).map_err(exec_error)
}
