//! `clmap maps`: Aristotle's memory access patterns (MAPs): list them, generate microbenchmarks.

use crate::exit::{CliError, Status};

/// Aristotle's memory access patterns (MAPs): list them, generate microbenchmarks.
#[derive(clap::Args, Debug)]
pub struct Args {}

pub fn run(_args: Args) -> Result<Status, CliError> {
    Err(CliError::BadInput("`clmap maps` is not available in this build yet".into()))
}
