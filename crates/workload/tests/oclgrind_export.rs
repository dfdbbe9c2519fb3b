//! Workloads written as `.sim` files: they load back into the same data, and, where
//! `oclgrind-kernel` is installed, Oclgrind runs them and prints what the kernels compute.

use std::path::{Path, PathBuf};
use std::process::Command;

use clmap_workload::{Workload, WorkloadError};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("clmap-sim-export-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch");
    dir
}

fn floats(bytes: &[u8]) -> Vec<f32> {
    bytes.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

/// Writes the workload as .sim, reloads it, and checks every buffer gets identical bytes.
fn export_and_reload(workload: &Workload, name: &str) -> PathBuf {
    let export = workload.to_sim(0).unwrap_or_else(|e| panic!("{name}: {e}"));
    let path = scratch(name).join(format!("{name}.sim"));
    std::fs::write(&path, &export.text).expect("write");
    let again = clmap_exec::load_checked(&path, &clmap_workload::LoadOptions::default())
        .map(|(w, _)| w)
        .unwrap_or_else(|e| panic!("{name}: {e}\n{}", export.text));
    let before = workload.initial_data(0).expect("data");
    let after = again.initial_data(0).expect("data");
    for b in &before.buffers {
        let reloaded = after.get(&b.name).unwrap_or_else(|| panic!("{name}: lost {}", b.name));
        assert_eq!(reloaded.bytes, b.bytes, "{name}: buffer {}", b.name);
    }
    assert_eq!(again.outputs, workload.outputs, "{name}");
    path
}

#[test]
fn examples_export_to_sim_with_identical_inputs() {
    for name in ["vector_add", "transpose"] {
        let w = Workload::load(&root().join(format!("examples/{name}.toml"))).expect("load");
        export_and_reload(&w, name);
    }
}

#[test]
fn pipelines_are_refused() {
    let w = Workload::load(&root().join("examples/jacobi_pipeline.toml")).expect("load");
    assert!(matches!(w.to_sim(0), Err(WorkloadError::Invalid { .. })));
}

#[test]
fn oclgrind_computes_vector_add_from_the_exported_inputs() {
    let w = Workload::load(&root().join("examples/vector_add.toml")).expect("load");
    let path = export_and_reload(&w, "vector_add_run");
    let run = Command::new("oclgrind-kernel").arg(&path).output();
    let Ok(run) = run else {
        eprintln!("oclgrind-kernel is not installed; skipping the run");
        return;
    };
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    // Compute c = a + b for the first n = 1000 elements (the rest stays as Oclgrind leaves
    // `noinit` memory: zero) and format it as Oclgrind would.
    let mut data = w.initial_data(0).expect("data");
    let a = floats(&data.get("a").expect("a").bytes);
    let b = floats(&data.get("b").expect("b").bytes);
    let c: Vec<u8> = a
        .iter()
        .zip(&b)
        .enumerate()
        .flat_map(|(i, (x, y))| if i < 1000 { x + y } else { 0.0 }.to_le_bytes())
        .collect();
    data.get_mut("c").expect("c").bytes = c;
    assert_eq!(String::from_utf8_lossy(&run.stdout), w.format_oclgrind_output(&data));
}

#[test]
fn oclgrind_transposes_through_local_memory_from_the_exported_inputs() {
    let w = Workload::load(&root().join("examples/transpose.toml")).expect("load");
    let path = export_and_reload(&w, "transpose_run");
    let export = w.to_sim(0).expect("export");
    let run = Command::new("oclgrind-kernel")
        .arg("--build-options")
        .arg(&export.build_options)
        .arg(&path)
        .output();
    let Ok(run) = run else {
        eprintln!("oclgrind-kernel is not installed; skipping the run");
        return;
    };
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let (width, height) = (256usize, 128usize);
    let mut data = w.initial_data(0).expect("data");
    let input = floats(&data.get("in").expect("in").bytes);
    let mut out = vec![0f32; width * height];
    for y in 0..height {
        for x in 0..width {
            out[x * height + y] = input[y * width + x];
        }
    }
    data.get_mut("out").expect("out").bytes = out.iter().flat_map(|v| v.to_le_bytes()).collect();
    assert_eq!(String::from_utf8_lossy(&run.stdout), w.format_oclgrind_output(&data));
}
