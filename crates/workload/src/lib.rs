//! Workloads: everything needed to run an OpenCL kernel, or a pipeline of kernels,
//! reproducibly — source, build options, NDRanges, arguments with their initial data, and
//! which buffers are results. `docs/workloads.md` is the user's reference for the formats.
//!
//! Two formats load into one model ([`Workload`]): clmap's TOML files and Oclgrind's `.sim`
//! files. A single launch is a pipeline with one launch; every argument is resolved to a
//! named buffer, a scalar value, a local-memory size or a NULL pointer. The crate knows
//! element types by name only and does not depend on the OpenCL C front end.

pub mod error;
pub mod expr;
pub mod formula;
pub mod image;
pub mod init;
pub mod model;
pub mod number;
pub mod output;
pub mod rng;
pub mod schedule;
pub mod signature;
mod sim_format;
mod sim_writer;
pub mod skeleton;
mod toml_format;
mod toml_writer;
pub mod types;

use std::path::{Path, PathBuf};

pub use error::{Location, WorkloadError};
pub use expr::{Expr, ExprError};
pub use formula::Formula;
pub use image::{ImageSpec, ImageType};
pub use init::Init;
pub use model::{
    Access, ArgSpec, Buffer, BufferData, BufferSet, BufferWrite, Group, Launch, LaunchArg,
    LoadOptions, NdRange, Tolerance, View, Workload,
};
pub use number::{Number, NumberError};
pub use output::{
    compare_buffers, format_oclgrind_dump, write_binary, write_csv, write_output_files,
    CompareError, Comparison, Mismatch, OutputComparison,
};
pub use schedule::{HostWrite, Schedule, Step, StepArg};
pub use signature::{
    check_kernel_params, FixedSignatures, KernelParam, KernelSignatures, ParamSpace,
    SignatureSource,
};
pub use sim_writer::SimExport;
pub use skeleton::skeleton_toml;
pub use types::{ElemType, ScalarType};

/// Puts `file` into an error's location when the error has none.
pub(crate) fn with_file(mut err: WorkloadError, file: Option<PathBuf>) -> WorkloadError {
    if let WorkloadError::Invalid { location, .. } | WorkloadError::TooLarge { location, .. } =
        &mut err
    {
        if location.file.is_none() {
            location.file = file;
        }
    }
    err
}

impl Workload {
    /// Loads a `.toml` workload. An Oclgrind `.sim` file needs the kernel's parameters from
    /// the compiled program: load it with [`Workload::load_with_signatures`].
    pub fn load(path: &Path) -> Result<Workload, WorkloadError> {
        Workload::load_with(path, &LoadOptions::default())
    }

    /// [`Workload::load`] with explicit limits.
    pub fn load_with(path: &Path, options: &LoadOptions) -> Result<Workload, WorkloadError> {
        let text = read(path)?;
        let base_dir = path.parent().unwrap_or(Path::new("."));
        let file = Some(path.to_path_buf());
        match path.extension().and_then(|e| e.to_str()) {
            Some("toml") => toml_format::parse(&text, base_dir, file, options),
            Some("sim") => Err(WorkloadError::NeedsSignatures { path: path.to_path_buf() }),
            _ => Err(WorkloadError::UnknownFormat { path: path.to_path_buf() }),
        }
    }

    /// Loads a `.toml` workload or an Oclgrind `.sim` file, by extension, with the program's
    /// kernel signatures from `signatures` (asked once, for the workload's source and build
    /// options): a `.sim` file's arguments are classified by them, and every launch of either
    /// format is checked against its kernel's parameters ([`check_kernel_params`]).
    pub fn load_with_signatures(
        path: &Path,
        options: &LoadOptions,
        signatures: &mut dyn SignatureSource,
    ) -> Result<Workload, WorkloadError> {
        let text = read(path)?;
        let base_dir = path.parent().unwrap_or(Path::new("."));
        let file = Some(path.to_path_buf());
        match path.extension().and_then(|e| e.to_str()) {
            Some("toml") => {
                let (workload, located) =
                    toml_format::parse_located(&text, base_dir, file, options)?;
                let program = workload.compile_signatures(signatures)?;
                signature::check_launches(&workload, program, &located)?;
                Ok(workload)
            }
            Some("sim") => sim_format::parse(&text, base_dir, file, signatures, options),
            _ => Err(WorkloadError::UnknownFormat { path: path.to_path_buf() }),
        }
    }

    /// Compiles the workload's source through `signatures` and checks every launch against
    /// its kernel's parameters.
    pub fn check_signatures(
        &self,
        signatures: &mut dyn SignatureSource,
    ) -> Result<(), WorkloadError> {
        check_kernel_params(self, self.compile_signatures(signatures)?)
    }

    /// The signatures of the workload's program, compiled through `signatures`.
    fn compile_signatures<'s>(
        &self,
        signatures: &'s mut dyn SignatureSource,
    ) -> Result<&'s mut dyn KernelSignatures, WorkloadError> {
        signatures.signatures(&self.source_path, &self.source, &self.options).map_err(|message| {
            WorkloadError::Frontend { location: Location::file(self.path.clone()), message }
        })
    }

    /// Parses TOML workload text; relative paths are resolved against `base_dir`.
    pub fn from_toml_str(text: &str, base_dir: &Path) -> Result<Workload, WorkloadError> {
        toml_format::parse(text, base_dir, None, &LoadOptions::default())
    }

    /// [`Workload::from_toml_str`] with explicit limits.
    pub fn from_toml_str_with(
        text: &str,
        base_dir: &Path,
        options: &LoadOptions,
    ) -> Result<Workload, WorkloadError> {
        toml_format::parse(text, base_dir, None, options)
    }

    /// Parses an Oclgrind `.sim` file. The kernel file it names is resolved against
    /// `base_dir` and compiled through `signatures`, which tells each parameter's kind and
    /// type.
    pub fn from_sim_str(
        text: &str,
        base_dir: &Path,
        options: &LoadOptions,
        signatures: &mut dyn SignatureSource,
    ) -> Result<Workload, WorkloadError> {
        sim_format::parse(text, base_dir, None, signatures, options)
    }
}

fn read(path: &Path) -> Result<String, WorkloadError> {
    std::fs::read_to_string(path)
        .map_err(|source| WorkloadError::Io { path: path.to_path_buf(), source })
}
