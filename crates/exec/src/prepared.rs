//! A prepared workload: the workload and its program compiled once by the front end.
//!
//! Every system that runs a kernel many times — rewrite validation, device comparison,
//! campaigns, the phase search — holds one of these. The front end runs when the workload is
//! prepared and never again for it: the simulator takes the compiled module, findings quote
//! the compiled sources, and `.sim` files and type checks take the kernels' parameters from
//! the module instead of scanning text. A rewrite is another prepared workload
//! ([`PreparedWorkload::with_source`]), compiled once too.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use clmap_lang::frontend::{self, Compiled};
use clmap_lang::ir::{AddressSpace, Module, TypeInner};
use clmap_lang::preprocess::{BuildOptions, FsLoader};
use clmap_lang::{SourceFile, SourceMap};
use clmap_workload::{KernelParam, LoadOptions, ParamSpace, Tolerance, Workload};

use crate::on_device::ExecError;

/// How many times this thread has run the front end (on workloads, rewrites, anything).
/// Preparing a workload costs one run; tests use the count to hold that promise (a
/// rewrite's validation costs two: the original and the rewrite).
pub fn front_end_runs() -> u64 {
    clmap_lang::frontend::runs_on_this_thread()
}

/// A workload with its program compiled. Cloning shares the compiled program.
#[derive(Clone, Debug)]
pub struct PreparedWorkload {
    workload: Workload,
    compiled: Arc<Compiled>,
}

impl PreparedWorkload {
    /// Loads a `.toml` workload or an Oclgrind `.sim` file and compiles its program.
    pub fn load(path: &Path) -> Result<PreparedWorkload, ExecError> {
        PreparedWorkload::load_with(path, &LoadOptions::default())
    }

    /// [`PreparedWorkload::load`] with explicit limits. The front end runs once: its module
    /// classifies a `.sim` file's arguments, checks every launch's arguments against the
    /// kernel's parameters, and is the prepared program.
    pub fn load_with(path: &Path, options: &LoadOptions) -> Result<PreparedWorkload, ExecError> {
        let (workload, compiled) = crate::signatures::load_checked(path, options)?;
        PreparedWorkload::from_compiled(workload, compiled)
    }

    /// Compiles the program of a workload built in code (or loaded by the caller) and checks
    /// that every launch names a kernel of it.
    pub fn new(workload: Workload) -> Result<PreparedWorkload, ExecError> {
        let compiled = compile_source(&workload.source_path, &workload.source, &workload.options)?;
        PreparedWorkload::from_compiled(workload, compiled)
    }

    /// A workload and the program its source compiled to, for callers that compiled it
    /// themselves. Every launch must name a kernel of the program.
    pub fn from_compiled(
        workload: Workload,
        compiled: Compiled,
    ) -> Result<PreparedWorkload, ExecError> {
        for launch in &workload.launches {
            if !compiled.module.kernels().any(|(_, f)| f.name == launch.kernel) {
                let known: Vec<&str> =
                    compiled.module.kernels().map(|(_, f)| f.name.as_str()).collect();
                return Err(ExecError::Invalid(format!(
                    "the program has no kernel `{}` (it has: {})",
                    launch.kernel,
                    if known.is_empty() { "none".to_string() } else { known.join(", ") }
                )));
            }
        }
        Ok(PreparedWorkload { workload, compiled: Arc::new(compiled) })
    }

    /// The same workload running `source` instead of its own (a rewrite of it), compiled once.
    pub fn with_source(&self, source: &str) -> Result<PreparedWorkload, ExecError> {
        let mut workload = self.workload.clone();
        workload.source = source.to_string();
        PreparedWorkload::new(workload)
    }

    /// [`PreparedWorkload::with_source`] for a rewrite the caller has compiled already (a
    /// transform that verified its output, say): `compiled` must be `source`'s program.
    pub fn with_compiled_source(
        &self,
        source: &str,
        compiled: Compiled,
    ) -> Result<PreparedWorkload, ExecError> {
        let mut workload = self.workload.clone();
        workload.source = source.to_string();
        PreparedWorkload::from_compiled(workload, compiled)
    }

    pub fn workload(&self) -> &Workload {
        &self.workload
    }

    /// The compiled program: module, sources, build options.
    pub fn compiled(&self) -> &Compiled {
        &self.compiled
    }

    pub fn module(&self) -> &Module {
        &self.compiled.module
    }

    /// The program's sources (main file and includes), for excerpts under findings.
    pub fn sources(&self) -> &SourceMap {
        &self.compiled.sources
    }

    /// Gives every output that declares no tolerance this one. Only comparison settings
    /// change, so the compiled program stays valid.
    pub fn set_default_tolerance(&mut self, tolerance: Tolerance) {
        for buffer in &mut self.workload.buffers {
            buffer.tolerance.get_or_insert(tolerance);
        }
    }

    /// The parameters of `kernel` as the front end typed them, or `None` when the program has
    /// no such kernel.
    pub fn kernel_params(&self, kernel: &str) -> Option<Vec<KernelParam>> {
        kernel_params(self.module(), kernel)
    }

    /// Kernel launches the workload's schedule makes, repetitions counted.
    pub fn launch_count(&self) -> u64 {
        self.workload.launch_count()
    }
}

/// Runs the front end on a workload's source. Includes resolve next to `source_path`, as they
/// do for a compiler reading the file.
pub fn compile_source(
    source_path: &Path,
    source: &str,
    options: &str,
) -> Result<Compiled, ExecError> {
    let options = BuildOptions::parse(options).map_err(|message| ExecError::Frontend {
        message: format!("bad build options: {message}"),
    })?;
    let mut sources = SourceMap::new();
    let main = sources.add(SourceFile::new(
        source_path.display().to_string(),
        Some(PathBuf::from(source_path)),
        source.to_string(),
    ));
    frontend::compile(sources, main, options, &FsLoader)
        .map_err(|failure| ExecError::Frontend { message: failure.render() })
}

/// The parameters of `kernel` in `module`, in the form workloads describe arguments: address
/// space and the value (or pointee) type's name.
pub fn kernel_params(module: &Module, kernel: &str) -> Option<Vec<KernelParam>> {
    let (_, function) = module.kernels().find(|(_, f)| f.name == kernel)?;
    let params = function
        .params
        .iter()
        .map(|p| {
            let (space, ty) = match module.types.get(p.ty) {
                Some(TypeInner::Pointer { pointee, space, .. }) => (
                    match space {
                        AddressSpace::Global => ParamSpace::Global,
                        AddressSpace::Constant => ParamSpace::Constant,
                        AddressSpace::Local => ParamSpace::Local,
                        // A private pointer cannot be a kernel argument; sema refuses it.
                        AddressSpace::Private => ParamSpace::Private,
                    },
                    *pointee,
                ),
                _ => (ParamSpace::Private, p.ty),
            };
            KernelParam {
                name: p.name.clone(),
                space,
                type_name: clmap_lang::print::print_type(module, ty),
            }
        })
        .collect();
    Some(params)
}
