//! Workloads with host loops end to end, and `clmap workload --skeleton`.
//!
//! The host-loop example runs through `clmap run` on the simulator and, through the exec
//! differential, on an OpenCL CPU device (PoCL in CI): the outputs must agree. Without a
//! device the device half says why and passes, unless `CLMAP_REQUIRE_OPENCL=1`.

use std::path::{Path, PathBuf};
use std::process::Command;

use clmap_exec::{differential, PreparedWorkload, Side, StopAt, Target};
use clmap_sim::SimOptions;
use clmap_testkit::Scratch;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn clmap(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_clmap")).args(args).output().expect("clmap runs")
}

#[test]
fn the_host_loop_example_runs_on_the_simulator_and_agrees_with_a_device() {
    let path = root().join("examples/hotspot_pyramid.toml");
    let out = clmap(&["run", path.to_str().expect("utf-8"), "--json"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    let report: serde_json::Value = serde_json::from_str(&stdout).expect("json");
    // 5 rounds of {step; copy}.
    assert_eq!(report["launches"], 10, "{report:#}");

    let prepared = PreparedWorkload::load(&path).expect("loads");
    let simulator = Target::Simulator(SimOptions::default());
    let selector = std::env::var("CLMAP_TEST_DEVICE").unwrap_or_else(|_| "cpu".to_string());
    let device = match Target::select(&selector, SimOptions::default()) {
        Ok(t) => t,
        Err(e) if std::env::var("CLMAP_REQUIRE_OPENCL").as_deref() == Ok("1") => {
            panic!("CLMAP_REQUIRE_OPENCL=1 but no OpenCL device: {e}")
        }
        Err(e) => {
            eprintln!("skipped the device half: no OpenCL device ({e})");
            return;
        }
    };
    let answer = differential(
        Side::new(&prepared, &simulator),
        Side::new(&prepared, &device),
        1,
        StopAt::Never,
    )
    .expect("both sides run");
    assert!(answer.outputs_agree(), "{}", answer.render("hotspot_pyramid"));
}

#[test]
fn the_host_writes_and_the_growing_start_step_change_the_result() {
    // Without the heater write and with a constant start step the result differs: the
    // features are not silently ignored by the backends.
    let path = root().join("examples/hotspot_pyramid.toml");
    let text = std::fs::read_to_string(&path).expect("read");
    let dir = Scratch::new("variants");
    std::fs::copy(root().join("examples/hotspot_pyramid.cl"), dir.join("hotspot_pyramid.cl"))
        .expect("copy");
    let simulator = Target::Simulator(SimOptions::default());
    let temp_of = |text: &str, name: &str| {
        let p = dir.join(name);
        std::fs::write(&p, text).expect("write");
        let prepared = PreparedWorkload::load(&p).unwrap_or_else(|e| panic!("{name}: {e}"));
        let run = clmap_exec::run_on(&simulator, &prepared, 0).expect("runs");
        run.buffers.get("temp").expect("temp").bytes.clone()
    };
    let full = temp_of(&text, "full.toml");
    let constant = temp_of(&text.replace("\"i * pyramid\"", "0"), "constant.toml");
    assert_ne!(full, constant, "start_step must vary with the round");
    let start = text.find("[[group.launch.write]]").expect("write table");
    let end = text[start..].find("[[group.launch]]").expect("next launch") + start;
    let unwritten = format!("{}{}", &text[..start], &text[end..]);
    assert_ne!(full, temp_of(&unwritten, "unwritten.toml"), "the heater write must happen");
}

#[test]
fn skeletons_load_back_and_run_on_the_simulator() {
    let dir = Scratch::new("skeleton");
    for (kernel_file, kernel) in [("vector_add.cl", "vector_add"), ("jacobi.cl", "jacobi_step")] {
        let cl = root().join("examples").join(kernel_file);
        let out = dir.join(format!("{kernel}.toml"));
        let made = clmap(&[
            "workload",
            "--skeleton",
            cl.to_str().expect("utf-8"),
            "--kernel",
            kernel,
            "-o",
            out.to_str().expect("utf-8"),
        ]);
        assert!(made.status.success(), "{}", String::from_utf8_lossy(&made.stderr));
        let text = std::fs::read_to_string(&out).expect("written");
        assert!(text.contains("[sizes]") && text.contains("TODO"), "{text}");
        let ran = clmap(&["run", out.to_str().expect("utf-8")]);
        assert!(
            ran.status.success(),
            "{kernel}:\n{text}\n{}{}",
            String::from_utf8_lossy(&ran.stdout),
            String::from_utf8_lossy(&ran.stderr)
        );
    }
    // Standard output and JSON carry the same workload, with the parameters' declarations.
    let cl = root().join("examples/vector_add.cl");
    let json = clmap(&["workload", "--skeleton", cl.to_str().expect("utf-8"), "--json"]);
    assert!(json.status.success());
    let report: serde_json::Value = serde_json::from_slice(&json.stdout).expect("json");
    assert_eq!(report["kernel"], "vector_add");
    assert_eq!(report["params"][0]["declaration"], "__global float *a");
    assert_eq!(report["params"][3]["space"], "private");
    let plain = clmap(&["workload", "--skeleton", cl.to_str().expect("utf-8")]);
    assert_eq!(String::from_utf8_lossy(&plain.stdout), report["toml"].as_str().expect("text"));
}

#[test]
fn skeleton_errors_exit_non_zero_and_explain() {
    let cl = root().join("examples/vector_add.cl");
    let cl = cl.to_str().expect("utf-8");
    let wrong = clmap(&["workload", "--skeleton", cl, "--kernel", "nope"]);
    assert_eq!(wrong.status.code(), Some(1));
    let message = String::from_utf8_lossy(&wrong.stderr);
    assert!(message.contains("`nope`") && message.contains("vector_add"), "{message}");
    let missing = clmap(&["workload", "--skeleton", "/nonexistent/k.cl", "--kernel", "k"]);
    assert_eq!(missing.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("no such file"));
    let dir = Scratch::new("broken");
    std::fs::write(dir.join("k.cl"), "kernel void k(global int *x) {\n  x[0] = ;\n}\n")
        .expect("write");
    let broken = clmap(&["workload", "--skeleton", dir.join("k.cl").to_str().expect("utf-8")]);
    assert_eq!(broken.status.code(), Some(1));
    let message = String::from_utf8_lossy(&broken.stderr);
    assert!(message.contains('^') && message.contains("k.cl:2:"), "{message}");
    let help = clmap(&["workload", "--help"]);
    let help = String::from_utf8_lossy(&help.stdout);
    assert!(help.contains("Example") && help.contains("--skeleton"), "{help}");
}

/// The `out[i] = v` lines of a `--dump`.
fn dumped(stdout: &str) -> Vec<i64> {
    stdout
        .lines()
        .filter_map(|l| l.trim().strip_prefix("out[")?.split_once("] = ")?.1.parse().ok())
        .collect()
}

#[test]
fn opencl_c_2_program_globals_persist_between_launches_and_groups_may_be_partial() {
    let path = root().join("crates/cli/tests/data/program_globals.toml");
    let out = clmap(&["run", path.to_str().expect("utf-8"), "--races", "--uninit", "--dump"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    // Three launches added into `sums` and three counted in `launches` (from 100); the last
    // group of 6 work-items in groups of 4 has 2.
    let expected: Vec<i64> =
        (0..6).map(|i| 3000 * (i + 1) + 1030 + if i < 4 { 4 } else { 2 }).collect();
    assert_eq!(dumped(&stdout), expected, "{stdout}");

    // Without -cl-std=CL2.0 the same launches are refused, saying what to pass.
    let scratch = Scratch::new("program-globals");
    let text = std::fs::read_to_string(&path).expect("read");
    std::fs::copy(path.with_extension("cl"), scratch.join("program_globals.cl")).expect("copy");
    scratch.write("old.toml", &text.replace("options = \"-cl-std=CL2.0\"\n", ""));
    let old = clmap(&["run", scratch.join("old.toml").to_str().expect("utf-8")]);
    let stderr = String::from_utf8_lossy(&old.stderr);
    assert_eq!(old.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("does not divide") && stderr.contains("-cl-std=CL2.0"), "{stderr}");
    scratch.write(
        "old_uniform.toml",
        &text.replace("global = [6]", "global = [8]").replace("options = \"-cl-std=CL2.0\"\n", ""),
    );
    let old = clmap(&["run", scratch.join("old_uniform.toml").to_str().expect("utf-8")]);
    let stderr = String::from_utf8_lossy(&old.stderr);
    assert_eq!(old.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("program scope variable must reside in constant address space")
            && stderr.contains("-cl-std=CL2.0"),
        "{stderr}"
    );

    // A device either runs it as the simulator does or, compiling only OpenCL C 1.2 (PoCL
    // 3.1), refuses the partial group and says why.
    let selector = std::env::var("CLMAP_TEST_DEVICE").unwrap_or_else(|_| "cpu".to_string());
    let on_device = clmap(&["run", path.to_str().expect("utf-8"), "--device", &selector, "--dump"]);
    let stderr = String::from_utf8_lossy(&on_device.stderr);
    match on_device.status.code() {
        Some(0) => assert_eq!(dumped(&String::from_utf8_lossy(&on_device.stdout)), expected),
        Some(3) if std::env::var("CLMAP_REQUIRE_OPENCL").as_deref() != Ok("1") => {
            eprintln!("skipped the device half: no OpenCL device ({stderr})")
        }
        _ => assert!(stderr.contains("partial work-groups need OpenCL C 2.0"), "{stderr}"),
    }
}
