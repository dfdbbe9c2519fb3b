// Every work-item sets the same flag to the same value: whichever store lands last, the flag
// holds it, so Oclgrind calls it a race only under --uniform-writes.
__kernel void set_flag(__global int *flag, __global int *out, int one)
{
    __local int seen;
    seen = one;
    flag[0] = one;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = seen;
}
