// Sum reduction: each work-group sums 2 * get_local_size(0) consecutive
// elements and writes one partial sum per group.
// Pattern: local tree reduction (sequential addressing, halving stride), where
// local memory holds computed values rather than a copy of global data.
// Integers keep the result independent of the summation order.

#ifndef DATA_TYPE
#define DATA_TYPE int
#endif

__kernel void reduce_local_tree(const __global DATA_TYPE *in,
                                __global DATA_TYPE *partial,
                                __local DATA_TYPE *scratch)
{
    const uint lid = get_local_id(0);
    const uint size = get_local_size(0);
    const uint base = get_group_id(0) * size * 2;

    // The first add happens while loading, halving the number of idle lanes.
    scratch[lid] = in[base + lid] + in[base + lid + size];
    barrier(CLK_LOCAL_MEM_FENCE);

    for (uint stride = size / 2; stride > 0; stride >>= 1) {
        if (lid < stride)
            scratch[lid] += scratch[lid + stride];
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    if (lid == 0)
        partial[get_group_id(0)] = scratch[0];
}
