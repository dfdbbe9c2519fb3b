// A tile loaded in two passes: each of the 16 work-items of a group stores two
// elements, `tile[l]` and `tile[l + 16]`, so the group stages 32 elements. The
// two stores must agree with one correspondence (element e comes from
// in[base + e]); every load is then solved against it.

__kernel void tile_two_pass(const __global float *in, __global float *out)
{
    __local float tile[32];
    const uint l = get_local_id(0);
    const uint base = get_group_id(0) * 32;
    const uint g = base + l;

    tile[l] = in[g];
    tile[l + 16] = in[g + 16];
    barrier(CLK_LOCAL_MEM_FENCE);

    out[g] = tile[31 - l];
    out[g + 16] = tile[15 - l] * 0.5f;
}
