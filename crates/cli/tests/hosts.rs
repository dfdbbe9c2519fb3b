//! `clmap exec` on the OpenCL API test programs of `tests/hosts/` and on the benchmark
//! programs of `bench/hosts/`: unmodified C host programs, compiled against the ICD loader as a
//! user compiles them, that check the platform themselves and say so in their exit code.
//!
//! Each `tests/hosts/NAME.c` starts with directives, one per line:
//!
//! ```text
//! // EXPECT-EXIT: 0                      the exit code of `clmap exec` (default 0)
//! // EXPECT-OUTPUT: text                 must appear in stdout + stderr (any number of these)
//! // EXPECT-OUTPUT-NOCASE: text          the same, ignoring ASCII case
//! // ARGS: a b c                         the program's arguments
//! // ENV: NAME=VALUE                     set for the run (any number of these)
//! // EXEC-FLAGS: --races --uninit        flags for `clmap exec`
//! ```
//!
//! Without `cc` or the OpenCL headers and loader the tests skip with a message, unless
//! `CLMAP_REQUIRE_OPENCL=1`, which makes that a failure.

use clmap_testkit::{clmap_command, root, ClmapRun, Requirement, Scratch};
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Output, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// How long one program may run under `clmap exec` before it counts as hung.
const RUN_LIMIT: Duration = Duration::from_secs(300);

/// The directives at the top of a host program.
#[derive(Debug, Default)]
struct Directives {
    exit: i32,
    outputs: Vec<String>,
    outputs_ignoring_case: Vec<String>,
    args: Vec<String>,
    env: Vec<(String, String)>,
    exec_flags: Vec<String>,
}

impl Directives {
    /// Reads the `// KEY: value` lines that open `source`, up to its first line that is not a
    /// `//` comment. A line that looks like a directive but names none is an error, so a typo
    /// cannot silently drop an expectation.
    fn parse(source: &str, file: &Path) -> Directives {
        let mut directives = Directives::default();
        for (index, line) in source.lines().enumerate() {
            let Some(comment) = line.strip_prefix("//") else { break };
            let Some((key, value)) = comment.trim().split_once(':') else { continue };
            if key.is_empty() || !key.chars().all(|c| c.is_ascii_uppercase() || c == '-') {
                continue;
            }
            let value = value.trim();
            let at = || format!("{}:{}", file.display(), index + 1);
            match key {
                "EXPECT-EXIT" => {
                    directives.exit = value
                        .parse()
                        .unwrap_or_else(|_| panic!("{}: EXPECT-EXIT takes an integer", at()))
                }
                "EXPECT-OUTPUT" => directives.outputs.push(value.to_string()),
                "EXPECT-OUTPUT-NOCASE" => directives.outputs_ignoring_case.push(value.to_string()),
                "ARGS" => directives.args.extend(value.split_whitespace().map(str::to_string)),
                "ENV" => {
                    let (name, setting) = value
                        .split_once('=')
                        .unwrap_or_else(|| panic!("{}: ENV takes NAME=VALUE", at()));
                    directives.env.push((name.to_string(), setting.to_string()));
                }
                "EXEC-FLAGS" => {
                    directives.exec_flags.extend(value.split_whitespace().map(str::to_string))
                }
                other => panic!("{}: unknown directive `{other}`", at()),
            }
        }
        directives
    }
}

/// Whether C programs can be built against OpenCL here: `cc`, the headers and the loader. The
/// answer is worked out once; `None` after saying why (or a panic, when it is required).
fn toolchain() -> Option<()> {
    static PROBE: OnceLock<Result<(), String>> = OnceLock::new();
    let probe = PROBE.get_or_init(|| {
        let scratch = Scratch::new("hosts-probe");
        let source = scratch.write(
            "probe.c",
            "#define CL_TARGET_OPENCL_VERSION 120\n#include <CL/cl.h>\n\
             int main(void) { cl_uint n = 0; return clGetPlatformIDs(0, 0, &n) == 12345; }\n",
        );
        let output = Command::new("cc")
            .arg(&source)
            .arg("-o")
            .arg(scratch.join("probe"))
            .arg("-lOpenCL")
            .output()
            .map_err(|e| format!("cannot run cc: {e}"))?;
        if output.status.success() {
            Ok(())
        } else {
            Err(format!(
                "cc cannot build against OpenCL (install gcc and ocl-icd-opencl-dev): {}",
                String::from_utf8_lossy(&output.stderr).trim()
            ))
        }
    });
    match probe {
        Ok(()) => Some(()),
        Err(why) => {
            Requirement::OpenCl.unavailable(why);
            None
        }
    }
}

/// Compiles `tests/hosts/NAME.c` into `scratch` with the flags the programs promise to pass.
fn compile_host_program(name: &str, scratch: &Scratch) -> PathBuf {
    let source = root().join("tests/hosts").join(format!("{name}.c"));
    let binary = scratch.join(name);
    let output = Command::new("cc")
        .args(["-std=c99", "-Wall", "-Werror", "-O1"])
        .arg(&source)
        .arg("-o")
        .arg(&binary)
        .args(["-lOpenCL", "-lpthread", "-lm"])
        .output()
        .expect("cc runs (the toolchain probe ran it)");
    assert!(
        output.status.success(),
        "{} does not compile:\n{}",
        source.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    binary
}

/// Runs `command` with its output in files under `scratch` (so a chatty program cannot block on
/// a full pipe), killing it after [`RUN_LIMIT`].
fn run_with_limit(mut command: Command, scratch: &Scratch, described: Vec<String>) -> ClmapRun {
    let stdout_path = scratch.join("run.stdout");
    let stderr_path = scratch.join("run.stderr");
    command
        .stdin(Stdio::null())
        .stdout(File::create(&stdout_path).expect("a file for stdout"))
        .stderr(File::create(&stderr_path).expect("a file for stderr"));
    let mut child = command.spawn().expect("the clmap binary starts");
    let started = Instant::now();
    let status: ExitStatus = loop {
        if let Some(status) = child.try_wait().expect("waiting for clmap") {
            break status;
        }
        if started.elapsed() > RUN_LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            let stdout = std::fs::read_to_string(&stdout_path).unwrap_or_default();
            let stderr = std::fs::read_to_string(&stderr_path).unwrap_or_default();
            panic!(
                "clmap {} ran longer than {} s and was killed\n--- stdout\n{stdout}\n--- stderr\n{stderr}",
                described.join(" "),
                RUN_LIMIT.as_secs()
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let output = Output {
        status,
        stdout: std::fs::read(&stdout_path).unwrap_or_default(),
        stderr: std::fs::read(&stderr_path).unwrap_or_default(),
    };
    ClmapRun { args: described, output }
}

/// `clmap exec FLAGS -- PROGRAM ARGS` in `dir`, with `env` set.
fn exec(
    flags: &[String],
    program: &Path,
    args: &[String],
    env: &[(String, String)],
    dir: &Path,
    scratch: &Scratch,
) -> ClmapRun {
    let mut command = clmap_command();
    command.current_dir(dir).arg("exec").args(flags).arg("--").arg(program).args(args);
    for (name, value) in env {
        command.env(name, value);
    }
    let mut described = vec!["exec".to_string()];
    described.extend(flags.iter().cloned());
    described.push("--".to_string());
    described.push(program.display().to_string());
    described.extend(args.iter().cloned());
    run_with_limit(command, scratch, described)
}

/// Compiles `tests/hosts/NAME.c`, runs it under `clmap exec` as its directives say and checks
/// the exit code and the output they expect.
fn run_host_program(name: &str) {
    let Some(()) = toolchain() else { return };
    let file = root().join("tests/hosts").join(format!("{name}.c"));
    let source =
        std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let directives = Directives::parse(&source, &file);
    let scratch = Scratch::new(&format!("hosts-{name}"));
    let binary = compile_host_program(name, &scratch);
    let run = exec(
        &directives.exec_flags,
        &binary,
        &directives.args,
        &directives.env,
        scratch.path(),
        &scratch,
    );
    run.assert_no_panic();

    let combined = format!("{}{}", run.stdout(), run.stderr());
    let mut problems = Vec::new();
    if run.code() != Some(directives.exit) {
        problems.push(format!("exit code {:?}, expected {}", run.code(), directives.exit));
    }
    for needle in &directives.outputs {
        if !combined.contains(needle.as_str()) {
            problems.push(format!("the output lacks {needle:?}"));
        }
    }
    let lowered = combined.to_ascii_lowercase();
    for needle in &directives.outputs_ignoring_case {
        if !lowered.contains(&needle.to_ascii_lowercase()) {
            problems.push(format!("the output lacks {needle:?} (ignoring case)"));
        }
    }
    // The programs print FAIL lines naming the check, the line and the error code: put them
    // first, the whole run after.
    let failures: Vec<&str> = combined.lines().filter(|line| line.starts_with("FAIL")).collect();
    assert!(
        problems.is_empty(),
        "tests/hosts/{name}.c under clmap exec: {}\n{}\n{}",
        problems.join("; "),
        failures.join("\n"),
        run.describe()
    );
}

macro_rules! host_programs {
    ($($name:ident),* $(,)?) => {
        /// Every program of `tests/hosts/`, each with its own test below.
        const HOST_PROGRAMS: &[&str] = &[$(stringify!($name)),*];
        $(
            #[test]
            fn $name() {
                run_host_program(stringify!($name));
            }
        )*
    };
}

host_programs!(
    platform, context, queue, buffers, programs, binary, kernels, events, errors, threads, images,
    oob, check_api
);

#[test]
fn every_host_program_has_a_test() {
    let mut found: Vec<String> = std::fs::read_dir(root().join("tests/hosts"))
        .expect("tests/hosts exists")
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "c"))
        .map(|path| path.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    found.sort();
    let mut listed: Vec<String> = HOST_PROGRAMS.iter().map(|s| s.to_string()).collect();
    listed.sort();
    assert_eq!(found, listed, "tests/hosts/*.c and the host_programs! list in hosts.rs differ");
}

#[test]
fn directives_are_read_from_the_opening_comment_only() {
    let source = "// EXPECT-EXIT: 3\n// EXPECT-OUTPUT: a b\n// EXPECT-OUTPUT-NOCASE: Out Of Bounds\n\
                  // ARGS: 1 2\n// ENV: A=x=y\n// EXEC-FLAGS: --races\n// a comment: not a directive\n\
                  /* the program */\n// EXPECT-OUTPUT: too late\n";
    let d = Directives::parse(source, Path::new("t.c"));
    assert_eq!(d.exit, 3);
    assert_eq!(d.outputs, ["a b"]);
    assert_eq!(d.outputs_ignoring_case, ["Out Of Bounds"]);
    assert_eq!(d.args, ["1", "2"]);
    assert_eq!(d.env, [("A".to_string(), "x=y".to_string())]);
    assert_eq!(d.exec_flags, ["--races"]);
    assert_eq!(Directives::parse("int x;\n", Path::new("t.c")).exit, 0);
}

#[test]
#[should_panic(expected = "unknown directive `EXPECT-OUPUT`")]
fn a_misspelt_directive_is_an_error() {
    Directives::parse("// EXPECT-OUPUT: x\n", Path::new("t.c"));
}

/// Builds `bench/hosts` with its Makefile into a scratch directory and runs three of its
/// programs at small sizes in `bench/hosts` (they read their kernels from the current
/// directory): each compares its results with its own host computation and exits 0 when
/// they agree.
#[test]
fn benchmark_programs_agree_with_their_host_computation() {
    let Some(()) = toolchain() else { return };
    let scratch = Scratch::new("hosts-bench");
    let bench = root().join("bench/hosts");
    let built = Command::new("make")
        .arg("-s")
        .arg("-C")
        .arg(&bench)
        .arg(format!("OUT={}", scratch.path().display()))
        .output();
    let built = match built {
        Ok(output) => output,
        Err(error) => {
            Requirement::OpenCl.unavailable(format_args!("cannot run make: {error}"));
            return;
        }
    };
    assert!(
        built.status.success(),
        "make -C bench/hosts failed:\n{}",
        String::from_utf8_lossy(&built.stderr)
    );
    for (program, args) in
        [("mvt", vec!["64"]), ("atax", vec!["64", "48"]), ("2dconv", vec!["64", "40"])]
    {
        let args: Vec<String> = args.into_iter().map(str::to_string).collect();
        let run = exec(&[], &scratch.join(program), &args, &[], &bench, &scratch);
        run.assert_success();
        assert!(run.stdout().contains(&format!("{program}: 0 of ")), "{}", run.describe());
    }
}

#[test]
fn clinfo_finds_the_clmap_platform() {
    if Command::new("clinfo").arg("--version").output().is_err() {
        eprintln!("skipped: clinfo is not installed");
        return;
    }
    let scratch = Scratch::new("hosts-clinfo");
    let run = exec(&[], Path::new("clinfo"), &[], &[], scratch.path(), &scratch);
    run.assert_success();
    assert!(run.stdout().contains("clmap"), "{}", run.describe());
}
