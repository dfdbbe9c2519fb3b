//! Kernel signatures from the OpenCL C front end, for loading workloads.
//!
//! [`FrontEndSignatures`] is the [`SignatureSource`] a workload is loaded with: it compiles
//! the workload's source once, answers the `.sim` reader and the parameter check from the
//! compiled module, and keeps the module so the caller runs on it without compiling again.

use std::path::Path;

use clmap_lang::frontend::Compiled;
use clmap_workload::{KernelParam, KernelSignatures, LoadOptions, SignatureSource, Workload};

use crate::on_device::ExecError;
use crate::prepared::{compile_source, kernel_params};

/// Compiles a workload's source with the front end when loading asks for signatures.
#[derive(Debug, Default)]
pub struct FrontEndSignatures {
    compiled: Option<Compiled>,
    /// The compile failure, kept whole so the caller reports the front end's own error.
    failure: Option<ExecError>,
}

impl FrontEndSignatures {
    pub fn new() -> FrontEndSignatures {
        FrontEndSignatures::default()
    }

    /// The program compiled while loading, if loading got that far.
    pub fn into_compiled(self) -> Option<Compiled> {
        self.compiled
    }

    /// The front end's error, when the source did not compile.
    pub fn take_failure(&mut self) -> Option<ExecError> {
        self.failure.take()
    }
}

impl KernelSignatures for FrontEndSignatures {
    fn kernel_params(&mut self, kernel: &str) -> Result<Option<Vec<KernelParam>>, String> {
        match &self.compiled {
            Some(compiled) => Ok(kernel_params(&compiled.module, kernel)),
            None => Err("the program has not been compiled".to_string()),
        }
    }

    fn kernel_names(&mut self) -> Vec<String> {
        self.compiled
            .as_ref()
            .map_or_else(Vec::new, |c| c.module.kernels().map(|(_, f)| f.name.clone()).collect())
    }
}

impl SignatureSource for FrontEndSignatures {
    fn signatures(
        &mut self,
        source_path: &Path,
        source: &str,
        options: &str,
    ) -> Result<&mut dyn KernelSignatures, String> {
        if self.compiled.is_none() {
            match compile_source(source_path, source, options) {
                Ok(compiled) => self.compiled = Some(compiled),
                Err(failure) => {
                    let message = match &failure {
                        ExecError::Frontend { message } => message.clone(),
                        other => other.to_string(),
                    };
                    self.failure = Some(failure);
                    return Err(message);
                }
            }
        }
        Ok(self)
    }
}

/// Loads a workload (`.toml` or `.sim`) with its kernels' signatures from the front end and
/// checks its arguments against them; returns the workload and the program compiled on the
/// way (compiled once).
pub fn load_checked(path: &Path, options: &LoadOptions) -> Result<(Workload, Compiled), ExecError> {
    let mut signatures = FrontEndSignatures::new();
    let loaded = Workload::load_with_signatures(path, options, &mut signatures);
    if let Some(failure) = signatures.take_failure() {
        return Err(failure);
    }
    let workload = loaded?;
    match signatures.into_compiled() {
        Some(compiled) => Ok((workload, compiled)),
        // Loading always asks for the signatures; this only guards against a changed loader.
        None => Err(ExecError::Invalid(format!(
            "{}: the workload loaded without compiling its program",
            path.display()
        ))),
    }
}
