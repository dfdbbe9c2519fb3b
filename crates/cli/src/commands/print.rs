//! `clmap print`: the checked program written back as OpenCL C.

use crate::exit::{CliError, Status};
use crate::source_args::SourceArgs;

/// Print a file back as OpenCL C, the way clmap understood it.
///
/// Macros are expanded, implicit conversions resolved, one declaration per line. The output
/// compiles with any OpenCL C 1.2 compiler and computes the same thing as the input.
///
/// Example: clmap print matmul.cl -D N=256 > matmul.expanded.cl
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub source: SourceArgs,
}

pub fn run(args: Args) -> Result<Status, CliError> {
    args.source.refuse_workload("print")?;
    match args.source.compile() {
        Ok(compiled) => {
            eprint!("{}", compiled.warnings.render(&compiled.sources));
            print!("{}", clmap_lang::print::print_module(&compiled.module));
            Ok(Status::Success)
        }
        Err(failure) => {
            eprint!("{}", failure.render());
            Ok(Status::BadInput)
        }
    }
}
