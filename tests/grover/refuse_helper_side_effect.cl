// Near miss of helper_store_value: the helper also counts its calls in global
// memory. Deleting the call with the staging store would lose that write, so
// the tile must stay, and the refusal says why.

void put(__local float *tile, __global int *calls, uint slot, float value)
{
    tile[slot] = value * 2.0f;
    calls[slot] = 1;
}

__kernel void refuse_helper_side_effect(const __global float *in, __global float *out,
                                        __global int *calls)
{
    __local float tile[64];
    const uint lid = get_local_id(0);
    const uint gid = get_global_id(0);

    put(tile, calls, lid, in[gid]);
    barrier(CLK_LOCAL_MEM_FENCE);

    out[gid] = tile[63 - lid] - tile[lid];
}
