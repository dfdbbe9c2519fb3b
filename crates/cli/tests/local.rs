//! `clmap local`: the diff, JSON, a written workload that runs, refusals with their line, and
//! a staged kernel validated on an OpenCL device.

use clmap_testkit::{clmap, opencl_device, Scratch};

#[test]
fn prints_the_diff_and_says_what_was_validated() {
    let run = clmap(&["local", "tests/corpus/mm_simple.toml", "--buffer", "A"]);
    run.assert_success();
    let out = run.stdout();
    assert!(out.starts_with("--- a/mm_simple.cl\n+++ b/mm_simple.cl\n"), "{out}");
    assert!(out.contains("+    __local float A_tile[16 * 256];"), "{out}");
    assert!(
        out.contains("+        acc += B[k * N + globalCol] * A_tile[get_local_id(0) * 256 + k];"),
        "{out}"
    );
    let err = run.stderr();
    assert!(err.contains("MAP-204 (Row)"), "{err}");
    assert!(err.contains("validated on the simulator: 3 input sets, outputs C agree"), "{err}");
}

#[test]
fn json_gives_the_footprint_the_validation_and_the_diff() {
    let run = clmap(&["local", "tests/corpus/jacobi2d.toml", "--buffer", "A", "--json"]);
    run.assert_success();
    let value: serde_json::Value = serde_json::from_str(&run.stdout()).expect("JSON");
    assert_eq!(value["kernel"], "jacobi2d_step");
    assert_eq!(value["buffer"], "A");
    assert_eq!(value["staged"], true);
    assert_eq!(value["map"], "MAP-508");
    assert_eq!(value["footprint"]["imap"], "Neighbor");
    assert_eq!(value["footprint"]["rows"], 18);
    assert_eq!(value["footprint"]["columns"], 18);
    assert_eq!(value["validation"]["seeds"], 3);
    assert_eq!(value["validation"]["outputs"][0], "A");
    assert!(value["diff"].as_str().unwrap().contains("A_tile"), "{value}");
}

#[test]
fn a_refusal_names_the_reason_and_the_line_in_json_and_text() {
    let run = clmap(&["local", "tests/stage/refuse_gather.toml", "--buffer", "in", "--json"]);
    run.assert_fails(1);
    let value: serde_json::Value = serde_json::from_str(&run.stdout()).expect("JSON");
    assert_eq!(value["staged"], false);
    assert!(value["refused"]["reason"].as_str().unwrap().contains("data-dependent"), "{value}");
    assert_eq!(value["refused"]["at"]["line"], 7);
    let run = clmap(&["local", "tests/stage/refuse_smooth_in_place.toml", "--buffer", "in"]);
    run.assert_fails(1);
    let err = run.stderr();
    assert!(err.contains("refuse.cl:16:"), "{err}");
    assert!(err.contains("in[i] = 0.0f;"), "{err}");
}

#[test]
fn output_writes_a_workload_that_runs() {
    let scratch = Scratch::new("clmap-local");
    let out = scratch.join("box.toml");
    let out_text = out.to_str().unwrap();
    let run = clmap(&["local", "tests/stage/box5x5.toml", "--buffer", "in", "-o", out_text]);
    run.assert_success();
    let source = std::fs::read_to_string(scratch.join("box.cl")).expect("the staged source");
    assert!(source.contains("__local float in_tile[20 * 20];"), "{source}");
    clmap(&["run", out_text]).assert_success();
}

#[test]
fn validates_on_an_opencl_device() {
    if opencl_device().is_none() {
        return;
    }
    let selector = std::env::var("CLMAP_TEST_DEVICE").unwrap_or_else(|_| "cpu".into());
    let run = clmap(&[
        "local",
        "tests/corpus/pb_2dconv.toml",
        "--buffer",
        "A",
        "--validate-on",
        &selector,
    ]);
    run.assert_success();
    assert!(run.stderr().contains("validated on "), "{}", run.stderr());
}

#[test]
fn help_has_examples() {
    let run = clmap(&["local", "--help"]);
    assert!(run.stdout().contains("clmap local tests/corpus/mm_simple.toml --buffer A"));
}
