// Work-item 0 sets an element of the tile when `early` is set, in the same barrier interval
// in which the work-group's copy fills the tile: the two writes race.
__kernel void fill(__global const int *in, __global int *out, int early)
{
    __local int tile[4];
    int l = get_local_id(0);
    if (early && l == 0)
        tile[1] = 5;
    event_t e = async_work_group_copy(tile, in, 4, 0);
    wait_group_events(1, &e);
    out[l] = tile[l + 1];
}
