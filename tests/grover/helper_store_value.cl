// The store made by a helper that receives the local buffer, the slot and the
// loaded value: `put(tile, lid, in[gid])` stores `2 * value` at `tile[slot]`.
// The tile is read back in reverse within the work-group.

void put(__local float *tile, uint slot, float value)
{
    const float scaled = value * 2.0f;
    tile[slot] = scaled;
}

__kernel void helper_store_value(const __global float *in, __global float *out)
{
    __local float tile[64];
    const uint lid = get_local_id(0);
    const uint gid = get_global_id(0);

    put(tile, lid, in[gid]);
    barrier(CLK_LOCAL_MEM_FENCE);

    out[gid] = tile[63 - lid] - tile[lid];
}
