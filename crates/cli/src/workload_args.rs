//! Loading the workload a command runs, with errors that point into the file.

use crate::exit::CliError;
use crate::run_report::exec_error;
use clmap_exec::PreparedWorkload;
use clmap_workload::{LoadOptions, Workload};
use std::path::Path;

/// Loads a `.toml` workload without compiling its program, for commands that only hand the
/// source to an OpenCL runtime. An Oclgrind `.sim` file does not say which arguments are
/// buffers, scalars or local memory, so it is read with the front end's signatures.
pub fn load(path: &Path) -> Result<Workload, CliError> {
    if path.extension().is_some_and(|e| e == "sim") {
        return clmap_exec::load_checked(path, &LoadOptions::default())
            .map(|(workload, _)| workload)
            .map_err(exec_error);
    }
    Workload::load(path).map_err(|e| CliError::BadInput(e.to_string()))
}

/// Loads a workload and compiles its program once, for commands that simulate, analyse or
/// rewrite it.
pub fn prepare(path: &Path) -> Result<PreparedWorkload, CliError> {
    PreparedWorkload::load(path).map_err(exec_error)
}
