//! `clmap tune` end to end: on the simulator (the variants built, work-group sizes a fixed
//! tile breaks rejected by validation, the JSON shape, a second run answered from the
//! database, `--remeasure`), and on a CPU OpenCL device (PoCL in CI) with the advisor asked.

use clmap_testkit::{clmap, Scratch};
use serde_json::Value;

const MM: &str = "tests/corpus/mm_nvidia_tile_a.toml";

fn variant<'a>(device: &'a Value, name: &str) -> &'a Value {
    device["variants"]
        .as_array()
        .expect("a list of variants")
        .iter()
        .find(|v| v["name"] == name)
        .unwrap_or_else(|| panic!("no variant {name} in {device:#}"))
}

fn names(device: &Value) -> Vec<String> {
    device["variants"]
        .as_array()
        .expect("variants")
        .iter()
        .map(|v| v["name"].as_str().expect("a name").to_string())
        .collect()
}

#[test]
fn tune_on_the_simulator_validates_times_stores_and_answers_again_from_the_database() {
    let dir = Scratch::new("tune-sim");
    let db = dir.join("tune.db");
    let db = db.to_str().expect("UTF-8");
    let args = [
        "tune",
        MM,
        "--device",
        "sim",
        "--work-groups",
        "32x8,8x8",
        "--seeds",
        "2",
        "--reps",
        "3",
        "--db",
        db,
        "--json",
    ];
    let first = clmap(&args);
    first
        .assert_success()
        .assert_stderr_contains("tuning matrixMul_tile_a of tests/corpus/mm_nvidia_tile_a.toml")
        .assert_stderr_contains("unlocal:As: validating on the simulator (2 input sets)…")
        .assert_stderr_contains("wg:8x8: validating on the simulator (2 input sets)… REJECTED");
    let out = first.json();
    assert_eq!(out["kernel"], "matrixMul_tile_a");
    let devices = out["devices"].as_array().expect("devices");
    assert_eq!(devices.len(), 1);
    let device = &devices[0];
    assert_eq!(device["device"], "simulator");
    assert!(device["clock"].as_str().unwrap_or("").contains("wall-clock"));
    let all = names(device);
    for expected in
        ["as-written", "unlocal:As", "stage:A", "stage:B", "stage:C", "wg:32x8", "wg:8x8"]
    {
        assert!(all.iter().any(|n| n == expected), "{expected} missing from {all:?}");
    }
    assert_eq!(all[0], "as-written");

    // Every variant has the same keys.
    for v in device["variants"].as_array().expect("variants") {
        for key in ["name", "built", "how", "validation", "time", "speedup", "chosen", "status"] {
            assert!(v.get(key).is_some(), "{key} missing from {v:#}");
        }
        assert!(v["built"]["kind"].is_string(), "{v:#}");
        assert!(v["validation"]["status"].is_string(), "{v:#}");
    }
    let baseline = variant(device, "as-written");
    assert_eq!(baseline["built"]["kind"], "as_written");
    assert_eq!(baseline["validation"]["status"], "reference");
    assert_eq!(baseline["speedup"], 1.0);
    let unlocal = variant(device, "unlocal:As");
    assert_eq!(unlocal["built"], serde_json::json!({ "kind": "unlocal", "local_buffers": ["As"] }));
    assert_eq!(unlocal["status"], "timed");
    assert_eq!(unlocal["validation"]["status"], "passed");
    assert_eq!(unlocal["validation"]["seeds"], 2);
    assert_eq!(unlocal["layout"]["unstaged"], serde_json::json!(["A"]));
    assert!(unlocal["time"]["median_ns"].as_f64().expect("a time") > 0.0);
    assert_eq!(unlocal["time"]["samples_ns"].as_array().expect("samples").len(), 2);
    assert!(unlocal["speedup"].as_f64().expect("a speedup") > 0.0);
    // BLOCK_SIZE is 16 whatever the launch: other work-group sizes compute something else.
    for wg in ["wg:32x8", "wg:8x8"] {
        let v = variant(device, wg);
        assert_eq!(v["built"]["kind"], "work_group");
        assert_eq!(v["status"], "invalid", "{v:#}");
        assert_eq!(v["validation"]["status"], "failed");
        assert!(v["time"].is_null() && v["speedup"].is_null());
        assert_eq!(v["chosen"], false);
    }
    // C is written: staging refuses it and says why.
    let c = variant(device, "stage:C");
    assert_eq!(c["status"], "refused");
    assert!(c["detail"].as_str().is_some_and(|d| !d.is_empty()), "{c:#}");
    let chosen: Vec<&Value> = device["variants"]
        .as_array()
        .expect("variants")
        .iter()
        .filter(|v| v["chosen"] == true)
        .collect();
    assert_eq!(chosen.len(), 1, "one winner");
    assert_eq!(device["winner"], chosen[0]["name"]);
    assert_eq!(device["speedup"], chosen[0]["speedup"]);
    assert_eq!(device["advisor"]["predicted"], Value::Null, "no advisor on the simulator");
    assert_eq!(device["from_database"], 0);

    // The second run measures nothing.
    let second = clmap(&args);
    second.assert_success().assert_stderr_contains("unlocal:As: from the database: median");
    assert!(!second.stderr().contains("validating"), "{}", second.describe());
    let again = second.json();
    let device2 = &again["devices"][0];
    assert_eq!(device2["measured_now"], 0);
    assert_eq!(device2["from_database"].as_u64(), Some(all.len() as u64 - refused_count(device)));
    assert_eq!(variant(device2, "unlocal:As")["from_database"], true);
    assert_eq!(variant(device2, "unlocal:As")["time"], unlocal["time"]);
    assert_eq!(variant(device2, "wg:8x8")["status"], "invalid");
    assert_eq!(device2["winner"], device["winner"]);

    // --remeasure measures again.
    let mut remeasure = args.to_vec();
    remeasure.push("--remeasure");
    let third = clmap(&remeasure);
    third.assert_success().assert_stderr_contains("unlocal:As: validating");
    assert_eq!(variant(&third.json()["devices"][0], "unlocal:As")["from_database"], false);
}

/// Variants refused when built: produced again by every run, answered by nothing.
fn refused_count(device: &Value) -> u64 {
    device["variants"]
        .as_array()
        .expect("variants")
        .iter()
        .filter(|v| v["status"] == "refused")
        .count() as u64
}

#[test]
fn the_text_report_names_the_winner_and_its_speedup() {
    let dir = Scratch::new("tune-text");
    let db = dir.join("tune.db");
    let run = clmap(&[
        "tune",
        "tests/corpus/transpose_local_padded.toml",
        "--device",
        "sim",
        "--work-groups",
        "none",
        "--reps",
        "2",
        "--db",
        db.to_str().expect("UTF-8"),
    ]);
    run.assert_success()
        .assert_stdout_contains(
            "tests/corpus/transpose_local_padded.toml (kernel transpose_local_padded) on simulator",
        )
        .assert_stdout_contains("unlocal:block")
        .assert_stdout_contains("winner: ")
        .assert_stdout_contains("over the kernel as written");
}

#[test]
fn bad_options_are_bad_input() {
    clmap(&["tune", MM, "--device", "sim", "--budget", "10x"]).assert_fails(1);
    clmap(&["tune", MM, "--device", "sim", "--work-groups", "16xq"]).assert_fails(1);
    clmap(&["tune", MM, "--device", "sim", "--kernel", "nope"]).assert_fails(1);
    clmap(&["tune", "--help"]).assert_success().assert_stdout_contains("clmap tune tests/corpus");
}

#[test]
fn tune_on_a_cpu_device_checks_times_and_asks_the_advisor() {
    if clmap_testkit::opencl_device_matching("cpu").is_none() {
        return;
    }
    let dir = Scratch::new("tune-cpu");
    let db = dir.join("tune.db");
    let db = db.to_str().expect("UTF-8");
    let args = [
        "tune",
        "tests/corpus/jacobi2d.toml",
        "--device",
        "cpu",
        "--work-groups",
        "32x8,8x8",
        "--seeds",
        "2",
        "--reps",
        "3",
        "--db",
        db,
        "--json",
    ];
    let first = clmap(&args);
    first
        .assert_success()
        .assert_stderr_contains("measuring 2 microbenchmark(s)")
        .assert_stderr_contains("wg:8x8: validating on the simulator (2 input sets)… checking on the device… timing…")
        .assert_stderr_contains("stage:A: validated on the simulator when built (2 input sets); checking on the device… timing…");
    let out = first.json();
    let device = &out["devices"][0];
    assert_ne!(device["device"], "simulator");
    assert!(device["clock"].as_str().unwrap_or("").contains("profiling events"));
    for name in ["as-written", "stage:A", "wg:32x8", "wg:8x8"] {
        let v = variant(device, name);
        assert_eq!(v["status"], "timed", "{v:#}");
        assert!(v["time"]["median_ns"].as_f64().expect("a time") > 0.0);
    }
    assert_eq!(variant(device, "stage:B")["status"], "refused", "the kernel writes B");
    assert!(device["winner"].is_string());
    // The advisor measured its microbenchmarks into the same database, and its advice (A is
    // MAP-508) is compared with the winner.
    let advisor = &device["advisor"];
    assert!(advisor["predicted"].is_boolean(), "{advisor:#}");
    let decisions = advisor["decisions"].as_array().expect("decisions");
    assert!(decisions.iter().any(|d| d.as_str().unwrap_or("").contains("MAP-508")), "{advisor:#}");
    let second = clmap(&args);
    second.assert_success();
    assert!(!second.stderr().contains("timing…"), "{}", second.describe());
    assert!(!second.stderr().contains("measuring"), "{}", second.describe());
    let again = second.json();
    assert_eq!(again["devices"][0]["winner"], device["winner"]);
    assert_eq!(again["devices"][0]["advisor"]["predicted"], advisor["predicted"]);
}
