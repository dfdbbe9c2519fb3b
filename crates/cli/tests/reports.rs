//! Reports a user can act on: each error names what to change (the option that lifts a limit,
//! the parameter a launch lacks, the kernels there are, the command that takes the file), and
//! every command exits with the documented code (README: 1 bad input, 2 the kernel's fault,
//! 3 something missing from the environment).

use clmap_testkit::{clmap, ClmapRun, Scratch};

const BAD_INPUT: i32 = 1;
const KERNEL_FAULT: i32 = 2;
const ENVIRONMENT: i32 = 3;

/// A kernel that never ends unless `x[0]` is set, which nothing does.
const SPIN: &str = "__kernel void spin(__global int *x) { while (x[0] == 0) { x[1] += 1; } }\n";

fn spin_workload(dir: &Scratch) -> String {
    dir.write("spin.cl", SPIN);
    dir.write(
        "spin.toml",
        "kernel = \"spin\"\nsource = \"spin.cl\"\nglobal = [1]\n\
         [[arg]]\nname = \"x\"\nbuffer = \"int\"\nlen = 2\noutput = true\n",
    )
    .display()
    .to_string()
}

fn path(p: std::path::PathBuf) -> String {
    p.display().to_string()
}

/// A runaway kernel is the kernel's fault (2) in every command that simulates, and each names
/// the option that lets it run longer, which that command has.
#[test]
fn the_step_budget_names_max_steps_in_every_simulating_command() {
    let dir = Scratch::new("reports-steps");
    let spin = spin_workload(&dir);
    for command in [
        vec!["run", &spin, "--max-steps", "5000"],
        vec!["analyze", &spin, "--max-steps", "5000"],
        vec!["compare", &spin, "--devices", "sim,sim", "--max-steps", "5000"],
    ] {
        let run = clmap(&command);
        run.assert_fails(KERNEL_FAULT);
        let err = run.stderr();
        assert!(err.contains("ran more than 5000 steps"), "{}", run.describe());
        assert!(err.contains("`--max-steps N` allows more"), "{}", run.describe());
        let help = clmap(&[command[0], "--help"]);
        assert!(help.stdout().contains("--max-steps"), "{} --help lacks it", command[0]);
    }
}

/// Both memory limits name `--max-alloc`, which every command takes and which lifts them;
/// the environment variable still works for scripts that set it.
#[test]
fn memory_limits_name_max_alloc_which_lifts_them() {
    for command in ["run", "analyze", "compare", "time"] {
        let help = clmap(&[command, "--help"]);
        assert!(help.stdout().contains("--max-alloc <SIZE>"), "{command} --help lacks it");
    }
    let small = clmap(&["run", "examples/vector_add.toml", "--max-alloc", "1K"]);
    small.assert_fails(BAD_INPUT);
    let err = small.stderr();
    assert!(err.contains("more than the limit of 1024 bytes"), "{}", small.describe());
    assert!(err.contains("`--max-alloc SIZE` allows more"), "{}", small.describe());
    assert!(!err.contains("LoadOptions"), "no library names in messages: {err}");
    clmap(&["run", "examples/vector_add.toml", "--max-alloc", "1G"]).assert_success();
    clmap(&["run", "examples/vector_add.toml", "--max-alloc", "lots"])
        .assert_fails(BAD_INPUT)
        .assert_stderr_contains("is not a size");

    // One work-group of 64 work-items with a 256 KiB private array each needs 16 MiB.
    let dir = Scratch::new("reports-alloc");
    dir.write(
        "private.cl",
        "__kernel void p(__global float *x) {\n  float a[65536];\n  int i = get_global_id(0);\n\
         \x20 a[i] = i;\n  x[i] = a[i];\n}\n",
    );
    let private = path(dir.write(
        "private.toml",
        "kernel = \"p\"\nsource = \"private.cl\"\nglobal = [64]\nlocal = [64]\n\
         [[arg]]\nname = \"x\"\nbuffer = \"float\"\nlen = 64\noutput = true\n",
    ));
    let limited = clmap(&["run", &private, "--max-alloc", "1M"]);
    limited.assert_fails(BAD_INPUT);
    assert!(limited.stderr().contains("a work-group"), "{}", limited.describe());
    assert!(limited.stderr().contains("`--max-alloc SIZE`"), "{}", limited.describe());
    clmap(&["run", &private, "--max-alloc", "64M"]).assert_success();

    let by_environment = |limit: &str| {
        let mut command = clmap_testkit::clmap_command();
        command.args(["run", "examples/vector_add.toml"]).env("CLMAP_MAX_ALLOC", limit);
        ClmapRun::of(&mut command, &["run", "examples/vector_add.toml"])
    };
    by_environment("1K").assert_fails(BAD_INPUT);
    by_environment("1G").assert_success();
}

/// An argument-count error points at the launch in the workload and names the parameter
/// that has no argument (or the argument that has no parameter).
#[test]
fn argument_count_errors_point_at_the_launch_and_name_the_parameter() {
    let dir = Scratch::new("reports-args");
    dir.write(
        "two.cl",
        "__kernel void fill(__global int *x) { x[get_global_id(0)] = 1; }\n\
         __kernel void scale(__global int *x, int factor, int offset) {\n\
         \x20 x[get_global_id(0)] = x[get_global_id(0)] * factor + offset;\n}\n",
    );
    let single = path(dir.write(
        "single.toml",
        "kernel = \"scale\"\nsource = \"two.cl\"\nglobal = [4]\n\n\
         [[arg]]\nname = \"x\"\nbuffer = \"int\"\nlen = 4\noutput = true\n\n\
         [[arg]]\nname = \"offset\"\nscalar = \"int\"\nvalue = 3\n",
    ));
    let run = clmap(&["run", &single]);
    run.assert_fails(BAD_INPUT);
    let err = run.stderr();
    assert!(err.contains("single.toml:1:10: launch 1 (`scale`)"), "{}", run.describe());
    // The arguments are named after parameters: the one in the middle is the one missing.
    assert!(err.contains("no argument for `int factor`"), "{}", run.describe());

    let pipeline = path(dir.write(
        "pipeline.toml",
        "source = \"two.cl\"\n[buffers.data]\ntype = \"int\"\nlen = 4\noutput = true\n\n\
         [[launch]]\nkernel = \"fill\"\nglobal = [4]\nargs = [\"data\"]\n\n\
         [[launch]]\nkernel = \"fill\"\nglobal = [4]\nargs = [\"data\", \"data\"]\n",
    ));
    let run = clmap(&["run", &pipeline]);
    run.assert_fails(BAD_INPUT);
    let err = run.stderr();
    assert!(err.contains("pipeline.toml:12:1: launch 2 (`fill`)"), "{}", run.describe());
    assert!(err.contains("argument 1 (`data`) matches no parameter"), "{}", run.describe());
}

/// "No kernel named" lists the kernels the program has, for `check` and for workloads.
#[test]
fn a_missing_kernel_is_named_with_the_kernels_there_are() {
    let check = clmap(&["check", "examples/transpose.cl", "-D", "TILE=16", "--kernel", "nope"]);
    check.assert_fails(BAD_INPUT);
    assert!(check.stderr().contains("(kernels: transpose)"), "{}", check.describe());
    let dir = Scratch::new("reports-kernel");
    dir.write(
        "two.cl",
        "__kernel void a(__global int *x) {}\n__kernel void b(__global int *x) {}\n",
    );
    let workload = path(dir.write(
        "w.toml",
        "kernel = \"c\"\nsource = \"two.cl\"\nglobal = [1]\n[[arg]]\nname = \"x\"\nbuffer = \"int\"\nlen = 1\n",
    ));
    let run = clmap(&["run", &workload]);
    run.assert_fails(BAD_INPUT);
    assert!(run.stderr().contains("(kernels: a, b)"), "{}", run.describe());
}

/// Commands that read OpenCL C refuse a workload with the command that takes it.
#[test]
fn commands_that_read_kernels_say_which_command_takes_a_workload() {
    for command in ["check", "print", "ir"] {
        let run = clmap(&[command, "examples/vector_add.toml"]);
        run.assert_fails(BAD_INPUT);
        let err = run.stderr();
        assert!(
            err.contains(&format!("this is a workload, and {command} reads OpenCL C")),
            "{err}"
        );
        assert!(err.contains(&format!("`clmap {command} ")), "{err}");
        assert!(err.contains("vector_add.cl") && err.contains("`clmap run "), "{err}");
    }
}

/// A bad option is bad input (1), not clap's own 2, which reads as a kernel fault.
#[test]
fn a_bad_option_exits_1_and_help_exits_0() {
    clmap(&["run", "examples/vector_add.toml", "--no-such-option"]).assert_fails(BAD_INPUT);
    clmap(&["no-such-command"]).assert_fails(BAD_INPUT);
    clmap(&["run"]).assert_fails(BAD_INPUT);
    clmap(&["run", "--help"]).assert_success();
    clmap(&["--version"]).assert_success();
}

/// A device that is not there exits 3 in every command that takes one, whether the machine
/// has OpenCL or not; a device the performance database does not know is missing the same way.
#[test]
fn a_missing_device_exits_3_in_every_command() {
    let dir = Scratch::new("reports-device");
    let db = path(dir.join("perf.db"));
    let w = "examples/vector_add.toml";
    let commands: Vec<Vec<&str>> = vec![
        vec!["run", w, "--device", "nosuch"],
        vec!["compare", w, "--devices", "sim,nosuch"],
        vec!["time", w, "--device", "nosuch"],
        vec!["tune", w, "--device", "nosuch"],
        vec!["local", "examples/transpose.toml", "--buffer", "in", "--validate-on", "nosuch"],
        vec!["unlocal", "examples/transpose.toml", "--validate-on", "nosuch"],
        vec!["phase", w, "--device", "nosuch"],
        vec!["fuse", "examples/fusion/hotspot_small.toml", "--measure", "--device", "nosuch"],
        vec!["advise", w, "--device", "nosuch", "--db", &db],
        vec!["bench", "maps", "--device", "nosuch", "--db", &db],
        vec!["bench", "compose", "--device", "nosuch", "--all", "--db", &db],
        vec!["db", "maps", "--device", "nosuch", "--db", &db],
        vec!["db", "compose", "--device", "nosuch", "--db", &db],
    ];
    for command in commands {
        let run = clmap(&command);
        run.assert_fails(ENVIRONMENT);
        let err = run.stderr();
        assert!(err.contains("nosuch") || err.contains("OpenCL"), "{}", run.describe());
        // The device is looked for before any work is done.
        assert!(!err.contains("validated on the simulator"), "{}", run.describe());
    }
}

/// A macro the build should define is one error, however often the kernel uses it, and says
/// how to define it; `-D` on `run` defines it for a workload.
#[test]
fn a_missing_macro_is_one_error_that_says_how_to_define_it() {
    let dir = Scratch::new("reports-macro");
    let kernel = path(dir.write(
        "scale.cl",
        "__kernel void scale(__global float *x) {\n  int i = get_global_id(0);\n\
         \x20 if (i < N) x[i] = x[i] * N;\n  x[i + N] = 0;\n}\n",
    ));
    let check = clmap(&["check", &kernel]);
    check.assert_fails(BAD_INPUT);
    let err = check.stderr();
    assert_eq!(err.matches("error: use of undeclared identifier 'N'").count(), 1, "{err}");
    assert!(err.contains("pass `-D N=VALUE`"), "{err}");
    assert!(err.contains("`options = \"-D N=VALUE\"` in the workload"), "{err}");
    assert!(err.contains("`N` is also used on lines 3, 4"), "{err}");
    assert!(err.contains("scale.cl: 1 error"), "{err}");
    clmap(&["check", &kernel, "-D", "N=2"]).assert_success();

    // A variable that is not declared is not taken for a macro.
    let typo = path(
        dir.write("typo.cl", "__kernel void k(__global int *x) { x[0] = idx; x[1] = idx; }\n"),
    );
    let err = clmap(&["check", &typo]).stderr();
    assert_eq!(err.matches("undeclared identifier 'idx'").count(), 1, "{err}");
    assert!(!err.contains("-D idx"), "{err}");

    let workload = path(dir.write(
        "scale.toml",
        "kernel = \"scale\"\nsource = \"scale.cl\"\nglobal = [4]\n\
         [[arg]]\nname = \"x\"\nbuffer = \"float\"\nlen = 8\ninit = \"fill(1)\"\noutput = true\n",
    ));
    let run = clmap(&["run", &workload]);
    run.assert_fails(BAD_INPUT);
    assert_eq!(run.stderr().matches("error: use of undeclared").count(), 1, "{}", run.describe());
    let defined = clmap(&["run", &workload, "-D", "N=4", "--dump"]);
    defined.assert_success();
    assert!(defined.stdout().contains("x[0] = 4"), "{}", defined.describe());
}

/// A missing macro that stands for a type gets the same one error and the same fix where a
/// parameter's type names it (`__global REAL *a`) as where a variable's does.
#[test]
fn a_missing_macro_in_a_parameter_type_says_how_to_define_it() {
    let dir = Scratch::new("reports-macro-param");
    let kernel = path(dir.write(
        "copy.cl",
        "__kernel void copy(__global const REAL *a,
                   __global REAL *b)
{
           REAL x = a[get_global_id(0)];
  b[get_global_id(0)] = x;
}
",
    ));
    let check = clmap(&["check", &kernel]);
    check.assert_fails(BAD_INPUT);
    let err = check.stderr();
    assert_eq!(err.matches("error: unknown type name 'REAL'").count(), 1, "{err}");
    assert!(err.contains("copy.cl:1:35"), "{err}");
    assert!(err.contains("pass `-D REAL=VALUE`"), "{err}");
    assert!(err.contains("`REAL` is also used on lines 2, 4"), "{err}");
    assert!(err.contains("copy.cl: 1 error"), "{err}");
    clmap(&["check", &kernel, "-D", "REAL=float"]).assert_success();
}

/// An out-of-bounds vector access is one access of the vector's size, named by its type, and
/// counted once per work-item, not once per component; Oclgrind's layout gives the same size.
#[test]
fn vector_accesses_out_of_bounds_say_their_size_and_count_accesses() {
    let dir = Scratch::new("reports-vectors");
    dir.write(
        "v.cl",
        "__kernel void v(__global float4 *x, __global float *y, __global half *h) {\n\
         \x20 int i = get_global_id(0);\n\
         \x20 float4 a = x[i + 2];\n\
         \x20 vstore4(a, i + 2, y);\n\
         \x20 float4 b = vload4(i + 2, y);\n\
         \x20 y[0] = b.x + vload_half(i + 6, h);\n}\n",
    );
    let workload = path(dir.write(
        "v.toml",
        "kernel = \"v\"\nsource = \"v.cl\"\nglobal = [4]\n\
         [[arg]]\nname = \"x\"\nbuffer = \"float4\"\nlen = 4\ninit = \"fill(1)\"\n\
         [[arg]]\nname = \"y\"\nbuffer = \"float\"\nlen = 16\noutput = true\n\
         [[arg]]\nname = \"h\"\nbuffer = \"half\"\nlen = 8\n",
    ));
    // Work-items 2 and 3 go past every buffer.
    let run = clmap(&["run", &workload]);
    run.assert_fails(KERNEL_FAULT);
    let err = run.stderr();
    assert!(
        err.contains("v.cl:3:14: error: out-of-bounds access: load of 16 bytes (float4) at byte offset 64 of a 64-byte buffer (`x`)"),
        "{}",
        run.describe()
    );
    // vstoreN, vloadN and the half loads name what they access as vector accesses do.
    assert!(err.contains("store of 16 bytes (float4) at byte offset 64"), "{}", run.describe());
    assert!(
        err.contains("load of 16 bytes (float4) at byte offset 64 of a 64-byte buffer (`y`)"),
        "{}",
        run.describe()
    );
    assert!(
        err.contains("load of 2 bytes (half) at byte offset 16 of a 16-byte buffer (`h`)"),
        "{}",
        run.describe()
    );
    assert_eq!(err.matches("; 2 occurrences in this launch").count(), 4, "{}", run.describe());
    let json = clmap(&["run", &workload, "--json"]).json();
    let reports = json["reports"].as_array().expect("reports");
    assert_eq!(reports.len(), 4, "{json:#}");
    assert!(reports.iter().all(|r| r["occurrences"] == 2), "{json:#}");
    let oclgrind = clmap(&["run", &workload, "--oclgrind-output"]);
    assert!(
        oclgrind.stderr().contains("Invalid read of size 16 at global memory address"),
        "{}",
        oclgrind.describe()
    );
}

/// A race names the element (`a[1]`, a `__local` array's element too) and, in a pipeline,
/// the launch; a race in which every work-item stores the same value is a warning that says
/// so, apart from races that lose data, and does not fail the run.
#[test]
fn races_name_the_element_and_the_launch_and_same_value_races_stand_apart() {
    let dir = Scratch::new("reports-races");
    dir.write(
        "race.cl",
        "__kernel void first(__global int *a, __global int *flag) {\n\
         \x20 a[get_global_id(0)] = 1;\n\
         \x20 flag[0] = 1;\n}\n\
         __kernel void second(__global int *a, __global int *flag) {\n\
         \x20 __local int pad[4];\n\
         \x20 __local int tile[8];\n\
         \x20 int i = get_global_id(0);\n\
         \x20 tile[i] = a[i];\n\
         \x20 a[(i + 1) % 8] = tile[(i + 1) % 8];\n}\n",
    );
    let pipeline = |name: &str, second: bool| {
        let mut text = String::from(
            "source = \"race.cl\"\n[buffers.a]\ntype = \"int\"\nlen = 8\noutput = true\n\
             [buffers.flag]\ntype = \"int\"\nlen = 4\noutput = true\n\
             [[launch]]\nkernel = \"first\"\nglobal = [8]\nlocal = [8]\nargs = [\"a\", \"flag\"]\n",
        );
        if second {
            text.push_str(
                "[[launch]]\nkernel = \"second\"\nglobal = [8]\nlocal = [8]\nargs = [\"a\", \"flag\"]\n",
            );
        }
        path(dir.write(name, text))
    };
    let both = pipeline("both.toml", true);
    let run = clmap(&["run", &both, "--races"]);
    run.assert_fails(KERNEL_FAULT);
    let err = run.stderr();
    assert!(
        err.contains("warning: same-value data race: write after write of the same value on global memory at `flag[0]`"),
        "{}",
        run.describe()
    );
    assert!(err.contains("of kernel `first` in launch 1"), "{}", run.describe());
    assert!(
        err.contains("error: data race: read after write on local memory at `tile[1]`"),
        "{}",
        run.describe()
    );
    assert!(err.contains("on global memory at `a[1]`"), "{}", run.describe());
    assert!(err.contains("of kernel `second` in launch 2"), "{}", run.describe());
    let json = clmap(&["run", &both, "--races", "--json"]).json();
    let kinds: Vec<&str> = json["reports"]
        .as_array()
        .expect("reports")
        .iter()
        .filter_map(|r| r["kind"].as_str())
        .collect();
    assert!(kinds.contains(&"same-value data race") && kinds.contains(&"data race"), "{kinds:?}");

    // Alone, the same-value race is a warning: the run succeeds and says so.
    let first = pipeline("first.toml", false);
    let run = clmap(&["run", &first, "--races"]);
    run.assert_success();
    assert!(run.stdout().contains("no problems found; 1 warning"), "{}", run.describe());
    assert!(!run.stderr().contains("in launch"), "one launch needs no number: {}", run.describe());
    clmap(&["run", &first, "--races", "--uniform-writes"]).assert_fails(KERNEL_FAULT);
}

/// `--progress` shows how far a long simulation has got on standard error, even into a pipe;
/// without it nothing is shown where standard error is not a terminal, and standard output
/// (JSON included) never carries it.
#[test]
fn long_runs_show_progress_on_standard_error_when_asked() {
    let dir = Scratch::new("reports-progress");
    dir.write(
        "slow.cl",
        "__kernel void slow(__global int *x, int n) {\n  int acc = 0;\n\
         \x20 for (int j = 0; j < n; j++) acc += j ^ get_global_id(0);\n\
         \x20 x[get_global_id(0)] = acc;\n}\n",
    );
    // One work-item per group, so the groups' count shows progress; a few seconds of work.
    let slow = path(dir.write(
        "slow.toml",
        "kernel = \"slow\"\nsource = \"slow.cl\"\nglobal = [32]\nlocal = [1]\n\
         [[arg]]\nname = \"x\"\nbuffer = \"int\"\nlen = 32\noutput = true\n\
         [[arg]]\nname = \"n\"\nscalar = \"int\"\nvalue = 200000\n",
    ));
    let shown = clmap(&["run", &slow, "--progress", "--threads", "1", "--json"]);
    shown.assert_success();
    assert!(shown.stderr().contains("simulating: launch 1 of 1, "), "{}", shown.describe());
    assert!(!shown.stdout().contains("simulating"), "{}", shown.describe());
    assert_eq!(shown.json()["launches"], 1);
    let quiet = clmap(&["run", &slow, "--threads", "1"]);
    quiet.assert_success();
    assert!(!quiet.stderr().contains("simulating"), "{}", quiet.describe());
    let analyze = clmap(&["analyze", &slow, "--progress", "--threads", "1", "--json"]);
    analyze.assert_success();
    assert!(analyze.stderr().contains("simulating: launch 1 of 1, "), "{}", analyze.describe());
}

#[test]
fn a_zero_element_toml_buffer_is_a_buffer_every_access_overruns() {
    let dir = Scratch::new("reports-empty-buffer");
    dir.write(
        "z.cl",
        "__kernel void z(__global float *x, __global float *out) {\n\
         \x20 out[0] = 1.0f;\n\
         \x20 if (get_global_id(0) == 0) x[0] = 2.0f;\n}\n",
    );
    let workload = path(dir.write(
        "z.toml",
        "kernel = \"z\"\nsource = \"z.cl\"\nglobal = [1]\n\
         [[arg]]\nname = \"x\"\nbuffer = \"float\"\nlen = 0\n\
         [[arg]]\nname = \"out\"\nbuffer = \"float\"\nlen = 1\noutput = true\n",
    ));
    // Loaded, run, and the store to the buffer of no bytes is the kernel's fault, as the
    // same launch written as a .sim file with size=0 is.
    let run = clmap(&["run", &workload]);
    run.assert_fails(KERNEL_FAULT);
    assert!(
        run.stderr().contains("store of 4 bytes at byte offset 0 of a 0-byte buffer (`x`)"),
        "{}",
        run.describe()
    );
}
