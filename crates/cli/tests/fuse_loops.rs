//! `clmap fuse` on pipelines the first generator refused: an even number of fused steps,
//! whose result ends in a scratch buffer renamed by the host, and a host loop whose
//! repetitions fuse into each other. The fused workload must give the original's output
//! files byte for byte under `clmap run --out`, with fewer launches.

use clmap_testkit::{clmap, Scratch};

fn run_outputs(workload: &str, dir: &Scratch, name: &str) -> (u64, Vec<(String, Vec<u8>)>) {
    let out = dir.join(name);
    let run = clmap(&["run", workload, "--out", &out.display().to_string(), "--json"]);
    run.assert_success();
    let launches = run.json()["launches"].as_u64().expect("a launch count");
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(&out)
        .expect("the output folder")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "bin"))
        .map(|p| {
            (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).unwrap())
        })
        .collect();
    files.sort();
    (launches, files)
}

#[test]
fn four_fused_steps_end_on_the_buffers_the_host_names() {
    let dir = Scratch::new("fuse-even-steps");
    let fused = dir.join("even.toml").display().to_string();
    let original = "crates/fuse/tests/data/pingpong_distinct.toml";
    let run = clmap(&["fuse", original, "-o", &fused, "--tile", "16x8", "--steps", "4", "--json"]);
    run.assert_success();
    assert_eq!(run.json()["segments"][0]["steps"], 4);
    let toml = std::fs::read_to_string(&fused).expect("the fused workload");
    assert!(toml.contains("fuse_scratch0"), "a scratch buffer:\n{toml}");
    let (before, expected) = run_outputs(original, &dir, "before");
    let (after, found) = run_outputs(&fused, &dir, "after");
    // 10 steps: 2 fused launches of 4, then 2 unfused.
    assert_eq!((before, after), (10, 4));
    let names: Vec<&str> = found.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names.len(), 2, "only the host's outputs, not the scratch buffer: {names:?}");
    assert!(expected == found, "the fused pipeline's outputs differ from the original's");
}

#[test]
fn a_host_loop_fuses_its_repetitions_into_each_other() {
    let dir = Scratch::new("fuse-host-loop");
    let fused = dir.join("loop.toml").display().to_string();
    let original = "crates/fuse/tests/data/group_repeated.toml";
    let run = clmap(&["fuse", original, "-o", &fused, "--tile", "64", "--steps", "3", "--explain"]);
    run.assert_success();
    run.assert_stdout_contains("3 repetitions fused per launch");
    let (before, expected) = run_outputs(original, &dir, "before");
    let (after, found) = run_outputs(&fused, &dir, "after");
    assert_eq!((before, after), (20, 5));
    assert_eq!(expected.len(), 3);
    assert!(expected == found, "the fused pipeline's outputs differ from the original's");
}
