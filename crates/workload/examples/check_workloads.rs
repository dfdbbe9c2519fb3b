//! Loads every workload file named on the command line and reports, per file, either a
//! one-line summary or the error. Each file is also written back as TOML and reloaded, to
//! check that the conversion keeps the model. Exit status 1 when any file fails.
//!
//! `cargo run -p clmap-workload --example check_workloads -- tests/corpus/*.toml`

use std::path::Path;
use std::process::ExitCode;

use clmap_workload::{LoadOptions, Workload};

fn main() -> ExitCode {
    let mut failures = 0;
    for arg in std::env::args().skip(1) {
        let path = Path::new(&arg);
        // `.sim` files take their kernel parameters from the front end.
        let loaded = clmap_exec::load_checked(path, &LoadOptions::default())
            .map(|(w, _)| w)
            .map_err(|e| e.to_string());
        match loaded.and_then(|w| w.initial_data(0).map(|_| w).map_err(|e| e.to_string())) {
            Ok(w) => {
                let dir = path.parent().unwrap_or(Path::new("."));
                let mut expected = w.clone();
                expected.path = None;
                expected.buffers.iter_mut().for_each(|b| b.hex_dump = false);
                match Workload::from_toml_str(&w.to_toml(dir), dir) {
                    Ok(again) if again == expected => {}
                    Ok(_) => {
                        failures += 1;
                        println!("FAIL  {arg}: written back as TOML, it loads differently");
                        continue;
                    }
                    Err(e) => {
                        failures += 1;
                        println!("FAIL  {arg}: written back as TOML: {e}");
                        continue;
                    }
                }
                let kernels: Vec<&str> = w.launches.iter().map(|l| l.kernel.as_str()).collect();
                println!(
                    "ok    {arg}: {} launch(es) [{}], {} buffer(s), {} bytes, outputs {:?}",
                    w.launches.len(),
                    kernels.join(", "),
                    w.buffers.len(),
                    w.total_buffer_bytes(),
                    w.outputs
                );
            }
            Err(e) => {
                failures += 1;
                println!("FAIL  {arg}: {e}");
            }
        }
    }
    if failures > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
