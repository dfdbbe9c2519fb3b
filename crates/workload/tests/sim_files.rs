//! Oclgrind `.sim` files: every file under `tests/sim_files` loads, arguments are classified
//! and initialised as Oclgrind does, errors are located, and dumps of the final buffers
//! reproduce, byte for byte, what `oclgrind-kernel` printed for the same files (captured
//! under `tests/data/`). The final buffers are computed here from each kernel's definition.

use clmap_testkit::Scratch;
use std::path::{Path, PathBuf};

use clmap_exec::FrontEndSignatures;
use clmap_workload::{
    Access, BufferSet, FixedSignatures, Init, KernelParam, LaunchArg, LoadOptions, Number,
    ParamSpace, Workload, WorkloadError,
};

fn sim_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/sim_files")
}

/// A `.sim` file loaded the way tools load it: parameters from the front end.
fn load_path(path: &Path) -> Workload {
    clmap_exec::load_checked(path, &LoadOptions::default())
        .map(|(w, _)| w)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn load(name: &str) -> Workload {
    load_path(&sim_dir().join(name))
}

fn from_sim(text: &str, dir: &Path) -> Result<Workload, WorkloadError> {
    Workload::from_sim_str(text, dir, &LoadOptions::default(), &mut FrontEndSignatures::new())
}

fn captured(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn set(data: &mut BufferSet, name: &str, bytes: Vec<u8>) {
    data.get_mut(name).unwrap_or_else(|| panic!("no buffer {name}")).bytes = bytes;
}

fn le<T: Copy, const N: usize>(values: &[T], to: impl Fn(T) -> [u8; N]) -> Vec<u8> {
    values.iter().flat_map(|v| to(*v)).collect()
}

#[test]
fn every_sim_file_loads() {
    let mut count = 0;
    for entry in std::fs::read_dir(sim_dir()).expect("sim dir") {
        let path = entry.expect("entry").path();
        if path.extension().is_some_and(|e| e == "sim") {
            let w = load_path(&path);
            w.initial_data(0).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            count += 1;
        }
    }
    assert!(count >= 4, "found {count} .sim files");
}

#[test]
fn vector_add_arguments_are_classified() {
    let w = load("vector_add.sim");
    let launch = &w.launches[0];
    assert_eq!(launch.kernel, "vector_add");
    assert_eq!(
        (launch.range.global, launch.range.local, launch.range.dims),
        ([8, 1, 1], Some([4, 1, 1]), 3)
    );
    let a = w.buffer("a").expect("a");
    assert_eq!(a.len, 8);
    assert!(matches!(&a.init, Init::Values(v) if v[1] == Number::Int(-2) && v.len() == 8));
    assert_eq!(w.buffer("b").map(|b| &b.init), Some(&Init::Fill(Number::Float(0.5))));
    let c = w.buffer("c").expect("c");
    assert!(c.output && c.init == Init::NoInit && c.access == Access::WriteOnly);
    assert!(matches!(&launch.args[3], LaunchArg::Scalar { name, value, .. }
        if name == "n" && value == &vec![Number::Int(6)]));
    assert_eq!(w.outputs, vec!["c".to_string()]);
}

#[test]
fn vector_add_dump_matches_oclgrind() {
    let w = load("vector_add.sim");
    let mut data = w.initial_data(0).expect("data");
    let a = [1.5f32, -2.0, 0.25, 3.0, 4.0, 5.0, 6.0, 7.0];
    let c: Vec<f32> =
        a.iter().enumerate().map(|(i, x)| if i < 6 { x + 0.5 } else { 0.0 }).collect();
    set(&mut data, "c", le(&c, f32::to_le_bytes));
    assert_eq!(w.format_oclgrind_output(&data), captured("vector_add.oclgrind.out"));
}

#[test]
fn null_and_hex_dump_matches_oclgrind() {
    let w = load("null_and_hex.sim");
    assert!(matches!(w.launches[0].args[1], LaunchArg::Null { .. }));
    let data = w.initial_data(0).expect("data");
    let input = data.get("in").expect("in").bytes.clone();
    assert_eq!(input, le(&[0x10u32, 0xff, 0x7fff_ffff, 0], u32::to_le_bytes));
    let mut data = data;
    set(&mut data, "out", input);
    assert_eq!(w.format_oclgrind_output(&data), captured("null_and_hex.oclgrind.out"));
}

/// The final buffers of `mixed_types.cl` for eight work-items.
fn mixed_types_results(data: &mut BufferSet) {
    let out: Vec<f32> = (0..8u32)
        .map(|i| if i == 0 { f32::INFINITY } else { (i + 1) as f32 * 2.0 + 0.1 * i as f32 - 3.0 })
        .collect();
    set(data, "out", le(&out, f32::to_le_bytes));
    set(data, "c", (0..8u32).map(|i| (i * 40) as u8).collect());
    set(
        data,
        "s",
        le(&(0..8i32).map(|i| (i * 9000 - 20000) as i16).collect::<Vec<_>>(), i16::to_le_bytes),
    );
    let u: Vec<u64> = (0..8u64).map(|i| i.wrapping_mul(0x7000_0000_0000_0000) / 3).collect();
    set(data, "u", le(&u, u64::to_le_bytes));
    let d: Vec<f64> = (0..8u32)
        .map(|i| 1.0 / f64::from(i + 1) * 1e10 * if i % 2 == 1 { -1.0 } else { 1.0 })
        .collect();
    set(data, "d", le(&d, f64::to_le_bytes));
}

#[test]
fn mixed_types_dumps_match_oclgrind_in_decimal_and_hex() {
    for (sim, out) in [
        ("mixed_types.sim", "mixed_types.oclgrind.out"),
        ("mixed_types_hex.sim", "mixed_types_hex.oclgrind.out"),
    ] {
        let w = load(sim);
        assert!(matches!(w.launches[0].args[8], LaunchArg::Local { len: 4, .. }));
        assert_eq!(w.buffer("a").map(|b| b.access), Some(Access::ReadOnly));
        let mut data = w.initial_data(0).expect("data");
        let a = &data.get("a").expect("a").bytes;
        assert_eq!(a, &le(&[1f32, 2., 3., 4., 5., 6., 7., 8.], f32::to_le_bytes), "range=1:1:8");
        mixed_types_results(&mut data);
        assert_eq!(w.format_oclgrind_output(&data), captured(out), "{sim}");
    }
}

#[test]
fn float_formatting_matches_oclgrind() {
    let w = load("float_format.sim");
    let mut data = w.initial_data(0).expect("data");
    let input: Vec<f32> = data
        .get("in")
        .expect("in")
        .bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let mut out = input.clone();
    out[0] = f32::NAN;
    let dout: Vec<f64> = input.iter().map(|x| f64::from(*x) * 3.0).collect();
    set(&mut data, "out", le(&out, f32::to_le_bytes));
    set(&mut data, "dout", le(&dout, f64::to_le_bytes));
    assert_eq!(w.format_oclgrind_output(&data), captured("float_format.oclgrind.out"));
}

/// A fresh directory per call: tests run in parallel and write different `k.cl` files.
fn scratch_with_kernel(source: &str) -> Scratch {
    let dir = Scratch::new("sim-files");
    dir.write("k.cl", source);
    dir
}

const KERNEL: &str = "kernel void k(global int *x, uint n, local float *t) {}";

fn sim_error(body: &str) -> String {
    let dir = scratch_with_kernel(KERNEL);
    match from_sim(&format!("k.cl k\n4 1 1\n2 1 1\n{body}"), &dir) {
        Ok(_) => panic!("expected an error for {body}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn sim_errors_are_located() {
    assert!(sim_error("<size=16 fill=1> <size=4> 3\n").contains("end of file"));
    assert!(sim_error("<size=16 fill=1>\n<size=4> 3\n<size=8>\n7").contains(":7:1"));
    assert!(sim_error("<size=16 bogus>").contains("bogus"));
    assert!(sim_error("<size=15> <size=4> 1 <size=4>").contains("multiple"));
    assert!(sim_error("<size=16 fill=1 range=0:1:3> <size=4> 1 <size=4>").contains("multiple"));
    assert!(sim_error("<size=16 range=0:1:9> <size=4> 1 <size=4>").contains("range"));
    assert!(sim_error("<size=16 fill=1> <size=4 dump> 1 <size=4>").contains("only valid"));
    assert!(sim_error("<size=16 fill=x> <size=4> 1 <size=4>").contains("`x`"));
    assert!(sim_error("<size=16 ro wo> <size=4> 1 <size=4>").contains("exclusive"));
    assert!(sim_error("size=16").contains("header"));
    assert!(sim_error("<size=16 null>").contains("null"));
    let extreme = "<size=16 range=-170141183460469231731687303715884105727:1:\
                   170141183460469231731687303715884105727> <size=4> 1 <size=4>";
    assert!(sim_error(extreme).contains("range"));
    let dir = scratch_with_kernel(KERNEL);
    let bad_range = from_sim("k.cl k\n4 1 1\n3 1 1\n", &dir).expect_err("divide");
    assert!(bad_range.to_string().contains("divide"));
    let missing = from_sim("nope.cl k\n4 1 1\n1 1 1\n", &dir).expect_err("missing");
    assert!(matches!(missing, WorkloadError::MissingSource { .. }));
    let unknown = from_sim("k.cl other\n4 1 1\n1 1 1\n", &dir).expect_err("kernel");
    assert!(unknown.to_string().contains("other"));
}

#[test]
fn parameters_come_from_the_compiled_program() {
    // Macros build the signature: only the front end sees `x`.
    let dir = scratch_with_kernel("#define K(name) kernel void name(global int *x)\nK(k) {}");
    let text = "k.cl k\n4 1 1\n1 1 1\n<size=16 range=0:2:6 dump>\n";
    let w = from_sim(text, &dir).expect("front-end signatures");
    let data = w.initial_data(0).expect("data");
    assert_eq!(
        data.get("x").map(|b| b.bytes.clone()),
        Some(le(&[0i32, 2, 4, 6], i32::to_le_bytes))
    );
    // Without signatures, a .sim file is refused with a message that says what to do.
    std::fs::write(dir.join("w.sim"), text).expect("write");
    let err = Workload::load(&dir.join("w.sim")).expect_err("needs signatures");
    assert!(matches!(err, WorkloadError::NeedsSignatures { .. }));
    assert!(err.to_string().contains("front end"), "{err}");
    // Parameters known in advance serve as well.
    let params =
        [KernelParam { name: "x".into(), space: ParamSpace::Global, type_name: "int".into() }];
    let mut fixed = FixedSignatures::one("k", params.to_vec());
    let w = Workload::from_sim_str(text, &dir, &LoadOptions::default(), &mut fixed).expect("fixed");
    assert_eq!(w.buffer("x").map(|b| b.len), Some(4));
    // A kernel that does not compile reports the compiler's diagnostics.
    let broken = scratch_with_kernel("kernel void k(global int *x) { x[0] = ; }");
    let err = from_sim(text, &broken).expect_err("compile error");
    assert!(matches!(err, WorkloadError::Frontend { .. }), "{err}");
    let err = from_sim("k.cl nope\n4 1 1\n1 1 1\n", &dir).expect_err("no kernel");
    assert!(err.to_string().contains("`nope`") && err.to_string().contains("kernels: k"), "{err}");
}

#[test]
fn sim_header_types_are_checked_against_the_parameters() {
    let dir = scratch_with_kernel("kernel void k(global float *x) {}");
    let err = from_sim("k.cl k 4 1 1 4 1 1 <size=16 int fill=1>", &dir).expect_err("int for float");
    assert!(err.to_string().contains("`int` buffer") && err.to_string().contains("float"), "{err}");
    let bytes = scratch_with_kernel("kernel void k(global void *x) {}");
    from_sim("k.cl k 4 1 1 4 1 1 <size=16 int fill=1>", &bytes).expect("void * takes any buffer");
}

#[test]
fn vector_scalars_take_one_value_per_component() {
    let dir = scratch_with_kernel("kernel void k(float4 v, global uchar *p) {}");
    let w = from_sim("k.cl k 4 1 1 4 1 1 <size=16> 1 2 3 4 <size=2> 250 251", &dir).expect("load");
    let arg = &w.launches[0].args[0];
    assert_eq!(arg.scalar_bytes().and_then(Result::ok).map(|b| b.len()), Some(16));
    let err = from_sim("k.cl k 4 1 1 4 1 1 <size=16> 1 2 3 4 <size=2> 250 256", &dir)
        .expect_err("256 is not a uchar");
    assert!(err.to_string().contains("256"));
}

#[test]
fn struct_arguments_are_the_bytes_their_values_make() {
    let dir = scratch_with_kernel(
        "typedef struct { short tag; float weight; } Pair;\n\
         struct __attribute__((packed)) Tight { uchar low; uint high; };\n\
         kernel void k(Pair p, struct Tight t, global int *out) {}",
    );
    // The header's type reads the values; their bytes, in order, are the struct's.
    let text = "k.cl k 1 1 1 1 1 1\n<size=8 short> 7 -1 0 16256\n\
                <size=5 uchar hex> 0xaa 0x01 0x02 0x03 0x04\n<size=4 fill=0 dump>\n";
    let w = from_sim(text, &dir).expect("struct arguments");
    let bytes: Vec<Vec<u8>> = w.launches[0].args[..2]
        .iter()
        .map(|a| match a {
            LaunchArg::Bytes { bytes, .. } => bytes.clone(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(bytes, [vec![7, 0, 0xff, 0xff, 0, 0, 0x80, 0x3f], vec![0xaa, 1, 2, 3, 4]]);
    // fill and range make the bytes too; a value that does not fit its type is refused.
    let filled = from_sim(
        "k.cl k 1 1 1 1 1 1\n<size=8 int range=5:1:6>\n<size=5 char fill=-2>\n<size=4 fill=0>",
        &dir,
    )
    .expect("fill and range");
    assert_eq!(
        filled.launches[0].args[..2]
            .iter()
            .map(|a| a.scalar_bytes().and_then(Result::ok))
            .collect::<Vec<_>>(),
        [Some(vec![5, 0, 0, 0, 6, 0, 0, 0]), Some(vec![0xfe; 5])]
    );
    let err = from_sim("k.cl k 1 1 1 1 1 1\n<size=8 short> 7 70000 0 0\n", &dir)
        .expect_err("70000 is no short");
    assert!(err.to_string().contains("70000"), "{err}");
    // Exported for oclgrind-kernel as bytes, and read back the same.
    let export = w.to_sim(0).expect("export");
    assert!(
        export.text.contains("<size=5 uchar hex> 0xaa 0x01 0x02 0x03 0x04\n"),
        "{}",
        export.text
    );
    let again = from_sim(&export.text, &dir).expect("reload");
    assert_eq!(again.launches[0].args[..2], w.launches[0].args[..2]);
}

#[test]
fn a_buffer_may_have_zero_bytes() {
    // Oclgrind allocates it: a pointer to nothing, not NULL.
    let dir = scratch_with_kernel("kernel void k(global float *none, local int *t, int n) {}");
    let w = from_sim("k.cl k 1 1 1 1 1 1 <size=0 fill=0 dump> <size=4> <size=4> 1", &dir)
        .expect("zero-byte buffer");
    assert_eq!(w.buffer("none").map(|b| (b.len, b.output)), Some((0, true)));
    assert_eq!(w.initial_data(0).expect("data").get("none").map(|b| b.bytes.len()), Some(0));
    for body in ["<size=0> <size=0> <size=4> 1", "<size=0> <size=4> <size=0>"] {
        let err = from_sim(&format!("k.cl k 1 1 1 1 1 1 {body}"), &dir).expect_err(body);
        assert!(err.to_string().contains("size 0 is not a positive multiple"), "{body}: {err}");
    }
}
