//! Compiles random 256-pass sequences of the detected pool for a GEMM kernel and prints how many
//! compile per second, how many fail, and how many distinct PTX texts come out.
//!
//! `cargo run --release -p clmap-llvm --example throughput [SEQUENCES] [JOBS]`

use std::collections::HashSet;
use std::time::Instant;

use clmap_llvm::{
    compile_many, detect_pass_pool, effective_jobs, front_end, PassSequence, Toolchain,
    ToolchainConfig,
};

const GEMM: &str = r#"
__kernel void gemm(__global const float *a, __global const float *b, __global float *c, int n) {
    int i = get_global_id(0);
    int j = get_global_id(1);
    c[i * n + j] = 0.0f;
    for (int k = 0; k < n; k++) {
        c[i * n + j] += a[i * n + k] * b[k * n + j];
    }
}
"#;

/// A small deterministic generator, so runs are repeatable without a dependency.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let count: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(32);
    let jobs = effective_jobs(args.next().and_then(|a| a.parse().ok()).unwrap_or(0));
    let run = || -> Result<(), String> {
        let tc = Toolchain::detect(&ToolchainConfig::default()).map_err(|e| e.to_string())?;
        println!("{}", tc.describe());
        let pool = detect_pass_pool(&tc, None, jobs).map_err(|e| e.to_string())?;
        let names = pool.names();
        let bc = front_end(&tc, GEMM, "", &[]).map_err(|e| e.to_string())?;
        let mut random = SplitMix(2017);
        let sequences: Vec<PassSequence> = (0..count)
            .map(|_| {
                PassSequence(
                    (0..256)
                        .filter_map(|_| {
                            let pick = (random.next() % names.len().max(1) as u64) as usize;
                            names.get(pick).map(|n| n.to_string())
                        })
                        .collect(),
                )
            })
            .collect();
        let started = Instant::now();
        let results = compile_many(&tc, &bc, &pool, &sequences, jobs);
        let seconds = started.elapsed().as_secs_f64();
        let failures = results.iter().filter(|r| r.is_err()).count();
        let distinct: HashSet<&str> =
            results.iter().filter_map(|r| r.as_ref().ok()).map(|p| p.hash.as_str()).collect();
        println!(
            "{count} sequences of 256 passes from {} on {jobs} jobs: {seconds:.1} s, {:.2} per second, {failures} failed, {} distinct PTX",
            pool.len(),
            count as f64 / seconds,
            distinct.len()
        );
        for error in results.iter().filter_map(|r| r.as_ref().err()).take(3) {
            let first = error.to_string();
            println!("  e.g. {}", first.lines().next().unwrap_or(""));
        }
        Ok(())
    };
    if let Err(e) = run() {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}
