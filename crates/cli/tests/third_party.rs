//! `clmap exec` on programs whose kernels we did not write: CLBlast's BLAS kernels, clFFT's
//! generated FFT kernels and ViennaCL's linear algebra, each called by a host program of ours
//! (`tests/third_party/{blas.c,fft.c,viennacl.cpp}`), and PyOpenCL's generated kernels
//! (`tests/third_party/pyopencl_arrays.py`: reductions, scans, sorts, random numbers, complex
//! arithmetic) and OpenCV's image-processing kernels (`tests/third_party/opencv_umat.py`). Every kernel goes through clmap's front end and simulator as it comes from the
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

/// Compiles `tests/third_party/NAME` with `compiler` and `libraries`, or skips (fails when
/// required).
fn compiled(
    name: &str,
    compiler: &str,
    flags: &[&str],
    libraries: &[&str],
    scratch: &Scratch,
) -> Option<PathBuf> {
    let binary = scratch.join(name.split('.').next().unwrap_or(name));
    let status = Command::new(compiler)
        .args(flags)
        .args(["-Wall", "-O1", "-o"])
        .arg(&binary)
        .arg(source(name))
        .args(libraries)
        .status();
    if matches!(status, Ok(s) if s.success()) {
        Some(binary)
    } else {
        skip_or_fail(&format!("cannot compile {name} with {compiler} {libraries:?}: {status:?}"));
        None
    }
}

#[test]
fn clblast_routines_compute_right_and_run_clean_under_the_checkers() {
    let scratch = Scratch::new("third-party-blas");
    let Some(binary) = compiled(
        "blas.c",
        "cc",
        &["-std=c99", "-Werror"],
        &["-lclblast", "-lOpenCL", "-lm"],
        &scratch,
    ) else {
        return;
    };
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

#[test]
fn clfft_plans_of_mixed_radix_lengths_compute_right_and_run_clean() {
    let scratch = Scratch::new("third-party-fft");
    let Some(binary) = compiled(
        "fft.c",
        "cc",
        &["-std=c99", "-Werror"],
        &["-lclFFT", "-lOpenCL", "-lm"],
        &scratch,
    ) else {
        return;
    };
    // 1000 = 2^3 5^3 and 4096 = 2^12: different generated kernels.
    for size in ["1000", "4096"] {
        let run = exec(&["--races", "--uninit"], &[binary.to_str().unwrap(), size], scratch.path());
        run.assert_success();
        assert!(run.stdout().contains(&format!("fft {size}: status 0")), "{}", run.describe());
        assert!(run.stdout().contains("ALL OK"), "{}", run.describe());
        assert!(run.stderr().contains("no findings"), "{}", run.describe());
    }
}

#[test]
fn boost_compute_algorithms_and_string_literal_kernels_compute_right() {
    let scratch = Scratch::new("third-party-boost-compute");
    let Some(binary) = compiled(
        "boost_compute.cpp",
        "c++",
        &["-std=c++17", "-DCL_TARGET_OPENCL_VERSION=120"],
        &["-lOpenCL"],
        &scratch,
    ) else {
        return;
    };
    let program = binary.to_str().unwrap();
    let run = exec(&[], &[program, "2000"], scratch.path());
    run.assert_success();
    assert!(run.stdout().contains("ALL OK"), "{}", run.describe());
    for kernel in ["bitonic_block_sort", "scatter", "generate_state", "fizz_buzz"] {
        assert!(run.stderr().contains(kernel), "{kernel} did not run:\n{}", run.describe());
    }
    // Its sorts store equal structs from several work-items; none of that is a data race.
    let races = exec(&["--races"], &[program, "2000"], scratch.path());
    assert!(races.stdout().contains("ALL OK"), "{}", races.describe());
    assert!(races.stderr().contains("no findings"), "{}", races.describe());
}

#[test]
fn viennacl_runs_on_a_device_of_one_type_and_its_norm_race_is_found() {
    let scratch = Scratch::new("third-party-viennacl");
    let Some(binary) = compiled(
        "viennacl.cpp",
        "c++",
        &["-DCL_TARGET_OPENCL_VERSION=120"],
        &["-lOpenCL"],
        &scratch,
    ) else {
        return;
    };
    let program = binary.to_str().unwrap();
    // ViennaCL looks its kernels' parameters up by CL_DEVICE_TYPE: a device of every type
    // (the default, as Oclgrind's) is in no table, and the program aborts.
    let any = exec(&[], &[program, "64"], scratch.path());
    assert!(!any.stdout().contains("ALL OK"), "{}", any.describe());
    for device in [["--emulate", "h100"], ["--limits", "type=gpu"]] {
        let run = exec(&device, &[program, "64"], scratch.path());
        run.assert_success();
        assert!(run.stdout().contains("ALL OK"), "{}", run.describe());
        for kernel in ["_prod_", "cg_csr_prod", "inner_prod1"] {
            assert!(run.stderr().contains(kernel), "{kernel} did not run:\n{}", run.describe());
        }
    }
    // ViennaCL's `norm` kernel reads its reduction's result, `tmp_buffer[0]`, with no barrier
    // after work-item 0's last write to it: a real race on local memory, which the checker
    // names while the results stay right.
    let run = exec(&["--emulate", "h100", "--races"], &[program, "64"], scratch.path());
    assert!(run.stdout().contains("ALL OK"), "{}", run.describe());
    assert!(
        run.stderr().contains("data race: read after write on local memory at `tmp_buffer[0]`"),
        "{}",
        run.describe()
    );
    assert!(run.stderr().contains("kernel `norm`"), "{}", run.describe());
}

#[test]
fn opencv_image_kernels_compute_right_and_their_edge_reads_are_found() {
    let python = Path::new("/usr/bin/python3");
    let has_opencv = Command::new(python)
        .args(["-c", "import numpy, cv2"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_opencv {
        return skip_or_fail("/usr/bin/python3 cannot import numpy and cv2 (python3-opencv)");
    }
    let scratch = Scratch::new("third-party-opencv");
    let script = source("opencv_umat.py");
    let program = [python.to_str().unwrap(), script.to_str().unwrap()];
    let run = exec(&["--uninit"], &program, scratch.path());
    run.assert_success();
    assert!(run.stdout().contains("opencl: True clmap simulator"), "{}", run.describe());
    assert!(run.stdout().contains("ALL OK"), "{}", run.describe());
    for kernel in ["row_filter", "warpAffine", "bilateral", "minmaxloc", "stage1_with_sobel"] {
        assert!(run.stderr().contains(kernel), "{kernel} did not run:\n{}", run.describe());
    }
    // Canny's first stage keeps gradient magnitudes of a 32 x 32 tile and its one-pixel
    // border in local memory. Where the image ends on a tile's edge (96 x 128 here), the
    // border is written one row (column) short, and the last row's non-maximum test reads the
    // row below it, which no work-item wrote, and branches on it.
    assert!(
        run.stderr().contains("uninitialised value in kernel `stage1_with_sobel`")
            && run.stderr().contains("branch on an undefined value"),
        "{}",
        run.describe()
    );
}

/// FFmpeg's arguments that run `filter` on the OpenCL device, on one 96 x 64 test frame, and
/// write the result as raw YUV 4:2:0 to `out`.
fn ffmpeg_filter_args(filter: &str, out: &Path) -> Vec<String> {
    let chain = format!("format=yuv420p,hwupload,{filter},hwdownload,format=yuv420p");
    let mut args: Vec<String> = [
        "-hide_banner",
        "-loglevel",
        "error",
        "-init_hw_device",
        "opencl=ocl:0.0",
        "-filter_hw_device",
        "ocl",
        "-f",
        "lavfi",
        "-i",
        "testsrc2=size=96x64:rate=5",
        "-frames:v",
        "1",
        "-vf",
    ]
    .map(String::from)
    .to_vec();
    args.push(chain);
    args.extend(["-f", "rawvideo", "-y"].map(String::from));
    args.push(out.to_string_lossy().into_owned());
    args
}

#[test]
fn ffmpeg_opencl_filters_match_oclgrind_bit_for_bit() {
    let has_filters = Command::new("ffmpeg")
        .args(["-hide_banner", "-filters"])
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains("avgblur_opencl"));
    let has_oclgrind = Command::new("oclgrind").arg("--version").output().is_ok();
    if !has_filters || !has_oclgrind {
        return skip_or_fail("ffmpeg with OpenCL filters and oclgrind are needed");
    }
    let scratch = Scratch::new("third-party-ffmpeg");
    // Filters that read and write OpenCL images through samplers, blur, convolve, pad,
    // transpose and denoise (nlmeans: four kernels, 168 launches per frame).
    for filter in [
        "avgblur_opencl=sizeX=3",
        "boxblur_opencl",
        "unsharp_opencl",
        "sobel_opencl",
        "transpose_opencl",
        "dilation_opencl",
        "convolution_opencl=0 1 0 1 -4 1 0 1 0",
        "pad_opencl=w=128:h=96:x=8:y=8",
        "nlmeans_opencl",
    ] {
        let theirs = scratch.join("oclgrind.yuv");
        let ours = scratch.join("clmap.yuv");
        let reference = Command::new("oclgrind")
            .arg("ffmpeg")
            .args(ffmpeg_filter_args(filter, &theirs))
            .output()
            .expect("oclgrind runs");
        assert!(reference.status.success(), "{filter} under oclgrind: {reference:?}");
        let args = ffmpeg_filter_args(filter, &ours);
        let mut program = vec!["ffmpeg"];
        program.extend(args.iter().map(String::as_str));
        let run = exec(&["-q"], &program, scratch.path());
        run.assert_success();
        let (a, b) = (std::fs::read(&theirs).unwrap(), std::fs::read(&ours).unwrap());
        // One YUV 4:2:0 frame of 96 x 64 (128 x 96 once padded).
        assert!(a.len() >= 96 * 64 * 3 / 2, "{filter}: {} bytes", a.len());
        let differ = a.iter().zip(&b).filter(|(x, y)| x != y).count();
        assert!(a == b, "{filter}: {differ} of {} bytes differ from Oclgrind's", a.len());
    }
}

#[test]
fn hashcat_cracks_hashes_with_its_own_kernels() {
    if Command::new("hashcat").arg("--version").output().is_err() {
        return skip_or_fail("hashcat is needed");
    }
    let scratch = Scratch::new("third-party-hashcat");
    // MD5 of "42" with hashcat's optimised kernels, SHA-256 of "73" with its pure ones: two
    // digits brute-forced on the device (hashcat's mask ?d?d).
    for (mode, digest, word, optimised) in [
        ("0", "a1d0c6e83f027327d8461063f4ac58a6", "42", true),
        ("1400", "96061e92f58e4bdcdee73df36183fe3ac64747c81c26f6c83aada8d2aabb1864", "73", false),
    ] {
        std::fs::write(scratch.join("hash.txt"), format!("{digest}\n")).unwrap();
        let found = scratch.join(format!("found-{mode}.txt"));
        let mut program = vec![
            "hashcat",
            "-m",
            mode,
            "-a",
            "3",
            "--potfile-disable",
            "--quiet",
            "--backend-ignore-cuda",
            "-o",
        ];
        let found_arg = found.to_string_lossy().into_owned();
        program.push(&found_arg);
        if optimised {
            program.push("-O");
        }
        program.extend(["hash.txt", "?d?d"]);
        let run = exec(&[], &program, scratch.path());
        let cracked = std::fs::read_to_string(&found).unwrap_or_default();
        assert_eq!(cracked.trim(), format!("{digest}:{word}"), "mode {mode}:\n{}", run.describe());
        // hashcat zeroes buffers it created CL_MEM_READ_ONLY from a kernel, which the
        // specification leaves undefined; the run names it.
        assert!(
            run.stderr().contains("store to a buffer the host created read-only"),
            "{}",
            run.describe()
        );
    }
}

#[test]
fn clblast_own_test_suite_passes_on_the_simulator() {
    // A few of CLBlast's own test programs (clblast-tests): each runs its routine over a grid
    // of sizes, strides, layouts and precisions (single, double, complex) and compares with a
    // reference CBLAS. bench/clblast_suite.sh runs all of them.
    let routines = ["xaxpy", "xdot", "xnrm2", "xamax", "xger", "xomatcopy"];
    if Command::new("clblast_test_xaxpy").arg("-h").output().is_err() {
        return skip_or_fail("CLBlast's test programs (clblast-tests) are needed");
    }
    let scratch = Scratch::new("third-party-clblast-suite");
    for routine in routines {
        let program = format!("clblast_test_{routine}");
        let run = exec(&["-q"], &[&program], scratch.path());
        run.assert_success();
        let count = |what: &str| -> u64 {
            run.stdout()
                .lines()
                .filter(|l| l.contains(&format!("test(s) {what}")))
                .filter_map(|l| {
                    l.split_whitespace()
                        .next()?
                        .trim_start_matches(|c: char| !c.is_ascii_digit())
                        .parse::<u64>()
                        .ok()
                })
                .sum()
        };
        assert!(count("passed") > 0, "{routine}: nothing passed\n{}", run.describe());
        assert_eq!(count("failed"), 0, "{routine}:\n{}", run.describe());
    }
}
