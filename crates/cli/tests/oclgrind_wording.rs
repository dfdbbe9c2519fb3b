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

/// A race block names both sides as Oclgrind does: the work-item whose access conflicts, then
/// the earlier access, each with its ids and line (a store at its assignment operator); an
/// async copy is the work-group's, with no line of its own.
#[test]
fn race_blocks_name_both_entities() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/oclgrind_checks");
    let sim = dir.join("race_entities_global.sim");
    let run = clmap(&["run", sim.to_str().unwrap(), "--oclgrind-output"]);
    run.assert_success();
    let err = run.stderr();
    let block = "\nRead-write data race at global memory address 0x1000000000000\n\
                 \tKernel: race\n\t\n\
                 \tFirst entity:  Global(2,0,0) Local(2,0,0) Group(0,0,0)\n\
                 \tAt line 12 (column 20) of input.cl:\n\t  out[0] = l;\n\t\n\
                 \tSecond entity: Global(0,0,0) Local(0,0,0) Group(0,0,0)\n\
                 \tAt line 10 (column 23) of input.cl:\n\t  seen[l] = out[0];\n\t\n";
    assert!(err.starts_with(block), "{err}");
    // The store of work-item 3 races with the first load and with the first store.
    let third = "\nWrite-write data race at global memory address 0x1000000000000\n\
                 \tKernel: race\n\t\n\
                 \tFirst entity:  Global(3,0,0) Local(3,0,0) Group(0,0,0)\n\
                 \tAt line 12 (column 20) of input.cl:\n\t  out[0] = l;\n\t\n\
                 \tSecond entity: Global(2,0,0) Local(2,0,0) Group(0,0,0)\n";
    assert!(err.contains(third), "{err}");
    assert_eq!(err.matches(" data race at ").count(), 3, "{err}");

    let sim = dir.join("group_copy_race.sim");
    let err = clmap(&["run", sim.to_str().unwrap(), "--oclgrind-output"]).stderr();
    assert!(
        err.contains(
            "\tFirst entity:  Group(0,0,0)\n\t(location unknown)\n\t\n\
             \tSecond entity: Global(0,0,0) Local(0,0,0) Group(0,0,0)\n\
             \tAt line 8 (column 17) of input.cl:\n\t  tile[1] = 5;\n"
        ),
        "{err}"
    );
}

/// Between work-groups, each group reports an address once per kind, against the first
/// group that loaded or stored there; clmap's own output keeps one race per buffer, naming
/// the element.
#[test]
fn races_between_groups_are_per_group_under_oclgrind_output_and_per_buffer_otherwise() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/oclgrind_checks");
    let sim = dir.join("race_entities_between_groups.sim");
    let err = clmap(&["run", sim.to_str().unwrap(), "--oclgrind-output"]).stderr();
    let firsts: Vec<&str> = err.lines().filter(|l| l.contains("First entity")).collect();
    let seconds: Vec<&str> = err.lines().filter(|l| l.contains("Second entity")).collect();
    assert_eq!(
        firsts,
        [
            "\tFirst entity:  Global(2,0,0) Local(0,0,0) Group(1,0,0)",
            "\tFirst entity:  Global(4,0,0) Local(0,0,0) Group(2,0,0)",
        ],
        "{err}"
    );
    assert!(
        seconds.iter().all(|l| l.ends_with("Global(0,0,0) Local(0,0,0) Group(0,0,0)")),
        "{err}"
    );
    let own = clmap(&["run", sim.to_str().unwrap()]);
    let err = own.stderr();
    assert_eq!(err.matches("between work-groups").count(), 1, "{err}");
    assert!(err.contains("`out[0]`"), "{err}");
}
