//! Loading a workload through the front end: the program compiles once, `.sim` files and the
//! argument check both use it, and the prepared workload keeps it.

use std::path::{Path, PathBuf};

use clmap_exec::{front_end_runs, ExecError, PreparedWorkload};
use clmap_testkit::Scratch;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn loading_runs_the_front_end_exactly_once() {
    for path in [
        root().join("tests/sim_files/mixed_types.sim"),
        root().join("examples/jacobi_pipeline.toml"),
        root().join("examples/hotspot_pyramid.toml"),
    ] {
        let before = front_end_runs();
        let prepared = PreparedWorkload::load(&path).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(front_end_runs() - before, 1, "{}", path.display());
        // The module the check used is the prepared program.
        for launch in &prepared.workload().launches {
            assert!(prepared.kernel_params(&launch.kernel).is_some(), "{}", launch.kernel);
        }
    }
}

#[test]
fn an_int_buffer_for_a_float_pointer_is_refused_at_load() {
    let dir = Scratch::new("mismatch");
    std::fs::write(dir.join("k.cl"), "kernel void k(global float *out, uint n) { out[0] = n; }")
        .expect("write");
    let text = "source = \"k.cl\"\nkernel = \"k\"\nglobal = [4]\n\
                [[arg]]\nname = \"out\"\nbuffer = \"int\"\nlen = 4\noutput = true\n\
                [[arg]]\nname = \"n\"\nscalar = \"uint\"\nvalue = 4\n";
    std::fs::write(dir.join("w.toml"), text).expect("write");
    let err = PreparedWorkload::load(&dir.join("w.toml")).expect_err("type mismatch").to_string();
    assert!(
        err.contains("launch 1 (`k`)")
            && err.contains("argument 0 (`out`)")
            && err.contains("`int` buffer")
            && err.contains("`float`"),
        "{err}"
    );
    // Fixed, it loads (spelling `unsigned int` for the parameter's `uint` is fine).
    std::fs::write(
        dir.join("w.toml"),
        text.replace("buffer = \"int\"", "buffer = \"float\"")
            .replace("scalar = \"uint\"", "scalar = \"unsigned int\""),
    )
    .expect("write");
    PreparedWorkload::load(&dir.join("w.toml")).expect("matching types load");
}

#[test]
fn compile_errors_and_missing_kernels_are_reported() {
    let dir = Scratch::new("broken");
    std::fs::write(dir.join("k.cl"), "kernel void k(global int *x) { x[0] = ; }").expect("write");
    std::fs::write(dir.join("w.sim"), "k.cl k 4 1 1 4 1 1 <size=16 fill=0>").expect("write");
    let err = PreparedWorkload::load(&dir.join("w.sim")).expect_err("compile error");
    assert!(matches!(err, ExecError::Frontend { .. }), "{err}");
    std::fs::write(dir.join("k.cl"), "kernel void other(global int *x) {}").expect("write");
    let err = PreparedWorkload::load(&dir.join("w.sim")).expect_err("no kernel").to_string();
    assert!(err.contains("`k`") && err.contains("other"), "{err}");
}
