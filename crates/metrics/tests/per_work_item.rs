//! Per-work-item instruction counts and SIMD width on tiny kernels whose answers follow from
//! their structure: divergent lanes get their own counts, vector operations their width.

use clmap_metrics::{KernelMetrics, MetricsObserver, Mode};
use clmap_sim::{run_kernel, ArgValue, SharedBuffer, SimOptions};
use clmap_workload::NdRange;

fn module(src: &str) -> clmap_lang::ir::Module {
    match clmap_lang::frontend::compile_isolated(src, "") {
        Ok(c) => c.module,
        Err(f) => panic!("does not compile:\n{}", f.render()),
    }
}

fn buffer(name: &str, values: &[i32]) -> SharedBuffer {
    let bytes: Vec<u8> = values.iter().flat_map(|x| x.to_le_bytes()).collect();
    SharedBuffer::from_bytes(name, &bytes)
}

/// Metrics of `kernel` over `global` work-items in groups of `local`, one buffer per argument.
fn metrics(
    src: &str,
    global: u64,
    local: u64,
    buffers: &[&[i32]],
    threads: usize,
) -> KernelMetrics {
    let range =
        NdRange { global: [global, 1, 1], local: Some([local, 1, 1]), offset: [0; 3], dims: 1 };
    let args: Vec<ArgValue> = buffers
        .iter()
        .enumerate()
        .map(|(i, b)| ArgValue::Buffer(buffer(&format!("b{i}"), b)))
        .collect();
    let options = SimOptions { threads, ..SimOptions::default() };
    let run = run_kernel(&module(src), "k", &range, &args, &options, &|| {
        MetricsObserver::new(Mode::Clmap)
    })
    .expect("runs");
    run.observer.finish("k")
}

const LOOP: &str = r#"
__kernel void k(__global int *trips, __global int *out) {
    int i = get_global_id(0);
    int acc = 0;
    for (int j = 0; j < trips[i]; j++) acc += j;
    out[i] = acc;
}"#;

#[test]
fn divergent_work_items_get_their_own_instruction_counts() {
    let out = [0; 4];
    // With every lane running the same trips, every work-item runs the same count.
    let uniform = |trips: i32| {
        let m = metrics(LOOP, 4, 4, &[&[trips; 4], &out], 1);
        let spread = m.parallelism.instructions_per_work_item;
        assert_eq!(spread.min, spread.max, "converged lanes run equal counts");
        spread.min
    };
    let (none, four) = (uniform(0), uniform(4));
    assert!(four > none);
    // Three lanes skip the loop and one runs it four times: that lane runs what a uniform
    // run of four trips does, the others what a run of none does (a group average would put
    // everyone at a quarter of the way).
    let m = metrics(LOOP, 4, 4, &[&[0, 0, 0, 4], &out], 1);
    let spread = m.parallelism.instructions_per_work_item;
    assert_eq!((spread.min, spread.median, spread.max), (none, none as f64, four));
    // No barrier: each work-item's whole run is its interval.
    let to_barrier = m.parallelism.instructions_to_barrier;
    assert_eq!((to_barrier.min, to_barrier.max), (none, four));
    assert_eq!(m.compute.total_instructions, 3 * none + four);
}

#[test]
fn barrier_intervals_are_counted_per_work_item() {
    let src = r#"
    __kernel void k(__global int *trips, __global int *out) {
        int i = get_global_id(0);
        int acc = 0;
        for (int j = 0; j < trips[i]; j++) acc += j;
        barrier(CLK_GLOBAL_MEM_FENCE);
        out[i] = acc;
    }"#;
    let out = [0; 4];
    let before =
        |trips: &[i32]| metrics(src, 4, 4, &[trips, &out], 1).parallelism.instructions_to_barrier;
    let uniform = before(&[2; 4]);
    let skewed = before(&[2, 2, 2, 6]);
    // The interval after the barrier is the same for all; before it, lane 3 runs longer.
    assert_eq!(skewed.min, uniform.min);
    assert!(skewed.max > uniform.max);
}

#[test]
fn simd_width_follows_the_operand_vectors() {
    let scalar = r#"
    __kernel void k(__global int *a, __global int *b) {
        int i = get_global_id(0);
        b[i] = a[i] * 3 + 1;
    }"#;
    let vector = r#"
    __kernel void k(__global int *a, __global int *b) {
        int i = get_global_id(0);
        int4 v = vload4(i, a);
        vstore4(v * 3 + 1, i, b);
    }"#;
    let data: Vec<i32> = (0..32).collect();
    let s = metrics(scalar, 8, 4, &[&data, &[0; 32]], 1).parallelism.simd_width.expect("measured");
    assert_eq!((s.max, s.mean, s.sd), (1, 1.0, 0.0));
    let v = metrics(vector, 8, 4, &[&data, &[0; 32]], 1).parallelism.simd_width.expect("measured");
    assert_eq!(v.max, 4);
    assert!(v.mean > 1.0 && v.mean < 4.0, "{v:?}");
    assert!(v.sd > 0.0);
}

#[test]
fn per_work_item_metrics_do_not_depend_on_threads() {
    let trips: Vec<i32> = (0..64).map(|i| (i * 7) % 5).collect();
    let one = metrics(LOOP, 64, 8, &[&trips, &[0; 64]], 1);
    let three = metrics(LOOP, 64, 8, &[&trips, &[0; 64]], 3);
    assert_eq!(one, three);
}
