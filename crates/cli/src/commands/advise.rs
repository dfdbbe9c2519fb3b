//! `clmap advise`: Advice on __local memory per data structure, from the composing rules and the database.

use crate::exit::{CliError, Status};

/// Advice on __local memory per data structure, from the composing rules and the database.
#[derive(clap::Args, Debug)]
pub struct Args {}

pub fn run(_args: Args) -> Result<Status, CliError> {
    Err(CliError::BadInput("`clmap advise` is not available in this build yet".into()))
}
