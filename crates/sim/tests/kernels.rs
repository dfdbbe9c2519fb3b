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

#[test]
fn vectors_swizzles_and_vector_builtins() {
    let src = r#"
    __kernel void k(__global float4 *v, __global int *out, __global float *f) {
        float4 a = v[0];
        float4 b = (float4)(1.0f, 2.0f, 3.0f, 4.0f);
        float4 c = a.wzyx + b * 2.0f;
        c.xy = c.yx;
        v[1] = c;
        int4 m = (int4)(1, 5, 3, 7) > (int4)(2);
        out[0] = m.x; out[1] = m.y; out[2] = m.z; out[3] = m.w;
        out[4] = any(m); out[5] = all(m);
        int2 h = (int2)(10, 20).yx;
        out[6] = h.x;
        float3 p = (float3)(1.0f, 0.0f, 0.0f), q = (float3)(0.0f, 1.0f, 0.0f);
        float3 r = cross(p, q);
        f[0] = r.z;
        f[1] = dot(b, b);
        f[2] = length((float2)(3.0f, 4.0f));
        uchar4 u = convert_uchar4_sat((int4)(-1, 300, 7, 255));
        out[7] = u.x + u.y * 1000 + u.z * 1000000;
        float8 e = (float8)(b, b.s3210);
        f[3] = e.s4 + e.s7;
        vstore4(vload4(0, f + 4), 1, f + 4);
        int4 s = select((int4)(1, 2, 3, 4), (int4)(9), (int4)(-1, 0, -1, 0));
        out[8] = s.x * 1000 + s.y * 100 + s.z * 10 + s.w;
        out[9] = as_int(1.0f);
    }"#;
    let v = buf_f32("v", &[1.0, 2.0, 3.0, 4.0, 0.0, 0.0, 0.0, 0.0]);
    let out = buf_i32("out", &[0; 10]);
    let f = buf_f32("f", &[0.0, 0.0, 0.0, 0.0, 5.0, 6.0, 7.0, 8.0, 0.0, 0.0, 0.0, 0.0]);
    let run = run(
        src,
        "k",
        &[1],
        &[1],
        &[ArgValue::Buffer(v.clone()), ArgValue::Buffer(out.clone()), ArgValue::Buffer(f.clone())],
    );
    assert!(run.reports.is_empty(), "{:?}", run.reports);
    // a.wzyx = (4,3,2,1); + (2,4,6,8) = (6,7,8,9); swap xy -> (7,6,8,9)
    assert_eq!(&f32s(&v)[4..], &[7.0, 6.0, 8.0, 9.0]);
    assert_eq!(i32s(&out), vec![0, -1, -1, -1, 1, 0, 20, 7_255_000, 9294, 0x3f80_0000]);
    let fv = f32s(&f);
    assert_eq!(&fv[..4], &[1.0, 30.0, 5.0, 5.0]);
    assert_eq!(&fv[8..], &[5.0, 6.0, 7.0, 8.0]);
}

#[test]
fn pointers_private_arrays_structs_and_helpers() {
    let src = r#"
    typedef struct { int a; float b; int c[3]; } Rec;
    void bump(__private int *p, int by) { *p += by; }
    int sum3(const int *x) { return x[0] + x[1] + x[2]; }
    int first_negative(__global const int *v, int n) {
        for (int i = 0; i < n; i++) if (v[i] < 0) return i;
        return -1;
    }
    __kernel void k(__global int *out, __global const int *data, __local int *loc) {
        int g = get_global_id(0);
        int arr[5];
        for (int i = 0; i < 5; i++) arr[i] = i * g;
        int *p = &arr[1];
        p += 2;
        bump(p, 100);
        Rec r;
        r.a = g; r.b = 0.5f; r.c[0] = 1; r.c[1] = 2; r.c[2] = g;
        Rec copy = r;
        copy.c[2] += 10;
        loc[g] = g * 2;
        __local int *lp = loc + g;
        barrier(CLK_LOCAL_MEM_FENCE);
        out[g] = arr[3] + sum3(copy.c) * 1000 + *lp * 100000 + (int)(p - arr) * 10000000
                 + first_negative(data + g, 8 - g) * 1000000000 * 0;
        if (g == 0) out[4] = first_negative(data, 8);
    }"#;
    let out = buf_i32("out", &[0; 5]);
    let data = buf_i32("data", &[3, 1, 4, -1, 5, -9, 2, 6]);
    let run = run(
        src,
        "k",
        &[4],
        &[4],
        &[ArgValue::Buffer(out.clone()), ArgValue::Buffer(data), ArgValue::Local(16)],
    );
    assert!(run.reports.is_empty(), "{:?}", run.reports);
    let v = i32s(&out);
    for g in 0..4 {
        let expected = (3 * g + 100) + (1 + 2 + g + 10) * 1000 + (2 * g) * 100_000 + 3 * 10_000_000;
        assert_eq!(v[g as usize], expected, "g = {g}");
    }
    assert_eq!(v[4], 3);
}

/// Members of struct values that are not variables: a call's result, a conditional's, and
/// through an anonymous union (generated complex-number code reads `mul(a, b).re`).
#[test]
fn members_of_struct_values_that_are_not_places() {
    let src = r#"
    typedef union { struct { float x, y; }; struct { float re, im; }; } cf;
    typedef struct { int n; cf c; } Pair;
    cf make(float re, float im) { cf r; r.re = re; r.im = im; return r; }
    cf mul(cf a, cf b) { return make(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re); }
    Pair pair(int n) { Pair p; p.n = n; p.c = make((float)n, 1.0f); return p; }
    __kernel void k(__global float *out, __global const float *in) {
        int g = get_global_id(0);
        cf a = make(in[2 * g], in[2 * g + 1]);
        out[4 * g] = mul(a, a).re;
        out[4 * g + 1] = mul(a, make(0.0f, 1.0f)).y;
        out[4 * g + 2] = pair(g).c.re + (float)pair(g + 1).n;
        out[4 * g + 3] = (g % 2 ? make(1.0f, 2.0f) : a).im;
    }"#;
    let input = [1.0f32, 2.0, 3.0, -1.0];
    let out = buf_f32("out", &[0.0; 8]);
    let run = run(
        src,
        "k",
        &[2],
        &[2],
        &[ArgValue::Buffer(out.clone()), ArgValue::Buffer(buf_f32("in", &input))],
    );
    assert!(run.reports.is_empty(), "{:?}", run.reports);
    // (1 + 2i)^2 = -3 + 4i, (1 + 2i)i = -2 + i; (3 - i)^2 = 8 - 6i, (3 - i)i = 1 + 3i.
    assert_eq!(f32s(&out), [-3.0, 1.0, 1.0, 2.0, 8.0, 3.0, 3.0, 2.0]);
}

/// Compound literals as values: returned, assigned with designators, read by member.
#[test]
fn compound_literals_build_struct_values() {
    let src = r#"
    typedef struct { float2 v; int id; } MV;
    typedef struct { float x, y; } P;
    P mk(float a) { return (P){ a, a * 2.0f }; }
    __kernel void k(__global float *o) {
        MV invalid = (MV){ (float2)(-1.0f, -1.0f), -1 };
        P p = mk(o[1]);
        o[2] = p.y;
        p = (P){ .y = 5.0f };
        o[0] = invalid.v.y + invalid.id + p.x + p.y + (P){ 3.0f, 4.0f }.y + (int){ 7 } + mk(1.0f).y;
    }"#;
    let out = buf_f32("o", &[0.0, 1.5, 0.0]);
    let run = run(src, "k", &[1], &[1], &[ArgValue::Buffer(out.clone())]);
    assert!(run.reports.is_empty(), "{:?}", run.reports);
    // -1 - 1 + 0 + 5 + 4 + 7 + 2 = 16; mk(1.5).y = 3.
    assert_eq!(f32s(&out), [16.0, 1.5, 3.0]);
}

#[test]
fn atomics_build_a_histogram() {
    let src = r#"
    __kernel void hist(__global const uint *data, __global uint *bins, __global long *total) {
        __local uint local_bins[4];
        int l = get_local_id(0);
        if (l < 4) local_bins[l] = 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        uint v = data[get_global_id(0)];
        atomic_inc(&local_bins[v % 4]);
        barrier(CLK_LOCAL_MEM_FENCE);
        if (l < 4) atomic_add(&bins[l], local_bins[l]);
        atom_add(total, (long)v << 32);
        atomic_max(&bins[4], v);
        atomic_min(&bins[5], v);
        if (l == 0) atomic_cmpxchg(&bins[6], 0u, 42u);
        atomic_xchg(&bins[7], 7u);
    }"#;
    let data: Vec<i32> = (0..128).map(|i| (i * 37 % 101) as i32).collect();
    let bins = buf_i32("bins", &[0, 0, 0, 0, 0, i32::MAX, 0, 0]);
    let total = clmap_sim::SharedBuffer::from_bytes("total", &[0u8; 8]);
    for threads in [1, 2] {
        let bins = buf_i32("bins", &[0, 0, 0, 0, 0, i32::MAX, 0, 0]);
        let total = clmap_sim::SharedBuffer::from_bytes("total", &[0u8; 8]);
        let options = clmap_sim::SimOptions { threads, check_races: true, ..Default::default() };
        let run = run_with(
            src,
            "hist",
            &[128],
            &[32],
            &[
                ArgValue::Buffer(buf_i32("data", &data)),
                ArgValue::Buffer(bins.clone()),
                ArgValue::Buffer(total.clone()),
            ],
            &options,
        );
        assert!(run.reports.is_empty(), "{:?}", run.reports);
        let mut expected = vec![0i32; 4];
        for v in &data {
            expected[(v % 4) as usize] += 1;
        }
        let got = i32s(&bins);
        assert_eq!(&got[..4], &expected[..]);
        assert_eq!(got[4], *data.iter().max().unwrap_or(&0));
        assert_eq!(got[5], *data.iter().min().unwrap_or(&0));
        assert_eq!(got[6], 42);
        assert_eq!(got[7], 7);
        let t = i64::from_le_bytes(total.to_bytes().try_into().unwrap_or([0; 8]));
        assert_eq!(t, data.iter().map(|v| i64::from(*v) << 32).sum::<i64>());
    }
    let _ = (bins, total);
}

#[test]
fn async_copy_and_wait() {
    let src = r#"
    __kernel void k(__global const float *in, __global float *out) {
        __local float tile[16];
        event_t e = async_work_group_copy(tile, in + get_group_id(0) * 16, 16, 0);
        wait_group_events(1, &e);
        int l = get_local_id(0);
        out[get_global_id(0)] = tile[15 - l];
    }"#;
    let input: Vec<f32> = (0..32).map(|i| i as f32).collect();
    let out = buf_f32("out", &[0.0; 32]);
    let options = clmap_sim::SimOptions {
        threads: 1,
        check_races: true,
        check_uninitialised: true,
        ..Default::default()
    };
    let run = run_with(
        src,
        "k",
        &[32],
        &[16],
        &[ArgValue::Buffer(buf_f32("in", &input)), ArgValue::Buffer(out.clone())],
        &options,
    );
    assert!(run.reports.is_empty(), "{:?}", run.reports);
    let expected: Vec<f32> = (0..32).map(|i| ((i / 16) * 16 + 15 - i % 16) as f32).collect();
    assert_eq!(f32s(&out), expected);
}

#[test]
fn printf_formats_and_orders_output() {
    let src = r#"
    __kernel void k(__global const float *in) {
        int g = get_global_id(0);
        if (g % 2 == 1) printf("%d:%5.2f|%s|%c|%x|%v2d\n", g, in[g], "ok", 'A' + g, 255 + g, (int2)(g, -g));
    }"#;
    let input: Vec<f32> = (0..8).map(|i| i as f32 * 1.5).collect();
    let run = run(src, "k", &[8], &[4], &[ArgValue::Buffer(buf_f32("in", &input))]);
    assert_eq!(
        run.printf,
        vec![
            "1: 1.50|ok|B|100|1,-1\n",
            "3: 4.50|ok|D|102|3,-3\n",
            "5: 7.50|ok|F|104|5,-5\n",
            "7:10.50|ok|H|106|7,-7\n"
        ]
    );
}

#[test]
fn math_builtins_agree_with_double_references() {
    let src = r#"
    __kernel void k(__global const float *x, __global float *out) {
        int i = get_global_id(0);
        float v = x[i];
        int n = 14;
        out[i * n + 0] = sin(v);
        out[i * n + 1] = exp(v);
        out[i * n + 2] = log(fabs(v) + 1.0f);
        out[i * n + 3] = sqrt(fabs(v));
        out[i * n + 4] = pow(fabs(v), 1.5f);
        out[i * n + 5] = atan2(v, 2.0f);
        out[i * n + 6] = erf(v);
        out[i * n + 7] = tgamma(fabs(v) + 0.5f);
        out[i * n + 8] = fma(v, v, 1.0f);
        out[i * n + 9] = clamp(v, -1.0f, 1.0f);
        out[i * n + 10] = hypot(v, 3.0f);
        out[i * n + 11] = cbrt(v);
        out[i * n + 12] = rsqrt(fabs(v) + 1.0f);
        out[i * n + 13] = floor(v) + fmod(v, 0.75f);
    }"#;
    let xs: Vec<f32> = (0..16).map(|i| (i as f32 - 7.5) * 0.37).collect();
    let out = buf_f32("out", &vec![0.0; 16 * 14]);
    run(
        src,
        "k",
        &[16],
        &[16],
        &[ArgValue::Buffer(buf_f32("x", &xs)), ArgValue::Buffer(out.clone())],
    );
    let got = f32s(&out);
    let ulp = |a: f32, b: f64| {
        let b32 = b as f32;
        if a == b32 {
            return 0.0;
        }
        let spacing = (f32::from_bits(b32.abs().to_bits() + 1) - b32.abs()) as f64;
        ((a as f64) - b).abs() / spacing
    };
    for (i, &x) in xs.iter().enumerate() {
        let v = f64::from(x);
        let refs = [
            v.sin(),
            v.exp(),
            (v.abs() + 1.0).ln(),
            v.abs().sqrt(),
            v.abs().powf(1.5),
            v.atan2(2.0),
            f64::NAN,
            f64::NAN,
            (v * v + 1.0),
            v.clamp(-1.0, 1.0),
            v.hypot(3.0),
            v.cbrt(),
            1.0 / (v.abs() + 1.0).sqrt(),
            v.floor() + v % 0.75,
        ];
        for (j, r) in refs.iter().enumerate() {
            if r.is_nan() {
                continue;
            }
            let a = got[i * 14 + j];
            assert!(ulp(a, *r) <= 4.0, "function {j} at {x}: {a} vs {r}");
        }
    }
    // erf(-0.185) from its Taylor series.
    assert!((got[7 * 14 + 6] - (-0.206_392_9f32)).abs() < 1e-6, "{}", got[7 * 14 + 6]);
}

#[test]
fn half_and_double_values() {
    let src = r#"
    #pragma OPENCL EXTENSION cl_khr_fp16 : enable
    #pragma OPENCL EXTENSION cl_khr_fp64 : enable
    __kernel void k(__global half *h, __global float *f, __global double *d) {
        float x = vload_half(0, h);
        vstore_half(x * 3.0f + 0.1f, 1, h);
        half a = h[2];
        half b = a * a + (half)1.0f;
        h[3] = b;
        float4 v = vload_half4(1, h);
        f[0] = v.x;
        d[0] = (double)x / 3.0 + sqrt(2.0);
        f[1] = (float)(d[0]);
    }"#;
    // 1.5 and 2049 (not representable: rounds to 2048 when stored as half).
    let halves: [u16; 8] = [0x3e00, 0, 0x4100, 0, 0x3c00, 0, 0, 0];
    let hb = clmap_sim::SharedBuffer::from_bytes(
        "h",
        &halves.iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<u8>>(),
    );
    let fb = buf_f32("f", &[0.0; 2]);
    let db = clmap_sim::SharedBuffer::from_bytes("d", &[0u8; 8]);
    let run = run(
        src,
        "k",
        &[1],
        &[1],
        &[ArgValue::Buffer(hb.clone()), ArgValue::Buffer(fb.clone()), ArgValue::Buffer(db.clone())],
    );
    assert!(run.reports.is_empty(), "{:?}", run.reports);
    let h: Vec<u16> = hb.to_bytes().chunks(2).map(|c| u16::from_le_bytes([c[0], c[1]])).collect();
    // 1.5 * 3 + 0.1 = 4.6 -> nearest half 4.6015625 (0x449a).
    assert_eq!(h[1], 0x449a);
    // a = 2.5: 2.5 * 2.5 + 1 = 7.25 (0x4740).
    assert_eq!(h[3], 0x4740);
    assert_eq!(f32s(&fb)[0], 1.0);
    let d = f64::from_le_bytes(db.to_bytes().try_into().unwrap_or([0; 8]));
    assert_eq!(d, 1.5f64 / 3.0 + 2f64.sqrt());
    assert_eq!(f32s(&fb)[1], d as f32);
}

/// `vstore_half_rtz`, `_rtp` and `_rtn` round in their own mode (they used to round to
/// nearest like `vstore_half`), overflow included: toward zero stops at 65504.
#[test]
fn half_stores_round_in_the_mode_they_name() {
    let src = r#"
    __kernel void k(__global half *h, __global const float *in) {
        int i = get_global_id(0);
        float x = in[i];
        vstore_half(x, 4 * i, h);
        vstore_half_rtz(x, 4 * i + 1, h);
        vstore_half_rtp(x, 4 * i + 2, h);
        vstore_half_rtn(x, 4 * i + 3, h);
    }"#;
    let inputs = [0.499_999_97f32, -0.499_999_97, 65535.5, 1e-10, 2.0];
    let hb = clmap_sim::SharedBuffer::from_bytes("h", &[0u8; 40]);
    let run = run(
        src,
        "k",
        &[5],
        &[5],
        &[ArgValue::Buffer(hb.clone()), ArgValue::Buffer(buf_f32("in", &inputs))],
    );
    assert!(run.reports.is_empty(), "{:?}", run.reports);
    let h: Vec<u16> = hb.to_bytes().chunks(2).map(|c| u16::from_le_bytes([c[0], c[1]])).collect();
    // Per input: nearest, toward zero, toward +inf, toward -inf.
    assert_eq!(
        h,
        vec![
            0x3800, 0x37ff, 0x3800, 0x37ff, // 0.5 and 0.49975586
            0xb800, 0xb7ff, 0xb7ff, 0xb800, // their negatives
            0x7c00, 0x7bff, 0x7c00, 0x7bff, // infinity and 65504
            0x0000, 0x0000, 0x0001, 0x0000, // zero and the smallest subnormal
            0x4000, 0x4000, 0x4000, 0x4000, // exact
        ]
    );
}

/// `fract` of an infinity is a zero of its sign and `fract` of NaN is NaN, as OpenCL
/// specifies (both used to give the largest float below 1), and a zero keeps its sign.
#[test]
fn fract_of_infinities_and_nan() {
    let src = r#"
    __kernel void k(__global float *out, __global const float *in) {
        float whole;
        out[0] = fract(in[0], &whole);
        out[1] = whole;
        out[2] = fract(-in[0], &whole);
        out[3] = fract(in[1], &whole);
        out[4] = fract(-in[2], &whole);
    }"#;
    let out = buf_f32("out", &[0.0; 5]);
    let inputs = [f32::INFINITY, f32::NAN, 0.0];
    let args = [ArgValue::Buffer(out.clone()), ArgValue::Buffer(buf_f32("in", &inputs))];
    let run = run(src, "k", &[1], &[1], &args);
    assert!(run.reports.is_empty(), "{:?}", run.reports);
    let v = f32s(&out);
    assert_eq!(v[0].to_bits(), 0.0f32.to_bits());
    assert_eq!(v[1], f32::INFINITY);
    assert_eq!(v[2].to_bits(), (-0.0f32).to_bits());
    assert!(v[3].is_nan());
    assert_eq!(v[4].to_bits(), (-0.0f32).to_bits());
}

/// `remquo` and `remainder` are exact for any ratio (a quotient beyond 2^63 used to overflow
/// and abort the run), with the quotient's sign and low seven bits.
#[test]
fn remquo_and_remainder_for_huge_ratios() {
    let src = r#"
    __kernel void k(__global float *out, __global int *quo, __global const float *in) {
        out[0] = remquo(in[0], 7.0f, quo);
        out[1] = remainder(in[1], in[2]);
        out[2] = remquo(-7.0f, 2.0f, quo + 1);
    }"#;
    let out = buf_f32("out", &[0.0; 3]);
    let quo = buf_i32("quo", &[0; 2]);
    let inputs = [-3.0e38f32, f32::MAX, 1e-45];
    let args = [
        ArgValue::Buffer(out.clone()),
        ArgValue::Buffer(quo.clone()),
        ArgValue::Buffer(buf_f32("in", &inputs)),
    ];
    let run = run(src, "k", &[1], &[1], &args);
    assert!(run.reports.is_empty(), "{:?}", run.reports);
    // -3e38 as a float is -(7 k + 1), k = 73 modulo 128; FLT_MAX is a multiple of 1e-45f;
    // -3.5 rounds to the even -4.
    assert_eq!(f32s(&out), vec![-1.0, 0.0, 1.0]);
    assert_eq!(i32s(&quo), vec![-73, -4]);
}

#[test]
fn explicit_rounding_modes_of_conversions_to_float() {
    // 16777217 = 2^24 + 1 is a tie between the floats 2^24 and 2^24 + 2; 1/3 as a double lies
    // strictly between two floats.
    let src = r#"
    #pragma OPENCL EXTENSION cl_khr_fp64 : enable
    __kernel void k(__global float *out, __global int *ints, int big) {
        out[0] = convert_float(big);
        out[1] = convert_float_rte(big);
        out[2] = convert_float_rtz(big);
        out[3] = convert_float_rtp(big);
        out[4] = convert_float_rtn(big);
        out[5] = convert_float_rtz(-big);
        out[6] = convert_float_rtn(-big);
        double third = 1.0 / 3.0;
        out[7] = convert_float_rtn(third);
        out[8] = convert_float_rtp(third);
        out[9] = convert_float_rtz(1e300);
        float2 pair = convert_float2_rtp((int2)(big, 3));
        out[10] = pair.x;
        out[11] = pair.y;
        ints[0] = convert_int_sat_rtp(2.5f);
        ints[1] = convert_int_sat_rtn(-2.5f);
        ints[2] = convert_int_sat_rte(3.0e10f);
        ints[3] = convert_uchar_sat_rtz(300.7f);
    }"#;
    let out = buf_f32("out", &[0.0; 12]);
    let ints = buf_i32("ints", &[0; 4]);
    let run = run(
        src,
        "k",
        &[1],
        &[1],
        &[ArgValue::Buffer(out.clone()), ArgValue::Buffer(ints.clone()), int(16_777_217)],
    );
    assert!(run.reports.is_empty(), "{:#?}", run.reports);
    let (below, above) = (16_777_216.0f32, 16_777_218.0f32);
    let third_down = 0.333_333_3_f32;
    let third_up = third_down.next_up();
    assert!(f64::from(third_down) < 1.0 / 3.0 && f64::from(third_up) > 1.0 / 3.0);
    assert_eq!(
        f32s(&out),
        vec![
            below,
            below,
            below,
            above,
            below,
            -below,
            -above,
            third_down,
            third_up,
            f32::MAX,
            above,
            3.0
        ]
    );
    assert_eq!(i32s(&ints), vec![3, -3, i32::MAX, 255]);
}

/// A single work-group of independent work-items runs in pieces on several threads: the
/// outputs, and the work-item an out-of-bounds report names, are those of one thread.
#[test]
fn one_group_of_independent_work_items_runs_the_same_on_several_threads() {
    let src = r#"
    __kernel void tri(__global float *out, __global const float *in, int n) {
        int i = get_global_id(0);
        float sum = 0.0f;
        for (int j = i; j < n; j++)
            sum += in[j] * (float)(get_local_id(0) + 1);
        out[i] = sum;
        if (i >= 200)
            out[i + 300] = sum;
    }"#;
    let input: Vec<f32> = (0..256).map(|i| (i % 13) as f32 * 0.5).collect();
    let mut results = Vec::new();
    for threads in [1, 2, 8] {
        let out = buf_f32("out", &[0.0; 256]);
        let options = clmap_sim::SimOptions { threads, ..Default::default() };
        let run = run_with(
            src,
            "tri",
            &[256],
            &[256],
            &[ArgValue::Buffer(out.clone()), ArgValue::Buffer(buf_f32("in", &input)), int(256)],
            &options,
        );
        assert_eq!(run.reports.len(), 1, "{:?}", run.reports);
        let report = &run.reports[0];
        assert_eq!(
            (report.global_id, report.local_id, report.lane),
            ([200, 0, 0], [200, 0, 0], 200)
        );
        assert_eq!(report.occurrences, 56);
        results.push(f32s(&out));
    }
    let expected: Vec<f32> =
        (0..256).map(|i| (i..256).map(|j| input[j] * (i + 1) as f32).sum::<f32>()).collect();
    for got in &results {
        assert_eq!(got, &expected);
    }
}
