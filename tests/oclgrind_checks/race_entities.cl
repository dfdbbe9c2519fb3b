// Races whose both sides Oclgrind names: `mode` picks who loads, stores or updates
// atomically, within a work-group or between work-groups.
__kernel void race(__global int *out, __global int *seen, __local int *tile, int mode)
{
    int l = get_local_id(0);
    int g = get_group_id(0);
    if (mode == 0) {
        // Global memory in one work-group: two loads, then two stores of different values.
        if (l < 2)
            seen[l] = out[0];
        else
            out[0] = l;
    } else if (mode == 1) {
        // Local memory in one work-group: one store, then loads.
        if (l == 0)
            tile[0] = 5;
        else
            seen[l] = tile[0];
        barrier(CLK_LOCAL_MEM_FENCE);
    } else if (mode == 2) {
        // Atomic updates, then a plain store and a plain load.
        if (l < 2)
            atomic_inc(out);
        else if (l == 2)
            out[0] = 4;
        else
            seen[0] = out[0];
    } else if (mode == 3) {
        // A plain store, then atomic updates.
        if (l == 0)
            out[0] = 7;
        else
            atomic_inc(out);
    } else if (mode == 4) {
        // Between work-groups: two store different values, the third loads.
        if (g < 2) {
            if (l == 0)
                out[0] = g + 5;
        } else {
            seen[l] = out[0];
        }
    } else if (mode == 5) {
        // Between work-groups: each stores, waits at a barrier, then loads.
        if (l == 0)
            out[0] = g;
        barrier(CLK_GLOBAL_MEM_FENCE);
        if (l == 1)
            seen[g] = out[0];
    } else {
        // Clean: every work-item its own element, read back by itself after a barrier.
        out[get_global_id(0)] = l;
        barrier(CLK_GLOBAL_MEM_FENCE);
        seen[get_global_id(0)] = out[get_global_id(0)];
    }
}
