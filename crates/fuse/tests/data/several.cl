// Kernels for fusion tests: ping-pong stencils whose two buffers start from different data
// (so a fused run that confuses them at the never-written border is caught), kernels that
// write two buffers, and a two-kernel chain repeated by a host loop.

// 5-point smoothing of the interior; the border ring is never written.
__kernel void smooth2d(__global const float *in, __global float *out, int cols, int rows)
{
    const int x = get_global_id(0);
    const int y = get_global_id(1);
    if (x > 0 && x < cols - 1 && y > 0 && y < rows - 1) {
        const int c = y * cols + x;
        out[c] = 0.25f * in[c] + 0.1875f * (in[c - cols] + in[c + cols] + in[c - 1] + in[c + 1]);
    }
}

// A 3-point step that also keeps the value it started from (a history buffer).
__kernel void step_and_keep(__global const int *in, __global int *out, __global int *prev, int n)
{
    const int i = get_global_id(0);
    prev[i] = in[i];
    if (i > 0 && i < n - 1)
        out[i] = (in[i - 1] + 2 * in[i] + in[i + 1]) / 4 + 1;
}

// FDTD-like: one kernel updates two fields from a third, the next reads both with a halo.
__kernel void split(__global const float *src, __global float *u, __global float *v, int n)
{
    const int i = get_global_id(0);
    u[i] = 2.0f * src[i];
    if (i < n - 1)
        v[i] = src[i + 1] - src[i];
}

__kernel void combine(__global const float *u, __global const float *v, __global float *dst, int n)
{
    const int i = get_global_id(0);
    if (i > 0 && i < n - 1)
        dst[i] = u[i - 1] + u[i + 1] - v[i - 1] + 0.5f * v[i];
}

// A producer -> consumer pair whose result the host loop feeds back as the next input.
__kernel void scale(__global const int *in, __global int *tmp)
{
    const int i = get_global_id(0);
    tmp[i] = 3 * in[i] + 1;
}

__kernel void blur(__global const int *tmp, __global int *out, int n)
{
    const int i = get_global_id(0);
    if (i > 0 && i < n - 1)
        out[i] = (tmp[i - 1] + tmp[i] + tmp[i + 1]) % 1000;
}
