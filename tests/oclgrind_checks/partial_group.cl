// Reverses each work-group's part of `in` through local memory. With a global size the local
// size does not divide (OpenCL C 2.0), the last group is smaller: only `get_local_size`
// entries of the tile are filled, while `get_enqueued_local_size` is the launch's local size.
__kernel void reverse(__global const int *in, __global int *out)
{
    __local int tile[4];
    int l = get_local_id(0);
    int g = get_global_id(0);
    tile[l] = in[g];
    barrier(CLK_LOCAL_MEM_FENCE);
    out[g] = tile[get_local_size(0) - 1 - l] + 100 * get_local_size(0);
}

// The same, reversing over the enqueued size: the last group reads entries nobody wrote.
__kernel void reverse_enqueued(__global const int *in, __global int *out)
{
    __local int tile[4];
    int l = get_local_id(0);
    int g = get_global_id(0);
    tile[l] = in[g];
    barrier(CLK_LOCAL_MEM_FENCE);
    out[g] = tile[get_enqueued_local_size(0) - 1 - l];
}
