// Two halves of a tile staged by two copies. With `own` = 0 every work-item waits for both
// events, the first named twice; with `own` = 1 each waits only for its own half's, so the
// second half of the group waits for another event than the first work-item, and the copy
// of the second half is never made: that half keeps the -1 the work-items wrote.
__kernel void halves(__global const int *in, __global int *out, int own)
{
    __local int tile[8];
    int l = get_local_id(0);
    tile[l] = -1;
    barrier(CLK_LOCAL_MEM_FENCE);
    event_t ev[3];
    ev[0] = async_work_group_copy(tile, in, 4, 0);
    ev[1] = async_work_group_copy(tile + 4, in + 4, 4, 0);
    ev[2] = ev[0];
    if (own)
        wait_group_events(1, ev + l / 4);
    else
        wait_group_events(3, ev);
    out[l] = tile[l] * 10;
}
