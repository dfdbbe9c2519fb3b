//! `clmap advise WORKLOAD`: advice on corpus workloads from a database whose measurements the
//! test writes itself (so each rule's outcome is known), the JSON shape, the refusal to measure
//! with `--no-measure`, and a small campaign on a CPU OpenCL device when there is one.

mod common;

use std::path::{Path, PathBuf};

use clmap_aristotle::store::{self, UnitKey, UnitResult, UnitSetup};
use clmap_db::Database;
use clmap_testkit::{clmap, Scratch};

const DEVICE: &str = "advise test gpu";
/// Bytes every stored sample moved: a bandwidth of `g` GB/s is a time of `BYTES / g` ns.
const BYTES: u64 = 1_000_000;

/// A database with one device and, per `(map, dataset, b, B)`, the `nolocal` unit measured at
/// b and the `stage` (the advisor's default B) and `max` units at B (three equal samples each),
/// on 16 × 16 work-groups.
fn database(dir: &Scratch, records: &[(u16, usize, f64, f64)]) -> PathBuf {
    let records: Vec<Record> =
        records.iter().map(|&(map, n, b, big_b)| (map, n, b, big_b, [16, 16], 0.0)).collect();
    database_on(dir, &records)
}

/// `(map, dataset, b, B, work-group, spread)`: the samples are the mean's times × (1 − spread,
/// 1, 1 + spread).
type Record = (u16, usize, f64, f64, [usize; 2], f64);

/// [`database`] with each record's work-group and spread.
fn database_on(dir: &Scratch, records: &[Record]) -> PathBuf {
    let path = dir.join("advise.db");
    let (mut db, device) =
        common::test_gpu_database(&path, DEVICE, serde_json::json!({ "local_mem_bytes": 49152 }));
    for &(map, dataset, b, big_b, work_group, spread) in records {
        let setup = UnitSetup { work_group, warmup: 1, flush_cache: true };
        for (variant, gbs) in [("nolocal", b), ("stage", big_b), ("max", big_b)] {
            let ns = BYTES as f64 / gbs;
            let samples_ns =
                [1.0 - spread, 1.0, 1.0 + spread].map(|f| (ns * f).round() as u64).to_vec();
            let key = UnitKey { map, variant: variant.into(), dataset };
            let result = UnitResult::Measured { bytes_moved: BYTES, samples_ns };
            store::record_unit(&mut db, device, &key, &setup, &result).expect("unit");
        }
    }
    path
}

fn advise(workload: &str, db: &Path, extra: &[&str]) -> clmap_testkit::ClmapRun {
    let db = db.to_str().expect("UTF-8 path");
    let mut args = vec!["advise", workload, "--device", DEVICE, "--db", db];
    args.extend_from_slice(extra);
    clmap(&args)
}

fn entry<'a>(list: &'a serde_json::Value, kernel: &str, buffer: &str) -> &'a serde_json::Value {
    list.as_array()
        .expect("a list")
        .iter()
        .find(|e| e["kernel"] == kernel && e["buffer"] == buffer)
        .unwrap_or_else(|| panic!("no entry for {kernel}/{buffer} in {list:#}"))
}

#[test]
fn matrix_multiply_stages_the_only_gainer() {
    // A is MAP-204 (rows) and gains 2.5×; B is MAP-303 (columns) and loses: rules 5.2 and 5.1.
    let dir = Scratch::new("advise-mm");
    let db = database(&dir, &[(204, 256, 10.0, 25.0), (303, 256, 10.0, 5.0)]);
    let run = advise("tests/corpus/mm_simple.toml", &db, &[]);
    run.assert_success()
        .assert_stdout_contains("kernel simpleMultiply: (l, g)")
        .assert_stdout_contains(
            "A: MAP-204, N = 256 → stage in __local; expected gain ×2.50; rule 5.2",
        )
        .assert_stdout_contains(
            "B: MAP-303, N = 256 → keep in __global; expected gain ×1.00; rule 5.1",
        )
        .assert_stdout_contains(
            "b = 10.00 ± 0.00 GB/s: MAP-204 nolocal at N = 256 on 16x16, 3 samples, \
             performance database",
        )
        .assert_stdout_contains("B = 25.00 ± 0.00 GB/s: MAP-204 stage at N = 256")
        .assert_stdout_contains("B from the `stage` variant");
    assert!(!run.stderr().contains("measuring"), "{}", run.describe());
}

#[test]
fn json_has_one_object_per_buffer_with_rule_and_measurements() {
    let dir = Scratch::new("advise-json");
    let db = database(&dir, &[(204, 256, 10.0, 25.0), (303, 256, 10.0, 5.0)]);
    let run = advise("tests/corpus/mm_simple.toml", &db, &["--json"]);
    run.assert_success();
    let list = run.json();
    assert_eq!(list.as_array().map(Vec::len), Some(2), "{list:#}");
    let a = entry(&list, "simpleMultiply", "A");
    assert_eq!(a["map"], "MAP-204");
    assert_eq!(a["advice"], "local");
    assert_eq!(a["rule"], "5.2");
    assert!((a["expected_gain"].as_f64().expect("gain") - 2.5).abs() < 1e-6, "{a:#}");
    let measurements = a["measurements"].as_array().expect("measurements");
    assert_eq!(measurements.len(), 2);
    assert_eq!(measurements[0]["variant"], "nolocal");
    assert_eq!(measurements[0]["samples"], 3);
    assert_eq!(measurements[0]["source"], "performance database");
    assert!((measurements[1]["bandwidth_gbs"].as_f64().expect("B") - 25.0).abs() < 1e-6);
    let b = entry(&list, "simpleMultiply", "B");
    assert_eq!((b["advice"].as_str(), b["rule"].as_str()), (Some("global"), Some("5.1")));
    assert!(a["local_bytes"].as_u64().expect("local bytes") > 0);
}

#[test]
fn several_gainers_are_ranked_by_weight_while_local_memory_lasts() {
    // Both gain, A more: rule 5.3 stages both, and only A when local memory holds one tile.
    let dir = Scratch::new("advise-ranked");
    let db = database(&dir, &[(204, 256, 10.0, 30.0), (303, 256, 10.0, 15.0)]);
    let roomy = advise("tests/corpus/mm_simple.toml", &db, &["--json"]);
    roomy.assert_success();
    let list = roomy.json();
    for buffer in ["A", "B"] {
        let e = entry(&list, "simpleMultiply", buffer);
        assert_eq!((e["advice"].as_str(), e["rule"].as_str()), (Some("local"), Some("5.3")));
    }
    let a_bytes = entry(&list, "simpleMultiply", "A")["local_bytes"].as_u64().expect("bytes");
    let capacity = a_bytes.to_string();
    let tight =
        advise("tests/corpus/mm_simple.toml", &db, &["--json", "--local-capacity", &capacity]);
    tight.assert_success();
    let list = tight.json();
    assert_eq!(entry(&list, "simpleMultiply", "A")["advice"], "local");
    let b = entry(&list, "simpleMultiply", "B");
    assert_eq!((b["advice"].as_str(), b["rule"].as_str()), (Some("global"), Some("5.3")));
    assert!(b["reasoning"].as_str().expect("text").contains("exceed"), "{b:#}");
}

#[test]
fn jacobi_is_asked_about_its_own_grid() {
    // The 96 × 96 grid is dataset 96; a loss there keeps the stencil in global memory.
    let dir = Scratch::new("advise-jacobi");
    let db = database(&dir, &[(508, 96, 20.0, 10.0)]);
    let run = advise("tests/corpus/jacobi2d.toml", &db, &["--json"]);
    run.assert_success();
    let a = entry(&run.json(), "jacobi2d_step", "A").clone();
    assert_eq!(a["map"], "MAP-508");
    assert_eq!(a["dataset"], 96);
    assert_eq!((a["advice"].as_str(), a["rule"].as_str()), (Some("global"), Some("5.1")));
}

#[test]
fn undetected_buffers_are_listed_with_the_detectors_reason() {
    let dir = Scratch::new("advise-undetected");
    let db = database_on(&dir, &[(205, 256, 10.0, 15.0, [64, 1], 0.0)]);
    let run = advise("tests/corpus/pb_mvt.toml", &db, &[]);
    run.assert_success()
        .assert_stdout_contains("no MAP detected (no advice):")
        .assert_stdout_contains(
            "x1 in mvt_kernel1: eMAP-02 [0 0; 0 1] ((0, tx)) with a Single iMAP",
        )
        // `a`'s rows belong to one work-item each: nothing to measure, kept in global memory.
        .assert_stdout_contains("the stager does not tile it: a 64x1 work-group reads each");
    assert!(!run.stdout().contains("(no measurement"), "{}", run.describe());
    let json = advise("tests/corpus/pb_mvt.toml", &db, &["--json"]);
    let x1 = entry(&json.json(), "mvt_kernel1", "x1").clone();
    assert!(x1["map"].is_null() && x1["advice"].is_null(), "{x1:#}");
    assert!(x1["reasoning"].as_str().expect("text").contains("no MAP detected"), "{x1:#}");
}

#[test]
fn a_vector_every_work_item_walks_is_asked_about_at_its_length() {
    // `y1[j]` under `for (j < n)` in a 1-D kernel: MAP-205, a row the group shares, asked
    // about as a row of its 256 elements (not as a 16 × 16 square), on the kernel's 64 × 1
    // work-groups.
    let dir = Scratch::new("advise-vector");
    let db = database_on(&dir, &[(205, 256, 10.0, 15.0, [64, 1], 0.0)]);
    let json = advise("tests/corpus/pb_mvt.toml", &db, &["--json"]);
    let list = json.json();
    let y1 = entry(&list, "mvt_kernel1", "y1");
    assert_eq!((y1["map"].as_str(), y1["dataset"].as_u64()), (Some("MAP-205"), Some(256)));
    assert_eq!((y1["advice"].as_str(), y1["rule"].as_str()), (Some("local"), Some("5.2")));
    let a = entry(&list, "mvt_kernel1", "a");
    assert_eq!((a["map"].as_str(), a["advice"].as_str()), (Some("MAP-204"), Some("global")));
}

#[test]
fn no_measure_names_what_is_missing_and_the_command_that_measures_it() {
    // The database has the device at N = 256 only; jacobi2d needs MAP-508 at N = 96.
    let dir = Scratch::new("advise-missing");
    let db = database(&dir, &[(508, 256, 20.0, 10.0)]);
    let run = advise("tests/corpus/jacobi2d.toml", &db, &["--no-measure"]);
    run.assert_fails(1)
        .assert_stderr_contains("lacks 2 measurement(s)")
        .assert_stderr_contains("MAP-508 nolocal at N = 96 (16x16 work-groups)")
        .assert_stderr_contains(
            "clmap bench maps --device 'advise test gpu' --maps 508 --sizes 96 \
             --variants nolocal,stage --work-group 16x16 --db",
        );
    // A device the database has never seen is missing everything.
    let empty = dir.join("empty.db");
    let run = clmap(&[
        "advise",
        "tests/corpus/mm_simple.toml",
        "--device",
        "nowhere",
        "--db",
        empty.to_str().expect("UTF-8"),
        "--no-measure",
    ]);
    run.assert_fails(1)
        .assert_stderr_contains("no device in the database matches it")
        .assert_stderr_contains("--maps 204,303 --sizes 256");
}

#[test]
fn measurements_on_the_launchs_work_group_decide() {
    // pb_gemm runs 32 × 8 work-groups on 64 × 64 matrices: a (MAP-205) and b (MAP-302) at
    // N = 64. On 16 × 16 groups staging b loses and staging a gains; on the kernel's own 32 × 8
    // it is the other way round, and the advice follows the 32 × 8 records.
    let dir = Scratch::new("advise-shape");
    let db = database_on(
        &dir,
        &[
            (205, 64, 10.0, 20.0, [16, 16], 0.0),
            (302, 64, 10.0, 5.0, [16, 16], 0.0),
            (205, 64, 10.0, 8.0, [32, 8], 0.0),
            (302, 64, 10.0, 14.0, [32, 8], 0.0),
        ],
    );
    let run = advise("tests/corpus/pb_gemm.toml", &db, &["--json", "--no-measure"]);
    run.assert_success();
    let list = run.json();
    let a = entry(&list, "gemm", "a");
    assert_eq!((a["advice"].as_str(), a["rule"].as_str()), (Some("global"), Some("5.1")));
    let b = entry(&list, "gemm", "b");
    assert_eq!((b["advice"].as_str(), b["rule"].as_str()), (Some("local"), Some("5.2")));
    assert_eq!(b["measurements"][1]["work_group"], serde_json::json!([32, 8]), "{b:#}");
    assert!((b["expected_gain"].as_f64().expect("gain") - 1.4).abs() < 1e-3, "{b:#}");

    // With the 16 × 16 records alone, the 32 × 8 units are missing: the advice measures them
    // rather than answer from another launch shape.
    let other = Scratch::new("advise-shape-missing");
    let db = database_on(
        &other,
        &[(205, 64, 10.0, 20.0, [16, 16], 0.0), (302, 64, 10.0, 5.0, [16, 16], 0.0)],
    );
    advise("tests/corpus/pb_gemm.toml", &db, &["--no-measure"])
        .assert_fails(1)
        .assert_stderr_contains("lacks 4 measurement(s)")
        .assert_stderr_contains("MAP-302 stage at N = 64 (32x8 work-groups)");
}

#[test]
fn nearest_answers_from_the_records_there_are_and_measures_nothing() {
    // Only 16 × 16 records at N = 256 for pb_gemm's 32 × 8 launch at N = 64: --no-measure
    // refuses, --nearest answers from them and says so in each buffer's reasoning.
    let dir = Scratch::new("advise-nearest");
    let db = database_on(
        &dir,
        &[(205, 256, 10.0, 20.0, [16, 16], 0.0), (302, 256, 10.0, 5.0, [16, 16], 0.0)],
    );
    let run = advise("tests/corpus/pb_gemm.toml", &db, &["--json", "--nearest"]);
    run.assert_success();
    assert!(!run.stderr().contains("measuring"), "{}", run.stderr());
    let list = run.json();
    let a = entry(&list, "gemm", "a");
    assert_eq!((a["advice"].as_str(), a["rule"].as_str()), (Some("local"), Some("5.2")));
    assert_eq!(a["dataset"].as_u64(), Some(64));
    assert_eq!(a["work_group"], serde_json::json!([32, 8]), "{a:#}");
    assert_eq!(a["measurements"][0]["dataset"].as_u64(), Some(256), "{a:#}");
    assert_eq!(a["measurements"][0]["work_group"], serde_json::json!([16, 16]), "{a:#}");
    let why = a["reasoning"].as_str().expect("reasoning");
    assert!(why.contains("none on the launch's 32x8"), "{why}");
    let b = entry(&list, "gemm", "b");
    assert_eq!((b["advice"].as_str(), b["rule"].as_str()), (Some("global"), Some("5.1")));
    // Nothing was added to the database.
    let again = advise("tests/corpus/pb_gemm.toml", &db, &["--no-measure"]);
    again.assert_fails(1).assert_stderr_contains("lacks 4 measurement(s)");
    // --nearest and --no-measure are two answers to the same gap: one at a time.
    advise("tests/corpus/pb_gemm.toml", &db, &["--nearest", "--no-measure"]).assert_fails(1);
}

#[test]
fn a_ratio_within_the_runs_spread_keeps_the_kernel_as_written() {
    // mm_float4_tiled stages A (MAP-205 at N = 32 on 8 × 8 groups) and reads B (MAP-302)
    // from global memory. Both ratios are 1.2, but the runs spread by 20 % each side: a tie,
    // so both stay as the kernel has them, staged A staged, global B global.
    let dir = Scratch::new("advise-tie");
    let noisy = [(205, 32, 10.0, 12.0, [8, 8], 0.2), (302, 32, 10.0, 12.0, [8, 8], 0.2)];
    let db = database_on(&dir, &noisy);
    let run = advise("tests/corpus/mm_float4_tiled.toml", &db, &["--json"]);
    run.assert_success();
    let list = run.json();
    let a = entry(&list, "mm_float4_tiled", "A");
    assert_eq!(a["staged_now"], true);
    assert_eq!((a["advice"].as_str(), a["rule"].as_str()), (Some("local"), Some("tie")));
    let b = entry(&list, "mm_float4_tiled", "B");
    assert_eq!((b["advice"].as_str(), b["rule"].as_str()), (Some("global"), Some("5.1")));
    assert!(b["reasoning"].as_str().expect("text").contains("spread"), "{b:#}");
    for e in [a, b] {
        assert!((e["expected_gain"].as_f64().expect("gain") - 1.0).abs() < 1e-9, "{e:#}");
    }
    // The same ratios measured quietly are gains: both staged (rule 5.3, two gainers).
    let quiet = Scratch::new("advise-tie-quiet");
    let db = database_on(
        &quiet,
        &[(205, 32, 10.0, 12.0, [8, 8], 0.0), (302, 32, 10.0, 12.0, [8, 8], 0.0)],
    );
    let list = advise("tests/corpus/mm_float4_tiled.toml", &db, &["--json"]).json();
    for buffer in ["A", "B"] {
        let e = entry(&list, "mm_float4_tiled", buffer);
        assert_eq!((e["advice"].as_str(), e["rule"].as_str()), (Some("local"), Some("5.3")));
    }
}

#[test]
fn the_maps_form_still_answers() {
    let dir = Scratch::new("advise-maps");
    let db = database(&dir, &[(204, 256, 10.0, 25.0), (303, 256, 10.0, 5.0)]);
    let db = db.to_str().expect("UTF-8");
    clmap(&["advise", "--device", DEVICE, "--maps", "204,303", "--sizes", "256", "--db", db])
        .assert_success()
        .assert_stdout_contains("(l, g)");
    // A workload and --maps are two ways to ask, not one: a usage error (exit 1).
    clmap(&["advise", "tests/corpus/mm_simple.toml", "--device", DEVICE, "--maps", "204"])
        .assert_fails(1);
}

#[test]
fn help_has_an_example() {
    clmap(&["advise", "--help"])
        .assert_success()
        .assert_stdout_contains("clmap advise tests/corpus/mm_simple.toml --device");
}

#[test]
fn missing_measurements_are_taken_by_a_small_campaign_then_reused() {
    if clmap_testkit::opencl_device_matching("cpu").is_none() {
        return;
    }
    let dir = Scratch::new("advise-campaign");
    let db = dir.join("campaign.db");
    let db = db.to_str().expect("UTF-8");
    // With the launch-bound check on (it is off by default), so that its unit is taken too.
    let args = [
        "advise",
        "tests/corpus/jacobi2d.toml",
        "--device",
        "cpu",
        "--db",
        db,
        "--reps",
        "3",
        "--launch-multiple",
        "4",
    ];
    let first = clmap(&args);
    first
        .assert_success()
        .assert_stderr_contains("measuring 2 microbenchmark(s)")
        // The launch's cost on the work-group, which says whether N = 96 is launch-bound.
        .assert_stderr_contains("launch cost: MAP-508 on one work-group (N = 16)")
        .assert_stdout_contains("A: MAP-508, N = 96")
        .assert_stdout_contains(" samples, measured now by this command");
    // Two samples per unit (`--reps 3`, the first discarded), or more when the record was a
    // tie and the advisor measured it again: the second run answers with as many.
    let samples = samples_before(&first.stdout(), " samples, measured now by this command");
    assert!(samples >= 2, "{}", first.describe());
    let units = || -> i64 {
        Database::open(Path::new(db))
            .expect("database")
            .connection()
            .query_row("SELECT count(*) FROM aristotle_units", [], |row| row.get(0))
            .expect("count")
    };
    // MAP-508's nolocal and stage units at N = 96 and nolocal at N = 16, and more when the
    // timings (this machine's load) made N = 96 look launch-bound and the advisor measured
    // again on larger data.
    let measured = units();
    assert!(measured >= 3, "{measured} units\n{}", first.describe());
    let again = clmap(&args);
    again
        .assert_success()
        .assert_stdout_contains(&format!("{samples} samples, performance database"));
    assert!(!again.stderr().contains("measuring"), "{}", again.describe());
    assert!(!again.stderr().contains("advisor,"), "{}", again.describe());
    assert_eq!(units(), measured, "the second run measured nothing\n{}", again.describe());
}

/// The number just before the first `marker` in `text` (e.g. "40" in "…, 40 samples, …").
fn samples_before(text: &str, marker: &str) -> u64 {
    let at = text.find(marker).unwrap_or_else(|| panic!("no {marker:?} in:\n{text}"));
    let digits: String = text[..at]
        .chars()
        .rev()
        .take_while(char::is_ascii_digit)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    digits.parse().unwrap_or_else(|_| panic!("no count before {marker:?} in:\n{text}"))
}
