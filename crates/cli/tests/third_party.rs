//! `clmap exec` on programs whose kernels we did not write: CLBlast's BLAS kernels, called by a
//! host program of ours (`tests/third_party/blas.c`), and PyOpenCL's generated kernels
//! (`tests/third_party/pyopencl_arrays.py`: reductions, scans, sorts, random numbers, complex
//! arithmetic). Every kernel goes through clmap's front end and simulator as it comes from the
//! library, and each program checks its own results. The libraries are Debian packages that
//! `scripts/install-deps.sh` installs; without them these tests skip, unless
//! CLMAP_REQUIRE_OPENCL=1 says they must run.

use clmap_testkit::{clmap_command, ClmapRun, Scratch};
use std::path::{Path, PathBuf};
use std::process::Command;

fn required() -> bool {
    std::env::var("CLMAP_REQUIRE_OPENCL").is_ok_and(|v| v == "1")
}

fn skip_or_fail(what: &str) {
    assert!(!required(), "{what}");
    eprintln!("skipped: {what}");
}

fn source(name: &str) -> PathBuf {
    clmap_testkit::root().join("tests/third_party").join(name)
}

fn exec(args: &[&str], program: &[&str], dir: &Path) -> ClmapRun {
    let mut command = clmap_command();
    // PyOpenCL keeps compiled kernels under $HOME; a scratch home keeps each run cold.
    command.current_dir(dir).env("HOME", dir).env("PYOPENCL_NO_CACHE", "1");
    command.arg("exec").args(args).arg("--").args(program);
    let mut all: Vec<&str> = vec!["exec"];
    all.extend(args);
    ClmapRun::of(&mut command, &all)
}

#[test]
fn clblast_routines_compute_right_and_run_clean_under_the_checkers() {
    let scratch = Scratch::new("third-party-blas");
    let binary = scratch.join("blas");
    let status = Command::new("cc")
        .args(["-std=c99", "-Wall", "-Werror", "-O1", "-o"])
        .arg(&binary)
        .arg(source("blas.c"))
        .args(["-lclblast", "-lOpenCL", "-lm"])
        .status();
    if !matches!(status, Ok(s) if s.success()) {
        return skip_or_fail(&format!("cannot compile blas.c against CLBlast: {status:?}"));
    }
    // 64 takes CLBlast's direct GEMM; 100 is no multiple of its tiles (padded paths).
    for size in ["64", "100"] {
        let run = exec(&["--races", "--uninit"], &[binary.to_str().unwrap(), size], scratch.path());
        run.assert_success();
        assert!(run.stdout().contains("ALL OK"), "{}", run.describe());
        for routine in ["sgemm", "saxpy", "sdot", "snrm2", "sgemv"] {
            assert!(run.stdout().contains(&format!("{routine}: status 0")), "{}", run.describe());
        }
        assert!(run.stderr().contains("no findings"), "{}", run.describe());
    }
}

#[test]
fn pyopencl_generated_kernels_build_and_compute_right() {
    let python = Path::new("/usr/bin/python3");
    let has_pyopencl = Command::new(python)
        .args(["-c", "import numpy, pyopencl"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_pyopencl {
        return skip_or_fail("/usr/bin/python3 cannot import numpy and pyopencl");
    }
    let scratch = Scratch::new("third-party-pyopencl");
    let script = source("pyopencl_arrays.py");
    let run = exec(&[], &[python.to_str().unwrap(), script.to_str().unwrap()], scratch.path());
    run.assert_success();
    assert!(run.stdout().contains("ALL OK"), "{}", run.describe());
    // The library's generated programs, not only our own: its scan and sort kernels ran.
    for kernel in
        ["scan_lev1", "reduce_kernel_stage1", "rng_gen_philox4x32_uniform", "cfloat_exp_kernel"]
    {
        assert!(run.stderr().contains(kernel), "{kernel} did not run:\n{}", run.describe());
    }
}
