// Reverses a tile through local memory and adds `first` to element 0, but only the first `n`
// work-items fill the tile, and work-item 0 fills `first` only when `fill` is set.
__kernel void reverse(__global const int *in, __global int *out, int n, int fill)
{
    __local int tile[4];
    __local int first;
    int l = get_local_id(0);
    if (l < n)
        tile[l] = in[l];
    if (fill && l == 0)
        first = in[0];
    barrier(CLK_LOCAL_MEM_FENCE);
    int v = tile[3 - l];
    if (l == 0)
        v += first;
    out[l] = v;
}
