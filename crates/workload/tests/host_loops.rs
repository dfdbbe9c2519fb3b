//! What real host programs need from a workload: repeated groups of launches, scalars that
//! depend on the repetition, host writes between launches, and named sizes with integer
//! expressions. Each feature is checked through the schedule the backends walk, through its
//! errors, and through the TOML writer (the model must read back unchanged).

use clmap_testkit::Scratch;

use clmap_workload::{HostWrite, LaunchArg, Step, StepArg, Workload, WorkloadError};

/// A fresh directory holding an (uncompiled) `k.cl`, as the TOML reader needs the file.
fn scratch() -> Scratch {
    let dir = Scratch::new("host-loops");
    dir.write("k.cl", "kernel void k() {}");
    dir
}

fn load(text: &str) -> Result<Workload, WorkloadError> {
    Workload::from_toml_str(text, scratch().path())
}

fn error(text: &str) -> String {
    match load(text) {
        Ok(_) => panic!("expected an error for:\n{text}"),
        Err(e) => e.to_string(),
    }
}

fn round_trips(w: &Workload) {
    let dir = scratch();
    std::fs::write(dir.join("k.cl"), &w.source).expect("write");
    let mut relocated = w.clone();
    relocated.source_path = dir.join("k.cl");
    let text = relocated.to_toml(dir.path());
    let again =
        Workload::from_toml_str(&text, dir.path()).unwrap_or_else(|e| panic!("{e}\n{text}"));
    relocated.path = None;
    assert_eq!(again, relocated, "{text}");
}

const BUFFERS: &str = r#"
source = "k.cl"
outputs = ["a"]
[buffers]
a = { type = "int", len = 8 }
b = { type = "int", len = 8 }
"#;

/// (launch, value of the first scalar argument as i32) for every step.
fn kernels_and_scalars(w: &Workload) -> Vec<(String, Option<i32>)> {
    w.schedule()
        .map(|s| s.expect("valid step"))
        .map(|s: Step| {
            let scalar = s.args.iter().find_map(|a| match a {
                StepArg::Scalar { bytes } => {
                    Some(i32::from_le_bytes(bytes[..4].try_into().expect("4 bytes")))
                }
                _ => None,
            });
            (w.launches[s.launch].kernel.clone(), scalar)
        })
        .collect()
}

#[test]
fn groups_repeat_their_launches_in_the_written_order() {
    let text = format!(
        r#"{BUFFERS}
[[launch]]
kernel = "init"
global = [8]
args = ["a"]

[[group]]
repeat = 3
swap = ["a", "b"]

[[group.launch]]
kernel = "step"
global = [8]
args = ["a", "b", {{ scalar = "int", value = "i" }}]

[[group.launch]]
kernel = "copy"
global = [8]
args = ["b", "a"]

[[launch]]
kernel = "finish"
global = [8]
args = ["a"]
"#
    );
    let w = load(&text).expect("load");
    assert_eq!(w.groups.len(), 1);
    assert_eq!(w.groups[0].launches, 1..3);
    assert_eq!(w.launch_count(), 8);
    let names: Vec<String> = kernels_and_scalars(&w).into_iter().map(|(k, _)| k).collect();
    assert_eq!(
        names,
        ["init", "step", "copy", "step", "copy", "step", "copy", "finish"].map(String::from)
    );
    // The group's swap happens after each repetition of the whole group: three swaps.
    let slots: Vec<Vec<Option<usize>>> =
        w.steps().expect("steps").iter().map(Step::arg_slots).collect();
    assert_eq!(slots[1][..2], [Some(0), Some(1)]);
    assert_eq!(slots[3][..2], [Some(1), Some(0)]);
    assert_eq!(slots[7], vec![Some(1)]);
    assert_eq!(w.final_slots(), vec![1, 0]);
    round_trips(&w);
}

#[test]
fn nested_groups_and_named_indices() {
    let text = format!(
        r#"{BUFFERS}
[[group]]
repeat = 2
index = "outer"

[[group.group]]
repeat = 3

[[group.group.launch]]
kernel = "inner"
global = [8]
args = [{{ scalar = "int", value = "outer * 10 + i" }}]

[[group.launch]]
kernel = "after"
global = [8]
args = [{{ scalar = "int", value = "outer" }}]
"#
    );
    let w = load(&text).expect("load");
    let steps = kernels_and_scalars(&w);
    let expect = |k: &str, v: i32| (k.to_string(), Some(v));
    assert_eq!(
        steps,
        vec![
            expect("inner", 0),
            expect("inner", 1),
            expect("inner", 2),
            expect("after", 0),
            expect("inner", 10),
            expect("inner", 11),
            expect("inner", 12),
            expect("after", 1),
        ]
    );
    round_trips(&w);
}

#[test]
fn i_is_the_innermost_loop_that_repeats() {
    let text = format!(
        r#"{BUFFERS}
[[group]]
repeat = 2
[[group.launch]]
kernel = "own"
global = [8]
repeat = 2
index = "r"
args = [{{ scalar = "int", value = "i * 100 + r" }}]
[[group.launch]]
kernel = "outer"
global = [8]
args = [{{ scalar = "int", value = "i" }}]
"#
    );
    let w = load(&text).expect("load");
    let values: Vec<Option<i32>> = kernels_and_scalars(&w).into_iter().map(|(_, v)| v).collect();
    // In `own`, `i` is its own repetition; in `outer` (repeat 1), the group's.
    assert_eq!(values, vec![Some(0), Some(101), Some(0), Some(0), Some(101), Some(1)]);
}

#[test]
fn loop_scalars_are_checked_for_every_repetition_at_load() {
    let text = |repeat: u32| {
        format!(
            r#"{BUFFERS}
[[launch]]
kernel = "k"
global = [8]
repeat = {repeat}
args = [{{ scalar = "uchar", value = "250 + i" }}]
"#
        )
    };
    assert!(load(&text(6)).is_ok());
    let message = error(&text(7));
    assert!(message.contains("256") && message.contains("uchar"), "{message}");
    assert!(message.contains("at i = 6"), "{message}");
    let message = error(&format!(
        "{BUFFERS}[[launch]]\nkernel = \"k\"\nglobal = [8]\nargs = [{{ scalar = \"float\", value = \"i\" }}]\n"
    ));
    assert!(message.contains("not a number") || message.contains("`i`"), "{message}");
    let message = error(&format!(
        "{BUFFERS}[[launch]]\nkernel = \"k\"\nglobal = [8]\nargs = [{{ scalar = \"int\", value = \"j + 1\" }}]\n"
    ));
    assert!(message.contains("unknown name `j`") && message.contains("i"), "{message}");
}

#[test]
fn host_writes_happen_before_every_repetition_into_the_current_storage() {
    let text = format!(
        r#"{BUFFERS}
[[launch]]
kernel = "k"
global = [8]
args = ["a"]
repeat = 2
swap = ["a", "b"]

[[launch.write]]
buffer = "a"
offset = 2
len = 3
init = [7, 8, 9]
"#
    );
    let w = load(&text).expect("load");
    let steps = w.steps().expect("steps");
    let bytes: Vec<u8> = [7i32, 8, 9].iter().flat_map(|v| v.to_le_bytes()).collect();
    assert_eq!(steps[0].host_writes, vec![HostWrite { slot: 0, offset: 8, bytes: bytes.clone() }]);
    // After the swap, `a` names the other storage; the write follows the name.
    assert_eq!(steps[1].host_writes, vec![HostWrite { slot: 1, offset: 8, bytes }]);
    round_trips(&w);
    let write = |body: &str| {
        format!("{BUFFERS}[[launch]]\nkernel = \"k\"\nglobal = [8]\n[[launch.write]]\n{body}\n")
    };
    let message = error(&write("buffer = \"a\"\noffset = 6\nlen = 3\ninit = \"zero\""));
    assert!(message.contains("elements 6 to 9") && message.contains("has 8"), "{message}");
    assert!(error(&write("buffer = \"a\"\ninit = \"random(1)\"")).contains("random"));
    assert!(error(&write("buffer = \"zz\"\ninit = \"zero\"")).contains("`zz`"));
    assert!(error(&write("buffer = \"a\"\ninit = [1, 2]")).contains("values"));
    // Without `len`, the write covers the rest of the buffer.
    let w = load(&write("buffer = \"a\"\noffset = 5\ninit = \"fill(3)\"")).expect("load");
    assert_eq!(w.launches[0].writes[0].len, 3);
}

#[test]
fn sizes_and_expressions_in_lengths_ranges_and_values() {
    let text = r#"
source = "k.cl"
[sizes]
nj = 16
ni = "nj * 2"
n = "ni * nj"
wg = 8
[buffers]
a = { type = "float", len = "n", init = "zero" }
[[launch]]
kernel = "k"
global = ["ni", "nj"]
local = ["wg", "nj / 2"]
offset = [0, "1 - 1"]
args = ["a", { scalar = "uint", value = "n - 1" }, { local = "float", len = "wg * wg" }]
"#;
    let w = load(text).expect("load");
    assert_eq!(w.buffers[0].len, 512);
    assert_eq!(w.launches[0].range.global, [32, 16, 1]);
    assert_eq!(w.launches[0].range.local, Some([8, 8, 1]));
    assert!(matches!(&w.launches[0].args[1], LaunchArg::Scalar { value, .. }
        if value == &vec![clmap_workload::Number::Int(511)]));
    assert!(matches!(&w.launches[0].args[2], LaunchArg::Local { len: 64, .. }));
    // The same keys in the single-launch form.
    let single = "source = \"k.cl\"\nkernel = \"k\"\nglobal = [\"n\"]\n[sizes]\nn = 64\n\
                  [[arg]]\nname = \"x\"\nbuffer = \"int\"\nlen = \"n * 2\"\n";
    assert_eq!(load(single).expect("single").buffers[0].len, 128);
}

#[test]
fn size_errors_are_located_and_list_the_known_names() {
    let base = "source = \"k.cl\"\nkernel = \"k\"\n";
    let message = error(&format!("{base}global = [\"ni * nk\"]\n[sizes]\nni = 4\nnj = 2\n"));
    assert!(message.contains("`nk`") && message.contains("ni, nj"), "{message}");
    // Column of `nk` inside the string: `global = ["ni * nk"]` puts it at column 17.
    assert!(message.contains(":3:17"), "{message}");
    let message = error(&format!("{base}global = [1]\n[sizes]\na = \"b + 1\"\nb = \"a\"\n"));
    assert!(message.contains("cycle"), "{message}");
    let message = error(&format!("{base}global = [\"big * big\"]\n[sizes]\nbig = 4294967296\n"));
    assert!(message.contains("overflows") && message.contains(":3:"), "{message}");
    assert!(error(&format!("{base}global = [\"0 - 4\"]\n")).contains("negative"));
    assert!(error(&format!("{base}global = [\"4 / (2 - 2)\"]\n")).contains("division by zero"));
    assert!(error(&format!("{base}global = [1]\n[sizes]\ni = 3\n")).contains("loop index"));
}

#[test]
fn the_launch_cap_counts_expanded_groups_without_expanding_them() {
    let text = format!(
        r#"{BUFFERS}
[[group]]
repeat = 1000
[[group.group]]
repeat = 1000
[[group.group.launch]]
kernel = "k"
global = [8]
repeat = 2
"#
    );
    let message = error(&text);
    assert!(message.contains("2000000 launches") && message.contains("1000000"), "{message}");
}

#[test]
fn group_errors() {
    let group = |body: &str| format!("{BUFFERS}[[group]]\n{body}\n");
    assert!(error(&group("repeat = 2")).contains("at least one"));
    assert!(error(&group("repeat = 0\n[[group.launch]]\nkernel = \"k\"\nglobal = [8]"))
        .contains("repeat"));
    assert!(error(&group(
        "repeat = 2\nswap = [\"a\", \"q\"]\n[[group.launch]]\nkernel = \"k\"\nglobal = [8]"
    ))
    .contains("`q`"));
    assert!(error(&group(
        "repeat = 2\nindex = \"i\"\n[[group.launch]]\nkernel = \"k\"\nglobal = [8]"
    ))
    .contains("index"));
    assert!(error(&group("repeat = 2\nrepeats = 3")).contains("repeats"));
    let deep = format!(
        "{BUFFERS}{}",
        (1..=20).map(|d| format!("[[{}group]]\n", "group.".repeat(d - 1))).collect::<String>()
    );
    assert!(error(&deep).contains("deep") || error(&deep).contains("at least one"));
}

#[test]
fn sim_export_refuses_what_sim_cannot_say() {
    let text = format!(
        "{BUFFERS}[[group]]\nrepeat = 2\n[[group.launch]]\nkernel = \"k\"\nglobal = [8]\nargs = [\"a\"]\n"
    );
    let err = load(&text).expect("load").to_sim(0).expect_err("groups");
    assert!(err.to_string().contains("groups"), "{err}");
}
