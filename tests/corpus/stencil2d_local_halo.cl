// 5-point 2D stencil (weighted average of a cell and its four neighbours) on a
// width x height grid with clamped borders. Pattern: a (TILE+2)^2 local tile
// with a one-cell halo; edge work-items of the group load the halo cells.

#ifndef TILE
#define TILE 16
#endif

static float load_clamped(const __global float *grid, int x, int y,
                          int width, int height)
{
    x = clamp(x, 0, width - 1);
    y = clamp(y, 0, height - 1);
    return grid[y * width + x];
}

__kernel void stencil2d_local_halo(__global float *out,
                                   const __global float *in,
                                   const int width,
                                   const int height)
{
    __local float tile[TILE + 2][TILE + 2];
    const int gx = get_global_id(0);
    const int gy = get_global_id(1);
    const int lx = get_local_id(0);
    const int ly = get_local_id(1);

    tile[ly + 1][lx + 1] = load_clamped(in, gx, gy, width, height);
    if (lx == 0)
        tile[ly + 1][0] = load_clamped(in, gx - 1, gy, width, height);
    if (lx == TILE - 1)
        tile[ly + 1][TILE + 1] = load_clamped(in, gx + 1, gy, width, height);
    if (ly == 0)
        tile[0][lx + 1] = load_clamped(in, gx, gy - 1, width, height);
    if (ly == TILE - 1)
        tile[TILE + 1][lx + 1] = load_clamped(in, gx, gy + 1, width, height);
    barrier(CLK_LOCAL_MEM_FENCE);

    const float centre = tile[ly + 1][lx + 1];
    const float around = tile[ly][lx + 1] + tile[ly + 2][lx + 1] +
                         tile[ly + 1][lx] + tile[ly + 1][lx + 2];
    out[gy * width + gx] = 0.5f * centre + 0.125f * around;
}
