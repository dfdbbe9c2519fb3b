//! Bad kernels, launches and arguments end in errors or reports, never in a panic.

mod common;
use common::*;

use clmap_sim::{compile_kernel, run_kernel, ArgValue, NoObserver, SimError, SimOptions};

fn try_run(
    src: &str,
    kernel: &str,
    global: &[u64],
    local: &[u64],
    args: &[ArgValue],
    options: &SimOptions,
) -> Result<usize, SimError> {
    let m = module(src);
    run_kernel(&m, kernel, &range(global, local), args, options, &|| NoObserver)
        .map(|r| r.reports.len())
}

#[test]
fn runaway_kernels_stop_at_the_step_budget() {
    let src = r#"
    __kernel void spin(__global int *out) {
        int i = 0;
        while (out[0] == 0) { i++; }
        out[1] = i;
    }"#;
    let options = SimOptions { threads: 2, max_steps: 100_000, ..SimOptions::default() };
    let out = buf_i32("out", &[0, 0]);
    let err = try_run(src, "spin", &[64], &[8], &[ArgValue::Buffer(out)], &options)
        .expect_err("must stop");
    match err {
        SimError::StepLimit { limit, group, .. } => {
            assert_eq!(limit, 100_000);
            // The first work-group that ran away, whatever the thread count.
            assert_eq!(group, [0, 0, 0]);
        }
        other => panic!("unexpected error {other}"),
    }
}

#[test]
fn bad_launches_and_arguments_are_errors() {
    let src = "__kernel void k(__global int *out, int n, __local float *tmp) { out[0] = n; }";
    let o = SimOptions { threads: 1, ..SimOptions::default() };
    let out = || ArgValue::Buffer(buf_i32("out", &[0]));
    let good = || vec![out(), int(3), ArgValue::Local(16)];
    assert!(try_run(src, "k", &[8], &[8], &good(), &o).is_ok());
    // Local size not dividing the global size.
    assert!(matches!(try_run(src, "k", &[10], &[4], &good(), &o), Err(SimError::BadRange { .. })));
    // Zero sizes.
    assert!(matches!(try_run(src, "k", &[0], &[1], &good(), &o), Err(SimError::BadRange { .. })));
    // Too many work-items per group.
    assert!(matches!(
        try_run(src, "k", &[1 << 20], &[1 << 20], &good(), &o),
        Err(SimError::BadRange { .. })
    ));
    // Wrong number and kinds of arguments.
    assert!(matches!(
        try_run(src, "k", &[8], &[8], &good()[..2], &o),
        Err(SimError::BadArguments { .. })
    ));
    assert!(matches!(
        try_run(src, "k", &[8], &[8], &[int(1), int(3), ArgValue::Local(16)], &o),
        Err(SimError::BadArguments { .. })
    ));
    assert!(matches!(
        try_run(src, "k", &[8], &[8], &[out(), ArgValue::Bytes(vec![1]), ArgValue::Local(16)], &o),
        Err(SimError::BadArguments { .. })
    ));
    assert!(matches!(
        try_run(src, "k", &[8], &[8], &[out(), ArgValue::Null, ArgValue::Local(16)], &o),
        Err(SimError::BadArguments { .. })
    ));
    // Local memory beyond the allocation limit.
    let small = SimOptions { max_memory_bytes: 1 << 20, ..o.clone() };
    let err = try_run(src, "k", &[8], &[8], &[out(), int(3), ArgValue::Local(1 << 30)], &small)
        .expect_err("too big");
    assert!(matches!(err, SimError::AllocationLimit { .. }), "{err}");
    assert!(err.to_string().contains("limit"));
    // Unknown kernel.
    assert!(matches!(compile_kernel(&module(src), "nope"), Err(SimError::UnknownKernel { .. })));
    // NULL buffers are accepted; using one is a report, not a crash.
    assert_eq!(
        try_run(src, "k", &[8], &[8], &[ArgValue::Null, int(3), ArgValue::Local(16)], &o).ok(),
        Some(1)
    );
}

#[test]
fn wild_pointers_and_odd_arithmetic_never_panic() {
    let src = r#"
    __kernel void k(__global int *out, __global const int *in, int n) {
        int g = get_global_id(0);
        __global int *p = (__global int *)((ulong)out + (ulong)(g * 1000003));
        *p = 1;
        int x = in[g * n];
        out[g % 4] = x / (g - 3) + x % (n - n) + (x << 40) + (x >> -1);
        char *c = (char *)&x;
        out[(g * 7) % 4] += c[g];
        long big = (long)0x7fffffffffffffffL;
        out[0] += (int)(big * big + big / -1);
        float f = 1.0f / 0.0f;
        out[1] += (int)f + (int)(f - f) + convert_int_sat(f);
        out[2] += (int)(uint)(-1.5f) + (int)(ulong)(1e30f);
        barrier(CLK_GLOBAL_MEM_FENCE);
        if (g == 5) return;
        barrier(CLK_GLOBAL_MEM_FENCE);
    }"#;
    for n in [-1000, 0, 1, 7, i32::MAX, i32::MIN] {
        let out = buf_i32("out", &[0; 4]);
        let input = buf_i32("in", &[5; 16]);
        let options = SimOptions {
            threads: 2,
            check_races: true,
            check_uninitialised: true,
            ..SimOptions::default()
        };
        let r = try_run(
            src,
            "k",
            &[16],
            &[8],
            &[ArgValue::Buffer(out), ArgValue::Buffer(input), int(n)],
            &options,
        );
        assert!(r.is_ok(), "n = {n}: {r:?}");
    }
}

#[test]
fn malformed_and_random_workloads_do_not_panic() {
    use clmap_workload::Workload;
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/malformed");
    if let Ok(entries) = std::fs::read_dir(&dir) {
        for e in entries.flatten() {
            if let Ok(w) = Workload::load(&e.path()) {
                let Ok(compiled) = clmap_lang::frontend::compile_file(&w.source_path, &w.options)
                else {
                    continue;
                };
                let options = SimOptions { max_steps: 1_000_000, ..SimOptions::default() };
                let _ = clmap_sim::run_workload(&compiled.module, &w, &options);
            }
        }
    }
    // Random launch shapes over a kernel that indexes by every id.
    let src = r#"
    __kernel void k(__global float *out, __local float *tmp, uint n) {
        size_t i = get_global_id(0) + get_global_id(1) * get_global_size(0) + get_global_id(2) * 7;
        tmp[get_local_id(0)] = (float)i;
        barrier(CLK_LOCAL_MEM_FENCE);
        out[i % n] = tmp[(get_local_id(0) + 1) % get_local_size(0)];
    }"#;
    let m = module(src);
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = |bound: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % bound
    };
    for _ in 0..60 {
        let dims = 1 + next(3) as usize;
        let global: Vec<u64> = (0..dims).map(|_| 1 + next(24)).collect();
        let local: Vec<u64> =
            global.iter().map(|g| if next(4) == 0 { 1 + next(8) } else { *g }).collect();
        let n = next(40) as u32;
        let out = buf_f32("out", &[0.0; 32]);
        let args = [
            ArgValue::Buffer(out),
            ArgValue::Local(next(64)),
            ArgValue::Bytes(n.to_le_bytes().to_vec()),
        ];
        let options = SimOptions {
            threads: 1 + next(3) as usize,
            check_races: true,
            ..SimOptions::default()
        };
        let _ = run_kernel(&m, "k", &range(&global, &local), &args, &options, &|| NoObserver);
    }
}
