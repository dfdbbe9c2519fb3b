// Matrix transpose staged through local memory so that both the read and the write of
// global memory are coalesced. TILE must equal the work-group size in each dimension.
#ifndef TILE
#define TILE 16
#endif

__kernel void transpose(__global float *out, __global const float *in,
                        uint width, uint height, __local float *tile)
{
    uint gx = get_global_id(0), gy = get_global_id(1);
    uint lx = get_local_id(0), ly = get_local_id(1);
    // One padding column avoids bank conflicts on the transposed read.
    tile[ly * (TILE + 1) + lx] = in[gy * width + gx];
    barrier(CLK_LOCAL_MEM_FENCE);
    uint ox = get_group_id(1) * TILE + lx;
    uint oy = get_group_id(0) * TILE + ly;
    out[oy * height + ox] = tile[lx * (TILE + 1) + ly];
}
