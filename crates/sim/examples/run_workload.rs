//! Runs a workload file on the simulator and prints timing, findings and a checksum of the
//! outputs: `run_workload FILE.toml [--threads N] [--check] [--steps N] [--export-sim OUT.sim]`.
//! With `--export-sim` it writes the workload as an Oclgrind `.sim` file instead of running
//! it (and prints the build options `oclgrind-kernel` needs).

use std::path::PathBuf;
use std::time::Instant;

use clmap_sim::{run_workload, SimOptions};
use clmap_workload::Workload;

fn main() {
    let mut args = std::env::args().skip(1);
    let mut path = None;
    let mut options = SimOptions::default();
    let mut export = None;
    while let Some(a) = args.next() {
        match a.as_str() {
            "--threads" => options.threads = args.next().and_then(|v| v.parse().ok()).unwrap_or(0),
            "--steps" => {
                options.max_steps =
                    args.next().and_then(|v| v.parse().ok()).unwrap_or(options.max_steps)
            }
            "--export-sim" => export = args.next().map(PathBuf::from),
            "--check" => {
                options.check_races = true;
                options.check_uninitialised = true;
            }
            other => path = Some(PathBuf::from(other)),
        }
    }
    let Some(path) = path else {
        eprintln!("usage: run_workload FILE.toml [--threads N] [--check] [--steps N]");
        std::process::exit(2);
    };
    let workload = match Workload::load(&path) {
        Ok(w) => w,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    };
    if let Some(out) = export {
        match workload.to_sim(0) {
            Ok(sim) => {
                if let Err(e) = std::fs::write(&out, sim.text) {
                    eprintln!("error: cannot write {}: {e}", out.display());
                    std::process::exit(1);
                }
                println!("{}", sim.build_options);
                return;
            }
            Err(e) => {
                eprintln!("error: {e}");
                std::process::exit(1);
            }
        }
    }
    let start = Instant::now();
    match run_workload(&workload, &options) {
        Ok(run) => {
            let elapsed = start.elapsed();
            for line in &run.printf {
                println!("{line}");
            }
            for r in &run.reports {
                println!("launch {} `{}`: {}", r.launch, r.kernel, r.report);
            }
            for name in &workload.outputs {
                let bytes = run.buffer(name).unwrap_or(&[]);
                let sum = bytes
                    .iter()
                    .fold(0u64, |acc, b| acc.wrapping_mul(31).wrapping_add(u64::from(*b)));
                println!("output {name}: {} bytes, checksum {sum:016x}", bytes.len());
            }
            println!(
                "simulated {} launch(es) in {:.3} s on {} thread(s)",
                run.launches,
                elapsed.as_secs_f64(),
                options.thread_count()
            );
        }
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    }
}
