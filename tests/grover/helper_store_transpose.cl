// A transpose tile staged through a helper: the kernel hands the local tile, the
// global matrix and the row and column to `stage`, which makes the store. Each
// work-item of a 16 x 8 group calls it twice (top and bottom half of the tile);
// the two calls are two stores that must agree.

#define T 16
#define HALF 8

void stage(__local float *tile, const __global float *in, int row, int col, int width,
           int origin)
{
    tile[row * (T + 1) + col] = in[origin + row * width + col];
}

__kernel void helper_store_transpose(const __global float *in, __global float *out,
                                     int width, int height)
{
    __local float tile[T * (T + 1)];
    const int lx = get_local_id(0);
    const int ly = get_local_id(1);
    const int bx = get_group_id(0) * T;
    const int by = get_group_id(1) * T;

    stage(tile, in, ly, lx, width, by * width + bx);
    stage(tile, in, ly + HALF, lx, width, by * width + bx);
    barrier(CLK_LOCAL_MEM_FENCE);

    out[(bx + ly) * height + by + lx] = tile[lx * (T + 1) + ly];
    out[(bx + ly + HALF) * height + by + lx] = tile[lx * (T + 1) + ly + HALF];
}
