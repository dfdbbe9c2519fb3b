//! Loading the workload a command runs, with errors that point into the file.

use crate::exit::CliError;
use crate::run_report::exec_error;
use clmap_exec::{ExecError, PreparedWorkload};
use clmap_sim::SimOptions;
use clmap_workload::{LoadOptions, Workload};
use std::path::Path;

/// Loads a workload for commands that only hand the source to an OpenCL runtime (`time`,
/// `phase`). Every launch's arguments are still checked against the kernels' parameters,
/// which needs the front end: an `int` buffer passed to a `float *` would otherwise time
/// garbage. A `.toml` whose source the front end cannot compile (a vendor extension the
/// runtime accepts) is loaded unchecked, with a warning; a `.sim` file cannot be, since only
/// the signatures say which arguments are buffers.
pub fn load(path: &Path) -> Result<Workload, CliError> {
    match clmap_exec::load_checked(path, &load_options()?) {
        Ok((workload, _)) => Ok(workload),
        Err(ExecError::Frontend { message }) if path.extension().is_some_and(|e| e == "toml") => {
            eprintln!(
                "warning: kernel arguments not checked: the front end cannot compile the \
                 source:\n{message}"
            );
            Workload::load_with(path, &load_options()?).map_err(|e| exec_error(e.into()))
        }
        Err(other) => Err(exec_error(other)),
    }
}

/// Loads a workload and compiles its program once, for commands that simulate, analyse or
/// rewrite it.
pub fn prepare(path: &Path) -> Result<PreparedWorkload, CliError> {
    PreparedWorkload::load_with(path, &load_options()?).map_err(exec_error)
}

/// Like [`prepare`], with build options added to the workload's own (a `.sim` file has none).
pub fn prepare_with_build_options(
    path: &Path,
    build_options: Option<String>,
) -> Result<PreparedWorkload, CliError> {
    let options = LoadOptions { build_options, ..load_options()? };
    PreparedWorkload::load_with(path, &options).map_err(exec_error)
}

/// The environment variable that raises (or lowers) the memory limits, as `--max-alloc` does.
pub const MAX_ALLOC_VAR: &str = "CLMAP_MAX_ALLOC";

/// The value of the global `--max-alloc` option, set once by `main` before any command runs.
static MAX_ALLOC_FLAG: std::sync::OnceLock<Option<u64>> = std::sync::OnceLock::new();

/// Records `--max-alloc` for every later load and simulation of this process.
pub fn set_max_alloc(bytes: Option<u64>) {
    let _ = MAX_ALLOC_FLAG.set(bytes);
}

/// The memory limit the user set: `--max-alloc`, else `CLMAP_MAX_ALLOC`, else none.
fn max_alloc() -> Result<Option<u64>, CliError> {
    if let Some(bytes) = MAX_ALLOC_FLAG.get().copied().flatten() {
        return Ok(Some(bytes));
    }
    let Some(text) = std::env::var_os(MAX_ALLOC_VAR) else { return Ok(None) };
    let text = text.to_string_lossy();
    parse_bytes(&text).map(Some).ok_or_else(|| {
        CliError::BadInput(format!(
            "{MAX_ALLOC_VAR}={text} is not a size: write bytes, optionally with K, M, G or T \
             (powers of 1024), e.g. 16G"
        ))
    })
}

/// Loading limits: the default, or the buffer limit `--max-alloc` (or `CLMAP_MAX_ALLOC`) sets
/// for every command.
pub fn load_options() -> Result<LoadOptions, CliError> {
    let mut options = LoadOptions::default();
    if let Some(bytes) = max_alloc()? {
        options.max_total_bytes = bytes;
    }
    Ok(options)
}

/// Simulator settings with the memory limit `--max-alloc` (or `CLMAP_MAX_ALLOC`) sets: the
/// most one work-group's registers, private and local memory may take.
pub fn sim_options(threads: usize) -> Result<SimOptions, CliError> {
    let mut options = SimOptions { threads, ..SimOptions::default() };
    if let Some(bytes) = max_alloc()? {
        options.max_memory_bytes = bytes;
    }
    Ok(options)
}

/// Reads a `--max-alloc` value.
pub fn parse_size(text: &str) -> Result<u64, String> {
    parse_bytes(text).ok_or_else(|| {
        format!("`{text}` is not a size: write bytes, optionally with K, M, G or T, e.g. 16G")
    })
}

/// `123`, `64K`, `16G`: bytes, with binary suffixes.
fn parse_bytes(text: &str) -> Option<u64> {
    let text = text.trim();
    let (digits, shift) = match text.char_indices().last()? {
        (i, 'k' | 'K') => (&text[..i], 10),
        (i, 'm' | 'M') => (&text[..i], 20),
        (i, 'g' | 'G') => (&text[..i], 30),
        (i, 't' | 'T') => (&text[..i], 40),
        _ => (text, 0),
    };
    digits.trim().parse::<u64>().ok()?.checked_mul(1u64 << shift)
}

#[cfg(test)]
mod tests {
    use super::parse_bytes;

    #[test]
    fn sizes_read_with_binary_suffixes_and_refuse_the_rest() {
        assert_eq!(parse_bytes("4096"), Some(4096));
        assert_eq!(parse_bytes("64K"), Some(64 << 10));
        assert_eq!(parse_bytes(" 16g "), Some(16 << 30));
        assert_eq!(parse_bytes("2T"), Some(2 << 40));
        assert_eq!(parse_bytes("1.5G"), None);
        assert_eq!(parse_bytes("G"), None);
        assert_eq!(parse_bytes(""), None);
        assert_eq!(parse_bytes("-1"), None);
        assert_eq!(parse_bytes("99999999999T"), None);
    }
}
