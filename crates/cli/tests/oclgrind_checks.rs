//! The kernels under `tests/oclgrind_checks`, run as oclgrind-kernel runs them and judged by
//! their references (the format is described in that directory's README): each check's error
//! blocks begin with Oclgrind's first lines, clean kernels give none, and the output dump
//! follows.

use clmap_testkit::clmap;
use std::path::{Path, PathBuf};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/oclgrind_checks")
}

/// What a reference expects.
#[derive(Default, Debug)]
struct Reference {
    errors: Vec<String>,
    exact: Vec<String>,
    matches: Vec<String>,
}

fn reference(path: &Path) -> Reference {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut r = Reference::default();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let (kind, rest) = line.split_once(' ').unwrap_or((line, ""));
        match kind {
            "ERROR" => r.errors.push(rest.to_string()),
            "EXACT" => r.exact.push(rest.to_string()),
            "MATCH" => r.matches.push(rest.to_string()),
            other => panic!("{}: unknown reference line kind `{other}`", path.display()),
        }
    }
    r
}

/// The first line of every error block: Oclgrind starts each with a blank line, and its
/// details are indented.
fn error_first_lines(stderr: &str) -> Vec<String> {
    let lines: Vec<&str> = stderr.lines().collect();
    lines
        .windows(2)
        .filter(|w| w[0].is_empty() && !w[1].is_empty() && !w[1].starts_with(['\t', ' ']))
        .map(|w| w[1].to_string())
        .collect()
}

/// Runs one test; `None` when it passes, else why not.
fn judge(sim: &Path) -> Option<String> {
    let expected = reference(&sim.with_extension("ref"));
    let run = clmap(&["run", sim.to_str().expect("utf-8 path"), "--oclgrind-output"]);
    let (out, err) = (run.stdout(), run.stderr());
    let why = |what: String| {
        Some(format!("{}: {what}\n--- stderr\n{err}--- stdout\n{out}", sim.display()))
    };
    if run.code() != Some(0) {
        return why(format!("exit status {:?}, oclgrind-kernel's is 0", run.code()));
    }
    let found = error_first_lines(&err);
    if found.len() != expected.errors.len()
        || found.iter().zip(&expected.errors).any(|(f, e)| !f.starts_with(e.as_str()))
    {
        return why(format!("error blocks {found:?}, expected {:?}", expected.errors));
    }
    if let Some(line) = expected.exact.iter().find(|l| !out.lines().any(|o| o == l.as_str())) {
        return why(format!("no output line is exactly `{line}`"));
    }
    let all = format!("{err}{out}");
    if let Some(text) =
        expected.matches.iter().find(|t| !all.lines().any(|o| o.contains(t.as_str())))
    {
        return why(format!("no output line contains `{text}`"));
    }
    None
}

#[test]
fn every_kernel_gives_the_findings_and_output_its_reference_expects() {
    let mut sims: Vec<PathBuf> = std::fs::read_dir(dir())
        .expect("tests/oclgrind_checks")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "sim"))
        .collect();
    sims.sort();
    assert!(sims.len() >= 5, "{sims:?}");
    let failures: Vec<String> = sims.iter().filter_map(|s| judge(s)).collect();
    assert!(
        failures.is_empty(),
        "{} of {} failed:\n{}",
        failures.len(),
        sims.len(),
        failures.join("\n")
    );
}

/// The runner's judgement can fail: a reference that expects another error, or none, is
/// caught.
#[test]
fn the_runner_rejects_a_wrong_reference() {
    let scratch = clmap_testkit::Scratch::new("oclgrind-ref");
    for name in ["write_write_race.cl", "write_write_race.sim"] {
        std::fs::copy(dir().join(name), scratch.join(name)).expect("copy");
    }
    let sim = scratch.join("write_write_race.sim");
    scratch.write("write_write_race.ref", "EXACT   last[0] = 3\n");
    assert!(judge(&sim).is_some_and(|why| why.contains("error blocks")));
    scratch.write("write_write_race.ref", "ERROR Read-write data race\n");
    assert!(judge(&sim).is_some());
    scratch.write(
        "write_write_race.ref",
        "ERROR Write-write data race at global memory address\nEXACT   last[0] = 3\n",
    );
    assert_eq!(judge(&sim), None);
}
