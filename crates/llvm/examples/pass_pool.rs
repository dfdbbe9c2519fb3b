//! Prints the usable pass pool of the installed LLVM and the passes excluded, with reasons.
//!
//! `cargo run -p clmap-llvm --example pass_pool [--no-cache]`

use clmap_llvm::{detect_pass_pool_with, PoolDetection, Toolchain, ToolchainConfig};

fn main() {
    let no_cache = std::env::args().any(|a| a == "--no-cache");
    let tc = match Toolchain::detect(&ToolchainConfig::default()) {
        Ok(tc) => tc,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    };
    println!("{}", tc.describe());
    let started = std::time::Instant::now();
    let options = PoolDetection { no_cache, ..PoolDetection::default() };
    match detect_pass_pool_with(&tc, &options) {
        Ok(pool) => {
            println!("{} usable passes ({:.1} s):", pool.len(), started.elapsed().as_secs_f64());
            for pass in pool.passes() {
                println!("  {:<36} {:?}", pass.name, pass.level);
            }
            println!("{} excluded:", pool.excluded().len());
            for pass in pool.excluded() {
                let first_line = pass.reason.lines().next().unwrap_or("");
                println!("  {:<36} {first_line}", pass.name);
            }
        }
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    }
}
