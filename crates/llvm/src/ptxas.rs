//! Register, spill and shared-memory figures from NVIDIA's `ptxas -v`, where it is installed.

use std::fmt;
use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use serde::Serialize;

use crate::error::Stage;
use crate::process::run_tool;
use crate::ptx::Ptx;

/// ptxas assembles one kernel in well under a second; a minute means something is wrong.
const PTXAS_TIMEOUT: Duration = Duration::from_secs(60);

/// What `ptxas -v` reports for one function.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct FunctionResources {
    /// The function (kernel) name.
    pub name: String,
    /// Registers per thread.
    pub registers: u32,
    /// Bytes of spill stores.
    pub spill_stores: u64,
    /// Bytes of spill loads.
    pub spill_loads: u64,
    /// Bytes of stack frame.
    pub stack_frame: u64,
    /// Bytes of static shared memory.
    pub shared: u64,
}

/// `ptxas -v` figures for every function of one PTX.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct PtxResources {
    /// The ptxas that measured them.
    pub ptxas: PathBuf,
    /// One entry per function, in ptxas's order.
    pub functions: Vec<FunctionResources>,
}

impl fmt::Display for PtxResources {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, function) in self.functions.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            write!(
                f,
                "{}: {} registers, {} B spill stores, {} B spill loads, {} B stack, {} B shared",
                function.name,
                function.registers,
                function.spill_stores,
                function.spill_loads,
                function.stack_frame,
                function.shared
            )?;
        }
        Ok(())
    }
}

/// Assembles `ptx` for `sm` (e.g. `sm_90`) with `ptxas -v` and reads its report. `None` when
/// ptxas is not installed (it is part of the CUDA toolkit, not of LLVM), when it rejects the
/// PTX, or when its report has no function figures. `CLMAP_PTXAS` may name the binary.
pub fn ptxas_resources(ptx: &Ptx, sm: &str) -> Option<PtxResources> {
    let ptxas = find_ptxas()?;
    let dir = tempfile::Builder::new().prefix("clmap-ptxas-").tempdir().ok()?;
    let input = dir.path().join("kernel.ptx");
    let body = ptx.text.strip_suffix(&[0]).unwrap_or(&ptx.text);
    std::fs::write(&input, body).ok()?;
    let mut command = Command::new(&ptxas);
    command
        .arg("-v")
        .arg("--gpu-name")
        .arg(sm)
        .arg("-o")
        .arg(dir.path().join("kernel.cubin"))
        .arg(&input);
    // The report goes to stderr; a rejected PTX is simply "no figures".
    let output = run_tool(command, Stage::Setup, PTXAS_TIMEOUT).ok()?;
    let report = String::from_utf8_lossy(&output.stderr).into_owned()
        + &String::from_utf8_lossy(&output.stdout);
    let functions = parse_ptxas_report(&report);
    (!functions.is_empty()).then_some(PtxResources { ptxas, functions })
}

fn find_ptxas() -> Option<PathBuf> {
    if let Some(given) = std::env::var_os("CLMAP_PTXAS").filter(|v| !v.is_empty()) {
        let path = PathBuf::from(given);
        return path.is_file().then_some(path);
    }
    if let Some(path) = std::env::var_os("PATH") {
        if let Some(found) = std::env::split_paths(&path)
            .map(|dir| dir.join("ptxas"))
            .find(|candidate| candidate.is_file())
        {
            return Some(found);
        }
    }
    let default = PathBuf::from("/usr/local/cuda/bin/ptxas");
    if default.is_file() {
        return Some(default);
    }
    // Versioned toolkits side by side: take the newest by name.
    let mut versioned: Vec<PathBuf> = std::fs::read_dir("/usr/local")
        .ok()?
        .filter_map(Result::ok)
        .filter(|entry| entry.file_name().to_string_lossy().starts_with("cuda-"))
        .map(|entry| entry.path().join("bin").join("ptxas"))
        .filter(|path| path.is_file())
        .collect();
    versioned.sort();
    versioned.pop()
}

/// Reads `ptxas -v` output: "Compiling entry function 'k'", "Function properties for k",
/// "N bytes stack frame, N bytes spill stores, N bytes spill loads",
/// "Used N registers, N bytes smem, N bytes cmem[0]".
pub(crate) fn parse_ptxas_report(text: &str) -> Vec<FunctionResources> {
    let mut functions: Vec<FunctionResources> = Vec::new();
    let mut current: Option<usize> = None;
    for line in text.lines() {
        let line = line.trim();
        let named = line
            .split_once("Compiling entry function '")
            .or_else(|| line.split_once("Function properties for "))
            .map(|(_, rest)| rest.trim_end_matches(['\'', ':']).split('\'').next().unwrap_or(""));
        if let Some(name) = named.map(str::trim).filter(|n| !n.is_empty()) {
            current = Some(match functions.iter().position(|f| f.name == name) {
                Some(index) => index,
                None => {
                    functions.push(FunctionResources {
                        name: name.to_string(),
                        ..FunctionResources::default()
                    });
                    functions.len() - 1
                }
            });
            continue;
        }
        let Some(function) = current.and_then(|index| functions.get_mut(index)) else {
            continue;
        };
        let body = line.split_once(':').map_or(line, |(_, rest)| rest);
        for part in body.split(',') {
            let words: Vec<&str> = part.split_whitespace().collect();
            match words.as_slice() {
                ["Used", n, "registers", ..] => function.registers = n.parse().unwrap_or(0),
                [n, "bytes", "stack", "frame"] => function.stack_frame = n.parse().unwrap_or(0),
                [n, "bytes", "spill", "stores"] => function.spill_stores = n.parse().unwrap_or(0),
                [n, "bytes", "spill", "loads"] => function.spill_loads = n.parse().unwrap_or(0),
                [n, "bytes", "smem"] => function.shared = n.parse().unwrap_or(0),
                _ => {}
            }
        }
    }
    functions
}

#[cfg(test)]
mod tests {
    use super::*;

    const REPORT: &str = "ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'gemm' for 'sm_90'
ptxas info    : Function properties for gemm
    0 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads
ptxas info    : Used 40 registers, 1024 bytes smem, 384 bytes cmem[0]
ptxas info    : Compiling entry function 'copy' for 'sm_90'
ptxas info    : Function properties for copy
    16 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 8 registers, 368 bytes cmem[0]
";

    #[test]
    fn report_gives_figures_per_function() {
        let functions = parse_ptxas_report(REPORT);
        assert_eq!(
            functions,
            vec![
                FunctionResources {
                    name: "gemm".to_string(),
                    registers: 40,
                    spill_stores: 8,
                    spill_loads: 4,
                    stack_frame: 0,
                    shared: 1024,
                },
                FunctionResources {
                    name: "copy".to_string(),
                    registers: 8,
                    spill_stores: 0,
                    spill_loads: 0,
                    stack_frame: 16,
                    shared: 0,
                },
            ]
        );
        assert!(parse_ptxas_report("ptxas fatal : Unresolved extern").is_empty());
    }
}
