//! The arguments every command that reads OpenCL C takes: a file and its build options.

use crate::exit::CliError;
use clmap_lang::frontend::{self, CompileFailure, Compiled};
use std::path::PathBuf;

/// A kernel source file and the options a host program would pass to `clBuildProgram`.
#[derive(clap::Args, Debug, Clone)]
pub struct SourceArgs {
    /// The OpenCL C file.
    pub file: PathBuf,
    /// Define a macro, as `-D NAME` or `-D NAME=VALUE` (repeatable).
    #[arg(short = 'D', value_name = "NAME[=VALUE]")]
    pub defines: Vec<String>,
    /// Add a directory to the `#include` search path (repeatable).
    #[arg(short = 'I', value_name = "DIR")]
    pub include_dirs: Vec<PathBuf>,
    /// Further build options, exactly as for clBuildProgram (e.g. "-cl-std=CL1.2 -DTILE=16").
    #[arg(long, value_name = "OPTIONS", default_value = "", allow_hyphen_values = true)]
    pub options: String,
}

impl SourceArgs {
    /// All options as one clBuildProgram string, `-D`/`-I` first.
    pub fn option_string(&self) -> String {
        let mut parts: Vec<String> = Vec::new();
        for d in &self.defines {
            parts.push(format!("-D{d}"));
        }
        for i in &self.include_dirs {
            parts.push(format!("-I{}", i.display()));
        }
        if !self.options.trim().is_empty() {
            parts.push(self.options.trim().to_string());
        }
        parts.join(" ")
    }

    pub fn compile(&self) -> Result<Compiled, CompileFailure> {
        frontend::compile_file(&self.file, &self.option_string())
    }

    /// These commands read OpenCL C; a workload given instead is refused with a sentence
    /// naming its kernel file and the command that takes the workload.
    pub fn refuse_workload(&self, command: &str) -> Result<(), CliError> {
        let path = &self.file;
        let Some(ext) = path.extension().and_then(|e| e.to_str()) else { return Ok(()) };
        if ext != "toml" && ext != "sim" {
            return Ok(());
        }
        let source = crate::workload_args::prepare(path)
            .ok()
            .map(|p| p.workload().source_path.display().to_string());
        Err(CliError::BadInput(match source {
            Some(cl) => format!(
                "{}: this is a workload, and {command} reads OpenCL C (a .cl file): `clmap \
                 {command} {cl}` reads its kernels (`clmap run {}` runs it)",
                path.display(),
                path.display()
            ),
            None => format!(
                "{}: this is a workload, and {command} reads OpenCL C (a .cl file); `clmap run {}` \
                 loads a workload and reports what is wrong with it",
                path.display(),
                path.display()
            ),
        }))
    }
}
