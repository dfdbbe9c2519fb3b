//! `clmap phase` as a user meets it without a GPU: argument errors and exit codes, and the
//! campaign's workloads (each must run the same source as the small corpus workload that
//! validates it, so that one PTX serves both).

use std::path::{Path, PathBuf};
use std::process::Output;

use clmap_testkit::{clmap_command, Scratch};
use clmap_workload::Workload;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Runs clmap with a database of its own, so that no test writes the user's clmap.db.
fn clmap(args: &[&str]) -> Output {
    let scratch = Scratch::new("phase-cli");
    clmap_command()
        .args(args)
        .env("CLMAP_DB", scratch.join("clmap.db"))
        .output()
        .expect("clmap runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

const KERNELS: [&str; 15] = [
    "2dconv", "2mm", "3dconv", "3mm", "atax", "bicg", "corr", "covar", "fdtd2d", "gemm", "gesummv",
    "gramschm", "mvt", "syr2k", "syrk",
];

#[test]
fn a_missing_workload_is_bad_input() {
    let out = clmap(&["phase", "bench/phase/no_such_kernel.toml"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("no_such_kernel.toml"), "{}", text(&out.stderr));
}

#[test]
fn an_unknown_strategy_or_duration_is_refused_before_any_work() {
    let out = clmap(&["phase", "tests/corpus/pb_gemm.toml", "--strategy", "annealing"]);
    // A bad option is bad input (1); 2 is for kernels that misbehave.
    assert_eq!(out.status.code(), Some(1), "usage error");
    assert!(text(&out.stderr).contains("unknown strategy"), "{}", text(&out.stderr));
    let out = clmap(&["phase", "tests/corpus/pb_gemm.toml", "--time", "5 weeks"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("unit"), "{}", text(&out.stderr));
}

#[test]
fn help_explains_the_search() {
    let out = clmap(&["phase", "--help"]);
    assert_eq!(out.status.code(), Some(0));
    let help = text(&out.stdout);
    for needle in ["--budget", "--small", "--strategy", "CLMAP_LLVM_BIN", "resumes"] {
        assert!(help.contains(needle), "--help lacks {needle}");
    }
}

#[test]
fn campaign_workloads_share_source_and_kernels_with_their_small_workloads() {
    for kernel in KERNELS {
        let full_path = root().join(format!("bench/phase/{kernel}.toml"));
        let small_path = root().join(format!("tests/corpus/pb_{kernel}.toml"));
        let full = Workload::load(&full_path).unwrap_or_else(|e| panic!("{kernel}: {e}"));
        let small = Workload::load(&small_path).unwrap_or_else(|e| panic!("{kernel}: {e}"));
        assert_eq!(full.source, small.source, "{kernel}: sources differ");
        assert_eq!(full.options, small.options, "{kernel}: build options differ");
        assert_eq!(full.outputs, small.outputs, "{kernel}: outputs differ");
        let kernels = |w: &Workload| {
            let mut names: Vec<String> = w.launches.iter().map(|l| l.kernel.clone()).collect();
            names.sort();
            names.dedup();
            names
        };
        assert_eq!(kernels(&full), kernels(&small), "{kernel}: kernels differ");
        assert!(
            full.total_buffer_bytes() > 8 * small.total_buffer_bytes(),
            "{kernel}: the full workload is not larger than the small one"
        );
    }
}

#[test]
fn a_device_that_cannot_load_ptx_is_refused_before_any_compilation() {
    let out = clmap(&["phase", "tests/corpus/pb_gemm.toml", "--device", "cpu", "--budget", "1"]);
    let err = text(&out.stderr);
    match out.status.code() {
        // PoCL (CI): a CPU device cannot load PTX.
        Some(1) => assert!(err.contains("NVIDIA"), "{err}"),
        // No OpenCL at all on this machine.
        Some(3) => assert!(err.to_lowercase().contains("opencl"), "{err}"),
        other => panic!("unexpected exit {other:?}: {err}"),
    }
    assert!(!err.contains("pass pool"), "the toolchain was prepared first: {err}");
}

/// The whole command on PoCL with the real toolchain: PoCL cannot load PTX, so every candidate
/// fails validation, but compilation, the database, resumption and the report all run.
#[test]
fn the_command_runs_end_to_end_and_a_rerun_resumes() {
    let scratch = Scratch::new("phase-e2e");
    let db = scratch.join("phase.db");
    let db_arg = db.display().to_string();
    let args = [
        "phase",
        "tests/corpus/pb_gemm.toml",
        "--device",
        "cpu",
        "--any-device",
        "--budget",
        "4",
        "--length",
        "8",
        "--final-reps",
        "2",
        "--random-inputs",
        "1",
        "--db",
        &db_arg,
        "--json",
    ];
    let first = clmap(&args);
    let err = text(&first.stderr);
    match first.status.code() {
        Some(0) => {}
        Some(3)
            if std::env::var("CLMAP_REQUIRE_CLANG").as_deref() != Ok("1")
                && std::env::var("CLMAP_REQUIRE_OPENCL").as_deref() != Ok("1") =>
        {
            eprintln!("skipped: no toolchain or no OpenCL device ({err})");
            return;
        }
        other => panic!("exit {other:?}: {err}"),
    }
    let report: serde_json::Value = serde_json::from_slice(&first.stdout).expect("JSON report");
    assert_eq!(report["counts"]["sequences"], 4);
    assert_eq!(report["counts"]["resumed"], 0);
    assert_eq!(report["baselines"][0]["name"], "source");
    assert!(report["best"].is_null(), "PoCL cannot run PTX, so nothing is valid");
    // The device side ran in a worker process that nothing broke.
    assert_eq!(report["broke_device"], serde_json::json!([]));
    assert_eq!(report["device_restart_seconds"], serde_json::json!([]));
    assert!(report["device_start_seconds"].as_f64().is_some_and(|s| s > 0.0), "{report}");

    // The device side in the command's own process is the same search context.
    let mut in_process = args.to_vec();
    in_process.push("--in-process");
    let again = clmap(&in_process);
    assert_eq!(again.status.code(), Some(0), "{}", text(&again.stderr));
    let report: serde_json::Value = serde_json::from_slice(&again.stdout).expect("JSON report");
    assert_eq!(report["counts"]["resumed"], 4, "the rerun found every answer in the database");
    assert!(report["device_start_seconds"].is_null(), "no worker in the command's process");

    // --minimise-only reads the report the database stored (or the one given) and finishes
    // its minimisation; this one has no chosen sequence, which it says without searching.
    let mut minimise = args.to_vec();
    minimise.push("--minimise-only");
    let out = clmap(&minimise);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("nothing to minimise"), "{err}");
    let given = scratch.join("report.json");
    std::fs::write(&given, &again.stdout).expect("report written");
    let given_arg = given.display().to_string();
    minimise.extend(["--report", &given_arg]);
    let out = clmap(&minimise);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("nothing to minimise"), "{}", text(&out.stderr));
    std::fs::write(&given, "{\"best\": 3}").expect("written");
    let out = clmap(&minimise);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("is not a report of `clmap phase --json`"), "{err}");
    assert!(!err.contains("pass pool"), "refused before the toolchain work: {err}");

    // A report whose search database is gone, as if a GPU had chosen a sequence: in a fresh
    // database its chosen sequence is compiled again, and this toolchain's PTX is not the
    // report's, so the command refuses, naming both hashes.
    let mut earlier: serde_json::Value = serde_json::from_slice(&first.stdout).expect("JSON");
    earlier["best"] = serde_json::json!({
        "passes": ["instcombine", "licm"], "origin": "search", "ptx_hash": "00000000deadbeef",
        "median_ns": 1000.0, "samples_ns": [1000],
        "validation": {"full_inputs": {"verdict": "valid"}, "random_inputs": 1,
                       "random_passed": 1, "first_failure": null},
        "speedups": {}
    });
    earlier["minimised"] = serde_json::json!({
        "original_len": 2, "passes": ["instcombine", "licm"], "ptx_hash": "00000000deadbeef",
        "median_ns": 1000.0, "removed_same_code": 0, "removed_same_speed": 0,
        "noise_margin": 0.02, "counts": {}, "complete": false, "validated": null,
        "final_median_ns": null
    });
    std::fs::write(&given, earlier.to_string()).expect("written");
    let fresh_db = scratch.join("fresh.db").display().to_string();
    let mut from_report = minimise.clone();
    let at = from_report.iter().position(|a| *a == db_arg).expect("--db given");
    from_report[at] = &fresh_db;
    let out = clmap(&from_report);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("compiles here to PTX") && err.contains("00000000deadbeef"), "{err}");
}

#[test]
fn a_report_is_only_taken_by_minimise_only() {
    let out = clmap(&["phase", "tests/corpus/pb_gemm.toml", "--report", "r.json"]);
    assert_eq!(out.status.code(), Some(1), "usage error: {}", text(&out.stderr));
    assert!(text(&out.stderr).contains("--minimise-only"), "{}", text(&out.stderr));
}

#[test]
fn given_sequences_are_read_before_any_device_or_toolchain_work() {
    let out = clmap(&["phase", "tests/corpus/pb_gemm.toml", "--sequences", "no_such_list.txt"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("cannot read no_such_list.txt"), "{}", text(&out.stderr));
    // A report whose search found nothing valid has no sequence to give.
    let dir = clmap_testkit::Scratch::new("phase-given");
    let report = dir.join("empty.json");
    let stored =
        std::fs::read_to_string(root().join("bench/results/phase_original/gemm_h100.json"))
            .expect("a stored report");
    let mut json: serde_json::Value = serde_json::from_str(&stored).unwrap();
    json["best"] = serde_json::Value::Null;
    json["minimised"] = serde_json::Value::Null;
    std::fs::write(&report, json.to_string()).unwrap();
    let out =
        clmap(&["phase", "tests/corpus/pb_gemm.toml", "--sequences", report.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("no chosen sequence"), "{}", text(&out.stderr));
    let out = clmap(&["phase", "tests/corpus/pb_gemm.toml", "--sequences", "x", "--shard", "0/2"]);
    assert_eq!(out.status.code(), Some(1), "usage error: {}", text(&out.stderr));
}

/// The same-code stage of a GPU campaign's report on this machine, without any device: the
/// stored MVT report of the H100 campaign, its minimisation dropped, so that it starts again
/// from the 52-pass chosen sequence. The toolchain is the one the campaign carried (LLVM 16
/// and libclc of this distribution), so the sequence compiles here to the report's PTX.
#[test]
fn the_same_code_stage_of_a_gpu_report_runs_without_a_device() {
    let scratch = Scratch::new("phase-same-code");
    let stored =
        std::fs::read_to_string(root().join("bench/results/phase_corpus_1000/mvt_h100.json"))
            .expect("a stored report");
    let mut report: serde_json::Value = serde_json::from_str(&stored).unwrap();
    report["minimised"] = serde_json::Value::Null;
    let chosen_hash = report["best"]["ptx_hash"].as_str().expect("a chosen PTX").to_string();
    let chosen_len = report["best"]["passes"].as_array().expect("passes").len();
    let given = scratch.join("mvt.json");
    std::fs::write(&given, report.to_string()).unwrap();
    let db = scratch.join("cpu.db");
    let (given_arg, db_arg) = (given.display().to_string(), db.display().to_string());
    let args = [
        "phase",
        "bench/phase/mvt.toml",
        "--small",
        "tests/corpus/pb_mvt.toml",
        "--minimise-only",
        "--report",
        &given_arg,
        "--same-code-only",
        "--db",
        &db_arg,
        "--json",
        "--time",
        "60s",
    ];
    let out = clmap_command().current_dir(root()).args(args).output().expect("clmap runs");
    let err = text(&out.stderr);
    match out.status.code() {
        Some(0) => {}
        Some(3) if std::env::var("CLMAP_REQUIRE_CLANG").as_deref() != Ok("1") => {
            eprintln!("skipped: no toolchain ({err})");
            return;
        }
        other => panic!("exit {other:?}: {err}"),
    }
    let shortened: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON report");
    let minimised = &shortened["minimised"];
    let passes = minimised["passes"].as_array().expect("a minimised sequence").len();
    assert!(passes < chosen_len / 2, "{passes} of {chosen_len} passes left: {minimised}");
    assert_eq!(minimised["ptx_hash"], chosen_hash.as_str(), "the same code");
    assert_eq!(minimised["complete"], false, "the timed stage is left for the GPU");
    assert_eq!(minimised["removed_same_code"], chosen_len - passes);
    assert_eq!(minimised["counts"]["timed"], 0);
    assert_eq!(shortened["device"], report["device"], "still the GPU's report");
    assert!(err.contains("-> ") && err.contains("same PTX"), "{err}");

    // Another toolchain's code (here: a hash no compiler gives) is refused, naming both.
    report["best"]["ptx_hash"] = "00000000deadbeef".into();
    std::fs::write(&given, report.to_string()).unwrap();
    let out = clmap_command().current_dir(root()).args(args).output().expect("clmap runs");
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("00000000deadbeef") && err.contains("compiles here to PTX"), "{err}");

    // It needs the report: there is no device to find a stored one by.
    let out = clmap(&["phase", "bench/phase/mvt.toml", "--minimise-only", "--same-code-only"]);
    assert_eq!(out.status.code(), Some(1), "usage error: {}", text(&out.stderr));
    assert!(text(&out.stderr).contains("--report"), "{}", text(&out.stderr));
}
