// Barriers and fences order only the address spaces their flags name. Work-item 0 writes,
// work-item 1 reads after the barrier or fence.

// Global memory behind a barrier that fences local memory only, or global memory.
__kernel void global_data(__global int *buf, __global int *out, int global_fence)
{
    int l = get_local_id(0);
    if (l == 0)
        buf[0] = 42;
    if (global_fence)
        barrier(CLK_GLOBAL_MEM_FENCE);
    else
        barrier(CLK_LOCAL_MEM_FENCE);
    if (l == 1)
        out[0] = buf[0];
}

// Local memory behind a barrier that fences global memory only, or local memory.
__kernel void local_data(__global int *out, int local_fence)
{
    __local int t[2];
    int l = get_local_id(0);
    t[l] = l + 40;
    if (local_fence)
        barrier(CLK_LOCAL_MEM_FENCE);
    else
        barrier(CLK_GLOBAL_MEM_FENCE);
    if (l == 1)
        out[0] = t[0];
}

// A fence orders a work-item's own accesses, not those of others: reading another
// work-item's entry after it is a race, reading one's own is not.
__kernel void fenced(__global int *buf, __global int *out, int other)
{
    int l = get_local_id(0);
    buf[l] = l + 40;
    mem_fence(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
    if (l == 1)
        out[0] = buf[other ? 0 : 1];
}
