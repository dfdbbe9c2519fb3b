//! The interpreter on small kernels written in OpenCL C.

mod common;
use common::*;

use clmap_sim::{ArgValue, ReportKind};

#[test]
fn matrix_multiply_matches_reference() {
    let src = r#"
    __kernel void mm(__global const float *A, __global const float *B, __global float *C, int N) {
        int row = get_global_id(1);
        int col = get_global_id(0);
        float acc = 0.0f;
        for (int k = 0; k < N; ++k)
            acc += A[row * N + k] * B[k * N + col];
        C[row * N + col] = acc;
    }"#;
    let n = 32usize;
    let a: Vec<f32> = (0..n * n).map(|i| ((i * 7) % 13) as f32 - 6.0).collect();
    let b: Vec<f32> = (0..n * n).map(|i| ((i * 5) % 11) as f32 * 0.5).collect();
    let (ba, bb, bc) = (buf_f32("A", &a), buf_f32("B", &b), buf_f32("C", &vec![0.0; n * n]));
    let run = run(
        src,
        "mm",
        &[n as u64, n as u64],
        &[8, 8],
        &[ArgValue::Buffer(ba), ArgValue::Buffer(bb), ArgValue::Buffer(bc.clone()), int(n as i32)],
    );
    assert!(run.reports.is_empty(), "{:?}", run.reports);
    let c = f32s(&bc);
    for row in 0..n {
        for col in 0..n {
            let mut acc = 0.0f32;
            for k in 0..n {
                acc += a[row * n + k] * b[k * n + col];
            }
            assert_eq!(c[row * n + col], acc, "C[{row}][{col}]");
        }
    }
}

#[test]
fn integer_arithmetic_wraps_masks_shifts_and_survives_division_by_zero() {
    let src = r#"
    __kernel void k(__global int *out, int zero) {
        int big = 2147483647;
        out[0] = big + 1;
        out[1] = 1 << 33;
        out[2] = -17 / 5;
        out[3] = -17 % 5;
        out[4] = (int)((uchar)250 + (uchar)10);
        uchar u = 250; u += 10;
        out[5] = u;
        out[6] = 7 / zero;
        out[7] = (-8) >> 1;
        out[8] = (int)(0xFFFFFFFFu >> 4);
        short s = (short)40000;
        out[9] = s;
        out[10] = (int)(-2147483647 - 1) / -1;
        long l = 1L << 40;
        out[11] = (int)(l >> 38);
        out[12] = (int)3.99f;
        out[13] = (int)-3.99f;
        out[14] = convert_int_sat(3.0e10f);
        out[15] = convert_uchar_sat(-5);
    }"#;
    let out = buf_i32("out", &[0; 16]);
    let run = run(src, "k", &[1], &[1], &[ArgValue::Buffer(out.clone()), int(0)]);
    let v = i32s(&out);
    assert_eq!(
        v,
        vec![
            i32::MIN,
            2,
            -3,
            -2,
            260,
            4,
            0,
            -4,
            0x0FFF_FFFF,
            40000 - 65536,
            i32::MIN,
            4,
            3,
            -3,
            i32::MAX,
            0
        ]
    );
    assert_eq!(run.reports.len(), 1);
    assert_eq!(run.reports[0].kind, ReportKind::DivisionByZero);
}

#[test]
fn divergent_control_flow_follows_each_work_item() {
    let src = r#"
    int collatz(int n) {
        int steps = 0;
        while (n != 1) {
            if (steps > 1000) return -1;
            n = (n % 2 == 0) ? n / 2 : 3 * n + 1;
            steps++;
        }
        return steps;
    }
    __kernel void k(__global int *out) {
        int i = get_global_id(0);
        if (i == 0) { out[0] = -5; return; }
        int acc = 0;
        for (int j = 0; j < 20; j++) {
            if (j == i) break;
            if (j % 3 == 1) continue;
            acc += j;
        }
        int s = 0;
        switch (i % 4) {
            case 0: s += 1;
            case 1: s += 10; break;
            case 2: s += 100;
            default: s += 1000;
        }
        int d = 0;
        do { d += 2; } while (d < i);
        out[i] = acc * 1000000 + s * 1000 + collatz(i) + d * 0;
        if (i >= 30) out[i] = d;
    }"#;
    let out = buf_i32("out", &[0; 32]);
    run(src, "k", &[32], &[16], &[ArgValue::Buffer(out.clone())]);
    let v = i32s(&out);
    let collatz = |mut n: i32| {
        let mut s = 0;
        while n != 1 {
            n = if n % 2 == 0 { n / 2 } else { 3 * n + 1 };
            s += 1;
        }
        s
    };
    for i in 0..32i32 {
        let expected = if i == 0 {
            -5
        } else if i >= 30 {
            (1..).map(|k| 2 * k).find(|d| *d >= i).unwrap_or(0)
        } else {
            let acc: i32 = (0..20.min(i)).filter(|j| j % 3 != 1).sum();
            let s = match i % 4 {
                0 => 11,
                1 => 10,
                2 => 1100,
                _ => 1000,
            };
            acc * 1_000_000 + s * 1000 + collatz(i)
        };
        assert_eq!(v[i as usize], expected, "work-item {i}");
    }
}

#[test]
fn local_memory_reduction_with_barriers() {
    let src = r#"
    __kernel void reduce(__global const int *in, __global int *out, __local int *scratch) {
        int lid = get_local_id(0);
        scratch[lid] = in[get_global_id(0)];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int s = get_local_size(0) / 2; s > 0; s >>= 1) {
            if (lid < s) scratch[lid] += scratch[lid + s];
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (lid == 0) out[get_group_id(0)] = scratch[0];
    }"#;
    let input: Vec<i32> = (0..256).map(|i| i * 3 - 100).collect();
    let (bi, bo) = (buf_i32("in", &input), buf_i32("out", &[0; 4]));
    let run = run(
        src,
        "reduce",
        &[256],
        &[64],
        &[ArgValue::Buffer(bi), ArgValue::Buffer(bo.clone()), ArgValue::Local(64 * 4)],
    );
    assert!(run.reports.is_empty(), "{:?}", run.reports);
    let expected: Vec<i32> = input.chunks(64).map(|c| c.iter().sum()).collect();
    assert_eq!(i32s(&bo), expected);
}
