//! The differential test of the whole corpus: every workload in `tests/corpus/` runs on the
//! simulator and on an OpenCL CPU device (PoCL in CI) with the same inputs, and every output
//! must agree (exactly for integers, within the workload's tolerance for floats).
//!
//! `CLMAP_TEST_DEVICE` picks another device (e.g. `gpu`); without any device the test says why
//! and passes, unless `CLMAP_REQUIRE_OPENCL=1`.

use clmap_exec::{differential, run_on, PreparedWorkload, Side, StopAt, Target};
use clmap_sim::SimOptions;
use clmap_testkit::Requirement;
use std::path::Path;

#[test]
fn simulator_and_device_agree_on_every_corpus_workload() {
    let selector = std::env::var("CLMAP_TEST_DEVICE").unwrap_or_else(|_| "cpu".to_string());
    let device = match Target::select(&selector, SimOptions::default()) {
        Ok(t) => t,
        Err(e) => {
            Requirement::OpenCl.unavailable(e);
            return;
        }
    };
    let simulator = Target::Simulator(SimOptions::default());
    let paths = corpus();
    assert!(paths.len() >= 40, "the corpus has {} workloads", paths.len());
    let mut failures = Vec::new();
    for path in &paths {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let prepared = PreparedWorkload::load(path).unwrap_or_else(|e| panic!("{name}: {e}"));
        let answer = match differential(
            Side::new(&prepared, &simulator),
            Side::new(&prepared, &device),
            1,
            StopAt::Never,
        ) {
            Ok(answer) => answer,
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        if !answer.outputs_agree() {
            failures.push(answer.render(&name));
        }
    }
    assert!(failures.is_empty(), "{} disagreements:\n{}", failures.len(), failures.join("\n"));
}

/// The simulator's own findings on the corpus: none (the corpus kernels are correct).
#[test]
fn the_corpus_runs_clean_on_the_simulator() {
    let simulator = Target::Simulator(SimOptions::default());
    for path in corpus() {
        let prepared = PreparedWorkload::load(&path).expect("corpus workload");
        let run = run_on(&simulator, &prepared, 0).expect("simulates");
        assert!(run.reports.is_empty(), "{}: {:?}", path.display(), run.reports);
        assert_eq!(run.launches, prepared.launch_count(), "{}", path.display());
    }
}

fn corpus() -> Vec<std::path::PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/corpus exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    paths.sort();
    paths
}
