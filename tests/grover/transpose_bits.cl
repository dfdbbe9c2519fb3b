// A 16 x 16 transpose tile staged by one-dimensional work-groups of 256: each
// work-item finds its row and column with a shift and a mask of its local id,
// stores with `(row << 4) | col` and reads back the transposed element with
// `(col << 4) | row`. The store is solved in the two parts of the id
// (tid = 16 * (tid >> 4) + (tid & 15)). The required work-group size bounds
// tid below 256, so `row` lies in [0, 16) and `(col << 4) | row` is exactly
// `16 * col + row`.

__kernel __attribute__((reqd_work_group_size(256, 1, 1)))
void transpose_bits(const __global float *in, __global float *out,
                             int width, int height)
{
    __local float tile[256];
    const uint tid = get_local_id(0);
    const uint row = tid >> 4;
    const uint col = tid & 15;
    const uint bx = get_group_id(0) << 4;
    const uint by = get_group_id(1) << 4;

    tile[(row << 4) | col] = in[(by + row) * width + bx + col];
    barrier(CLK_LOCAL_MEM_FENCE);

    out[(bx + row) * height + by + col] = tile[(col << 4) | row];
}
