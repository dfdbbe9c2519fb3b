// Async copies as Oclgrind performs them: when the group waits for them, storing the
// values they copy. `mode` picks the case.
__kernel void stage(__global const int *in, __global int *out, int mode)
{
    __local int tile[4];
    int l = get_local_id(0);
    if (mode < 2) {
        // The copy stores over the work-items' stores: a race where the values differ
        // (odd work-items stored what the copy stores), none once a barrier orders them.
        tile[l] = (l % 2) ? 7 : l;
        out[l] = 7;
        if (mode == 0)
            barrier(CLK_LOCAL_MEM_FENCE);
        else
            barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
        event_t e = async_work_group_copy(out, tile, 4, 0);
        wait_group_events(1, &e);
    } else if (mode == 2) {
        // Issued before a barrier, waited for after it: the copy races with the stores
        // between the barrier and the wait.
        event_t e = async_work_group_copy(tile, in, 4, 0);
        barrier(CLK_LOCAL_MEM_FENCE);
        tile[l] = -l;
        wait_group_events(1, &e);
        out[l] = l;
    } else {
        // A copy never waited for: Oclgrind never performs it, so it races with nothing
        // (the work-group is reported for not waiting).
        tile[l] = 2 * l;
        barrier(CLK_LOCAL_MEM_FENCE);
        event_t e = async_work_group_copy(out, tile, 4, 0);
        out[l] = 1;
    }
}
