//! Golden files for the metrics users read: `clmap analyze --json` on workloads of different
//! access patterns, checked in under `tests/out/metrics/<workload>.json` and compared byte for
//! byte. Set `CLMAP_BLESS=1` to rewrite them after an intended change, and read the diff.
//!
//! Metrics are deterministic (DESIGN.md): the report names the workload by its file name only,
//! holds no times, and must not depend on the number of simulator threads, which each case
//! checks before it compares.

use clmap_testkit::{clmap, root};
use std::path::PathBuf;

/// One workload per access pattern the metrics must tell apart.
const WORKLOADS: [&str; 9] = [
    // Unit-stride streaming, one branch.
    "examples/vector_add.toml",
    // A transpose staged through a local tile, one barrier.
    "examples/transpose.toml",
    // The same transpose straight from global memory: strided writes.
    "tests/corpus/transpose_naive.toml",
    // Every work-item walks a column of a row-major matrix.
    "tests/corpus/map_column_global.toml",
    // A 2-D stencil with its halo staged in local memory.
    "tests/corpus/stencil2d_local_halo.toml",
    // Matrix multiplication: heavy reuse of both inputs.
    "tests/corpus/pb_gemm.toml",
    // Local atomics on a few bins.
    "tests/corpus/histogram_local_atomics.toml",
    // A tree reduction: barriers in a loop, half the work-items idle at each level.
    "tests/corpus/reduce_local_tree.toml",
    // Divergent branches, loops with break and continue, a switch.
    "tests/corpus/lang_control_flow.toml",
];

fn snapshot_path(workload: &str) -> PathBuf {
    let stem = std::path::Path::new(workload).file_stem().expect("a file name");
    root().join("tests/out/metrics").join(stem).with_extension("json")
}

/// The metrics as users see them, after checking that they do not depend on the thread count.
fn metrics_json(workload: &str) -> String {
    let one = clmap(&["analyze", workload, "--json", "--threads", "1"]);
    one.assert_success();
    let three = clmap(&["analyze", workload, "--json", "--threads", "3"]);
    three.assert_success();
    assert_eq!(one.stdout(), three.stdout(), "{workload}: the metrics depend on the thread count");
    let text = one.stdout();
    assert!(!text.contains(&root().display().to_string()), "{workload}: an absolute path");
    text
}

/// The first line where two texts differ, for a failure message that points at the change.
fn first_difference(expected: &str, actual: &str) -> String {
    let mut expected_lines = expected.lines();
    let mut actual_lines = actual.lines();
    for number in 1.. {
        match (expected_lines.next(), actual_lines.next()) {
            (Some(e), Some(a)) if e == a => continue,
            (None, None) => break,
            (e, a) => {
                return format!(
                    "line {number}: expected {:?}, got {:?}",
                    e.unwrap_or("<end>"),
                    a.unwrap_or("<end>")
                )
            }
        }
    }
    "the texts differ only in their final line break".to_string()
}

#[test]
fn metrics_match_their_snapshots() {
    let bless = std::env::var("CLMAP_BLESS").is_ok_and(|v| v == "1");
    let mut failures = Vec::new();
    for workload in WORKLOADS {
        let actual = metrics_json(workload);
        let path = snapshot_path(workload);
        let shown = path.strip_prefix(root()).unwrap_or(&path).display().to_string();
        if bless {
            std::fs::create_dir_all(path.parent().expect("tests/out/metrics")).expect("mkdir");
            std::fs::write(&path, &actual).unwrap_or_else(|e| panic!("write {shown}: {e}"));
            continue;
        }
        match std::fs::read_to_string(&path) {
            Ok(expected) if expected == actual => {}
            Ok(expected) => failures.push(format!(
                "{shown} differs from `clmap analyze {workload} --json`: {}",
                first_difference(&expected, &actual)
            )),
            Err(_) => failures.push(format!("{shown} is missing; run with CLMAP_BLESS=1")),
        }
    }
    assert!(
        failures.is_empty(),
        "{}\n(after an intended change: CLMAP_BLESS=1 cargo test -p clmap --test metrics_snapshots)",
        failures.join("\n")
    );
}

/// A snapshot without its workload would never be checked again.
#[test]
fn every_snapshot_belongs_to_a_workload() {
    if std::env::var("CLMAP_BLESS").is_ok_and(|v| v == "1") {
        // The snapshots are being written beside this test.
        return;
    }
    let dir = root().join("tests/out/metrics");
    let expected: Vec<PathBuf> = WORKLOADS.iter().map(|w| snapshot_path(w)).collect();
    for entry in std::fs::read_dir(&dir).expect("tests/out/metrics").filter_map(Result::ok) {
        let path = entry.path();
        assert!(expected.contains(&path), "{} has no workload in WORKLOADS", path.display());
    }
}
