//! `clmap maps detect`: human output and JSON on corpus workloads.

use std::path::Path;
use std::process::Command;

fn clmap(args: &[&str]) -> (i32, String) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out = Command::new(env!("CARGO_BIN_EXE_clmap"))
        .args(args)
        .current_dir(root)
        .output()
        .expect("runs");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn matrix_multiply_prints_maps_lines_and_the_simulator_check() {
    let (code, out) = clmap(&["maps", "detect", "tests/corpus/mm_simple.toml"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("A: MAP-204"), "{out}");
    assert!(out.contains("B: MAP-303"), "{out}");
    assert!(out.contains("mm_simple.cl:17"), "{out}");
    assert!(out.contains("checked on the simulator: 2 work-groups agree"), "{out}");
}

#[test]
fn json_lists_kernel_buffer_and_map() {
    let (code, out) = clmap(&["maps", "detect", "tests/corpus/jacobi2d.toml", "--json"]);
    assert_eq!(code, 0, "{out}");
    let value: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    let first = &value.as_array().expect("a list")[0];
    assert_eq!(first["kernel"], "jacobi2d_step");
    assert_eq!(first["buffer"], "A");
    assert_eq!(first["map"], "MAP-508");
    assert_eq!(first["imap"], "Neighbor");
    assert_eq!(first["checked"]["work_groups"], 2);
}

#[test]
fn help_has_an_example() {
    let (_, out) = clmap(&["maps", "detect", "--help"]);
    assert!(out.contains("clmap maps detect tests/corpus/mm_simple.toml"), "{out}");
}
