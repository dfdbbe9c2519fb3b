//! The generated kernels are OpenCL C 1.2 that clang accepts (skipped, with a note, where
//! clang-16 is not installed). All kernels go into one translation unit: their names are
//! distinct, and one clang run keeps the test fast.

use std::io::Write;
use std::process::{Command, Stdio};

use clmap_aristotle::compose_kernels::{generate_pair, ComposeVersion};
use clmap_aristotle::generate::{generate, BenchSpec, Variant};
use clmap_aristotle::map::{map_by_id, valid_maps, MapId};

fn clang_accepts(text: &str) {
    let mut command = Command::new("clang-16");
    command
        .args(["-x", "cl", "-cl-std=CL1.2", "-Xclang", "-finclude-default-header"])
        .args(["-fsyntax-only", "-Wall", "-Werror", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let Ok(mut child) = command.spawn() else {
        eprintln!("clang-16 not found: the generated kernels were not checked with clang");
        return;
    };
    if let Some(mut stdin) = child.stdin.take() {
        stdin.write_all(text.as_bytes()).expect("write to clang");
    }
    let output = child.wait_with_output().expect("clang runs");
    assert!(
        output.status.success(),
        "clang rejects the generated kernels:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn clang_accepts_every_variant_and_a_sample_of_pairs() {
    let mut unit = String::new();
    for map in valid_maps() {
        for variant in Variant::ALL {
            let spec = BenchSpec { map, variant, dataset: 128, work_group: [16, 16] };
            unit.push_str(&generate(&spec).unwrap().source);
            unit.push('\n');
        }
    }
    let pairs = [(407, 205), (302, 302), (116, 514)];
    for (a, b) in pairs {
        let (a, b) = (map_by_id(MapId(a)).unwrap(), map_by_id(MapId(b)).unwrap());
        for version in ComposeVersion::ALL {
            unit.push_str(&generate_pair(&a, &b, version, 128, [16, 16]).unwrap().source);
            unit.push('\n');
        }
    }
    clang_accepts(&unit);
}
