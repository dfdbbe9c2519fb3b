//! The `clmap` binary as a user meets it: exit codes, diagnostics, and the Oclgrind-compatible
//! output mode.

use std::path::{Path, PathBuf};
use std::process::Output;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn clmap(args: &[&str]) -> Output {
    clmap_testkit::clmap(args).output
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn check_reports_errors_compiler_style_and_exits_1() {
    let out = clmap(&["check", "tests/malformed/sema_undeclared_identifier.cl"]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.contains("tests/malformed/sema_undeclared_identifier.cl:"), "{err}");
    assert!(err.contains("error: use of undeclared identifier"), "{err}");
    assert!(err.contains('^'), "a caret marks the culprit: {err}");
}

#[test]
fn check_accepts_a_good_kernel() {
    let out = clmap(&["check", "examples/transpose.cl", "-D", "TILE=16", "--kernel", "transpose"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let missing = clmap(&["check", "examples/transpose.cl", "--kernel", "nope"]);
    assert_eq!(missing.status.code(), Some(1));
    assert!(text(&missing.stderr).contains("no kernel named 'nope'"));
}

#[test]
fn run_exits_2_when_a_checker_fires_and_names_the_line() {
    let out = clmap(&["run", "examples/missing_barrier.toml", "--races"]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(err.contains("missing_barrier.cl:16:"), "{err}");
    assert!(err.contains("data race"), "{err}");
    let clean = clmap(&["run", "examples/transpose.toml", "--races", "--uninit"]);
    assert_eq!(clean.status.code(), Some(0), "{}", text(&clean.stderr));
}

#[test]
fn bad_workloads_exit_1_with_a_message() {
    let out = clmap(&["run", "examples/vector_add.cl"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(!text(&out.stderr).is_empty());
}

#[test]
fn oclgrind_output_matches_oclgrind_kernel() {
    let data = "crates/cli/tests/data";
    let out = clmap(&["run", &format!("{data}/oob_read.sim"), "--oclgrind-output"]);
    // Like oclgrind-kernel, findings go to standard error and the exit code stays 0.
    assert_eq!(out.status.code(), Some(0));
    let expected_stdout =
        std::fs::read_to_string(root().join(data).join("oob_read.oclgrind.stdout")).unwrap();
    assert_eq!(text(&out.stdout), expected_stdout);
    // Oclgrind also prints the LLVM instruction; clmap has no LLVM IR and leaves that line out.
    let expected_stderr: String =
        std::fs::read_to_string(root().join(data).join("oob_read.oclgrind.stderr"))
            .unwrap()
            .lines()
            .filter(|l| !l.trim_start().starts_with('%'))
            .map(|l| format!("{l}\n"))
            .collect();
    assert_eq!(text(&out.stderr), expected_stderr);
}

#[test]
fn help_teaches_every_command() {
    let out = clmap(&["--help"]);
    assert_eq!(out.status.code(), Some(0));
    let help = text(&out.stdout);
    for command in ["check", "print", "ir", "run", "compare", "devices", "time"] {
        assert!(help.contains(command), "--help lists {command}");
    }
}

/// A reader that stops early (`clmap … | head -1`) ends clmap quietly: no panic message.
#[test]
fn a_closed_output_pipe_ends_clmap_without_a_panic() {
    use std::io::Read;
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_clmap"))
        // The dump is over a megabyte: far more than a pipe holds, so clmap is still printing.
        .args(["run", "tests/corpus/mm_simple.toml", "--dump"])
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("clmap starts");
    // Read one byte, then close the pipe while clmap still has lines to print.
    let mut stdout = child.stdout.take().expect("stdout");
    let mut first = [0u8; 1];
    stdout.read_exact(&mut first).expect("clmap prints");
    drop(stdout);
    let mut stderr = String::new();
    child.stderr.take().expect("stderr").read_to_string(&mut stderr).expect("stderr reads");
    child.wait().expect("clmap ends");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

/// Real kernels carry Latin-1 comments and strings; they are read as Latin-1, not refused,
/// by `check`, by workloads and by `#include`.
#[test]
fn sources_that_are_not_utf8_are_read_as_latin1() {
    let dir = clmap_testkit::Scratch::new("latin1");
    dir.write("common.h", b"/* r\xe9glages communs */\n#define SCALE 3\n".as_slice());
    let kernel = dir.write(
        "scale.cl",
        b"// caf\xe9: multiplie chaque \xe9l\xe9ment\n#include \"common.h\"\n\
          __kernel void scale(__global int *x) { x[get_global_id(0)] *= SCALE; }\n"
            .as_slice(),
    );
    let check = clmap(&["check", kernel.to_str().expect("utf-8 path")]);
    assert_eq!(check.status.code(), Some(0), "{}", text(&check.stderr));
    let workload = dir.write(
        "scale.toml",
        "kernel = \"scale\"\nsource = \"scale.cl\"\nglobal = [4]\n\
         [[arg]]\nname = \"x\"\nbuffer = \"int\"\nlen = 4\ninit = \"fill(2)\"\noutput = true\n",
    );
    let run = clmap(&["run", workload.to_str().expect("utf-8 path"), "--dump"]);
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    assert!(text(&run.stdout).contains("x[3] = 6"), "{}", text(&run.stdout));
}

/// A `.sim` file's `# ARGS:` line (Oclgrind's test kernels carry one) applies its options:
/// `--data-races` turns the race checker on, `--build-options` defines what the kernel needs.
/// Oclgrind's spellings work on the command line too.
#[test]
fn sim_files_args_lines_and_oclgrind_option_spellings_apply() {
    let dir = clmap_testkit::Scratch::new("sim-args");
    dir.write(
        "race.cl",
        "__kernel void race(__global int *out) { out[0] = get_global_id(0) * SCALE; }\n",
    );
    let racy = |args_line: &str| {
        let name = format!("race{}.sim", args_line.len());
        dir.write(
            &name,
            format!("{args_line}\nrace.cl\nrace\n4 1 1\n4 1 1\n<size=16 fill=0 dump>\n"),
        )
    };
    let with_races = racy("# ARGS: --data-races --build-options \"-DSCALE=2\"");
    let out = clmap(&["run", with_races.to_str().expect("utf-8 path")]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).to_lowercase().contains("race"), "{}", text(&out.stderr));

    let without = racy("# ARGS: --build-options -DSCALE=2 --dump-spir");
    let without = without.to_str().expect("utf-8 path");
    let out = clmap(&["run", without]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("--dump-spir"),
        "unused options are named: {}",
        text(&out.stderr)
    );
    let out = clmap(&["run", without, "--data-races"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    // Without the define the kernel does not compile: the options really were applied.
    let bare = racy("# a comment, no ARGS line");
    let out = clmap(&["run", bare.to_str().expect("utf-8 path")]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let out = clmap(&["run", bare.to_str().expect("utf-8 path"), "--build-options", "-DSCALE=3"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
}

/// A workload given to `check` and a kernel given to `run` each get a sentence saying what
/// the command expected and the command that does what the user meant.
#[test]
fn check_and_run_say_what_they_expected() {
    let check = clmap(&["check", "examples/vector_add.toml"]);
    assert_eq!(check.status.code(), Some(1));
    let err = text(&check.stderr);
    assert!(err.contains("this is a workload") && err.contains("vector_add.cl"), "{err}");
    let run = clmap(&["run", "examples/vector_add.cl"]);
    assert_eq!(run.status.code(), Some(1));
    let err = text(&run.stderr);
    assert!(err.contains("clmap workload --skeleton examples/vector_add.cl"), "{err}");
}
