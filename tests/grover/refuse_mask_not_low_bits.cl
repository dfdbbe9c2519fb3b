// Near miss of transpose_bits: the column is taken with `tid & 14`, which keeps
// bits 1 to 3 only, so the index is not an exact linear form of the id's parts
// (two work-items store into one element). Grover must refuse it and say why.

__kernel __attribute__((reqd_work_group_size(256, 1, 1)))
void refuse_mask_not_low_bits(const __global float *in, __global float *out,
                                       int width, int height)
{
    __local float tile[256];
    const uint tid = get_local_id(0);
    const uint row = tid >> 4;
    const uint col = tid & 14;
    const uint bx = get_group_id(0) << 4;
    const uint by = get_group_id(1) << 4;

    tile[(row << 4) | col] = in[(by + row) * width + bx + col];
    barrier(CLK_LOCAL_MEM_FENCE);

    out[(bx + row) * height + by + col] = tile[(col << 4) | row];
}
