// Odd and even work-items meet at barriers of their own: odd ones after writing, even ones
// before. The group's first work-item is even, so the odd ones are those that diverge,
// although their side of the branch runs first. `apart` = 0 sends every work-item the even
// way.
__kernel void sides(__global int *out, int apart)
{
    int l = get_local_id(0);
    if (apart && (l & 1)) {
        out[l] = 10 + l;
        barrier(CLK_GLOBAL_MEM_FENCE);
    } else {
        barrier(CLK_GLOBAL_MEM_FENCE);
        out[l] = 20 + l;
    }
}
