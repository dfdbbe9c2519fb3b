//! `clmap db`: The performance database: import, query, plot, export.

use crate::exit::{CliError, Status};

/// The performance database: import, query, plot, export.
#[derive(clap::Args, Debug)]
pub struct Args {}

pub fn run(_args: Args) -> Result<Status, CliError> {
    Err(CliError::BadInput("`clmap db` is not available in this build yet".into()))
}
