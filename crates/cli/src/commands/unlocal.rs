//! `clmap unlocal` (being written).

use crate::exit::{CliError, Status};

/// (being written)
#[derive(clap::Args, Debug)]
pub struct Args {
    pub input: std::path::PathBuf,
}

pub fn run(_args: Args) -> Result<Status, CliError> {
    Err(CliError::BadInput("clmap unlocal is not available in this build".to_string()))
}
