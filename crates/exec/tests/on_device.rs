//! Workloads on a real OpenCL device (PoCL in CI). Without a device these tests say why and
//! pass, unless `CLMAP_REQUIRE_OPENCL=1`, which makes a missing device a failure.

use clmap_device::TimingOptions;
use clmap_exec::{run_on_device, time_on_device};
use clmap_testkit::opencl_device;
use clmap_workload::Workload;
use std::path::Path;

fn example(name: &str) -> Workload {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples").join(name);
    Workload::load(&path).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn floats(bytes: &[u8]) -> Vec<f32> {
    bytes.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

#[test]
fn single_launch_computes_what_the_kernel_says() {
    let Some(device) = opencl_device() else { return };
    let w = example("vector_add.toml");
    let run = run_on_device(&device, &w, 0).expect("runs");
    let input = w.initial_data(0).unwrap();
    let a = floats(&input.get("a").unwrap().bytes);
    let b = floats(&input.get("b").unwrap().bytes);
    let c = floats(&run.buffers.get("c").unwrap().bytes);
    for i in 0..1000 {
        assert_eq!(c[i], a[i] + b[i], "element {i}");
    }
    assert_eq!(run.kernel_ns.len(), 1);
}

#[test]
fn pipeline_swaps_buffers_between_repetitions() {
    let Some(device) = opencl_device() else { return };
    let w = example("jacobi_pipeline.toml");
    let run = run_on_device(&device, &w, 0).expect("runs");
    assert_eq!(run.kernel_ns.len(), 10);
    // Reference: ten smoothing steps on the host.
    let mut a = floats(&w.initial_data(0).unwrap().get("a").unwrap().bytes);
    for _ in 0..10 {
        let mut next = a.clone();
        for i in 1..a.len() - 1 {
            next[i] = (a[i - 1] + a[i] + a[i + 1]) / 3.0;
        }
        a = next;
    }
    let got = floats(&run.buffers.get("a").unwrap().bytes);
    for (i, (x, y)) in a.iter().zip(&got).enumerate() {
        assert!((x - y).abs() <= 1e-5 * x.abs().max(1.0), "element {i}: {x} vs {y}");
    }
}

#[test]
fn different_seeds_give_different_inputs_and_outputs_still_compare() {
    let Some(device) = opencl_device() else { return };
    let w = example("vector_add.toml");
    let first = run_on_device(&device, &w, 0).unwrap();
    let again = run_on_device(&device, &w, 0).unwrap();
    let shifted = run_on_device(&device, &w, 1).unwrap();
    let same = w.compare_outputs(&first.buffers, &again.buffers);
    assert!(same.iter().all(|c| c.result.as_ref().is_ok_and(|r| r.passed())));
    let differ = w.compare_outputs(&first.buffers, &shifted.buffers);
    assert!(
        differ.iter().any(|c| !c.result.as_ref().is_ok_and(|r| r.passed())),
        "a shifted seed must change the inputs"
    );
}

#[test]
fn timing_gives_one_sample_per_repetition() {
    let Some(device) = opencl_device() else { return };
    let options = TimingOptions { warmup: 1, reps: 5, flush_cache: false };
    let single = time_on_device(&device, &example("vector_add.toml"), &options).unwrap();
    assert_eq!(single.samples_ns.len(), 5);
    let pipeline = time_on_device(&device, &example("jacobi_pipeline.toml"), &options).unwrap();
    assert_eq!(pipeline.samples_ns.len(), 5);
    assert!(pipeline.min > 0.0 && pipeline.min <= pipeline.median);
}

#[test]
fn includes_resolve_next_to_the_source_on_devices_too() {
    let Some(device) = opencl_device() else { return };
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus/lang_macros.toml");
    let w = Workload::load(&path).expect("corpus workload");
    assert!(w.source.contains("#include"), "the test needs a kernel that includes a header");
    run_on_device(&device, &w, 0).expect("builds and runs with its header");
}
