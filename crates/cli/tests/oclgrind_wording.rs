//! Under `--oclgrind-output`, each finding's first line is Oclgrind's (scripts written for
//! Oclgrind match on it): races as read-write or write-write with the address, uninitialised
//! reads, divergent barriers, invalid accesses.

use clmap_testkit::{clmap, Scratch};

fn run_kernel(name: &str, source: &str, flags: &[&str]) -> String {
    let scratch = Scratch::new(name);
    std::fs::write(scratch.join("k.cl"), source).unwrap();
    let toml = "source = \"k.cl\"\nkernel = \"k\"\nglobal = [64]\nlocal = [32]\n\
                [[arg]]\nname = \"data\"\nbuffer = \"int\"\nlen = 64\ninit = \"zero\"\noutput = true\n";
    let path = scratch.join("k.toml");
    std::fs::write(&path, toml).unwrap();
    let mut args = vec!["run", path.to_str().unwrap(), "--oclgrind-output"];
    args.extend(flags);
    let run = clmap(&args);
    // oclgrind-kernel exits 0 whatever it found.
    run.assert_success();
    run.stderr()
}

#[test]
fn races_are_worded_as_oclgrind_words_them() {
    let err = run_kernel(
        "ocl-race",
        "__kernel void k(__global int *data) {\n\
         __local int tile[32];\n\
         tile[get_local_id(0)] = 1;\n\
         data[0] = tile[(get_local_id(0) + 1) % 32] + get_local_id(0);\n}\n",
        &["--data-races"],
    );
    assert!(
        err.contains("\nWrite-write data race at global memory address 0x1000000000000\n"),
        "{err}"
    );
    assert!(
        err.contains("\nRead-write data race at local memory address 0x1000000000004\n"),
        "{err}"
    );
    assert!(err.contains("\tKernel: k\n"), "{err}");
}

#[test]
fn uninitialised_reads_and_divergent_barriers_are_worded_as_oclgrind_words_them() {
    let err = run_kernel(
        "ocl-uninit",
        "__kernel void k(__global int *data) {\n\
         __local int tile[32];\n\
         data[get_global_id(0)] = tile[get_local_id(0)];\n\
         if (get_local_id(0) < 16) barrier(CLK_LOCAL_MEM_FENCE);\n}\n",
        &["--uninitialized"],
    );
    assert!(
        err.contains("\nUninitialized value written to global memory address 0x1000000000000\n"),
        "{err}"
    );
    assert!(err.contains("\nWork-group divergence detected (barrier)\n"), "{err}");
}

#[test]
fn invalid_accesses_keep_oclgrind_wording() {
    let err = run_kernel(
        "ocl-oob",
        "__kernel void k(__global int *data) {\n data[get_global_id(0) + 1] = 1;\n}\n",
        &[],
    );
    assert!(
        err.contains("\nInvalid write of size 4 at global memory address 0x1000000000100\n"),
        "{err}"
    );
}
