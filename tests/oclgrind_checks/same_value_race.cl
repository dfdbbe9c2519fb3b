// Every work-item sets the same flag to 1: whichever store lands last, the flag is 1, so
// Oclgrind does not call it a race.
__kernel void set_flag(__global int *flag, __global int *out)
{
    __local int seen;
    seen = 1;
    flag[0] = 1;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = seen;
}
