//! Small kernels every candidate pass is tried on before it joins the pool. Together they hold
//! what PolyBench-style kernels contain: loop nests, local memory with barriers, helper
//! functions, divergent branches, integer and float arithmetic and libclc built-ins.

/// A probe kernel: its source and the kernel name that must survive in the PTX.
pub(crate) struct ProbeKernel {
    pub name: &'static str,
    pub source: &'static str,
}

pub(crate) const PROBE_KERNELS: [ProbeKernel; 3] = [
    ProbeKernel {
        name: "probe_matmul",
        source: r#"
__kernel void probe_matmul(__global const float *a, __global const float *b,
                           __global float *c, int n, int m) {
    int i = get_global_id(0);
    int j = get_global_id(1);
    if (i >= n || j >= m) return;
    float acc = 0.0f;
    for (int k = 0; k < n; k++) {
        for (int l = 0; l < 2; l++) {
            acc += a[i * n + k] * b[(k + l) % n * m + j];
        }
    }
    c[i * m + j] = sqrt(fabs(acc)) + exp(acc * 0.001f);
}
"#,
    },
    ProbeKernel {
        name: "probe_stencil",
        source: r#"
#define TILE 16
__kernel void probe_stencil(__global const float *in, __global float *out, int width,
                            __local float *scratch) {
    __local float tile[TILE + 2];
    int gid = get_global_id(0);
    int lid = get_local_id(0);
    tile[lid + 1] = in[gid];
    if (lid == 0) tile[0] = gid > 0 ? in[gid - 1] : 0.0f;
    if (lid == TILE - 1) tile[TILE + 1] = gid + 1 < width ? in[gid + 1] : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    float sum = 0.0f;
    for (int d = -1; d <= 1; d++) sum += tile[lid + 1 + d] * (d == 0 ? 0.5f : 0.25f);
    scratch[lid] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[gid] = scratch[(lid + 1) % TILE] + sum;
}
"#,
    },
    ProbeKernel {
        name: "probe_histogram",
        source: r#"
static int classify(int value, int bins) {
    int bin = 0;
    while (bin < bins - 1 && value > bin * 16) {
        bin++;
    }
    return bin;
}

__kernel void probe_histogram(__global const int *data, __global int *hist, int n, int bins) {
    int gid = get_global_id(0);
    int stride = get_global_size(0);
    for (int i = gid; i < n; i += stride) {
        int v = data[i];
        if (v < 0) continue;
        if (v > 100000) break;
        switch (v & 3) {
            case 0: v = v * 3 + 1; break;
            case 1: v = v >> 1; break;
            default: v = v ^ 0x55; break;
        }
        atomic_add(&hist[classify(v, bins)], 1);
    }
}
"#,
    },
];
