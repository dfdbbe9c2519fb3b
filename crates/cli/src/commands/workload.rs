//! `clmap workload`: helps write workload files.

use std::path::{Path, PathBuf};

use crate::exit::{CliError, Status};
use clmap_lang::frontend::{self, CompileFailure};
use clmap_workload::skeleton_toml;
use serde_json::json;

/// Write a starting workload for a kernel.
///
/// `--skeleton` compiles the kernel and prints a TOML workload with one `[[arg]]` per
/// parameter, element types filled in from the kernel's signature, and the sizes gathered in
/// a `[sizes]` table with placeholder values marked TODO. Fill in the sizes and the initial
/// data, choose the outputs, and run it with `clmap run`. As printed, it loads and runs.
///
/// Example:
///
///   clmap workload --skeleton examples/vector_add.cl --kernel vector_add -o examples/va.toml
///
///   clmap run examples/va.toml
///
/// The workload format (pipelines, groups of launches, sizes and expressions, host writes) is
/// described in docs/workloads.md.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The OpenCL C file of the kernel.
    #[arg(long, value_name = "KERNEL.cl")]
    pub skeleton: PathBuf,
    /// The kernel to describe (may be left out when the file has one kernel).
    #[arg(long, value_name = "NAME")]
    pub kernel: Option<String>,
    /// Build options, exactly as for clBuildProgram (e.g. "-DTILE=16").
    #[arg(long, value_name = "OPTIONS", default_value = "", allow_hyphen_values = true)]
    pub options: String,
    /// Write the workload to this file instead of standard output (the `source` path is then
    /// written relative to it).
    #[arg(short = 'o', long, value_name = "FILE.toml")]
    pub out: Option<PathBuf>,
    /// Print JSON: the kernel's parameters and the workload text.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args) -> Result<Status, CliError> {
    let file = &args.skeleton;
    if !file.is_file() {
        return Err(CliError::BadInput(format!("{}: no such file", file.display())));
    }
    let compiled = frontend::compile_file(file, &args.options)
        .map_err(|failure: CompileFailure| CliError::BadInput(failure.render()))?;
    let kernels: Vec<String> = compiled.module.kernels().map(|(_, f)| f.name.clone()).collect();
    let listed = || if kernels.is_empty() { "none".to_string() } else { kernels.join(", ") };
    let kernel = match (&args.kernel, kernels.as_slice()) {
        (Some(k), _) if kernels.contains(k) => k.clone(),
        (Some(k), _) => {
            return Err(CliError::BadInput(format!(
                "{} has no kernel named `{k}` (kernels: {})",
                file.display(),
                listed()
            )))
        }
        (None, [only]) => only.clone(),
        (None, _) => {
            return Err(CliError::BadInput(format!(
                "{} has {} kernels; name one with --kernel (kernels: {})",
                file.display(),
                kernels.len(),
                listed()
            )))
        }
    };
    let params = clmap_exec::kernel_params(&compiled.module, &kernel).unwrap_or_default();
    let source = source_key(file, args.out.as_deref());
    let text = skeleton_toml(&source, &kernel, &params, &args.options);
    if let Some(out) = &args.out {
        std::fs::write(out, &text)
            .map_err(|e| CliError::BadInput(format!("cannot write {}: {e}", out.display())))?;
    }
    if args.json {
        let params: Vec<_> = params
            .iter()
            .map(|p| {
                json!({
                    "name": p.name,
                    "space": format!("{:?}", p.space).to_lowercase(),
                    "type": p.type_name,
                    "declaration": p.declaration(),
                })
            })
            .collect();
        let report = json!({
            "file": file.display().to_string(),
            "kernel": kernel,
            "params": params,
            "out": args.out.as_ref().map(|p| p.display().to_string()),
            "toml": text,
        });
        println!("{report:#}");
    } else if args.out.is_none() {
        print!("{text}");
    } else if let Some(out) = &args.out {
        eprintln!("wrote {} ({} parameters)", out.display(), params.len());
    }
    Ok(Status::Success)
}

/// The `source` key: the kernel file relative to the workload's directory when it is written
/// to a file, else the path as given.
fn source_key(kernel: &Path, out: Option<&Path>) -> String {
    let Some(out) = out else { return kernel.display().to_string() };
    let absolute = |p: &Path| std::fs::canonicalize(p).ok();
    let out_dir = out.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    match (absolute(kernel), absolute(out_dir)) {
        (Some(k), Some(d)) => relative(&k, &d).display().to_string(),
        _ => kernel.display().to_string(),
    }
}

/// `path` relative to `dir` (both absolute), with `..` where they part.
fn relative(path: &Path, dir: &Path) -> PathBuf {
    let p: Vec<_> = path.components().collect();
    let d: Vec<_> = dir.components().collect();
    let common = p.iter().zip(&d).take_while(|(a, b)| a == b).count();
    let mut out = PathBuf::new();
    for _ in common..d.len() {
        out.push("..");
    }
    for c in &p[common..] {
        out.push(c);
    }
    out
}
