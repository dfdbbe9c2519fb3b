//! clmap in `oclgrind-kernel`'s place: called through a link of that name it takes
//! oclgrind-kernel's command line, and under `--oclgrind-output` it honours Oclgrind's
//! environment variables, as scripts written for Oclgrind (its own test runner among them)
//! expect.

use clmap_testkit::{clmap_command, ClmapRun, Scratch};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Every work-item stamps its id into `marks[0]` (a write-write race between the four) and
/// copies a local value only item 0 sets into `copies` (uninitialised for the others).
const KERNEL: &str = "\
__kernel void stamp(__global int *marks, __global int *copies)
{
    __local int shared[4];
    int l = get_local_id(0);
    marks[0] = l + 10;
    if (l == 0)
        shared[0] = 7;
    barrier(CLK_LOCAL_MEM_FENCE);
    copies[l] = shared[l];
}
";

const SIM: &str = "stamp.cl\nstamp\n4 1 1\n4 1 1\n<size=4 fill=0 dump>\n<size=16 fill=0>\n";

/// A directory holding the kernel, its launch and a link named `oclgrind-kernel` to clmap.
fn setup(label: &str) -> (Scratch, PathBuf) {
    let scratch = Scratch::new(label);
    scratch.write("stamp.cl", KERNEL);
    scratch.write("stamp.sim", SIM);
    let link = scratch.join("oclgrind-kernel");
    let clmap = PathBuf::from(clmap_command().get_program());
    std::os::unix::fs::symlink(&clmap, &link).expect("a link to clmap");
    (scratch, link)
}

/// Runs `program ARGS… stamp.sim` in `dir` (as Oclgrind's runner does, from the test's
/// directory) with only the given Oclgrind variables set.
fn run(program: &Path, dir: &Path, args: &[&str], vars: &[(&str, &str)]) -> ClmapRun {
    let mut command = Command::new(program);
    command.current_dir(dir).args(args).arg("stamp.sim");
    for (name, _) in std::env::vars().filter(|(n, _)| n.starts_with("OCLGRIND_")) {
        command.env_remove(name);
    }
    command.envs(vars.iter().copied());
    let mut all = args.to_vec();
    all.push("stamp.sim");
    ClmapRun::of(&mut command, &all)
}

fn count(text: &str, first_line: &str) -> usize {
    text.lines().filter(|l| l.starts_with(first_line)).count()
}

const RACE: &str = "Write-write data race at global memory address";
const UNINIT: &str = "Uninitialized value written to global memory address";

#[test]
fn the_link_runs_oclgrind_kernels_command_line() {
    let (dir, link) = setup("ocl-link");
    let plain = run(&link, &dir, &[], &[]);
    plain.assert_success();
    assert_eq!(plain.stdout(), "\nArgument 'marks': 4 bytes\n  marks[0] = 13\n\n", "{plain:?}");
    assert_eq!(count(&plain.stderr(), RACE) + count(&plain.stderr(), UNINIT), 0, "{plain:?}");
    // Options as oclgrind-kernel spells them, one given twice as its runner may give it.
    let checked = run(&link, &dir, &["--data-races", "--data-races", "--uninitialized"], &[]);
    checked.assert_success();
    assert_eq!(count(&checked.stderr(), RACE), 3, "{checked:?}");
    assert!(count(&checked.stderr(), UNINIT) > 0, "{checked:?}");
    // What oclgrind-kernel refuses, the link refuses: exit status 1.
    run(&link, &dir, &["--no-such-option"], &[]).assert_fails(1);
}

#[test]
fn oclgrinds_environment_variables_are_honoured() {
    let (dir, link) = setup("ocl-env");
    let clmap = PathBuf::from(clmap_command().get_program());
    let checks = [("OCLGRIND_DATA_RACES", "1"), ("OCLGRIND_UNINITIALIZED", "1")];
    // As the link and as `clmap run --oclgrind-output`.
    for (program, args) in [(&link, vec![]), (&clmap, vec!["run", "--oclgrind-output"])] {
        let found = run(program, &dir, &args, &checks);
        found.assert_success();
        assert_eq!(count(&found.stderr(), RACE), 3, "{found:?}");
        assert!(count(&found.stderr(), UNINIT) > 0, "{found:?}");
    }
    // A variable counts only when it is 1, as in Oclgrind.
    let off = run(&link, &dir, &[], &[("OCLGRIND_DATA_RACES", "0")]);
    assert_eq!(count(&off.stderr(), RACE), 0, "{off:?}");
    // Without --oclgrind-output, clmap's own runs do not read Oclgrind's variables.
    let own = run(&clmap, &dir, &["run"], &checks);
    own.assert_success();
    assert!(!own.stderr().contains("race"), "{own:?}");

    let limited = run(&link, &dir, &[], &[checks[0], ("OCLGRIND_MAX_ERRORS", "1")]);
    assert_eq!(count(&limited.stderr(), RACE), 1, "{limited:?}");
    assert!(limited.stderr().contains("Oclgrind: 1 errors generated - suppressing"));

    // The build options are added to the program's: a macro defined there changes the kernel,
    // and Oclgrind's runner's `-cl-opt-disable` is accepted.
    let built = run(&link, &dir, &[], &[("OCLGRIND_BUILD_OPTIONS", "-cl-opt-disable")]);
    built.assert_success();
    assert!(built.stdout().contains("marks[0] = 13"), "{built:?}");
    dir.write("stamp.cl", KERNEL.replace("l + 10", "l + OFFSET"));
    let defined = run(&link, &dir, &[], &[("OCLGRIND_BUILD_OPTIONS", "-DOFFSET=20")]);
    assert!(defined.stdout().contains("marks[0] = 23"), "{defined:?}");
    // oclgrind-kernel's --build-options sets the same variable: given, it replaces it.
    let replaced = run(
        &link,
        &dir,
        &["--build-options", "-DOFFSET=30"],
        &[("OCLGRIND_BUILD_OPTIONS", "-DOFFSET=20")],
    );
    assert!(replaced.stdout().contains("marks[0] = 33"), "{replaced:?}");

    // Quick runs the first and last work-groups only: of four one-item groups, two stamp.
    dir.write(
        "stamp.sim",
        SIM.replace("4 1 1\n4 1 1", "4 1 1\n1 1 1").replace("size=4 ", "size=16 "),
    );
    dir.write("stamp.cl", KERNEL.replace("marks[0] = l + 10", "marks[get_group_id(0)] = 5"));
    let quick = run(&link, &dir, &[], &[("OCLGRIND_QUICK", "1"), ("OCLGRIND_NUM_THREADS", "2")]);
    assert!(
        quick.stdout().contains("  marks[0] = 5\n  marks[1] = 0\n  marks[2] = 0\n  marks[3] = 5\n"),
        "{quick:?}"
    );
    let full = run(&link, &dir, &[], &[("OCLGRIND_NUM_THREADS", "2")]);
    assert!(
        full.stdout().contains("  marks[0] = 5\n  marks[1] = 5\n  marks[2] = 5\n  marks[3] = 5\n"),
        "{full:?}"
    );
    // A number that is no number is refused, as Oclgrind refuses it.
    let bad = run(&link, &dir, &[], &[("OCLGRIND_NUM_THREADS", "0")]);
    bad.assert_fails(1);
    assert!(bad.stderr().contains("OCLGRIND_NUM_THREADS"), "{bad:?}");
}
