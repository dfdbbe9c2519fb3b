// Every work-group reads past the end of the input at its own line.
__kernel void past_end(__global const int *in, __global int *out)
{
    int i = get_global_id(0);
    out[i] = in[i + 4];
    out[i] += in[i + 8];
}
