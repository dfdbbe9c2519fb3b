// Near miss of tile_two_pass: the second pass reads one element further on
// (in[g + 17]), so element l + 16 does not hold what the first store's
// correspondence gives for it (in[base + l + 16]). The stores disagree and the
// tile must stay.

__kernel void refuse_two_pass_disagree(const __global float *in, __global float *out)
{
    __local float tile[32];
    const uint l = get_local_id(0);
    const uint base = get_group_id(0) * 32;
    const uint g = base + l;

    tile[l] = in[g];
    tile[l + 16] = in[g + 17];
    barrier(CLK_LOCAL_MEM_FENCE);

    out[g] = tile[31 - l];
    out[g + 16] = tile[15 - l];
}
