//! `clmap check`: does clmap understand this kernel?

use crate::exit::{CliError, Status};
use crate::report;
use crate::source_args::SourceArgs;
use serde_json::json;

/// Check an OpenCL C file: preprocess, parse and type-check it as OpenCL C 1.2.
///
/// Errors and warnings are printed compiler-style (file:line:col, the source line, a caret under
/// the culprit and a help line). Exit code 1 when there are errors.
///
/// Example: clmap check transpose.cl -D TILE=16 --kernel transpose
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub source: SourceArgs,
    /// Also require that this kernel exists in the file.
    #[arg(long, value_name = "NAME")]
    pub kernel: Option<String>,
    /// Print the result as JSON (diagnostics with file, line and column; the kernels found).
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args) -> Result<Status, CliError> {
    let name = args.source.file.display().to_string();
    args.source.refuse_workload("check")?;
    match args.source.compile() {
        Ok(compiled) => {
            let kernels: Vec<String> =
                compiled.module.kernels().map(|(_, f)| f.name.clone()).collect();
            let missing = args.kernel.as_ref().filter(|k| !kernels.contains(k));
            if args.json {
                let out = json!({
                    "file": name,
                    "ok": missing.is_none(),
                    "kernels": kernels,
                    "functions": compiled.module.functions.len(),
                    "diagnostics": report::diagnostics_json(&compiled.warnings, &compiled.sources),
                });
                println!("{out:#}");
            } else {
                eprint!("{}", compiled.warnings.render(&compiled.sources));
            }
            if let Some(kernel) = missing {
                if !args.json {
                    eprintln!(
                        "error: {name} has no kernel named '{kernel}' (kernels: {})",
                        if kernels.is_empty() { "none".to_string() } else { kernels.join(", ") }
                    );
                }
                return Ok(Status::BadInput);
            }
            if !args.json {
                let warnings = compiled.warnings.0.len();
                println!(
                    "{name}: ok, {} kernel{}{}{}",
                    kernels.len(),
                    if kernels.len() == 1 { "" } else { "s" },
                    if kernels.is_empty() {
                        String::new()
                    } else {
                        format!(" ({})", kernels.join(", "))
                    },
                    match warnings {
                        0 => String::new(),
                        1 => ", 1 warning".to_string(),
                        n => format!(", {n} warnings"),
                    }
                );
            }
            Ok(Status::Success)
        }
        Err(failure) => {
            if args.json {
                let out = json!({
                    "file": name,
                    "ok": false,
                    "diagnostics": report::diagnostics_json(&failure.diagnostics, &failure.sources),
                });
                println!("{out:#}");
            } else {
                eprint!("{}", failure.render());
                let errors = failure.diagnostics.0.iter().filter(|d| d.is_error()).count();
                eprintln!("{name}: {errors} error{}", if errors == 1 { "" } else { "s" });
            }
            Ok(Status::BadInput)
        }
    }
}
