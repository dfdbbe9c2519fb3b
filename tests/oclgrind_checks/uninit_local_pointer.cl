// Stages the input through a `__local` buffer the host sizes, reading it back shifted by one:
// the last work-item reads an element nobody wrote unless `wrap` makes work-item 0 write it.
__kernel void shift(__global const int *in, __global int *out, __local int *stage, int wrap)
{
    int l = get_local_id(0);
    int n = get_local_size(0);
    stage[l] = in[l];
    if (wrap && l == 0)
        stage[n] = in[0];
    barrier(CLK_LOCAL_MEM_FENCE);
    out[l] = stage[l + 1];
}
