// The transpose of examples/transpose.cl with its barrier forgotten: each work-item reads a
// tile element another work-item writes, with nothing ordering the two. On a GPU this reads
// stale values now and then; `clmap run --races` names the line and the work-items.
#ifndef TILE
#define TILE 16
#endif

__kernel void transpose(__global float *out, __global const float *in,
                        uint width, uint height, __local float *tile)
{
    uint gx = get_global_id(0), gy = get_global_id(1);
    uint lx = get_local_id(0), ly = get_local_id(1);
    tile[ly * (TILE + 1) + lx] = in[gy * width + gx];
    uint ox = get_group_id(1) * TILE + lx;
    uint oy = get_group_id(0) * TILE + ly;
    out[oy * height + ox] = tile[lx * (TILE + 1) + ly];
}
