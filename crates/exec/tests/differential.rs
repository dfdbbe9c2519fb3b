//! The differential test: every corpus and test kernel runs on the simulator and on an OpenCL
//! CPU device (PoCL in CI) with the same inputs, through the one comparison `clmap compare`
//! uses, and every output must agree (exactly for integers, within the workload's tolerance
//! for floats). The set is every workload of `tests/corpus/`, the clean kernels of
//! `tests/oclgrind_checks/` (those whose `.ref` expects no error), `examples/` and the small
//! workloads of `examples/fusion/`, the `.sim` files of `tests/sim_files/`, the Grover and
//! stager inputs of `tests/grover/` and `tests/stage/`, and the adversarial kernels of
//! `tests/differential/` (integer, vector and floating-point corners; double conversions,
//! saturated and in every rounding mode, and `shuffle`/`shuffle2` of every width).
//!
//! A kernel that cannot agree is listed in [`EXCEPTIONS`] with the reason, and the test
//! checks that it still behaves as listed, so the list stays true.
//!
//! `CLMAP_TEST_DEVICE` picks another device (e.g. `gpu`); without any device the test says why
//! and passes, unless `CLMAP_REQUIRE_OPENCL=1`.

use clmap_exec::{differential, run_on, PreparedWorkload, Side, StopAt, Target};
use clmap_sim::SimOptions;
use clmap_testkit::{root, Requirement};
use clmap_workload::LoadOptions;
use std::path::{Path, PathBuf};

/// How a listed kernel differs between the simulator and PoCL.
#[derive(Clone, Copy, Debug)]
enum Exception {
    /// The device cannot run it at all; the test fails once it does.
    DeviceFails(&'static str),
    /// Both run it and their outputs differ, by design of the kernel; the test fails once
    /// they agree.
    Differs(&'static str),
    /// It reads memory nothing wrote, so the device's answer depends on what its earlier
    /// kernels and threads left there (PoCL agrees or not with the simulator's zeros depending
    /// on its thread count): the test requires both to run it and the simulator's
    /// uninitialised-value checker to report the read, and fails once it does not.
    ReadsUnwritten(&'static str),
    /// Its work-items race by construction, so the device's answer depends on the order it
    /// runs work-items and work-groups in, which changes with its threads and the machine's
    /// load: the test requires both to run it and the simulator's race checker to report the
    /// race, and fails once it does not.
    Races(&'static str),
}

/// Kernels whose outputs the simulator and PoCL do not share, by path from the repository
/// root.
const EXCEPTIONS: &[(&str, Exception)] = &[
    (
        "examples/missing_barrier.toml",
        Exception::Differs(
            "the race checker's example: work-items read a neighbour's local-memory element \
             with no barrier after it was written, so what they read depends on the order the \
             device runs work-items in",
        ),
    ),
    (
        "tests/sim_files/float_format.sim",
        Exception::Differs(
            "work-item 0 overwrites out[0] and out[1], which work-items 0 and 1 also write: \
             which store lands last is a race (the file tests dump formatting, not the race)",
        ),
    ),
    (
        "tests/sim_files/mixed_types.sim",
        Exception::DeviceFails(
            "its kernel is named `mix`, like the built-in: PoCL 3.1 renames it `_cl_mix` and \
             finds no kernel `mix`",
        ),
    ),
    (
        "tests/sim_files/mixed_types_hex.sim",
        Exception::DeviceFails("the kernel `mix` of mixed_types.sim, dumped in hexadecimal"),
    ),
    (
        "tests/oclgrind_checks/partial_group_clean.sim",
        Exception::DeviceFails(
            "a smaller last work-group (-cl-std=CL2.0): PoCL 3.1 compiles OpenCL C 1.2 only, \
             which requires whole work-groups",
        ),
    ),
    (
        "tests/oclgrind_checks/linear_ids.sim",
        Exception::DeviceFails(
            "a smaller last work-group (-cl-std=CL2.0), as partial_group_clean.sim",
        ),
    ),
    (
        "tests/grover/refuse_ambiguous.toml",
        Exception::Races(
            "a near miss Grover must refuse: two work-items store into one local element, so \
             which value is read back depends on which store lands last",
        ),
    ),
    (
        "tests/stage/refuse_smooth_in_place.toml",
        Exception::Races(
            "a kernel the stager must refuse: each work-item zeroes the element its left \
             neighbour reads, within and across work-groups",
        ),
    ),
    (
        "tests/grover/refuse_mask_not_low_bits.toml",
        Exception::ReadsUnwritten(
            "a near miss Grover must refuse: half of the local tile is never written (the \
             column mask drops bit 0) and is read back, so those outputs are whatever the \
             device's local memory held",
        ),
    ),
];

/// Workloads left out, with the reason: the fusion examples' benchmark sizes (each has a small
/// workload of the same kernels, which is compared), and `examples/copy.toml`, 512 MiB moved
/// for bandwidth timings on devices (two minutes on the simulator; `vector_add.toml` is the
/// same streaming pattern at a test's size).
fn left_out(path: &Path) -> bool {
    let name = path.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
    let fusion = path.parent().is_some_and(|p| p.ends_with("examples/fusion"));
    (fusion && !name.ends_with("_small.toml")) || path.ends_with("examples/copy.toml")
}

#[test]
fn simulator_and_device_agree_on_every_corpus_and_test_kernel() {
    let selector = std::env::var("CLMAP_TEST_DEVICE").unwrap_or_else(|_| "cpu".to_string());
    let device = match Target::select(&selector, SimOptions::default()) {
        Ok(t) => t,
        Err(e) => {
            Requirement::OpenCl.unavailable(e);
            return;
        }
    };
    let simulator = Target::Simulator(SimOptions::default());
    let paths = differential_set();
    let root = root();
    let mut failures = Vec::new();
    let (mut agreed, mut listed) = (0, 0);
    for path in &paths {
        let name = path.strip_prefix(&root).unwrap_or(path).display().to_string();
        let exception = EXCEPTIONS.iter().find(|(p, _)| *p == name).map(|(_, e)| *e);
        let prepared = match PreparedWorkload::load_with(path, &load_options(path)) {
            Ok(prepared) => prepared,
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        let started = std::time::Instant::now();
        let answer = differential(
            Side::new(&prepared, &simulator),
            Side::new(&prepared, &device),
            1,
            StopAt::Never,
        );
        let seconds = started.elapsed().as_secs_f64();
        if seconds > 2.0 {
            eprintln!("{name}: {seconds:.1} s");
        }
        match (answer, exception) {
            (Ok(answer), None) if answer.outputs_agree() => agreed += 1,
            (Ok(answer), None) => failures.push(answer.render(&name)),
            (Err(e), None) => failures.push(format!("{name}: {e}")),
            (Err(_), Some(Exception::DeviceFails(_))) => listed += 1,
            (Ok(answer), Some(Exception::Differs(_))) if !answer.outputs_agree() => listed += 1,
            (Ok(_), Some(Exception::DeviceFails(why))) => failures.push(format!(
                "{name} runs on the device now: take it off the list (it was listed as: {why})"
            )),
            (Ok(_), Some(Exception::Differs(why))) => failures
                .push(format!("{name} agrees now: take it off the list (it was listed as: {why})")),
            (Ok(_), Some(Exception::ReadsUnwritten(why))) => {
                let checked = Target::Simulator(SimOptions {
                    check_uninitialised: true,
                    ..SimOptions::default()
                });
                match run_on(&checked, &prepared, 0) {
                    Ok(run) if !run.reports.is_empty() => listed += 1,
                    Ok(_) => failures.push(format!(
                        "{name} no longer reads unwritten memory: take it off the list (it was \
                         listed as: {why})"
                    )),
                    Err(e) => failures.push(format!("{name}: {e}")),
                }
            }
            (Ok(_), Some(Exception::Races(why))) => {
                let checked =
                    Target::Simulator(SimOptions { check_races: true, ..SimOptions::default() });
                match run_on(&checked, &prepared, 0) {
                    Ok(run) if !run.reports.is_empty() => listed += 1,
                    Ok(_) => failures.push(format!(
                        "{name} no longer races: take it off the list (it was listed as: {why})"
                    )),
                    Err(e) => failures.push(format!("{name}: {e}")),
                }
            }
            (
                Err(e),
                Some(Exception::Differs(_) | Exception::ReadsUnwritten(_) | Exception::Races(_)),
            ) => failures.push(format!("{name}: {e}")),
        }
    }
    for (listed_path, _) in EXCEPTIONS {
        assert!(
            paths.iter().any(|p| p.strip_prefix(&root).is_ok_and(|p| p == Path::new(listed_path))),
            "{listed_path} is listed as an exception but is not in the differential set"
        );
    }
    eprintln!("{} workloads compared: {agreed} agree, {listed} listed exceptions", paths.len());
    assert!(failures.is_empty(), "{} disagreements:\n{}", failures.len(), failures.join("\n"));
    assert!(agreed >= 130, "only {agreed} workloads agreed");
}

/// A `.sim` file's build options from its `# ARGS:` line (`--build-options OPTS`, as
/// oclgrind-kernel takes them); the other options there are the checkers', not the kernel's.
fn load_options(path: &Path) -> LoadOptions {
    let mut options = LoadOptions::default();
    if path.extension().is_some_and(|x| x == "sim") {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        let args = text.lines().find_map(|l| l.trim_start().strip_prefix("# ARGS:"));
        let words: Vec<&str> = args.map(|a| a.split_whitespace().collect()).unwrap_or_default();
        if let Some(at) = words.iter().position(|w| *w == "--build-options") {
            options.build_options = words.get(at + 1).map(|o| o.to_string());
        }
    }
    options
}

/// Every workload of the differential set, sorted.
fn differential_set() -> Vec<PathBuf> {
    let root = root();
    let mut paths = Vec::new();
    for dir in [
        "tests/corpus",
        "tests/differential",
        "tests/grover",
        "tests/stage",
        "examples",
        "examples/fusion",
    ] {
        paths.extend(files(&root.join(dir), "toml").into_iter().filter(|p| !left_out(p)));
    }
    paths.extend(files(&root.join("tests/sim_files"), "sim"));
    // Oclgrind-format checks: only the clean kernels (a reference without `ERROR` lines).
    paths.extend(files(&root.join("tests/oclgrind_checks"), "sim").into_iter().filter(|p| {
        let reference = std::fs::read_to_string(p.with_extension("ref")).expect("a .ref per .sim");
        !reference.lines().any(|l| l.starts_with("ERROR"))
    }));
    paths
}

fn files(dir: &Path, extension: &str) -> Vec<PathBuf> {
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == extension))
        .collect();
    paths.sort();
    paths
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

fn corpus() -> Vec<PathBuf> {
    files(&root().join("tests/corpus"), "toml")
}
