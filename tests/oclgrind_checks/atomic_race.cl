// A counter updated atomically, and touched without an atomic operation by other work-items
// of the same launch: `mode` picks how (a barrier that fences only local memory orders no
// global accesses; a failed compare-and-exchange still reads).
__kernel void count(__global int *counter, __global int *seen, int mode)
{
    int l = get_local_id(0);
    int g = get_group_id(0);
    if (mode == 0) {
        // A plain load before the atomics, in the same work-group.
        if (l == 0)
            seen[0] = counter[0];
        atomic_inc(counter);
    } else if (mode == 1) {
        // A plain load after the atomics, in the same work-group.
        atomic_inc(counter);
        if (l == 0)
            seen[0] = counter[0];
    } else if (mode == 2) {
        // Atomics in one work-group, a plain load in another.
        if (g == 0)
            atomic_inc(counter);
        else
            seen[0] = counter[0];
    } else if (mode == 3) {
        // A barrier that orders local memory only.
        atomic_inc(counter);
        barrier(CLK_LOCAL_MEM_FENCE);
        if (l == 0)
            seen[0] = counter[0];
    } else if (mode == 4) {
        // Work-item 0 takes the lock; work-item 1's compare-and-exchange fails (it only
        // read), then it stores.
        if (l == 0)
            atomic_cmpxchg(counter, 0, 1);
        barrier(CLK_GLOBAL_MEM_FENCE);
        if (atomic_cmpxchg(counter, 0, 2) != 0 && l == 1)
            counter[0] = 0;
    } else if (mode == 5) {
        // Clean: atomics only, then a barrier that orders global memory.
        atomic_inc(counter);
        barrier(CLK_GLOBAL_MEM_FENCE);
        if (l == 0)
            seen[0] = counter[0];
    } else {
        // Clean: failed compare-and-exchanges and plain loads only read.
        seen[l] = atomic_cmpxchg(counter, 7, 1) + counter[0];
    }
}
