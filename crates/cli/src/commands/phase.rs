//! `clmap phase`: Search LLVM pass orders that make a kernel fastest on an NVIDIA GPU.

use crate::exit::{CliError, Status};

/// Search LLVM pass orders that make a kernel fastest on an NVIDIA GPU.
#[derive(clap::Args, Debug)]
pub struct Args {}

pub fn run(_args: Args) -> Result<Status, CliError> {
    Err(CliError::BadInput("`clmap phase` is not available in this build yet".into()))
}
