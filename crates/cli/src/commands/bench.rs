//! `clmap bench`: Microbenchmark campaigns on real devices, recorded in the performance database.

use crate::exit::{CliError, Status};

/// Microbenchmark campaigns on real devices, recorded in the performance database.
#[derive(clap::Args, Debug)]
pub struct Args {}

pub fn run(_args: Args) -> Result<Status, CliError> {
    Err(CliError::BadInput("`clmap bench` is not available in this build yet".into()))
}
