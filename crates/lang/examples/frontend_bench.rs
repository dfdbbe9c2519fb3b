//! Front-end throughput over a directory of kernels: preprocess + parse + check + validate.
//!
//! Usage: frontend_bench DIR [ROUNDS]
//! Prints the source size, the time per round and MB/s (source bytes of the main files, the
//! same measure `bench/frontend.sh` uses for clang). Each file is compiled with the options of
//! its workload when one sits beside it (`-D…` lines in `options = "…"`).

use std::path::{Path, PathBuf};
use std::time::Instant;

fn options_for(cl: &Path) -> String {
    let toml = cl.with_extension("toml");
    let Ok(text) = std::fs::read_to_string(toml) else { return String::new() };
    text.lines()
        .find_map(|l| {
            let l = l.trim();
            let rest = l.strip_prefix("options")?.trim_start().strip_prefix('=')?.trim();
            Some(rest.trim_matches('"').to_string())
        })
        .unwrap_or_default()
}

fn main() {
    let mut args = std::env::args().skip(1);
    let dir = PathBuf::from(args.next().unwrap_or_else(|| "tests/corpus".to_string()));
    let rounds: u32 = args.next().and_then(|r| r.parse().ok()).unwrap_or(20);
    let mut files: Vec<PathBuf> = match std::fs::read_dir(&dir) {
        Ok(entries) => entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "cl"))
            .collect(),
        Err(e) => {
            eprintln!("cannot read {}: {e}", dir.display());
            std::process::exit(1);
        }
    };
    files.sort();
    let inputs: Vec<(PathBuf, String, String)> = files
        .iter()
        .filter_map(|p| {
            let text = std::fs::read_to_string(p).ok()?;
            Some((p.clone(), text, options_for(p)))
        })
        .collect();
    let bytes: usize = inputs.iter().map(|(_, t, _)| t.len()).sum();
    let mut failures = 0;
    let start = Instant::now();
    for _ in 0..rounds {
        for (path, text, options) in &inputs {
            let name = path.display().to_string();
            if clmap_lang::frontend::compile_source(
                &name,
                text,
                &format!("-I{} {options}", dir.display()),
            )
            .is_err()
            {
                failures += 1;
            }
        }
    }
    let secs = start.elapsed().as_secs_f64();
    let mb = bytes as f64 * rounds as f64 / 1e6;
    println!(
        "front end: {} files, {:.1} KiB, {} rounds, {:.2} ms/round, {:.2} MB/s{}",
        inputs.len(),
        bytes as f64 / 1024.0,
        rounds,
        secs * 1e3 / rounds as f64,
        mb / secs,
        if failures > 0 {
            format!(" ({} failed compiles)", failures / rounds as usize)
        } else {
            String::new()
        }
    );
}
