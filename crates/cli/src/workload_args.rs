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

/// The environment variable that raises (or lowers) the limit on a workload's buffers.
pub const MAX_ALLOC_VAR: &str = "CLMAP_MAX_ALLOC";

/// Loading limits: the default, or the buffer limit `CLMAP_MAX_ALLOC` sets for every command.
pub fn load_options() -> Result<LoadOptions, CliError> {
    let mut options = LoadOptions::default();
    if let Some(text) = std::env::var_os(MAX_ALLOC_VAR) {
        let text = text.to_string_lossy();
        options.max_total_bytes = parse_bytes(&text).ok_or_else(|| {
            CliError::BadInput(format!(
                "{MAX_ALLOC_VAR}={text} is not a size: write bytes, optionally with K, M, G or T \
                 (powers of 1024), e.g. 16G"
            ))
        })?;
    }
    Ok(options)
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
