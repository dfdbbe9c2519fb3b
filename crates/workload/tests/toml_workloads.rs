//! Loading TOML workloads: the examples, every form of the format, and located errors.

use clmap_testkit::Scratch;
use std::path::{Path, PathBuf};

use clmap_workload::{Access, Init, LaunchArg, Number, Workload, WorkloadError};

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A scratch directory holding a kernel file, so TOML snippets can name a real source.
/// A fresh directory per call, so parallel tests never see a half-written file.
fn scratch() -> Scratch {
    let dir = Scratch::new("toml-tests");
    dir.write("k.cl", "__kernel void k(__global float *x) {}\n");
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

const HEADER: &str = "kernel = \"k\"\nsource = \"k.cl\"\nglobal = [64]\n";

#[test]
fn every_example_loads() {
    let dir = repo_root().join("examples");
    let mut count = 0;
    for entry in std::fs::read_dir(&dir).expect("examples dir") {
        let path = entry.expect("entry").path();
        if path.extension().is_some_and(|e| e == "toml") {
            let w = Workload::load(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            w.initial_data(0).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            count += 1;
        }
    }
    assert!(count >= 3, "expected at least three examples, found {count}");
}

#[test]
fn vector_add_example_is_normalised() {
    let w = Workload::load(&repo_root().join("examples/vector_add.toml")).expect("load");
    assert_eq!(w.launches.len(), 1);
    let launch = &w.launches[0];
    assert_eq!(launch.kernel, "vector_add");
    assert_eq!(launch.range.global, [1024, 1, 1]);
    assert_eq!(launch.range.local, Some([64, 1, 1]));
    assert_eq!(launch.range.dims, 1);
    assert_eq!(w.outputs, vec!["c".to_string()]);
    assert_eq!(w.buffer("a").map(|b| b.access), Some(Access::ReadOnly));
    assert!(w.source.contains("__kernel void vector_add"));
    assert_eq!(w.bytes_moved, Some(12288));
    assert!(matches!(
        &launch.args[3],
        LaunchArg::Scalar { name, value, .. } if name == "n" && value == &vec![Number::Int(1000)]
    ));
    let data = w.initial_data(0).expect("data");
    let b = &data.get("b").expect("b").bytes;
    assert_eq!(b[4..8], 0.5f32.to_le_bytes());
}

#[test]
fn pipeline_example_has_repeat_and_swap() {
    let w = Workload::load(&repo_root().join("examples/jacobi_pipeline.toml")).expect("load");
    let launch = &w.launches[0];
    assert_eq!(launch.repeat, 10);
    assert_eq!(launch.swap, vec![("a".to_string(), "b".to_string())]);
    assert!(matches!(&launch.args[3], LaunchArg::Local { len: 66, .. }));
    assert_eq!(w.outputs, vec!["a".to_string()]);
}

#[test]
fn outputs_written_after_a_launch_table_are_accepted() {
    // The layout of the format specification: `outputs` at the end lands in the last launch.
    let text = r#"
source = "k.cl"
[buffers]
a = { type = "float", len = 64, init = "random(7)" }
b = { type = "float", len = 64 }
[[launch]]
kernel = "k"
global = [64]
args = ["a"]
[[launch]]
kernel = "k"
global = [64]
args = ["b"]
swap = [["a", "b"]]
outputs = ["b"]
"#;
    let w = load(text).expect("pipeline");
    assert_eq!(w.launches.len(), 2);
    assert_eq!(w.outputs, vec!["b".to_string()]);
    assert!(w.buffer("b").is_some_and(|b| b.output && b.init == Init::Zero));
}

#[test]
fn scalars_locals_nulls_and_vectors() {
    let text = format!(
        "{HEADER}
[[arg]]
name = \"v\"
scalar = \"float4\"
value = [1.0, 2, 3.5, -1]
[[arg]]
name = \"s\"
scalar = \"int2\"
value = 7
[[arg]]
name = \"big\"
scalar = \"ulong\"
value = \"0xffffffffffffffff\"
[[arg]]
name = \"p\"
null = true
[[arg]]
name = \"t\"
local = \"int4\"
len = 8
"
    );
    let w = load(&text).expect("load");
    let args = &w.launches[0].args;
    assert_eq!(args.len(), 5);
    assert_eq!(
        args[0].scalar_bytes().and_then(Result::ok).map(|b| b.len()),
        Some(16),
        "float4 is 16 bytes"
    );
    assert!(matches!(&args[1], LaunchArg::Scalar { value, .. } if value.len() == 2));
    assert_eq!(args[2].scalar_bytes().and_then(Result::ok), Some(vec![0xff; 8]));
    assert!(matches!(&args[3], LaunchArg::Null { .. }));
    assert!(matches!(&args[4], LaunchArg::Local { len: 8, .. }));
}

/// A buffer of no elements is what `size=0` is in a `.sim` file: not NULL, a pointer to nothing
/// whose every access is out of bounds. Both formats must describe the same launches.
#[test]
fn a_buffer_may_have_zero_elements() {
    let text = format!(
        "{HEADER}
[[arg]]
name = \"x\"
buffer = \"float\"
len = 0
init = \"random(1, 0.0, 1.0)\"
output = true
"
    );
    let w = load(&text).expect("a zero-element buffer loads");
    let x = w.buffer("x").expect("x");
    assert_eq!(x.len, 0);
    assert!(w.initial_data(0).expect("data").get("x").expect("x").bytes.is_empty());
    // The same in a pipeline's `[buffers]` table, with its length from a size.
    let pipeline = "source = \"k.cl\"
outputs = [\"x\"]
[sizes]
n = 0
[buffers]
x = { type = \"float\", len = \"n\" }
[[launch]]
kernel = \"k\"
global = [1]
args = [\"x\"]
";
    let w = load(pipeline).expect("a zero-element pipeline buffer loads");
    assert_eq!(w.buffer("x").map(|b| b.len), Some(0));
}

#[test]
fn init_may_list_every_component() {
    let text = format!(
        "{HEADER}[[arg]]\nname = \"x\"\nbuffer = \"short2\"\nlen = 2\ninit = [1, -2, 3, \"0x7fff\"]\n"
    );
    let w = load(&text).expect("load");
    let data = w.initial_data(0).expect("data");
    assert_eq!(
        data.get("x").map(|b| b.bytes.clone()),
        Some(vec![1, 0, 0xfe, 0xff, 3, 0, 0xff, 0x7f])
    );
    let short =
        format!("{HEADER}[[arg]]\nname = \"x\"\nbuffer = \"int\"\nlen = 3\ninit = [1, 2]\n");
    assert!(error(&short).contains("2 values given, 3 expected"));
    let wrong = format!("{HEADER}[[arg]]\nname = \"x\"\nbuffer = \"int\"\nlen = 3\ninit = 5\n");
    assert!(error(&wrong).contains("`init` must be a string"));
}

#[test]
fn toml_syntax_errors_have_line_and_column() {
    let message = error("kernel = \"k\"\nsource = \"k.cl\"\nglobal = [64\n");
    assert!(message.contains(":3:") || message.contains(":4:"), "{message}");
}

#[test]
fn unknown_keys_list_the_valid_ones() {
    let message = error(&format!("{HEADER}globl = [1]\n"));
    assert!(message.contains("globl") && message.contains("global"), "{message}");
    assert!(message.contains(":4:1"), "{message}");
    let message = error(&format!("{HEADER}[[arg]]\nname = \"x\"\nbufer = \"float\"\n"));
    assert!(message.contains("bufer") && message.contains("buffer"), "{message}");
}

#[test]
fn semantic_errors_point_at_the_key() {
    let bad_init = format!(
        "{HEADER}[[arg]]\nname = \"x\"\nbuffer = \"float\"\nlen = 4\ninit = \"randm(1)\"\n"
    );
    let message = error(&bad_init);
    assert!(message.contains(":8:8") && message.contains("random(SEED"), "{message}");

    let message = error(&format!(
        "{HEADER}[[arg]]\nname = \"x\"\nbuffer = \"uchar\"\nlen = 4\ninit = \"fill(300)\"\n"
    ));
    assert!(message.contains("300") && message.contains("uchar"), "{message}");

    let message =
        error(&format!("{HEADER}[[arg]]\nname = \"x\"\nscalar = \"uchar\"\nvalue = 300\n"));
    assert!(message.contains("300"), "{message}");

    let message =
        error(&format!("{HEADER}[[arg]]\nname = \"x\"\nscalar = \"int\"\nvalue = true\n"));
    assert!(message.contains("expected a number, found a boolean"), "{message}");

    let message = error(&format!("{HEADER}[[arg]]\nname = \"x\"\nbuffer = \"flaot\"\nlen = 4\n"));
    assert!(message.contains("flaot") && message.contains("float4"), "{message}");
}

#[test]
fn range_errors() {
    let base = "kernel = \"k\"\nsource = \"k.cl\"\n";
    assert!(error(&format!("{base}global = [64]\nlocal = [0]\n")).contains("zero"));
    assert!(error(&format!("{base}global = [64]\nlocal = [48]\n")).contains("divide"));
    assert!(error(&format!("{base}global = [4, 4, 4, 4]\n")).contains("1 to 3"));
    assert!(error(&format!("{base}global = []\n")).contains("1 to 3"));
    assert!(error(&format!("{base}global = [64, 2]\nlocal = [8]\n")).contains("dimensions"));
    assert!(error(&format!("{base}global = [-1]\n")).contains(":3:"));
}

#[test]
fn size_and_limit_errors() {
    let huge = format!("{HEADER}[[arg]]\nname = \"x\"\nbuffer = \"double\"\nlen = 1099511627776\n");
    assert!(error(&huge).contains("2^40"));
    let big = format!("{HEADER}[[arg]]\nname = \"x\"\nbuffer = \"double\"\nlen = 1073741824\n");
    assert!(matches!(load(&big), Err(WorkloadError::TooLarge { .. })));
}

#[test]
fn missing_source_is_reported_with_its_path() {
    let err = load("kernel = \"k\"\nsource = \"nope.cl\"\nglobal = [1]\n").expect_err("missing");
    assert!(matches!(err, WorkloadError::MissingSource { .. }));
    assert!(err.to_string().contains("nope.cl") && err.to_string().contains(":2:"));
}

#[test]
fn pipeline_errors() {
    let base = "source = \"k.cl\"\n[buffers]\na = { type = \"float\", len = 4 }\n";
    assert!(error(&format!("{base}[[launch]]\nkernel = \"k\"\nglobal = [4]\nargs = [\"zz\"]\n"))
        .contains("zz"));
    assert!(error(&format!("{base}[[launch]]\nkernel = \"k\"\nglobal = [4]\nrepeat = 0\n"))
        .contains("repeat"));
    assert!(error(&format!(
        "{base}[[launch]]\nkernel = \"k\"\nglobal = [4]\nswap = [\"a\", \"q\"]\n"
    ))
    .contains("q"));
    assert!(error(&format!(
        "{base}[[launch]]\nkernel = \"k\"\nglobal = [4]\nargs = [{{ scalr = \"int\" }}]\n"
    ))
    .contains("scalr"));
    assert!(error(&format!("kernel = \"k\"\n{base}[[launch]]\nkernel = \"k\"\nglobal = [4]\n"))
        .contains("kernel"));
}

#[test]
fn unknown_extension_is_refused() {
    let dir = scratch();
    let path = dir.join("w.yaml");
    std::fs::write(&path, "x").expect("write");
    assert!(matches!(Workload::load(&path), Err(WorkloadError::UnknownFormat { .. })));
}

/// Loads `path`, writes it as TOML, loads that text again and expects the same model.
fn assert_round_trip(path: &Path) {
    let original = clmap_exec::load_checked(path, &clmap_workload::LoadOptions::default())
        .map(|(w, _)| w)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let dir = path.parent().expect("parent");
    let text = original.to_toml(dir);
    let reloaded = Workload::from_toml_str(&text, dir)
        .unwrap_or_else(|e| panic!("{}: {e}\n{text}", path.display()));
    let mut expected = original.clone();
    expected.path = None;
    for b in &mut expected.buffers {
        b.hex_dump = false;
    }
    assert_eq!(reloaded, expected, "{}\n{text}", path.display());
}

#[test]
fn examples_and_sim_files_round_trip_through_toml() {
    for dir in ["examples", "tests/sim_files"] {
        for entry in std::fs::read_dir(repo_root().join(dir)).expect("dir") {
            let path = entry.expect("entry").path();
            if path.extension().is_some_and(|e| e == "toml" || e == "sim") {
                assert_round_trip(&path);
            }
        }
    }
}

#[test]
fn built_pipelines_round_trip() {
    let text = r#"
source = "k.cl"
options = "-DX=\"quoted\""
outputs = ["b", "a"]
[buffers]
a = { type = "float3", len = 4, init = "random(3, -1.5, 2)", tolerance = { rel = 0.5, abs = 0.25 } }
b = { type = "ulong", len = 2, init = [1, "18446744073709551615"], access = "write_only" }
[[launch]]
kernel = "k"
global = [8, 2]
local = [4, 1]
offset = [1, 0]
args = ["a", { name = "v", scalar = "float2", value = [0.1, -2e-9] }, { null = true }, "b"]
repeat = 3
swap = [["a", "a"]]
"#;
    let dir = scratch();
    let w = Workload::from_toml_str(text, dir.path()).expect("load");
    let again = Workload::from_toml_str(&w.to_toml(dir.path()), dir.path()).expect("reload");
    assert_eq!(again, w, "{}", w.to_toml(dir.path()));
}

#[test]
fn buffer_tables_need_no_buffers_header() {
    // `[buffers.x]` alone defines the `buffers` table implicitly, as TOML allows.
    let w = load(
        "source = \"k.cl\"\noutputs = [\"x\"]\n\n[buffers.x]\ntype = \"float\"\nlen = 8\n\n\
         [[launch]]\nkernel = \"k\"\nglobal = [8]\nargs = [\"x\"]\n",
    )
    .expect("a pipeline whose buffers are dotted tables");
    assert_eq!(w.buffers.len(), 1);
    assert_eq!(w.buffers[0].name, "x");
    // A single launch still refuses `[buffers]`, pointing at the buffer.
    let err = error(&format!("{HEADER}\n[buffers.y]\ntype = \"float\"\nlen = 8\n"));
    assert!(err.contains("`[buffers]` belongs to pipelines"), "{err}");
}

#[test]
fn raw_byte_arguments_load_write_back_and_refuse_bad_hex() {
    let dir = scratch();
    let single = Workload::from_toml_str(
        r#"
source = "k.cl"
kernel = "k"
global = [4]
[[arg]]
name = "out"
buffer = "int"
len = 4
init = "zero"
output = true
[[arg]]
name = "p"
bytes = "07000000cdcc4c3e"
"#,
        dir.path(),
    )
    .unwrap();
    let p = &single.launches[0].args[1];
    assert_eq!(
        p,
        &LaunchArg::Bytes { name: "p".into(), bytes: vec![7, 0, 0, 0, 0xcd, 0xcc, 0x4c, 0x3e] }
    );
    assert_eq!(p.scalar_bytes().unwrap().unwrap().len(), 8);
    let again = Workload::from_toml_str(&single.to_toml(dir.path()), dir.path()).unwrap();
    assert_eq!(again.launches[0].args, single.launches[0].args);

    let pipeline = load(
        r#"
source = "k.cl"
[buffers]
out = { type = "int", len = 4, output = true }
[[launch]]
kernel = "k"
global = [4]
args = ["out", { name = "p", bytes = "0a0B" }]
"#,
    )
    .unwrap();
    assert_eq!(
        pipeline.launches[0].args[1],
        LaunchArg::Bytes { name: "p".into(), bytes: vec![10, 11] }
    );

    assert!(error(
        "source = \"k.cl\"\nkernel = \"k\"\nglobal = [4]\n[[arg]]\nname = \"p\"\nbytes = \"0a0\"\n"
    )
    .contains("odd number of hexadecimal digits"));
    assert!(error(
        "source = \"k.cl\"\nkernel = \"k\"\nglobal = [4]\n[[arg]]\nname = \"p\"\nbytes = \"zz\"\n"
    )
    .contains("not hexadecimal"));
}
