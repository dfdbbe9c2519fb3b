//! The differential test of the whole corpus: every workload in `tests/corpus/` runs on the
//! simulator and on an OpenCL CPU device (PoCL in CI) with the same inputs, and every output
//! must agree (exactly for integers, within the workload's tolerance for floats).
//!
//! `CLMAP_TEST_DEVICE` picks another device (e.g. `gpu`); without any device the test says why
//! and passes, unless `CLMAP_REQUIRE_OPENCL=1`.

use clmap_exec::{run_on, Target};
use clmap_sim::SimOptions;
use clmap_workload::Workload;
use std::path::Path;

#[test]
fn simulator_and_device_agree_on_every_corpus_workload() {
    let selector = std::env::var("CLMAP_TEST_DEVICE").unwrap_or_else(|_| "cpu".to_string());
    let device = match Target::select(&selector, SimOptions::default()) {
        Ok(t) => t,
        Err(e) if std::env::var("CLMAP_REQUIRE_OPENCL").as_deref() == Ok("1") => {
            panic!("CLMAP_REQUIRE_OPENCL=1 but no OpenCL device: {e}")
        }
        Err(e) => {
            eprintln!("skipped: no OpenCL device ({e})");
            return;
        }
    };
    let simulator = Target::Simulator(SimOptions::default());
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/corpus exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    paths.sort();
    assert!(paths.len() >= 40, "the corpus has {} workloads", paths.len());
    let mut failures = Vec::new();
    for path in &paths {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let workload = Workload::load(path).unwrap_or_else(|e| panic!("{name}: {e}"));
        let on_sim = match run_on(&simulator, &workload, 0) {
            Ok(r) => r,
            Err(e) => {
                failures.push(format!("{name}: simulator: {e}"));
                continue;
            }
        };
        if !on_sim.reports.is_empty() {
            failures.push(format!("{name}: the simulator reports {:?}", on_sim.reports));
        }
        let on_device = match run_on(&device, &workload, 0) {
            Ok(r) => r,
            Err(e) => {
                failures.push(format!("{name}: {}: {e}", device.name()));
                continue;
            }
        };
        for c in workload.compare_outputs(&on_sim.buffers, &on_device.buffers) {
            match &c.result {
                Ok(r) if r.passed() => {}
                Ok(r) => failures.push(format!(
                    "{name}: output `{}` differs in {} of {} values (max rel {:e}), first {:?}",
                    c.name,
                    r.mismatches,
                    r.compared,
                    r.max_rel,
                    r.first_mismatches.first()
                )),
                Err(e) => failures.push(format!("{name}: output `{}`: {e}", c.name)),
            }
        }
    }
    assert!(failures.is_empty(), "{} disagreements:\n{}", failures.len(), failures.join("\n"));
}
