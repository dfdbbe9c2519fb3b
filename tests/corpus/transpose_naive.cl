// Naive matrix transpose: out = transpose(in), one element per work-item.
// Pattern: the local-memory-free baseline of NVIDIA's oclTranspose (seed 000,
// NVD-MT, Figure 1(b)). Reads are row-contiguous, writes stride by the height.

__kernel void transpose_naive(__global float *out,
                              const __global float *in,
                              const uint width,
                              const uint height)
{
    const uint x = get_global_id(0);
    const uint y = get_global_id(1);
    if (x < width && y < height)
        out[x * height + y] = in[y * width + x];
}
