// Two work-items store into the same local element (lm[lx + ly]) and a third
// reads it: which global element it holds depends on which store lands last,
// so no correspondence exists and Grover must refuse.

__kernel void refuse_ambiguous(const __global float *in, __global float *out)
{
    __local float lm[32];
    const uint lx = get_local_id(0);
    const uint ly = get_local_id(1);
    const uint gid = get_global_id(1) * get_global_size(0) + get_global_id(0);

    if (lx + ly < 32)
        lm[lx + ly] = in[gid];
    barrier(CLK_LOCAL_MEM_FENCE);
    out[gid] = lm[lx];
}
