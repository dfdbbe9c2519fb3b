// A tile that stages a function of the loaded value, lm[i] = f(g[j]), read back
// in reverse order within the work-group and as a broadcast of element 0. The
// new global load is f(g[j']) at every use.

__kernel void stage_function_reverse(const __global float *in, __global float *out)
{
    __local float tile[64];
    const uint lid = get_local_id(0);
    const uint size = get_local_size(0);
    const uint gid = get_global_id(0);

    tile[lid] = sqrt(fabs(in[gid])) * 2.0f;
    barrier(CLK_LOCAL_MEM_FENCE);

    out[gid] = tile[size - 1 - lid] + tile[0];
}
