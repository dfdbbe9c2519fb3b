//! The kernels under `tests/oclgrind_checks`, run as oclgrind-kernel runs them and judged by
//! their references (the format is described in that directory's README): each check's error
//! blocks begin with Oclgrind's first lines, clean kernels give none, and the output dump
//! follows.

use clmap_testkit::{clmap, clmap_command, ClmapRun};
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
/// details are indented. Its notes about itself (`Oclgrind: 1 errors generated - suppressing
/// further errors`) are laid out the same way but report nothing.
fn error_first_lines(stderr: &str) -> Vec<String> {
    let lines: Vec<&str> = stderr.lines().collect();
    lines
        .windows(2)
        .filter(|w| w[0].is_empty() && !w[1].is_empty() && !w[1].starts_with(['\t', ' ']))
        .filter(|w| !w[1].starts_with("Oclgrind: "))
        .map(|w| w[1].to_string())
        .collect()
}

/// Runs `clmap run SIM --oclgrind-output` as Oclgrind's runner runs a test: with NAME.inp
/// (the commands of an interactive test) as standard input when there is one.
fn run_clmap(sim: &Path) -> ClmapRun {
    let args = ["run", sim.to_str().expect("utf-8 path"), "--oclgrind-output"];
    let mut command = clmap_command();
    command.args(args);
    if let Ok(input) = std::fs::File::open(sim.with_extension("inp")) {
        command.stdin(input);
    }
    ClmapRun::of(&mut command, &args)
}

/// Runs one test; `None` when it passes, else why not.
fn judge(sim: &Path) -> Option<String> {
    let expected = reference(&sim.with_extension("ref"));
    let run = run_clmap(sim);
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
    // An interactive test's output is a conversation: judged line by line, in order, as
    // Oclgrind's runner judges it.
    if sim.with_extension("inp").is_file() {
        let reference = std::fs::read_to_string(sim.with_extension("ref")).expect("reference");
        let lines: Vec<String> = all.lines().map(str::to_string).collect();
        if let Err(e) = oclgrind_runner_accepts(&reference, &lines) {
            return why(e);
        }
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
    // One block per work-item that stores after the first, as Oclgrind prints them.
    let race = "ERROR Write-write data race at global memory address\n";
    scratch.write("write_write_race.ref", &format!("{race}{race}EXACT   last[0] = 3\n"));
    assert!(judge(&sim).is_some_and(|why| why.contains("error blocks")));
    scratch.write("write_write_race.ref", &format!("{race}{race}{race}EXACT   last[0] = 3\n"));
    assert_eq!(judge(&sim), None);
}

/// An interactive test's lines must come in order: the same lines, two of them swapped, fail.
#[test]
fn the_runner_keeps_an_interactive_test_in_order() {
    let scratch = clmap_testkit::Scratch::new("oclgrind-interactive-ref");
    for ext in ["cl", "sim", "inp", "ref"] {
        let name = format!("interactive_loop.{ext}");
        std::fs::copy(dir().join(&name), scratch.join(&name)).expect("copy");
    }
    let sim = scratch.join("interactive_loop.sim");
    assert_eq!(judge(&sim), None);
    let reference = std::fs::read_to_string(dir().join("interactive_loop.ref")).expect("ref");
    let swapped = reference.replace("MATCH sum = 6\nMATCH i = 0\n", "MATCH i = 0\nMATCH sum = 6\n");
    assert_ne!(swapped, reference);
    scratch.write("interactive_loop.ref", &swapped);
    assert!(judge(&sim).is_some_and(|why| why.contains("expected `MATCH i = 0`")));
}

/// Tests whose reference `oclgrind-kernel` (21.10) does not pass under Oclgrind's own runner,
/// and why (none at present: under `--oclgrind-output` clmap prints a block per work-item as
/// Oclgrind does, races included).
const OCLGRIND_DIFFERS: &[(&str, &str)] = &[];

/// What `oclgrind-kernel` prints for `sim` (standard error, then the dump), with the `# ARGS:`
/// line's options, optimised or not (Oclgrind's runner runs both).
fn oclgrind_kernel(sim: &Path, optimise: bool) -> Option<(bool, Vec<String>)> {
    let text = std::fs::read_to_string(sim).ok()?;
    let args: Vec<&str> = text
        .lines()
        .next()
        .and_then(|l| l.strip_prefix("# ARGS:"))
        .map(|a| a.split_whitespace().collect())
        .unwrap_or_default();
    let mut command = std::process::Command::new("oclgrind-kernel");
    command.args(&args).arg(sim.file_name()?).current_dir(sim.parent()?);
    if let Ok(input) = std::fs::File::open(sim.with_extension("inp")) {
        command.stdin(input);
    }
    // On several threads Oclgrind finishes work-groups in whatever order its threads do, and
    // which side of a race between groups comes first changes from run to run; on one it
    // runs them in index order, the order clmap reports.
    command.env("OCLGRIND_NUM_THREADS", "1");
    if !optimise {
        command.env("OCLGRIND_BUILD_OPTIONS", "-cl-opt-disable");
    }
    let out = command.output().ok()?;
    let text =
        format!("{}{}", String::from_utf8_lossy(&out.stderr), String::from_utf8_lossy(&out.stdout));
    Some((out.status.success(), text.lines().map(str::to_string).collect()))
}

/// Oclgrind's runner: each reference line matches the next non-blank output line, in order
/// (`ERROR`: the first line of a block contains the text, and the block is skipped; `EXACT`:
/// the line equals it; `MATCH`: the line contains it), and nothing but blank lines follows the
/// last match.
fn oclgrind_runner_accepts(reference: &str, out: &[String]) -> Result<(), String> {
    let mut at = 0;
    for line in reference.lines().filter(|l| !l.is_empty()) {
        let (kind, text) = (line.split(' ').next().unwrap_or(""), line.get(6..).unwrap_or(""));
        while out.get(at).is_some_and(|l| l.is_empty()) {
            at += 1;
        }
        let found = out.get(at).map(String::as_str).unwrap_or("(end of output)");
        let ok = match kind {
            "ERROR" | "MATCH" => found.contains(text),
            _ => found == text,
        };
        if !ok {
            return Err(format!("expected `{line}`, found `{found}`"));
        }
        at += 1;
        if kind == "ERROR" {
            while out.get(at).is_some_and(|l| !l.is_empty()) {
                at += 1;
            }
        }
    }
    match out.get(at..).unwrap_or(&[]).iter().find(|l| !l.is_empty()) {
        Some(extra) => Err(format!("unexpected output after the last match: `{extra}`")),
        None => Ok(()),
    }
}

/// The references are Oclgrind's answers: `oclgrind-kernel` passes them under Oclgrind's
/// runner, optimised and not, except the tests listed with the reason they differ.
#[test]
fn oclgrind_kernel_passes_the_references_under_its_own_runner() {
    if std::process::Command::new("oclgrind-kernel").arg("--version").output().is_err() {
        assert!(
            std::env::var_os("CLMAP_REQUIRE_OCLGRIND").is_none(),
            "oclgrind-kernel is not installed (scripts/install-deps.sh installs it)"
        );
        eprintln!("oclgrind-kernel is not installed: the references are not cross-checked");
        return;
    }
    let mut sims: Vec<PathBuf> = std::fs::read_dir(dir())
        .expect("tests/oclgrind_checks")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "sim"))
        .collect();
    sims.sort();
    let mut failures = Vec::new();
    for sim in &sims {
        let name = sim.file_stem().and_then(|s| s.to_str()).unwrap_or("");
        let listed = OCLGRIND_DIFFERS.iter().any(|(n, _)| *n == name);
        let reference = std::fs::read_to_string(sim.with_extension("ref")).expect("reference");
        let verdicts: Vec<Result<(), String>> = [true, false]
            .into_iter()
            .map(|optimise| match oclgrind_kernel(sim, optimise) {
                Some((true, out)) => oclgrind_runner_accepts(&reference, &out),
                Some((false, out)) => Err(format!("exit status not 0: {}", out.join("\n"))),
                None => Err("could not run oclgrind-kernel".to_string()),
            })
            .collect();
        match (listed, verdicts.iter().find_map(|v| v.as_ref().err())) {
            (false, Some(why)) => failures.push(format!("{name}: {why}")),
            (true, None) => failures.push(format!("{name} passes now: take it off the list")),
            _ => {}
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Tests whose race blocks differ from `oclgrind-kernel`'s, and why.
const RACE_BLOCKS_DIFFER: &[(&str, &str)] = &[(
    "program_globals_race",
    "program-scope variables live at another buffer number than in Oclgrind (the address's \
     top bits)",
)];

/// The race blocks of an output, line by line, without the compiler's instruction line that
/// Oclgrind prints under each entity (clmap has no LLVM IR to show).
fn race_blocks(stderr: &str) -> Vec<Vec<String>> {
    let mut blocks = Vec::new();
    let mut lines = stderr.lines().peekable();
    while let Some(line) = lines.next() {
        if !line.contains(" data race at ") {
            continue;
        }
        let mut block = vec![line.to_string()];
        while let Some(next) = lines.next_if(|l| !l.is_empty()) {
            block.push(next.to_string());
            if next.contains(" entity: ") {
                lines.next_if(|l| l.starts_with("\t  "));
            }
        }
        blocks.push(block);
    }
    blocks
}

/// Under `--oclgrind-output` every race block is `oclgrind-kernel`'s: the same races, in the
/// same order, each naming both entities and the lines of both accesses.
#[test]
fn race_blocks_are_oclgrinds() {
    if std::process::Command::new("oclgrind-kernel").arg("--version").output().is_err() {
        assert!(
            std::env::var_os("CLMAP_REQUIRE_OCLGRIND").is_none(),
            "oclgrind-kernel is not installed (scripts/install-deps.sh installs it)"
        );
        eprintln!("oclgrind-kernel is not installed: race blocks are not compared");
        return;
    }
    let mut sims: Vec<PathBuf> = std::fs::read_dir(dir())
        .expect("tests/oclgrind_checks")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "sim"))
        .filter(|p| {
            let text = std::fs::read_to_string(p).unwrap_or_default();
            text.lines().next().is_some_and(|l| l.contains("--data-races"))
        })
        .collect();
    sims.sort();
    assert!(sims.len() >= 10, "{sims:?}");
    let mut failures = Vec::new();
    let mut compared = 0;
    for sim in &sims {
        let name = sim.file_stem().and_then(|s| s.to_str()).unwrap_or("");
        let listed = RACE_BLOCKS_DIFFER.iter().any(|(n, _)| *n == name);
        let Some((_, theirs)) = oclgrind_kernel(sim, true) else {
            failures.push(format!("{name}: could not run oclgrind-kernel"));
            continue;
        };
        let theirs = race_blocks(&theirs.join("\n"));
        let ours = clmap(&["run", sim.to_str().expect("utf-8 path"), "--oclgrind-output"]);
        let ours = race_blocks(&ours.stderr());
        compared += usize::from(!theirs.is_empty());
        match (listed, theirs == ours) {
            (false, false) => failures.push(format!(
                "{name}: oclgrind-kernel's race blocks\n{}\n--- clmap's\n{}",
                theirs.iter().map(|b| b.join("\n")).collect::<Vec<_>>().join("\n\n"),
                ours.iter().map(|b| b.join("\n")).collect::<Vec<_>>().join("\n\n"),
            )),
            (true, true) => failures.push(format!("{name} agrees now: take it off the list")),
            _ => {}
        }
    }
    assert!(compared >= 10, "only {compared} tests have races");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
