//! Loading the workload a command runs, with errors that point into the file.

use crate::exit::CliError;
use crate::run_report::exec_error;
use clmap_exec::{ExecError, PreparedWorkload};
use clmap_workload::{LoadOptions, Workload};
use std::path::Path;

/// Loads a workload for commands that only hand the source to an OpenCL runtime (`time`,
/// `phase`). Every launch's arguments are still checked against the kernels' parameters,
/// which needs the front end: an `int` buffer passed to a `float *` would otherwise time
/// garbage. A `.toml` whose source the front end cannot compile (a vendor extension the
/// runtime accepts) is loaded unchecked, with a warning; a `.sim` file cannot be, since only
/// the signatures say which arguments are buffers.
pub fn load(path: &Path) -> Result<Workload, CliError> {
    match clmap_exec::load_checked(path, &LoadOptions::default()) {
        Ok((workload, _)) => Ok(workload),
        Err(ExecError::Frontend { message }) if path.extension().is_some_and(|e| e == "toml") => {
            eprintln!(
                "warning: kernel arguments not checked: the front end cannot compile the \
                 source:\n{message}"
            );
            Workload::load(path).map_err(|e| CliError::BadInput(e.to_string()))
        }
        Err(other) => Err(exec_error(other)),
    }
}

/// Loads a workload and compiles its program once, for commands that simulate, analyse or
/// rewrite it.
pub fn prepare(path: &Path) -> Result<PreparedWorkload, CliError> {
    PreparedWorkload::load(path).map_err(exec_error)
}
