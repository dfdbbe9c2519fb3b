//! Formula initialisers and norm tolerances as workload files write them: loading, the data
//! they produce, errors with locations, and the round trip through `to_toml`.

use clmap_testkit::Scratch;

use clmap_workload::{Init, Tolerance, Workload, WorkloadError};

fn scratch() -> Scratch {
    let dir = Scratch::new("formula-tests");
    dir.write("k.cl", "__kernel void k(__global float *a, __global float *x) {}\n");
    dir
}

fn load(text: &str) -> Result<Workload, WorkloadError> {
    Workload::from_toml_str(text, scratch().path())
}

fn floats(bytes: &[u8]) -> Vec<f32> {
    bytes.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

/// PolyBench's ATAX inputs at NX = NY = 4: `A[i][j] = i * j / NX` and `x[i] = i * pi`.
const ATAX_INPUTS: &str = r#"
source = "k.cl"
outputs = ["a"]
[sizes]
nx = 4
ny = 4
[buffers]
a = { type = "float", len = "nx * ny", init = { formula = "i * j / nx", shape = ["nx", "ny"] }, tolerance = { norm = 0.01 } }
x = { type = "float", len = "ny", init = { formula = "i * pi" } }
[[launch]]
kernel = "k"
global = [4]
args = ["a", "x"]
"#;

#[test]
fn formulas_fill_buffers_from_the_index() {
    let w = load(ATAX_INPUTS).expect("loads");
    let data = w.initial_data(0).expect("data");
    let a = floats(&data.get("a").expect("a").bytes);
    for i in 0..4 {
        for j in 0..4 {
            assert_eq!(a[i * 4 + j], (i * j) as f32 / 4.0, "A[{i}][{j}]");
        }
    }
    let x = floats(&data.get("x").expect("x").bytes);
    let pi = std::f64::consts::PI;
    assert_eq!(x, vec![0.0, pi as f32, (2.0 * pi) as f32, (3.0 * pi) as f32]);
    // Formula data is fixed: shifted seeds leave it alone.
    assert_eq!(w.initial_data(7).expect("data").get("a"), data.get("a"));
    assert_eq!(w.buffer("a").and_then(|b| b.tolerance), Some(Tolerance::norm(0.01)));
}

#[test]
fn formulas_and_norms_round_trip_as_numbers() {
    let dir = scratch();
    let w = Workload::from_toml_str(ATAX_INPUTS, dir.path()).expect("loads");
    let text = w.to_toml(dir.path());
    assert!(text.contains(r#"formula = "i * j / 4", shape = [4, 4]"#), "{text}");
    assert!(text.contains("norm = 0.01"), "{text}");
    let again = Workload::from_toml_str(&text, dir.path()).expect("reloads");
    assert_eq!(again.buffers, w.buffers);
    assert!(matches!(again.buffer("x").map(|b| &b.init), Some(Init::Formula(_))));
}

#[test]
fn bad_formulas_and_tolerances_are_located() {
    let cases = [
        (r#"init = { formula = "i * q", shape = [2, 2] }"#, "unknown name `q`"),
        (r#"init = { formula = "i", shape = [3, 2] }"#, "does not cover"),
        (r#"init = { formula = "i", shape = 4 }"#, "`shape` must be an array"),
        (r#"init = { formla = "i" }"#, "unknown key `formla`"),
        (r#"init = { shape = [4] }"#, "needs `formula"),
        (r#"init = { formula = "1 / i" }"#, "inf"),
        (r#"tolerance = { norm = -0.01 }"#, "not negative"),
        (r#"tolerance = { nrm = 0.01 }"#, "nrm"),
    ];
    for (field, needle) in cases {
        let text = format!(
            "source = \"k.cl\"\n[buffers]\na = {{ type = \"float\", len = 4, {field} }}\n\
             x = {{ type = \"float\", len = 4 }}\n[[launch]]\nkernel = \"k\"\nglobal = [4]\n\
             args = [\"a\", \"x\"]\n"
        );
        let message = match load(&text) {
            Ok(w) => match w.initial_data(0) {
                Ok(_) => panic!("`{field}` was accepted"),
                Err(e) => e.to_string(),
            },
            Err(e) => e.to_string(),
        };
        assert!(message.contains(needle), "`{field}`: {message}");
    }
}
