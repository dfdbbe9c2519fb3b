// A 16 x 16 transpose tile staged by 16 x 8 work-groups: every work-item stores
// two elements, one in the top half of the tile (`ly`) and one in the bottom
// half (`ly + 8`), with two stores from two global rows. Both stores agree with
// one correspondence, which the transposed loads are solved against.

#define T 16
#define HALF 8

__kernel void transpose_two_halves(const __global float *in, __global float *out,
                                   int width, int height)
{
    __local float tile[T][T + 1];
    const int lx = get_local_id(0);
    const int ly = get_local_id(1);
    const int bx = get_group_id(0) * T;
    const int by = get_group_id(1) * T;

    tile[ly][lx] = in[(by + ly) * width + bx + lx];
    tile[ly + HALF][lx] = in[(by + ly + HALF) * width + bx + lx];
    barrier(CLK_LOCAL_MEM_FENCE);

    out[(bx + ly) * height + by + lx] = tile[lx][ly];
    out[(bx + ly + HALF) * height + by + lx] = tile[lx][ly + HALF];
}
