// Work-item 0 sets a counter without an atomic operation, then work-items of its group
// update it atomically: `mode` picks how.
__kernel void bump(__global int *counter, int mode)
{
    int l = get_local_id(0);
    if (l == 0)
        counter[0] = 5;
    if (mode == 1)
        barrier(CLK_GLOBAL_MEM_FENCE);
    if (mode < 2) {
        // Every work-item adds, work-item 0 too: its plain store, not its atomic, is what
        // the others race with (unless a barrier orders them).
        atomic_add(counter, 2);
    } else if (l == 1) {
        // Succeeds, and stores `mode`: a write-write race unless that is the value
        // work-item 0 stored.
        atomic_cmpxchg(counter, 5, mode);
    }
}
