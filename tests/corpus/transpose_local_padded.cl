// Matrix transpose staged through a local tile padded by one column.
// Pattern: NVIDIA oclTranspose (seed 000, NVD-MT, Figure 1(a)): the tile is
// written row-wise (lx, ly) and read column-wise (ly, lx); the +1 padding keeps
// the column reads off a single bank. Grover removes the tile (GL -> LS, LL).

#ifndef BLOCK_DIM
#define BLOCK_DIM 16
#endif

__kernel void transpose_local_padded(__global float *out,
                                     const __global float *in,
                                     const uint width,
                                     const uint height,
                                     __local float *block)
{
    uint x = get_global_id(0);
    uint y = get_global_id(1);
    const uint lx = get_local_id(0);
    const uint ly = get_local_id(1);

    if (x < width && y < height)
        block[ly * (BLOCK_DIM + 1) + lx] = in[y * width + x];

    barrier(CLK_LOCAL_MEM_FENCE);

    // The work-group writes the mirrored tile, so swap the group coordinates.
    x = get_group_id(1) * BLOCK_DIM + lx;
    y = get_group_id(0) * BLOCK_DIM + ly;
    if (x < height && y < width)
        out[y * height + x] = block[lx * (BLOCK_DIM + 1) + ly];
}
