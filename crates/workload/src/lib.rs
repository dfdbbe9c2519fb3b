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
pub mod init;
pub mod model;
pub mod number;
pub mod output;
pub mod rng;
pub mod schedule;
pub mod signature;
mod sim_format;
mod sim_writer;
mod toml_format;
mod toml_writer;
pub mod types;

use std::path::{Path, PathBuf};

pub use error::{Location, WorkloadError};
pub use init::Init;
pub use model::{
    Access, ArgSpec, Buffer, BufferData, BufferSet, Launch, LaunchArg, LoadOptions, NdRange,
    Tolerance, Workload,
};
pub use number::{Number, NumberError};
pub use output::{
    compare_buffers, format_oclgrind_dump, write_binary, write_csv, write_output_files,
    CompareError, Comparison, Mismatch, OutputComparison,
};
pub use schedule::{HostWrite, Schedule, Step, StepArg};
pub use signature::{scan_kernel_params, KernelParam, ParamSpace};
pub use sim_writer::SimExport;
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
    /// Loads a `.toml` workload or an Oclgrind `.sim` file, by extension.
    pub fn load(path: &Path) -> Result<Workload, WorkloadError> {
        Workload::load_with(path, &LoadOptions::default())
    }

    /// [`Workload::load`] with explicit limits.
    pub fn load_with(path: &Path, options: &LoadOptions) -> Result<Workload, WorkloadError> {
        let text = std::fs::read_to_string(path)
            .map_err(|source| WorkloadError::Io { path: path.to_path_buf(), source })?;
        let base_dir = path.parent().unwrap_or(Path::new("."));
        let file = Some(path.to_path_buf());
        match path.extension().and_then(|e| e.to_str()) {
            Some("toml") => toml_format::parse(&text, base_dir, file, options),
            Some("sim") => sim_format::parse(&text, base_dir, file, None, options),
            _ => Err(WorkloadError::UnknownFormat { path: path.to_path_buf() }),
        }
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

    /// [`Workload::from_sim_str`] with explicit limits.
    pub fn from_sim_str_with(
        text: &str,
        base_dir: &Path,
        options: &LoadOptions,
    ) -> Result<Workload, WorkloadError> {
        sim_format::parse(text, base_dir, None, None, options)
    }

    /// Parses an Oclgrind `.sim` file. The kernel file it names is resolved against `base_dir`,
    /// and the kernel's parameters are read from that source by [`scan_kernel_params`].
    pub fn from_sim_str(text: &str, base_dir: &Path) -> Result<Workload, WorkloadError> {
        sim_format::parse(text, base_dir, None, None, &LoadOptions::default())
    }

    /// [`Workload::from_sim_str`] with the kernel's parameters given by the caller (for
    /// instance from the OpenCL C front end), for kernels whose signature the textual scan
    /// cannot read.
    pub fn from_sim_str_with_params(
        text: &str,
        base_dir: &Path,
        params: &[KernelParam],
        options: &LoadOptions,
    ) -> Result<Workload, WorkloadError> {
        sim_format::parse(text, base_dir, None, Some(params), options)
    }
}
