// Front-end coverage: async_work_group_copy (global to local and back),
// async_work_group_strided_copy, wait_group_events, event_t values.
// Pattern: local staging done by the copy engine instead of by work-items.

__kernel void lang_async_copy(__global const float *in,
                              __global const float *pairs,
                              __global float *out,
                              __local float *tile,
                              __local float *odd)
{
    const size_t lid = get_local_id(0);
    const size_t n = get_local_size(0);
    const size_t base = get_group_id(0) * n;

    event_t copies[2];
    copies[0] = async_work_group_copy(tile, in + base, n, 0);
    // Every second element of this group's 2n pairs, starting at the odd one.
    copies[1] = async_work_group_strided_copy(odd, pairs + 2 * base + 1, n, 2, 0);
    wait_group_events(2, copies);

    const float v = tile[lid] + tile[(lid + 1) % n] * odd[lid];
    barrier(CLK_LOCAL_MEM_FENCE);
    tile[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);

    event_t back = async_work_group_copy(out + base, tile, n, 0);
    wait_group_events(1, &back);
}
