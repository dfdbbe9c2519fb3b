//! `clmap ir`: the typed intermediate representation, for people.

use crate::exit::{CliError, Status};
use crate::source_args::SourceArgs;

/// Dump the typed intermediate representation (IR) of a file.
///
/// The dump lists the types, the program-scope constants and, per function, its variables and a
/// statement tree whose expressions are numbered, typed and located.
///
/// Every analysis and rewrite in clmap works on this form; the dump shows exactly which
/// conversions and loads the front end made explicit.
///
/// Example: clmap ir reduce.cl --no-locations
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub source: SourceArgs,
    /// Leave out the `@line:col` source positions.
    #[arg(long)]
    pub no_locations: bool,
}

pub fn run(args: Args) -> Result<Status, CliError> {
    args.source.refuse_workload("ir")?;
    match args.source.compile() {
        Ok(compiled) => {
            eprint!("{}", compiled.warnings.render(&compiled.sources));
            let sources = if args.no_locations { None } else { Some(&compiled.sources) };
            print!("{}", clmap_lang::dump::dump_module(&compiled.module, sources));
            Ok(Status::Success)
        }
        Err(failure) => {
            eprint!("{}", failure.render());
            Ok(Status::BadInput)
        }
    }
}
