// Kernels whose buffer `in` cannot be staged, each for one reason.

// The index comes from memory: the footprint depends on the data.
__kernel void gather(const __global float *in, const __global int *idx, __global float *out)
{
    const int i = get_global_id(0);
    out[i] = in[idx[i]] + in[i];
}

// The kernel writes the buffer it reads: a tile copied first would be stale.
__kernel void smooth_in_place(__global float *in, __global float *out)
{
    const int i = get_global_id(0);
    const int n = get_global_size(0);
    out[i] = in[i] + in[(i + 1) % n];
    in[i] = 0.0f;
}

// The index squares the work-item id: not affine.
__kernel void squares(const __global float *in, __global float *out)
{
    const int i = get_global_id(0);
    out[i] = in[i * i / 64] + in[i];
}
