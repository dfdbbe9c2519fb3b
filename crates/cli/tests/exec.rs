//! `clmap exec` on host programs of our own (`tests/exec/*.c`), compiled against the ICD
//! loader as a user's program is: results, findings and exit codes, device emulation, metrics
//! over a run, and capture followed by replay.

use clmap_testkit::{clmap, clmap_command, ClmapRun, Scratch};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Compiles `tests/exec/NAME.c` against the OpenCL loader, or says why it cannot.
fn compiled(name: &str, scratch: &Scratch) -> Option<PathBuf> {
    let source = clmap_testkit::root().join("tests/exec").join(format!("{name}.c"));
    let binary = scratch.join(name);
    let status = Command::new("cc")
        .args(["-std=c99", "-Wall", "-Werror", "-O1", "-o"])
        .arg(&binary)
        .arg(&source)
        .args(["-lOpenCL", "-lm"])
        .status();
    match status {
        Ok(s) if s.success() => Some(binary),
        other => {
            let required = std::env::var("CLMAP_REQUIRE_OPENCL").is_ok_and(|v| v == "1");
            assert!(
                !required,
                "cannot compile {}: {other:?} (cc and ocl-icd-opencl-dev needed)",
                source.display()
            );
            eprintln!("skipped: cannot compile {} ({other:?})", source.display());
            None
        }
    }
}

fn exec(args: &[&str], program: &Path, dir: &Path) -> ClmapRun {
    let mut command = clmap_command();
    command.current_dir(dir).arg("exec").args(args).arg("--").arg(program);
    let mut all: Vec<&str> = vec!["exec"];
    all.extend(args);
    ClmapRun::of(&mut command, &all)
}

#[test]
fn a_host_loop_runs_and_its_capture_replays_segment_by_segment() {
    let scratch = Scratch::new("exec-pipeline");
    let Some(program) = compiled("pipeline", &scratch) else { return };
    let capture = scratch.join("cap");
    let run = exec(&["--capture", capture.to_str().unwrap()], &program, scratch.path());
    run.assert_success();
    assert!(run.stdout().contains("0 of 8192 values differ"), "{}", run.describe());
    assert!(run.stderr().contains("7 launches of 2 kernels"), "{}", run.describe());

    let mut launches = Vec::new();
    let mut segments = Vec::new();
    for entry in std::fs::read_dir(&capture).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name.ends_with(".toml") {
            if name.starts_with("launch-") {
                launches.push(path);
            } else if name.starts_with("segment-") {
                segments.push(path);
            }
        }
    }
    assert_eq!(launches.len(), 7, "one workload per launch");
    // The host rewrites a buffer halfway: the run is two pipelines.
    assert_eq!(segments.len(), 2, "segments: {segments:?}");
    // Each half of the host loop reads back as the loop: one launch repeated three times
    // with its two buffers swapped after each step, as fusion wants it.
    segments.sort();
    let first_segment = std::fs::read_to_string(&segments[0]).unwrap();
    assert!(first_segment.contains("repeat = 3"), "{first_segment}");
    assert!(first_segment.contains(r#"swap = [["buffer0", "buffer1"]]"#), "{first_segment}");
    assert_eq!(first_segment.matches("[[launch]]").count(), 1, "{first_segment}");
    for workload in launches.iter().chain(&segments) {
        let expected = workload.with_extension("expected");
        let replay =
            clmap(&["run", workload.to_str().unwrap(), "--expect", expected.to_str().unwrap()]);
        replay.assert_success();
    }
    // A replay that disagrees with the recording is caught.
    let first = launches.iter().find(|p| p.to_string_lossy().contains("launch-0001")).unwrap();
    let expected = first.with_extension("expected");
    for entry in std::fs::read_dir(&expected).unwrap() {
        let path = entry.unwrap().path();
        let mut bytes = std::fs::read(&path).unwrap();
        // The sign and exponent byte of the first float: far outside any tolerance.
        bytes[3] ^= 0x40;
        std::fs::write(&path, bytes).unwrap();
    }
    clmap(&["run", first.to_str().unwrap(), "--expect", expected.to_str().unwrap()]).assert_code(2);
}

#[test]
fn findings_are_reported_with_the_line_and_can_set_the_exit_code() {
    let scratch = Scratch::new("exec-stray");
    let Some(program) = compiled("stray_write", &scratch) else { return };
    let run = exec(&[], &program, scratch.path());
    // The program's own exit code stands by default.
    run.assert_success();
    let err = run.stderr();
    assert!(err.contains("input.cl:9:9: error: out-of-bounds access"), "{}", run.describe());
    assert!(err.contains("data[past] = -1;"), "{}", run.describe());
    assert!(err.contains("work-item (127,0,0)"), "{}", run.describe());
    assert!(err.contains("1 finding"), "{}", run.describe());
    exec(&["--findings-exit", "7"], &program, scratch.path()).assert_code(7);

    let json = exec(&["--json"], &program, scratch.path());
    json.assert_success();
    let text = json.stdout();
    let start = text.find('{').expect("a JSON summary");
    let v: serde_json::Value = serde_json::from_str(&text[start..]).unwrap();
    assert_eq!(v["exit_code"], 0);
    assert_eq!(v["findings"][0]["kind"], "out-of-bounds access");
    assert_eq!(v["findings"][0]["line"], 9);
    assert_eq!(v["launches"].as_array().unwrap().len(), 1);

    let oclgrind = exec(&["--oclgrind-output"], &program, scratch.path());
    assert!(
        oclgrind.stderr().contains("Invalid write of size 4 at global memory address"),
        "{}",
        oclgrind.describe()
    );
}

#[test]
fn launches_are_numbered_from_one_and_a_released_program_is_not_taken_for_the_next() {
    let scratch = Scratch::new("exec-released");
    let Some(program) = compiled("released_programs", &scratch) else { return };
    let capture = scratch.join("cap");
    let run = exec(&["--json", "--capture", capture.to_str().unwrap()], &program, scratch.path());
    run.assert_success();
    // The second launch's finding is "launch 2" in the message, the summary and the JSON,
    // and its capture is launch-0002.
    let err = run.stderr();
    assert!(err.contains("of kernel `second` in launch 2"), "{}", run.describe());
    let text = run.stdout();
    let v: serde_json::Value = serde_json::from_str(&text[text.find('{').unwrap()..]).unwrap();
    assert_eq!(v["findings"][0]["launch"], 2, "{v:#}");
    assert_eq!(v["findings"][0]["kernel"], "second");
    let launches: Vec<_> = v["launches"].as_array().unwrap().iter().map(|l| &l["launch"]).collect();
    assert_eq!(launches, [1, 2]);

    // The second program was built after the first was released: its launch names its own
    // source, which has the kernel, and replays.
    let workload = capture.join("launch-0002-second.toml");
    let toml = std::fs::read_to_string(&workload).unwrap();
    let source = toml
        .lines()
        .find_map(|l| l.strip_prefix("source = \"")?.strip_suffix('"'))
        .expect("a source line");
    let kernel_source = std::fs::read_to_string(capture.join(source)).unwrap();
    assert!(kernel_source.contains("void second"), "{source}: {kernel_source}");
    let replay = clmap(&["run", workload.to_str().unwrap()]);
    assert!(replay.stderr().contains("out-of-bounds access"), "{}", replay.describe());
    assert!(!replay.stderr().contains("no kernel"), "{}", replay.describe());
}

#[test]
fn a_read_only_host_table_is_never_written_back() {
    // The table is a `static const` array: writing its bytes back after the launch would
    // fault (exit 139). The written host-pointer buffer still gets its results.
    let scratch = Scratch::new("exec-rodata");
    let Some(program) = compiled("read_only_host_table", &scratch) else { return };
    let run = exec(&["-q"], &program, scratch.path());
    run.assert_success();
    assert!(run.stdout().contains("11 12 10 13"), "{}", run.describe());
}

#[test]
fn the_step_budget_stops_a_long_loop_and_max_steps_raises_it() {
    let scratch = Scratch::new("exec-steps");
    let Some(program) = compiled("long_loop", &scratch) else { return };
    let mut command = clmap_command();
    command
        .current_dir(scratch.path())
        .args(["exec", "--max-steps", "2000", "--"])
        .arg(&program)
        .arg("5000");
    let stopped = ClmapRun::of(&mut command, &["exec"]);
    // The launch fails as on a device that kills a kernel; the message names the flag.
    stopped.assert_code(4);
    assert!(stopped.stdout().contains("launch failed: 0 -5"), "{}", stopped.describe());
    assert!(
        stopped.stderr().contains("`clmap exec --max-steps N` raises the budget"),
        "{}",
        stopped.describe()
    );
    assert!(stopped.stderr().contains("1 launch failed"), "{}", stopped.describe());
    let mut command = clmap_command();
    command
        .current_dir(scratch.path())
        .args(["exec", "--max-steps", "1000000", "--"])
        .arg(&program)
        .arg("5000");
    let finished = ClmapRun::of(&mut command, &["exec"]);
    finished.assert_success();
    assert!(finished.stdout().contains("sum 5000"), "{}", finished.describe());
}

#[test]
fn an_emulated_device_reports_and_enforces_its_limits() {
    let scratch = Scratch::new("exec-limits");
    let Some(program) = compiled("limits", &scratch) else { return };
    let plain = exec(&["-q"], &program, scratch.path());
    plain.assert_success();
    assert!(plain.stdout().contains("local_mem 65536"), "{}", plain.describe());
    assert!(
        plain.stdout().contains("enqueue with 60 KiB of local memory: 0"),
        "{}",
        plain.describe()
    );

    let h100 = exec(&["-q", "--emulate", "h100"], &program, scratch.path());
    h100.assert_success();
    let out = h100.stdout();
    assert!(out.contains("local_mem 49152"), "{}", h100.describe());
    assert!(
        out.contains("enqueue with 60 KiB of local memory: -5"),
        "CL_OUT_OF_RESOURCES: {}",
        h100.describe()
    );
    assert!(out.contains("enqueue with 1 KiB of local memory: 0"), "{}", h100.describe());
    assert!(out.contains("out[0] 255"), "{}", h100.describe());

    let custom =
        exec(&["-q", "--limits", "local_mem=1024,max_work_group=128"], &program, scratch.path());
    let out = custom.stdout();
    assert!(
        out.contains("local_mem 1024") && out.contains("max_work_group 128"),
        "{}",
        custom.describe()
    );
    // 256 work-items in x exceed the limit of 128: CL_INVALID_WORK_ITEM_SIZE.
    assert!(out.contains("enqueue with 1 KiB of local memory: -55"), "{}", custom.describe());

    let unknown = exec(&["--emulate", "no-such-device-anywhere"], &program, scratch.path());
    unknown.assert_code(1);
    assert!(unknown.stderr().contains("h100"), "{}", unknown.describe());
}

#[test]
fn analysis_merges_every_launch_of_a_kernel() {
    let scratch = Scratch::new("exec-analyze");
    let Some(program) = compiled("pipeline", &scratch) else { return };
    let run = exec(&["--analyze", "--json"], &program, scratch.path());
    run.assert_success();
    let text = run.stdout();
    let start = text.find("\n{").map_or(0, |i| i + 1);
    let v: serde_json::Value = serde_json::from_str(&text[start..]).unwrap();
    let analysis = v["analysis"].as_array().unwrap();
    assert_eq!(analysis.len(), 2, "{analysis:?}");
    assert_eq!(analysis[0]["kernel"], "smooth");
    assert_eq!(analysis[0]["launches"], 6);
    // Six launches of 4096 work-items each.
    assert_eq!(analysis[0]["metrics"]["parallelism"]["work_items"], 6 * 4096);
    assert_eq!(analysis[1]["kernel"], "scale");
    assert_eq!(analysis[1]["metrics"]["parallelism"]["work_items"], 1024);

    let text_run = exec(&["--analyze", "-q"], &program, scratch.path());
    text_run.assert_success();
    assert!(text_run.stdout().contains("smooth"), "{}", text_run.describe());
}

#[test]
fn the_platform_lists_itself_to_clinfo() {
    if Command::new("clinfo").arg("--version").output().is_err() {
        eprintln!("skipped: clinfo is not installed");
        return;
    }
    let run = clmap(&["exec", "--", "clinfo"]);
    run.assert_success();
    let out = run.stdout();
    assert!(out.contains("Platform Name") && out.contains("clmap"), "{}", run.describe());
    assert!(out.contains("Device Type") && out.contains("GPU"), "{}", run.describe());
}

#[test]
fn programs_built_against_newer_headers_run() {
    let scratch = Scratch::new("exec-newer");
    let Some(program) = compiled("newer_headers", &scratch) else { return };
    let run = exec(&["-q"], &program, scratch.path());
    run.assert_success();
    assert!(run.stdout().contains("all calls work"), "{}", run.describe());
}

#[test]
fn a_time_loop_is_captured_as_a_group_with_its_step_as_a_loop_scalar() {
    let scratch = Scratch::new("exec-time-loop");
    let Some(program) = compiled("time_loop", &scratch) else { return };
    let capture = scratch.join("cap");
    let run = exec(&["-q", "--capture", capture.to_str().unwrap()], &program, scratch.path());
    run.assert_success();
    assert!(run.stdout().contains("0 of 1024 values differ"), "{}", run.describe());
    let segment = capture.join("segment-01.toml");
    let text = std::fs::read_to_string(&segment).unwrap();
    assert!(text.contains("[[group]]") && text.contains("repeat = 8"), "{text}");
    assert!(text.contains(r#"value = "1 * step + 0""#), "the time step is a loop scalar: {text}");
    assert_eq!(text.matches("[[group.launch]]").count(), 2, "{text}");
    clmap(&[
        "run",
        segment.to_str().unwrap(),
        "--expect",
        capture.join("segment-01.expected").to_str().unwrap(),
    ])
    .assert_success();
}

#[test]
fn a_program_that_crashes_keeps_its_launches_and_its_signal_status() {
    let scratch = Scratch::new("exec-crash");
    let Some(program) = compiled("crash_after_launch", &scratch) else { return };
    let run = exec(&[], &program, scratch.path());
    // 128 + SIGSEGV, as a shell reports a program the signal ended.
    run.assert_code(139);
    assert!(run.stderr().contains("exited with 139"), "{}", run.describe());
    assert!(run.stderr().contains("1 launch of 1 kernel"), "{}", run.describe());
}

#[test]
fn vendor_build_options_are_ignored_with_a_warning_and_a_counted_nul_is_not_source() {
    let scratch = Scratch::new("exec-vendor-options");
    let Some(program) = compiled("vendor_options", &scratch) else { return };
    let run = exec(&["-q"], &program, scratch.path());
    run.assert_success();
    let out = run.stdout();
    assert!(out.contains("build: 0"), "{}", run.describe());
    assert!(out.contains("x[3] = 42"), "the -D was honoured: {}", run.describe());
    assert!(
        out.contains("build option '-O3' is not known to clmap and was ignored"),
        "{}",
        run.describe()
    );
    assert!(out.contains("'-nv-line-info'"), "{}", run.describe());
}

#[test]
fn a_program_that_never_reaches_the_platform_gets_a_note() {
    let run = clmap(&["exec", "--", "true"]);
    run.assert_success();
    assert!(
        run.stderr().contains("never asked the OpenCL loader for platforms"),
        "{}",
        run.describe()
    );
    let scratch = Scratch::new("exec-reached");
    let Some(program) = compiled("stray_write", &scratch) else { return };
    let used = exec(&[], &program, scratch.path());
    assert!(!used.stderr().contains("never asked the OpenCL loader"), "{}", used.describe());
}

#[test]
fn image_and_sampler_launches_are_captured_and_replay_on_the_simulator_and_a_device() {
    let scratch = Scratch::new("exec-images");
    let Some(program) = compiled("image_filter", &scratch) else { return };
    let capture = scratch.join("cap");
    let run = exec(&["--capture", capture.to_str().unwrap()], &program, scratch.path());
    run.assert_success();
    assert!(run.stdout().contains("0 of 3072 values differ"), "{}", run.describe());
    let log = std::fs::read_to_string(capture.join("capture.log")).unwrap_or_default();
    assert!(!log.contains("not captured"), "{log}");

    let blur = std::fs::read_to_string(capture.join("launch-0001-blur.toml")).unwrap();
    assert!(blur.contains(r#"type = "image2d_t""#), "{blur}");
    assert!(blur.contains(r#"order = "CL_RGBA""#) && blur.contains(r#"channel_type = "CL_FLOAT""#));
    assert!(
        blur.contains(
            "CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST"
        ),
        "{blur}"
    );
    // Both launches share the intermediate image: one segment, the image written by the first
    // and read by the second.
    let segment = capture.join("segment-01.toml");
    let text = std::fs::read_to_string(&segment).unwrap();
    assert_eq!(text.matches("[[launch]]").count(), 2, "{text}");
    for workload in ["launch-0001-blur.toml", "launch-0002-edges.toml", "segment-01.toml"] {
        let workload = capture.join(workload);
        let expected = workload.with_extension("expected");
        clmap(&["run", workload.to_str().unwrap(), "--expect", expected.to_str().unwrap()])
            .assert_success();
    }
    if clmap_testkit::opencl_device_matching("cpu").is_some() {
        let on_device =
            clmap(&["compare", segment.to_str().unwrap(), "--devices", "sim,cpu", "--json"]);
        on_device.assert_success();
        assert_eq!(on_device.json()["agree"], true, "{}", on_device.describe());
    }
}

#[test]
fn sub_buffers_are_captured_as_views_of_their_parent_and_replay() {
    let scratch = Scratch::new("exec-sub-buffers");
    let Some(program) = compiled("sub_buffers", &scratch) else { return };
    let capture = scratch.join("cap");
    let run = exec(&["--capture", capture.to_str().unwrap()], &program, scratch.path());
    run.assert_success();
    assert!(run.stdout().contains("0 of 2112 values differ"), "{}", run.describe());

    // One pipeline over one buffer: the kernel that writes the parent, then the windows of it.
    let segment = capture.join("segment-01.toml");
    assert!(!capture.join("segment-02.toml").exists(), "the run is one segment");
    let text = std::fs::read_to_string(&segment).unwrap();
    assert_eq!(text.matches("[[launch]]").count(), 3, "{text}");
    for view in [
        r#""buffer0_at0" = { type = "float", len = 1024, view = { of = "buffer0", offset = 0 } }"#,
        r#""buffer0_at4096" = { type = "float", len = 1024, view = { of = "buffer0", offset = 4096 } }"#,
        r#""buffer0_at384" = { type = "float", len = 1536, view = { of = "buffer0", offset = 384 } }"#,
    ] {
        assert!(text.contains(view), "{view} in\n{text}");
    }
    assert!(text.contains(r#"outputs = ["buffer0"]"#), "{text}");
    assert!(capture.join("segment-01.expected/buffer0.bin").exists());
    for workload in std::fs::read_dir(&capture).unwrap() {
        let workload = workload.unwrap().path();
        if workload.extension().is_some_and(|e| e == "toml") {
            let expected = workload.with_extension("expected");
            clmap(&["run", workload.to_str().unwrap(), "--expect", expected.to_str().unwrap()])
                .assert_success();
        }
    }
    // A replay whose views wrote elsewhere is caught: move the middle window by one element.
    let shifted = scratch.join("shifted.toml");
    std::fs::write(&shifted, text.replace("offset = 384", "offset = 388")).unwrap();
    let expected = capture.join("segment-01.expected");
    let source = capture.join("program-1.cl");
    std::fs::copy(&source, scratch.join("program-1.cl")).unwrap();
    let moved = scratch.join("segment-01");
    std::fs::create_dir_all(&moved).unwrap();
    std::fs::copy(capture.join("segment-01/buffer0.bin"), moved.join("buffer0.bin")).unwrap();
    clmap(&["run", shifted.to_str().unwrap(), "--expect", expected.to_str().unwrap()])
        .assert_code(2);
    if clmap_testkit::opencl_device_matching("cpu").is_some() {
        // On PoCL the aligned windows are sub-buffers and the shifted one (4 bytes past a
        // 128-byte boundary) a buffer of its own copied in and out: both agree with the
        // simulator.
        for workload in [&segment, &shifted] {
            let on_device =
                clmap(&["compare", workload.to_str().unwrap(), "--devices", "sim,cpu", "--json"]);
            on_device.assert_success();
            assert_eq!(on_device.json()["agree"], true, "{}", on_device.describe());
        }
    }
}

#[test]
fn under_oclgrind_output_the_platform_stands_in_for_oclgrind() {
    let scratch = Scratch::new("exec-mapped");
    let Some(program) = compiled("mapped_launch", &scratch) else { return };
    let run = exec(&["--oclgrind-output"], &program, scratch.path());
    run.assert_success();
    let out = run.stdout();
    // Standard output is a pipe here: the kernel's line still comes between the host's.
    assert!(
        out.contains("platform Oclgrind\nhost before\nkernel says 42\nhost after\n"),
        "{}",
        run.describe()
    );
    assert!(out.contains("checks: 0 failed"), "{}", run.describe());
    // Oclgrind's blocks, one per work-item of the 8, and nothing of clmap's own.
    let err = run.stderr();
    let count = |text: &str| err.lines().filter(|l| *l == text).count();
    assert_eq!(count("Invalid read from buffer mapped for writing"), 8, "{}", run.describe());
    assert_eq!(count("Invalid write to mapped buffer"), 8, "{}", run.describe());
    assert_eq!(count("Invalid write to read-only buffer"), 8, "{}", run.describe());
    assert!(!err.contains("clmap exec:"), "{}", run.describe());

    // Oclgrind's environment switches its checks on, as its options do.
    let mut command = clmap_command();
    command
        .current_dir(scratch.path())
        .env("OCLGRIND_DATA_RACES", "1")
        .args(["exec", "--oclgrind-output", "--"])
        .arg(&program);
    let raced = ClmapRun::of(&mut command, &["exec", "--oclgrind-output"]);
    raced.assert_success();
    assert!(
        raced.stderr().contains("Write-write data race at global memory"),
        "{}",
        raced.describe()
    );
    assert!(!err.contains("data race"), "{}", run.describe());

    // clmap's own layout names the platform clmap and words the findings its way.
    let own = exec(&[], &program, scratch.path());
    own.assert_success();
    assert!(own.stdout().contains("platform clmap"), "{}", own.describe());
    let err = own.stderr();
    assert!(
        err.contains("load from a buffer region the host has mapped for writing"),
        "{}",
        own.describe()
    );
    assert!(err.contains("store to a buffer region the host has mapped"), "{}", own.describe());
    assert!(err.contains("store to a buffer the host created read-only"), "{}", own.describe());
    assert!(err.contains("3 findings"), "{}", own.describe());
}

/// Runs `command` (an `exec -i` line) with `input` on its standard input.
fn debug_with_input(command: &mut Command, args: &[&str], input: &str) -> ClmapRun {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("clmap runs");
    child.stdin.take().expect("stdin").write_all(input.as_bytes()).expect("input written");
    let output = child.wait_with_output().expect("clmap ends");
    ClmapRun { args: args.iter().map(|a| a.to_string()).collect(), output }
}

#[test]
fn exec_dash_i_stops_at_each_launch_and_shares_the_programs_standard_input() {
    let scratch = Scratch::new("exec-debug");
    let Some(program) = compiled("debugged", &scratch) else { return };
    // Between the launches the program reads its factor (5) from the same input: the
    // debugger takes the lines before it, the program the line after the first launch.
    let input = "break 4\ncontinue\nprint v\nstep\nprint v factor i\ncontinue\nprint i\n\
                 delete 1\ncontinue\n5\nprint factor\nlist 4\ncontinue\n";
    let mut command = clmap_command();
    command.current_dir(scratch.path()).args(["exec", "-q", "-i", "--"]).arg(&program);
    let run = debug_with_input(&mut command, &["exec", "-q", "-i"], input);
    run.assert_success();
    let out = run.stdout();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines,
        [
            "1\tkernel void scale(global int *data, int factor)",
            "Breakpoint 1 hit at line 4 by work-item (0,0,0)",
            "4\t  int v = data[i];",
            "v = not found",
            "5\t  int scaled = v * factor;",
            "v = 1",
            "factor = 2",
            "i = 0",
            // The second work-group reaches the breakpoint too.
            "Breakpoint 1 hit at line 4 by work-item (4,0,0)",
            "4\t  int v = data[i];",
            "i = 4",
            // The first launch ran to its end; the program read its factor; the second
            // launch stops before its first line.
            "factor 5",
            "1\tkernel void scale(global int *data, int factor)",
            "factor = 5",
            "1\tkernel void scale(global int *data, int factor)",
            "2\t{",
            "3\t  int i = get_global_id(0);",
            "4\t  int v = data[i];",
            "5\t  int scaled = v * factor;",
            "6\t  data[i] = scaled + i;",
            "7\t}",
            "8\t",
            // 5 * (3i + 2) + i: both launches computed what they compute undebugged.
            "data: 10 26 42 58 74 90 106 122",
        ],
        "{}",
        run.describe()
    );
}

#[test]
fn quit_lets_the_program_run_on_and_oclgrind_dash_i_is_exec_dash_i() {
    let scratch = Scratch::new("exec-debug-quit");
    let Some(program) = compiled("debugged", &scratch) else { return };
    // A link named `oclgrind` takes Oclgrind's command line: `oclgrind -i ./app`.
    let clmap_binary = PathBuf::from(clmap_command().get_program());
    let oclgrind = scratch.join("oclgrind");
    std::os::unix::fs::symlink(&clmap_binary, &oclgrind).expect("link");
    let mut command = Command::new(&oclgrind);
    command.current_dir(scratch.path()).arg("-i").arg(&program);
    let run = debug_with_input(&mut command, &["oclgrind", "-i"], "step\nhelp quit\nquit\n");
    run.assert_success();
    assert_eq!(
        run.stdout(),
        "1\tkernel void scale(global int *data, int factor)\n\
         3\t  int i = get_global_id(0);\n\
         Leave the debugger: the run goes on to its end without stopping again.\n\
         factor 1\ndata: 2 6 10 14 18 22 26 30\n",
        "as in Oclgrind, quit stops the debugging for good and the program runs to its end, \
         its second launch without a stop: {}",
        run.describe()
    );

    // At the end of the input the debugger stops stopping: the program runs on, reading
    // no factor of its own either.
    let mut command = clmap_command();
    command.current_dir(scratch.path()).args(["exec", "-q", "-i", "--"]).arg(&program);
    let run = debug_with_input(&mut command, &["exec", "-q", "-i"], "");
    run.assert_success();
    assert_eq!(
        run.stdout(),
        "1\tkernel void scale(global int *data, int factor)\nfactor 1\n\
         data: 2 6 10 14 18 22 26 30\n",
        "{}",
        run.describe()
    );
}
