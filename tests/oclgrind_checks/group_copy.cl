// Work-group copies and barriers that every work-item must reach together: `mode` picks a
// copy whose source each work-item offsets by its own id (divergent arguments), a copy from
// `from` (out of bounds past the input's end), a copy of a staged tile back to global memory,
// or two barriers on the two sides of a branch.
__kernel void stage(__global const int *in, __global int *out, int mode, int from)
{
    __local int tile[4];
    int l = get_local_id(0);
    if (mode == 0) {
        event_t e = async_work_group_copy(tile, in + from + l, 2, 0);
        wait_group_events(1, &e);
        out[l] = tile[l];
    } else if (mode == 1) {
        event_t e = async_work_group_copy(tile, in + from, 4, 0);
        wait_group_events(1, &e);
        out[l] = tile[l];
    } else if (mode == 2) {
        tile[l] = in[l] * 2;
        barrier(CLK_LOCAL_MEM_FENCE);
        event_t e = async_work_group_copy(out, tile, 4, 0);
        wait_group_events(1, &e);
    } else {
        if (l < 2) {
            tile[l] = 1;
            barrier(CLK_LOCAL_MEM_FENCE);
        } else {
            tile[l] = 2;
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        out[l] = tile[l];
    }
}
